"""The README, docs/rules.md and the contract's copy (docs/table-script.md) say the points of
table script 1.3 in the contract's own words: the tiles counted per player, "two drinks, one
cake" replacing the deck's backs, and the companion's own choices labelled as such.

The sentences below are the contract's (``../shared/specs/table-script.md``, version 1.3); when
the contract is beside the repository (the team's machines, not CI) it is checked too.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = ROOT.parent.parent / "shared" / "specs" / "table-script.md"

SENTENCES = {
    "own choices": "The companion's own choices (the books are silent; a table that plays "
                   "otherwise corrects with `correct`): tokens (rush tokens, cookies) are not "
                   "limited, although the boxes hold 15; cakes and cake cards are not limited; "
                   "`junior_cards` is the same in every position and at most 4 (Winter's book "
                   "only says \"more order cards\").",
    "tiles per player": "at most 4 different ones **per player** (a player has 4 tiles; with "
                        "the books' variable set-up each player may have chosen other tiles, "
                        "so two players together may flip 5 or more different ids)",
    "two drinks": "This rule replaces the deck's backs: with it, a card taken from the deck "
                  "gets no cake for what the deck shows, so a table never sends `cake` for a "
                  "deck back and a companion never asks about one.",
}


def words(path: Path) -> str:
    """The text with every run of blanks one space (a sentence may wrap anywhere)."""
    return re.sub(r"\s+", " ", path.read_text("utf-8"))


@pytest.mark.parametrize("doc", ["README.md", "docs/rules.md", "docs/table-script.md"])
@pytest.mark.parametrize("point", sorted(SENTENCES))
def test_the_docs_say_it_in_the_contract_s_words(doc, point):
    assert SENTENCES[point] in words(ROOT / doc), f"{doc} lacks the contract's {point!r}"


def test_the_sentences_are_the_contract_s():
    if not CONTRACT.exists():
        pytest.skip("the contract is not beside this checkout")
    text = words(CONTRACT)
    assert "version 1.3" in text
    for point, sentence in SENTENCES.items():
        assert sentence in text, point


def test_junior_is_not_said_to_be_exactly_two_cards_a_position():
    """docs/rules.md once said "exactly 2 cards per position" beside ``junior_cards``."""
    assert "exactly 2 cards per position" not in words(ROOT / "docs/rules.md")


# --- the "why?" sentences say where a rule is the companion's own choice ----------------------

def _why_of(lines: list[str], target: str, lang: str = "en") -> str:
    from companion.core.rules import Table, apply, parse_line
    from companion.review.explain import explanations
    from companion.review.why_text import why_text
    table = Table()
    for text in lines:
        table = apply(table, parse_line(text)).table
    return why_text(lang, explanations(table)[target])


@pytest.mark.parametrize("lang", ["en", "es", "pt", "it", "ko"])
def test_a_why_past_the_box_s_15_tokens_says_not_limiting_them_is_the_companion_s_choice(lang):
    setup = '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}'
    ends = ['{"do": "end_turn"}'] * 6      # Ana's first order falls off in her third turn
    said = _why_of([setup, '{"do": "correct", "player": "Ana", "cookies": 15}'] + ends,
                   "dislikes:Ana", lang)
    assert "15" in said and "16" in said, said
    plain = _why_of([setup] + ends, "dislikes:Ana", lang)
    assert "15" not in plain and "16" not in plain


def test_a_junior_game_with_more_cards_says_that_is_the_companion_s_choice():
    setup = ('{"do": "setup", "edition": "winter", "variant": "junior", "players": ["Ana", '
             '"Ben"], "junior_cards": 3}')
    done = ['{"do": "complete"}'] * 3 + ['{"do": "end_turn"}']
    lines = [setup] + (done + ['{"do": "end_turn"}']) * 4
    said = _why_of(lines, "sign")
    assert "3 cards in each position" in said and "own choice" in said, said
