"""Café benchmark: many simulated tables into one Mosquitto and one hub.

    python benchmarks/bench_cafe.py [--tables 20] [--speed 10] [--seconds 15] [--rounds 2]

Each table is a real table loop with a durable SQLite journal and the demo's
bots, playing game after game at ``--speed`` times the screen demo's pace (one
input every 0.6 s / speed), each in its own process as each table has its own
Pi at a café. One Mosquitto (Debian's, on a free loopback port) and one hub
(``coffee-companion cafe`` in its own process, SQLite) run throughout;
``--rounds`` times, alternately, ``--seconds`` of:

1. without MQTT: the tables with no publisher;
2. with MQTT: every table's publisher on, reporting to the broker and the hub.

Printed:
- tap -> update p50/p99: a seat press posted to the table loop until every
  subscriber of that update has run (where the screen is woken to draw a frame),
  over all tables; the MQTT run must not differ from the first.
- the same for one table on its own (as on its own Pi), with and without MQTT.
- the publisher's own cost at a table: its time on the loop thread per update (all
  it does there is queue the update), and its threads' CPU per update.
- hub lag p50/p99/max: a table's update applied -> the hub has stored the state
  that shows it (the hub's ``/api/health``, same machine clock). Target p99 <= 1 s.
- results: finished games in the journals, and kept by the hub (must be equal).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from cafe_simulate import SimulatedTable, table_settings  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from tests.cafe_fixtures import Mosquitto, free_port, wait_until  # noqa: E402

VENUE = "bench"


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def one_table(args) -> int:
    """One table in this process (one Pi): play, then write its latencies and journal."""
    t = SimulatedTable(args.folder, table_settings("127.0.0.1", args.port or 1, VENUE,
                                                   f"table-{args.index + 1}"),
                       seed=100 + args.index, players=2 + args.index % 3,
                       edition=("original", "winter")[args.index % 2],
                       publish=args.port is not None).start()
    costs: list[float] = []                 # the publisher's own time on the loop thread
    if t.publisher is not None:
        if not t.publisher.connected.wait(20):
            raise SystemExit("a table could not reach the broker")
        publisher = t.publisher

        def timed(update) -> None:
            start = time.perf_counter()
            publisher(update)
            costs.append(time.perf_counter() - start)
        t.loop.subscribers[t.loop.subscribers.index(publisher.on_update)] = timed
    t.start_paced(0.6 / args.speed)
    threading.Event().wait(args.seconds)
    threads = [th for th in threading.enumerate()
               if th.name == "mqtt-publisher" or th.name.startswith("paho-mqtt")]
    cpu = sum(time.clock_gettime(time.pthread_getcpuclockid(th.ident)) for th in threads)
    t.close()
    with open(os.path.join(args.folder, "latencies.json"), "w") as fh:
        json.dump({"latencies": t.latencies, "journal": t.journal_path, "costs": costs,
                   "mqtt_cpu": cpu, "updates": len(costs)}, fh)
    return 0


def play(folder: str, n: int, speed: float, seconds: float, port: int | None) -> list:
    """``n`` tables, each in its own process as at a café (one Pi each)."""
    procs, folders = [], []
    for i in range(n):
        folders.append(os.path.join(folder, f"t{i}"))
        os.makedirs(folders[-1])
        procs.append(subprocess.Popen(
            [sys.executable, __file__, "--one-table", str(i), "--folder", folders[-1],
             "--speed", str(speed), "--seconds", str(seconds)]
            + (["--port", str(port)] if port else [])))
    for p in procs:
        if p.wait(seconds + 60) != 0:
            raise SystemExit("a simulated table failed")
    out = []
    for f in folders:
        with open(os.path.join(f, "latencies.json")) as fh:
            out.append(json.load(fh))
    return out


def finished(tables: list) -> int:
    count = 0
    for t in tables:
        with Journal(t["journal"], readonly=True) as j:
            count += sum(1 for g in j.games() if g.ended_at is not None)
    return count


def report(name: str, tables: list) -> None:
    lat = [x for t in tables for x in t["latencies"]]
    print(f"{name:<14} taps {len(lat):>6}  tap->update p50 {pct(lat, 50) * 1000:6.2f} ms  "
          f"p99 {pct(lat, 99) * 1000:6.2f} ms  games finished {finished(tables)}")
    costs = [x for t in tables for x in t["costs"]]
    if costs:
        updates = sum(t["updates"] for t in tables)
        cpu = sum(t["mqtt_cpu"] for t in tables)
        print(f"{'':<14} publisher on the loop thread per update: p50 "
              f"{pct(costs, 50) * 1e6:.0f} us, p99 {pct(costs, 99) * 1e6:.0f} us; its threads' "
              f"CPU (publisher + paho) {cpu / updates * 1000:.2f} ms per update")


def health(url: str) -> dict:
    with urllib.request.urlopen(url + "/api/health", timeout=5) as r:
        return json.load(r)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--speed", type=float, default=10.0)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--one-table", type=int, dest="index", help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.index is not None:
        return one_table(args)
    print(f"{args.tables} tables at {args.speed:g}x ({0.6 / args.speed * 1000:.0f} ms between "
          f"one table's inputs), {args.rounds} rounds of {args.seconds:g} s without and "
          f"{args.seconds:g} s with MQTT, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-cafe-") as folder:
        os.makedirs(os.path.join(folder, "broker"))
        broker = Mosquitto(os.path.join(folder, "broker")).start()
        web = free_port()
        cfg = os.path.join(folder, "hub.toml")
        with open(cfg, "w") as fh:
            fh.write(f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nvenue = "{VENUE}"\n'
                     f'[cafe]\ndatabase = "{folder}/cafe.db"\nbind = "127.0.0.1"\n'
                     f'port = {web}\n')
        hub = subprocess.Popen([sys.executable, "-m", "companion", "--config", cfg, "cafe",
                                "--log-level", "warning"], stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{web}"
        try:
            if not wait_until(lambda: _up(url), 20, 0.1):
                raise SystemExit("the hub did not start")
            alone, with_mqtt = [], []
            for r in range(args.rounds):      # alternated, so both see the same machine
                alone += play(os.path.join(folder, f"alone{r}"), args.tables, args.speed,
                              args.seconds, None)
                with_mqtt += play(os.path.join(folder, f"mqtt{r}"), args.tables, args.speed,
                                  args.seconds, broker.port)
            report("without MQTT", alone)
            report("with MQTT", with_mqtt)
            games = finished(with_mqtt)
            probe_alone, probe_mqtt = [], []
            for r in range(args.rounds):      # one table on its own, as on its own Pi
                probe_alone += play(os.path.join(folder, f"probe-alone{r}"), 1, args.speed,
                                    args.seconds, None)
                probe_mqtt += play(os.path.join(folder, f"probe-mqtt{r}"), 1, args.speed,
                                   args.seconds, broker.port)
            report("1 table alone", probe_alone)
            report("1 table, MQTT", probe_mqtt)
            games += finished(probe_mqtt)
            wait_until(lambda: health(url)["counts"].get("results_new", 0) >= games, 10, 0.1)
            h = health(url)
            lag = h["lag_s"]
            print(f"hub lag        states {lag['samples']:>6}  p50 {lag['p50'] * 1000:6.1f} ms  "
                  f"p99 {lag['p99'] * 1000:6.1f} ms  max {lag['max'] * 1000:6.1f} ms")
            print(f"results        in the journals {games}, kept by the hub "
                  f"{h['counts'].get('results_new', 0)} "
                  f"(duplicates ignored {h['counts'].get('results_duplicate', 0)}, "
                  f"corrected {h['counts'].get('results_corrected', 0)})")
        finally:
            hub.terminate()
            hub.wait(10)
            broker.stop()
    return 0


def _up(url: str) -> bool:
    try:
        return health(url)["broker"]
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main())
