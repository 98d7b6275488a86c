"""``coffee-companion history``: list the journal's games, export one (``exports``)."""
from __future__ import annotations

import sys

from . import exports
from .journal import Journal, JournalError


def run(db: str, export: int | None, fmt: str, out=None, err=None,
        location: str = "") -> int:
    out, err = out or sys.stdout, err or sys.stderr     # the streams of the moment of the call
    try:
        with Journal(db, readonly=True) as journal:
            games = journal.games()
            if export is None:
                if not games:
                    out.write("no games yet\n")
                for g in games:
                    state = "running" if g.ended_at is None else "ended " + g.ended_at
                    top = ""
                    if g.ranking:
                        top = "  winner: " + ", ".join(r["name"] for r in g.ranking
                                                       if r["place"] == 1)
                    out.write(f"{g.id:>4}  {g.started_at}  {g.edition:<8} {g.variant:<8} "
                              f"{', '.join(g.players):<30} {g.actions:>4} actions  "
                              f"{state}{top}\n")
                return 0
            if export not in {g.id for g in games}:
                print(f"error: {db} has no game {export}", file=err)
                return 2
            text = exports.render(journal, export, fmt, source=db, location=location)
    except exports.ExportError as exc:
        print(f"error: {exc}", file=err)
        return 2
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    out.write(text)
    return 0
