"""A cache of drawn surfaces with a cap on its pixels: the screen's memory stays flat.

Screens keep what they drew (text, rounded shapes, pictures) keyed by what it shows, so a
redraw copies instead of drawing again. Those keys change with every game (names, scores,
links), so a cache without a cap grows for as long as the service runs. ``SurfaceCache``
holds at most ``max_bytes`` of pixels and ``max_items`` entries and forgets the least
recently used first, so the surfaces of the screen on show stay while last week's go.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

import pygame


def surface_bytes(surface: pygame.Surface) -> int:
    """The bytes of a surface's pixels (its pitch covers any padding of a row)."""
    return surface.get_pitch() * surface.get_height()


class SurfaceCache:
    """Key -> surface, least recently used forgotten first beyond the caps."""

    __slots__ = ("max_bytes", "max_items", "bytes", "_items")

    def __init__(self, max_bytes: int, max_items: int = 4000):
        self.max_bytes = max_bytes
        self.max_items = max_items
        self.bytes = 0
        self._items: OrderedDict[Hashable, tuple[pygame.Surface, int]] = OrderedDict()

    def get(self, key: Hashable) -> pygame.Surface | None:
        hit = self._items.get(key)
        if hit is None:
            return None
        self._items.move_to_end(key)
        return hit[0]

    def put(self, key: Hashable, surface: pygame.Surface,
            size: int | None = None) -> pygame.Surface:
        """Keep ``surface`` under ``key``; ``size``: the bytes it holds, if not its pixels'
        (an RLE-encoded surface holds its encoding, SDL frees the pixels)."""
        if size is None:
            size = surface_bytes(surface)
        old = self._items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        items = self._items
        while items and (self.bytes + size > self.max_bytes or len(items) >= self.max_items):
            self.bytes -= items.popitem(last=False)[1][1]
        if size <= self.max_bytes:             # one surface bigger than the cap is not kept
            items[key] = (surface, size)
            self.bytes += size
        return surface

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._items

    def __iter__(self):
        return iter(self._items)

    def values(self) -> list[pygame.Surface]:
        return [s for s, _ in self._items.values()]
