"""Instructions per hot path, counted by valgrind's callgrind (repeatable on a noisy machine).

    python benchmarks/callgrind_hot_paths.py            # needs valgrind (Debian: valgrind)

Seconds on a shared build machine say little about a Raspberry Pi; instruction
counts do not depend on what else the machine is doing. Each hot path runs in
its own process under ``valgrind --tool=callgrind`` twice, with N and 2N
repetitions after the same set-up; (I(2N) - I(N)) / N is the cost of one
repetition, set-up and interpreter start cancelled out. The cold start is a
whole process, interpreter start included.

Whole games (the demo's bots, every move a touch through the real App) give tap -> frame
and scan -> frame: each input is counted from its arrival, so the largest step the screen
was painting ahead while idle (or a deadline's frame) before it is added to its own work
(an input that arrives as such a step begins waits for all of it); the largest idle step
is printed beside them. A tap has two arrivals: its finger going down (the pressed look,
"press", after any step in progress) and lifting ~0.1 s later (the answer, "tap", after
any step the App took while the finger was down: ``App.idle_step``). Budgets (issue 38):
tap and scan p99 6.0 M, idle step 3.0 M, cold start 1,500 M.

The implied time on a Pi assumes, for this kind of code (the CPython
interpreter, SQLite, SDL's software blits), about 1.0 instruction per cycle on
a Pi 4 (Cortex-A72, 1.5 GHz: ~1.5e9 instructions/s) and about 0.6 on a
Pi Zero 2 W (Cortex-A53, 1.0 GHz: ~0.6e9 instructions/s). x86-64 and ARM
instruction counts differ by a modest factor for interpreter code, so the
budget is an estimate with that margin, not a measurement on a Pi.

``--arm`` counts every path a second time as aarch64 code, beside the x86-64
count: this tree's code in a Debian bookworm arm64 root (Debian's python3 and
python3-pygame, as on a Pi) under qemu-user with our instruction-counting plugin
(``benchmarks/arm``: ``sudo benchmarks/arm/setup-root`` once, then run this as
root). Within a whole game the plugin is told where each display update ends by
a marker system call (what ``--dump-after=pg_update`` does for callgrind).

Internally: ``python callgrind_hot_paths.py --path NAME --repeat N`` runs one
path (what valgrind is given).
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import Any, NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ``--root DIR``: measure the code in DIR (``--before``'s checkout), not this tree's
_measured = sys.argv[sys.argv.index("--root") + 1] if "--root" in sys.argv[:-1] else ROOT
sys.path.insert(0, _measured)
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

PI4_IPS, PI_ZERO2_IPS = 1.5e9, 0.6e9
BUDGETS_MS = {"tap_to_frame": 16.0, "scan_to_action": 5.0, "light_frame": 0.5,
              "cold_start": 1500.0}
# Issue 38's budgets for a Pi Zero 2 W, in instructions (x86-64, counted by callgrind; the
# aarch64 count under --arm): tap -> frame and scan -> frame (the 99th percentile over whole
# games, each input counted from its arrival: the rest of any idle step in progress
# included) 6.0 M (10 ms); each step painted ahead while idle 3.0 M (5 ms: what an input
# can find in progress); cold start to READY 1,500 M (2.5 s); the synthetic scan and the
# light frame keep their budgets (5 ms, 0.5 ms).
TARGETS = {"tap_to_frame": 6.0e6, "scan_to_frame": 6.0e6, "idle_step": 3.0e6,
           "scan_to_action": 5.0e-3 * PI_ZERO2_IPS, "light_frame": 0.5e-3 * PI_ZERO2_IPS,
           "cold_start": 1500e6}
SIZES = [(800, 480), (1024, 600), (1280, 720), (1280, 800)]
# aarch64 counts (--arm): the runner and the plugin's marker (benchmarks/arm/insn_count.c)
# (CG_QEMU_RUN=benchmarks/arm/run-counted-x86: the same plugin on x86-64, a cross-check)
ARM_RUN = os.environ.get("CG_QEMU_RUN") or os.path.join(ROOT, "benchmarks", "arm", "run-counted")
MARKER_NR, MARKER_MAGIC = 0xC0FFEE, 0x19C0FFEE
SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe", "Dae"]}


# --- the hot paths (each: set-up, then ``repeat`` repetitions) ----------------------------

def tap_to_frame(repeat: int) -> None:
    """A finger lifts on the oldest order (then on UNDO): action, journal, redraw, display."""
    import pygame

    from benchmarks.bench_ui import finger, setup
    with tempfile.TemporaryDirectory() as folder:
        size = tuple(int(v) for v in os.environ.get("CG_SIZE", "800x480").split("x"))
        journal, loop, app = setup(size, folder)
        loop.stop()                       # drive the loop on this thread: one process, no waits
        app.screen.draw(app.surface)
        for i in range(repeat):           # even counts: as many completions as undos
            widgets = {w.name: w for w in app.screen._widgets}
            me = app.table.game.active_player
            slot = next((n for n in range(4) if me.queue[n]), None)
            name = "ft.undo" if (i % 2 or slot is None) else f"act.pos{slot + 1}"
            finger(app, widgets[name].rect.center, "down")
            finger(app, widgets[name].rect.center, "up")
            loop.drain()
            app.pump()
        journal.close()
        pygame.quit()


#: whole games the tap -> frame count replays: name -> (players, expansion)
GAMES = {"2p": (2, None), "3p": (3, None), "4p": (4, None), "cake4p": (4, "cake_time")}
GAME_SEED = 1
GAME_EPOCH = 1000.0     # the whole game's clock starts here (monotonic seconds) ...
THINK_S = 1.5           # ... and moves this much before each input (a player's moment)
QUIET_EVERY = 5         # ... and before every fifth input a longer pause, past the screen's
QUIET_S = 6.0           # quiet time (5 s): the garbage collection and the heap's give-back run


def whole_game(config: str, size: tuple[int, int], labels_path: str) -> None:
    """A whole game of the demo's bots (``companion.appliance.demo.Bots``, seeded), every move a
    player makes on the touchscreen made as touches through the real App.

    Completing an order is a tap on its position, ending the turn a tap on END TURN,
    an upgrade a tap on UPGRADE then on the tile, spending a tap on SPEND, on + as often
    as needed, then OK, a cake card a tap on its button, a cake from the deck's back a
    tap on the player's chip; now and then a player taps UNDO then REDO before ending
    the turn. Scans (the card scanner) and seat-button presses out of turn go to the
    table loop as the devices post them. The table loop runs on this thread with its
    real journal (SQLite in a temporary folder), so every display update is one
    input's whole work: the touch events, the loop, the journal, the redraw and the
    update. A tap is drawn as the App draws it: the pressed look when the finger goes
    down (a "press" frame), the answer when it lifts ("tap"). What each display update
    was is written to ``labels_path`` (JSON), one label per update, in order.
    """
    import json
    import random

    import pygame

    from companion.appliance import demo, heap
    from companion.core import events as ev
    from companion.core.journal import Journal
    from companion.core.rules.turn import is_stalled
    from companion.core.session import Session
    from companion.core.loop import TableLoop, stepped_slot
    from companion.outputs import Outputs
    from companion.outputs.screen import app as app_module
    from companion.outputs.screen.app import App

    players, expansion = GAMES[config]
    with tempfile.TemporaryDirectory() as folder:
        rng, names, _scratch, db, catalog, tags = demo._prepare(
            "original", players, GAME_SEED, os.path.join(folder, "journal.db"))
        heap.for_a_long_day()      # as the service does at start (its malloc, its libc)
        pygame.display.init()
        pygame.font.init()
        surface = pygame.display.set_mode(size)
        journal = Journal(db)
        now = [GAME_EPOCH]         # the game's clock: THINK_S per input, whatever valgrind's pace

        def clock() -> float:
            return now[0]

        loop = TableLoop(Session(journal, catalog), clock=clock)
        app = Outputs(loop).start(App(loop, surface=surface, clock=clock), main_thread=True)
        app.give_back = heap.give_back            # as the service does (malloc_trim, glibc)
        labels: list[tuple[str, int]] = []      # (what, which input) per display update
        inputs = [0]
        slips = random.Random(GAME_SEED + 1)      # undo/redo now and then (not the bots' dice)

        def frame(label: str, draw: Callable[[], Any] = app.pump) -> None:
            before = app.display_updates
            draw()
            labels.extend([(label, inputs[0])] * (app.display_updates - before))

        def finger(pos: tuple[int, int], kind: str) -> None:
            w, h = app.size
            t = pygame.FINGERDOWN if kind == "down" else pygame.FINGERUP
            pygame.event.post(pygame.event.Event(t, x=pos[0] / w, y=pos[1] / h, dx=0.0,
                                                 dy=0.0, touch_id=1, finger_id=0,
                                                 pressure=1.0))

        def idle() -> None:
            """The table idle before the next input (a player takes a moment): the screen
            paints ahead (``App.work_ahead``) step by step, each step counted on its own
            ("ahead": a tap that comes meanwhile waits for one step, not for all), at once
            after the input's frame, as the App does. Then the game's clock moves
            ``THINK_S``, and what its deadlines change (a completed order's mark, a
            message) is drawn as the App's main loop would wake to draw it ("timer"), and
            the App's steps go on after it. So every run counts the same frames whatever the
            pace under valgrind. (The work ahead of a whole input takes well under a second
            on a Zero 2 W: none of it waits for a deadline two seconds off. Until
            2026-11-29 the clock moved first, so a deadline a five-second pause reached came
            before any work ahead.)"""
            own_steps(inputs[0])
            quiet = inputs[0] % QUIET_EVERY == QUIET_EVERY - 1
            now[0] += QUIET_S if quiet else THINK_S
            frame("timer")
            own_steps(inputs[0])

        def own_steps(n: int, label: str | None = None) -> None:
            """The App's own steps, as ``App.wait_events`` takes them while no input waits
            (painted ahead, then a quiet table's), each counted on its own and labelled
            with what it was (or ``label``)."""
            while (what := idle_step()) is not None:
                labels.append((label or what, n))
                pygame.display.update([])      # (closes callgrind's count of the step)

        def idle_step() -> str | None:
            if hasattr(app, "idle_step"):
                return app.idle_step()
            work = getattr(app, "work_ahead", lambda: False)    # (--before a revision
            if work():                                            # that did not paint ahead,
                return "ahead"                                    # or took its steps itself)
            quiet = getattr(app, "give_back_when_quiet", lambda: False)
            return "quiet" if quiet() else None

        def tap(name: str) -> bool:
            """A finger on the widget called ``name`` (if it is on screen and takes taps)."""
            w = next((w for w in app.screen._widgets if w.name == name and w.tappable), None)
            if w is None:
                return False
            idle()
            inputs[0] += 1
            finger(w.rect.center, "down")
            frame("press")                         # the pressed look
            own_steps(inputs[0], "held")           # the App's own steps while the finger
            finger(w.rect.center, "up")            # is down (a tap lasts ~0.1 s), if any
            frame("tap")                           # the touch becomes a TouchAction (and the
            loop.drain()                           # released look); the loop applies and
            frame("tap")                           # journals it, and the answer is drawn
            return True

        def device(event: Any, label: str) -> None:
            idle()
            inputs[0] += 1
            loop.post(event)
            loop.drain()
            frame(label)

        def post(event: Any) -> None:
            if not isinstance(event, ev.TouchAction):
                device(event, "scan" if isinstance(event, ev.CardScanned) else "device")
                return
            action, done = event.action, False
            do = action["do"]
            if do == "activate_upgrade" and tap("ft.upgrade"):
                done = tap(f"dlg.up.{action['upgrade']}") or not tap("dlg.cancel")
            elif do == "spend_cookies" and tap("ft.spend"):
                done = True
                if getattr(app.screen, "dialog", None) == "spend":
                    for _ in range(action["count"] - 1):
                        tap("dlg.count.plus")
                    tap("dlg.ok")
            elif do == "play_cake_card":
                done = tap("ft.cake_card")
            elif do == "cake":
                game = loop.table.game
                seat = next(i for i, p in enumerate(game.players) if p.name == action["player"])
                done = tap(f"ban.cake.{seat}")
            if not done:                           # not offered on screen: as a device would
                device(event, "device")

        def press(seat: int, hold: bool, taps: int = 1) -> None:
            game = loop.table.game
            done = False
            if game is not None and seat == game.active:
                if hold:
                    if slips.random() < 0.15 and tap("ft.undo"):
                        tap("ft.redo")
                    done = tap("ft.end")
                else:
                    slot = stepped_slot(game.players[seat], taps)
                    done = slot is not None and tap(f"act.pos{slot}")
                    if done and getattr(app.screen, "dialog", None) == "cake_choice":
                        tap("dlg.caked")
            if not done:                           # a seat button, out of turn
                device(ev.SeatHold(seat) if hold else ev.SeatTap(seat, count=taps), "device")

        frame("start", app.draw)                   # the first frame: no game yet
        freeze = getattr(app_module, "freeze_start_up", None)    # (as App.run before READY;
        if freeze is not None:                                    # --before a revision
            freeze()                                              # that froze while idle)
            labels.append(("start", 0))       # (before READY: the cold start's, not the
            pygame.display.update([])         # first idle step's, so its count is closed)
        device(ev.TouchAction(demo._setup("original", names, "standard", rng, expansion)),
               "setup")
        bots = demo.Bots(loop, rng, tags, post=post, press=press)
        for _ in range(400):
            game = loop.table.game
            if game is None or game.game_over or is_stalled(game):
                break
            bots.scan_new_cards()
            bots.answer_cakes()
            bots.play_turn()
        journal.close()
        with open(labels_path, "w") as fh:
            json.dump(labels, fh)
        pygame.quit()


def scan_to_action(repeat: int) -> None:
    """A protocol line arrives: framing, decoding, the table loop, the journal (then UNDO)."""
    from companion.core import events as ev
    from companion.devices import scanner_protocol as sp
    from companion.core.journal import Journal
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(os.path.join(folder, "j.db"))
        loop = TableLoop(Session(journal))
        loop.post(ev.TouchAction(SETUP))
        loop.drain()
        stream = sp.ScannerStream()
        seq = 0
        for n in range(repeat):
            seq = sp.next_seq(seq)
            for received in stream.feed(sp.encode(sp.Scan(seq, "%08X" % (0x04000000 + n)))):
                scanned = sp.card_scanned(received.item)
                if scanned is not None:
                    loop.handle(scanned)
            loop.handle(ev.UndoTap())
        journal.close()


def light_frame(repeat: int) -> None:
    """One frame of the strip: the pattern for a busy 4-seat table, placed on 64 LEDs."""
    from benchmarks.bench_lights import LEDS, SEATS, busy_game
    from companion.outputs.lights.pixels import contiguous_segments
    from companion.outputs.lights.patterns import LightContext, Style, frame_from_lights, render
    game = busy_game()
    segments = contiguous_segments(SEATS, LEDS)
    positions = [s.positions() for s in segments]
    ctx, style = LightContext(), Style()
    for n in range(repeat):
        frame_from_lights(render(game, ctx, n * 0.033, style), positions, SEATS * LEDS)


def cold_start_instructions(folder: str, root: str = ROOT, arm: bool = False) -> tuple[int, int]:
    """Instructions of ``coffee-companion run`` from the interpreter's start to READY=1
    (sent once the first frame is on the display), as issue 19 sets it: a journal of 200
    finished games and a running one, the phone view and MQTT configured (a real Mosquitto
    on loopback), simulated buttons and strip, sound and voice on. The process ends the
    moment READY=1 is sent (``service_setup.RUN_UNTIL_READY``). Every thread is counted;
    returns (all threads, the main thread). ``arm``: the service as aarch64 code in the
    arm64 root (``arm_run``; the journal, the broker and this side of the socket stay here)."""
    import socket

    from benchmarks.bench_core import build_journal
    from benchmarks.service_setup import RUN_UNTIL_READY, child_env, mosquitto, write_config
    folder = tempfile.mkdtemp(dir=folder)          # one per measured tree
    journal = os.path.join(folder, "journal.db")
    build_journal(journal)
    broker = mosquitto(os.path.join(folder, "broker"))
    try:
        config = write_config(folder, journal, broker.port)
        notify = os.path.join(folder, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(notify)
        sock.settimeout(1800 if arm else 300)
        env = child_env(BENCH_CONFIG=config, NOTIFY_SOCKET=notify, PYTHONHASHSEED="0")
        if arm:                 # once to write the .pyc files, then counted
            arm_run(["-c", RUN_UNTIL_READY], os.path.join(folder, "arm.warm"), root, env)
            sock.recv(4096)
            lines = arm_run(["-c", RUN_UNTIL_READY], os.path.join(folder, "arm.cold"), root,
                            env)
            ready = sock.recv(4096).decode()
            if "fault" in ready:
                raise RuntimeError(f"the service started on a fault page: {ready}")
            sock.close()
            return exit_counts(lines)
        python = [sys.executable, "-c", RUN_UNTIL_READY]
        # once without valgrind: the .pyc files are written, as after an install
        subprocess.run(python, env=env, cwd=root, capture_output=True, timeout=120, check=True)
        ready = sock.recv(4096).decode()
        out = os.path.join(folder, "cg.cold_start")
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                               "--separate-threads=yes", *python],
                              capture_output=True, text=True, env=env, cwd=root)
        if done.returncode != 0:
            raise RuntimeError(f"cold start failed under valgrind:\n{done.stderr[-2000:]}")
        ready = sock.recv(4096).decode()
        if "fault" in ready:
            raise RuntimeError(f"the service started on a fault page: {ready}")
        sock.close()
    finally:
        broker.stop()
    per_thread = {}
    for name in glob.glob(out + "*"):
        with open(name) as fh:
            for line in fh:
                m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                if m:
                    per_thread[name] = max(per_thread.get(name, 0), int(m.group(1)))
    main_thread = per_thread.get(out + "-01", 0)
    return sum(per_thread.values()), main_thread


def mark_display_updates() -> None:
    """Under ``benchmarks/arm/run-counted`` (``CG_MARKERS=1``): a marker system call after
    each display update, so that the counting plugin writes the running count there (as
    callgrind dumps its counters after ``pg_update``). Three markers come first, back to
    back: the last two give the cost of one marker (the first call of all costs a little
    more), which the reader takes off each update's count."""
    import ctypes

    import pygame
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    seq = [0]

    def mark() -> None:
        seq[0] += 1
        syscall(ctypes.c_long(MARKER_NR), ctypes.c_long(MARKER_MAGIC), ctypes.c_long(seq[0]))

    update = pygame.display.update

    def update_then_mark(*args: Any) -> Any:
        done = update(*args)
        mark()
        return done

    for _ in range(3):
        mark()
    pygame.display.update = update_then_mark


PATHS = {"tap_to_frame": (tap_to_frame, 20), "scan_to_action": (scan_to_action, 50),
         "light_frame": (light_frame, 200)}


# --- measuring -------------------------------------------------------------------------------

def instructions(path: str, repeat: int, folder: str, root: str = ROOT) -> int:
    out = os.path.join(folder, f"cg.{path}.{repeat}.{abs(hash(root))}.%p")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--trace-children=no",
           sys.executable, os.path.abspath(__file__), "--path", path, "--repeat", str(repeat),
           "--root", root]
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"{path} failed under valgrind:\n{done.stderr[-2000:]}")
    total = 0
    for name in glob.glob(out.replace("%p", "*")):
        with open(name) as fh:
            for line in fh:
                m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                if m:
                    total = max(total, int(m.group(1)))
    return total


def _dumps(out: str) -> list[int]:
    """The instruction count of each callgrind dump closed by a display update, in order
    (each dump file is read for its totals and removed: a game leaves hundreds)."""
    parts = []
    for name in glob.glob(out + ".*"):
        m = re.search(r"\.(\d+)$", name)
        cost = trigger = None
        with open(name) as fh:
            for line in fh:
                if line.startswith("desc: Trigger:"):
                    trigger = line
                else:
                    got = re.match(r"(?:summary|totals):\s+(\d+)", line)
                    if got:
                        cost = int(got.group(1))
        os.remove(name)
        if m and cost is not None and trigger is not None and "pg_update" in trigger:
            parts.append((int(m.group(1)), cost))
    return [c for _, c in sorted(parts)]


def per_tap(size: tuple[int, int], taps: int, folder: str, root: str = ROOT) -> list[int]:
    """Instructions of each of ``taps`` complete-an-order / undo taps (the old pairs)."""
    out = os.path.join(folder, f"cg.tap.{size[0]}x{size[1]}")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--trace-children=no",
           "--dump-after=pg_update", sys.executable, os.path.abspath(__file__),
           "--path", "tap_to_frame", "--repeat", str(taps), "--root", root]
    env = dict(os.environ, PYTHONHASHSEED="0", CG_SIZE=f"{size[0]}x{size[1]}")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"tap_to_frame {size} failed under valgrind:\n{done.stderr[-2000:]}")
    return _dumps(out)[-taps:]             # one per tap; earlier dumps are set-up frames


class GameCounts(NamedTuple):
    taps: list[int]       # per tap: finger up to the answer on the display (released look too)
    presses: list[int]    # per tap: finger down to the pressed look on the display
    scans: list[int]      # per scan: the card's line to its frame
    ahead: list[int]      # per step painted ahead while the table was idle
    idle: list[int]       # per input: every step painted ahead before it
    timers: list[int]     # per frame a deadline drew while the table was idle
    devices: list[int]    # per seat-button press out of turn: the input to its frame
    waits: list[int]      # per input: the largest idle step (ahead or deadline) before it,
    #                       and per tap the largest step while its finger was down
    tap_arrivals: list[int]    # per tap: the largest step its lift may find in progress (one
    #                            taken while the finger was down) + the tap (its arrival)
    scan_arrivals: list[int]   # per scan: the largest step before it + the scan
    press_arrivals: list[int]  # per tap: the largest step before it + its pressed look (the
    #                            finger comes down as a step begins: it waits for all of it)
    quiet: list[int] = [0]     # per step a quiet table took (the garbage, the heap's pages)


def per_game(config: str, size: tuple[int, int], folder: str, root: str = ROOT) -> GameCounts:
    """Instructions of every input of a whole game (``whole_game``) at ``size``: callgrind
    closes a dump after each display update (``--dump-after=pg_update``), so each dump is
    exactly the work since the frame before; the game's labels say which input it was."""
    tag = f"{config}.{size[0]}x{size[1]}.{abs(hash(root))}"
    out = os.path.join(folder, f"cg.game.{tag}")
    labels_path = os.path.join(folder, f"labels.{tag}.json")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--trace-children=no",
           "--dump-after=pg_update", sys.executable, os.path.abspath(__file__),
           "--game", config, "--size", f"{size[0]}x{size[1]}", "--labels", labels_path,
           "--root", root]
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=root)
    if done.returncode != 0:
        raise RuntimeError(f"game {config} {size} failed under valgrind:\n{done.stderr[-2000:]}")
    return _game_counts(f"game {config} {size}", labels_path, _dumps(out))


def _game_counts(name: str, labels_path: str, costs: list[int]) -> GameCounts:
    """A game's per-update counts (in order) summed per input, by the game's labels."""
    import json
    with open(labels_path) as fh:
        labels = [tuple(x) for x in json.load(fh)]
    if len(costs) != len(labels):
        raise RuntimeError(f"{name}: {len(costs)} counts for {len(labels)} display updates")
    taps: dict[int, int] = {}
    idle: dict[int, int] = {}
    step: dict[int, int] = {}       # input n -> the largest idle step before it
    held: dict[int, int] = {}       # tap n -> the largest step while its finger was down
    presses, scans, ahead, timers, devices, quiet = [], [], [], [], [], []
    scan_arrivals, press_arrivals = [], []
    for (what, n), cost in zip(labels, costs, strict=True):
        if what == "tap":
            taps[n] = taps.get(n, 0) + cost
        elif what == "press":
            presses.append(cost)
            press_arrivals.append(step.get(n, 0) + cost)
        elif what == "scan":
            scans.append(cost)
            scan_arrivals.append(step.get(n, 0) + cost)
        elif what == "device":
            devices.append(cost)
        elif what == "held":
            # (a step the App took between the finger going down and lifting: what the
            # lift may find in progress; the step before the finger went down was over
            # before the pressed look was drawn, and is counted with the press)
            held[n] = max(held.get(n, 0), cost)
            ahead.append(cost)
            idle[n] = idle.get(n, 0) + cost
        elif what in ("ahead", "timer", "quiet"):
            # (labelled with the input before: the idle steps precede input n + 1)
            step[n + 1] = max(step.get(n + 1, 0), cost)
            if what == "quiet":
                quiet.append(cost)
            elif what == "ahead":
                ahead.append(cost)
                idle[n] = idle.get(n, 0) + cost
            else:
                timers.append(cost)
    # a tap is answered when its finger lifts, ~0.1 s after the pressed look: what it may
    # find in progress then is a step the App took meanwhile
    tap_arrivals = [held.get(n, 0) + cost for n, cost in taps.items()]
    return GameCounts(list(taps.values()), presses, scans or [0], ahead or [0],
                      list(idle.values()) or [0], timers or [0], devices or [0],
                      list(step.values()) + list(held.values()) or [0], tap_arrivals,
                      scan_arrivals or [0],
                      press_arrivals or [0], quiet or [0])


# --- aarch64 (--arm): the same paths in the arm64 root under qemu-user, counted by the
# plugin (benchmarks/arm/insn_count.c)

def arm_run(args: list[str], out: str, root: str = ROOT,
            env: dict[str, str] | None = None) -> list[list[str]]:
    """``python args`` as aarch64 code (``benchmarks/arm/run-counted``), in ``root``; the
    plugin's lines, split."""
    if os.path.exists(out):
        os.remove(out)
    done = subprocess.run([ARM_RUN, out, *args], capture_output=True, text=True, cwd=root,
                          env=env or dict(os.environ, PYTHONHASHSEED="0"))
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])} failed on aarch64 (qemu):\n"
                           f"{done.stderr[-2000:]}")
    with open(out) as fh:
        return [line.split() for line in fh]


def exit_counts(lines: list[list[str]]) -> tuple[int, int]:
    """(every thread, the main thread) at the process's end, from the plugin's lines."""
    ends = [line for line in lines if line[0] == "exit"]
    if len(ends) != 1:
        raise RuntimeError(f"the counting plugin wrote {len(ends)} exit lines, not 1")
    return int(ends[0][1]), int(ends[0][2])


def marked_costs(lines: list[list[str]]) -> list[int]:
    """The count of each stretch between markers (``mark_display_updates``): the first
    three markers, back to back, give a marker's own cost (the second to the third), taken
    off every stretch after them; each later marker closes one display update's stretch."""
    marks = [(int(line[1]), int(line[2])) for line in lines if line[0] == "mark"]
    if [seq for seq, _ in marks] != list(range(1, len(marks) + 1)) or len(marks) < 3:
        raise RuntimeError(f"the markers came out of order or too few: {marks[:5]} ...")
    counts = [count for _, count in marks]
    one = counts[2] - counts[1]
    return [b - a - one for a, b in zip(counts[2:-1], counts[3:], strict=True)]


def arm_instructions(path: str, repeat: int, folder: str, root: str = ROOT) -> int:
    """``instructions`` on aarch64: every thread's instructions to the process's end."""
    out = os.path.join(folder, f"arm.{path}.{repeat}.{abs(hash(root))}")
    lines = arm_run([os.path.abspath(__file__), "--path", path, "--repeat", str(repeat),
                     "--root", root], out, root)
    return exit_counts(lines)[0]


def arm_per_game(config: str, size: tuple[int, int], folder: str,
                 root: str = ROOT) -> GameCounts:
    """``per_game`` on aarch64: each display update's stretch, closed by a marker."""
    tag = f"{config}.{size[0]}x{size[1]}.{abs(hash(root))}"
    labels_path = os.path.join(folder, f"arm.labels.{tag}.json")
    lines = arm_run([os.path.abspath(__file__), "--game", config, "--size",
                     f"{size[0]}x{size[1]}", "--labels", labels_path, "--root", root],
                    os.path.join(folder, f"arm.game.{tag}"), root,
                    dict(os.environ, PYTHONHASHSEED="0", CG_MARKERS="1"))
    return _game_counts(f"aarch64 game {config} {size}", labels_path, marked_costs(lines))


def percentile(values: list[int], q: float) -> float:
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 100)) - 1))   # nearest rank
    return float(ordered[rank])


def verdict(path: str, one: float) -> str:
    return "PASS" if one <= TARGETS[path] else "FAIL"


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def _checkout(rev: str, folder: str) -> str:
    """A detached worktree of ``rev`` in ``folder`` (the code measured as "before")."""
    path = os.path.join(folder, "before")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "--quiet", path, rev],
                   check=True)
    return path


def _pool(jobs: int, work: list) -> list:
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:     # each job is a valgrind
        return list(pool.map(lambda job: job[0](*job[1:]), work))


def _m(v: float) -> str:
    return f"{v / 1e6:.2f} M"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES),
                    help="screen sizes of the whole games (default: all four)")
    ap.add_argument("--games", default=",".join(GAMES),
                    help=f"which whole games (default: all of {', '.join(GAMES)})")
    ap.add_argument("--jobs", type=int, default=2, help="valgrinds side by side (default 2)")
    ap.add_argument("--before", metavar="REV",
                    help="also measure git revision REV (e.g. main), in the same run")
    ap.add_argument("--only", choices=["cold_start"],
                    help="count only this path (not the whole games)")
    ap.add_argument("--no-paths", action="store_true",
                    help="only the whole games (not scan, light frame, cold start)")
    ap.add_argument("--arm", action="store_true",
                    help="also count this tree as aarch64 code (qemu-user and our plugin in "
                         "an arm64 root: sudo benchmarks/arm/setup-root first; run as root)")
    ap.add_argument("--path", choices=sorted(PATHS), help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--game", choices=sorted(GAMES), help=argparse.SUPPRESS)
    ap.add_argument("--size", default="800x480", help=argparse.SUPPRESS)
    ap.add_argument("--labels", default=os.devnull, help=argparse.SUPPRESS)
    ap.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.path or args.game:                      # one run, under valgrind
        import companion
        if not os.path.abspath(companion.__file__).startswith(os.path.abspath(args.root)):
            raise RuntimeError(f"measuring {companion.__file__}, not the code in {args.root}")
        if os.environ.get("CG_MARKERS") == "1":
            mark_display_updates()
        if args.game:
            whole_game(args.game, _size(args.size), args.labels)
        else:
            PATHS[args.path][0](args.repeat)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: sudo apt install valgrind)", file=sys.stderr)
        return 2
    if args.arm and os.geteuid() != 0:
        print("--arm runs the arm64 root with chroot: run as root", file=sys.stderr)
        return 2
    sizes = [_size(x) for x in args.sizes.split(",") if x]
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        ap.error(f"no such game: {', '.join(unknown)} (there are {', '.join(GAMES)})")
    import platform
    print(f"{platform.machine()}, Python {platform.python_version()}; instructions counted by "
          f"callgrind; Pi 4 at {PI4_IPS:.1e} instr/s, Pi Zero 2 W at {PI_ZERO2_IPS:.1e} instr/s")
    if args.arm:
        print("aarch64: this tree in a Debian bookworm arm64 root (Debian's python3 and "
              "python3-pygame) under qemu-user, counted by benchmarks/arm/insn_count.c; the "
              "Pi 4, Zero 2 W and verdict columns then use the aarch64 count")
    with tempfile.TemporaryDirectory() as folder:
        roots = [("after", ROOT)]
        if args.before:
            roots.insert(0, (f"before ({args.before})", _checkout(args.before, folder)))
        for _, root in roots:       # as installed: pip writes every module's .pyc; a fresh
            # checkout has none, and the first import of a module the game loads late (the
            # end screen's) compiled it inside an idle step (natively 8.3 ms in a fresh
            # tree, its largest step; with the .pyc, under 5.5 ms each)
            subprocess.run([sys.executable, "-m", "compileall", "-q",
                            os.path.join(root, "companion")], check=True)
        try:
            _report(roots, sizes, games, args, folder)
        finally:
            if args.before:
                subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force",
                                roots[0][1]], check=False)
    return 0


def _report(roots: list[tuple[str, str]], sizes, games, args, folder: str) -> None:
    if args.only:                        # --only cold_start
        sizes = games = []
    work = [(per_game, g, size, folder, root) for _, root in roots for size in sizes
            for g in games]
    counts = dict(zip([(root, size, g) for _, root in roots for size in sizes for g in games],
                      _pool(args.jobs, work), strict=True))
    if args.arm:                         # this tree only; one qemu at a time
        for size in sizes:
            for g in games:
                counts[("arm", size, g)] = arm_per_game(g, size, folder)
    _report_games(roots, sizes, games, counts, args.arm)
    if not args.no_paths:
        _report_paths(roots, args, folder)


def _zero(count: float) -> str:
    return f"{count / PI_ZERO2_IPS * 1000:6.1f}ms"


def _verdict(c: GameCounts) -> str:
    """Every figure of a whole game within its budget: tap and scan from their arrival
    (and a tap's pressed look), each idle step."""
    good = (percentile(c.tap_arrivals, 99) <= TARGETS["tap_to_frame"]
            and percentile(c.press_arrivals, 99) <= TARGETS["tap_to_frame"]
            and percentile(c.scan_arrivals, 99) <= TARGETS["scan_to_frame"]
            and max(c.waits) <= TARGETS["idle_step"])
    return "PASS" if good else "FAIL"


def _report_games(roots, sizes, games, counts, arm: bool) -> None:
    t, sc, st = TARGETS["tap_to_frame"], TARGETS["scan_to_frame"], TARGETS["idle_step"]
    print(f"\nwhole games: tap -> frame and scan -> frame, p99 of the per-input count from "
          f"its arrival (the largest idle step before it + its own work; a tap from its lift: "
          f"the largest step taken while its finger was down; targets {_m(t)} and "
          f"{_m(sc)} = {t / PI_ZERO2_IPS * 1000:.0f} ms on a Zero 2 W), and the largest idle "
          f"step (painted ahead, a deadline's frame or a quiet table's step; target {_m(st)})")
    head = "".join(f" | {name:>58}" for name, _ in roots)
    arm_head = f" | {'aarch64 (qemu), this tree':>58} | arm/x86  verdict" if arm else ""
    print(f"{'game':<8} {'size':>9}{head} | {'Zero 2 W':>8}  verdict{arm_head}")

    def cell(c: GameCounts) -> str:
        return (f"tap {_m(percentile(c.tap_arrivals, 99)):>8} press "
                f"{_m(percentile(c.press_arrivals, 99)):>8} scan "
                f"{_m(percentile(c.scan_arrivals, 99)):>8} step {_m(max(c.waits)):>8}")

    def more(c: GameCounts) -> str:
        return (f"own work only: tap p99 {_m(percentile(c.taps, 99))} p50 "
                f"{_m(percentile(c.taps, 50))} ({len(c.taps)}), press p99 "
                f"{_m(percentile(c.presses, 99))}, scan p99 {_m(percentile(c.scans, 99))} "
                f"({len(c.scans)}), seat button p99 {_m(percentile(c.devices, 99))}; painted "
                f"ahead: a step at most {_m(max(c.ahead))}, per input p50 "
                f"{_m(percentile(c.idle, 50))} / max {_m(max(c.idle))}; a deadline's frame "
                f"p99 {_m(percentile(c.timers, 99))}; a quiet table's step at most "
                f"{_m(max(c.quiet))} ({len(c.quiet)})")

    for size in sizes:
        for g in games:
            c = counts[(ROOT, size, g)]
            worst = max(percentile(c.tap_arrivals, 99), percentile(c.press_arrivals, 99),
                        percentile(c.scan_arrivals, 99))
            line = (f"{g:<8} {size[0]:>4}x{size[1]:<4}"
                    + "".join(f" | {cell(counts[(root, size, g)]):>58}" for _, root in roots)
                    + f" | {_zero(worst)}  {_verdict(c)}")
            extra = f"\n{'':18}({more(c)})"
            if arm:
                a = counts[("arm", size, g)]
                ratio = percentile(a.tap_arrivals, 99) / percentile(c.tap_arrivals, 99)
                line += f" | {cell(a):>58} | {ratio:6.2f}x  {_verdict(a)}"
                extra += f"\n{'':18}aarch64: ({more(a)})"
            print(line + extra)


def _report_paths(roots, args, folder: str) -> None:
    arm_head = f" {'aarch64':>14} {'arm/x86':>7}" if args.arm else ""
    print(f"\n{'hot path':<16}" + "".join(f" {name:>22}" for name, _ in roots) + arm_head
          + f" {'Pi 4':>9} {'Zero 2 W':>9} {'budget':>8} {'target':>8}")
    for path, (_fn, n) in PATHS.items():
        if (path == "tap_to_frame" and not args.arm) or args.only:
            continue                     # counted over whole games above
        ones = []
        for _, root in roots:
            pair = _pool(args.jobs, [(instructions, path, 2 * n, folder, root),
                                     (instructions, path, n, folder, root)])
            ones.append((pair[0] - pair[1]) / n)
        arm = ((arm_instructions(path, 2 * n, folder) - arm_instructions(path, n, folder)) / n
               if args.arm else None)
        _path_line(path, ones, arm)
    # the cold start: `coffee-companion run` to READY=1, every thread (main thread apart)
    starts = [cold_start_instructions(folder, root) for _, root in roots]
    start = cold_start_instructions(folder, arm=True) if args.arm else None
    _path_line("cold_start", [v for v, _ in starts], start and start[0],
               f"  (main thread {starts[-1][1]:,.0f}"
               + (f", aarch64 {start[1]:,.0f}" if start else "")
               + "; 200-game journal, phone view and MQTT)")


def _path_line(path: str, ones: list[float], arm: float | None, more: str = "") -> None:
    """One path's row: the x86-64 counts of each tree; with ``arm``, this tree's aarch64
    count and its ratio to x86-64, and the Zero 2 W time and verdict from it."""
    one = ones[-1]
    cells = "".join(f" {v:22,.0f}" for v in ones)
    if arm:
        cells += f" {arm:14,.0f} {arm / one:6.2f}x"
    count = arm or one
    pi4 = count / PI4_IPS * 1000
    label = {"tap_to_frame": "tap (synthetic)"}.get(path, path)
    print(f"{label:<16}{cells} {pi4:7.2f}ms {_zero(count):>9} {BUDGETS_MS[path]:6.1f}ms"
          f" {_m(TARGETS[path]):>8}  {verdict(path, count)}{more}")

if __name__ == "__main__":
    sys.exit(main())
