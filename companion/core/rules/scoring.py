"""Scores and the final ranking (spec "Game over"; Winter rulebook, Scoring;
Spanish rulebook, Fin de la partida)."""
from __future__ import annotations

from itertools import pairwise

from .editions import EDITIONS
from .happenings import RankEntry
from .state import GameReads, PlayerReads


def score(edition: str, player: PlayerReads) -> int:
    e = EDITIONS[edition]
    return (player.likes * e.like_points + len(player.upgrades) * e.upgrade_points
            + player.dislikes * e.dislike_points)


def breakdown(game: GameReads, player: PlayerReads) -> list[tuple[str, int, int, int]]:
    """How ``score`` adds up: (part, count, weight, points) for likes, upgrades (none in
    the Junior variant) and dislikes, as the end screen and the demo show it."""
    e = EDITIONS[game.edition]
    parts = [("likes", player.likes, e.like_points)]
    if game.variant != "junior":
        parts.append(("upgrades", len(player.upgrades), e.upgrade_points))
    parts.append(("dislikes", player.dislikes, e.dislike_points))
    return [(name, n, w, n * w) for name, n, w in parts]


def ranking(game: GameReads) -> tuple[RankEntry, ...]:
    """Every player best first; ties by likes, then tokens; still tied share the place."""
    keyed = [((score(game.edition, p), p.likes, p.cookies), p) for p in game.players]
    ordered = sorted(keyed, key=lambda kp: kp[0], reverse=True)  # stable: seat order kept
    out = []
    for key, p in ordered:
        place = 1 + sum(1 for other, _ in keyed if other > key)
        out.append(RankEntry(p.name, key[0], p.likes, p.cookies, place))
    return tuple(out)


def winners(ranked: tuple[RankEntry, ...]) -> tuple[str, ...]:
    return tuple(r.name for r in ranked if r.place == 1)


def tie_break(ranked: tuple[RankEntry, ...]) -> list[tuple[str, str, str]]:
    """Why neighbours with equal scores are ordered: (better, worse, "likes"/"cookies"/"shared")."""
    out = []
    for a, b in pairwise(ranked):
        if a.score != b.score:
            continue
        if a.likes != b.likes:
            out.append((a.name, b.name, "likes"))
        elif a.cookies != b.cookies:
            out.append((a.name, b.name, "cookies"))
        else:
            out.append((a.name, b.name, "shared"))
    return out
