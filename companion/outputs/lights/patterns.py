"""What every seat's LEDs show: a pure function of the table, the light context and time.

``render(game, context, now, style)`` returns ``Lights``: one tuple of colours
per seat segment (in the seat's own order, left to right as the player sees
it), whether something is moving continuously (``animating``: redraw at the
frame rate) and when the picture next changes by a step (``next_change``).
No clock, no I/O: the controller passes ``now`` and shows the result.

What the table sees, from the bottom layer up:

* each seat in its colour (red, blue, green, yellow by default): dim while
  waiting, bright while it is that seat's turn, with a dark gap sweeping along
  it (motion tells the active seat, not colour or brightness alone);
* turn timer (optional) on the active seat: the bar empties over the turn,
  turns amber in the last quarter and shows red dashes when time is up;
* shop closed: every segment breathes amber; on the final turn the last
  seat pulses in its own colour instead;
* urgency: one red pip per order in position 4 (it becomes a dislike at the
  end of that player's turn), from the right end, with a dark gap before
  each pip so they stand out even on the red seat;
* game over: the winners' segments run a marquee for a while, then stay
  bright (shared wins share it); everyone else is dim;
* draw prompt: seats that must draw cards blink white until the cards are
  scanned, the prompt is dismissed, or it times out;
* Cake Time: the draw prompt blinks white / cake pink instead of white / the
  seat's colour, so the seat checks the deck's back for a cake (not under "two
  drinks, one cake", where the companion places cakes itself); a cake card
  gained flashes the seat pink / its colour briefly;
* rejected input: the seat's segment flashes (off / bright) briefly;
* an order completed: that seat's segment shows which position was taken for a
  moment (pink when the order had a cake, Cake Time): the segment in four quarters,
  position 1 at the left, the taken
  quarter white and the rest dark (so a wrong one is seen and undone at once);
* scanner lost: the first LED of every segment blinks magenta / blue slowly;
* table paused (another program holds the journal): every segment, even an
  empty seat's, blinks amber / dark slowly until the journal is free again.

Step-wise effects (blinks, the timer bar, the marquee) report the time of
their next step, so the strip is written only when something changes; only
the smooth amber breath and the final-turn pulse need continuous frames.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping, Sequence

from companion.core import seat_colours
from companion.appliance.config import PixelsSettings
from companion.core.rules.scoring import ranking, winners
from companion.core.turn_timer import EPSILON, TurnTimer

Color = tuple[int, int, int]

OFF: Color = (0, 0, 0)
WHITE: Color = (255, 255, 255)
RED: Color = (255, 0, 0)
AMBER: Color = (255, 96, 0)
MAGENTA: Color = (255, 0, 255)
BLUE: Color = (0, 0, 255)
CAKE: Color = (255, 60, 120)          # the cake's pink icing, saturated for LEDs

# The seat colours of the box on LEDs: companion.core.seat_colours (LED_RGB, LED_BY_NAME).

DIM = 0.2                   # a waiting seat's colour, times this
FLASH_STEP = 0.1            # rejected input: off/on steps of this many seconds ...
FLASH_STEPS = 6             # ... this many of them (0.6 s), starting dark
DRAW_BLINK = 0.5            # draw prompt: white / normal halves of this length
SCANNER_BLINK = 1.0         # scanner lost: magenta / blue halves of this length
PAUSE_BLINK = 1.0           # table paused: amber / dark halves of this length
BREATH_PERIOD = 4.0         # shop closed: one amber breath, seconds
BREATH_DEPTH = 0.5          # at the top of a breath the colour is half amber
PULSE_PERIOD = 1.0          # final turn: one pulse of the last seat, seconds
PULSE_LOW = 0.3             # the pulse goes down to this brightness
MARQUEE_STEP = 0.125        # game over: the winner's marquee moves 8 LEDs a second
MARQUEE_SPACING = 4         # one white LED in every 4
FAULT_BLINK = 1.0           # start-up fault: red / dark halves of this length, every LED
CELEBRATE_SECONDS = 20.0    # then the winner's segment stays bright
SWEEP_STEP = 0.25           # the active seat's dark gap moves one LED this often
TAKEN_SECONDS = 1.5         # how long a completed position shows on the seat's LEDs


def color(value) -> Color:
    """A seat colour from a name ("red", ...) or an (r, g, b) triple."""
    if isinstance(value, str):
        try:
            return seat_colours.LED_BY_NAME[value.strip().lower()]
        except KeyError:
            names = ", ".join(seat_colours.LED_BY_NAME)
            raise ValueError(f"unknown seat colour {value!r}; use one of "
                             f"{names} or an (r, g, b) triple") from None
    r, g, b = value
    for v in (r, g, b):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 255:
            raise ValueError(f"a seat colour's channels are integers 0-255, got {value!r}")
    return (r, g, b)


@dataclass(frozen=True)
class Style:
    """The table's physical layout: seats with LEDs, LEDs per seat, seat colours.

    ``segment_length`` is one number for equal segments, or one per seat.
    ``seat_colors`` are names or (r, g, b) triples, seat 1 first.
    ``sweep``: a dark gap runs along the active seat (``[pixels] active_sweep``).
    """
    seat_count: int = 4
    segment_length: int | Sequence[int] = PixelsSettings().segment_length
    seat_colors: tuple = seat_colours.LED_RGB
    sweep: bool = False
    lengths: tuple[int, ...] = field(init=False, repr=False)   # LEDs of each seat

    def __post_init__(self) -> None:
        lengths: tuple[int, ...] = (
            (self.segment_length,) * self.seat_count if isinstance(self.segment_length, int)
            else tuple(self.segment_length))
        if self.seat_count < 1 or len(lengths) != self.seat_count or min(lengths) < 1:
            raise ValueError("the lights need at least one seat and one LED per seat "
                             f"(got {self.seat_count!r} seats, "
                             f"segment lengths {self.segment_length!r})")
        colors = tuple(color(c) for c in self.seat_colors)
        if len(colors) < self.seat_count:
            raise ValueError(f"{self.seat_count} seats but only {len(colors)} seat colours")
        object.__setattr__(self, "seat_colors", colors)
        object.__setattr__(self, "lengths", lengths)


@dataclass(frozen=True)
class DrawPrompt:
    """A seat must draw cards: blink until these cards are identified.

    ``serials`` are the drawn cards (``Card.serial``); the prompt is done when
    none of them is still in the game unidentified. ``until`` (optional) ends it
    anyway, for tables without a scanner.
    """
    serials: frozenset
    since: float
    until: float | None = None


@dataclass(frozen=True)
class LightContext:
    """What the lights remember beyond the game itself (kept by the controller)."""
    timer: TurnTimer | None = None
    draws: Mapping[int, DrawPrompt] = field(default_factory=dict)   # seat -> prompt
    flashes: Mapping[int, float] = field(default_factory=dict)      # seat -> flash start
    scanner_lost_since: float | None = None
    game_over_since: float | None = None
    paused_since: float | None = None
    # seat -> (position, when[, the order had a cake])
    taken: Mapping[int, tuple] = field(default_factory=dict)
    cake_cards: Mapping[int, float] = field(default_factory=dict)   # seat -> cake card gained


CAKE_STEP = 0.15            # a cake card gained: pink / own steps of this many seconds ...
CAKE_STEPS = 6              # ... this many of them (0.9 s), starting pink


def asks_for_cakes(game) -> bool:
    """Cake Time without "two drinks, one cake": drawn cards may need a cake."""
    return game is not None and game.expansion is not None and not game.two_drinks_one_cake


@dataclass(frozen=True)
class Lights:
    """One picture: colours per seat, and when it changes again.

    ``animating``: something changes continuously; redraw at the frame rate.
    ``next_change``: clock time of the next step change, None if none is due.
    Both false/None: the picture stays as it is until the game changes.
    """
    seats: tuple
    animating: bool = False
    next_change: float | None = None


# --- small helpers -----------------------------------------------------------

def scale(c: Color, k: float) -> Color:
    return (int(c[0] * k), int(c[1] * k), int(c[2] * k))


def mix(a: Color, b: Color, w: float) -> Color:
    """``a`` moved a fraction ``w`` towards ``b`` (rounded)."""
    return (int(a[0] + (b[0] - a[0]) * w + 0.5), int(a[1] + (b[1] - a[1]) * w + 0.5),
            int(a[2] + (b[2] - a[2]) * w + 0.5))


def _step(now: float, since: float, length: float) -> int:
    """Index of the ``length``-second step ``now`` falls in, counted from ``since``."""
    return math.floor((now - since) / length + EPSILON)


def _unidentified(game) -> set:
    return {c.serial for p in game.players for pos in p.queue for c in pos if c.tag is None}


def draws_left(game, prompt: DrawPrompt) -> int:
    """How many of the prompt's cards are still waiting to be scanned."""
    if game is None:
        return 0
    return len(prompt.serials & _unidentified(game))


def breath(now: float) -> float:
    """Amber share of the shop-closed breath: 0 at t = 0, BREATH_DEPTH at half period."""
    return BREATH_DEPTH * (0.5 - 0.5 * math.cos(2 * math.pi * now / BREATH_PERIOD))


def pulse(now: float) -> float:
    """Brightness of the final-turn pulse: 1 at t = 0, PULSE_LOW at half period."""
    return PULSE_LOW + (1 - PULSE_LOW) * (0.5 + 0.5 * math.cos(2 * math.pi * now / PULSE_PERIOD))


class _Due:
    """Collects the earliest step time after ``now``."""
    __slots__ = ("now", "at")

    def __init__(self, now: float):
        self.now = now
        self.at: float | None = None

    def add(self, t: float | None) -> None:
        if t is not None and t > self.now and (self.at is None or t < self.at):
            self.at = t


# --- the picture -------------------------------------------------------------

@dataclass(frozen=True)
class _Frame:
    """What every seat's picture needs of the game, worked out once per frame."""
    game: Any
    players: int
    closed: bool                 # the shop is closed, the game not over: the final round
    final_seat: int | None       # the last seat, while it plays the final turn
    won: tuple
    unidentified: set            # drawn cards not scanned yet (only while a prompt shows)


def render(game, context: LightContext, now: float, style: Style = Style()) -> Lights:
    """The colours of every seat segment at ``now`` (see the module docstring): each
    seat's picture, layer over layer (``_seat``)."""
    due = _Due(now)
    closed = game is not None and not game.game_over and game.token == "closed"
    frame = _Frame(game, len(game.players) if game is not None else 0, closed,
                   game.last_seat if closed and game.active == game.last_seat else None,
                   _winning_seats(game) if game is not None and game.game_over else (),
                   _unidentified(game) if game is not None and context.draws else set())
    animating = False
    seats = []
    for seat in range(style.seat_count):
        px, moving = _seat(seat, frame, context, now, style, due)
        animating = animating or moving
        seats.append(tuple(px))
    return Lights(tuple(seats), animating, due.at)


def _seat(seat: int, frame: _Frame, context: LightContext, now: float, style: Style,
          due: _Due) -> tuple[list, bool]:
    """One seat's colours, bottom layer first: the game (or nothing), the order taken,
    a cake card, a refusal's flash, the scanner lost, the pause (above everything)."""
    own, n = style.seat_colors[seat], style.lengths[seat]
    animating = False
    if seat >= frame.players:
        px = [OFF] * n
    elif frame.game.game_over:
        px = _game_over(seat in frame.won, own, n, context.game_over_since, now, due)
    else:
        px, animating = _playing(seat, frame, context, own, n, now, style, due)
    px = _taken(px, context.taken.get(seat), n, now, due)
    if seat < frame.players and not frame.game.game_over:
        px = _flash(px, CAKE, own, context.cake_cards.get(seat), CAKE_STEP, CAKE_STEPS,
                    now, due)
    px = _flash(px, OFF, own, context.flashes.get(seat), FLASH_STEP, FLASH_STEPS, now, due)
    _scanner_lost(px, context.scanner_lost_since, now, due)
    return _paused(px, context.paused_since, n, now, due), animating


def _playing(seat: int, frame: _Frame, context: LightContext, own: Color, n: int,
             now: float, style: Style, due: _Due) -> tuple[list, bool]:
    """A player's seat during the game: active or dim, the final round's pulse or amber
    breath, dislike pips, and the draw prompt's blink."""
    game = frame.game
    if seat == game.active:
        px = _active(own, n, context.timer, now, due)
        if style.sweep:
            _sweep(px, now, due)
    else:
        px = [scale(own, DIM)] * n
    animating = False
    if seat == frame.final_seat:
        px = [scale(c, pulse(now)) for c in px]
        animating = True
    elif frame.closed:
        w = breath(now)
        px = [mix(c, AMBER, w) for c in px]
        animating = True
    _pips(px, len(game.players[seat].queue[3]))
    return _draw_prompt(px, context.draws.get(seat), frame, n, now, due), animating


def _draw_prompt(px: list, prompt: DrawPrompt | None, frame: _Frame, n: int, now: float,
                 due: _Due) -> list:
    """White blinks (pink with Cake Time) while this seat's drawn cards wait for a scan."""
    if prompt is None or not (prompt.until is None or now < prompt.until) \
            or not prompt.serials & frame.unidentified:
        return px
    step = _step(now, prompt.since, DRAW_BLINK)
    if step % 2 == 0:
        px = [WHITE] * n
    elif asks_for_cakes(frame.game):
        px = [CAKE] * n
    due.add(prompt.since + (step + 1) * DRAW_BLINK)
    due.add(prompt.until)
    return px


def _taken(px: list, taken: tuple | None, n: int, now: float, due: _Due) -> list:
    """The quarter of the order just completed: white, or pink for the one with a cake."""
    if taken is None or not taken[1] <= now < taken[1] + TAKEN_SECONDS:
        return px
    due.add(taken[1] + TAKEN_SECONDS)
    return _position(taken[0], n, CAKE if taken[2:3] == (True,) else WHITE)


def _scanner_lost(px: list, since: float | None, now: float, due: _Due) -> None:
    """The first LED of every seat blinks magenta and blue while the scanner is lost."""
    if since is None:
        return
    step = _step(now, since, SCANNER_BLINK)
    px[0] = MAGENTA if step % 2 == 0 else BLUE
    due.add(since + (step + 1) * SCANNER_BLINK)


def _paused(px: list, since: float | None, n: int, now: float, due: _Due) -> list:
    """Amber blinks over everything while the table is paused: nothing counts now."""
    if since is None:
        return px
    step = _step(now, since, PAUSE_BLINK)
    due.add(since + (step + 1) * PAUSE_BLINK)
    return [AMBER if step % 2 == 0 else OFF] * n


def fault(now: float, style: Style = Style()) -> Lights:
    """The table cannot start (a fault page is on the screen, or there is no screen):
    every LED of every segment blinks red, a second on, a second off."""
    step = _step(now, 0.0, FAULT_BLINK)
    px = RED if step % 2 == 0 else OFF
    return Lights(tuple((px,) * n for n in style.lengths), False, (step + 1) * FAULT_BLINK)


def _flash(px: list, first: Color, second: Color, since: float | None, length: float,
           steps: int, now: float, due: _Due) -> list:
    """``steps`` steps of ``length`` seconds from ``since``, the whole segment ``first``,
    ``second``, ``first``, ...; before and after, ``px`` as it was."""
    if since is None:
        return px
    step = _step(now, since, length)
    if step < 0:
        due.add(since)
    elif step < steps:
        due.add(since + (step + 1) * length)
        return [first if step % 2 == 0 else second] * len(px)
    return px


def _winning_seats(game) -> tuple:
    names = set(winners(ranking(game)))
    return tuple(i for i, p in enumerate(game.players) if p.name in names)


def _active(own: Color, n: int, timer: TurnTimer | None, now: float, due: _Due) -> list:
    if timer is None:
        return [own] * n
    due.add(timer.next_step(now, n))
    phase = timer.phase(now)
    if phase == "ended":           # red dashes: unlike any seat's own colour, even red
        return [RED if i % 2 == 0 else OFF for i in range(n)]
    lit = timer.lit(now, n)
    bar = AMBER if phase == "warning" else own
    return [bar] * lit + [scale(own, DIM)] * (n - lit)


def _sweep(px: list, now: float, due: _Due) -> None:
    """A dark gap one LED wide moves along the segment, one LED per SWEEP_STEP."""
    if len(px) < 3:
        return
    step = _step(now, 0.0, SWEEP_STEP)
    px[step % len(px)] = OFF
    due.add((step + 1) * SWEEP_STEP)


def _position(position: int, n: int, colour: Color = WHITE) -> list:
    """The segment in four quarters (position 1 at the left): the taken one lit."""
    lo, hi = (position - 1) * n // 4, max((position - 1) * n // 4 + 1, position * n // 4)
    return [colour if lo <= i < hi else OFF for i in range(n)]


def _pips(px: list, count: int) -> None:
    """Red pips from the right end, each with a dark LED before it."""
    n = len(px)
    for i in range(min(count, n // 2 if n > 1 else n)):
        px[n - 1 - 2 * i] = RED
        if n - 2 - 2 * i >= 0:
            px[n - 2 - 2 * i] = OFF


def _game_over(winner: bool, own: Color, n: int, since: float | None, now: float,
               due: _Due) -> list:
    if not winner:
        return [scale(own, DIM)] * n
    if since is None or now >= since + CELEBRATE_SECONDS:
        return [own] * n
    step = _step(now, since, MARQUEE_STEP)
    due.add(min(since + (step + 1) * MARQUEE_STEP, since + CELEBRATE_SECONDS))
    return [WHITE if (i - step) % MARQUEE_SPACING == 0 else own for i in range(n)]


def frame_from_lights(lights: Lights, positions: Sequence[Sequence[int]],
                      pixel_count: int) -> list:
    """Place each seat's colours on the strip (``positions[seat]`` from
    ``Segment.positions()``); LEDs outside every segment stay off."""
    frame = [OFF] * pixel_count
    for seat_positions, colors in zip(positions, lights.seats, strict=False):
        for p, c in zip(seat_positions, colors, strict=False):
            frame[p] = c
    return frame
