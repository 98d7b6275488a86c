"""What an evening of games writes to the SD card: bytes per game through the journal.

An evening: ``--games`` finished games (2-4 players, scans and all, the benchmark games),
each action its own durable transaction as the table loop records it (WAL,
synchronous=FULL), on a real file system (``--dir``, default /var/tmp: not a RAM disk).
Counted: the bytes the kernel sent to the block device for this process (/proc/self/io
``write_bytes``, which includes the WAL, the checkpoints into the database file and the
journal's lock file), and the bytes handed to write() (``wchar``); the journal's size at
the end. Prints the totals and per game / per action.

    python -m benchmarks.bench_sd_writes [--games 12] [--dir /var/tmp]
"""
from __future__ import annotations

import argparse
import os
import platform
import tempfile

from companion.core.journal import Journal
from companion.core.session import Session

from .games import finished_game


def io_counters() -> dict[str, int]:
    with open("/proc/self/io", encoding="ascii") as fh:
        return {k: int(v) for k, v in (line.split(":") for line in fh)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=12, help="games in the evening (default 12)")
    ap.add_argument("--dir", default="/var/tmp", help="a folder on the disk to measure")
    args = ap.parse_args()
    games = [finished_game(seed, players=2 + seed % 3) for seed in range(args.games)]
    actions = sum(len(g) for g in games)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, "
          f"file system of {args.dir}: {os.statvfs(args.dir).f_bsize} B blocks")
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        path = os.path.join(d, "journal.db")
        os.sync()
        before = io_counters()
        with Journal(path) as j:              # durable: as the service records
            s = Session(j)
            for game in games:
                for line in game:
                    s.apply_line(line)
        os.sync()
        after = io_counters()
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    written = after["write_bytes"] - before["write_bytes"]
    handed = after["wchar"] - before["wchar"]
    print(f"{args.games} games, {actions} actions ({actions / args.games:.0f} a game)")
    print(f"to the disk (write_bytes): {written / 1e6:.2f} MB, "
          f"{written / args.games / 1e3:.0f} kB a game, {written / actions / 1e3:.1f} kB an action")
    print(f"handed to write() (wchar): {handed / 1e6:.2f} MB, "
          f"{handed / args.games / 1e3:.0f} kB a game")
    print(f"the journal's files at the end: {size / 1e3:.0f} kB "
          f"({size / args.games / 1e3:.1f} kB a game)")
    if written == 0:
        print("write_bytes stayed 0: this file system does not count block writes "
              "(a RAM disk, or a container without I/O accounting)")


if __name__ == "__main__":
    main()
