"""Benchmarks of the spoken announcements (issue 13).

    python benchmarks/bench_voice.py [--repeat 3]

1. What the table loop pays: ``Voice.__call__`` (choose the sentences, queue
   them) per update, over a whole scripted game. Target: well under 1 ms; the
   rendering happens on the voice's own thread.
2. Rendering one sentence with espeak-ng into a WAV, per language (the turn,
   a surge, a dislike, the shop closing, the winner): median and worst wall
   time. This is the delay between a moment and its first word; it never
   holds up the table.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from companion.appliance import demo  # noqa: E402
from companion.appliance.config import LANGUAGES  # noqa: E402
from companion.core.rules.happenings import (CardsToDraw, DislikesTaken, GameOver,  # noqa: E402
                                             RankEntry, ShopClosed, TurnChanged)
from companion.core.rules.state import Table  # noqa: E402
from companion.core.loop import Update  # noqa: E402
from companion.outputs.voice import Voice, phrases_for, render  # noqa: E402


def sample_updates() -> list:
    table = Table()
    rank = (RankEntry("Ana", 9, 5, 1, 1), RankEntry("Ben", 4, 3, 0, 2))
    return [Update(None, table, {}, (h,)) for h in (
        TurnChanged("Ben", "Ana", 2), CardsToDraw((("Chloe", 2), ("Dae", 1)), "order_surge"),
        DislikesTaken("Ben", 2, 3), ShopClosed("deck_empty"), GameOver(rank, ("Ana",)))]


def bench_loop_cost() -> None:
    """A bots' game (as ``coffee-companion demo`` plays it) with the voice subscribed."""
    import random

    from companion.core import events as ev
    from companion.core.catalog import Catalog
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    voice = Voice(lambda wav: None)          # not started: nothing is rendered
    for u in sample_updates():               # the language's catalog is read once, at start
        phrases_for(u, voice.language)
    times = []

    def timed(u):
        t0 = time.perf_counter()
        voice(u)
        times.append(time.perf_counter() - t0)
    loop = TableLoop(Session(None, Catalog.example()))
    loop.subscribe(timed)
    rng = random.Random(3)
    loop.post(ev.TouchAction(demo._setup("original", demo.NAMES, "standard", rng)))
    loop.drain()
    bots = demo.Bots(loop, rng, [])
    while not loop.table.game.game_over and loop.table.game.turn < 300:
        bots.play_turn()
        loop.drain()
    ms = sorted(x * 1000 for x in times)
    print(f"1. Voice on the table loop, {len(ms)} updates of a 4-player game: "
          f"mean {statistics.fmean(ms):.4f} ms, max {ms[-1]:.4f} ms, "
          f"{len(voice._queue)} sentences queued")


def bench_render(repeat: int) -> None:
    if shutil.which("espeak-ng") is None:
        print("2. espeak-ng is not installed: nothing to render")
        return
    print("2. espeak-ng, one sentence into a WAV:")
    for lang in LANGUAGES:
        texts = [p for u in sample_updates() for p in phrases_for(u, lang)]
        times = []
        for _ in range(repeat):
            for text in texts:
                t0 = time.perf_counter()
                render(text, lang)
                times.append(time.perf_counter() - t0)
        ms = [x * 1000 for x in times]
        print(f"   {lang}: median {statistics.median(ms):6.1f} ms, worst {max(ms):6.1f} ms "
              f"({len(ms)} renders)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    bench_loop_cost()
    bench_render(args.repeat)


if __name__ == "__main__":
    main()
