"""The import contract: the rooms of companion/ import each other only down the data flow.

devices -> core (rules, loop, session, journal) -> outputs, with words and the config
beneath everyone, review reading the journal, the appliance wiring it all and the
commands on top; the café apart. The graph is read from the source with ``ast`` (every
import, lazy ones inside functions too), so a new edge fails here before it ships.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"

#: room -> the rooms it may import (itself always). An output is "outputs.<name>" and may
#: import no other output; "rules" and "config" are the two leaves every room may read.
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "config": set(),
    "words": {"rules", "config"},
    "core": {"rules", "words", "config"},
    "devices": {"core", "rules", "words", "config"},
    "outputs": {"core", "rules", "words", "review", "config"},
    "review": {"core", "rules", "words", "config"},
    "appliance": {"devices", "core", "rules", "words", "outputs", "review", "config"},
    "commands": {"devices", "core", "rules", "words", "outputs", "review", "appliance",
                 "config", "cafe"},
    # the topics both ends speak; the phone view's HTTP server and routes serve its pages
    "cafe": {"words", "config", "rules", "outputs.mqtt", "outputs.web"},
    "top": {"commands"},
}

#: the package itself (its ``__version__``): every room may read it
BOOT = {"companion"}


def room_of(module: str) -> str | None:
    """The room a module of ours lives in (None: not ours)."""
    parts = module.split(".")
    if parts[0] != "companion":
        return None
    if len(parts) == 1 or parts[1] == "__main__":
        return "top"
    if parts[1] == "core" and len(parts) > 2 and parts[2] == "rules":
        return "rules"
    if parts[1] == "appliance" and len(parts) > 2 and parts[2] == "config":
        return "config"
    if parts[1] == "outputs" and len(parts) > 2:
        return f"outputs.{parts[2]}"
    return parts[1]


def module_name(path: Path) -> tuple[str, str]:
    """(module, the package its relative imports start from) of a file under companion/."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def imports_of(path: Path) -> set[str]:
    """Every module of ours the file imports (``from pkg import name`` counts as pkg.name
    when that is a module, else as pkg)."""
    module, package = module_name(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "companion"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "companion":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                as_path = ROOT.joinpath(*sub.split("."))
                is_module = as_path.is_dir() or as_path.with_suffix(".py").is_file()
                found.add(sub if is_module else target)
    found.discard(module)
    return found


def import_graph() -> dict[str, set[str]]:
    return {module_name(p)[0]: imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def may_import(importer: str, imported: str) -> bool:
    a, b = room_of(importer), room_of(imported)
    if a is None or b is None or a == b or imported in BOOT:
        return True             # not ours, the same room, or the package's own start
    if a.startswith("outputs.") and b == "outputs":
        return True             # the outputs' one interface (companion/outputs/__init__.py)
    if a.startswith("outputs.") and b.startswith("outputs."):
        return False            # one output never reaches into another
    allowed = ALLOWED[a.split(".")[0]]
    return b in allowed or b.split(".")[0] in allowed


def violations(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    return {(m, t) for m, targets in graph.items() for t in targets if not may_import(m, t)}


def test_the_tree_keeps_the_import_contract():
    found = sorted(violations(import_graph()))     # no exceptions: none are left
    assert not found, "imports against the rooms' contract (see each room's __init__):\n" + \
        "\n".join(f"  {a} -> {b}" for a, b in found)


def test_a_deliberate_violation_is_caught():
    graph = {
        "companion.core.rules.engine": {"companion.core.rules.state"},          # fine
        "companion.core.loop": {"companion.core.rules", "companion.words.i18n"},  # fine
        "companion.outputs.lights.controller": {"companion.core.loop"},          # fine
        "companion.core.rules.turn": {"companion.core.journal"},       # rules must stay pure
        "companion.core.session": {"companion.outputs.screen.app"},    # core -> an output
        "companion.outputs.sound.player": {"companion.outputs.lights"},  # output -> output
        "companion.words.i18n": {"companion.outputs.screen.text"},     # words -> an output
        "companion.review.story": {"companion.appliance.service"},     # review -> appliance
        "companion.cafe.hub": {"companion.core.session"},              # the café is apart
    }
    assert violations(graph) == {
        ("companion.core.rules.turn", "companion.core.journal"),
        ("companion.core.session", "companion.outputs.screen.app"),
        ("companion.outputs.sound.player", "companion.outputs.lights"),
        ("companion.words.i18n", "companion.outputs.screen.text"),
        ("companion.review.story", "companion.appliance.service"),
        ("companion.cafe.hub", "companion.core.session"),
    }


def test_the_graph_sees_relative_lazy_and_from_package_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "companion" / "core"
    pkg.mkdir(parents=True)
    (tmp_path / "companion" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "journal.py").write_text("")
    (pkg / "loop.py").write_text(
        "from . import journal\n"
        "def later():\n"
        "    from ..outputs.screen import app\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    assert imports_of(pkg / "loop.py") == {"companion.core.journal", "companion.outputs.screen"}
    assert not may_import("companion.core.loop", "companion.outputs.screen")


def test_every_room_says_what_it_owns_and_may_import():
    for room in ("devices", "core", "words", "outputs", "review", "appliance", "commands",
                 "cafe", "core/rules", "outputs/screen", "outputs/lights", "outputs/sound",
                 "outputs/web", "outputs/mqtt"):
        doc = ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text()))
        assert doc and "May import" in doc, f"companion/{room}/__init__.py: no contract line"
