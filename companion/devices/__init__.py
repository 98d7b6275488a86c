"""Hardware adapters (buttons, scanner, pixels), each with its simulated twin.

Device threads only post typed input events (``companion.inputs``) to the table
loop's queue; they never touch game state or pygame.
"""
