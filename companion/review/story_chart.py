"""The story's chart drawn with pygame's own drawing: each player's score round by round.

One painter for the touchscreen (``screens/story.py``) and the one-page summary
(``companion.review.summary``): a line per seat in the seat's colour, and at every round the
seat's own shape (``colour_vision.SEAT_SHAPES``: circle, square, triangle, diamond) with
a dark outline, so seats are told apart without colour. Points of seats with equal
scores are set a little apart sideways so none hides another. The rounds of the
turning points are marked by numbered flags along the top (the list beside the chart
has the same numbers).

Text is drawn by the caller's ``Pen``, and its sizes and colours are the caller's
``ChartLook`` (the screen's: its widgets' text and theme, ``screens/story.py``; the
summary's: its own fonts and paper colours)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import pygame

from companion.core.colour_vision import SEAT_SHAPES
from .story import Story, nice_ticks


class Pen(Protocol):
    def write(self, surface: pygame.Surface, text: str, box: pygame.Rect, size: int,
              color: tuple, bold: bool = False, align: str = "center") -> pygame.Rect: ...

    def width(self, text: str, size: int, bold: bool = False) -> int: ...


@dataclass(frozen=True)
class ChartLook:
    """Sizes (pixels) and colours of one chart."""
    text: int                          # tick labels
    line: int                          # a seat's line width
    marker: int                        # a seat's shape at each round (its side)
    flag: int                          # a turning point's numbered flag (its diameter)
    background: tuple
    grid: tuple
    ink: tuple                         # tick labels
    dim: tuple                         # the grid's own labels
    outline: tuple                     # around each seat's shape
    flag_color: tuple
    flag_ink: tuple = (24, 20, 18)     # a flag's number: dark on the flag's bright colour


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
    values = [v for r in story.rounds for v in r]
    ticks = nice_ticks(min(values), max(values))
    pad = max(4, look.text // 2)
    label_w = max(pen.width(str(t), look.text) for t in ticks) + pad
    top_room = look.flag + pad if flags else pad + look.text // 2
    plot = pygame.Rect(rect.x + pad + label_w, rect.y + top_room,
                       rect.w - 2 * pad - label_w - look.marker,
                       rect.h - top_room - look.text - 2 * pad)
    if plot.w < 10 or plot.h < 10:
        return plot
    frame = _Frame(plot, ticks[0], ticks[-1], len(story.rounds) - 1, look, pad)
    _grid(surface, frame, ticks, rect.x + pad, label_w, pen)
    _round_numbers(surface, frame, pen, flags)
    _flags(surface, frame, flags, rect, pen)
    _seat_lines(surface, frame, story.rounds, len(story.players), colours)
    return plot


@dataclass(frozen=True)
class _Frame:
    """Where scores and rounds fall inside the plot area."""
    plot: pygame.Rect
    lo: int                            # the lowest and highest tick
    hi: int
    n_rounds: int
    look: ChartLook
    pad: int

    def y_of(self, v: float) -> int:
        return round(self.plot.bottom - (v - self.lo) / (self.hi - self.lo) * self.plot.h)

    def x_of(self, r: float) -> int:
        marker = self.look.marker
        return round(self.plot.x + marker / 2
                     + r / max(1, self.n_rounds) * (self.plot.w - marker))


def _grid(surface: pygame.Surface, frame: _Frame, ticks: list[int], label_x: int,
          label_w: int, pen: Pen) -> None:
    """The grid: a line per tick (0 stronger), its number on the left."""
    look, plot, pad = frame.look, frame.plot, frame.pad
    for t in ticks:
        y = frame.y_of(t)
        pygame.draw.line(surface, look.dim if t == 0 else look.grid, (plot.x, y),
                         (plot.right, y), max(1, look.line // (2 if t == 0 else 3)))
        pen.write(surface, str(t), pygame.Rect(label_x, y - look.text, label_w - pad,
                                           2 * look.text), look.text, look.dim, False, "right")


def _round_numbers(surface: pygame.Surface, frame: _Frame, pen: Pen,
                   flags: Sequence[int] = ()) -> None:
    """The rounds along the bottom: every ``every``-th that fits, the last always, and
    each flagged round (a number too close to one of those gives way to it)."""
    look, plot, pad, n_rounds = frame.look, frame.plot, frame.pad, frame.n_rounds
    every = max(1, math.ceil(n_rounds * pen.width(str(n_rounds) + "0", look.text)
                             / max(1, plot.w)))
    kept = {r for r in flags if 1 <= r <= n_rounds} | {n_rounds}
    labels: list[tuple[int, pygame.Rect]] = []
    for r in [r for r in range(1, n_rounds + 1) if r % every == 0 or r in kept]:
        box = pygame.Rect(0, plot.bottom + pad // 2, pen.width(str(r), look.text) + pad,
                          look.text + pad)
        box.centerx = frame.x_of(r)
        if labels and labels[-1][1].colliderect(box) and labels[-1][0] in kept \
                and r not in kept:
            continue
        while labels and labels[-1][1].colliderect(box):
            labels.pop()
        labels.append((r, box))
    for r, box in labels:
        pen.write(surface, str(r), box, look.text, look.dim, False, "center")


def flag_x(frame: _Frame, r: int) -> int:
    """Where a turning point of round ``r`` stands: on that round's tick (its number at the
    bottom, its scores' marks), where the chart shows what the round did."""
    return frame.x_of(min(max(r, 0), frame.n_rounds))


def _flags(surface: pygame.Surface, frame: _Frame, flags: Sequence[int],
           rect: pygame.Rect, pen: Pen) -> None:
    """The turning points' rounds: a line on that round's tick, its numbered flag above
    it (flags that would touch are set apart, a slanted stem joins them)."""
    look, plot = frame.look, frame.plot
    wanted = [flag_x(frame, r) for r in flags]
    placed = _flag_places(wanted, look.flag + max(2, look.flag // 8),
                          rect.right - look.flag / 2)
    fy = rect.y + frame.pad // 2 + look.flag // 2
    thin = max(1, look.line // 3)
    for x, fx in zip(wanted, placed, strict=True):
        pygame.draw.line(surface, look.flag_color, (x, plot.y), (x, plot.bottom), thin)
        pygame.draw.line(surface, look.flag_color, (round(fx), fy), (x, plot.y), thin)
    for i, fx in enumerate(placed, 1):
        c = (round(fx), fy)
        pygame.draw.circle(surface, look.flag_color, c, look.flag // 2)
        box = pygame.Rect(0, 0, look.flag, look.flag)
        box.center = c
        pen.write(surface, str(i), box, round(look.flag * 0.8), look.flag_ink, True,
                  "center")


def _flag_places(wanted: list[int], step: int, rightmost: float) -> list[float]:
    """The flags' centres: at least ``step`` apart left to right, all moved back left
    when the last would pass ``rightmost``."""
    placed: list[float] = []
    for x in wanted:
        placed.append(max(x, placed[-1] + step) if placed else x)
    if placed and placed[-1] > rightmost:
        shift = placed[-1] - rightmost
        placed = [p - shift for p in placed]
    return placed


def _seat_lines(surface: pygame.Surface, frame: _Frame, rounds: Sequence[tuple[int, ...]],
                seats: int, colours: Sequence[tuple]) -> None:
    """Each seat: its line, then its shape at every round, sideways apart when scores
    meet (all lines first, so no line covers a shape)."""
    look = frame.look
    edge = max(1, look.marker // 8)
    spread = look.marker * 0.45
    points = [[_seat_point(frame, rounds, seat, r, spread) for r in range(frame.n_rounds + 1)]
              for seat in range(seats)]
    for seat, pts in enumerate(points):
        colour = colours[seat % len(colours)]
        if len(pts) > 1:
            pygame.draw.lines(surface, look.outline, False, pts, look.line + 2 * edge)
            pygame.draw.lines(surface, colour, False, pts, look.line)
    for seat, pts in enumerate(points):
        colour = colours[seat % len(colours)]
        for pt in pts[1:]:
            draw_shape(surface, seat_shape(seat), pt, look.marker, colour, look.outline, edge)


def _seat_point(frame: _Frame, rounds: Sequence[tuple[int, ...]], seat: int, r: int,
                spread: float) -> tuple[int, int]:
    """Where a seat's score at round ``r`` is drawn: seats with the same score there are
    set ``spread`` apart sideways (not at round 0, where everyone starts)."""
    v = rounds[r][seat]
    same = [s for s in range(len(rounds[r])) if rounds[r][s] == v]
    nudge = 0.0
    if len(same) > 1 and r > 0:
        k = same.index(seat)
        nudge = (k - (len(same) - 1) / 2) * spread
    return round(frame.x_of(r) + nudge), frame.y_of(v)
