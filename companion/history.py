"""``coffee-companion history``: list the journal's games, export one."""
from __future__ import annotations

import json
import sys

from .journal import Journal, JournalError
from .rules import Table, apply, parse_line
from .rules.view import table_json


def run(db: str, export: int | None, fmt: str, out=sys.stdout, err=sys.stderr) -> int:
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
            lines = journal.lines(export)
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    if fmt == "script":
        out.write(f"# coffee-companion game {export}, exported from {db}\n")
        out.write("\n".join(lines) + "\n")
    else:
        table = Table()
        for line in lines:
            table = apply(table, parse_line(line)).table
        out.write(json.dumps(table_json(table), ensure_ascii=False) + "\n")
    return 0
