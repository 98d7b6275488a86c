"""``coffee-companion replay SCRIPT [--json] [--strict] [--db PATH]``.

Reads a table script (spec: ../shared/specs/table-script.md) line by line
through the same session (engine + journal) as the live service. Kept free of
pygame and hardware imports so it starts fast.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import BinaryIO, Optional

from .journal import Journal, JournalError
from .rules import Rejection
from .rules.view import table_json
from .session import Session


def read_lines(stream: BinaryIO):
    """Yield (line number, text or None if not UTF-8); numbers count physical lines."""
    data = stream.read()
    if data.startswith(b"\xef\xbb\xbf"):       # a UTF-8 byte-order mark is not part of line 1
        data = data[3:]
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            yield n, raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            yield n, None


def run(script: str, as_json: bool, strict: bool, db: Optional[str], catalog=None,
        out=sys.stdout, err=sys.stderr) -> int:
    try:
        if script == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(script, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        print(f"cannot read {script}: {exc.strerror or exc}", file=err)
        return 2
    scratch = None
    try:
        if db is None:
            scratch = tempfile.TemporaryDirectory(prefix="coffee-replay-")
            journal = Journal(os.path.join(scratch.name, "journal.db"), durable=False)
        else:
            journal = Journal(db)
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    rejected = []
    try:
        session = Session(journal, catalog)
        import io
        with (journal.batch() if scratch is not None else _nothing()):
            for n, text in read_lines(io.BytesIO(data)):
                if text is None:
                    outcome = Rejection("bad_text", {})
                else:
                    outcome = session.apply_line(text)
                if isinstance(outcome, Rejection):
                    if strict:
                        print(f"line {n}: {outcome.text}", file=err)
                        return 1
                    rejected.append({"line": n, "reason": outcome.text})
    except JournalError as exc:
        print(f"error: {exc}", file=err)
        return 2
    finally:
        journal.close()
        if scratch is not None:
            scratch.cleanup()
    state = table_json(session.table, rejected)
    if as_json:
        out.write(json.dumps(state, ensure_ascii=False) + "\n")
    else:
        out.write(describe(state))
    return 0


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


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
