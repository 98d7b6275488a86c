"""The story's chart for the phone view: SVG written on the server, no script library.

The same picture as the touchscreen's (``ui.story_chart``): a ``<polyline>`` per seat in
the seat's colour, the seat's shape (circle, square, triangle, diamond) at every round so
seats are told apart without colour, the scores on a grid, the rounds along the bottom,
and the turning points' rounds flagged with their numbers. Every value is escaped; each
line carries its player's name and scores as a ``<title>`` (screen readers, a long
press)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from companion.review.story import Story, nice_ticks
from companion.core.colour_vision import SEAT_SHAPES
from companion.words.i18n import tr

W, H = 400, 250                      # the drawing's own units: a phone shows them about
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 32, 26     # 1:1, so its 13-unit text reads at 13 px
MARKER = 10
FLAG = 9                             # a turning point's flag (radius)


def _hex(c: Sequence[int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*tuple(c)[:3])


def _shape(shape: str, x: float, y: float, fill: str) -> str:
    h = MARKER / 2
    style = f'fill="{fill}" stroke="#181412" stroke-width="1.5"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{h:.1f}" {style}/>'
    if shape == "square":
        return (f'<rect x="{x - h * 0.86:.1f}" y="{y - h * 0.86:.1f}" width="{h * 1.72:.1f}" '
                f'height="{h * 1.72:.1f}" {style}/>')
    if shape == "triangle":
        pts = [(x, y - h * 1.15), (x + h * 1.1, y + h * 0.85), (x - h * 1.1, y + h * 0.85)]
    else:
        pts = [(x, y - h * 1.2), (x + h * 1.2, y), (x, y + h * 1.2), (x - h * 1.2, y)]
    return f'<polygon points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in pts)}" {style}/>'


def story_svg(story: Story, colours: Sequence[Sequence[int]], lang: str,
              flags: Sequence[int] = ()) -> str:
    """The chart as an ``<svg>`` element; ``flags``: the rounds of the numbered turning
    points (1, 2, ... in this order)."""
    values = [v for r in story.rounds for v in r]
    ticks = nice_ticks(min(values), max(values))
    scale = _Scale(ticks[0], ticks[-1], max(1, len(story.rounds) - 1))
    title = escape(tr(lang, "story.summary_chart"))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" class="chart" '
           f'role="img" aria-label="{title}" font-family="system-ui,sans-serif" '
           f'font-size="13">',
           f'<rect x="0" y="0" width="{W}" height="{H}" rx="10" fill="#302a26"/>']
    out += _grid(scale, ticks)
    out += _round_numbers(scale, len(story.rounds), flags)
    # what the numbers along the bottom are, under the points' column
    out.append(f'<text x="{LEFT - 2}" y="{H - 8}" text-anchor="end" fill="#c4bab0" '
               f'font-size="10" class="axis">{escape(tr(lang, "story.axis_rounds"))}</text>')
    out += _flags(scale, flags)
    out += [_seat(scale, story, seat, colours) for seat in range(len(story.players))]
    out.append("</svg>")
    return "".join(out)


PW, PH = W - LEFT - RIGHT, H - TOP - BOTTOM        # the plot area


@dataclass(frozen=True)
class _Scale:
    """Where scores (from the lowest tick ``lo`` to the highest ``hi``) and rounds (0 to
    ``n``) fall in the drawing."""
    lo: int
    hi: int
    n: int

    def x_of(self, r: float) -> float:
        return LEFT + MARKER / 2 + r / self.n * (PW - MARKER)

    def y_of(self, v: float) -> float:
        return TOP + PH - (v - self.lo) / (self.hi - self.lo) * PH


def _grid(scale: _Scale, ticks: list[int]) -> list[str]:
    """A line per tick (0 stronger), its number on the left."""
    out = []
    for t in ticks:
        y = scale.y_of(t)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" '
                   f'stroke="{"#c4bab0" if t == 0 else "#4e4640"}" '
                   f'stroke-width="{2 if t == 0 else 1}"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" '
                   f'fill="#c4bab0">{t}</text>')
    return out


def _round_numbers(scale: _Scale, count: int, flags: Sequence[int] = ()) -> list[str]:
    """The rounds along the bottom: every ``every``-th that fits, the last always and each
    flagged round (a number too close to one of those gives way to it). ``count``: the
    rounds with round 0."""
    every = max(1, math.ceil(scale.n * 18 / PW))
    kept = {r for r in flags if 1 <= r <= scale.n} | {scale.n}
    shown: list[int] = []
    for r in range(1, count):
        if r % every == 0 or r in kept:
            near = shown and scale.x_of(r) - scale.x_of(shown[-1]) < 18
            if near and shown[-1] in kept and r not in kept:
                continue
            while shown and scale.x_of(r) - scale.x_of(shown[-1]) < 18:  # the later wins
                shown.pop()
            shown.append(r)
    return [f'<text x="{scale.x_of(r):.1f}" y="{H - 8}" text-anchor="middle" '
            f'fill="#c4bab0">{r}</text>' for r in shown]


def _flags(scale: _Scale, flags: Sequence[int]) -> list[str]:
    """The turning points: a line on the round's tick (as on the touchscreen), its number
    on top (flags that would touch are set apart, a slanted stem joins them)."""
    wanted = [scale.x_of(min(max(r, 0), scale.n)) for r in flags]
    placed: list[float] = []
    for x in wanted:
        placed.append(max(x, placed[-1] + 2 * FLAG + 2) if placed else x)
    if placed and placed[-1] > W - FLAG - 1:              # too far right: back left
        placed = [p - (placed[-1] - (W - FLAG - 1)) for p in placed]
    fy = TOP - FLAG - 5
    return [f'<g class="flag" data-round="{r}"><line x1="{x:.1f}" y1="{TOP}" '
            f'x2="{x:.1f}" y2="{TOP + PH}" stroke="#f4a623" stroke-width="1.2"/>'
            f'<line x1="{fx:.1f}" y1="{fy:.1f}" x2="{x:.1f}" y2="{TOP}" '
            f'stroke="#f4a623" stroke-width="1.2"/>'
            f'<circle cx="{fx:.1f}" cy="{fy:.1f}" r="{FLAG}" fill="#f4a623"/>'
            f'<text x="{fx:.1f}" y="{fy + 4.5:.1f}" text-anchor="middle" '
            f'font-weight="700" font-size="12" fill="#181412">{i}</text></g>'
            for i, (r, x, fx) in enumerate(zip(flags, wanted, placed, strict=True), 1)]


def _seat(scale: _Scale, story: Story, seat: int, colours: Sequence[Sequence[int]]) -> str:
    """A seat's line and its shape at every round, its name and scores as the title."""
    name = story.players[seat]
    colour = _hex(colours[seat % len(colours)])
    points = [_point(scale, story.rounds, seat, r) for r in range(len(story.rounds))]
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    scores = ", ".join(str(v) for v in story.scores_of(seat))
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    return (f'<g class="seat" data-seat="{seat + 1}" data-shape="{shape}">'
            f'<title>{escape(name)}: {scores}</title>'
            f'<polyline class="line" data-player="{escape(name)}" points="{pts}" '
            f'fill="none" stroke="{colour}" stroke-width="2.5" stroke-linejoin="round"/>'
            + "".join(_shape(shape, *p, colour) for p in points[1:]) + "</g>")


def _point(scale: _Scale, rounds: Sequence[tuple[int, ...]], seat: int,
           r: int) -> tuple[float, float]:
    """Where a seat's score at round ``r`` is drawn: seats with the same score there are
    set apart sideways (not at round 0, where everyone starts)."""
    v = rounds[r][seat]
    same = [s for s in range(len(rounds[r])) if rounds[r][s] == v]
    nudge = (same.index(seat) - (len(same) - 1) / 2) * MARKER * 0.45 \
        if len(same) > 1 and r > 0 else 0.0
    return scale.x_of(r) + nudge, scale.y_of(v)


def key_svg(seat: int, colour: Sequence[int]) -> str:
    """A seat's shape alone (the chart's key beside each name)."""
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20" width="20" '
            f'height="20" class="key" aria-hidden="true">'
            f'{_shape(shape, 10, 10, _hex(colour))}</svg>')
