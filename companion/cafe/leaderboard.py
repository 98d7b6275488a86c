"""A month's standings from the finished games the hub received.

Per player name: games, wins (first place, ties included), average score and
points by place: in a game of N players, place P earns N - P + 1 points (the
winner of a 4-player game 4, last place 1; tied players share the better place).
Ordered by points, then wins, then average score, then name.
"""
from __future__ import annotations


def standings(results: list[dict]) -> list[dict]:
    rows: dict[str, dict] = {}
    for game in results:
        ranking = game.get("ranking") or []
        n = len(ranking)
        for r in ranking:
            row = rows.setdefault(r["name"], {"name": r["name"], "games": 0, "wins": 0,
                                              "total": 0, "points": 0})
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
