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
from contextlib import closing
from typing import IO, BinaryIO, NamedTuple

from companion.core.catalog import Catalog
from companion.core.journal import Journal, JournalError
from companion.core.rules import Rejection, Table, parse_line
from companion.core.rules.actions import rules_mark
from companion.core.rules.editions import RULES_VERSIONS
from companion.core.rules.view import table_json
from companion.core.session import Outcome, Session, migrate

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
    said = _explainer(out, explain) if explain else None
    try:
        with fh:
            played = _play(fh, digest, db, strict, err, said,
                           Replay(catalog, migration_catalog, rules))
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    except OSError as exc:
        print(f"cannot read {script}: {exc.strerror or exc}", file=err)
        return 2
    if played is None:
        return 1
    if not explain:
        _print_state(played, as_json, out)
    return 0


class Replay(NamedTuple):
    """How the session a script is played through is made."""
    catalog: Catalog | None
    migration_catalog: Callable[[], Catalog] | None
    rules: str | None


def _play(fh: BinaryIO, digest: str, db: str | None, strict: bool, err,
          said: Said | None, how: Replay) -> tuple[Table, list] | None:
    """Play the script into the --db journal (resumable) or a scratch one (one batch):
    the final table and the rejected lines, or None when --strict stopped."""
    if db is not None:
        folder = os.path.dirname(os.path.abspath(db))
        try:
            os.makedirs(folder, exist_ok=True)        # a new --db in a new folder: made
        except OSError as exc:
            raise JournalError(f"{db}: cannot create the folder {folder} "
                               f"({exc.strerror or exc})") from None
        with closing(Journal(db)) as journal:
            session = _session(journal, how)
            rejected = _apply(session, fh, strict, err, f"replay:{digest}", said)
            return None if rejected is None else (session.table, rejected)
    with tempfile.TemporaryDirectory(prefix="coffee-replay-") as scratch, \
            closing(Journal(os.path.join(scratch, "journal.db"), durable=False)) as journal:
        session = _session(journal, how)
        with journal.batch():
            rejected = _apply(session, fh, strict, err, None, said)
        return None if rejected is None else (session.table, rejected)


def _session(journal: Journal, how: Replay) -> Session:
    """A session on ``journal`` (migrated first when it is of the previous version)."""
    if journal.needs_migration and how.migration_catalog is not None:
        migrate(journal, how.migration_catalog())
    session = Session(journal, how.catalog)
    if how.rules is not None:
        session.rules = how.rules
    return session


def _print_state(played: tuple[Table, list], as_json: bool, out) -> None:
    """The final state: as JSON, or the short summary."""
    state = table_json(*played)
    if as_json:
        out.write(json.dumps(state, ensure_ascii=False) + "\n")
    else:
        out.write(describe(state))


Said = Callable[[int, Table, "str | Rejection", Outcome], None]


def _explainer(out, lang: str) -> Said:
    """What ``--explain`` prints for one line: the cause of each automatic ruling an
    accepted line made (once per sentence), or why a line was refused."""
    from .explain import refusal, rulings
    from .why_text import why_text

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
    place = _resume_place(journal, key)
    if journal is not None and not _say_resuming(place, journal.path, err):
        return place.rejected
    rejected, skip, last = place.rejected, place.line, place.line
    for n, text in read_lines(fh):
        version = rules_mark(text) if isinstance(text, str) else None
        if version is not None:         # also before a resumed replay's place: it still holds
            _follow_rules(session, version, n, n > skip, err)
        if n <= skip:
            continue
        last = n
        if version is not None:
            continue
        progress = (key, {"line": n, "rejected": rejected}) if key else None
        outcome = _apply_line(session, n, text, progress, said)
        if isinstance(outcome, Rejection):
            if strict:
                print(f"line {n}: {outcome.text}", file=err)
                return None
            rejected.append({"line": n, "reason": outcome.text})
    if journal is not None and key:
        journal.set_meta(key, {"line": last, "rejected": rejected, "complete": True})
    return rejected


class _Place(NamedTuple):
    """How far an earlier replay of the same script into the journal got."""
    line: int
    rejected: list
    complete: bool


def _resume_place(journal: Journal | None, key: str | None) -> _Place:
    """Where this replay starts: after what an earlier one kept under ``key``."""
    done = journal.meta(key) if journal is not None and key else None
    if not isinstance(done, dict):
        return _Place(0, [], False)
    return _Place(done["line"], list(done["rejected"]), bool(done.get("complete")))


def _say_resuming(place: _Place, path, err) -> bool:
    """Tell where a replay into a journal starts; False when there is nothing left to play."""
    if place.complete:
        print(f"note: this script was already replayed into {path}; "
              "nothing was applied again", file=err)
        return False
    if place.line:
        print(f"note: continuing an interrupted replay into {path} "
              f"after line {place.line}", file=err)
    return True


def _follow_rules(session: Session, version: str, n: int, new: bool, err) -> None:
    """A ``# table-script`` line: the setups after it follow that version (an unknown
    version is said, for a line not played before, and ignored)."""
    if version in RULES_VERSIONS:
        session.rules = version
    elif new:
        print(f"line {n}: table script {version} is not a version this companion "
              f"knows ({', '.join(RULES_VERSIONS)}); its games follow "
              f"{session.rules}", file=err)


def _apply_line(session: Session, n: int, text: str | Rejection, progress,
                said: Said | None) -> Outcome | None:
    """One script line through the session (None for a blank or comment line), told to
    ``said``."""
    before = session.table
    outcome = text if isinstance(text, Rejection) else session.apply_line(text, progress=progress)
    if said is not None and outcome is not None:
        said(n, before, text, outcome)
    return outcome


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
