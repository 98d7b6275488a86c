"""The demo's window: the table's touchscreen above, the simulated LED strip in a band
below it (``strip_view``), so the lights can be watched beside the screen.

``open_demo_window(display)`` opens it from the ``[display]`` settings (the band adds
``BAND`` pixels of height); a full screen is shared between the two.
"""
from __future__ import annotations

import pygame

from companion.outputs.lights.pixels import Segment, SimulatedStrip
from companion.outputs.screen.app import open_display
from .strip_view import BAND, StripView

CAPTION = "Coffee Rush companion - demo"


class DemoWindow:
    def __init__(self, window: pygame.Surface, table_size: tuple[int, int]):
        self.window = window
        self.table = window.subsurface(pygame.Rect((0, 0), table_size))
        self.strip: StripView | None = None

    def show_strip(self, strip: SimulatedStrip, segments: list[Segment],
                   seat_colors: list) -> None:
        w, h = self.window.get_size()
        self.strip = StripView(strip, segments, pygame.Rect(0, h - BAND, w, BAND), seat_colors)

    def draw_strip(self) -> None:
        """The strip's band, when its frame changed (called after each App step)."""
        if self.strip is not None:
            dirty = self.strip.draw(self.window)
            if dirty is not None:
                pygame.display.update(dirty)


def open_demo_window(display: dict) -> DemoWindow:
    """Raises RuntimeError (pygame.error) when no window can open."""
    table_size = (display["width"], display["height"])
    window = open_display(dict(display, height=display["height"] + BAND), CAPTION)
    w, h = window.get_size()
    if (w, h) != (table_size[0], table_size[1] + BAND):     # full screen: share it
        table_size = (w, h - BAND)
    return DemoWindow(window, table_size)
