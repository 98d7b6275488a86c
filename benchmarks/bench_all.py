"""Every benchmark figure beside a naive baseline measured in the same run.

    python benchmarks/bench_all.py [--quick]

Seconds measured on a shared build machine drift from run to run; a ratio
between our way and the naive way, measured seconds apart in the same process,
does not drift as much. Each row prints our figure, the baseline's and the
ratio (baseline / ours: > 1 means ours is cheaper), so a regression shows as a
number that falls.

Pairs:
- replay:  a 300-line game through the session and a durable journal, against
           the engine alone without a journal (what durability costs);
- resume:  rebuilding the running game from a journal of 200 finished games,
           against replaying every game of the journal;
- redraw:  tap -> frame pushing only the changed rectangles, against redrawing
           and flipping the whole screen on every change;
- idle UI: the App's wake-up (sleep on the loop's event, pump SDL slowly),
           against a main loop blocked in ``pygame.event.wait`` (pygame 2 polls
           SDL every millisecond inside it);
- buttons: idle CPU of 5 gpiozero input devices with our one hold timer,
           against 5 gpiozero ``Button``s with ``hold_time`` (a hold thread each);
- lights:  an idle table, against a strip rewritten at 30 frames a second.

Instruction counts (repeatable where seconds are not) are in
``benchmarks/callgrind_hot_paths.py``.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
from gpiozero import Button, DigitalInputDevice  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from benchmarks import bench_core, bench_ui  # noqa: E402
from benchmarks.games import game_lines  # noqa: E402
from companion.devices.buttons import Buttons  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.rules import Table, apply, parse_line  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.outputs.screen.app import App  # noqa: E402

PINS, UNDO_PIN = [17, 27, 22, 23], 24


def row(name: str, ours: float, naive: float, unit: str, what: str = "") -> None:
    ratio = naive / ours if ours > 0 else float("inf")
    print(f"{name:<34} ours {ours:10.4f} {unit:<5} naive {naive:10.4f} {unit:<5} "
          f"ratio {ratio:8.1f}x  {what}")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


# --- replay and resume -------------------------------------------------------------------

def replay_pair(folder: str, repeat: int) -> None:
    lines = game_lines(300)

    def through_journal():
        path = os.path.join(folder, f"r{time.perf_counter_ns()}.db")
        with Journal(path) as j:                 # durable, as in the service
            s = Session(j)
            for line in lines:
                s.apply_line(line)

    ours = median_ms(bench_core.timed(through_journal, repeat))
    naive = median_ms(bench_core.timed(lambda: bench_core.replay_in_process(lines), repeat))
    # Reversed on purpose: the journal is the cost, the engine alone the floor.
    print(f"{'replay 300 lines, durable journal':<34} ours {ours:10.4f} ms    "
          f"without journal {naive:10.4f} ms    durability costs {ours / naive:6.1f}x")


def resume_pair(folder: str, repeat: int) -> None:
    path = os.path.join(folder, "big.db")
    bench_core.build_journal(path)

    def resume():
        with Journal(path) as j:
            Session(j)

    def replay_everything():
        with Journal(path, readonly=True) as j:
            for g in j.games():
                t = Table()
                for line in j.lines(g.id):
                    t = apply(t, parse_line(line)).table

    row("resume, 200 games + 1 running", median_ms(bench_core.timed(resume, repeat)),
        median_ms(bench_core.timed(replay_everything, max(2, repeat // 5))), "ms",
        "(naive: replay every game)")


# --- the screen ---------------------------------------------------------------------------

class FullRedrawApp(App):
    """The naive screen: any change repaints everything and flips the whole display."""

    def draw(self):
        s = self.screen
        if not s.needs_draw:
            return []
        s.invalidate()
        s.draw(self.surface)
        pygame.display.flip()
        self.frames += 1
        self.display_updates += 1
        return [self.surface.get_rect()]


class EventWaitApp(App):
    """The naive main loop: block in pygame.event.wait (pygame 2: a 1 ms SDL poll)."""

    def wait_events(self, timeout_ms=None):
        event = pygame.event.wait(timeout_ms or 0)
        return [] if event.type == pygame.NOEVENT else [event]


def screen_pairs(taps: int, idle_seconds: float) -> None:
    results = {}
    for label, cls in (("ours", App), ("naive", FullRedrawApp)):
        with tempfile.TemporaryDirectory() as folder:
            journal, loop, app = bench_ui.setup((800, 480), folder)
            app.__class__ = cls
            try:
                results[label] = sorted(bench_ui.tap_to_frame(app, taps))
            finally:
                loop.stop()
                journal.close()
    p99 = {k: bench_ui.pct(v, 99) for k, v in results.items()}
    row("tap -> frame p99, 800x480", p99["ours"], p99["naive"], "ms",
        "(naive: whole screen every frame)")
    idle = {}
    for label, cls in (("ours", App), ("naive", EventWaitApp)):
        with tempfile.TemporaryDirectory() as folder:
            journal, loop, app = bench_ui.setup((800, 480), folder)
            app.__class__ = cls
            try:
                idle[label], _ = bench_ui.idle_cpu(app, idle_seconds)
            finally:
                loop.stop()
                journal.close()
    row(f"idle screen CPU, {idle_seconds:g} s", idle["ours"], idle["naive"], "%core",
        "(naive: pygame.event.wait)")


# --- buttons and lights --------------------------------------------------------------------

def _process_cpu_over(seconds: float) -> float:
    c0, t0 = time.process_time(), time.monotonic()
    threading.Event().wait(seconds)
    return (time.process_time() - c0) / (time.monotonic() - t0) * 100


def buttons_pair(seconds: float) -> None:
    ours_dev = Buttons(lambda e: None, PINS, UNDO_PIN, hold_seconds=1.0, driver="simulated",
                       pin_factory=MockFactory()).start()
    try:
        ours = _process_cpu_over(seconds)
    finally:
        ours_dev.close()
    factory = MockFactory()
    naive_dev = [Button(p, hold_time=1.0, pin_factory=factory) for p in PINS + [UNDO_PIN]]
    for b in naive_dev:
        b.when_held = lambda: None
    try:
        naive = _process_cpu_over(seconds)
    finally:
        for b in naive_dev:
            b.close()
    row(f"idle buttons CPU, {seconds:g} s", ours, naive, "%core",
        "(naive: gpiozero Button hold threads)")
    assert DigitalInputDevice  # what ours is built on (companion/devices/buttons.py)


def lights_pair(seconds: float) -> None:
    from companion.core import events as ev
    from companion.appliance.config import defaults
    from companion.outputs.lights.controller import build_lights
    from companion.outputs.lights.pixels import SimulatedStrip, normalize_frame
    from companion.outputs.lights.patterns import frame_from_lights, render
    from companion.core.loop import TableLoop

    cfg = defaults()
    cfg["pixels"]["driver"] = "simulated"
    loop = TableLoop(Session())
    lights = build_lights(cfg)
    lights.attach(loop)
    loop.post(ev.TouchAction(bench_ui_setup_action()))
    loop.drain()
    lights.start()
    try:
        writes0 = lights.writes
        ours = _process_cpu_over(seconds)
        ours_writes = lights.writes - writes0
    finally:
        lights.close()
    # naive: compute and write every frame at 30 fps whether or not anything changed
    stop = threading.Event()
    written = [0]

    def naive_loop():
        strip_writer = SimulatedStrip(lights.pixel_count)
        while not stop.wait(1 / 30):
            now = time.monotonic()
            picture = render(lights.game, lights.context(), now, lights.style)
            frame = frame_from_lights(picture, lights.positions, lights.pixel_count)
            strip_writer._write(normalize_frame(frame, lights.pixel_count))   # no dedupe
            written[0] += 1
    t = threading.Thread(target=naive_loop, daemon=True)
    t.start()
    try:
        naive = _process_cpu_over(seconds)
    finally:
        stop.set()
        t.join(2)
    row(f"idle lights CPU, {seconds:g} s", max(ours, 1e-4), naive, "%core",
        f"(strip writes: ours {ours_writes}, naive {written[0]})")


def bench_ui_setup_action() -> dict:
    return {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe", "Dae"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs (a smoke run, ~30 s)")
    args = ap.parse_args(argv)
    repeat, taps, idle = (5, 60, 3.0) if args.quick else (20, 300, 10.0)
    print(f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.processor() or '?'}, "
          f"Python {platform.python_version()}, pygame {pygame.version.ver}, "
          f"SDL video driver {os.environ['SDL_VIDEODRIVER']}")
    with tempfile.TemporaryDirectory() as folder:
        replay_pair(folder, repeat)
        resume_pair(folder, repeat)
    screen_pairs(taps, idle)
    buttons_pair(idle)
    lights_pair(idle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
