"""The simulated LED strip, drawn in a band under the table view (the demo).

The lights controller drives a ``SimulatedStrip`` exactly as it would drive the
real one; this view shows the strip's current frame, one dot per LED, each
seat's segment grouped under a thin line of its seat colour. It draws on the
main thread and only when the strip shows a new frame.
"""
from __future__ import annotations

from collections.abc import Sequence

import pygame

from companion.outputs.lights.pixels import Segment, SimulatedStrip
from companion.outputs.screen import theme

BAND = 30                        # px of window height the strip needs
BACKGROUND = theme.STRIP_BACKGROUND


class StripView:
    def __init__(self, strip: SimulatedStrip, segments: Sequence[Segment],
                 rect: pygame.Rect, seat_colors: Sequence = ()):
        self.strip = strip
        self.segments = list(segments)
        self.rect = pygame.Rect(rect)
        self.seat_colors = list(seat_colors)
        self._shown: tuple | None = None
        self.draws = 0

    def draw(self, surface: pygame.Surface) -> pygame.Rect | None:
        """Paint the strip if its frame changed; the dirty rect, or None."""
        frame = self.strip.current
        if frame == self._shown:
            return None
        self._shown = frame
        surface.fill(BACKGROUND, self.rect)
        n = max(1, len(self.segments))
        gap = 12
        width = (self.rect.width - gap * (n + 1)) / n
        for i, seg in enumerate(self.segments):
            left = self.rect.left + gap + i * (width + gap)
            step = width / max(1, seg.length)
            radius = max(2, min(int(step / 2) - 1, self.rect.height // 2 - 5))
            y = self.rect.top + self.rect.height // 2 - 2
            for k, pos in enumerate(seg.positions()):
                color = frame[pos] if frame else theme.BLACK
                x = int(left + step * (k + 0.5))
                pygame.draw.circle(surface, theme.STRIP_LED_RIM, (x, y), radius + 1)
                if any(color):
                    pygame.draw.circle(surface, _visible(color), (x, y), radius)
            if i < len(self.seat_colors):
                pygame.draw.line(surface, self.seat_colors[i],
                                 (int(left), self.rect.bottom - 4),
                                 (int(left + width), self.rect.bottom - 4), 2)
        self.draws += 1
        return self.rect


def _visible(color) -> tuple:
    """Dim LEDs (brightness cap) lifted so a screen shows them as the eye sees LEDs."""
    top = max(color)
    if top == 0:
        return color
    gain = min(4.0, 255 / top) if top < 96 else 1.0
    return tuple(min(255, int(c * gain)) for c in color)
