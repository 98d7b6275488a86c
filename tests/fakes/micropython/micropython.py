"""Fake of MicroPython's ``micropython`` module: just what the firmware uses."""


def const(value):
    """On the Pico, a compile-time constant; here, the value itself."""
    return value


def kbd_intr(char):
    """Ctrl-C handling is the REPL's business; nothing to do under CPython."""
