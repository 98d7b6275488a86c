"""``coffee-companion history``: list the journal's games, export one.

An export is the game's lines as the journal recorded them (each with the facts
that decided it) and the state they rebuild to, through the same ``rebuild`` as
a resume: ``replay --strict`` of an exported script reaches exactly that state.
The journal is opened read-only: history can run beside the live companion.
"""
from __future__ import annotations

import json
import sys
from typing import Optional

from .journal import GameRecord, Journal, JournalError
from .rules.engine import NO_SPECIALTIES
from .rules.view import table_json
from .session import rebuild


def run(db: str, export: Optional[int], fmt: str, catalog=None, out=None, err=None) -> int:
    """``catalog`` (a function giving the card catalog) is called only for a journal of
    schema 1, whose lines do not carry the specialties the catalog gave them (the
    companion migrates such a journal when it opens it for writing)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        with Journal(db, readonly=True) as journal:
            tags = (catalog().specialty_tags if journal.needs_migration and catalog is not None
                    else NO_SPECIALTIES)
            games = journal.games()
            if export is None:
                if not games:
                    out.write("no games yet\n")
                for g in games:
                    out.write(_listing(g, journal, tags))
                return 0
            record = next((g for g in games if g.id == export), None)
            if record is None:
                print(f"error: {db} has no game {export}", file=err)
                return 2
            lines = journal.lines(export)
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    rebuilt = rebuild(lines, tags)
    if rebuilt.failed_at is not None:
        print(f"error: {db}: game {export} {rebuilt.problem}"
              + (f" ({record.problem})" if record.problem else ""), file=err)
        if fmt == "json":
            return 2
    if fmt == "script":
        out.write(f"# coffee-companion game {export}, exported from {db}\n")
        if record.seat_colors:
            out.write(f"# seat colours: {', '.join(record.seat_colors)}\n")
        out.write("\n".join(rebuilt.lines if rebuilt.failed_at is None else lines) + "\n")
        return 0 if rebuilt.failed_at is None else 2
    out.write(json.dumps(table_json(rebuilt.table), ensure_ascii=False) + "\n")
    return 0


def _listing(g: GameRecord, journal: Journal, tags: frozenset) -> str:
    state = "running" if g.ended_at is None else "ended " + g.ended_at
    ranking = g.ranking
    note = ""
    if g.problem:
        note = f"  ({g.problem})"
        if g.ended_at is not None and ranking is None:    # the lines are the truth
            table = rebuild(journal.lines(g.id), tags).table
            if table.game is not None and table.game.game_over:
                ranking = table_json(table)["ranking"]
                note += "; ranking replayed from its lines"
    top = ""
    if ranking:
        top = "  winner: " + ", ".join(r["name"] for r in ranking if r["place"] == 1)
    return (f"{g.id:>4}  {g.started_at}  {g.edition:<8} {g.variant:<8} "
            f"{', '.join(g.players):<30} {g.actions:>4} actions  {state}{top}{note}\n")
