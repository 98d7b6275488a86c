"""Memory of the whole service over a long day: RSS through a 500-game soak.

    python benchmarks/bench_memory.py [--games 500] [--every 50]

Runs ``Service`` as ``coffee-companion run`` wires it, in a process of its own: the
touchscreen (SDL's offscreen video driver: a real window surface in memory), the phone
view on loopback, MQTT to a real Mosquitto (Debian's, on a free loopback port), sound
(SDL's dummy audio driver) and the voice (espeak-ng) on, the simulated buttons and light
strip (gpiozero's MockFactory). Games are posted to the table loop's input queue as the
touchscreen posts its actions, one game after the other as fast as the table takes them;
each game is recorded by the journal (on /dev/shm when there is one: the soak measures
memory, not the card's fsync), drawn, published and spoken like any other.

Printed: the process's resident memory (VmRSS, /proc/self/status) after start-up and
every ``--every`` games, and beside it its child processes' (PSS): avahi-publish-service,
which has the system's avahi-daemon announce the phone view (when an avahi-daemon runs:
start one, or the service warns and announces nothing), espeak-ng while it speaks.

Each reading is taken once the service has settled after that game, as it does between
games at a real table (a game lasts half an hour; here the next one would follow within
a tenth of a second): the table loop's inputs all taken, every output caught up (the
voice's sentences said, the sound's played, MQTT's updates sent, the screen's updates
drawn) and the screen quiet long enough to give the C heap's free pages back
(``App.give_back_when_quiet``). Beside it: the memory at the moment the game ended
(speech waiting to be played, updates not yet sent) and, at the end, the process's
high-water mark (VmHWM: the most it ever held, transients included).
Target (issue 38): at most 100 MB RSS in the steady state
(after the first 50 games, when the caches are warm) and flat: the last reading at
most 2 MB above the one at game 50.

``BENCH_SMAPS=1``: where the memory is (RSS by mapping, the live pygame surfaces and who
holds their pixels, open fonts, SQLite's memory, the kinds of Python objects that grew);
``BENCH_CONFIG='[sound]\\nenabled = false\\n'``: more config lines, to bisect by turning an
output off (``BENCH_WEB=0``, ``BENCH_MQTT=0``: without the phone view, without MQTT);
``BENCH_TRIM=1``: glibc's ``malloc_trim`` before each reading (freed, not held?).
With ``BENCH_SMAPS``: ``=anon`` splits anonymous memory by mapping size (Python's object
arenas are 1 MiB mappings, merged when side by side), ``BENCH_SMAPS_DUMP=PATH`` copies
/proc/self/smaps to PATH.<seconds> at each look, ``BENCH_PYMALLOC=1`` prints Python's
allocator statistics (``sys._debugmallocstats``); ``BENCH_MODULES=PATH``: the modules
imported by the end, one a line (to weigh them one by one in a fresh interpreter).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

TARGET_MB = 100.0
FLAT_MB = 2.0
WARM_GAMES = 50


def rss_mb(field: str = "VmRSS") -> float:
    if os.environ.get("BENCH_TRIM"):
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def unsettled(svc) -> list[str]:
    """What the service still has to do (empty: settled, as between games): inputs not
    taken, outputs with work in hand (handed over and not taken; the voice rendering or
    the sound playing: their threads not asleep; MQTT's updates not sent), the screen's
    updates not drawn or its free heap pages not given back yet. The lights' shows (the
    winner's lasts 20 s) run on their clock and hold nothing: not waited for."""
    from companion.core.worker import Worker
    from companion.outputs.lights.controller import LightsController
    from companion.outputs.mqtt.publisher import MqttPublisher
    busy = [] if svc.loop.inputs.empty() else ["table loop"]
    for out in svc.outputs:
        if isinstance(out, Worker):
            with out._cond:
                if out._has_work() or not (out._asleep or isinstance(out, LightsController)):
                    busy.append(out.thread_name)
        elif isinstance(out, MqttPublisher) and out._inbox.qsize():
            busy.append("MQTT")
    app = svc.app
    if app is not None and (app.catching_up or app._given_back_at != app.frames):
        busy.append("screen")
    return busy


def settle(svc, timeout: float = 60.0) -> str:
    """Wait until the service has settled (``unsettled``); how long it took."""
    started = time.monotonic()
    while busy := unsettled(svc):
        if time.monotonic() - started > timeout:
            return f"not settled after {timeout:.0f} s: {', '.join(busy)}"
        svc.stopping.wait(0.05)
    return f"settled in {time.monotonic() - started:4.1f} s"


def children_mb() -> str:
    """The child processes' memory beside the service's (avahi-publish-service announcing the
    phone view; espeak-ng while it speaks): proportional set size (PSS: the libraries they
    share with other processes counted by share), and their names."""
    total, names = 0, []
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                stat = fh.read()
            if stat[stat.rfind(")") + 2:].split()[1] != me:
                continue
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                pss = next(int(line.split()[1]) for line in fh if line.startswith("Pss:"))
        except (OSError, StopIteration):
            continue            # ended meanwhile
        total += pss
        names.append(stat[stat.find("(") + 1:stat.rfind(")")])
    return f"{total / 1024:.1f} MB PSS in {', '.join(names)}" if names else "none"


def smaps(top: int = 15) -> str:
    """Where the resident memory is: RSS by mapped file (anonymous memory as [anon])."""
    sizes: dict[str, int] = {}
    name = ""
    if os.environ.get("BENCH_SMAPS_DUMP"):
        import shutil
        shutil.copy("/proc/self/smaps", f"{os.environ['BENCH_SMAPS_DUMP']}.{time.monotonic():.0f}")
    with open("/proc/self/smaps") as fh:
        for line in fh:
            first = line.split()
            if "-" in first[0] and ":" not in first[0]:
                name = first[5] if len(first) > 5 else "[anon]"
                if name == "[anon]" and os.environ.get("BENCH_SMAPS") == "anon":
                    low, high = (int(x, 16) for x in first[0].split("-"))
                    size = high - low
                    name = (f"[anon {size >> 20} MB mapping]" if size >= 1 << 20 else
                            f"[anon {size >> 10} KB mapping]")
            elif first[0] == "Rss:":
                sizes[name] = sizes.get(name, 0) + int(first[1])
    biggest = sorted(sizes.items(), key=lambda kv: -kv[1])[:top]
    return "\n".join(f"  {kb / 1024:7.1f} MB  {path}" for path, kb in biggest)


_counts: dict[str, int] = {}
_app = None


def caches() -> str:
    """The screen's text caches: how many entries, how many bytes of pixels."""
    from companion.outputs.screen import widgets
    surfaces = widgets._render_cache.values()
    pixels = sum(s.get_width() * s.get_height() * s.get_bytesize() for s in surfaces)
    import ctypes
    import ctypes.util
    sqlite = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
    sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    import gc
    import sqlite3
    import pygame
    from collections import Counter
    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
    global _counts
    if _counts:
        grown = sorted(((n - _counts.get(t, 0), t) for t, n in counts.items()), reverse=True)
        print("  objects grown since the last look:", grown[:15])
    _counts = counts
    held: dict[int, object] = {}     # pygame's objects are not tracked: find them in containers
    for o in gc.get_objects():
        for r in gc.get_referents(o):
            if isinstance(r, (pygame.Surface, pygame.font.Font, sqlite3.Connection)):
                held[id(r)] = r
    live = [o for o in held.values() if isinstance(o, pygame.Surface)]
    live_px = sum(s.get_width() * s.get_height() * s.get_bytesize() for s in live)
    fonts = sum(1 for o in held.values() if isinstance(o, pygame.font.Font))
    conns = sum(1 for o in held.values() if isinstance(o, sqlite3.Connection))
    names = {id(v): f"{m.__name__}.{k}" for m in list(sys.modules.values())
             for k, v in list(getattr(m, "__dict__", {}).items())}
    names.update({id(o.__dict__): f"{type(o).__qualname__} object" for o in gc.get_objects()
                  if hasattr(o, "__dict__") and not isinstance(o, type)})
    holders: dict[str, list[int]] = {}    # who holds the pixels
    for o in gc.get_objects():
        if o is held or o is live or type(o) is tuple:
            continue
        px = sum(r.get_width() * r.get_height() * r.get_bytesize()
                 for r in gc.get_referents(o) if isinstance(r, pygame.Surface))
        if px:
            where = names.get(id(o), type(o).__qualname__)
            got = holders.setdefault(where, [0, 0])
            got[0] += 1
            got[1] += px
    from companion.outputs.screen import widgets
    shapes = sorted(((k[0] * k[1], k[:2]) for k in list(widgets._shapes)), reverse=True)
    print(f"  {len(shapes)} shapes ({widgets._shapes.bytes / 2**20:.2f} MB held by SDL, "
          f"corner stamps {widgets._stamps.bytes / 2**20:.2f} MB), biggest:", shapes[:10])
    for where, (n, px) in sorted(holders.items(), key=lambda kv: -kv[1][1])[:12]:
        print(f"  {px / 2**20:6.2f} MB in {n:4d} {where}")
    print(f"  live: {len(live)} surfaces, {live_px / 2**20:.1f} MB of pixels; {fonts} pygame "
          f"fonts; {conns} SQLite connections; {threading.active_count()} threads", flush=True)
    print(heap(), flush=True)
    if os.environ.get("BENCH_PYMALLOC"):
        sys.stderr.flush()
        sys._debugmallocstats()
    from companion.words import fonts as book
    faces = [face for chain in book.book()._cache.values() for face in chain.faces]
    print(f"  type faces: {sum(f.is_open for f in faces)} open of {len(faces)}; "
          f"screen frames {getattr(_app, 'frames', '?')}", flush=True)
    return (f"  rendered text: {len(surfaces)} surfaces, {pixels / 2**20:.1f} MB of pixels; "
            f"{len(widgets._font_cache)} fonts open; SQLite "
            f"{sqlite.sqlite3_memory_used() / 2**20:.1f} MB; Python "
            f"{sys.getallocatedblocks()} blocks, {len(sys.modules)} modules")


def heap() -> str:
    """glibc's view of the C heap (``mallinfo2``, every arena): what its arenas hold, in use
    and free (freed blocks between live ones stay resident), and the blocks mapped apart."""
    import ctypes

    class Mallinfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks",
                    "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]
    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = Mallinfo2
    m = libc.mallinfo2()
    return (f"  malloc: arenas {m.arena / 2**20:.1f} MB (in use {m.uordblks / 2**20:.1f}, free "
            f"{m.fordblks / 2**20:.1f}), mapped apart {m.hblkhd / 2**20:.1f} MB in {m.hblks}")


def child(config: str, games: int, every: int) -> int:
    """The service, and a driver thread playing ``games`` games into its input queue."""
    from benchmarks.games import finished_game
    from companion.appliance import config as config_mod
    from companion.core import events as ev
    from companion.appliance import logs
    from companion.appliance.service import Service

    logs.setup("warning")
    traced = bool(os.environ.get("BENCH_TRACEMALLOC"))      # where Python's memory grows
    if traced:
        import tracemalloc
        tracemalloc.start(8)
    snapshots = []
    cfg = config_mod.load(config, required=True)
    svc = Service(cfg)
    scripts = [[json.loads(line) for line in finished_game(seed, players=2 + seed % 3)]
               for seed in range(20)]
    over = threading.Event()
    failed: list[str] = []

    def watch(update) -> None:                 # the table loop's thread
        if any(h.kind == "game_over" for h in update.happened):
            over.set()
    svc.loop.subscribe(watch)

    def drive() -> None:
        try:
            deadline = time.monotonic() + 60
            while not (svc._adapters_started and svc._starter is not None
                       and not svc._starter.is_alive()):
                if time.monotonic() > deadline:
                    raise RuntimeError("the service did not start within 60 s")
                svc.stopping.wait(0.05)
            started = time.monotonic()
            global _app
            _app = svc.app
            print(f"rss after start-up: {rss_mb():6.1f} MB", flush=True)
            print(f"  child processes: {children_mb()}", flush=True)
            if os.environ.get("BENCH_SMAPS"):
                print(smaps(), flush=True)
                print(caches(), flush=True)
                modules = set(sys.modules)
            for n in range(1, games + 1):
                over.clear()
                for action in scripts[n % len(scripts)]:
                    svc.loop.post(ev.TouchAction(action))
                if not over.wait(120):
                    raise RuntimeError(f"game {n} did not end")
                if traced and n in (WARM_GAMES // 5, games):
                    snapshots.append(tracemalloc.take_snapshot())
                if os.environ.get("BENCH_SMAPS") and n in (games // 3, games):
                    print(smaps(), flush=True)
                    print(caches(), flush=True)
                    print("  imported since start-up:", " ".join(sorted(
                        m for m in set(sys.modules) - modules if "." not in m)), flush=True)
                if n % every == 0 or n == WARM_GAMES:
                    ended = rss_mb()
                    waited = settle(svc)
                    print(f"rss after {n:4d} games: {rss_mb():6.1f} MB "
                          f"({time.monotonic() - started:5.0f} s; {waited}; {ended:.1f} MB "
                          f"as the game ended)", flush=True)
                    print(f"  child processes: {children_mb()}", flush=True)
            print(f"high-water mark: {rss_mb('VmHWM'):6.1f} MB", flush=True)
        except Exception as exc:  # noqa: BLE001 - reported, then the service stops
            failed.append(str(exc))
        finally:
            svc.stopping.set()
            if svc.app is not None:
                svc.app.request_stop()

    threading.Thread(target=drive, name="soak", daemon=True).start()
    svc.run()
    if os.environ.get("BENCH_MODULES"):
        with open(os.environ["BENCH_MODULES"], "w") as fh:
            fh.write("\n".join(sys.modules))
    if snapshots:
        print("python's memory at the end, by file:", flush=True)
        for stat in snapshots[-1].statistics("filename")[:25]:
            print(f"  {stat.size / 1024:8.0f} KiB {stat.count:7d} blocks  "
                  f"{stat.traceback[0].filename}", flush=True)
    if len(snapshots) == 2:
        grown = snapshots[1].compare_to(snapshots[0], "traceback")
        for stat in grown[:6]:
            print(f"grew {stat.size_diff / 1024:8.0f} KiB in {stat.count_diff:+d} blocks:",
                  *stat.traceback.format()[-8:], sep="\n  ", flush=True)
    if failed:
        print(f"soak failed: {failed[0]}", flush=True)
        return 1
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--child", help=argparse.SUPPRESS)         # the measured process
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child, args.games, args.every)
    from benchmarks.service_setup import child_env, mosquitto, write_config
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.processor() or platform.platform()}, Python {platform.python_version()}")
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory(dir=shm) as fast:
        broker = mosquitto(os.path.join(folder, "broker"))
        try:
            config = write_config(folder, os.path.join(fast, "journal.db"),
                                  broker.port if os.environ.get("BENCH_MQTT") != "0" else None,
                                  web=os.environ.get("BENCH_WEB") != "0",
                                  extra=os.environ.get("BENCH_CONFIG", "").replace("\\n", "\n"))
            proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", config,
                                     "--games", str(args.games), "--every", str(args.every)],
                                    env=child_env(), cwd=ROOT, stdout=subprocess.PIPE, text=True)
            readings: dict[int, float] = {}
            assert proc.stdout is not None
            for line in proc.stdout:
                print(line, end="", flush=True)
                words = line.split()
                if line.startswith("rss after") and words[2] != "start-up:":
                    readings[int(words[2])] = float(words[4])
            code = proc.wait()
        finally:
            broker.stop()
    if code != 0 or not readings:
        print(f"FAIL: the soak did not finish (exit {code})")
        return 1
    steady = {n: mb for n, mb in readings.items() if n >= min(WARM_GAMES, max(readings))}
    peak, last = max(steady.values()), readings[max(readings)]
    growth = last - steady[min(steady)]
    ok = peak <= TARGET_MB and growth <= FLAT_MB
    print(f"steady state (games {min(steady)}-{max(steady)}): peak {peak:.1f} MB (target "
          f"{TARGET_MB:.0f} MB), growth {growth:+.1f} MB (at most {FLAT_MB:.0f} MB)  "
          f"{'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
