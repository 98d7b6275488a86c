"""Cold start of the service: process start -> first frame on screen and READY=1.

    python benchmarks/bench_coldstart.py [--runs 7]

Starts `coffee-companion run` as systemd would (a fresh Python process, the
config file, $NOTIFY_SOCKET pointing at a socket of this script) with a journal
of 200 finished games and one running, on SDL's offscreen video driver (a real
window surface in memory) with the simulated buttons and light strip and sound
on SDL's dummy audio driver. The service sends READY=1 right after App.run
drew its first frame, after the journal was opened and the running game
resumed. Measured: Popen() -> READY=1 datagram, per run; median and max.
Target: <= 1.5 s.
"""
from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.bench_core import build_journal  # noqa: E402

TARGET = 1.5


def one_start(config: str, folder: str) -> float:
    path = os.path.join(folder, f"notify-{time.perf_counter_ns()}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    env = dict(os.environ, NOTIFY_SOCKET=path, SDL_VIDEODRIVER="offscreen",
               SDL_AUDIODRIVER="dummy")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--config", config, "run"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            msg = sock.recv(4096).decode()
            if msg.startswith("READY=1"):
                took = time.perf_counter() - start
                if "fault" in msg:
                    raise SystemExit(f"the service started on a fault page: {msg}")
                return took
    finally:
        proc.terminate()
        proc.wait(10)
        sock.close()
        os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.processor() or platform.platform()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as d:
        journal = os.path.join(d, "journal.db")
        build_journal(journal)
        config = os.path.join(d, "config.toml")
        with open(config, "w", encoding="utf-8") as fh:
            fh.write(f'[journal]\npath = "{journal}"\n[catalog]\npaths = []\nexample = true\n'
                     '[seats]\ndriver = "simulated"\n[pixels]\ndriver = "simulated"\n'
                     '[display]\ndriver = "offscreen"\n')
        one_start(config, d)                      # warm the OS file cache, as after a boot
        times = [one_start(config, d) for _ in range(args.runs)]
    med, worst = statistics.median(times), max(times)
    ok = "OK" if med <= TARGET else "OVER"
    print(f"cold start (200-game journal) -> first frame + READY=1: median {med:.3f} s, "
          f"max {worst:.3f} s over {len(times)} runs; target {TARGET} s  {ok}")


if __name__ == "__main__":
    main()
