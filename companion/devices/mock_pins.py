"""Simulated seat buttons live in the pin layer, the way gpiozero does it.

:class:`~companion.devices.buttons.Buttons` reads pins and never knows whether
a finger or a program moved them. Which pins it reads is the pin factory's
choice (gpiozero's Factory idea): :func:`pin_factory` gives ``None`` for
``[seats] driver = "gpio"`` (gpiozero picks lgpio or RPi.GPIO on a Pi) and
gpiozero's ``MockFactory`` for ``"simulated"``.

:class:`Fingers` is the mock-pin driver: it pushes a button by driving its
mock pin low and lifts it by driving it high, on an injected clock, so the
demo's bots and the tests press through the very code a Pi runs. With a
manual clock (:class:`ManualClock`) whole games of presses take no time.
"""
from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

TAP_SECONDS = 0.12
"""How long :meth:`Fingers.press` keeps a button down by default."""


def pin_factory(driver: str) -> Any:
    """The gpiozero pin factory for ``[seats] driver``: None lets gpiozero choose the
    Pi's own (``"gpio"``); ``"simulated"`` is a ``MockFactory`` of mock pins."""
    if driver == "simulated":
        from gpiozero.pins.mock import MockFactory
        return MockFactory()
    return None


class ManualClock:
    """A clock that moves only when told: a simulated table's time."""

    def __init__(self, t: float = 1000.0) -> None:
        self.t = t
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> float:
        with self._lock:
            self.t += seconds
            return self.t


class Fingers:
    """Presses buttons through their mock pins.

    ``pins`` maps a button's name (a 0-based seat, or ``"undo"``) to its BCM
    number on ``factory`` (a gpiozero ``MockFactory``). :meth:`press` drives the
    pin low and schedules the lift; :meth:`poll` lifts every finger that is due
    and then calls ``then(now)`` (normally ``Buttons.poll``: holds and tap
    windows are due at the same moments). :meth:`start` runs a thread that
    lifts fingers on a real clock; with an injected clock call :meth:`poll`.
    """

    def __init__(self, factory: Any, pins: Mapping[Any, int],
                 clock: Callable[[], float] = time.monotonic,
                 then: Callable[[float], None] | None = None) -> None:
        self.factory, self.pins, self.clock, self.then = factory, dict(pins), clock, then
        self._lifts: list[tuple[float, int, Any]] = []
        self._n = 0
        self._cond = threading.Condition()
        self._closing = False
        self._thread: threading.Thread | None = None

    @classmethod
    def on(cls, buttons: Any, clock: Callable[[], float] | None = None) -> Fingers:
        """Fingers for the mock pins of an open :class:`~companion.devices.buttons.Buttons`."""
        from gpiozero.pins.mock import MockFactory
        if not isinstance(buttons.pin_factory, MockFactory):
            raise RuntimeError('buttons can only be pressed by software on mock pins '
                               '([seats] driver = "simulated")')
        return cls(buttons.pin_factory, buttons.pin_numbers,
                   buttons.clock if clock is None else clock, buttons.poll)

    def pin(self, name: Any) -> Any:
        """The ``MockPin`` of a button."""
        if name not in self.pins:
            raise ValueError(f"no button for {'UNDO' if name == 'undo' else f'seat {name + 1}'}")
        return self.factory.pin(self.pins[name])

    def press(self, name: Any, seconds: float = TAP_SECONDS) -> None:
        """Push a button for ``seconds`` (returns at once)."""
        pin = self.pin(name)
        pin.drive_low()
        with self._cond:
            self._n += 1
            heapq.heappush(self._lifts, (self.clock() + seconds, self._n, name))
            self._cond.notify_all()

    def poll(self, now: float | None = None) -> None:
        """Lift every finger due by ``now`` (default: the clock), then let the buttons
        decide what is due."""
        now = self.clock() if now is None else now
        with self._cond:
            due = []
            while self._lifts and self._lifts[0][0] <= now:
                due.append(heapq.heappop(self._lifts)[2])
        for name in due:
            self.factory.pin(self.pins[name]).drive_high()
        if self.then is not None:
            self.then(now)

    def next_lift(self) -> float | None:
        with self._cond:
            return self._lifts[0][0] if self._lifts else None

    # -- on a real clock
    def start(self) -> Fingers:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="mock-fingers", daemon=True)
            self._thread.start()
        return self

    def close(self, timeout: float = 2.0) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closing:
                    return
                wait = self._lifts[0][0] - self.clock() if self._lifts else None
                if wait is None or wait > 0:
                    self._cond.wait(wait)
                if self._closing:
                    return
            self.poll()
