"""False-accept rates of the scanner protocol (issue 9): bit flips and line noise.

    python benchmarks/bench_scanner_errors.py [--trials 100000] [--noise-mb 8] [--seed 9]

1. Bit flips: random SCAN lines (random sequence numbers, 4- and 7-byte
   UIDs) get 1 to 8 distinct random bits flipped (the terminator excluded),
   then go through the host's real decoder as a port in that protocol reads
   them: v1 lines (CRC-8) as from firmware 0.1.x, v2 lines (CRC-16/CCITT) as
   from a port that has spoken v2. A flipped line "passes" when it decodes to
   a message other than the one sent (a flip that only changes the case of a
   CRC hex digit gives the same message back: not counted); it is a "false
   card" when it decodes to a SCAN of another UID.
2. Noise: random bytes (and, harder, random printable ASCII lines) through
   the real ``ScannerStream`` in protocol mode and in plain mode with the
   default tag pattern; every card it yields is false.

Prints the counts and rates; firmware/PROTOCOL.md quotes them.
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from companion.devices import scanner_protocol as sp  # noqa: E402


def scan_line(rng: random.Random, version: int) -> tuple[bytes, str]:
    uid = rng.randbytes(rng.choice((4, 7))).hex().upper()
    return sp.encode(sp.Scan(rng.randint(1, sp.SEQ_MAX), uid), version)[:-1], uid


def flip(line: bytes, bits: int, rng: random.Random) -> bytes:
    out = bytearray(line)
    for at in rng.sample(range(len(line) * 8), bits):
        out[at // 8] ^= 1 << (at % 8)
    return bytes(out)


def bit_flips(trials: int, seed: int) -> None:
    print(f"bit flips: {trials:,} damaged SCAN lines per row")
    print("| bits | v1 passed | v1 false cards | v2 passed | v2 false cards |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for bits in range(1, 9):
        row = []
        for version in (1, 2):
            rng = random.Random(seed * 100 + bits * 10 + version)
            passed = false_cards = 0
            for _ in range(trials):
                line, uid = scan_line(rng, version)
                got = sp.decode_line(flip(line, bits, rng), allow_plain=False,
                                     allow_v1=version == 1)
                if not isinstance(got, sp.DecodeFailure) and got != sp.decode_line(line):
                    passed += 1
                    if isinstance(got, sp.Scan) and got.uid != uid:
                        false_cards += 1
            row += [passed, false_cards]
        print(f"| {bits} | {row[0]} ({row[0] / trials:.1e}) | {row[1]} | "
              f"{row[2]} ({row[2] / trials:.1e}) | {row[3]} |")


def noise(megabytes: int, seed: int) -> None:
    rng = random.Random(seed)
    size = megabytes << 20
    random_bytes = rng.randbytes(size)
    printable = bytearray()
    while len(printable) < size:                   # lines of 1-40 printable characters
        printable += bytes(rng.randint(0x20, 0x7E) for _ in range(rng.randint(1, 40))) + b"\n"
    print(f"\nnoise: {megabytes} MB each")
    print("| noise | mode | lines | false cards |")
    print("| --- | --- | ---: | ---: |")
    for name, data in (("random bytes", random_bytes), ("printable ASCII lines", printable)):
        for mode, pattern in (("protocol", None), ("plain", sp.DEFAULT_PLAIN_PATTERN)):
            stream = sp.ScannerStream(max_line=128, plain_pattern=pattern)
            cards = lines = 0
            for at in range(0, len(data), 4096):
                for received in stream.feed(data[at:at + 4096]):
                    lines += 1
                    cards += sp.card_scanned(received.item) is not None
            print(f"| {name} | {mode} | {lines:,} | {cards} |")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=100_000)
    p.add_argument("--noise-mb", type=int, default=8)
    p.add_argument("--seed", type=int, default=9)
    args = p.parse_args()
    print(f"{platform.machine()}, Python {platform.python_version()}, seed {args.seed}")
    started = time.perf_counter()
    bit_flips(args.trials, args.seed)
    noise(args.noise_mb, args.seed)
    print(f"\n{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
