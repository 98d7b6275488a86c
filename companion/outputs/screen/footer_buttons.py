"""The table's footer buttons: a picture 6 mm tall above one word (issue 40).

Five small buttons and END TURN share one 62 px row at 800 x 480: their words cannot all be
6 mm tall there (a capital 31 px), so each small button is told by its picture, drawn that
tall with pygame primitives like the side panels' icons: UNDO and REDO a curved arrow back
and forth, UPGRADE the upgrade tile (``draw_upgrade_icon``), SPEND the rush token
(``draw_token_icon``), FIX a pencil, Cake Time's button a cake card (``cakes.draw_cake_card``).
Its word goes under the picture, at one type size in every language.

A disabled button (REDO with nothing to redo) is hollow, not only greyer: an outline on the
table's ground, its picture and word faint.

Each picture is drawn once per size, colour and surface format on a transparent ground
(``icon_picture``), then copied onto any face, a pressed one too: a footer that changes
(UNDO becomes possible) copies it, and the button's whole look is kept as a copy too
(``widgets.Looks``).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pygame

from . import theme
from .widgets import (Button, Color, draw_text, draw_token_icon, draw_upgrade_icon,
                      keep_looks, rounded)

#: the outline of a disabled (hollow) footer button, in screen pixels
HOLLOW_LINE = 2


def _fit_points(points: list[tuple[float, float]], box: pygame.Rect
                ) -> Callable[[tuple[float, float]], tuple[int, int]]:
    """A map from the design's units to ``box``: the shape's bounds fill the box's height
    (or its width, if the shape is wider), centred."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    scale = min((box.w - 1) / w, (box.h - 1) / h)
    ox = box.x + (box.w - 1 - w * scale) / 2 - min(xs) * scale
    oy = box.y + (box.h - 1 - h * scale) / 2 - min(ys) * scale
    return lambda p: (round(ox + p[0] * scale), round(oy + p[1] * scale))


def _undo_shape() -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """A curved arrow back (in units): the band of an arc round the right from the bottom up
    to the top, and the arrow's head pointing left at the top."""
    radius, thick, head = 1.0, 0.42, 0.62
    outer, inner = radius + thick / 2, radius - thick / 2
    angles = [math.radians(a) for a in range(-125, 91, 5)]     # bottom left, round the right
    band = [(outer * math.cos(a), -outer * math.sin(a)) for a in angles] + \
           [(inner * math.cos(a), -inner * math.sin(a)) for a in reversed(angles)]
    tip = -1.15
    arrow = [(0.05, -radius - head), (tip, -radius), (0.05, -radius + head)]
    return band, arrow


def draw_undo_icon(surface: pygame.Surface, rect: pygame.Rect, colour: Color) -> None:
    """UNDO: a curved arrow turning back to the left, as tall as ``rect``."""
    band, arrow = _undo_shape()
    at = _fit_points(band + arrow, rect)
    pygame.draw.polygon(surface, colour, [at(p) for p in band])
    pygame.draw.polygon(surface, colour, [at(p) for p in arrow])


def draw_fix_icon(surface: pygame.Surface, rect: pygame.Rect, colour: Color,
                  face: Color) -> None:
    """FIX: a pencil, point down to the left, as tall as ``rect`` (its bands in ``face``)."""
    d, n = (1 / math.sqrt(2), -1 / math.sqrt(2)), (1 / math.sqrt(2), 1 / math.sqrt(2))

    def along(t: float, s: float) -> tuple[float, float]:     # t along the pencil, s across
        return (t * d[0] + s * n[0], t * d[1] + s * n[1])

    w = 0.17
    body = [along(0.3, -w), along(1.0, -w), along(1.0, w), along(0.3, w)]
    point = [along(0.0, 0.0), along(0.3, -w), along(0.3, w)]
    at = _fit_points(body + point, rect)
    pygame.draw.polygon(surface, colour, [at(p) for p in body])
    pygame.draw.polygon(surface, colour, [at(p) for p in point])
    line = max(2, rect.h // 14)
    for t in (0.3, 0.82):              # where the wood starts, the eraser's band
        pygame.draw.line(surface, face, at(along(t, -w - 0.05)), at(along(t, w + 0.05)), line)
    lead = [along(0.0, 0.0), along(0.11, -w * 0.37), along(0.11, w * 0.37)]
    pygame.draw.polygon(surface, theme.TEXT_DARK, [at(p) for p in lead])


def _paint_icon(surface: pygame.Surface, kind: str, box: pygame.Rect, fg: Color,
                clear: Color) -> None:
    if kind == "undo":
        draw_undo_icon(surface, box, fg)
    elif kind == "fix":
        draw_fix_icon(surface, box, fg, clear)
    elif kind == "upgrade":
        draw_upgrade_icon(surface, box.inflate(2, 2))        # (it keeps a pixel's margin)
    elif kind == "spend":
        draw_token_icon(surface, "rush_token", box.inflate(2, 2))
    elif kind == "cake_card":
        from .cakes import draw_cake_card                   # cakes.py builds on widgets
        draw_cake_card(surface, box)
    else:
        raise ValueError(f"no footer icon {kind!r}")


#: (kind, side, fg, format) -> the picture, its ground transparent (a colour key)
_icons: dict[tuple, pygame.Surface] = {}
ICONS_KEPT = 64
#: the pictures' transparent ground (no picture uses it)
CLEAR = (255, 0, 255)
#: the pictures drawn in the button's word colour (the others have their own colours)
_IN_WORD_COLOUR = ("undo", "redo", "fix")


def icon_picture(kind: str, side: int, fg: Color, like: pygame.Surface) -> pygame.Surface:
    """The picture ``kind`` (``side`` px square, drawn in ``fg`` where it takes the word's
    colour) in ``like``'s format, on a transparent ground: drawn the first time, then the
    same surface, on any face (a pressed one too; REDO is UNDO's picture mirrored)."""
    fg = tuple(fg) if kind in _IN_WORD_COLOUR else ()
    key = (kind, side, fg, like.get_bitsize(), like.get_masks())
    got = _icons.get(key)
    if got is None:
        if len(_icons) >= ICONS_KEPT:
            _icons.clear()
        got = pygame.Surface((side, side), 0, like)
        got.fill(CLEAR)
        if kind == "redo":
            got.blit(pygame.transform.flip(icon_picture("undo", side, fg, like), True, False),
                     (0, 0))
        else:
            _paint_icon(got, kind, pygame.Rect(0, 0, side, side), fg, CLEAR)
        got.set_colorkey(CLEAR)
        _icons[key] = got
    return got


@keep_looks
@dataclass(eq=False)
class IconButton(Button):
    """A footer button: ``icon`` (``icon_h`` px tall) above ``text`` (``size`` px, one line;
    ``pad``: its room from the button's sides). Disabled, it is hollow: an outline on
    ``ground``, its picture and word faint."""
    icon: str = "undo"
    icon_h: int = 34
    ground: Color = theme.BACKGROUND
    gap: int = 3                      # above the picture and between it and the word

    def paint_steps(self, surface):
        """One part: its word is short and one line (not a Button's label fitted first)."""
        self.paint(surface)
        yield from ()

    def paint(self, surface):
        r = self.rect
        if self.enabled:
            face = theme.mix(self.color, theme.WHITE, 0.3) if self.pressed else self.color
            rounded(surface, r, self.radius, (tuple(face), 0))
            fg = self.text_color or theme.readable_on(face)
        else:
            face = self.ground
            rounded(surface, r, self.radius, (tuple(face), 0),
                    (tuple(theme.BUTTON), HOLLOW_LINE))
            fg = theme.mix(self.text_color or theme.TEXT, face, 0.45)
        side = min(self.icon_h, r.w - 2 * HOLLOW_LINE)
        picture = pygame.Rect(r.centerx - side // 2, r.y + self.gap, side, side)
        surface.blit(icon_picture(self.icon, side, fg, surface), picture)
        pad = self.pad if self.pad is not None else HOLLOW_LINE + 1
        words = pygame.Rect(r.x + pad, picture.bottom, r.w - 2 * pad,
                            r.bottom - HOLLOW_LINE - picture.bottom)
        draw_text(surface, self.text, words, self.size, fg, self.bold, min_size=self.size)
