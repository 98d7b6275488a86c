"""Setup-screen benchmarks: font discovery, mixed-script text, keyboard taps, wizard steps.

    python benchmarks/bench_ui_setup.py [--taps 400] [--size 800x480]

Runs on SDL's dummy video driver with the real App and screens.

- font discovery: fc-match / fc-list once at start (the first text drawn waits for it).
- text render: one uncached line, Latin only and Latin + Hangul (the font chain
  cuts it into runs and draws each with its font). Median of 300.
- keyboard tap -> frame: a finger lifts on a key; the keyboard screen rebuilds its
  widgets and repaints what changed. p50/p99 over --taps taps, Latin and Hangul
  (the Hangul taps compose syllables). Target p99 <= 16 ms.
- wizard step -> frame: NEXT tapped, the whole next step painted. p50/max over
  every step of a 4-player Winter setup with Main board chaos.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from benchmarks.bench_ui import pct  # noqa: E402
from companion.core.catalog import Catalog  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.core.loop import TableLoop  # noqa: E402
from companion.words import fonts  # noqa: E402
from companion.outputs.screen import widgets  # noqa: E402
from companion.outputs import Outputs  # noqa: E402
from companion.outputs.screen.app import App  # noqa: E402
from companion.outputs.screen.keyboard import KeyboardScreen  # noqa: E402
from companion.outputs.screen.screens.base import Pointer  # noqa: E402
from companion.outputs.screen.screens.setup_wizard import WizardScreen  # noqa: E402


def tap(app, name):
    app.screen.draw(app.surface)
    w = next(x for x in app.screen._widgets if x.name == name)
    app.screen.handle(Pointer("down", w.rect.center))
    app.draw()
    start = time.perf_counter()
    app.screen.handle(Pointer("up", w.rect.center))
    app.draw()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--taps", type=int, default=400)
    ap.add_argument("--size", default="800x480")
    args = ap.parse_args()
    size = tuple(int(x) for x in args.size.split("x"))
    pygame.display.init()
    pygame.font.init()

    t0 = time.perf_counter()
    book = fonts.FontBook()
    files = book.files
    print(f"font discovery: {(time.perf_counter() - t0) * 1000:.1f} ms "
          f"(latin {os.path.basename(files.latin or 'default')}, "
          f"korean {os.path.basename(files.hangul or 'none')})")
    f = book.font(30, True)
    for label, line in (("latin", "Ana, Ben and Chloe share the victory"),
                        ("latin+hangul", "민수, Ben 그리고 서연 님이 공동 승리!")):
        times = []
        for i in range(300):
            s = time.perf_counter()
            f.render(f"{line} {i}", True, (255, 255, 255))
            times.append((time.perf_counter() - s) * 1000)
        print(f"text render ({label}, 30 px bold, uncached): median "
              f"{statistics.median(times):.3f} ms")

    loop = TableLoop(Session(None, Catalog()))
    app = Outputs(loop).start(App(loop, surface=pygame.Surface(size)), main_thread=True)
    for layout, keys in (("latin", "qwertyuiopasdfghjkl"),
                         ("hangul", "ㅂㅈㄷㄱㅅㅁㄴㅇㄹㅎㅏㅓㅗㅜㅣ")):
        kb = KeyboardScreen(app, max_len=10 ** 6, layout=layout)
        app.push(kb)
        app.draw()
        times = []
        for i in range(args.taps):
            if len(kb.keyboard.value) > 30:
                kb.keyboard.clear()
            times.append(tap(app, kb.keyboard.key_name(keys[i % len(keys)])))
        app.pop(kb)
        print(f"keyboard tap -> frame ({layout}, {size[0]}x{size[1]}): "
              f"p50 {pct(times, 50):.2f} ms, "
              f"p99 {pct(times, 99):.2f} ms over {len(times)} taps")

    wz = WizardScreen(app, rng=random.Random(1), recent_names=["Ana", "Ben", "Chloe", "Dae"])
    app.push(wz)
    md = wz.model
    md.set_edition("winter")
    md.names[:4] = ["Ana", "Ben", "Chloe", "Dae"]
    md.start = 1
    md.board_mode = "chaos"
    widgets.reset_fonts()
    steps = []
    app.draw()
    while True:
        before = wz.step
        ms = tap(app, "wz.next") if wz.step != wz.steps[-1] else None
        if ms is None or wz.step == before:
            break
        steps.append((wz.step, ms))
    values = [ms for _, ms in steps]
    print(f"wizard step -> frame ({size[0]}x{size[1]}): p50 {statistics.median(values):.2f} ms, "
          f"max {max(values):.2f} ms ({', '.join(f'{s} {ms:.1f}' for s, ms in steps)})")


if __name__ == "__main__":
    main()
