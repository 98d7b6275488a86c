"""The C heap for a long day: big blocks in mappings of their own, one heap for every thread.

The screen makes and drops surfaces all day (text, rounded panels, the end screen's QR code:
64 KB to 0.5 MB each), in pygame's C memory. glibc's malloc serves blocks that size from
its heap and raises its mmap threshold as they are freed, so that holes of every size pile
up in the heap and a freed block is seldom at its top where it could be given back: the
whole service's resident memory grew over a soak with nothing alive to show for it
(``benchmarks/bench_memory.py``, 2026-11-25: 101 -> 106.5 MB over games 50-150; with the
threshold fixed at 64 KB, 96.0 -> 97.0). ``for_a_long_day()`` fixes the threshold
(``mallopt(M_MMAP_THRESHOLD)``): blocks from 64 KB up are mapped on their own and unmapped
when freed.

It also gives every thread the one heap (``mallopt(M_ARENA_MAX, 1)``). By default glibc
gives each new thread a heap of its own (up to eight per core), and each keeps its own free
blocks: the service's dozen threads (the table loop, the screen, the phone view's, MQTT's,
the voice's, the sound's) held 4-5 MB that way, resident and mostly free, and more as the
day went on (2026-11-27, a 500-game soak: about 2 MB less with one heap). The threads take
turns on Python's lock anyway, so they seldom wait for malloc's. It is asked before the
service starts its first thread: a thread keeps the heap it was given.

On a C library that is not glibc it does nothing. ``give_back()`` returns the free pages
inside the heap to the system (``malloc_trim``); the screen calls it once the table has
been quiet for a few seconds (``App.give_back_when_quiet``).
"""
from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("companion.appliance.heap")

M_MMAP_THRESHOLD = -3          # glibc's <malloc.h>
M_ARENA_MAX = -8
BIG_BLOCK = 64 * 1024
ARENAS = 1


def for_a_long_day(threshold: int = BIG_BLOCK, arenas: int = ARENAS) -> bool:
    """Blocks of ``threshold`` bytes and more get mappings of their own, and the threads
    started from now share ``arenas`` heaps; True when the C library took both (glibc),
    False elsewhere (musl, macOS: left as they are)."""
    global _trim
    import ctypes          # about 7 M instructions: the first frame waits for it
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    _trim = _looked_up_trim(libc)     # (so the first quiet moment does not open libc again)
    taken = bool(mallopt(M_MMAP_THRESHOLD, threshold)) & bool(mallopt(M_ARENA_MAX, arenas))
    log.debug("malloc: blocks from %d bytes mapped apart, %d heap(s) for every thread: %s",
              threshold, arenas, taken)
    return taken


_trim: Any = None             # glibc's malloc_trim once looked up; False: there is none


def _looked_up_trim(libc: Any) -> Any:
    """``libc``'s ``malloc_trim`` ready to call, or False where it has none."""
    import ctypes
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return False
    trim.argtypes = [ctypes.c_size_t]
    return trim


def give_back() -> bool:
    """Free pages inside the C heap returned to the system (glibc's ``malloc_trim``: freed
    blocks between live ones stay resident until then). False where the C library has no
    ``malloc_trim`` (musl, macOS) or nothing was returned. Looked up by ``for_a_long_day``
    at start (a process that did not call it opens libc here, once)."""
    global _trim
    if _trim is None:
        import ctypes
        try:
            _trim = _looked_up_trim(ctypes.CDLL("libc.so.6"))
        except OSError:
            _trim = False
    return bool(_trim(0)) if _trim else False
