"""Cold start of the service: process start -> first frame on screen and READY=1.

    python benchmarks/bench_coldstart.py [--runs 7]

Starts `coffee-companion run` as systemd would (a fresh Python process, the
config file, $NOTIFY_SOCKET pointing at a socket of this script) with a journal
of 200 finished games and one running, the phone view and MQTT configured (a real
Mosquitto on a free loopback port), on SDL's offscreen video driver (a real
window surface in memory) with the simulated buttons and light strip and sound
and voice on SDL's dummy audio driver (``benchmarks/service_setup.py``). The
service sends READY=1 right after App.run drew its first frame, after the journal
was opened and the running game resumed. Measured: Popen() -> READY=1 datagram,
per run; median and max. Target: <= 1.5 s.
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
from benchmarks.service_setup import ROOT, child_env, mosquitto, write_config  # noqa: E402

TARGET = 1.5


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(config: str, folder: str) -> tuple[float, float]:
    path = os.path.join(folder, f"notify-{time.perf_counter_ns()}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    env = child_env(NOTIFY_SOCKET=path)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--config", config, "run"],
                            env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        while True:
            msg = sock.recv(4096).decode()
            if msg.startswith("READY=1"):
                took = time.perf_counter() - start
                if "fault" in msg:
                    raise SystemExit(f"the service started on a fault page: {msg}")
                return took, cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)
        sock.close()
        os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-web", action="store_true", help="without the phone view")
    ap.add_argument("--no-mqtt", action="store_true", help="without MQTT")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.processor() or platform.platform()}, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as d:
        journal = os.path.join(d, "journal.db")
        build_journal(journal)
        broker = None if args.no_mqtt else mosquitto(os.path.join(d, "broker"))
        try:
            config = write_config(d, journal, broker and broker.port, web=not args.no_web)
            one_start(config, d)                  # warm the OS file cache, as after a boot
            runs = [one_start(config, d) for _ in range(args.runs)]
        finally:
            if broker is not None:
                broker.stop()
    times, cpu = [r[0] for r in runs], [r[1] for r in runs]
    med, worst = statistics.median(times), max(times)
    ok = "OK" if med <= TARGET else "OVER"
    without = "".join(f", no {what}" for what, no in (("phone view", args.no_web),
                                                       ("MQTT", args.no_mqtt)) if no)
    print(f"cold start (200-game journal{without}) -> first "
          f"frame + READY=1: median {med:.3f} s, max {worst:.3f} s over {len(times)} runs; "
          f"target {TARGET} s  {ok}")
    print(f"  CPU time of the process until READY=1 (all threads): median "
          f"{statistics.median(cpu):.2f} s")


if __name__ == "__main__":
    main()
