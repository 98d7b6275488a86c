"""Words: plural forms in every language, and the service's log in words with names."""
import logging

import pytest

from companion.core import events as ev
from companion.appliance.config import LANGUAGES
from companion.core.session import Session
from companion.core.loop import LogSubscriber, TableLoop
from companion.words import i18n

PLURALS = ["table.points", "end.points", "end.likes_part", "end.upgrades_part",
           "end.dislikes_part", "demo.likes", "demo.dislikes", "voice.draws", "voice.dislikes",
           "happening.orders_moved_down", "happening.dislikes_taken", "wizard.deal_cards"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_counts_take_their_plural_form_in_every_language(lang):
    for key in PLURALS:
        assert i18n.has(lang, f"{key}_one") and i18n.has(lang, f"{key}_other"), (lang, key)
        for n in (1, 2):
            text = i18n.tr_count(lang, key, n, player="Ana", weight="+1", points="1", number="x")
            if key.startswith("voice."):      # spoken: "one" in the text, else {number} words
                assert "Ana" in text and (n == 1 or "x" in text), (lang, key, text)
            else:
                assert str(n) in text, (lang, key, text)
    for key in ("end.points", "table.points"):
        if lang == "ko" or (lang, key) == ("it", "table.points"):
            continue    # Korean has no plural forms; Italian's "pt" stays "pt" (abbreviated)
        one, two = (i18n.tr_count(lang, key, n).split()[1] for n in (1, 2))
        assert one != two, (lang, key)


def test_english_never_says_1_things():
    assert i18n.tr_count("en", "table.points", 1) == "1 pt"
    assert i18n.tr_count("en", "end.points", 1) == "1 point"
    assert i18n.tr_count("en", "end.dislikes_part", 1, weight="−1", points="−1") \
        == "1 dislike × −1 = −1"
    assert i18n.tr_count("en", "demo.likes", 1) == "1 like"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_winner_sentence_says_1_point_and_2_points(lang):
    from companion.core.rules.happenings import GameOver, RankEntry

    def said(*scores: int) -> str:
        names = "AB"[:len(scores)]
        ranking = tuple(RankEntry(n, s, 0, 0, 1) for n, s in zip(names, scores, strict=True))
        return i18n.happening_text(lang, GameOver(ranking, tuple(r.name for r in ranking)))

    for text in (said(1), said(2), said(1, 1), said(2, 2)):
        assert "1" in text or "2" in text, text
    if lang != "ko":
        assert said(1) != said(2).replace("2", "1"), said(1)
        assert said(1, 1) != said(2, 2).replace("2", "1"), said(1, 1)
    if lang == "en":
        assert said(1).endswith("A wins with 1 point!")
        assert said(2, 2).endswith("A and B share the victory with 2 points!")


def test_the_log_tells_the_game_in_words_in_the_configured_language(caplog):
    loop = TableLoop(Session())
    loop.subscribe(LogSubscriber(logging.getLogger("test.words"), language="es"))
    with caplog.at_level(logging.INFO, logger="test.words"):
        for e in (ev.TouchAction({"do": "setup", "edition": "original", "start": "Ana",
                                  "players": ["Ana", "Ben", "Chloe"]}),
                  ev.SeatTap(0), ev.SeatTap(2), ev.SeatHold(0)):
            loop.post(e)
        loop.drain()
    lines = [r.getMessage() for r in caplog.records]
    text = "\n".join(lines)
    assert "{" not in text and "kind" not in text and "_" not in text
    assert "Nueva partida para Ana, Ben y Chloe. Empieza Ana." in lines
    assert "Turno de Ben" in lines
    assert any("Chloe" in line and "Ana" in line for line in lines)     # the refused press


def test_only_the_example_catalogs_made_up_names_are_translated():
    assert i18n.drink_name("es", "Example order 18") == "Ejemplo 18"
    assert i18n.drink_name("ko", "Example order 3") == "예시 3"
    for own in ("Café bombón", "Example order", "My example order 2", "Example order 2b"):
        assert i18n.drink_name("it", own) == own       # an owner's catalog keeps its names
