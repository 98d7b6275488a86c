"""Reproducible table scripts for benchmarks: realistic games with scans."""
from __future__ import annotations

import json
import random

from companion.core.rules import Rejection, Table, apply, parse_action

NAMES = ["Ana", "Ben", "Chloe", "Dae"]


def game_lines(actions: int = 300, seed: int = 7, players: int = 4,
               edition: str = "original") -> list[str]:
    """A game played by simple bots, every dealt card scanned, ``actions`` lines long
    (or up to its end, followed by a new game, until the count is reached)."""
    rng = random.Random(seed)
    lines: list[str] = []
    table = Table()
    tag = 0

    def do(action: dict) -> bool:
        nonlocal table
        out = apply(table, parse_action(action))
        if isinstance(out, Rejection):
            return False
        table = out.table
        lines.append(json.dumps(action))
        return True

    while len(lines) < actions:
        if table.game is None or table.game.game_over:
            do({"do": "setup", "edition": edition, "players": NAMES[:players]})
            continue
        g = table.game
        waiting = sum(1 for p in g.players for pos in p.queue for c in pos if c.tag is None)
        if waiting and rng.random() < 0.7:
            tag += 1
            do({"do": "scan", "tag": f"04{tag:08X}"})
            continue
        me = g.active_player
        r = rng.random()
        if me.order_count() and r < 0.45:
            do({"do": "complete"})
        elif r < 0.5 and len(lines) > 2:
            do({"do": "undo"}) and do({"do": "redo"})
        else:
            do({"do": "end_turn"})
    return lines[:actions]


def finished_game(seed: int, players: int = 3, edition: str = "original") -> list[str]:
    """The lines of one whole game, from setup to game over."""
    lines = game_lines(10_000, seed=seed, players=players, edition=edition)
    second = next(i for i, x in enumerate(lines) if i and '"setup"' in x)
    return lines[:second]
