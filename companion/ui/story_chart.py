"""The story's chart drawn with pygame's own drawing: each player's score round by round.

One painter for the touchscreen (``screens/story.py``) and the one-page summary
(``companion.summary``): a line per seat in the seat's colour, and at every round the
seat's own shape (``colour_vision.SEAT_SHAPES``: circle, square, triangle, diamond) with
a dark outline, so seats are told apart without colour. Points of seats with equal
scores are set a little apart sideways so none hides another. The rounds of the
turning points are marked by numbered flags along the top (the list beside the chart
has the same numbers).

Text is drawn by the caller's ``Pen`` (the screen's: ``widgets.draw_text`` and
``widgets.text_width``, ``SCREEN_PEN``; the summary has its own fonts)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import pygame

from ..story import Story, nice_ticks
from . import theme
from .colour_vision import SEAT_SHAPES
from .widgets import draw_text, text_width



class Pen(Protocol):
    def write(self, surface: pygame.Surface, text: str, box: pygame.Rect, size: int,
              color: tuple, bold: bool = False, align: str = "center") -> pygame.Rect: ...

    def width(self, text: str, size: int, bold: bool = False) -> int: ...


class ScreenPen:
    """The touchscreen's text (``widgets``: its fonts, shrink-to-fit, text records)."""

    def write(self, surface, text, box, size, color, bold=False, align="center"):
        return draw_text(surface, text, box, size, color, bold, align)

    def width(self, text, size, bold=False):
        return text_width(text, size, bold)


SCREEN_PEN = ScreenPen()


@dataclass(frozen=True)
class ChartLook:
    """Sizes (pixels) and colours of one chart."""
    text: int                          # tick labels
    line: int                          # a seat's line width
    marker: int                        # a seat's shape at each round (its side)
    flag: int                          # a turning point's numbered flag (its diameter)
    background: tuple = theme.PANEL
    grid: tuple = theme.PANEL_LINE
    ink: tuple = theme.TEXT
    dim: tuple = theme.TEXT_DIM
    outline: tuple = theme.TEXT_DARK
    flag_color: tuple = theme.SPECIALTY


def draw_shape(surface: pygame.Surface, shape: str, center: tuple[int, int], side: int,
               color: tuple, outline: tuple, edge: int) -> None:
    """One seat's shape, filled with its colour and outlined (seen without colour)."""
    x, y = center
    h = side / 2
    if shape == "circle":
        pygame.draw.circle(surface, color, center, round(h))
        pygame.draw.circle(surface, outline, center, round(h), edge)
        return
    if shape == "square":
        r = pygame.Rect(0, 0, round(side * 0.86), round(side * 0.86))
        r.center = center
        pygame.draw.rect(surface, color, r)
        pygame.draw.rect(surface, outline, r, edge)
        return
    if shape == "triangle":
        pts = [(x, y - h * 1.1), (x + h * 1.05, y + h * 0.8), (x - h * 1.05, y + h * 0.8)]
    else:                                              # diamond
        pts = [(x, y - h * 1.1), (x + h * 1.1, y), (x, y + h * 1.1), (x - h * 1.1, y)]
    pygame.draw.polygon(surface, color, pts)
    pygame.draw.polygon(surface, outline, pts, edge)


def seat_shape(seat: int) -> str:
    return SEAT_SHAPES[seat % len(SEAT_SHAPES)]


def paint_chart(surface: pygame.Surface, rect: pygame.Rect, story: Story,
                colours: Sequence[tuple], look: ChartLook, pen: Pen,
                flags: Sequence[int] = ()) -> pygame.Rect:
    """Draw the chart inside ``rect``; ``flags``: the rounds of the numbered turning
    points (1, 2, 3 in this order). Returns the plot area."""
    pygame.draw.rect(surface, look.background, rect, border_radius=max(4, look.text // 3))
    rounds = story.rounds
    n_rounds = len(rounds) - 1
    values = [v for r in rounds for v in r]
    ticks = nice_ticks(min(values), max(values))
    pad = max(4, look.text // 2)
    label_w = max(pen.width(str(t), look.text) for t in ticks) + pad
    top_room = look.flag + pad if flags else pad + look.text // 2
    plot = pygame.Rect(rect.x + pad + label_w, rect.y + top_room,
                       rect.w - 2 * pad - label_w - look.marker,
                       rect.h - top_room - look.text - 2 * pad)
    if plot.w < 10 or plot.h < 10:
        return plot
    lo, hi = ticks[0], ticks[-1]

    def y_of(v: float) -> int:
        return round(plot.bottom - (v - lo) / (hi - lo) * plot.h)

    def x_of(r: float) -> int:
        return round(plot.x + look.marker / 2 + r / max(1, n_rounds) * (plot.w - look.marker))

    # the grid: a line per tick (0 stronger), its number on the left
    for t in ticks:
        y = y_of(t)
        pygame.draw.line(surface, look.dim if t == 0 else look.grid, (plot.x, y),
                         (plot.right, y), max(1, look.line // (2 if t == 0 else 3)))
        pen.write(surface, str(t), pygame.Rect(rect.x + pad, y - look.text, label_w - pad,
                                           2 * look.text), look.text, look.dim, False, "right")
    # the rounds along the bottom: every ``every``-th that fits, the last always (a
    # number too close to the last gives way to it)
    every = max(1, math.ceil(n_rounds * pen.width(str(n_rounds) + "0", look.text)
                             / max(1, plot.w)))
    labels: list[tuple[int, pygame.Rect]] = []
    for r in [r for r in range(1, n_rounds + 1) if r % every == 0 or r == n_rounds]:
        box = pygame.Rect(0, plot.bottom + pad // 2, pen.width(str(r), look.text) + pad,
                          look.text + pad)
        box.centerx = x_of(r)
        while labels and labels[-1][1].colliderect(box):
            labels.pop()
        labels.append((r, box))
    for r, box in labels:
        pen.write(surface, str(r), box, look.text, look.dim, False, "center")
    # the turning points' rounds: a line through the middle of that round, its numbered
    # flag above it (flags that would touch are set apart, a slanted stem joins them)
    step = look.flag + max(2, look.flag // 8)
    wanted = [(round((x_of(r - 1) + x_of(r)) / 2) if r >= 1 else x_of(0), i)
              for i, r in enumerate(flags, 1)]
    placed: list[float] = []
    for x, _ in wanted:
        placed.append(max(x, placed[-1] + step) if placed else x)
    if placed and placed[-1] > rect.right - look.flag / 2:       # too far right: back left
        shift = placed[-1] - (rect.right - look.flag / 2)
        placed = [p - shift for p in placed]
    fy = rect.y + pad // 2 + look.flag // 2
    thin = max(1, look.line // 3)
    for (x, _), fx in zip(wanted, placed, strict=True):
        pygame.draw.line(surface, look.flag_color, (x, plot.y), (x, plot.bottom), thin)
        pygame.draw.line(surface, look.flag_color, (round(fx), fy), (x, plot.y), thin)
    for (_, i), fx in zip(wanted, placed, strict=True):
        c = (round(fx), fy)
        pygame.draw.circle(surface, look.flag_color, c, look.flag // 2)
        box = pygame.Rect(0, 0, look.flag, look.flag)
        box.center = c
        pen.write(surface, str(i), box, round(look.flag * 0.8), theme.TEXT_DARK, True,
                  "center")
    # each seat: its line, then its shape at every round, sideways apart when scores meet
    seats = len(story.players)
    spread = look.marker * 0.45

    def point(seat: int, r: int) -> tuple[int, int]:
        v = rounds[r][seat]
        same = [s for s in range(seats) if rounds[r][s] == v]
        nudge = 0.0
        if len(same) > 1 and r > 0:
            k = same.index(seat)
            nudge = (k - (len(same) - 1) / 2) * spread
        return round(x_of(r) + nudge), y_of(v)

    edge = max(1, look.marker // 8)
    for seat in range(seats):
        pts = [point(seat, r) for r in range(n_rounds + 1)]
        colour = colours[seat % len(colours)]
        if len(pts) > 1:
            pygame.draw.lines(surface, look.outline, False, pts, look.line + 2 * edge)
            pygame.draw.lines(surface, colour, False, pts, look.line)
    for seat in range(seats):
        colour = colours[seat % len(colours)]
        for r in range(1, n_rounds + 1):
            draw_shape(surface, seat_shape(seat), point(seat, r), look.marker, colour,
                       look.outline, edge)
    return plot
