"""JSON read for people: a value, or what is wrong with the text and where, in our own terms.

CPython's ``json`` says what is wrong in English words that change between versions (3.13
reworded several: "Illegal trailing comma before end of object" where 3.11 said "Expecting
property name enclosed in double quotes", at another position), and how deep it nests before
refusing is the interpreter's own (3.11 refuses 5000 levels, 3.13 reads them). So the
companion reads with ``json.loads`` (fast, C) and, only when that fails or the value nests
deeper than ``DEPTH_LIMIT``, walks the text itself to find the first thing wrong: a
``JsonProblem``, an id with the line and column (1-based, in characters) and what it is
about. Its words are the locale section ``json`` (``companion.words``): the same on every
Python, in five languages. The table-script lines, the phone view's requests and anything
else read from people use ``loads``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

DEPTH_LIMIT = 32
"""Brackets nested deeper than this are refused (a table-script line needs 3)."""
DIGITS_LIMIT = 4300
"""The most digits of a whole number (Python's own limit for turning text into an int)."""

_SPACE = " \t\n\r"
_CLOSE = {"{": "}", "[": "]"}
_WORDS = ("true", "false", "null", "NaN", "Infinity")     # what json.loads takes as words
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?|-Infinity")
_TOKEN = re.compile(r"[0-9A-Za-z_.+\-]+")
_ESCAPES = '"\\/bfnrtu'


@dataclass(frozen=True)
class JsonProblem:
    """``what``: the id (locale key ``json.<what>``); ``char``: the character or word it is
    about, as shown; ``other``: the bracket it concerns (``wrong_close``, ``expected_comma``)."""
    what: str
    line: int
    column: int
    char: str = ""
    other: str = ""

    def params(self) -> dict[str, Any]:
        """The words' parameters (every locale's ``json.*`` may use any of them)."""
        return {"char": self.char, "other": self.other, "limit": _LIMITS.get(self.what, "")}


    def english(self) -> str:
        """``line 8, column 31: a comma before `}` ``: the log's and the CLI's words (the
        engine's English, ``rejections.ENGLISH_WORDS["json"]``; the locales' ``json.at``
        says it in each language)."""
        from .rejections import ENGLISH_WORDS
        said = ENGLISH_WORDS["json"][self.what].format(**self.params())
        return f"line {self.line}, column {self.column}: {said}"


_LIMITS = {"too_deep": DEPTH_LIMIT, "too_many_digits": DIGITS_LIMIT}


class JsonTextError(ValueError):
    """Text that is not JSON (``problem``), said in our own words: its message is
    ``JsonProblem.english()``, never the interpreter's."""

    def __init__(self, problem: JsonProblem):
        super().__init__(problem.english())
        self.problem = problem


def decoded(data: bytes) -> str | JsonProblem:
    """UTF-8 bytes as text, or where they stop being UTF-8 (``not_text``)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start].decode("utf-8")
        line = before.count("\n") + 1
        return JsonProblem("not_text", line, len(before) - (before.rfind("\n") + 1) + 1,
                           f"0x{data[exc.start]:02X}")


def read(data: str | bytes) -> Any:
    """The JSON value of ``data`` (text, or UTF-8 bytes: a file, a message); raises
    ``JsonTextError`` (a ``ValueError``) saying in our words what is wrong and where. For
    the readers of files and messages whose ``except ValueError`` logs what went wrong."""
    text = decoded(data) if isinstance(data, bytes) else data
    value = loads(text) if isinstance(text, str) else text
    if isinstance(value, JsonProblem):
        raise JsonTextError(value)
    return value


def loads(text: str) -> Any:
    """The JSON value of ``text``, or a ``JsonProblem`` (never an exception)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return problem(text)
    if (text.count("[") + text.count("{") > DEPTH_LIMIT
            and _deeper_than(value, DEPTH_LIMIT)):
        return problem(text)
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    todo = [(value, 1)]
    while todo:
        v, depth = todo.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if items is None:
            continue
        if depth > limit:
            return True
        todo.extend((x, depth + 1) for x in items)
    return False


def _shown(c: str) -> str:
    """A character as a person can read it: itself, or U+XXXX for spaces and the invisible."""
    return c if c.isprintable() and not c.isspace() else f"U+{ord(c):04X}"


class _Found(Exception):
    def __init__(self, what: str, at: int, char: str = "", other: str = ""):
        super().__init__(what)
        self.what, self.at, self.char, self.other = what, at, char, other


def problem(text: str) -> JsonProblem:
    """The first thing wrong with ``text`` as JSON (``unreadable`` at its start if nothing
    is: then ``json.loads`` refused it for a reason this walk does not know)."""
    try:
        _walk(text)
        what, at, char, other = "unreadable", 0, "", ""
    except _Found as found:
        what, at, char, other = found.what, found.at, found.char, found.other
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return JsonProblem(what, line, column, char, other)


# what the walk expects next: a value (first, or after a colon), the first value of a list or
# its end, a value after a comma in a list, a key after a comma, the first key or the end of
# an object, the colon after a key, a comma or the end after a value
_VALUE, _FIRST_VALUE, _ITEM, _KEY, _FIRST_KEY, _COLON, _AFTER = range(7)


def _walk(s: str) -> None:
    """Raises ``_Found`` at the first thing wrong; returns if ``s`` is JSON."""
    walk = _Walk(s)
    n = len(s)
    while True:
        while walk.i < n and s[walk.i] in _SPACE:
            walk.i += 1
        if walk.i == n:
            walk.end()
            return
        if walk.state == _AFTER:
            walk.after_value(s[walk.i])
        elif walk.state == _COLON:
            if s[walk.i] != ":":
                raise _Found("expected_colon", walk.i, _shown(s[walk.i]))
            walk.state, walk.i = _VALUE, walk.i + 1
        elif s[walk.i] in "]}":
            walk.close(s[walk.i])
        elif walk.state in (_KEY, _FIRST_KEY):
            if s[walk.i] != '"':
                raise _not_a_key(s, walk.i)
            walk.i, walk.state = _text_end(s, walk.i), _COLON
        else:
            walk.value(s[walk.i])


class _Walk:
    """Where the walk is, what it expects next and the brackets open around it."""

    def __init__(self, s: str):
        self.s, self.i, self.state = s, 0, _VALUE
        self.opened: list[int] = []          # where each open bracket is
        self.comma, self.seen = -1, False    # the last comma; whether a value began

    def end(self) -> None:
        if self.opened:
            raise _Found("unclosed", self.opened[-1], self.s[self.opened[-1]])
        if not self.seen:
            raise _Found("empty", 0)

    def after_value(self, c: str) -> None:
        if not self.opened:
            raise _Found("extra", self.i, _shown(c))
        close = _CLOSE[self.s[self.opened[-1]]]
        if c == ",":
            self.state, self.comma = (_ITEM if close == "]" else _KEY), self.i
        elif c == close:
            self.opened.pop()
        elif c in "]}":
            raise _Found("wrong_close", self.i, c, self.s[self.opened[-1]])
        else:
            raise _Found("expected_comma", self.i, _shown(c), close)
        self.i += 1

    def close(self, c: str) -> None:
        """A closing bracket where a key or value may be."""
        if self.state in (_ITEM, _KEY):
            raise _Found("comma_before_close", self.comma, c)
        if self.state == _VALUE:
            raise _Found("expected_value", self.i, c)
        if c != _CLOSE[self.s[self.opened[-1]]]:
            raise _Found("wrong_close", self.i, c, self.s[self.opened[-1]])
        self.opened.pop()
        self.state, self.i = _AFTER, self.i + 1

    def value(self, c: str) -> None:
        self.seen = True
        if c in "[{":
            self.opened.append(self.i)
            if len(self.opened) > DEPTH_LIMIT:
                raise _Found("too_deep", self.i)
            self.state, self.i = (_FIRST_KEY if c == "{" else _FIRST_VALUE), self.i + 1
        else:
            self.i, self.state = _value_end(self.s, self.i), _AFTER


def _not_a_key(s: str, i: int) -> _Found:
    c = s[i]
    if c == "'":
        return _Found("single_quotes", i)
    word = _TOKEN.match(s, i)
    if word is not None:
        return _Found("key_not_quoted", i, word.group()[:20])
    return _Found("expected_key", i, _shown(c))


def _value_end(s: str, i: int) -> int:
    """Where a text, number or word that starts at ``i`` ends."""
    c = s[i]
    if c == '"':
        return _text_end(s, i)
    if c == "'":
        raise _Found("single_quotes", i)
    token = _TOKEN.match(s, i)
    if token is None:
        raise _Found("expected_value", i, _shown(c))
    word = token.group()
    if c in "-+.0123456789" and word not in ("-Infinity",):
        number = _NUMBER.fullmatch(word)
        if number is None:
            raise _Found("bad_number", i, word[:20])
        if number.group(1) is None and number.group(2) is None \
                and len(word.lstrip("-")) > DIGITS_LIMIT:
            raise _Found("too_many_digits", i)
    elif word not in _WORDS and word != "-Infinity":
        raise _Found("unknown_word", i, word[:20])
    return token.end()


def _text_end(s: str, i: int) -> int:
    """Where the text in double quotes that starts at ``i`` ends (after its closing quote)."""
    n, j = len(s), i + 1
    while j < n:
        c = s[j]
        if c == '"':
            return j + 1
        if c == "\\":
            e = s[j + 1] if j + 1 < n else ""
            if e not in _ESCAPES or not e:
                raise _Found("bad_escape", j, "\\" + _shown(e) if e else "\\")
            if e == "u" and not re.fullmatch(r"[0-9A-Fa-f]{4}", s[j + 2:j + 6]):
                raise _Found("bad_escape", j, s[j:j + 6].split('"')[0])
            j += 6 if e == "u" else 2
            continue
        if c < " ":
            raise _Found("control_in_text", j, _shown(c))
        j += 1
    raise _Found("unclosed_text", i)
