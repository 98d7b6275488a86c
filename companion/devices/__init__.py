"""Inputs: the table's hardware that players touch (seat buttons, card scanner).
Owns the pins and the serial line; each device only posts typed input events
(companion.core.events) to the table loop. May import: core.events, appliance.config.
"""
