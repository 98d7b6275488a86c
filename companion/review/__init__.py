"""Looking back at a game from the journal: why, story, summary PDF, history, replay, exports.
Pure readers of the journal and the rules' happenings; BG Stats and the play link.
May import: core, words, appliance.config. Never outputs, appliance, commands.
"""
