"""The C heap for a long day: big blocks in mappings of their own, returned when freed.

The screen makes and drops surfaces all day (text, rounded panels, the end screen's QR code:
64 KB to 0.5 MB each), in pygame's C memory. glibc's malloc serves blocks that size from
its heap and raises its mmap threshold as they are freed, so that holes of every size pile
up in the heap and a freed block is seldom at its top where it could be given back: the
whole service's resident memory grew over a soak with nothing alive to show for it
(``benchmarks/bench_memory.py``, 2026-11-25: 101 -> 106.5 MB over games 50-150; with the
threshold fixed at 64 KB, 96.0 -> 97.0). ``keep_big_blocks_apart()`` fixes the threshold
(``mallopt(M_MMAP_THRESHOLD)``): blocks from 64 KB up are mapped on their own and unmapped
when freed. On a C library that is not glibc it does nothing. ``give_back()`` returns the
free pages inside the heap to the system (``malloc_trim``) after the screen closed the type
faces it did not use for a game.
"""
from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("companion.appliance.heap")

M_MMAP_THRESHOLD = -3          # glibc's <malloc.h>
BIG_BLOCK = 64 * 1024


def keep_big_blocks_apart(threshold: int = BIG_BLOCK) -> bool:
    """Blocks of ``threshold`` bytes and more get mappings of their own; True when the C
    library took it (glibc), False elsewhere (musl, macOS: left as they are)."""
    import ctypes          # here: off the path to the first frame (about 7 M instructions)
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    taken = bool(mallopt(M_MMAP_THRESHOLD, threshold))
    log.debug("malloc: blocks from %d bytes mapped apart: %s", threshold, taken)
    return taken


_trim: Any = None             # glibc's malloc_trim once looked up; False: there is none


def give_back() -> bool:
    """Free pages inside the C heap returned to the system (glibc's ``malloc_trim``: freed
    blocks between live ones stay resident until then). False where the C library has no
    ``malloc_trim`` (musl, macOS) or nothing was returned."""
    global _trim
    if _trim is None:
        import ctypes
        try:
            _trim = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _trim = False
            return False
        _trim.argtypes = [ctypes.c_size_t]
    return bool(_trim(0)) if _trim else False
