"""Touchscreen benchmarks: idle CPU, tap -> updated frame, full redraw.

    python benchmarks/bench_ui.py [--idle-seconds 30] [--taps 300] [--size 800x480]

Runs on SDL's dummy video driver (no screen needed) with the real App, a real
TableLoop on its own thread and a real SQLite journal in a temporary folder.

- idle CPU: a mid-game on screen, nothing happening, for --idle-seconds;
  CPU time of the whole process (all threads) / wall time. Target <= 1 % of a core.
- tap -> frame: a finger lifts on an order card (or UNDO); the App posts the
  TouchAction, the loop applies and journals it, the App wakes, draws and
  updates the display. p50/p99 over --taps taps. Target p99 <= 16 ms.
- full redraw: the whole table view repainted at --size. Target <= 8 ms.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from companion.core.catalog import Catalog  # noqa: E402
from companion.core.events import ScriptLine  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.core.loop import TableLoop  # noqa: E402
from companion.outputs import Outputs  # noqa: E402
from companion.outputs.screen.app import App  # noqa: E402
from companion.outputs.screen.screenshots import sample_script  # noqa: E402


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def setup(size, folder):
    pygame.display.init()
    pygame.font.init()
    surface = pygame.display.set_mode(size)
    journal = Journal(os.path.join(folder, "bench.db"))
    loop = TableLoop(Session(journal, Catalog.example()))
    for n, line in enumerate(sample_script(), 1):
        loop.post(ScriptLine(line, n))
    loop.drain()
    app = Outputs(loop).start(App(loop, surface=surface), main_thread=True)
    app.screen._dismiss_draws()
    app.draw()
    loop.start()
    return journal, loop, app


def idle_cpu(app, seconds):
    def wake_to_stop():
        time.sleep(seconds)
        pygame.event.post(pygame.event.Event(pygame.QUIT))
    threading.Thread(target=wake_to_stop, daemon=True).start()
    frames = app.display_updates
    cpu0, wall0 = time.process_time(), time.perf_counter()
    app.running = True
    app.run()
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return cpu / wall * 100, app.display_updates - frames


def finger(app, pos, kind):
    w, h = app.size
    t = pygame.FINGERDOWN if kind == "down" else pygame.FINGERUP
    app.handle(pygame.event.Event(t, x=pos[0] / w, y=pos[1] / h, dx=0.0, dy=0.0,
                                  touch_id=1, finger_id=0, pressure=1.0))


def tap_to_frame(app, taps):
    out = []
    for i in range(taps):
        app.screen.draw(app.surface)
        ws = {w.name: w for w in app.screen._widgets}
        me = app.table.game.active_player
        slot = next((n for n in range(4) if me.queue[n]), None)
        name = "ft.undo" if (i % 2 or slot is None) else f"act.pos{slot + 1}"
        target = ws[name]
        finger(app, target.rect.center, "down")
        app.draw()
        before = app.display_updates
        t0 = time.perf_counter()
        finger(app, target.rect.center, "up")
        seen = app.table
        while app.table is seen:              # wait for the loop's update, as the App does
            app.step()
        while app.display_updates == before:
            app.step()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def full_redraw(app, n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        app.screen.invalidate()
        rects = app.screen.draw(app.surface)
        pygame.display.update(rects)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--idle-seconds", type=float, default=30.0)
    p.add_argument("--taps", type=int, default=300)
    p.add_argument("--size", default="800x480")
    args = p.parse_args(argv)
    size = tuple(int(x) for x in args.size.split("x"))
    with tempfile.TemporaryDirectory() as folder:
        journal, loop, app = setup(size, folder)
        try:
            redraw = full_redraw(app, 200)
            taps = tap_to_frame(app, args.taps)
            cpu, frames = idle_cpu(app, args.idle_seconds)
        finally:
            loop.stop()
            journal.close()
    print(f"machine: {os.cpu_count()} CPUs; SDL video driver {pygame.display.get_driver()}; "
          f"size {size[0]}x{size[1]}")
    print(f"full redraw:    mean {statistics.mean(redraw):6.2f} ms  p99 {pct(redraw, 99):6.2f} ms"
          f"  (target <= 8 ms)")
    print(f"tap -> frame:   p50 {pct(taps, 50):6.2f} ms  p99 {pct(taps, 99):6.2f} ms"
          f"  max {max(taps):6.2f} ms over {len(taps)} taps (target p99 <= 16 ms)")
    print(f"idle CPU:       {cpu:6.2f} % of a core over {args.idle_seconds:.0f} s, "
          f"{frames} display updates (target <= 1 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
