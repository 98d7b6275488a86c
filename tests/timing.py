"""How long a test waits before it calls a wait a hang: one factor, in one place.

A test waits on an event with a timeout, never sleeps; the timeout guards against a hang
and is no speed limit ("performance is measured by benchmarks that print numbers, not
timed tests"). Where the code runs 10-30 times slower than here (the arm64 install check
runs the suite under qemu-user: ``.ci/check-arm64-install``), every such guard is
multiplied by ``COFFEE_TEST_TIME_SCALE`` (default 1, so nothing changes on a real
machine)::

    COFFEE_TEST_TIME_SCALE=20 python -m pytest -q

``scaled(5)`` is 5 s here and 100 s under that check. A wait that is expected to run
out (nothing should arrive within it) is not scaled: it only makes the test slower.
"""
from __future__ import annotations

import os


def _scale() -> float:
    text = os.environ.get("COFFEE_TEST_TIME_SCALE", "").strip() or "1"
    try:
        value = float(text)
    except ValueError:
        raise RuntimeError(
            f"COFFEE_TEST_TIME_SCALE={text!r}: a number of times (1 or more) please") from None
    if not value >= 1:
        raise RuntimeError(f"COFFEE_TEST_TIME_SCALE={text!r}: 1 or more please")
    return value


TIME_SCALE = _scale()


def scaled(seconds: float) -> float:
    """``seconds`` as a hang guard on this machine: times ``COFFEE_TEST_TIME_SCALE``."""
    return seconds * TIME_SCALE
