"""The same words everywhere (issue 40): each language keeps one term for each thing at
the table (``[glossary]`` in its locale file: round, turn, shop, like, dislike, token,
upgrade, order, position), its sentences use it, and none uses a word the glossary
rules out for it (``[glossary_avoid]``: Italian once mixed "Round" and "Giro", and "café",
"bar" and "caffetteria")."""
import re
import tomllib
from importlib import resources

import pytest

from companion.appliance.config import LANGUAGES

TERMS = ("round", "turn", "shop", "like", "dislike", "token", "upgrade", "order", "position")


def locale(lang):
    text = resources.files("companion.words.locales").joinpath(f"{lang}.toml").read_text("utf-8")
    return tomllib.loads(text)


def sentences(table, skip=("glossary", "glossary_avoid", "cafe")):
    """Every string of the file but the glossary's own and the café hub's (a café there
    is the venue that runs the tables, not the game's shop)."""
    for key, value in table.items():
        if key in skip:
            continue
        if isinstance(value, dict):
            yield from sentences(value, ())
        elif isinstance(value, str):
            yield re.sub(r"\{[^}]*\}", "", value)        # {round} is a value, not a word


def uses(text: str, word: str) -> bool:
    if re.search(r"[\uac00-\ud7a3]", word):          # Hangul: particles join the word
        return word in text
    return re.search(r"(?<!\w)" + re.escape(word.lower()) + r"(?!\w)", text.lower()) is not None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_keeps_one_term_for_each_thing_and_uses_it(lang):
    words = locale(lang)
    glossary = words["glossary"]
    assert set(glossary) == set(TERMS), lang
    text = "\n".join(sentences(words))
    for term, word in glossary.items():
        assert uses(text, word), (lang, term, word)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_sentence_uses_another_word_for_a_glossary_term(lang):
    words = locale(lang)
    avoid = words.get("glossary_avoid", {})
    assert set(avoid) <= set(TERMS)
    for term, listed in avoid.items():
        for other in (w.strip() for w in listed.split(",") if w.strip()):
            assert other != words["glossary"][term]
            bad = [s for s in sentences(words) if uses(s, other)]
            assert not bad, (lang, term, other, bad[:3])
