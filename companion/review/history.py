"""``coffee-companion history``: list the journal's games, export one (``exports``).

An export is the game's lines as the journal recorded them (each with the facts
that decided it) and the state they rebuild to, through the same ``rebuild`` as
a resume: ``replay --strict`` of an exported script reaches exactly that state.
The journal is opened read-only: history can run beside the live companion.
"""
from __future__ import annotations

import sys

from . import exports
from companion.core.journal import GameRecord, Journal, JournalError
from companion.core.rules.editions import RULES
from companion.core.rules.engine import NO_SPECIALTIES
from companion.core.rules.view import table_json
from companion.core.session import rebuild


def run(db: str, export: int | None, fmt: str, out=None, err=None,
        location: str = "", catalog=None) -> int:
    """``catalog`` (a function giving the card catalog) is called only for a journal of
    schema 1, whose lines do not carry the specialties the catalog gave them (the
    companion migrates such a journal when it opens it for writing)."""
    out, err = out or sys.stdout, err or sys.stderr     # the streams of the moment of the call
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
            if export not in {g.id for g in games}:
                print(f"error: {db} has no game {export}", file=err)
                return 2
            text = exports.render(journal, export, fmt, source=db, location=location,
                                  specialty_tags=tags)
    except exports.ExportError as exc:
        print(f"error: {exc}", file=err)
        return 2
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    out.write(text)
    return 0


def write_summary(db: str, export: int | None, path: str, lang: str, out=None,
                  err=None) -> int:
    """``history --export GAME --summary PATH``: the finished game's one-page summary,
    PDF or PNG by the file's ending (``companion.review.summary``)."""
    from . import summary
    out, err = out or sys.stdout, err or sys.stderr
    fmt = summary.format_of(path)
    if export is None:
        print("error: --summary needs the game to summarize: --export GAME "
              "(`coffee-companion history` lists the games)", file=err)
        return 2
    if fmt is None:
        print(f"error: {path}: a summary is a .pdf or a .png file", file=err)
        return 2
    try:
        with Journal(db, readonly=True) as journal:
            if export not in {g.id for g in journal.games()}:
                print(f"error: {db} has no game {export}", file=err)
                return 2
            data = summary.render(journal, export, fmt, lang)
    except (exports.ExportError, JournalError) as exc:
        print(f"error: {exc}", file=err)
        return 2
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        print(f"error: cannot write {path}: {exc.strerror or exc}", file=err)
        return 2
    out.write(f"game {export}: summary written to {path}\n")
    return 0


def _listing(g: GameRecord, journal: Journal, tags: frozenset) -> str:
    state = "running" if g.ended_at is None else "ended " + g.ended_at
    if g.ended_at is not None and g.ranking is None and journal.ended_early(g.id):
        state += " early (ended at the table, no result)"
    ranking = g.ranking
    note = "" if g.rules == RULES else f"  (table script {g.rules})"
    if g.problem:
        note = f"  ({g.problem})"
        if g.ended_at is not None and ranking is None:    # the lines are the truth
            table = rebuild(journal.lines(g.id), tags, g.rules).table
            if table.game is not None and table.game.game_over:
                ranking = table_json(table)["ranking"]
                note += "; ranking replayed from its lines"
    top = ""
    if ranking:
        top = "  winner: " + ", ".join(r["name"] for r in ranking if r["place"] == 1)
    box = g.edition + (f"+{g.expansion}" if g.expansion else "")
    return (f"{g.id:>4}  {g.started_at}  {box:<8} {g.variant:<8} "
            f"{', '.join(g.players):<30} {g.actions:>4} actions  {state}{top}{note}\n")
