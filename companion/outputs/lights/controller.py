"""The lights subscriber: keeps the light context and drives the LED strip.

The table loop calls the controller (``controller(update)``) on its own
thread. That call only stamps the update with the time, appends it to an
inbox and wakes the lights thread: it never blocks the loop. The lights
thread then

1. folds the inbox into the light context (``patterns.LightContext``): who
   must draw which cards, which seat flashes since when, whether the scanner
   is lost, when the game ended, the turn timer;
2. renders the picture (``patterns.render``) and shows it on the strip;
3. sleeps on a condition until the next update arrives, or until the picture
   next changes: at the next step (a blink, the timer bar) or, while
   something moves smoothly, one frame later (at most ``fps`` frames a
   second). When nothing changes it sleeps with no timeout at all, so an idle
   table costs no CPU and no strip writes. (The strip's own identical-frame
   skip is a second guard, not the mechanism.)

Tests and tools can run it without the thread: ``controller.tick(now)`` does
steps 1-2 at ``now`` and returns when it wants to be called again (None =
only after the next update). Time comes from the injectable ``clock``.

Dismissing a draw prompt: the screen posts ``DismissDraws`` to the table
loop, which works out whose prompts are dismissed once, in the update's
snapshot (``draw_prompt.Draws``), so screen, phones and lights always agree.
Cards scanned after a surge end the prompt by themselves, and so does the
next turn; a table shown as it is (a resumed game) works out the draws still
due from the game (``draw_prompt``).
The settings screen can call ``set_brightness`` (never above the configured
cap), ``set_turn_timer`` and ``set_seat_colors``; like every call from outside,
they only queue work for the lights thread.

``build_lights(cfg)`` makes a controller from the ``[pixels]`` config (or
None without lights). It is an ``outputs.Output``: ``start(snapshot)`` shows the
table as it is (with the seat colours chosen at setup) and starts the thread, and
``on_update`` follows the loop; ``controller.attach(loop)`` subscribes it without the
thread (tests and tools call ``tick``).
"""
from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, assert_never
from collections.abc import Callable, Sequence

from companion.core import seat_colours
from .pixels import (PixelStrip, Segment, SimulatedStrip, contiguous_segments,
                     validate_segments)
from companion.core.draw_prompt import Draws, pending_draws
from companion.core.rules.state import Game
from companion.core.rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardEnrolled, CardIdentified,
                                             CardsToDraw, Corrected, DeviceStatusChanged,
                                             DislikesTaken, DrawsDismissed, FinalTurnBegins,
                                             GameOver, GameStarted, Happening, NotYourTurn,
                                             OrderCompleted, OrdersMovedDown, RankingChanged,
                                             Redone, ShopClosed, ShopReopened, Stalled, TablePaused,
                                             TableResumed, TokensGained, TokensSpent, TurnChanged,
                                             UnknownCard, UpgradeActivated, Undone)
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly
from companion.core.snapshot import Snapshot
from companion.core.loop import Update
from companion.core.turn_timer import TurnClock
from companion.core.worker import Worker
from .patterns import (CAKE_STEP, CAKE_STEPS, FLASH_STEP, FLASH_STEPS,
                       TAKEN_SECONDS, DrawPrompt, LightContext, Lights, Style, draws_left, fault,
                       frame_from_lights, render)

log = logging.getLogger("companion.outputs.lights")

#: Never animate faster than this, whatever ``[pixels] fps`` says: 30 frames of
#: 64 LEDs is already smooth, and each frame costs CPU on a Pi.
MAX_FPS = 30
#: Without a scanner nobody can tell the lights that cards were drawn: the draw
#: prompt then blinks this many seconds.
DRAW_PROMPT_WITHOUT_SCANNER = 8.0
SCANNER_LOST = {"lost", "garbled"}
SCANNER_BACK = {"back", "connected", "ready"}

NO_STRIP = ("no NeoPixel strip ({detail}). On a Raspberry Pi: enable SPI (sudo raspi-config, "
            "Interface Options, SPI), add the service user to the 'spi' and 'gpio' groups and "
            "install the Pi extras: pip install 'coffee-rush-companion[pi]' (see "
            "hardware/leds.md). Elsewhere set [pixels] driver = \"simulated\" or \"none\". "
            "The table carries on without lights.")


@dataclass(frozen=True)
class _Received:
    what: str          # "update", "table", "colors", "brightness", "turn_timer"
    value: Any
    at: float


class LightsController(Worker):
    """Shows the table on a pixel strip; see the module docstring."""

    thread_name = "lights"
    name = "lights"                        # an ``outputs.Output``

    def __init__(self, strip: PixelStrip, segments: Sequence[Segment],
                 seat_colors: Sequence = seat_colours.LED_RGB, fps: int = MAX_FPS,
                 turn_timer: float = 0, draw_timeout: float | None = None,
                 sweep: bool = False, clock: Callable[[], float] = time.monotonic):
        segments = sorted(validate_segments(segments, strip.pixel_count), key=lambda s: s.seat)
        if [s.seat for s in segments] != list(range(len(segments))):
            raise ValueError("pixel segments must cover seats 0, 1, ... without gaps, got "
                             "seats %s" % [s.seat for s in segments])
        self.strip: PixelStrip | None = strip
        self.pixel_count = strip.pixel_count
        #: The configured brightness is a power-budget cap: set_brightness stays below it.
        self.brightness_cap = strip.brightness
        self.segments = list(segments)     # the seats' stretches of the strip, seat 0 first
        self.positions = [seg.positions() for seg in segments]
        self.style = Style(len(segments), tuple(s.length for s in segments),
                           tuple(seat_colors)[:len(segments)], sweep)
        self.fps = max(1, min(int(fps), MAX_FPS))
        self.draw_timeout = draw_timeout
        self.clock = clock
        # light context, owned by whichever thread runs tick()
        self.game: Game | None = None
        self.turns = TurnClock(turn_timer)
        self.draws: dict[int, DrawPrompt] = {}
        self.flashes: dict[int, float] = {}
        # seat -> (position completed, when, whether that order had a cake)
        self.taken: dict[int, tuple] = {}
        self.cake_cards: dict[int, float] = {}     # seat -> when it gained a cake card
        self.scanner_lost_since: float | None = None
        self.paused_since: float | None = None
        self.game_over_since: float | None = None
        self.last: Lights | None = None
        self.fault = False                 # a start-up fault: the fault pattern, not the game
        self.frames_rendered = 0
        # hand-over from other threads
        self._cond = threading.Condition()
        self._inbox: list[_Received] = []
        self._stopping = False
        self._asleep = False               # the thread waits for an update, no timeout
        self._thread: threading.Thread | None = None
        self._errors_logged: set = set()
        self._colour_names: tuple[str, ...] = ()   # the seat colours the snapshot named

    # --- the output interface (``outputs.Output``) -------------------------------------

    def start(self, snapshot: Snapshot | None = None) -> LightsController:
        """Show the table as it is (``snapshot``: with its seat colours), start the thread."""
        if snapshot is not None:
            self.show_table(snapshot.table)
            self._follow_colours(snapshot)
        super().start()
        return self

    def on_update(self, update: Update) -> None:
        """Queue the update (loop thread), after the seat colours it chose, if new."""
        if update.snapshot is not None:
            self._follow_colours(update.snapshot)
        self._put("update", update)

    def status(self) -> str:
        if self.strip is None:
            return "off"
        return "simulated" if isinstance(self.strip, SimulatedStrip) else "ok"

    def _follow_colours(self, snapshot: Snapshot) -> None:
        """A game's seat colours (chosen at setup) on its seats; the seats without a
        player keep their box colour."""
        if snapshot.seat_colours and snapshot.seat_colours != self._colour_names:
            self._colour_names = snapshot.seat_colours
            self.set_seat_colors(seat_colours.every_seat(snapshot.seat_colours))

    # --- any thread ------------------------------------------------------------------

    def __call__(self, update: Update) -> None:
        """The table-loop subscriber: queue the update, wake the lights thread."""
        self.on_update(update)

    def show_table(self, table) -> None:
        """Show a table without an update (at start, e.g. a resumed game)."""
        self._put("table", table)

    def set_seat_colors(self, colors: Sequence) -> None:
        """Change the seat colours (names or (r, g, b)), e.g. after the setup wizard."""
        Style(self.style.seat_count, self.style.lengths, tuple(colors))  # validate here
        self._put("colors", tuple(colors))

    def set_brightness(self, value: float) -> None:
        """Dim the LEDs (e.g. from the settings screen), never above the configured
        ``[pixels] brightness``, which is the power supply's budget."""
        value = float(value)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"brightness must be between 0 and 1, got {value!r}")
        self._put("brightness", min(value, self.brightness_cap))

    def set_turn_timer(self, seconds: float) -> None:
        """Change the turn timer (0 = off); the current turn starts a fresh timer."""
        self._put("turn_timer", float(seconds))

    def show_fault(self, on: bool = True) -> None:
        """Blink the start-up fault pattern (``on``) or go back to showing the table."""
        self._put("fault", bool(on))

    def attach(self, loop) -> LightsController:
        """Subscribe to a ``TableLoop`` and show its table as it is now, without starting
        the thread (tests and tools call ``tick``; the service uses ``outputs.Outputs``)."""
        self.show_table(loop.snapshot.table)
        loop.subscribe(self.on_update)
        return self

    @property
    def writes(self) -> int:
        """Frames actually written to the strip so far."""
        return self.strip.writes if self.strip is not None else 0

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until the lights thread has shown everything it was given and
        sleeps with nothing due (tests, benchmarks). False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._asleep and not self._inbox, timeout)

    def _put(self, what: str, value: Any) -> None:
        with self._cond:
            self._inbox.append(_Received(what, value, self.clock()))
            self._cond.notify_all()        # all: wait_idle() may share the condition

    # --- the lights thread (start and stop: Worker) -------------------------------------

    def close(self) -> None:
        """Stop the thread, switch the LEDs off and release the strip."""
        self.stop()
        if self.strip is not None:
            try:
                self.strip.close()
            except Exception as exc:  # the strip is going away anyway
                log.warning("could not switch the LED strip off: %s", exc)

    def _has_work(self) -> bool:
        return bool(self._inbox)

    def _failed(self, exc: Exception) -> None:
        if type(exc) not in self._errors_logged:     # once per kind: it may fail every frame
            self._errors_logged.add(type(exc))
            log.exception("the lights failed to draw a frame")

    def tick(self, now: float | None = None) -> float | None:
        """Take in what arrived, draw the picture at ``now``; return when to draw
        again (clock time), or None if only a new update can change it."""
        now = self.clock() if now is None else now
        with self._cond:
            received, self._inbox = self._inbox, []
        for item in received:
            self._take(item)
        self._prune(now)
        lights = (fault(now, self.style) if self.fault
                  else render(self.game, self.context(), now, self.style))
        self.last = lights
        self.frames_rendered += 1
        self._show(frame_from_lights(lights, self.positions, self.pixel_count))
        wake = lights.next_change
        if lights.animating:
            frame_due = now + 1.0 / self.fps
            wake = frame_due if wake is None else min(wake, frame_due)
        return wake

    def context(self) -> LightContext:
        return LightContext(self.turns.timer, dict(self.draws), dict(self.flashes),
                            self.scanner_lost_since, self.game_over_since, self.paused_since,
                            dict(self.taken), cake_cards=dict(self.cake_cards))

    def _show(self, frame: list) -> None:
        if self.strip is None:
            return
        try:
            self.strip.show(frame)
        except Exception as exc:  # hardware gone or never there: carry on without lights
            log.warning(NO_STRIP.format(detail=f"{type(exc).__name__}: {exc}"))
            strip, self.strip = self.strip, None
            with contextlib.suppress(Exception):
                strip.close()

    def _set_strip_brightness(self, value: float) -> None:
        if self.strip is not None:
            self.strip.set_brightness(value)

    # --- folding updates into the light context ----------------------------------------

    def _take(self, item: _Received) -> None:
        if item.what == "colors":
            self.style = Style(self.style.seat_count, self.style.lengths, item.value,
                               self.style.sweep)
        elif item.what == "brightness":
            self._set_strip_brightness(item.value)
        elif item.what == "turn_timer":
            self.turns = TurnClock(item.value)
            self.turns.observe(self.game, item.at)
        elif item.what == "fault":
            self.fault = item.value
        elif item.what == "table":
            self.game = item.value.game
            self.turns.observe(self.game, item.at)
            self._draws_from(item.value, item.at)
        else:
            self._take_update(item.value, item.at)

    def _take_update(self, u: Update, at: float) -> None:
        game = u.table.game
        self.game = game
        surged = False
        for h in u.happened:
            surged = self._take_happening(h, game, at) or surged
        if surged:                   # who draws which cards: the one model (draw_prompt)
            self._draws_from(u.table, at)
        if u.snapshot is not None:   # whose prompt a tap dismissed: the loop's, once
            self._hide_dismissed(u.snapshot.draws)
        if u.rejection is not None and u.seat is not None \
                and 0 <= u.seat < self.style.seat_count:
            self.flashes[u.seat] = at
        self.turns.observe(game, at)

    # radon C-D: one case per happening, the exhaustive match (assert_never)
    def _take_happening(self, h: Happening, game: Game | None, at: float) -> bool:
        """What one happening changes in the lights; True for a surge (its draws are read
        from the table once every happening is taken). One case per happening: the match
        is exhaustive, so a new happening fails mypy until the lights decide."""
        match h:
            case GameStarted():
                self.draws.clear()             # a prompt lasts one turn
                self.game_over_since = None
            case TurnChanged():
                self.draws.clear()
            case CardsToDraw():
                return True
            case GameOver():
                self.game_over_since = at
                self.draws.clear()
            case OrderCompleted():
                seat = _seat_of(game, h.player)
                if seat is not None:
                    self.taken[seat] = (h.position, at, h.cake)
            case CakeCardGained():
                seat = _seat_of(game, h.player)
                if seat is not None:
                    self.cake_cards[seat] = at
            case TablePaused():
                self.paused_since = at
            case TableResumed():
                self.paused_since = None
            case GameEndedEarly() | GameBroughtBack():
                self.draws.clear()
                self.game_over_since = None
            case DeviceStatusChanged():
                self._scanner_status(h, at)
            case (CardIdentified() | TokensGained() | TokensSpent() | UpgradeActivated()
                  | CakePlaced() | CakeCardPlayed() | CakesReturned() | OrdersMovedDown()
                  | DislikesTaken() | ShopClosed() | ShopReopened() | FinalTurnBegins()
                  | RankingChanged() | Corrected() | Stalled() | Undone() | Redone()
                  | NotYourTurn() | UnknownCard() | CardEnrolled() | DrawsDismissed()):
                pass        # from the game itself; a dismissal from the snapshot's draws
            case _:
                assert_never(h)
        return False

    def _scanner_status(self, h: DeviceStatusChanged, at: float) -> None:
        if h.device != "scanner":
            return
        if h.status in SCANNER_LOST and self.scanner_lost_since is None:
            self.scanner_lost_since = at
        elif h.status in SCANNER_BACK:
            self.scanner_lost_since = None

    def _draws_from(self, table, at: float) -> None:
        """The draws still due on ``table``, after a surge or on a table shown as it is (a
        resumed game): from the game itself (``draw_prompt``), as the screen and the phones
        show them."""
        pending = pending_draws(table)
        self.draws.clear()
        if pending is None:
            return
        until = None if self.draw_timeout is None else at + self.draw_timeout
        for name, _ in pending.draws:
            seat = table.game.seat_of(name)
            if seat is not None and seat < self.style.seat_count:
                mine = frozenset(c.serial for pos in table.game.players[seat].queue
                                 for c in pos if c.serial in pending.serials)
                self.draws[seat] = DrawPrompt(mine, at, until)

    def _hide_dismissed(self, draws: Draws) -> None:
        if draws.everyone:
            self.draws.clear()
        for seat in draws.dismissed:
            self.draws.pop(seat, None)

    def _prune(self, now: float) -> None:
        """Forget what can no longer show, so an idle table has nothing pending."""
        flash_ends = FLASH_STEP * FLASH_STEPS
        for seat, started in list(self.flashes.items()):
            if now >= started + flash_ends:
                del self.flashes[seat]
        for seat, (_, started, *_cake) in list(self.taken.items()):
            if now >= started + TAKEN_SECONDS:
                del self.taken[seat]
        for seat, gained in list(self.cake_cards.items()):
            if now >= gained + CAKE_STEP * CAKE_STEPS:
                del self.cake_cards[seat]
        for seat, prompt in list(self.draws.items()):
            if (prompt.until is not None and now >= prompt.until) \
                    or draws_left(self.game, prompt) == 0:
                del self.draws[seat]


def _seat_of(game: Game | None, player: str) -> int | None:
    return None if game is None else game.seat_of(player)


# --- from the configuration --------------------------------------------------

def build_lights(cfg, seat_count: int | None = None,
                 seat_colors: Sequence = seat_colours.LED_RGB,
                 clock: Callable[[], float] = time.monotonic) -> LightsController | None:
    """A controller for ``[pixels]``; None with driver "none" or when the strip
    cannot be driven (one warning an installer can act on, no traceback).

    One segment per seat button (``[seats] pins``) unless ``seat_count`` is given.
    """
    px = cfg["pixels"]
    if px["driver"] == "none":
        return None
    seats = seat_count if seat_count is not None else len(cfg["seats"]["pins"])
    length = px["segment_length"]
    segments = contiguous_segments(seats, length, px["first_pixel"], px["reverse"])
    count = px["first_pixel"] + seats * length
    if px["driver"] == "simulated":
        strip: PixelStrip = SimulatedStrip(count, px["brightness"])
    else:
        neopixel = _open_neopixel(count, px["pin"], px["brightness"])
        if neopixel is None:
            return None
        strip = neopixel
    timeout = None if cfg["scanner"]["port"] else DRAW_PROMPT_WITHOUT_SCANNER
    return LightsController(strip, segments, seat_colors, fps=px["fps"],
                            turn_timer=cfg["game"]["turn_timer"], draw_timeout=timeout,
                            sweep=px["active_sweep"], clock=clock)


def _open_neopixel(count: int, pin: str, brightness: float) -> PixelStrip | None:
    # Blinka >= 10 offers to pip-install missing Pi backends on a terminal and
    # waits for an answer on stdin; the table service must never sit on that prompt.
    os.environ.setdefault("BLINKA_SKIP_DEPENDENCY_CHECK", "1")
    from .pixels import NeoPixelStrip
    strip = None
    try:
        strip = NeoPixelStrip(count, pin=pin, brightness=brightness)
        strip.show(strip.blank())    # the Pi's driver only opens SPI/PWM on the first write
        return strip
    except Exception as exc:         # no Pi, no library, no permission, bad pin, ...
        log.warning(NO_STRIP.format(detail=str(exc) or type(exc).__name__))
        if strip is not None:
            with contextlib.suppress(Exception):
                strip.close()
        return None
