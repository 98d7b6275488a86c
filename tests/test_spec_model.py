"""Differential check: the engine's replay against an independent model of the spec.

``tests/spec_model.py`` reads /work/shared/specs/table-script.md (version 1.3, Cake Time
included) a second time, independently of ``companion/core/rules/``; ``tests/spec_scripts.py``
writes random, realistic scripts (legal and illegal lines, every edition and option).
For each script the ``--json`` output of ``companion.review.replay.run`` (in process, through the
real journal) must equal the model's, rejected line numbers included (reasons are not
compared; players sharing a place may be listed in any order).

A disagreement is shrunk to a minimal script and printed, ready to become a
``tests/scripts/`` case once it is decided by the spec who is wrong.

Runs: ``SPEC_MODEL_RUNS`` scripts (default 100, about 2 s of CPU) from ``SPEC_MODEL_SEED``
(default 0). A deeper run: ``SPEC_MODEL_RUNS=20000 .venv/bin/python -m pytest -q
tests/test_spec_model.py`` or ``.venv/bin/python tests/test_spec_model.py 20000``.
"""
from __future__ import annotations

import io
import json
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from companion.review import replay                                   # noqa: E402
from companion.core.catalog import Catalog, CardInfo                # noqa: E402
from companion.core.journal import Journal                          # noqa: E402
from companion.core.rules.view import table_json                    # noqa: E402
from companion.core.session import Session                          # noqa: E402
from spec_model import replay as model_replay                  # noqa: E402
from spec_scripts import SPECIALTY_TAGS, writer                # noqa: E402

RUNS = int(os.environ.get("SPEC_MODEL_RUNS", "100"))
SEED = int(os.environ.get("SPEC_MODEL_SEED", "0"))
CATALOG = Catalog([CardInfo(tag, f"test card {tag}", ("coffee", "milk"), True, "original")
                   for tag in sorted(SPECIALTY_TAGS)])


def run_replay(lines: list[str], folder: str, db: str = None, strict: bool = False):
    """(exit status, standard output, standard error) of the replay, in process."""
    path = os.path.join(folder, "script.jsonl")
    with open(path, "wb") as fh:          # lone surrogates stand for bytes not UTF-8
        fh.write(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    out, err = io.StringIO(), io.StringIO()
    status = replay.run(path, True, strict, db, CATALOG, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def engine_replay(lines: list[str], folder: str, db: str = None) -> dict:
    status, out, err = run_replay(lines, folder, db)
    assert status == 0, err
    return json.loads(out)


def journal_alone(lines: list[str], folder: str) -> dict:
    """The script replayed into a journal with the catalog, then the journal reopened
    WITHOUT it: spec "The journal keeps every accepted line with the specialty flag that
    decided it ... a journal replays to the same state without the catalog"."""
    db = os.path.join(folder, "journal.db")
    for leftover in (db, db + "-wal", db + "-shm"):
        if os.path.exists(leftover):
            os.unlink(leftover)
    engine_replay(lines, folder, db)
    with Journal(db) as journal:
        return table_json(Session(journal, Catalog()).table)


def comparable(state: dict) -> dict:
    """The output with what the spec leaves open taken out: reason wording, and the
    order of players who share a place."""
    state = dict(state)
    state["rejected"] = [r["line"] for r in state["rejected"]]
    state["ranking"] = sorted(state["ranking"], key=lambda r: (r["place"], r["name"]))
    state["winners"] = sorted(state["winners"])
    return state


def differences(a, b, path="") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: {a.get(k, 'missing')!r} (engine) vs "
                           f"{b.get(k, 'missing')!r} (model)")
            else:
                out += differences(a[k], b[k], f"{path}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} (engine) vs {b!r} (model)"]


def disagreement(lines: list[str], folder: str, model: dict = None) -> list[str]:
    """What differs between the engine's output and the model's (``model``, when the
    script's writer already knows it)."""
    engine = comparable(engine_replay(lines, folder))
    if model is None:
        model = model_replay(lines, SPECIALTY_TAGS)
    return differences(engine, comparable(model))


def strict_disagreement(lines: list[str], folder: str, model: dict = None) -> list[str]:
    """``--strict``: exit status 1 and ``line N: reason`` at the model's first rejected
    line; 0 and the model's output when it rejects none."""
    if model is None:
        model = model_replay(lines, SPECIALTY_TAGS)
    status, out, err = run_replay(lines, folder, strict=True)
    if model["rejected"]:
        first = model["rejected"][0]["line"]
        ok = status == 1 and err.startswith(f"line {first}: ") and err.count("\n") == 1
        return [] if ok else [f"--strict: status {status}, stderr {err!r} (engine) vs "
                              f"status 1 at line {first} (model)"]
    if status != 0:
        return [f"--strict: status {status}, stderr {err!r} (engine) vs 0 (model)"]
    return differences(comparable(json.loads(out)), comparable(model))


def journal_disagreement(lines: list[str], folder: str, model: dict = None) -> list[str]:
    """What differs between the reopened journal's game and the model's."""
    if model is None:
        model = model_replay(lines, SPECIALTY_TAGS)
    return differences(comparable(journal_alone(lines, folder)),
                       comparable(dict(model, rejected=[])))


def shrink(lines: list[str], folder: str, differ=disagreement) -> list[str]:
    """A smallest script (by removing lines) on which engine and model still disagree."""
    chunk = max(1, len(lines) // 2)
    while chunk >= 1:
        i = 0
        while i < len(lines):
            trial = lines[:i] + lines[i + chunk:]
            if trial and differ(trial, folder):
                lines = trial
            else:
                i += chunk
        chunk //= 2
    return lines


def check(seeds, folder: str, journal_every: int = 10) -> None:
    for seed in seeds:
        w = writer(random.Random(seed))
        runs = [(disagreement, "the replay", w.lines, w.model.output(w.rejected))]
        # the last state of every finished game a new setup replaced (the output shows
        # only the last game): its ranking and scores
        runs += [(disagreement, "the replay", w.lines[:n], state) for n, state in w.finished]
        if seed % journal_every == 0:
            runs += [(differ, what, w.lines, runs[0][3]) for differ, what in
                     ((strict_disagreement, "the --strict replay"),
                      (journal_disagreement, "the reopened journal"))]
        for differ, what, lines, expected in runs:
            if differ(lines, folder, expected):
                small = shrink(lines, folder, differ)
                raise AssertionError(
                    f"seed {seed}: {what} and the model disagree on\n" + "\n".join(small) +
                    "\n--\n" + "\n".join(differ(small, folder)))


def scratch_dir():
    """Scripts and the replay's temporary journals go to memory when the machine has a
    tmpfs (/dev/shm): the journal's set-up syncs dominate the run time on a busy disk."""
    shm = "/dev/shm"
    return tempfile.TemporaryDirectory(dir=shm if os.access(shm, os.W_OK) else None)


def test_engine_replay_equals_the_spec_model(monkeypatch):
    with scratch_dir() as folder:
        monkeypatch.setattr(tempfile, "tempdir", folder)
        check(range(SEED, SEED + RUNS), folder)


if __name__ == "__main__":
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with scratch_dir() as folder:
        tempfile.tempdir = folder
        check(range(SEED, SEED + runs), folder)
    print(f"{runs} scripts from seed {SEED}: engine and model agree")
