"""No function in ``companion/`` is hard to read: the complexity bar (issue 21).

radon's cyclomatic complexity of every function and method (nested ones too):

- rank D or worse (above 20) fails, whatever it says;
- above 15 (rank C's upper part) fails unless it says why in one line, a comment
  ``# complexity: <reason>`` on its ``def`` line or on a comment line directly above it
  (above its decorators, if any), e.g. ``# complexity: a dispatch table would hide the
  order of the checks``. A reason names what makes the branches one thing (a table of
  cases, one branch per pattern); "it is long" is no reason: split the function.

Up to 15 needs nothing.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from radon.complexity import cc_visit

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
NEVER = 20            # above this (rank D, E, F): never
EXPLAINED = 15        # above this: only with a reason
MARKER = re.compile(r"#\s*complexity:\s*\S")



def _blocks(block, prefix: str = ""):
    """A function or method and every function nested in it, with qualified names."""
    name = f"{prefix}{block.fullname}"
    yield name, block
    for inner in getattr(block, "closures", ()):
        yield from _blocks(inner, f"{name}.")


def _has_reason(lines: list[str], lineno: int) -> bool:
    """A ``# complexity:`` comment on the def line (1-based ``lineno``) or on a comment
    line directly above it, above the decorators too."""
    if MARKER.search(lines[lineno - 1]):
        return True
    k = lineno - 2
    while k >= 0 and lines[k].lstrip().startswith(("@", "#")):
        if MARKER.search(lines[k]):
            return True
        k -= 1
    return False


def over_the_bar(source: str) -> dict[str, str]:
    """Qualified name -> what is wrong, for every function of ``source`` over the bar."""
    lines = source.splitlines()
    out: dict[str, str] = {}
    for top in cc_visit(source):
        if type(top).__name__ == "Class":      # its methods are blocks of their own
            continue
        for name, block in _blocks(top):
            cc = block.complexity
            if cc > NEVER:
                out[name] = f"complexity {cc} (rank D or worse): split it"
            elif cc > EXPLAINED and not _has_reason(lines, block.lineno):
                out[name] = (f"complexity {cc} above {EXPLAINED} with no "
                             "'# complexity: <reason>' comment")
    return out


@functools.cache
def package_problems() -> dict[str, str]:
    """"path:name" -> what is wrong, for every function of the package over the bar."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for name, why in over_the_bar(path.read_text(encoding="utf-8")).items():
            out[f"{rel}:{name}"] = why
    return out


def test_no_function_is_over_the_complexity_bar():
    problems = package_problems()
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in sorted(problems.items()))


def _branches(n: int) -> str:
    """A body of ``n`` ifs: complexity n + 1."""
    return "".join(f"    if x == {i}:\n        return {i}\n" for i in range(n))


def test_the_bar_and_the_reason_marker():
    plain = "def f(x):\n" + _branches(15)                       # 16
    assert set(over_the_bar(plain)) == {"f"}
    assert over_the_bar("def f(x):  # complexity: one branch per pattern\n"
                        + _branches(15)) == {}
    assert over_the_bar("# complexity: a dispatch of the five signs\n@staticmethod\n"
                        + plain) == {}
    assert set(over_the_bar("# complexity:\n" + plain)) == {"f"}   # a reason is needed
    assert over_the_bar("def f(x):\n" + _branches(14)) == {}     # 15 needs nothing
    rank_d = "def f(x):  # complexity: a reason does not excuse rank D\n" + _branches(20)
    assert "rank D" in over_the_bar(rank_d)["f"]
    nested = "class A:\n    def m(self, x):\n        def inner(x):\n" + "".join(
        "    " * 2 + line + "\n" for line in _branches(16).splitlines())
    assert set(over_the_bar(nested)) == {"A.m.inner"}
