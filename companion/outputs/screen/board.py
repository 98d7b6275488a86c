"""Drawing the 4 × 4 main board (``companion.core.board`` says what lies on each square).

The original board's ribbon squares get a yellow band, Winter's snowflake
squares a snowflake; squares big enough show the ingredient's name under its
icon, and a meeple can be marked on a square.
"""
from __future__ import annotations

import math

import pygame

from companion.core.board import SIZE, SPECIAL_SQUARES, Board
from companion.core.rules.editions import EDITIONS
from . import theme
from .widgets import draw_lines, fill_round_rect


def _snowflake(surface: pygame.Surface, center: tuple[int, int], r: int, color) -> None:
    w = max(1, r // 5)
    for k in range(3):
        a = math.pi * k / 3
        dx, dy = math.cos(a) * r, math.sin(a) * r
        p1 = (round(center[0] - dx), round(center[1] - dy))
        p2 = (round(center[0] + dx), round(center[1] + dy))
        draw_lines(surface, color, False, [p1, p2], w)
        for end, sign in ((p1, -1), (p2, 1)):
            for turn in (-0.6, 0.6):
                b = a + turn
                tip = (round(end[0] - sign * math.cos(b) * r * 0.4),
                       round(end[1] - sign * math.sin(b) * r * 0.4))
                draw_lines(surface, color, False, [end, tip], w)


def _ribbon(surface: pygame.Surface, rect: pygame.Rect) -> None:
    band = pygame.Rect(rect.x, rect.y, max(6, rect.w // 6), rect.h)
    pygame.draw.rect(surface, theme.SPECIALTY, band, border_top_left_radius=8,
                     border_bottom_left_radius=8)


def draw_board(surface: pygame.Surface, rect: pygame.Rect, board: Board,
               names: dict | None = None, marks: dict | None = None) -> pygame.Rect:
    """Draw ``board`` as large as fits in ``rect`` (square, centred); return the board rect.

    ``names``: ingredient -> word to print under the icon (when the squares are
    big enough). ``marks``: (row, col) -> colour of a meeple drawn on that square.
    """
    from .widgets import draw_ingredient, draw_text
    side = min(rect.w, rect.h)
    area = pygame.Rect(0, 0, side, side)
    area.center = rect.center
    fill_round_rect(surface, theme.mix(theme.PANEL, theme.CARD_EDGE, 0.25), area,
                    max(6, side // 30))
    gap = max(3, side // 60)
    cell = (side - gap * (SIZE + 1)) // SIZE
    winter = EDITIONS[board.edition].specialty_mark == "snowflake"
    for r, c, ing in board.squares():
        sq = pygame.Rect(area.x + gap + c * (cell + gap), area.y + gap + r * (cell + gap),
                         cell, cell)
        special = (r, c) in SPECIAL_SQUARES
        face = theme.mix(theme.CARD, theme.WINTER_SQUARE, 0.45) if winter else theme.CARD
        fill_round_rect(surface, face, sq, max(4, cell // 8))
        if special and not winter:
            _ribbon(surface, sq)
        edge = theme.SPECIALTY if special else theme.CARD_EDGE
        pygame.draw.rect(surface, edge, sq, max(2, cell // 24), border_radius=max(4, cell // 8))
        words = names if names is not None and cell >= 64 else None
        show_name = words is not None
        icon_r = round(cell * (0.24 if show_name else 0.33))
        cy = sq.y + (round(cell * 0.34) if show_name else cell // 2)
        draw_ingredient(surface, ing, (sq.centerx, cy), icon_r)
        if special and winter:
            _snowflake(surface, (sq.right - cell // 6, sq.y + cell // 6), max(5, cell // 8),
                       theme.SNOWFLAKE)
        if words is not None:
            box = pygame.Rect(sq.x + 3, sq.y + round(cell * 0.60), sq.w - 6,
                              round(cell * 0.37))
            draw_text(surface, words.get(ing, ing), box, round(cell * 0.2), theme.TEXT_DARK,
                      True, lines=2, min_size=8)
        if marks and (r, c) in marks:
            pygame.draw.circle(surface, marks[(r, c)], (sq.x + cell // 5, sq.y + cell // 5),
                               max(4, cell // 8))
    return area
