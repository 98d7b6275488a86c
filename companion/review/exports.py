"""One game of the journal exported: as a table script, the final table as JSON
(``replay --json``), a CSV of the players, or the BG Stats link.

The one place the history command and the phone view read a game: ``render``
takes an open journal (the phone view's is read-only) and a game number.
"""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from . import bgstats
from companion.core.journal import GameRecord, Journal
from companion.core.rules.editions import RULES, RULES_VERSIONS
from companion.core.rules.engine import NO_SPECIALTIES
from companion.core.rules.state import Table
from companion.core.rules.view import table_json
from companion.core.session import Rebuilt, rebuild
from companion.core.seat_colours import screen_rgb as seat_rgb
from .play_link import PlayLink  # noqa: F401 - its home is play_link (a light import)

FORMATS = ("script", "json", "csv", "bgstats")
MEDIA = {"script": ("text/plain", "jsonl"), "json": ("application/json", "json"),
         "csv": ("text/csv", "csv"), "bgstats": ("text/plain", "txt")}
CSV_COLUMNS = ["game", "started_utc", "ended_utc", "edition", "variant", "seat", "player",
               "start_player", "score", "likes", "dislikes", "tokens", "upgrades", "place",
               "winner"]


class ExportError(ValueError):
    """The game cannot be exported in this format (the message says why)."""


def final_state(lines: list[str], specialty_tags: frozenset[str] = NO_SPECIALTIES,
                rules: str = RULES) -> dict[str, Any]:
    """The game's final table, as ``replay --json`` prints it (``session.rebuild``, the
    one replay of a journal's lines, under the version ``rules`` it was recorded under)."""
    return table_json(_replayed(rebuild(lines, specialty_tags, rules)))


def _replayed(rebuilt: Rebuilt) -> Table:
    if rebuilt.failed_at is not None:
        raise ExportError(f"the game's {rebuilt.problem}")
    return rebuilt.table


def record(journal: Journal, game_id: int) -> GameRecord:
    for g in journal.games():
        if g.id == game_id:
            return g
    raise ExportError(f"{journal.path} has no game {game_id}")


def play_link(journal: Journal, game: GameRecord, state: dict[str, Any], location: str = "",
              device: str | None = None) -> str:
    """The BG Stats link of a finished game (``bgstats.NotFinished`` if it runs)."""
    return link_of(game, journal.lines(game.id)[0], state, location, device)


def link_of(game: GameRecord, setup_line: str, state: dict[str, Any], location: str = "",
            device: str | None = None) -> str:
    """``play_link`` from the game's setup line (a worker's: no journal at hand)."""
    colours = seat_rgb(game.seat_colors) if game.seat_colors else None
    setup = json.loads(setup_line)
    return bgstats.link(bgstats.play(game.id, game.started_at, game.ended_at, state,
                                     device=device or bgstats.device_id(), colours=colours,
                                     location=location, setup=setup))


def render(journal: Journal, game_id: int, fmt: str, source: str = "",
           location: str = "", specialty_tags: frozenset[str] = NO_SPECIALTIES) -> str:
    """``specialty_tags``: the catalog's, only for a journal of schema 1 (its lines do not
    carry the specialties it gave)."""
    game = record(journal, game_id)
    lines = journal.lines(game_id)
    rebuilt = rebuild(lines, specialty_tags, game.rules)
    if fmt == "script":
        head = [f"# coffee-companion game {game_id}, exported from {source or journal.path}"]
        if game.rules in RULES_VERSIONS:    # replays under the rules it was recorded under
            head.append(f"# table-script {game.rules}")
        if game.seat_colors:
            head.append(f"# seat colours: {', '.join(game.seat_colors)}")
        if rebuilt.failed_at is not None:      # kept as recorded (a migrated game)
            head.append(f"# {game.problem or rebuilt.problem}: this script does not replay "
                        "under table script 1.1")
            return "\n".join(head + lines) + "\n"
        return "\n".join(head + rebuilt.lines) + "\n"
    state = table_json(_replayed(rebuilt))
    if fmt == "json":
        return json.dumps(state, ensure_ascii=False) + "\n"
    if fmt == "csv":
        return players_csv(game, state)
    if fmt == "bgstats":
        try:
            return play_link(journal, game, state, location) + "\n"
        except bgstats.NotFinished as exc:
            raise ExportError(str(exc)) from None
    raise ExportError(f"{fmt} is not an export format ({', '.join(FORMATS)})")


def players_csv(game: GameRecord, state: dict[str, Any]) -> str:
    """One row per player, seat order (spreadsheet friendly, UTF-8)."""
    places = {r["name"]: r["place"] for r in state["ranking"]}
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for seat, p in enumerate(state["players"], 1):
        w.writerow([game.id, game.started_at, game.ended_at or "", state["edition"],
                    state["variant"], seat, p["name"], p["name"] == state["start"],
                    p["score"], p["likes"], p["dislikes"], p["cookies"],
                    " ".join(p["upgrades"]), places.get(p["name"], ""),
                    p["name"] in state["winners"]])
    return buf.getvalue()
