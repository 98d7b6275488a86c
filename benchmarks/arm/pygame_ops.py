"""Instructions of single pygame drawing operations, per pygame build (where the Pi's
Debian pygame loses: docs/benchmarks.md, "The same paths as aarch64 code").

    python benchmarks/arm/pygame_ops.py --python .venv/bin/python --python .venv-debian/bin/python
    sudo python benchmarks/arm/pygame_ops.py --python .venv/bin/python --arm

Each ``--python`` is counted on this machine under qemu-x86_64 (``run-counted-x86``),
``--arm`` in the arm64 root (``run-counted``: Debian's pygame), all with the counting
plugin; each operation runs 20 times between two markers and one is printed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
REPEAT = 20
NAMES = ["fill 800x480", "blit opaque 300x120", "blit per-pixel alpha 300x120", "blit text",
         "render text", "draw.rect filled, border_radius=14, 300x120",
         "draw.rect outline 3 px, border_radius=14", "draw.rect rounded on an alpha surface",
         "display.update of a rect", "subsurface copy 300x120",
         "widgets.fill_round_rect, radius 14, 300x120",
         "widgets.fill_round_rect on an alpha surface"]


def operations() -> None:
    """The measured side (under the plugin): a marker after each operation's repetitions."""
    import ctypes

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from benchmarks.callgrind_hot_paths import MARKER_MAGIC, MARKER_NR
    from companion.outputs.screen.widgets import fill_round_rect
    syscall, seq = ctypes.CDLL(None).syscall, [0]

    def mark() -> None:
        seq[0] += 1
        syscall(ctypes.c_long(MARKER_NR), ctypes.c_long(MARKER_MAGIC), ctypes.c_long(seq[0]))

    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode((800, 480))
    font = pygame.font.Font("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28)
    alpha = pygame.Surface((300, 120), pygame.SRCALPHA)
    alpha.fill((200, 100, 50, 128))
    opaque = pygame.Surface((300, 120)).convert()
    text = font.render("Order 3: latte", True, (255, 255, 255))
    box = pygame.Rect(10, 10, 300, 120)
    ops = [lambda: screen.fill((30, 30, 30)), lambda: screen.blit(opaque, box),
           lambda: screen.blit(alpha, box), lambda: screen.blit(text, box),
           lambda: font.render("Order 3: latte", True, (255, 255, 255)),
           lambda: pygame.draw.rect(screen, (90, 60, 40), box, border_radius=14),
           lambda: pygame.draw.rect(screen, (90, 60, 40), box, width=3, border_radius=14),
           lambda: pygame.draw.rect(alpha, (200, 100, 50, 200), alpha.get_rect(),
                                    border_radius=14),
           lambda: pygame.display.update([box]), lambda: screen.subsurface(box).copy(),
           lambda: fill_round_rect(screen, (90, 60, 40), box, 14),
           lambda: fill_round_rect(alpha, (200, 100, 50, 200), alpha.get_rect(), 14)]
    for _ in range(3):
        mark()
    for op in ops:
        for _ in range(REPEAT):
            op()
        mark()


def counted(runner: list[str], env: dict[str, str], out: str) -> list[float]:
    from benchmarks.callgrind_hot_paths import marked_costs
    tree = os.path.dirname(os.path.dirname(HERE))
    done = subprocess.run([*runner, out, os.path.abspath(__file__), "--measure"], env=env,
                          capture_output=True, text=True, cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"{runner[0]} failed:\n{done.stderr[-1500:]}")
    with open(out) as fh:
        return [c / REPEAT for c in marked_costs([line.split() for line in fh])]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append", default=[],
                    help="an x86-64 interpreter to count (under qemu-x86_64)")
    ap.add_argument("--arm", action="store_true", help="also the arm64 root's (as root)")
    ap.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        operations()
        return 0
    columns = []
    with tempfile.TemporaryDirectory() as folder:
        for i, python in enumerate(args.python):
            env = dict(os.environ, CG_PYTHON=os.path.abspath(python))
            venv = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(python))))
            columns.append((f"x86-64, {venv}", counted([os.path.join(HERE, "run-counted-x86")],
                                                       env, os.path.join(folder, f"x{i}"))))
        if args.arm:
            columns.append(("aarch64, the root's", counted(
                [os.path.join(HERE, "run-counted")], dict(os.environ), os.path.join(folder, "a"))))
    print(f"{'instructions per operation':<44}" + "".join(f" {n[-28:]:>28}" for n, _ in columns))
    for k, name in enumerate(NAMES):
        print(f"{name:<44}" + "".join(f" {c[k]:28,.0f}" for _, c in columns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
