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
from html import escape

from ..story import Story, nice_ticks
from ..ui.colour_vision import SEAT_SHAPES
from ..ui.i18n import tr

W, H = 640, 360                      # the drawing's own units (it scales to the page)
LEFT, RIGHT, TOP, BOTTOM = 44, 18, 40, 34
MARKER = 12


def _hex(c: Sequence[int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*tuple(c)[:3])


def _shape(shape: str, x: float, y: float, fill: str) -> str:
    h = MARKER / 2
    style = f'fill="{fill}" stroke="#181412" stroke-width="2"'
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
    rounds = story.rounds
    n = max(1, len(rounds) - 1)
    values = [v for r in rounds for v in r]
    ticks = nice_ticks(min(values), max(values))
    lo, hi = ticks[0], ticks[-1]
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x_of(r: float) -> float:
        return LEFT + MARKER / 2 + r / n * (pw - MARKER)

    def y_of(v: float) -> float:
        return TOP + ph - (v - lo) / (hi - lo) * ph

    title = escape(tr(lang, "story.summary_chart"))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" class="chart" '
           f'role="img" aria-label="{title}" font-family="system-ui,sans-serif" '
           f'font-size="15">',
           f'<rect x="0" y="0" width="{W}" height="{H}" rx="10" fill="#302a26"/>']
    for t in ticks:
        y = y_of(t)
        out.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{W - RIGHT}" y2="{y:.1f}" '
                   f'stroke="{"#c4bab0" if t == 0 else "#4e4640"}" '
                   f'stroke-width="{2 if t == 0 else 1}"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y + 5:.1f}" text-anchor="end" '
                   f'fill="#c4bab0">{t}</text>')
    every = max(1, math.ceil(n * 22 / pw))
    for r in range(1, len(rounds)):
        if r % every and r != len(rounds) - 1:
            continue
        out.append(f'<text x="{x_of(r):.1f}" y="{H - 10}" text-anchor="middle" '
                   f'fill="#c4bab0">{r}</text>')
    out.append(f'<text x="{W - RIGHT}" y="{H - 10}" text-anchor="end" fill="#c4bab0" '
               f'font-size="12" class="axis">{escape(tr(lang, "story.axis_rounds"))}</text>'
               if n * 22 < pw - 60 else "")
    # the turning points: a line through the middle of the round, its number on top
    placed: list[float] = []
    for i, r in enumerate(flags, 1):
        x = (x_of(r - 1) + x_of(r)) / 2 if r >= 1 else x_of(0)
        fx = max(x, placed[-1] + 26) if placed else x
        placed.append(fx)
        out.append(f'<g class="flag" data-round="{r}"><line x1="{x:.1f}" y1="{TOP}" '
                   f'x2="{x:.1f}" y2="{TOP + ph}" stroke="#f4a623" stroke-width="1.5"/>'
                   f'<line x1="{fx:.1f}" y1="{TOP - 14}" x2="{x:.1f}" y2="{TOP}" '
                   f'stroke="#f4a623" stroke-width="1.5"/>'
                   f'<circle cx="{fx:.1f}" cy="{TOP - 22}" r="11" fill="#f4a623"/>'
                   f'<text x="{fx:.1f}" y="{TOP - 17}" text-anchor="middle" font-weight="700" '
                   f'fill="#181412">{i}</text></g>')
    seats = len(story.players)

    def point(seat: int, r: int) -> tuple[float, float]:
        v = rounds[r][seat]
        same = [s for s in range(seats) if rounds[r][s] == v]
        nudge = (same.index(seat) - (len(same) - 1) / 2) * MARKER * 0.45 \
            if len(same) > 1 and r > 0 else 0.0
        return x_of(r) + nudge, y_of(v)

    for seat, name in enumerate(story.players):
        colour = _hex(colours[seat % len(colours)])
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(seat, r)
                                                       for r in range(len(rounds))))
        scores = ", ".join(str(v) for v in story.scores_of(seat))
        shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
        out.append(f'<g class="seat" data-seat="{seat + 1}" data-shape="{shape}">'
                   f'<title>{escape(name)}: {scores}</title>'
                   f'<polyline class="line" data-player="{escape(name)}" points="{pts}" '
                   f'fill="none" stroke="{colour}" stroke-width="3.5" stroke-linejoin="round"/>'
                   + "".join(_shape(shape, *point(seat, r), colour)
                             for r in range(1, len(rounds))) + "</g>")
    out.append("</svg>")
    return "".join(out)


def key_svg(seat: int, colour: Sequence[int]) -> str:
    """A seat's shape alone (the chart's key beside each name)."""
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 20 20" width="20" '
            f'height="20" class="key" aria-hidden="true">'
            f'{_shape(shape, 10, 10, _hex(colour))}</svg>')
