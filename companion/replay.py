"""``coffee-companion replay SCRIPT [--json] [--strict] [--db PATH]``.

Reads a table script (spec: ../shared/specs/table-script.md) line by line
through the same session (engine + journal) as the live service. Kept free of
pygame and hardware imports so it starts fast.

The script is read line by line, never whole: a line longer than ``MAX_LINE``
bytes is rejected without being kept in memory. With ``--db`` every accepted
line is stored with how far the script got (keyed by the script's SHA-256, in
the same transaction), so running the same command again after an interruption
continues where it stopped instead of playing the script a second time.

Games are played under the current table-script version (``rules.editions.RULES``); a
comment line ``# table-script 1.1`` (what ``history --export`` writes for a game recorded
under 1.1) or ``--rules 1.1`` makes the setups after it follow that version, so a game
recorded then replays to what its table showed.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, BinaryIO

from .journal import Journal, JournalError
from .rules import Rejection, Table, parse_line
from .rules.actions import rules_mark
from .rules.editions import RULES_VERSIONS
from .rules.view import table_json
from .session import Outcome, Session, migrate

MAX_LINE = 64 * 1024        # bytes; a table-script line is a few hundred at most
_CHUNK = 1 << 16


def read_lines(stream: BinaryIO, limit: int = MAX_LINE
               ) -> Iterator[tuple[int, str | Rejection]]:
    """Yield (line number, text), or (number, Rejection) for a line that is not UTF-8 or is
    longer than ``limit`` bytes; numbers count physical lines, from 1."""
    n = 0
    while True:
        raw = stream.readline(limit + 1)
        if not raw:
            return
        n += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):       # skip the rest, a chunk at a time
                raw = stream.readline(_CHUNK)
            yield n, Rejection("line_too_long", {"limit": limit})
            continue
        if n == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte-order mark is not text
            raw = raw[3:]
        try:
            yield n, raw.rstrip(b"\n").decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            yield n, Rejection("bad_text", {})


def _open_script(script: str, stdin: BinaryIO | None):
    """The script as a seekable binary file and its SHA-256 (standard input is spooled)."""
    if script == "-":
        source = stdin if stdin is not None else sys.stdin.buffer
        # returned open, like the file below: the caller closes it
        fh: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=4 << 20)  # noqa: SIM115
        shutil.copyfileobj(source, fh, _CHUNK)
    else:
        fh = open(script, "rb")  # noqa: SIM115
    digest = hashlib.sha256()
    fh.seek(0)
    for chunk in iter(lambda: fh.read(_CHUNK), b""):
        digest.update(chunk)
    fh.seek(0)
    return fh, digest.hexdigest()


def run(script: str, as_json: bool, strict: bool, db: str | None, catalog=None,
        out=None, err=None, stdin: BinaryIO | None = None, migration_catalog=None,
        rules: str | None = None, explain: str | None = None) -> int:
    """``migration_catalog``: a function giving the catalog to migrate a --db journal of
    the previous version with (default: ``catalog``). ``rules``: the table-script version
    the script's games follow (default the current one; a ``# table-script`` line wins).
    ``explain``: a language: print, instead of the final state, the cause of every
    automatic ruling of each accepted line and the reason of each refused line."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if rules is not None and rules not in RULES_VERSIONS:
        print(f"table script {rules} is not a version this companion knows "
              f"({', '.join(RULES_VERSIONS)})", file=err)
        return 2
    try:
        fh, digest = _open_script(script, stdin)
    except OSError as exc:
        print(f"cannot read {script}: {exc.strerror or exc}", file=err)
        return 2
    scratch = None
    try:
        with fh:
            if db is None:
                scratch = tempfile.TemporaryDirectory(prefix="coffee-replay-")
                journal = Journal(os.path.join(scratch.name, "journal.db"), durable=False)
            else:
                journal = Journal(db)
            try:
                if journal.needs_migration and migration_catalog is not None:
                    migrate(journal, migration_catalog())
                session = Session(journal, catalog)
                if rules is not None:
                    session.rules = rules
                said = _explainer(out, explain) if explain else None
                if scratch is not None:
                    with journal.batch():
                        rejected = _apply(session, fh, strict, err, None, said)
                else:
                    rejected = _apply(session, fh, strict, err, f"replay:{digest}", said)
            finally:
                journal.close()
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    except OSError as exc:
        print(f"cannot read {script}: {exc.strerror or exc}", file=err)
        return 2
    finally:
        if scratch is not None:
            scratch.cleanup()
    if rejected is None:
        return 1
    if explain:
        return 0
    state = table_json(session.table, rejected)
    if as_json:
        out.write(json.dumps(state, ensure_ascii=False) + "\n")
    else:
        out.write(describe(state))
    return 0


Said = Callable[[int, Table, "str | Rejection", Outcome], None]


def _explainer(out, lang: str) -> Said:
    """What ``--explain`` prints for one line: the cause of each automatic ruling an
    accepted line made (once per sentence), or why a line was refused."""
    from .explain import refusal, rulings
    from .ui.why_text import why_text

    def said(n: int, before: Table, text: str | Rejection, outcome: Outcome) -> None:
        if isinstance(outcome, Rejection):
            action = parse_line(text) if isinstance(text, str) else None
            why = refusal(outcome, action if isinstance(action, dict) else None)
            out.write(f"line {n}: {why_text(lang, why)}\n")
            return
        seen: list[str] = []
        for why in rulings(before.game, outcome.action, outcome.happened, outcome.table.game):
            sentence = why_text(lang, why)
            if sentence not in seen:
                seen.append(sentence)
                out.write(f"line {n}: {sentence}\n")
    return said


def _apply(session: Session, fh: BinaryIO, strict: bool, err, key: str | None,
           said: Said | None = None):
    """Apply the script's lines; the rejected ones, or None when --strict stopped.

    ``key``: where a replay into a journal keeps its place (None: nothing to resume).
    ``said``: told each applied line (number, table before, text, outcome)."""
    journal = session.journal if key else None
    done = journal.meta(key) if journal is not None and key else None
    skip = done["line"] if isinstance(done, dict) else 0
    rejected = list(done["rejected"]) if isinstance(done, dict) else []
    if journal is not None and isinstance(done, dict) and done.get("complete"):
        print(f"note: this script was already replayed into {journal.path}; "
              "nothing was applied again", file=err)
        return rejected
    if journal is not None and skip:
        print(f"note: continuing an interrupted replay into {journal.path} "
              f"after line {skip}", file=err)
    last = skip
    outcome: Outcome | None
    for n, text in read_lines(fh):
        version = rules_mark(text) if isinstance(text, str) else None
        if version is not None:         # also before a resumed replay's place: it still holds
            if version in RULES_VERSIONS:
                session.rules = version
            elif n > skip:
                print(f"line {n}: table script {version} is not a version this companion "
                      f"knows ({', '.join(RULES_VERSIONS)}); its games follow "
                      f"{session.rules}", file=err)
        if n <= skip:
            continue
        last = n
        if version is not None:
            continue
        before = session.table
        if isinstance(text, Rejection):
            outcome = text
        else:
            progress = (key, {"line": n, "rejected": rejected}) if key else None
            outcome = session.apply_line(text, progress=progress)
        if said is not None and outcome is not None:
            said(n, before, text, outcome)
        if isinstance(outcome, Rejection):
            if strict:
                print(f"line {n}: {outcome.text}", file=err)
                return None
            rejected.append({"line": n, "reason": outcome.text})
    if journal is not None and key:
        journal.set_meta(key, {"line": last, "rejected": rejected, "complete": True})
    return rejected


def describe(state: dict) -> str:
    """A short human summary of the state (replay without --json)."""
    lines = []
    if state["edition"] is None:
        lines.append("No game was set up.")
    else:
        edition = state["edition"] + (f" + {state['expansion']}" if state.get("expansion") else "")
        head = f"{edition} ({state['variant']}), turn {state['turn']}, " \
               f"deck {state['deck']}, shop {state['token'].upper()}"
        lines.append(head + (", game over" if state["game_over"] else
                             f", {state['active']} to play"))
        for p in state["players"]:
            q = " | ".join(",".join(t or "?" for t in pos) or "-" for pos in p["queue"])
            cakes = f"  cake cards {p['cake_cards']}" if "cake_cards" in p else ""
            lines.append(f"  {p['name']:<12} score {p['score']:>3}  likes {p['likes']}  "
                         f"dislikes {p['dislikes']}  tokens {p['cookies']}  "
                         f"upgrades {len(p['upgrades'])}{cakes}  queue [{q}]")
        for r in state["ranking"]:
            lines.append(f"  #{r['place']} {r['name']} ({r['score']})")
    for r in state["rejected"]:
        lines.append(f"line {r['line']}: {r['reason']}")
    return "\n".join(lines) + "\n"
