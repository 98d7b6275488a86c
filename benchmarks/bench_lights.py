"""Benchmarks of the lights and sound cues (issue 5).

    python benchmarks/bench_lights.py [--seconds 10]

1. Computing one frame for 4 seats x 16 LEDs (``patterns.render`` plus placing
   it on the strip) in several table situations. Target: <= 0.5 ms; prints the
   mean and the 99th percentile.
2. An idle table: the real lights thread (simulated strip), the real sound
   thread (pygame mixer, SDL's dummy audio driver) and the table loop's
   thread, after a few moves, left alone for ``--seconds``. Target: 0 strip
   writes, 0 frames drawn and about 0 CPU seconds in the lights and sound
   threads.
3. The active seat's sweep (``[pixels] active_sweep``, on by default; part 2
   runs with it off): strip writes per second and the lights thread's CPU.
4. For comparison, the same threads while the shop is closed (the amber
   breath animates at the frame rate): writes per second and CPU share.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from companion.core import events as ev  # noqa: E402
from companion.appliance.config import defaults  # noqa: E402
from companion.outputs.lights.pixels import contiguous_segments  # noqa: E402
from companion.outputs.lights.controller import build_lights  # noqa: E402
from companion.outputs.lights.patterns import (DrawPrompt, LightContext, Style,  # noqa: E402
                                               frame_from_lights, render)
from companion.core.rules.state import Card, Game, Player  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.outputs.sound import build_sound  # noqa: E402
from companion.core.loop import TableLoop  # noqa: E402
from companion.core.turn_timer import TurnTimer  # noqa: E402

SEATS, LEDS = 4, 16
TILES = ("double_meeples", "diagonal_movement", "double_corners", "double_specialties")


def busy_game(token="open", game_over=False) -> Game:
    """4 players with full queues, some orders in position 4, some cards unidentified."""
    serial = iter(range(1, 1000))
    players = []
    for seat in range(SEATS):
        queue = [[Card(next(serial), None if seat % 2 else f"T{i}") for i in range(3)],
                 [Card(next(serial), f"U{seat}{i}") for i in range(2)],
                 [Card(next(serial), f"V{seat}")],
                 [Card(next(serial), f"W{seat}{i}") for i in range(seat)]]
        players.append(Player(f"P{seat}", queue, TILES, likes=seat * 2))
    return Game("original", "standard", players, start=0, active=None if game_over else 1,
                deck=30, removed=0, token=token, game_over=game_over)


def situations():
    game = busy_game()
    unidentified = frozenset(c.serial for c in game.players[1].queue[0])
    return {
        "plain turn (pips)": (game, LightContext()),
        "turn timer running": (game, LightContext(timer=TurnTimer(0.0, 60.0))),
        "draw prompts + flash + scanner lost": (game, LightContext(
            draws={1: DrawPrompt(unidentified, 0.0), 3: DrawPrompt(unidentified, 0.0)},
            flashes={2: 0.3}, scanner_lost_since=0.0)),
        "shop closed, final turn pulse": (busy_game("closed"), LightContext()),
        "game over marquee": (busy_game(game_over=True), LightContext(game_over_since=0.0)),
    }


def bench_frames(repeat: int = 5000) -> None:
    style = Style(SEATS, LEDS)
    positions = [s.positions() for s in contiguous_segments(SEATS, LEDS)]
    print(f"1. one frame, {SEATS} seats x {LEDS} LEDs (render + place on the strip), "
          "target <= 0.5 ms")
    for name, (game, ctx) in situations().items():
        samples = []
        for i in range(repeat):
            now = 0.4 + i * 0.001
            t0 = time.perf_counter()
            frame_from_lights(render(game, ctx, now, style), positions, SEATS * LEDS)
            samples.append(time.perf_counter() - t0)
        samples.sort()
        mean, p99 = statistics.fmean(samples), samples[int(len(samples) * 0.99)]
        ok = "OK" if p99 <= 0.0005 else "OVER TARGET"
        print(f"   {name:<38s} mean {mean * 1e3:6.3f} ms   p99 {p99 * 1e3:6.3f} ms   {ok}")


def thread_cpu(thread) -> float:
    """CPU seconds (user + system) one thread has used, from /proc (Linux)."""
    with open(f"/proc/self/task/{thread.native_id}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_idle(seconds: float) -> None:
    cfg = defaults()
    cfg.values["pixels"].update(driver="simulated", segment_length=LEDS, active_sweep=False)
    cfg.values["scanner"]["port"] = "loop://"
    lights = build_lights(cfg, seat_count=SEATS)
    sound = build_sound(cfg)
    loop = TableLoop(Session())
    lights.attach(loop)
    sound.attach(loop)
    lights.start()
    sound.start()
    loop.start()
    try:
        loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                                  "players": ["Ana", "Ben", "Cy", "Dee"]}))
        for i in range(9):
            loop.post(ev.CardScanned(f"C{i}"))
        loop.post(ev.SeatTap(0))
        loop.post(ev.SeatTap(2))                      # not your turn: a flash
        loop.post(ev.SeatHold(0))                     # surge: draw prompts
        for i in range(4):
            loop.post(ev.CardScanned(f"N{i}"))
        sound.wait_played(9 + 2 + 1 + 4 + 4 + 1, timeout=30)
        assert lights.wait_idle(10), "the lights never went idle"
        time.sleep(0.5)                                # let the last cues finish sounding
        print(f"2. idle table for {seconds:.0f} s: lights thread, sound thread, table loop")
        threads = {"lights": lights._thread, "sound": sound._thread, "table loop": loop._thread}
        cpu0 = {k: thread_cpu(t) for k, t in threads.items()}
        writes0, renders0, played0 = lights.writes, lights.frames_rendered, len(sound.played)
        proc0 = time.process_time()
        time.sleep(seconds)
        proc = time.process_time() - proc0
        cpu = {k: thread_cpu(t) - cpu0[k] for k, t in threads.items()}
        print(f"   strip writes {lights.writes - writes0}, "
              f"frames drawn {lights.frames_rendered - renders0}, "
              f"cues played {len(sound.played) - played0}")
        tick = 1 / os.sysconf("SC_CLK_TCK")
        print("   CPU seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in cpu.items())
              + f", whole process {proc:.3f}  (/proc resolution {tick:.3f} s)")

        span = min(seconds, 5.0)
        lights.style = dataclasses.replace(lights.style, sweep=True)
        lights.show_table(loop.table)                  # wake the thread with the sweep on
        time.sleep(0.5)
        cpu0, writes0 = thread_cpu(lights._thread), lights.writes
        time.sleep(span)
        used = thread_cpu(lights._thread) - cpu0
        print(f"3. active seat's sweep on: {(lights.writes - writes0) / span:.1f} strip "
              f"writes/s, lights thread CPU {100 * used / span:.2f} % of one core")

        loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "dislikes": 5}))
        time.sleep(0.5)
        cpu0 = thread_cpu(lights._thread)
        writes0 = lights.writes
        time.sleep(span)
        used = thread_cpu(lights._thread) - cpu0
        print(f"4. shop closed (amber breath, {int(lights.fps)} fps cap): "
              f"{(lights.writes - writes0) / span:.1f} strip writes/s, lights thread "
              f"CPU {100 * used / span:.1f} % of one core")
    finally:
        loop.stop()
        lights.close()
        sound.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10.0, help="idle time to watch")
    args = p.parse_args()
    bench_frames()
    bench_idle(args.seconds)


if __name__ == "__main__":
    main()
