"""The 4 × 4 main board: the printed layout and Winter's "Main board chaos!" (pure).

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
seed shown on the screen lets a table deal the same layout again. The
screen draws a board with ``companion.outputs.screen.board.draw_board``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .rules.editions import EDITIONS

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
    seed: int | None = None

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
                    EDITIONS[edition].specialty_ingredients, strict=True))
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
    for (r, c), ing in zip(SPECIAL_SQUARES, special, strict=True):
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
