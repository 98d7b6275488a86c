"""The C heap for a long day (companion/appliance/heap.py)."""
from __future__ import annotations

import platform

import pytest

from companion.appliance import heap


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_the_fixed_mmap_threshold():
    assert heap.keep_big_blocks_apart() is True


def test_a_c_library_without_mallopt_is_left_as_it_is(monkeypatch):
    import ctypes

    def no_libc(name, *args, **kwargs):
        raise OSError(f"{name}: cannot open shared object file")
    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    assert heap.keep_big_blocks_apart() is False
