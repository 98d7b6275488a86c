"""Cake Time pictures: a cake (on an order), a cake card (in hand), and badges of them.

Drawn with pygame primitives, like the other icons (``widgets.draw_token_icon``),
so they need no font glyph and read from 1.5 m: a pink-iced slice with a red
cherry on a white plate; a cake card is a small card with that slice.
"""
from __future__ import annotations

import pygame

from . import theme
from .widgets import Custom, draw_text, fill_round_rect



def draw_cake(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """A slice of cake on a plate, filling ``rect`` (kept square)."""
    s = max(8, min(rect.w, rect.h))
    box = pygame.Rect(0, 0, s, s)
    box.center = rect.center
    line = max(1, s // 14)
    plate = pygame.Rect(box.x, box.bottom - s // 5, s, s // 5)
    pygame.draw.ellipse(surface, theme.CAKE_PLATE, plate)
    pygame.draw.ellipse(surface, theme.TEXT_DARK, plate, line)
    body = pygame.Rect(box.x + s // 8, box.y + s * 3 // 8, s * 3 // 4, s * 7 // 16)
    fill_round_rect(surface, theme.CAKE_SPONGE, body, max(1, s // 12))
    icing = pygame.Rect(body.x, body.y, body.w, max(2, body.h * 2 // 5))
    pygame.draw.rect(surface, theme.CAKE_PINK, icing, border_top_left_radius=max(1, s // 12),
                     border_top_right_radius=max(1, s // 12))
    pygame.draw.rect(surface, theme.TEXT_DARK, body, line, border_radius=max(1, s // 12))
    pygame.draw.circle(surface, theme.CAKE_CHERRY, (body.centerx, body.y - s // 10), max(2, s // 8))
    pygame.draw.circle(surface, theme.TEXT_DARK, (body.centerx, body.y - s // 10),
                       max(2, s // 8), max(1, line // 2))


def draw_cake_card(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """A cake card: an upright card with a cake on its face."""
    h = max(10, min(rect.h, round(rect.w * 1.4)))
    card = pygame.Rect(0, 0, round(h / 1.4), h)
    card.center = rect.center
    radius = max(2, card.w // 6)
    fill_round_rect(surface, theme.CAKE_CARD_FACE, card, radius)
    pygame.draw.rect(surface, theme.CAKE_PINK, card, max(2, card.w // 9), border_radius=radius)
    draw_cake(surface, card.inflate(-card.w // 4, -card.h // 3))


def cake_badge(name: str, cell: pygame.Rect, count: int, place: str = "corner") -> Custom:
    """Cakes on the orders of a slot ``cell``.

    ``place``: "corner" (compact slots): one cake in the top-right corner, with "×N"
    for several; "row" (big slots): one cake per caked card, side by side right of
    the position number (the top-right corner shows the slot's card count); "left":
    one cake at the left edge, centred in height (the wizard's deal table)."""
    if place == "row":
        s = max(14, min(cell.h // 5, cell.w // 5))
        shown = min(count, 3)
        box = pygame.Rect(cell.x + max(cell.w // 5, s), cell.y + 2, s * shown, s)
    else:
        s = max(14, min(cell.h * 55 // 100, cell.w // 3))
        shown = 1
        box = pygame.Rect(0, 0, s * 2 if count > 1 else s, s)
        if place == "left":
            box.midleft = (cell.x + 4, cell.centery)
        else:
            box.topright = (cell.right - 2, cell.y + 2)
    with_count = count > 1 and place != "row"

    def paint(surface: pygame.Surface, _rect: pygame.Rect) -> None:
        if with_count:
            pill = box.inflate(2, 2)
            fill_round_rect(surface, theme.TEXT_DARK, pill, pill.h // 2)
        for k in range(shown):
            draw_cake(surface, pygame.Rect(box.x + k * s, box.y, s, s))
        if with_count:
            draw_text(surface, f"×{count}", pygame.Rect(box.x + s, box.y, s, s), s * 3 // 4,
                      theme.TEXT, True, min_size=7)
    return Custom(name, box, data=("cake", count, tuple(box)), paint_fn=paint)
