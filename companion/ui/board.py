"""The 4 × 4 main board: the printed layout, Winter's "Main board chaos!", and its drawing.

The original board is printed (seeds README, "The original ingredient board,
as printed"), row by row from the top, ★ = a yellow-ribbon square::

    ice      caramel★  steam      coffee
    coffee   milk      ice        water★
    tea★     steam     milk       coffee
    milk     ice       chocolate★ steam

Coffee Rush: Winter has 16 ingredient tiles placed on the main board. Its
standard layout is taken to be the same with fruit instead of caramel, and
its snowflake squares to be the four ribbon squares (an assumption the seeds
README states: the Winter board picture is not in the text).

"Main board chaos!" (Winter rulebook, Variable Setup ❶): the fruit,
chocolate, water and tea tiles are shuffled onto the snowflake squares, the
other twelve onto the remaining squares. ``chaos_board(seed)`` does that with
``random.Random(seed)``: the same seed always gives the same board, so the
seed shown on the screen lets a table deal the same layout again.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

import pygame

from ..rules.editions import EDITIONS
from . import theme

SIZE = 4

PRINTED = (
    ("ice", "caramel", "steam", "coffee"),
    ("coffee", "milk", "ice", "water"),
    ("tea", "steam", "milk", "coffee"),
    ("milk", "ice", "chocolate", "steam"),
)
#: (row, column) of the yellow-ribbon squares (original) = the snowflake squares (Winter)
SPECIAL_SQUARES = ((0, 1), (1, 3), (2, 0), (3, 2))
CORNERS = ((0, 0), (0, 3), (3, 0), (3, 3))

SEED_MIN, SEED_MAX = 1000, 9999     # short enough to read out and type again


@dataclass(frozen=True)
class Board:
    """Ingredient per square, row by row from the top; ``seed`` when shuffled."""
    edition: str
    cells: tuple[tuple[str, ...], ...]
    seed: Optional[int] = None

    def at(self, row: int, col: int) -> str:
        return self.cells[row][col]

    def squares(self) -> list[tuple[int, int, str]]:
        return [(r, c, self.cells[r][c]) for r in range(SIZE) for c in range(SIZE)]

    @property
    def is_chaos(self) -> bool:
        return self.seed is not None


def printed_board(edition: str = "original") -> Board:
    """The layout of the rulebook (Winter: fruit where the original has caramel)."""
    # the printed board is the original's; another edition puts its own specialty
    # ingredients on the same squares (Winter: fruit where the original has caramel)
    swap = dict(zip(EDITIONS["original"].specialty_ingredients,
                    EDITIONS[edition].specialty_ingredients))
    return Board(edition, tuple(tuple(swap.get(i, i) for i in row) for row in PRINTED))


def winter_tiles() -> tuple[list[str], list[str]]:
    """Winter's 16 ingredient tiles: (the four specialty tiles, the twelve others)."""
    board = printed_board("winter")
    special = [board.at(r, c) for r, c in SPECIAL_SQUARES]
    others = [ing for r, c, ing in board.squares() if (r, c) not in SPECIAL_SQUARES]
    return special, others


def chaos_board(seed: int) -> Board:
    """Main board chaos! for ``seed``: specialty tiles on the snowflake squares, the
    others on the rest, each group shuffled (reproducible: same seed, same board)."""
    rng = random.Random(seed)
    special, others = winter_tiles()
    rng.shuffle(special)
    rng.shuffle(others)
    cells = [[""] * SIZE for _ in range(SIZE)]
    for (r, c), ing in zip(SPECIAL_SQUARES, special):
        cells[r][c] = ing
    rest = iter(others)
    for r in range(SIZE):
        for c in range(SIZE):
            if (r, c) not in SPECIAL_SQUARES:
                cells[r][c] = next(rest)
    return Board("winter", tuple(tuple(row) for row in cells), seed)


def new_seed(rng: random.Random) -> int:
    """A fresh seed to show at the table (from the injected random source)."""
    return rng.randint(SEED_MIN, SEED_MAX)


# --- drawing ------------------------------------------------------------------------------

def _snowflake(surface: pygame.Surface, center: tuple[int, int], r: int, color) -> None:
    import math
    w = max(1, r // 5)
    for k in range(3):
        a = math.pi * k / 3
        dx, dy = math.cos(a) * r, math.sin(a) * r
        p1 = (round(center[0] - dx), round(center[1] - dy))
        p2 = (round(center[0] + dx), round(center[1] + dy))
        pygame.draw.line(surface, color, p1, p2, w)
        for end, sign in ((p1, -1), (p2, 1)):
            for turn in (-0.6, 0.6):
                b = a + turn
                tip = (round(end[0] - sign * math.cos(b) * r * 0.4),
                       round(end[1] - sign * math.sin(b) * r * 0.4))
                pygame.draw.line(surface, color, end, tip, w)


def _ribbon(surface: pygame.Surface, rect: pygame.Rect) -> None:
    band = pygame.Rect(rect.x, rect.y, max(6, rect.w // 6), rect.h)
    pygame.draw.rect(surface, theme.SPECIALTY, band, border_top_left_radius=8,
                     border_bottom_left_radius=8)


def draw_board(surface: pygame.Surface, rect: pygame.Rect, board: Board,
               names: Optional[dict] = None, marks: Optional[dict] = None) -> pygame.Rect:
    """Draw ``board`` as large as fits in ``rect`` (square, centred); return the board rect.

    ``names``: ingredient -> word to print under the icon (when the squares are
    big enough). ``marks``: (row, col) -> colour of a meeple drawn on that square.
    """
    from .widgets import draw_ingredient, draw_text
    side = min(rect.w, rect.h)
    area = pygame.Rect(0, 0, side, side)
    area.center = rect.center
    pygame.draw.rect(surface, theme.mix(theme.PANEL, theme.CARD_EDGE, 0.25), area,
                     border_radius=max(6, side // 30))
    gap = max(3, side // 60)
    cell = (side - gap * (SIZE + 1)) // SIZE
    winter = EDITIONS[board.edition].specialty_mark == "snowflake"
    for r, c, ing in board.squares():
        sq = pygame.Rect(area.x + gap + c * (cell + gap), area.y + gap + r * (cell + gap),
                         cell, cell)
        special = (r, c) in SPECIAL_SQUARES
        face = theme.mix(theme.CARD, (200, 225, 245), 0.45) if winter else theme.CARD
        pygame.draw.rect(surface, face, sq, border_radius=max(4, cell // 8))
        if special and not winter:
            _ribbon(surface, sq)
        edge = theme.SPECIALTY if special else theme.CARD_EDGE
        pygame.draw.rect(surface, edge, sq, max(2, cell // 24), border_radius=max(4, cell // 8))
        show_name = names is not None and cell >= 64
        icon_r = round(cell * (0.24 if show_name else 0.33))
        cy = sq.y + (round(cell * 0.34) if show_name else cell // 2)
        draw_ingredient(surface, ing, (sq.centerx, cy), icon_r)
        if special and winter:
            _snowflake(surface, (sq.right - cell // 6, sq.y + cell // 6), max(5, cell // 8),
                       (40, 110, 200))
        if show_name:
            box = pygame.Rect(sq.x + 3, sq.y + round(cell * 0.60), sq.w - 6,
                              round(cell * 0.37))
            draw_text(surface, names.get(ing, ing), box, round(cell * 0.2), theme.TEXT_DARK,
                      True, lines=2, min_size=8)
        if marks and (r, c) in marks:
            pygame.draw.circle(surface, marks[(r, c)], (sq.x + cell // 5, sq.y + cell // 5),
                               max(4, cell // 8))
    return area
