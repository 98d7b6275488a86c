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
"""
from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from types import CodeType
from typing import Any

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__",
                    f"dataclass_code.{sys.implementation.cache_tag}.marshal")
#: more texts than this kept (records changed many times): only this process's are kept
MOST = 4000

_codes: dict[str, CodeType] = {}
_used: set[str] = set()
_changed = False


def _load() -> None:
    try:
        with open(PATH, "rb") as fh:
            got = marshal.loads(fh.read())
    except (OSError, EOFError, ValueError, TypeError):
        return
    if isinstance(got, dict):
        _codes.update((text, code) for text, code in got.items()
                      if isinstance(text, str) and isinstance(code, CodeType))


def compiled(source: str) -> CodeType:
    """The code of one generated text: kept, or compiled now (and kept at ``keep``)."""
    global _changed
    code = _codes.get(source)
    if code is None:
        code = compile(source, "<string>", "exec")
        _codes[source] = code
        _changed = True
    _used.add(source)
    return code


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
    """Write the texts compiled since the start (nothing when none was new)."""
    global _changed
    if not _changed or sys.dont_write_bytecode:
        return
    _changed = False
    codes = dict(_codes)                   # a copy: another thread may be importing
    if len(codes) > MOST:
        codes = {text: code for text, code in codes.items() if text in _used}
    try:
        os.makedirs(os.path.dirname(PATH), exist_ok=True)
        part = f"{PATH}.{os.getpid()}.part"
        with open(part, "wb") as fh:
            marshal.dump(codes, fh)
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
    print(f"kept the code of {len(_codes)} record methods in {PATH}")
