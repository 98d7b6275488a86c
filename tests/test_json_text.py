"""Malformed JSON told in the companion's own words (companion/core/rules/json_text.py): what
is wrong, the line and column, the same on every Python (3.11 and 3.13 word and place their
errors differently, and nest to different depths), in the five languages."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.rules import parse_line
from companion.core.rules.json_text import DEPTH_LIMIT, JsonProblem, loads
from companion.appliance.config import LANGUAGES
from companion.words.i18n import rejection_text, tr

# (text, what, column, char): the column (1-based) points at what to fix
CASES = [
    ('{"do": "end_turn",}', "comma_before_close", 18, "}"),
    ('["Ana", "Ben",]', "comma_before_close", 14, "]"),
    ('{"do": "end_turn"', "unclosed", 1, "{"),
    ('{"players": ["Ana", "Ben"}', "wrong_close", 26, "}"),
    ('{"do" "end_turn"}', "expected_colon", 7, '"'),
    ('{do: "end_turn"}', "key_not_quoted", 2, "do"),
    ("{'do': 'end_turn'}", "single_quotes", 2, ""),
    ('{"do": \'end_turn\'}', "single_quotes", 8, ""),
    ('{"do": "complete" "slot": 1}', "expected_comma", 19, '"'),
    ('{"slot": }', "expected_value", 10, "}"),
    ('[1,,2]', "expected_value", 4, ","),
    ('{,}', "expected_key", 2, ","),
    ('{"specialty": True}', "unknown_word", 15, "True"),
    ('{"slot": 01}', "bad_number", 10, "01"),
    ('{"slot": 1.}', "bad_number", 10, "1."),
    ('{"tag": "A\\x"}', "bad_escape", 11, "\\x"),
    ('{"tag": "A\tB"}', "control_in_text", 11, "U+0009"),
    ('{"tag": "A', "unclosed_text", 9, ""),
    ('{"do": "undo"} x', "extra", 16, "x"),
    ("", "empty", 1, ""),
    ("[" * (DEPTH_LIMIT + 1) + "]" * (DEPTH_LIMIT + 1), "too_deep", DEPTH_LIMIT + 1, ""),
    ("[" * 5000 + "]" * 5000, "too_deep", DEPTH_LIMIT + 1, ""),
    ('{"deck": ' + "9" * 4301 + "}", "too_many_digits", 10, ""),
]


@pytest.mark.parametrize("text,what,column,char", CASES)
def test_what_is_wrong_and_where(text, what, column, char):
    found = loads(text)
    assert isinstance(found, JsonProblem)
    assert (found.what, found.line, found.column, found.char) == (what, 1, column, char)


def test_the_line_of_a_text_of_several_lines():
    found = loads('{\n  "do": "complete",\n  "slot": 1,\n}\n')
    assert (found.what, found.line, found.column) == ("comma_before_close", 3, 12)


def test_nesting_up_to_the_limit_is_read_beyond_it_refused_on_every_python():
    deep = "[" * DEPTH_LIMIT + "]" * DEPTH_LIMIT
    assert loads(deep) == json.loads(deep)
    # json.loads itself reads 100 levels on every Python: the limit is ours
    assert isinstance(loads("[" * 100 + "]" * 100), JsonProblem)
    assert isinstance(loads('{"a": ' * 40 + "1" + "}" * 40), JsonProblem)


def test_a_table_script_line_is_told_with_its_column_in_every_language():
    refused = parse_line('   {"do": "complete", }')
    assert refused.code == "bad_json"
    assert refused.text == "not valid JSON at column 21: a comma before `}`"
    texts = {lang: rejection_text(lang, refused) for lang in LANGUAGES}
    assert len(set(texts.values())) == len(LANGUAGES)
    for text in texts.values():
        assert "21" in text and "`}`" in text and "{" not in text.replace("`}`", "")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("text,what,column,char", CASES)
def test_every_problem_has_words_in_every_language(lang, text, what, column, char):
    said = rejection_text(lang, parse_line(text) if text else parse_line("  x"))
    assert "{" not in said.replace("`{`", "") and "json." not in said
    assert tr(lang, f"json.{what}") != f"json.{what}"


_JSONISH = st.text(alphabet='{}[]",:. 0123456789-+eEtrufalsn\\\'xu\t', max_size=30)


@settings(max_examples=400, deadline=None)
@given(_JSONISH)
def test_loads_reads_what_json_reads_and_places_every_problem_inside_the_text(text):
    try:
        expected = json.loads(text)
        readable = True
    except (ValueError, RecursionError):
        readable = False
    found = loads(text)
    if readable:
        assert not isinstance(found, JsonProblem)
        assert json.dumps(found) == json.dumps(expected)
    else:
        assert isinstance(found, JsonProblem) and found.what != "unreadable"
        assert 1 <= found.column <= max(len(text), 1)
