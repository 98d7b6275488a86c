"""A month's standings from the finished games the hub received.

Per player: games, wins (first place, ties included), average score and points by
place: in a game of N players, place P earns N - P + 1 (the winner of a 4-player game 4,
last place 1; tied players share the better place). Ordered by points, then wins, then
average score, then name.

A player is their name as recorded, except a player called by their seat's colour (the
table's result marks them ``seat_colour``: what "Play with seat colours" names): those
are one anonymous seat, counted as one row per colour whatever language named it ("Red"
one evening, "빨강" the next), and named in the page's language. The stored results keep
the names as recorded.
"""
from __future__ import annotations

from typing import Any

from companion.words.i18n import DEFAULT, colour_name


def _colours(game: dict[str, Any]) -> dict[str, str]:
    """Recorded name -> seat colour, for the game's players called by their seat colour."""
    return {p["name"]: p["seat_colour"] for p in game.get("players") or []
            if isinstance(p, dict) and isinstance(p.get("seat_colour"), str)}


def standings(results: list[dict], lang: str = DEFAULT) -> list[dict]:
    rows: dict[tuple[str, str], dict] = {}
    for game in results:
        ranking = game.get("ranking") or []
        colours = _colours(game)
        n = len(ranking)
        for r in ranking:
            colour = colours.get(r["name"])
            key = ("seat", colour) if colour else ("name", r["name"])
            row = rows.setdefault(key, {
                "name": colour_name(lang, colour) if colour else r["name"],
                "seat_colour": colour, "games": 0, "wins": 0, "total": 0, "points": 0})
            row["games"] += 1
            row["wins"] += r["place"] == 1
            row["total"] += r["score"]
            row["points"] += n - r["place"] + 1
    out = []
    for row in rows.values():
        total = row.pop("total")
        row["average"] = round(total / row["games"], 1)
        out.append(row)
    out.sort(key=lambda r: (-r["points"], -r["wins"], -r["average"], r["name"]))
    for i, row in enumerate(out, 1):
        row["rank"] = i
    return out
