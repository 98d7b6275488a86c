"""Benchmarks of the rules engine, the journal and the replay command (issue 2).

    python benchmarks/bench_core.py

Targets: replaying a 300-action game in-process <= 20 ms; resuming from a
journal holding 200 finished games and one running <= 200 ms; the
`coffee-companion replay` command on a 300-line script, whole process, <= 0.5 s.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.games import finished_game, game_lines  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.rules import Table, apply, parse_line  # noqa: E402
from companion.core.session import Session  # noqa: E402


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def report(name: str, samples: list[float], target: float) -> None:
    med, worst = statistics.median(samples), max(samples)
    ok = "OK" if med <= target else "OVER TARGET"
    print(f"{name:<58} median {med * 1000:8.2f} ms   max {worst * 1000:8.2f} ms   "
          f"target {target * 1000:.0f} ms  {ok}")


def replay_in_process(lines: list[str]) -> Table:
    t = Table()
    for line in lines:
        t = apply(t, parse_line(line)).table
    return t


def build_journal(path: str, finished: int = 200) -> None:
    """200 finished 3-player games, then a running one 100 actions in."""
    games = [finished_game(seed, players=2 + seed % 3) for seed in range(20)]
    with Journal(path, durable=False) as j:
        s = Session(j)
        with j.batch():
            for n in range(finished):
                for line in games[n % len(games)]:
                    s.apply_line(line)
            for line in game_lines(100, seed=99):
                s.apply_line(line)
        listed = j.games()
    assert len(listed) == finished + 1 and listed[-1].ended_at is None


def main() -> None:
    import platform
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.processor() or platform.platform()}, Python {platform.python_version()}")
    lines = game_lines(300)
    report("replay 300-action game in process (engine)",
           timed(lambda: replay_in_process(lines), 50), 0.020)

    with tempfile.TemporaryDirectory() as d:
        def through_session():
            path = os.path.join(d, f"s{time.perf_counter_ns()}.db")
            with Journal(path, durable=False) as j:
                s = Session(j)
                with j.batch():
                    for line in lines:
                        s.apply_line(line)
        report("replay 300 actions through session + scratch journal",
               timed(through_session, 10), 0.050)

        path = os.path.join(d, "big.db")
        build_journal(path)
        with Journal(path, readonly=True) as j:
            games = j.games()
        print(f"journal: {len(games)} games "
              f"({sum(1 for g in games if g.ended_at)} finished), "
              f"{sum(g.actions for g in games)} actions, {os.path.getsize(path) // 1024} KiB")

        def resume():
            with Journal(path) as j:
                Session(j)
        report("resume from journal (200 finished games + 1 running)", timed(resume, 20), 0.200)

        script = os.path.join(d, "game.jsonl")
        with open(script, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        cmd = [sys.executable, "-m", "companion", "replay", script, "--json"]
        env = dict(os.environ, PYTHONPATH=ROOT)

        def process():
            subprocess.run(cmd, check=True, capture_output=True, env=env, cwd=ROOT)
        process()
        report("`coffee-companion replay` 300 lines, whole process", timed(process, 10), 0.5)


if __name__ == "__main__":
    main()
