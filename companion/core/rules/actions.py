"""Table-script lines <-> validated actions.

An action is the JSON object of a table-script line, checked for its keys and
their types (spec: ../shared/specs/table-script.md, "File format" and
"Actions"). Whether the rules allow it at this moment is the engine's business.
"""
from __future__ import annotations

import json
import re
from typing import Any

from .json_text import JsonProblem, loads
from .rejections import Rejection, reject

Action = dict[str, Any]  # {"do": ..., **keys}; validated by parse_action

# Per action: key -> (kind of value, required); a kind is an id (locale section "value")
_STR, _INT, _BOOL, _LIST, _UPGRADES = "text", "whole_number", "bool", "list", "list_or_object"

SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    "setup": {"edition": (_STR, True), "players": (_LIST, True), "start": (_STR, False),
              "variant": (_STR, False), "upgrades": (_UPGRADES, False),
              "ristretto_start": (_BOOL, False), "expansion": (_STR, False),
              "longer_game": (_BOOL, False), "two_drinks_one_cake": (_BOOL, False),
              "junior_cards": (_INT, False)},
    "complete": {"slot": (_INT, False), "card": (_STR, False), "specialty": (_BOOL, False),
                 "cake": (_BOOL, False)},
    "activate_upgrade": {"upgrade": (_STR, True)},
    "spend_cookies": {"count": (_INT, True)},
    "end_turn": {},
    "scan": {"tag": (_STR, True), "specialty": (_BOOL, False)},
    "correct": {"player": (_STR, False), "likes": (_INT, False), "dislikes": (_INT, False),
                "cookies": (_INT, False), "cake_cards": (_INT, False), "deck": (_INT, False)},
    "cake": {"player": (_STR, True), "slot": (_INT, False), "card": (_STR, False)},
    "play_cake_card": {},
    "undo": {},
    "redo": {},
}

UNDOABLE = frozenset(SCHEMA) - {"setup", "undo", "redo"}

# Sane limits for what a table can hold (a script line is a record of a real table).
MAX_NUMBER = 10_000        # any count: likes, dislikes, cookies, deck, tokens spent
MAX_TEXT = {"tag": 128, "card": 128, "players": 40, "start": 40, "player": 40}


def _type_ok(kind: str, value: Any) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _LIST:
        return isinstance(value, list)
    if kind == _UPGRADES:
        return isinstance(value, (list, dict))
    raise AssertionError(kind)


def parse_action(obj: Any) -> Action | Rejection:
    """Check an already-decoded JSON value; return the action or a rejection."""
    if not isinstance(obj, dict):
        return reject("not_object")
    if "do" not in obj:
        return reject("missing_do")
    do = obj["do"]
    if not isinstance(do, str) or do not in SCHEMA:
        return reject("unknown_action", do=do if isinstance(do, str) else json.dumps(do))
    keys = SCHEMA[do]
    for key, value in obj.items():
        if key == "do":
            continue
        if key not in keys:
            return reject("unknown_key", key=key, do=do)
        kind, _ = keys[key]
        if not _type_ok(kind, value):
            return reject("wrong_type", key=key, expected=kind)
    for key, (_, required) in keys.items():
        if required and key not in obj:
            return reject("missing_key", do=do, key=key)
    problem = _limits(obj) or _value_problem(do, obj)
    if problem:
        return problem
    return dict(obj)


def _limits(obj: dict[str, Any]) -> Rejection | None:
    """Text that is not Unicode text, a number beyond any table, a name or tag too long."""
    for key, value in obj.items():
        for v in _leaves(value):
            if isinstance(v, str):
                bad = next((c for c in v if 0xD800 <= ord(c) <= 0xDFFF), None)
                if bad is not None:
                    return reject("not_text", key=key, char=f"\\u{ord(bad):04x}")
                if key in MAX_TEXT and len(v) > MAX_TEXT[key]:
                    return reject("too_long", key=key, limit=MAX_TEXT[key])
            elif isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_NUMBER:
                return reject("too_big", key=key, limit=MAX_NUMBER)
    return None


def _leaves(value: Any) -> list[Any]:
    """A value's scalars: itself, a list's items, an object's keys and values (the
    upgrades object maps names to lists); deeper values are refused by the setup."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [*value, *(x for v in value.values() for x in (v if isinstance(v, list) else [v]))]
    return [value]


def _value_problem(do: str, a: dict[str, Any]) -> Rejection | None:
    if do in ("complete", "cake") and "slot" in a and not 1 <= a["slot"] <= 4:
        return reject("bad_value", key="slot", problem="position")
    if do in ("complete", "cake") and "card" in a and not a["card"]:
        return reject("bad_value", key="card", problem="empty")
    if do == "spend_cookies" and a["count"] < 1:
        return reject("bad_value", key="count", problem="one_or_more")
    if do == "scan" and not a["tag"].strip():
        return reject("bad_value", key="tag", problem="empty")
    if do == "correct":
        for key in ("likes", "dislikes", "cookies", "cake_cards", "deck"):
            if key in a and a[key] < 0:
                return reject("bad_value", key=key, problem="negative")
    return None


def parse_line(text: str) -> Action | Rejection | None:
    """One physical line: None for blank or comment lines, else action or rejection."""
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return None
    obj = loads(stripped)
    if isinstance(obj, JsonProblem):       # the column on the line as written
        return json_rejection(obj, len(text) - len(text.lstrip()))
    return parse_action(obj)


def json_rejection(problem: JsonProblem, indent: int = 0) -> Rejection:
    """A line that is not JSON: what is wrong and its column (``indent``: characters before
    the text that was read)."""
    return reject("bad_json", column=problem.column + indent, problem=problem.what,
                  **problem.params())


_RULES_MARK = re.compile(r"^\s*#\s*table-script\s+(\d+\.\d+)\s*$")


def rules_mark(text: str) -> str | None:
    """The version a comment line ``# table-script 1.1`` names (the rules the games set up
    after it are played under), else None. Any other line says nothing."""
    m = _RULES_MARK.match(text)
    return m.group(1) if m else None


def to_line(action: Action) -> str:
    """The canonical table-script line of an action (what the journal stores)."""
    return json.dumps(action, ensure_ascii=False, separators=(", ", ": "))
