"""The table: pure rules, the one input queue and loop, the session and the journal.
Owns all game and table state; publishes one update per input to its subscribers.
May import: words, appliance.config. Never devices, outputs, review, appliance, commands.
"""
