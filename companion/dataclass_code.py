"""The code ``@dataclass`` generates, compiled once and kept beside the byte code (issue 19).

For every record class, ``dataclasses`` writes the source text of its ``__init__``,
``__repr__``, ``__eq__``, ``__hash__`` and (frozen) ``__setattr__``/``__delattr__`` and hands
it to ``exec``: Python parses and compiles that text again at every start. For the
companion's hundred-odd records that was about 290 M of the ~860 M instructions from the
interpreter's start to the first frame (the parser on 165 kB of generated text), the largest
single part of a cold start on a Pi Zero 2 W.

The text depends only on a class's fields and options, so its compiled code can be kept as a
module's is: keyed by the exact text, in ``__pycache__``, read back with ``marshal``.
``dataclasses`` itself is unchanged: only the name ``exec`` in its namespace is this
module's ``exec``, which compiles through the cache and then runs Python's own ``exec`` with
the same globals and locals, so each class gets exactly what the text says (a changed
record has a new text: a miss, compiled and kept). Same rule as the byte code: nothing is
written when byte code is not (``PYTHONDONTWRITEBYTECODE``), and a folder that cannot be
written, or a file that cannot be read, costs only the compiling.

The file is an index (each text's length and CRC-32 -> where it is) followed by the texts
and their marshalled codes: a start reads the index alone (about 60 KB in memory for 700
texts) and each text and code as its record is made (``os.pread``; the text read back must
be the one asked for, byte for byte, so the code is the text's, as when it was keyed by the
text itself), instead of holding every text and code object for as long as the service runs
(about 0.7 MB of the service's resident memory, issue 19's memory).
"""
from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import struct
import sys
import zlib
from types import CodeType
from typing import Any

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                    f"dataclass_code.{sys.implementation.cache_tag}.marshal")
#: more texts than this kept (records changed many times): only this process's are kept
MOST = 4000
#: the file's first bytes: what it is, and the length of its index
_HEADER = struct.Struct("<4sI")
_MAGIC = b"DCC3"

#: key -> (offset after the index, the text's length, the code's length), as read at start
_index: dict[int, tuple[int, int, int]] = {}
_fd: int | None = None
_codes_at = 0
#: key -> (text, marshalled code) compiled by this process (written at ``keep``)
_new: dict[int, tuple[bytes, bytes]] = {}
_used: set[int] = set()
_changed = False


def _key(text: bytes) -> int:
    """A text's key: its length and CRC-32 (a shared key only costs a compile: the text
    read back is compared)."""
    return len(text) << 32 | zlib.crc32(text)


def _load() -> None:
    """Read the index of the kept file (the texts and codes stay in the file until asked)."""
    global _fd, _codes_at
    try:
        fd = os.open(PATH, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        magic, size = _HEADER.unpack(os.pread(fd, _HEADER.size, 0))
        got = marshal.loads(os.pread(fd, size, _HEADER.size)) if magic == _MAGIC else None
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        got = None
    if not isinstance(got, dict):
        os.close(fd)
        return
    _index.clear()
    _index.update((k, v) for k, v in got.items()
                  if isinstance(k, int) and isinstance(v, tuple) and len(v) == 3)
    if _fd is not None:
        os.close(_fd)
    _fd, _codes_at = fd, _HEADER.size + size


def _read(key: int) -> tuple[bytes, bytes] | None:
    """The text and marshalled code kept under ``key`` (None: not kept, or unreadable)."""
    got = _new.get(key)
    if got is not None:
        return got
    where, fd = _index.get(key), _fd
    if where is None or fd is None:
        return None
    offset, text_length, code_length = where
    try:
        blob = os.pread(fd, text_length + code_length, _codes_at + offset)
    except OSError:
        return None
    if len(blob) != text_length + code_length:
        return None
    return blob[:text_length], blob[text_length:]


def compiled(source: str) -> CodeType:
    """The code of one generated text: kept, or compiled now (and kept at ``keep``)."""
    global _changed
    text = source.encode("utf-8", "surrogatepass")
    key = _key(text)
    got = _read(key)
    code = None
    if got is not None and got[0] == text:
        try:
            code = marshal.loads(got[1])
        except (EOFError, ValueError, TypeError):
            code = None
    if not isinstance(code, CodeType):
        code = compile(source, "<string>", "exec")
        _new[key] = (text, marshal.dumps(code))
        _changed = True
    _used.add(key)
    return code


def kept(source: str) -> bool:
    """Whether the code of ``source`` is kept (in the file read at start, or compiled since)."""
    text = source.encode("utf-8", "surrogatepass")
    got = _read(_key(text))
    return got is not None and got[0] == text


def cached_exec(source: Any, globals: dict | None = None, locals: Any = None, /) -> None:
    """``exec`` as ``dataclasses`` calls it, the text's code taken from the cache."""
    if globals is None:                    # exec's own default: the caller's namespace
        caller = sys._getframe(1)
        globals = caller.f_globals
        if locals is None:
            locals = caller.f_locals
    if isinstance(source, str):
        source = compiled(source)
    builtins.exec(source, globals, locals)


def keep() -> None:
    """Write the file again with the texts compiled since the start (nothing when none
    was new): the kept ones read back from the old file, the new ones after them."""
    global _changed
    if not _changed or sys.dont_write_bytecode:
        return
    _changed = False
    keys = list(_index) + [k for k in list(_new) if k not in _index]
    if len(keys) > MOST:
        keys = [k for k in keys if k in _used]
    index: dict[int, tuple[int, int, int]] = {}
    parts: list[bytes] = []
    offset = 0
    for key in keys:
        got = _read(key)
        if got is None:
            continue
        text, code = got
        index[key] = (offset, len(text), len(code))
        parts += got
        offset += len(text) + len(code)
    head = marshal.dumps(index)
    try:
        os.makedirs(os.path.dirname(PATH), exist_ok=True)
        part = f"{PATH}.{os.getpid()}.part"
        with open(part, "wb") as fh:
            fh.write(_HEADER.pack(_MAGIC, len(head)))
            fh.write(head)
            fh.writelines(parts)
        os.replace(part, PATH)
    except (OSError, ValueError):
        pass


def install() -> None:
    """From now on every ``@dataclass`` (the companion's and its libraries') compiles
    through the cache; called once, as the package is imported."""
    if getattr(dataclasses, "exec", None) is cached_exec:
        return
    _load()
    dataclasses.exec = cached_exec         # type: ignore[attr-defined]
    atexit.register(keep)


def prepare() -> None:
    """What an install runs once, as the owner of the program's folder (``install.sh``; the
    service's own user cannot write there): every module of the companion imported, so that
    every record's code is kept, and every language file's parsed entries too."""
    import importlib
    import pkgutil

    import companion
    from companion.words import i18n
    for module in pkgutil.walk_packages(companion.__path__, "companion."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    for lang in i18n.LANGUAGES:
        i18n.catalog(lang)
    keep()
    print(f"kept the code of {len(_index) + len(_new)} record methods in {PATH}")
