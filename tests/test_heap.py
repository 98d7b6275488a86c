"""The C heap for a long day (companion/appliance/heap.py)."""
from __future__ import annotations

import platform

import pytest

from companion.appliance import heap
from timing import scaled


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_fixed_mmap_threshold_and_one_heap():
    assert heap.for_a_long_day() is True


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_the_quiet_moments_give_back_does_not_open_libc_again(monkeypatch):
    """``for_a_long_day`` (at start) looks up ``malloc_trim`` too: the first quiet moment's
    step then only trims (opening libc there cost it about 4 M instructions, a touch's wait)."""
    import ctypes
    monkeypatch.setattr(heap, "_trim", None)
    assert heap.for_a_long_day() is True
    opened = []
    real = ctypes.CDLL
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: opened.append(a) or real(*a, **k))
    heap.give_back()
    heap.give_back()
    assert opened == []


def test_a_process_that_did_not_start_as_the_service_still_gives_back(monkeypatch):
    monkeypatch.setattr(heap, "_trim", None)
    heap.give_back()
    assert heap._trim is not None       # looked up once: glibc's function, or False elsewhere


def test_a_c_library_without_mallopt_is_left_as_it_is(monkeypatch):
    import ctypes

    def no_libc(name, *args, **kwargs):
        raise OSError(f"{name}: cannot open shared object file")
    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    assert heap.for_a_long_day() is False


_THREADS_HEAPS = """
import ctypes, os, sys, tempfile, threading
from companion.appliance import heap
if sys.argv[1] == "tuned":
    assert heap.for_a_long_day()
kept = []
def work():
    kept.append([bytearray(2000) for _ in range(100)])     # glibc's malloc (over 512 bytes)
threads = [threading.Thread(target=work) for _ in range(6)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc = ctypes.CDLL("libc.so.6")
libc.fdopen.restype = ctypes.c_void_p
libc.fdopen.argtypes = [ctypes.c_int, ctypes.c_char_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
with tempfile.TemporaryFile() as fh:
    stream = libc.fdopen(os.dup(fh.fileno()), b"w")
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    fh.seek(0)
    print(fh.read().count(b"<heap nr="))
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_threads_started_after_share_the_one_heap():
    import subprocess
    import sys

    def heaps(how: str) -> int:
        out = subprocess.run([sys.executable, "-c", _THREADS_HEAPS, how], check=True,
                             capture_output=True, text=True, timeout=scaled(60)).stdout
        return int(out)
    assert heaps("tuned") == 1
    assert heaps("default") > 1         # glibc's default: a heap per new thread


def test_the_service_settles_the_heap_before_it_starts_a_thread(tmp_path, monkeypatch):
    import threading

    from companion.appliance import config
    from companion.appliance.service import Service
    from service_helpers import table_config

    before = set(threading.enumerate())
    seen: list[set] = []
    monkeypatch.setattr(heap, "for_a_long_day",
                        lambda: seen.append(set(threading.enumerate())) or True)
    svc = Service(config.load(table_config(tmp_path), required=True), headless=True)
    try:
        assert len(seen) == 1 and seen[0] <= before     # no thread of the service's yet
        svc.loop.start()                                # its threads come after
        assert set(threading.enumerate()) - before and len(seen) == 1
    finally:
        svc.shutdown()
