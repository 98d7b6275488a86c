"""Fake of MicroPython's ``time``/``utime`` tick functions, on a clock tests drive.

Ticks wrap at 2**30 like on the RP2040, so the firmware's wrap handling is
exercised. ``sleep_ms`` does not sleep: it moves the fake clock forward.
"""

TICKS_PERIOD = 1 << 30
_HALF = TICKS_PERIOD // 2


class FakeClock:
    """A millisecond clock that only moves when told to."""

    def __init__(self, start_ms=0):
        self.now_ms = start_ms          # unwrapped milliseconds since "boot"
        self.slept_ms = 0

    def ticks_ms(self):
        return self.now_ms % TICKS_PERIOD

    @staticmethod
    def ticks_add(ticks, delta):
        return (ticks + delta) % TICKS_PERIOD

    @staticmethod
    def ticks_diff(end, start):
        return ((end - start + _HALF) % TICKS_PERIOD) - _HALF

    def sleep_ms(self, ms):
        self.now_ms += ms
        self.slept_ms += ms

    def advance(self, ms):
        self.now_ms += ms


_clock = FakeClock()


def clock():
    """The clock behind this module's functions."""
    return _clock


def reset(start_ms=0):
    """A fresh module clock (between tests)."""
    global _clock
    _clock = FakeClock(start_ms)
    return _clock


def ticks_ms():
    return _clock.ticks_ms()


def ticks_add(ticks, delta):
    return FakeClock.ticks_add(ticks, delta)


def ticks_diff(end, start):
    return FakeClock.ticks_diff(end, start)


def sleep_ms(ms):
    _clock.sleep_ms(ms)
