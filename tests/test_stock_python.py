"""The companion runs on stock Python and its libraries as their authors ship them.

A finder on ``sys.meta_path``, a module hidden in ``sys.modules``, a name of the standard
library (or of a library) replaced from outside, or a library's function copied into our
code to save its import: each saves a little at start or a megabyte, and each breaks
quietly when CPython or the library changes its inside (``dataclasses`` generates its code
differently in 3.13, the Python of Debian Trixie), while making every reader stop and
wonder. Tune in the documented ways instead (mallopt, SQLite's cache, our own caches) and,
where a number misses its budget, find the cost in our own code (docs/performance.md).

The source of ``companion/`` is read as text and as Python (``ast``); nothing is imported.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted((ROOT / "companion").rglob("*.py"))

WHY = ("\n\nThe companion runs on stock Python and stock libraries (docs/performance.md, "
       "'Stock parts'): an import hook, a patched standard-library or library name, or a "
       "library's function copied to save its import breaks quietly when CPython or the "
       "library changes its inside (dataclasses changed in 3.13, Trixie's Python), and "
       "makes every reader stop and wonder. Use the library as documented; if a budget is "
       "missed, find the cost in our own code.")

#: the import system's hooks and what hides or defers a module
IMPORT_HOOKS = re.compile(r"\bsys\.(meta_path|path_hooks|path_importer_cache)\b"
                          r"|\bLazyLoader\b|\bsys\.modules\[[^\]]+\]\s*=(?!=)"
                          r"|\bimportlib\.(machinery|abc)\b|\bbuiltins\.__import__\b")
#: a docstring or comment that says a library's code is written out here
COPIED = re.compile(r"(standard library|library)'s ``?[\w.]+``?,? (written out|copied)"
                    r"|written out: ``?import|copied from (the standard library|[\w.]+'s source)",
                    re.I)

#: names the standard library documents as set by programs (``sys.stderr``: "may be
#: replaced"; the hooks are there to be set)
SETTABLE = {"sys.stdin", "sys.stdout", "sys.stderr", "sys.excepthook", "sys.unraisablehook",
            "threading.excepthook"}


def _where(path: Path, line: int, text: str) -> str:
    return f"{path.relative_to(ROOT)}:{line}: {text.strip()}"


def test_no_import_hooks_and_no_hidden_modules() -> None:
    found = [_where(p, n, line) for p in SOURCES
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if IMPORT_HOOKS.search(line)]
    assert not found, "import-system hooks in the companion:\n" + "\n".join(found) + WHY


def _outside_modules(tree: ast.Module) -> dict[str, str]:
    """Local name -> module, for every module of the standard library or of a library
    bound by an import (``import x``, ``import x as y``, ``from pkg import module``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if not a.name.startswith("companion"):
                    names[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and not node.module.startswith("companion"):
            for a in node.names:
                full = f"{node.module}.{a.name}"
                if full.split(".")[0] in sys.stdlib_module_names and _is_module(full):
                    names[a.asname or a.name] = full
    return names


def _is_module(name: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _patches(tree: ast.Module, outside: dict[str, str]) -> list[tuple[int, str]]:
    """Assignments to a name inside an outside module: ``mod.name = ...``,
    ``mod.__dict__[...] = ...``, ``setattr(mod, ...)``, ``del mod.name``."""
    def module_of(node: ast.expr) -> str | None:
        while isinstance(node, ast.Attribute):
            node = node.value
        return outside.get(node.id) if isinstance(node, ast.Name) else None

    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in {"setattr", "delattr"} and node.args):
            targets = [ast.Attribute(value=node.args[0], attr="?")]
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Attribute) \
                    and t.value.attr == "__dict__":
                t = t.value
            if isinstance(t, ast.Attribute) and module_of(t.value) is not None \
                    and ast.unparse(t) not in SETTABLE:
                found.append((node.lineno, f"{module_of(t.value)}: {ast.unparse(t)}"))
    return found


def test_no_standard_library_or_library_name_is_patched() -> None:
    found = []
    for p in SOURCES:
        tree = ast.parse(p.read_text(encoding="utf-8"), str(p))
        found += [_where(p, n, what) for n, what in _patches(tree, _outside_modules(tree))]
    assert not found, "names of the standard library or a library replaced:\n" + \
        "\n".join(found) + WHY


def test_no_library_function_is_copied_to_save_an_import() -> None:
    found = [_where(p, n, line) for p in SOURCES
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if COPIED.search(line)]
    assert not found, "a library's code written out in the companion:\n" + \
        "\n".join(found) + WHY


def test_the_checks_see_what_they_forbid() -> None:
    """The three checks find each kind on a sample (they cannot pass by seeing nothing)."""
    assert IMPORT_HOOKS.search("    sys.meta_path.insert(0, Finder)")
    assert IMPORT_HOOKS.search('sys.modules["numpy"] = None')
    assert not IMPORT_HOOKS.search('if "pygame" in sys.modules:')
    assert IMPORT_HOOKS.search("spec.loader = importlib.util.LazyLoader(spec.loader)")
    sample = ast.parse("import dataclasses\nimport paho.mqtt.client as mqtt\n"
                       "from os import path\nfrom companion import x\n"
                       "dataclasses.exec = my_exec\nmqtt.__dict__['ssl'] = Plain\n"
                       "setattr(path, 'join', j)\nx.y = 1\n")
    got = _patches(sample, _outside_modules(sample))
    assert [n for n, _ in got] == [5, 6, 7], got
    assert _patches(ast.parse("import sys\nsys.stderr = log\n"), {"sys": "sys"}) == []
    assert COPIED.search("``escape`` is the standard library's ``html.escape``, written out:")
