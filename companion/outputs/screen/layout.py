"""Rectangles computed from the window size: no pixel position is fixed.

Two small tools cut a rectangle into pieces:

- ``rows(rect, specs, gap)`` cuts top to bottom, ``cols(rect, specs, gap)`` left
  to right. Each spec is an ``int`` (that many pixels) or a ``float`` (a share
  of what the fixed pieces leave: ``[40, 1.0, 2.0]`` = 40 px, then one third
  and two thirds of the rest).
- ``grid(rect, count, columns, gap)`` lays out equal cells, row by row.

``Metrics(size)`` holds the sizes every screen shares (margins, gaps, bar
heights, type sizes) scaled from the 800x480 design; ``table_layout.py`` places
the table view's parts with them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from collections.abc import Sequence

import pygame

from .theme import MIN_TARGET

Spec = int | float


_cuts: dict[tuple, list[tuple[int, int]]] = {}


def _cut(total: int, specs: Sequence[Spec], gap: int) -> list[tuple[int, int]]:
    """(start, length) of each piece (remembered: a screen cuts the same pieces every frame;
    the key tells 1 pixel from a share of 1.0). The caller must not change the list."""
    specs = tuple(specs)
    key = (total, gap, specs, tuple(map(type, specs)))
    got = _cuts.get(key)
    if got is None:
        if len(_cuts) > 2000:
            _cuts.clear()
        got = _cuts[key] = _cut_now(total, specs, gap)
    return got


def _cut_now(total: int, specs: Sequence[Spec], gap: int) -> list[tuple[int, int]]:
    fixed = sum(s for s in specs if isinstance(s, int)) + gap * (len(specs) - 1)
    weights = sum(s for s in specs if isinstance(s, float))
    left = max(0, total - fixed)
    out, at, used_weight = [], 0, 0.0
    for s in specs:
        if isinstance(s, int):
            length = s
        else:
            # round the running sum so the pieces always add up to the total exactly
            start = round(left * used_weight / weights) if weights else 0
            used_weight += s
            end = round(left * used_weight / weights) if weights else 0
            length = end - start
        out.append((at, length))
        at += length + gap
    return out


def rows(rect: pygame.Rect, specs: Sequence[Spec], gap: int = 0) -> list[pygame.Rect]:
    return [pygame.Rect(rect.x, rect.y + y, rect.w, h) for y, h in _cut(rect.h, specs, gap)]


def cols(rect: pygame.Rect, specs: Sequence[Spec], gap: int = 0) -> list[pygame.Rect]:
    return [pygame.Rect(rect.x + x, rect.y, w, rect.h) for x, w in _cut(rect.w, specs, gap)]


def grid(rect: pygame.Rect, count: int, columns: int, gap: int = 0) -> list[pygame.Rect]:
    columns = max(1, min(columns, count))
    n_rows = (count + columns - 1) // columns
    out = []
    for r in rows(rect, [1.0] * n_rows, gap):
        out += cols(r, [1.0] * columns, gap)
    return out[:count]


def inset(rect: pygame.Rect, dx: int, dy: int | None = None) -> pygame.Rect:
    dy = dx if dy is None else dy
    return pygame.Rect(rect.x + dx, rect.y + dy, max(0, rect.w - 2 * dx), max(0, rect.h - 2 * dy))


def centered(rect: pygame.Rect, w: int, h: int) -> pygame.Rect:
    r = pygame.Rect(0, 0, min(w, rect.w), min(h, rect.h))
    r.center = rect.center
    return r


_metrics: dict[tuple, Metrics] = {}


@dataclass(frozen=True)
class Metrics:
    """Shared sizes for a screen of ``size`` pixels (designed at 800x480)."""
    width: int
    height: int

    @classmethod
    def of(cls, size: tuple[int, int]) -> Metrics:
        """The metrics of ``size`` (one shared instance per size: they never change)."""
        key = (cls, int(size[0]), int(size[1]))
        got = _metrics.get(key)
        if got is None:
            got = _metrics[key] = cls(key[1], key[2])
        return got

    def px(self, design: float) -> int:
        """A length designed for 800x480, scaled to this screen (by its tighter side)."""
        got = self._px.get(design)
        if got is None:
            got = self._px[design] = max(1, round(design * self._scale))
        return got

    @cached_property
    def _px(self) -> dict[float, int]:      # design length -> pixels, asked again and again
        return {}

    @cached_property
    def _scale(self) -> float:      # asked thousands of times a frame: divide once
        return min(self.height / 480, self.width / 800)

    @property
    def rect(self) -> pygame.Rect:
        return pygame.Rect(0, 0, self.width, self.height)

    @property
    def margin(self) -> int:
        return self.px(6)

    @property
    def gap(self) -> int:
        return self.px(6)

    @property
    def bar(self) -> int:
        """Height of the top bar and the bottom button bar (a comfortable touch row)."""
        return max(MIN_TARGET + 8, self.px(62))

    @property
    def target(self) -> int:
        """The smallest touch target on this screen."""
        return max(MIN_TARGET, self.px(52))

    # type sizes
    @property
    def huge(self) -> int:
        return self.px(40)

    @property
    def must(self) -> int:
        """What every seat must read from 1.5 m (whose turn, OPEN/CLOSED, the final turn,
        who draws how many, position 4): a cap height of 6 mm on the 7" panel (800 px
        over about 154 mm, so 31 px), which a 44 px bold face gives."""
        return self.px(44)

    @property
    def big(self) -> int:
        return self.px(30)      # names and scores: >= 28 px at 800x480

    @property
    def body(self) -> int:
        return self.px(22)

    @property
    def small(self) -> int:
        return self.px(17)
