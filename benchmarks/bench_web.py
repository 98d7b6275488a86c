"""Phone view benchmarks: 10 phones following a game.

    python benchmarks/bench_web.py [--phones 10] [--taps 200] [--idle-seconds 20]

The real App on SDL's dummy driver, a real TableLoop and SQLite journal (as in
bench_ui), and the phone view (uvicorn on its own thread, 127.0.0.1) with
``--phones`` clients following ``GET /api/events?lang=en`` (the pages' stream:
JSON plus the live table's HTML) over real sockets, each on its own thread.

- tap -> page: a finger lifts on the touchscreen (complete an order, then UNDO,
  alternately); time until every phone has received that update. p50/p99 over
  every phone and tap. Target p99 <= 250 ms.
- tap -> frame: the table's own screen, first without the web, then with the
  phones following. Target p99 <= 16 ms, unchanged.
- idle CPU: nothing happening, the phones connected; CPU time of the whole
  process (screen, table loop, web server; the phones' threads wait in recv)
  / wall time, first without the web. Target <= 1 % of a core.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.bench_ui import finger, idle_cpu, pct, setup, tap_to_frame  # noqa: E402

import httpx  # noqa: E402
import pygame  # noqa: E402

from companion.appliance import config  # noqa: E402
from companion.outputs.web.app import PhoneView  # noqa: E402


class Phone(threading.Thread):
    def __init__(self, url: str, seen: dict, cond: threading.Condition):
        super().__init__(daemon=True)
        self.url, self.seen, self.cond = url, seen, cond
        self.received: dict[int, float] = {}

    def run(self) -> None:
        seq = None
        try:
            with httpx.stream("GET", self.url + "/api/events?lang=en", timeout=None) as s:
                for line in s.iter_lines():
                    if line.startswith("id: "):
                        seq = int(line[4:])
                    elif line.startswith("data: ") and seq is not None:
                        now = time.monotonic()
                        with self.cond:
                            self.received[seq] = now
                            self.seen[self] = seq
                            self.cond.notify_all()
        except httpx.HTTPError:
            pass


def tap_to_page(app, view, phones, seen, cond, taps):
    pages, frames = [], []
    for i in range(taps):
        app.screen.draw(app.surface)
        ws = {w.name: w for w in app.screen._widgets}
        me = app.table.game.active_player
        slot = next((n for n in range(4) if me.queue[n]), None)
        target = ws["ft.undo" if (i % 2 or slot is None) else f"act.pos{slot + 1}"]
        finger(app, target.rect.center, "down")
        app.draw()
        before, seq0 = app.display_updates, view.live.latest.seq
        t0 = time.monotonic()
        finger(app, target.rect.center, "up")
        seen_table = app.table
        while app.table is seen_table:
            app.step()
        while app.display_updates == before:
            app.step()
        frames.append((time.monotonic() - t0) * 1000)
        seq = view.live.latest.seq
        assert seq > seq0
        with cond:
            ok = cond.wait_for(lambda seq=seq: all(seen.get(p, 0) >= seq for p in phones), 5.0)
        if not ok:
            raise SystemExit("a phone did not receive an update within 5 s")
        pages += [(p.received[seq] - t0) * 1000 for p in phones]
    return pages, frames


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--phones", type=int, default=10)
    p.add_argument("--taps", type=int, default=200)
    p.add_argument("--idle-seconds", type=float, default=20.0)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        journal, loop, app = setup((800, 480), folder)
        view = None
        try:
            frames_alone = tap_to_frame(app, args.taps)
            cpu_alone, _ = idle_cpu(app, args.idle_seconds)
            view = PhoneView(loop, config.defaults(), os.path.join(folder, "bench.db"))
            assert view.start("127.0.0.1", 0, mdns=False)
            loop.subscribe(view.live.start(loop.snapshot).on_update)
            seen: dict = {}
            cond = threading.Condition()
            phones = [Phone(view.server.url, seen, cond) for _ in range(args.phones)]
            for ph in phones:
                ph.start()
            with cond:
                cond.wait_for(lambda: len(seen) == len(phones), 10.0)
            pages, frames_web = tap_to_page(app, view, phones, seen, cond, args.taps)
            cpu_web, _ = idle_cpu(app, args.idle_seconds)
            streams = len(view.live.clients)
        finally:
            if view is not None:
                view.close()
            loop.stop()
            journal.close()
    print(f"machine: {os.cpu_count()} CPUs; SDL video driver {pygame.display.get_driver()}; "
          f"{args.phones} phones on /api/events over 127.0.0.1")
    print(f"tap -> page:            p50 {pct(pages, 50):6.2f} ms  p99 {pct(pages, 99):6.2f} ms"
          f"  max {max(pages):6.2f} ms over {len(pages)} deliveries (target p99 <= 250 ms)")
    print(f"tap -> frame, no web:   p50 {pct(frames_alone, 50):6.2f} ms  "
          f"p99 {pct(frames_alone, 99):6.2f} ms")
    print(f"tap -> frame, 10 pages: p50 {pct(frames_web, 50):6.2f} ms  "
          f"p99 {pct(frames_web, 99):6.2f} ms  (target p99 <= 16 ms, unchanged)")
    print(f"idle CPU, no web:       {cpu_alone:6.2f} % of a core over {args.idle_seconds:.0f} s")
    print(f"idle CPU, {streams} pages open: {cpu_web:6.2f} % of a core over "
          f"{args.idle_seconds:.0f} s (target <= 1 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
