""""Why?": what the touchscreen pays at each update to know which numbers have a cause to
show (``explain.shown``, no replay), against working every sentence out at once
(``explain.explanations``, what the phone view does once per update on its own thread).

    python benchmarks/bench_explain.py [--actions 300]

Prints microseconds per call for the table after each line of a realistic game (the one
``benchmarks/games.py`` plays), median and worst.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.games import game_lines  # noqa: E402
from companion.core.draw_prompt import pending_draws  # noqa: E402
from companion.review.explain import explanations, shown  # noqa: E402
from companion.core.rules import Accepted, Table, apply, parse_line  # noqa: E402


def tables(actions: int) -> list[Table]:
    out, table = [], Table()
    for line in game_lines(actions):
        action = parse_line(line)
        if not isinstance(action, dict):
            continue
        outcome = apply(table, action)
        if isinstance(outcome, Accepted):
            table = outcome.table
            out.append(table)
    return out


def per_call(fn, items) -> list[float]:
    times = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        times.append((time.perf_counter() - t0) * 1e6)
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--actions", type=int, default=300)
    args = ap.parse_args()
    played = tables(args.actions)
    with_pending = []
    for t in played:
        due = pending_draws(t)
        counts: dict[str, int] = {}
        for p, n in (due.draws if due is not None else ()):
            counts[p] = counts.get(p, 0) + n
        with_pending.append((t, counts))
    for t, counts in with_pending[:20]:          # warm up (first calls import and cache)
        explanations(t, counts)
    rows = [("shown (every update, screen)", per_call(lambda tc: shown(*tc), with_pending)),
            ("explanations (on touch; phone view)",
             per_call(lambda tc: explanations(*tc), with_pending))]
    print(f"{len(played)} tables of a {args.actions}-line game")
    for name, times in rows:
        print(f"{name:38s} median {statistics.median(times):8.1f} us   "
              f"worst {max(times):8.1f} us")


if __name__ == "__main__":
    main()
