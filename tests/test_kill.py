"""Kill test: a process applying a script (with the example card catalog, so
specialties come from it) is SIGKILLed at random points; the reopened journal holds
every action it acknowledged, each with the specialty that decided it, and resumes
without any catalog to the state the process had shown."""
import json
import os
import random
import signal
import subprocess
import sys

from companion.core.catalog import Catalog
from companion.core.journal import Journal
from companion.core.rules import Rejection, Table, apply, parse_line, to_line
from companion.core.session import Session
from timing import scaled

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import sys
from companion.core.catalog import Catalog
from companion.core.journal import Journal
from companion.core.session import Session
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
with Journal(sys.argv[1]) as j:
    s = Session(j, Catalog.example())
    for n, line in enumerate(lines):
        out = s.apply_line(line)
        # acknowledged = durable: the commit has returned
        sys.stdout.write(f"ack {n}\n")
        sys.stdout.flush()
"""


def game_lines(rng, count=240):
    lines = []
    while len(lines) < count:
        lines.append(json.dumps({"do": "setup", "edition": rng.choice(["original", "winter"]),
                                 "players": ["Ana", "Ben", "Chloe"][:rng.randint(2, 3)]}))
        lines.append(json.dumps({"do": "correct", "deck": rng.randint(3, 12)}))
        for _ in range(40):
            for _ in range(rng.randint(0, 2)):
                scan = f'{{"do": "scan", "tag": "EXO{rng.randint(1, 12):03d}"}}'
                lines.append(rng.choice(['{"do": "complete"}', scan]))
            lines.append('{"do": "end_turn"}')
            if rng.random() < 0.1:
                lines.append('{"do": "undo"}')
    return lines


def replay(lines, tags=frozenset()):
    t = Table()
    for line in lines:
        out = apply(t, parse_line(line), tags)
        assert not isinstance(out, Rejection), line
        t = out.table
    return t


def test_sigkill_at_random_points_loses_no_acknowledged_action(tmp_path):
    rng = random.Random(20261121)
    lines = game_lines(rng)
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=ROOT)
    specialties = 0
    for attempt in range(6):
        db = str(tmp_path / f"kill{attempt}.db")
        child = subprocess.Popen([sys.executable, "-c", CHILD, db, str(script)],
                                 stdout=subprocess.PIPE, env=env, text=True)
        target = rng.randint(0, len(lines) - 1)
        acked = -1
        while acked < target:
            line = child.stdout.readline()
            if not line:
                break
            acked = int(line.split()[1])
        for _ in range(rng.randint(0, 2000)):   # land the kill at varying moments
            pass
        child.send_signal(signal.SIGKILL)
        child.wait(scaled(10))
        # read what the child managed to print before it died
        rest = child.stdout.read()
        acked = max([acked] + [int(x.split()[1]) for x in rest.splitlines() if x.startswith("ack")])
        child.stdout.close()

        with Journal(db) as j:
            games = j.games()
            stored = [line for g in games for line in j.lines(g.id)]
            resumed = Session(j).table
        # every acknowledged line that the rules accepted is in the journal, in order,
        # as recorded: with the specialty the catalog gave it
        tags = Catalog.example().specialty_tags
        canon = []
        t = Table()
        for line in lines[:acked + 1]:
            out = apply(t, parse_line(line), tags)
            if not isinstance(out, Rejection):
                canon.append(to_line(out.action))
                t = out.table
        assert stored[:len(canon)] == canon
        specialties += sum('"specialty": true' in x for x in stored)
        assert len(stored) <= len(canon) + 1        # at most the one being acknowledged
        # the resumed state equals a replay of the last game's stored lines
        last = j_lines_last_game(db)
        assert resumed.game == replay(last).game
        if len(stored) == len(canon):               # no catalog: what the child showed
            assert resumed.game == t.game
    assert specialties                          # the catalog decided some completions


def j_lines_last_game(db):
    with Journal(db, readonly=True) as j:
        return j.latest_game()[1]
