"""Seat buttons and the shared UNDO button, read with gpiozero.

At the table every seat has one big arcade button, and there is one UNDO
button for everybody:

* seat button **tap** -> :class:`~companion.core.events.SeatTap` (complete the oldest order)
* seat button **double tap** (two taps, each within ``multi_tap_seconds`` of the last)
  -> ``SeatTap(count=2)``: complete the next order after the oldest; three taps the
  third, and so on (each extra tap steps one position towards position 1)
* seat button **hold** for ``hold_seconds`` -> :class:`~companion.core.events.SeatHold` (end the
  turn)
* UNDO **tap** -> :class:`~companion.core.events.UndoTap`
* UNDO **hold** for ``redo_hold_seconds`` -> :class:`~companion.core.events.UndoHold` (redo)
* UNDO held on for ``CODE_HOLD_SECONDS`` -> ``on_code_asked()``, once a press: a table
  without a screen says its pairing code aloud (the service wires it; not a table input:
  the code is no part of the game)

The module has three layers, read top to bottom:

1. :class:`PressClassifier` is pure logic: contact edges with timestamps go in,
   gestures come out. Debounce and hold timing live here, so tests can feed
   it any bounce train on an invented clock.
2. :class:`Buttons` owns one ``gpiozero.DigitalInputDevice`` (pull-up, pressed =
   active) per seat plus UNDO. The
   gpiozero callbacks only timestamp the edge, feed the classifier and post
   the resulting event to the table loop; they never touch game state. A small
   timer thread calls :meth:`Buttons.poll` at the next deadline (a hold
   threshold, the end of a row of taps) and sleeps without a timeout when nothing
   is pending, so idle buttons cost no CPU and a tap wakes no timer.
   Tests with an injected clock skip the thread and call ``poll()`` themselves.
3. :meth:`Buttons.from_config` takes the pin factory for ``[seats] driver``
   from :func:`companion.devices.mock_pins.pin_factory`: ``"gpio"`` (gpiozero
   chooses lgpio or RPi.GPIO on a Raspberry Pi) or ``"simulated"`` (gpiozero's
   ``MockFactory``). Simulation lives in that pin layer, never here: the demo
   and the tests press through mock pins with
   :class:`~companion.devices.mock_pins.Fingers`, through this same code.
   Without usable GPIO the buttons report themselves unavailable with one
   clear message and the companion carries on without them.

Debounce, as the classifier does it ("leading edge"): the first edge of a
press or release acts at once, so a tap is applied the instant the button
comes up. For ``bounce_ms`` after that edge further edges only record the
contact's level; when that window ends the level decides:

* after a press: still closed -> a real press; open again -> contact chatter,
  forgotten (never a ghost tap);
* after a release: open -> done; closed again -> the contact only flickered
  open mid-press, so the press continues, but it has already given its
  gesture and gives no other (one press never applies two actions).

A hold fires once, the moment the threshold passes while the button is still
down (the turn ends without waiting for the release); the release after a
hold is not a tap.

Whose press, and when: the moment a seat's contact closes, :class:`Buttons`
stamps the press with an :class:`~companion.core.events.Press` (that moment, the
turn and active seat the table showed then, and whether another seat's press
was still in flight) and every gesture of that press carries the stamp. The
table loop decides with it (docs/buttons.md); the buttons themselves
never judge whose turn it is.
"""
from __future__ import annotations

import logging
import math
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Sequence

from companion.core import events as ev
from companion.appliance.config import Config, SeatsSettings
from companion.devices.mock_pins import pin_factory as factory_for

log = logging.getLogger("companion.buttons")
_SEATS = SeatsSettings()            # the config schema's defaults ([seats])

NO_GPIO = ("no GPIO pins found: on a Raspberry Pi install lgpio (pip install '.[pi]'); "
           "elsewhere set [seats] driver = \"simulated\"")

_DRIVER_LABEL = {"simulated": "simulated buttons: "}

UNDO = "undo"
"""The name of the shared UNDO button where a seat number would go."""

Post = Callable[[Any], None]
TurnNow = Callable[[], ev.TableVersion]
"""Returns the table's version now (with its turn and active seat), e.g.
``TableLoop.turn_now``: a press carries the one it began in."""


# --------------------------------------------------------------------------
# 1. Gestures from edges: pure, no threads, no gpiozero


@dataclass(frozen=True)
class Gesture:
    """What one press meant: ``kind`` "tap" or "hold", decided at time ``at``
    (the release edge for a tap, the moment the threshold passed for a hold).
    ``count``: how many quick taps in a row made this tap (2 = a double tap)."""
    kind: str
    at: float
    count: int = 1


class PressClassifier:
    """Turns the edges of one button's contact into taps and holds.

    Call :meth:`edge` for every level change (``pressed`` True when the
    contact closes) and :meth:`poll` whenever time passes; both return the
    gestures decided up to that moment. :meth:`next_deadline` says when
    ``poll`` next has something to decide. Times are seconds on any monotonic
    clock; a time earlier than one already seen counts as that time.
    """

    def __init__(self, hold_seconds: float = _SEATS.hold_seconds,
                 bounce_seconds: float = _SEATS.bounce_ms / 1000,
                 multi_tap_seconds: float = 0.0):
        if hold_seconds <= 0 or bounce_seconds < 0 or multi_tap_seconds < 0:
            raise ValueError("hold_seconds must be positive and bounce_seconds not negative")
        self.hold_seconds = hold_seconds
        self.bounce_seconds = bounce_seconds
        # Taps in a row: with a window, a tap is given only once no other tap followed
        # within it, as one tap with a count (0 = every tap at once, count 1).
        self.multi_tap_seconds = multi_tap_seconds
        self.taps = 0                  # taps counted so far in this row
        self.taps_at = 0.0             # when the row's first tap was released
        self.taps_due: float | None = None
        self.contact_closed = False    # the raw level, as last reported
        self.down = False              # debounced: the button counts as pressed
        self.down_since = 0.0
        self.confirmed = False         # the press outlasted its bounce window
        self.spent = False             # this press already gave its gesture
        self.quiet_until: float | None = None   # bounce window: edges only record the level
        self.now = float("-inf")
        self.chatter = 0               # bounce trains that were forgotten

    # -- input
    def edge(self, pressed: bool, at: float) -> list[Gesture]:
        """The contact closed (``pressed``) or opened at time ``at``."""
        out = self.poll(at)
        self.contact_closed = bool(pressed)
        if self.quiet_until is not None:
            return out
        if self.contact_closed and not self.down:
            self._press(self.now)
        elif not self.contact_closed and self.down:
            out += self._release(self.now)
        return out

    def poll(self, now: float) -> list[Gesture]:
        """Let time pass up to ``now``; return gestures that became due."""
        now = max(now, self.now)
        out: list[Gesture] = []
        while True:
            due = self._due()
            if due is None or due[0] > now:
                break
            at, what = due
            self.now = at
            if what == "quiet":
                self._end_quiet(at)
            elif what == "taps":
                out.append(self._taps_done())
            else:
                self.spent = True
                if self.taps:          # taps, then a hold: the taps first, in time order
                    out.append(self._taps_done())
                out.append(Gesture("hold", at))
        self.now = now
        return out

    def next_deadline(self) -> float | None:
        """When :meth:`poll` must next run for a gesture to come out on time, or None.

        That is only ever a hold threshold: the end of a bounce window can
        wait for the next edge or poll, since by itself it never gives a
        gesture. (So a tap wakes no timer at all.)
        """
        if self.taps_due is not None:     # a row of taps ends (unless a press continues it)
            hold = None if not self.down or self.spent else self.down_since + self.hold_seconds
            return self.taps_due if hold is None else min(self.taps_due, max(hold, self.now))
        if not self.down or self.spent:
            return None
        hold_at = self.down_since + self.hold_seconds
        if self.quiet_until is not None:
            # Open again inside the window: chatter, unless the next edge says otherwise.
            return max(hold_at, self.quiet_until) if self.contact_closed else None
        return max(hold_at, self.now)

    @property
    def busy(self) -> bool:
        """Pressed, or inside a bounce window."""
        return self.down or self.quiet_until is not None

    # -- the state machine
    def _due(self) -> tuple[float, str] | None:
        due = []
        if self.quiet_until is not None:
            due.append((self.quiet_until, "quiet"))
        elif self.down and self.confirmed and not self.spent:
            due.append((max(self.down_since + self.hold_seconds, self.now), "hold"))
        if self.taps_due is not None and not self.down:
            due.append((self.taps_due, "taps"))
        return min(due) if due else None

    def _taps_done(self) -> Gesture:
        gesture = Gesture("tap", self.taps_at, self.taps)
        self.taps, self.taps_due = 0, None
        return gesture

    def _press(self, at: float) -> None:
        self.down, self.down_since, self.spent = True, at, False
        if self.bounce_seconds > 0:
            self.confirmed, self.quiet_until = False, at + self.bounce_seconds
        else:
            self.confirmed = True

    def _release(self, at: float) -> list[Gesture]:
        out = [] if self.spent or not self.confirmed else [Gesture("tap", at)]
        if out and self.multi_tap_seconds > 0:     # wait: another tap may follow
            if not self.taps:
                self.taps_at = at
            self.taps += 1
            self.taps_due = at + self.multi_tap_seconds
            out = []
        self.down = False
        self.spent = True              # remembered in case the contact closes again at once
        if self.bounce_seconds > 0:
            self.quiet_until = at + self.bounce_seconds
        return out

    def _end_quiet(self, at: float) -> None:
        self.quiet_until = None
        if self.down and not self.confirmed:
            if self.contact_closed:
                self.confirmed = True  # a real press
            else:
                self.down = False      # chatter shorter than the bounce window
                self.chatter += 1
        elif not self.down and self.contact_closed:
            # Open for less than the bounce window: the same press goes on,
            # but it has had its gesture.
            self.down, self.confirmed, self.spent = True, True, True


# --------------------------------------------------------------------------
# 2. The buttons on their pins


class Buttons:
    """The seat buttons and the UNDO button of one table.

    ``post`` receives the input events (normally ``TableLoop.post``); it is
    called from gpiozero's callback thread or the timer thread and must not
    block. ``pins[i]`` is seat ``i``'s BCM pin (seat 0 = seat 1 on the
    label); ``undo_pin`` -1 means no UNDO button. Buttons close the contact to
    ground and use the Pi's internal pull-ups. ``pin_factory``: gpiozero's; by
    default the pin layer's for ``driver`` (:func:`~companion.devices.mock_pins.pin_factory`).
    """

    CODE_HOLD_SECONDS = 6.0     # UNDO held this long asks for the phones' pairing code

    def __init__(self, post: Post, pins: Sequence[int], undo_pin: int = -1, *,
                 hold_seconds: float = _SEATS.hold_seconds,
                 redo_hold_seconds: float = _SEATS.redo_hold_seconds,
                 bounce_ms: int = _SEATS.bounce_ms, multi_tap_ms: int = 0,
                 driver: str = _SEATS.driver,
                 pin_factory: Any = None, clock: Callable[[], float] = time.monotonic,
                 turn_now: TurnNow | None = None):
        if driver not in ("gpio", "simulated", "none"):
            raise ValueError(f"unknown button driver {driver!r}")
        self.post = post
        self.pins = list(pins)
        self.undo_pin = undo_pin
        self.driver = driver
        self.clock = clock
        self.turn_now = turn_now
        # the pin layer's choice for the driver, unless one is given (gpiozero's Factory idea)
        self.pin_factory = factory_for(driver) if pin_factory is None else pin_factory
        bounce = bounce_ms / 1000.0
        self._names: list[Any] = list(range(len(self.pins)))
        self._pin_numbers = list(self.pins)
        if undo_pin >= 0:
            self._names.append(UNDO)
            self._pin_numbers.append(undo_pin)
        self.classifiers = {name: PressClassifier(
            redo_hold_seconds if name == UNDO else hold_seconds, bounce,
            0.0 if name == UNDO else multi_tap_ms / 1000.0) for name in self._names}
        self.devices: dict[Any, Any] = {}      # name -> gpiozero.DigitalInputDevice
        self.presses: dict[Any, ev.Press] = {}  # seat or UNDO -> its current press
        self.available = False
        self.problem = ""                       # why the buttons are unavailable
        self._cond = threading.Condition(threading.Lock())
        self._closing = False
        self._thread: threading.Thread | None = None
        self._timer_wakes_at = math.inf          # what the timer thread sleeps until
        #: called (on the buttons' thread, once a press) when UNDO is held
        #: ``CODE_HOLD_SECONDS``: the service says the pairing code on a table without a screen
        self.on_code_asked: Callable[[], None] | None = None
        self._code_asked = False                 # this UNDO press asked already

    @classmethod
    def from_config(cls, cfg: Config, post: Post, clock: Callable[[], float] = time.monotonic,
                    pin_factory: Any = None, turn_now: TurnNow | None = None) -> Buttons:
        s = cfg.seats
        return cls(post, s.pins, s.undo_pin, hold_seconds=s.hold_seconds,
                   redo_hold_seconds=s.redo_hold_seconds, bounce_ms=s.bounce_ms,
                   multi_tap_ms=s.multi_tap_ms, driver=s.driver,
                   pin_factory=pin_factory, clock=clock, turn_now=turn_now)

    # -- life cycle
    def open(self) -> bool:
        """Claim the pins. On failure post ``DeviceStatus("buttons", "unavailable", why)``
        and return False; the companion runs on without buttons."""
        if self.driver == "none" or self.devices:
            return self.available
        try:
            self._open_devices()
        except Exception as exc:          # any pin trouble: one clear message, no traceback
            self._close_devices()
            self.problem = _explain(exc, self._pin_numbers)
            log.warning("seat buttons unavailable: %s", self.problem)
            self.post(ev.DeviceStatus("buttons", "unavailable", self.problem,
                                      {"driver": self.driver}))
            return False
        self.available = True
        stuck = [n for n, d in self.devices.items() if d.is_active]
        detail = self._describe() + (f"; stuck pressed at start: {', '.join(map(_label, stuck))}"
                                     if stuck else "")
        if stuck:
            log.warning("buttons pressed at start (wiring?): %s", stuck)
        log.info("buttons ready: %s", detail)
        self.post(ev.DeviceStatus("buttons", "ready", detail,
                                  {"driver": self.driver, "seats": len(self.pins)}))
        return True

    def start(self) -> Buttons:
        """Open the pins and start the timer thread (holds, bounce windows)."""
        if self.open() and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="buttons-timer", daemon=True)
            self._thread.start()
        return self

    def close(self, timeout: float = 2.0) -> None:
        """Stop the timer and release the pins. Safe to call twice."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._close_devices()
        self.available = False

    @property
    def pin_numbers(self) -> dict[Any, int]:
        """Each button's BCM pin: seat (0-based) or ``UNDO`` -> number."""
        return dict(zip(self._names, self._pin_numbers, strict=True))

    # -- time
    def poll(self, now: float | None = None) -> None:
        """Decide whatever is due at ``now`` (default: the clock): holds, ends of
        bounce windows and of rows of taps. The timer thread calls this; tests
        with an injected clock call it after moving the clock."""
        now = self.clock() if now is None else now
        with self._cond:
            self._advance(now)

    def next_deadline(self) -> float | None:
        with self._cond:
            return self._next_deadline()

    # -- inside
    def _open_devices(self) -> None:
        # DigitalInputDevice, not Button: Button's hold machinery runs a thread per
        # button that wakes 10 times a second; holds are classified here instead.
        from gpiozero import DigitalInputDevice
        factory = self.pin_factory
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for name, number in zip(self._names, self._pin_numbers, strict=True):
                button = DigitalInputDevice(number, pull_up=True, bounce_time=None,
                                            pin_factory=factory)
                self.devices[name] = button
                button.when_activated = lambda name=name: self._edge(name, True)
                button.when_deactivated = lambda name=name: self._edge(name, False)
        for w in caught:
            log.debug("gpiozero: %s", w.message)

    def _close_devices(self) -> None:
        for device in self.devices.values():
            try:
                device.when_activated = device.when_deactivated = None
                device.close()
            except Exception:             # closing must never fail the shutdown
                log.debug("closing a button failed", exc_info=True)
        self.devices = {}

    def _describe(self) -> str:
        seats = ", ".join(f"seat {i + 1} GPIO{p}" for i, p in enumerate(self.pins))
        undo = f", UNDO GPIO{self.undo_pin}" if self.undo_pin >= 0 else ", no UNDO button"
        return _DRIVER_LABEL.get(self.driver, "") + seats + undo

    def _edge(self, name: Any, pressed: bool) -> None:
        """gpiozero callback: stamp, classify, post. Never touches game state."""
        at = self.clock()
        with self._cond:
            if self._closing:
                return
            self._advance(at)           # earlier deadlines of every button first: time order
            classifier = self.classifiers[name]
            before = (classifier.down, classifier.down_since)
            gestures = classifier.edge(pressed, at)
            if classifier.down and (classifier.down, classifier.down_since) != before \
                    and not classifier.taps:
                self._stamp(name, at)     # a new press began (a double tap: its first press)
                if name == UNDO:
                    self._code_asked = False
            self._emit(name, gestures)
            self._wake_timer()

    def _stamp(self, name: Any, at: float) -> None:
        """Remember when this press began and the table's version then (its turn)."""
        seen = self.turn_now() if self.turn_now is not None else None
        in_flight = name != UNDO and any(c.down and not c.spent for n, c in
                                         self.classifiers.items() if n != name and n != UNDO)
        self.presses[name] = ev.Press(at, seen, in_flight)

    def _advance(self, now: float) -> None:
        for name, classifier in self.classifiers.items():
            self._emit(name, classifier.poll(now))
        due = self._code_due()
        if due is not None and now >= due and self.on_code_asked is not None:
            self._code_asked = True
            try:
                self.on_code_asked()
            except Exception:             # saying the code must never stop the buttons
                log.exception("saying the pairing code failed")

    def _code_due(self) -> float | None:
        """When the UNDO press in hand asks for the pairing code (None: it will not)."""
        undo = self.classifiers.get(UNDO)
        if self.on_code_asked is None or undo is None or self._code_asked \
                or not (undo.down and undo.confirmed and undo.contact_closed):
            return None
        return undo.down_since + self.CODE_HOLD_SECONDS

    def _emit(self, name: Any, gestures: list[Gesture]) -> None:
        for g in gestures:
            event: ev.UndoTap | ev.UndoHold | ev.SeatTap | ev.SeatHold
            press = self.presses.get(name)
            if name == UNDO:
                seen = press.seen if press is not None else None
                event = ev.UndoTap(g.at, seen) if g.kind == "tap" else ev.UndoHold(g.at, seen)
            else:
                event = (ev.SeatTap(name, g.at, press, g.count) if g.kind == "tap"
                         else ev.SeatHold(name, g.at, press))
            self.post(event)

    def _wake_timer(self) -> None:
        """Wake the timer thread only if it now has something to do earlier than
        it planned (a press: its hold threshold); a release wakes nobody."""
        deadline = self._next_deadline()
        if deadline is not None and deadline < self._timer_wakes_at:
            self._cond.notify_all()

    def _next_deadline(self) -> float | None:
        times = [t for t in (*(c.next_deadline() for c in self.classifiers.values()),
                             self._code_due()) if t is not None]
        return min(times) if times else None

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closing:
                    return
                deadline = self._next_deadline()
                self._timer_wakes_at = math.inf if deadline is None else deadline
                wait = None if deadline is None else deadline - self.clock()
                if wait is None:
                    self._cond.wait()
                elif wait > 0:
                    self._cond.wait(wait)
                self._timer_wakes_at = -math.inf     # awake: it will look again anyway
                if self._closing:
                    return
            self.poll()


def _label(name: Any) -> str:
    return "UNDO" if name == UNDO else f"seat {name + 1}"


def _explain(exc: Exception, pins: Sequence[int]) -> str:
    """An installer's sentence for a gpiozero failure."""
    from gpiozero import exc as gz
    if isinstance(exc, gz.BadPinFactory):
        return NO_GPIO
    if isinstance(exc, gz.GPIOPinInUse):
        return (f"a button pin is already in use ({exc}): another program (or a second "
                "companion) holds it, or an overlay in config.txt claims it; pick free pins "
                "in [seats] pins")
    if isinstance(exc, (gz.PinInvalidPin, gz.PinInvalidPull)):
        return f"[seats] pins {list(pins)}: {exc}; use BCM numbers of free GPIO pins"
    if isinstance(exc, PermissionError) or "ermission" in str(exc):
        return (f"no permission to use the GPIO pins ({exc}): add the user to the gpio group "
                "(sudo adduser $USER gpio) and log in again")
    return f"the seat buttons could not be set up: {exc}"
