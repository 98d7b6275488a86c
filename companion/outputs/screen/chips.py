"""Small touch widgets of the setup wizard, settings and enroll screens.

- ``Chip``: a button with an optional ingredient icon, colour dot or ribbon,
  drawn "on" (filled, outlined) or "off"; used for names, tiles, ingredients.
- ``Swatch``: a seat colour to pick, with a check mark when chosen.

They follow ``widgets.Widget``: a pure function of their fields, text drawn
with ``draw_text`` (so it always fits and is recorded for overflow tests).
"""
from __future__ import annotations

from dataclasses import dataclass

import pygame

from companion.core import seat_colours
from . import theme
from .widgets import (Color, Widget, draw_ingredient, draw_lines, draw_text, fill_round_rect,
                      text_width)


def word_safe_size(text: str, width: int, size: int, bold: bool = True, smallest: int = 9) -> int:
    """The largest size <= ``size`` at which the longest word fits ``width``, so a
    wrapped text breaks between words, never inside one."""
    words = text.split() or [text]
    s = size
    while s > smallest and max(text_width(w, s, bold) for w in words) > width:
        s -= 1
    return s


@dataclass(eq=False)
class Chip(Widget):
    text: str = ""
    size: int = 20
    on: bool = False
    enabled: bool = True
    icon: str | None = None          # an ingredient id
    icon_letters: str | None = None
    dot: Color | None = None         # a seat colour
    ribbon: bool = False                # the specialty menu's yellow ribbon
    color: Color = theme.BUTTON
    on_color: Color = theme.PRIMARY
    lines: int = 1
    align: str = "center"
    badge: int = 0                      # a count in a corner (ingredient taken twice, ...)

    shows_pressed = True

    @property
    def tappable(self) -> bool:
        return self.enabled and self.on_tap is not None

    def paint(self, surface):
        r = self.rect
        face = self._face()
        radius = max(6, min(r.h // 4, 14))
        fill_round_rect(surface, face, r, radius)
        if self.on:
            pygame.draw.rect(surface, theme.TEXT, r, max(2, r.h // 18), border_radius=radius)
        fg = theme.readable_on(face)
        if not self.enabled:
            fg = theme.mix(fg, face, 0.55)
        pad = max(6, r.h // 8)
        if self.ribbon:
            band = pygame.Rect(r.right - max(8, r.w // 10), r.y, max(8, r.w // 10), r.h)
            pygame.draw.rect(surface, theme.SPECIALTY, band, border_top_right_radius=radius,
                             border_bottom_right_radius=radius)
        if self.icon is not None and not self.text:
            rad = max(8, min(r.h // 2 - pad, r.w // 2 - pad))
            draw_ingredient(surface, self.icon, r.center, rad, self.icon_letters)
            return
        x = self._mark(surface, r.x + pad, pad)
        right = r.right - pad - (max(8, r.w // 10) if self.ribbon else 0)
        box = pygame.Rect(x, r.y + pad // 2, max(1, right - x), r.h - pad)
        align = "left" if (self.icon is not None or self.dot is not None) else self.align
        lines = self.lines if " " in self.text.strip() else 1   # never cut a word in two
        size = word_safe_size(self.text, box.w, self.size) if lines > 1 else self.size
        draw_text(surface, self.text, box, size, fg, True, align=align, lines=lines)
        if self.badge:
            self._badge(surface)

    def _face(self) -> Color:
        """The chip's colour: chosen, disabled, or lighter under a finger."""
        face = self.on_color if self.on else self.color
        if not self.enabled:
            face = theme.BUTTON_DISABLED
        if self.pressed and self.enabled:
            face = theme.mix(face, theme.WHITE, 0.3)
        return face

    def _mark(self, surface, x: int, pad: int) -> int:
        """The ingredient icon or the colour dot before the text; returns where text starts."""
        r = self.rect
        if self.icon is not None:
            rad = max(8, min(round(r.h * 0.34), r.w // 7))
            draw_ingredient(surface, self.icon, (x + rad, r.centery), rad, self.icon_letters)
            return x + 2 * rad + pad
        if self.dot is not None:
            rad = max(6, r.h // 4)
            pygame.draw.circle(surface, self.dot, (x + rad, r.centery), rad)
            pygame.draw.circle(surface, theme.TEXT, (x + rad, r.centery), rad, 2)
            return x + 2 * rad + pad
        return x

    def _badge(self, surface) -> None:
        """A count in the top right corner, on a disc."""
        r = self.rect
        rad = max(9, r.h // 6)
        c = (r.right - rad - 3, r.y + rad + 3)
        pygame.draw.circle(surface, theme.TEXT, c, rad)
        disc = pygame.Rect(c[0] - rad, c[1] - rad, 2 * rad, 2 * rad)
        draw_text(surface, f"{self.badge}", disc,
                  round(rad * 1.3), theme.TEXT_DARK, True)


@dataclass(eq=False)
class Swatch(Widget):
    """A colour to pick: a rounded square; a check mark when ``on``; greyed when not offered."""
    color: Color = seat_colours.SCREEN_RGB[0]
    on: bool = False
    enabled: bool = True
    text: str = ""
    size: int = 16

    shows_pressed = True

    @property
    def tappable(self) -> bool:
        return self.enabled and self.on_tap is not None

    def paint(self, surface):
        r = self.rect
        face = self.color if self.enabled else theme.mix(self.color, theme.BACKGROUND, 0.75)
        radius = max(6, r.h // 5)
        fill_round_rect(surface, face, r, radius)
        text_box = r.inflate(-8, -8)
        if self.on:
            pygame.draw.rect(surface, theme.TEXT, r, max(3, r.h // 12), border_radius=radius)
            # the check mark over the word, which keeps the swatch's width ("Vermelho"
            # beside it was once 15 px)
            k = max(5, min(r.w // 8, r.h // 5))
            c = (r.centerx, r.y + max(6, r.h // 12) + k)
            pts = [(c[0] - k, c[1]), (c[0] - k // 3, c[1] + k * 2 // 3),
                   (c[0] + k, c[1] - k * 2 // 3)]
            draw_lines(surface, theme.readable_on(face), False, pts, max(3, k // 2))
            top = c[1] + k * 2 // 3 + 2
            text_box = pygame.Rect(r.x + 6, top, r.w - 12, r.bottom - 6 - top)
        elif self.pressed and self.enabled:
            pygame.draw.rect(surface, theme.TEXT, r, 2, border_radius=radius)
        if self.text:
            draw_text(surface, self.text, text_box, self.size, theme.readable_on(face), True)
