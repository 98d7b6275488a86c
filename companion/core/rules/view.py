"""The state as the spec's JSON output (spec "Output", schema 1)."""
from __future__ import annotations

from typing import Any
from collections.abc import Iterable

from .scoring import ranking, score, winners
from .state import Game, Player, Table


def _player(g: Game, p: Player) -> dict[str, Any]:
    out = {
        "name": p.name,
        "queue": [[c.tag for c in pos] for pos in p.queue],
        "likes": p.likes, "dislikes": p.dislikes, "cookies": p.cookies,
        "upgrades": list(p.upgrades),
        "score": score(g.edition, p),
    }
    if g.expansion is not None:          # spec "Output": Cake Time keys
        out["cake_cards"] = p.cake_cards
        out["cakes"] = [[c.cake for c in pos] for pos in p.queue]
    return out


def table_json(table: Table, rejected: Iterable[dict[str, Any]] = ()) -> dict[str, Any]:
    g = table.game
    if g is None:
        return {"schema": 1, "edition": None, "variant": None, "expansion": None,
                "players": [], "start": None,
                "active": None, "turn": 0, "token": None, "deck": None, "game_over": False,
                "ranking": [], "winners": [], "rejected": list(rejected)}
    ranked = ranking(g) if g.game_over else ()
    return {
        "schema": 1,
        "edition": g.edition,
        "variant": g.variant,
        "expansion": g.expansion,
        "players": [_player(g, p) for p in g.players],
        "start": g.players[g.start].name,
        "active": None if g.active is None else g.players[g.active].name,
        "turn": g.turn,
        "token": g.token,
        "deck": g.deck,
        "game_over": g.game_over,
        "ranking": [{"name": r.name, "score": r.score, "likes": r.likes,
                     "cookies": r.cookies, "place": r.place} for r in ranked],
        "winners": list(winners(ranked)),
        "rejected": list(rejected),
    }
