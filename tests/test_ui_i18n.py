"""The screen's five languages: complete catalogs, the rulebooks' own words,
every rejection and happening translated, and a clear fallback."""
from __future__ import annotations

import dataclasses
import logging
import re

import pytest

from companion.appliance.config import LANGUAGES
from companion.core.rules import happenings as hp
from companion.core.rules.happenings import RankEntry, Record
from companion.core.rules.rejections import ENGLISH as ENGLISH_REJECTIONS
from companion.core.rules.rejections import CODED, ENGLISH_WORDS, reject
from companion.core import loop as table_mod
from companion.words import i18n
from companion.outputs.screen import text

OTHERS = [lang for lang in LANGUAGES if lang != "en"]

# Texts that are deliberately the same as in English.
SAME_EVERYWHERE = {
    "language.en", "language.es", "language.pt", "language.it", "language.ko",  # endonyms
    "edition.original", "edition.winter", "edition.cake_time",   # box titles
    "keyboard.latin", "keyboard.hangul", "keyboard.accents", "keyboard.done", "button.ok",
    "settings.seconds",                        # "{seconds} s": the SI unit
    "cafe.seconds", "cafe.minutes", "cafe.hours",   # "33 s", "12 min", "1 h 05 min": units
}
# "pts"/"pt" beside a score: the abbreviations these languages share with English (the
# whole word left "2 pon…" or a shrunk "3 ptos." on an 800x480 side panel)
SAME_IN = {
    "es": {"word.no", "ingredient.chocolate", "table.points_other"},  # "No", "Chocolate", "pts"
    "pt": {"ingredient.chocolate", "settings.volume",                # "Chocolate", "Volume"
           "table.points_one", "table.points_other"},               # "pt", "pts"
    "it": {"word.no", "variant.standard", "settings.volume",         # "No", "Standard", "Volume"
           "table.points_one"},                                     # "pt"
    "ko": {"word.open"},       # the Korean token keeps 'OPEN' in English (003_..., 2.1 step 3)
}


def letters_outside_placeholders(template: str) -> bool:
    return re.search(r"[^\W\d_]", re.sub(r"\{[^}]*\}", "", template)) is not None


@pytest.mark.parametrize("lang", OTHERS)
def test_every_key_in_every_language_with_the_same_parameters(lang):
    en, other = i18n.catalog("en"), i18n.catalog(lang)
    assert sorted(set(en) - set(other)) == []
    assert sorted(set(other) - set(en)) == []
    for key, template in en.items():
        assert i18n.placeholders(other[key]) == i18n.placeholders(template), (lang, key)


@pytest.mark.parametrize("lang", OTHERS)
def test_no_english_left_untranslated(lang):
    en, other = i18n.catalog("en"), i18n.catalog(lang)
    allowed = SAME_EVERYWHERE | SAME_IN[lang]
    left = [k for k in en if other[k] == en[k] and letters_outside_placeholders(en[k])
            and k not in allowed]
    assert left == []
    # and the allow-list holds only keys that really are the same (no stale entries)
    stale = [k for k in SAME_IN[lang] if other[k] != en[k]]
    assert stale == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_rejection_code_is_translated_with_its_parameters(lang):
    cat = i18n.catalog(lang)
    for code, english in ENGLISH_REJECTIONS.items():
        key = f"rejection.{code}"
        assert key in cat, key
        assert i18n.placeholders(cat[key]) == i18n.placeholders(english), key
        params = {p: f"<{p}>" for p in i18n.placeholders(english)}
        out = i18n.rejection_text(lang, reject(code, **params))
        assert "{" not in out and out.strip(), (code, out)
        for value in params.values():
            assert value in out, (code, out)


def test_english_rejections_read_as_the_engine_says_them():
    for code, english in ENGLISH_REJECTIONS.items():
        params = {p: "X" for p in i18n.placeholders(english)}
        r = reject(code, **params)
        assert i18n.rejection_text("en", r, sentence=False) == r.text
        assert i18n.rejection_text("en", r)[0] == r.text[0].upper()


def test_the_engines_english_words_for_ids_are_the_english_catalogs():
    en = i18n.catalog("en")
    for section, words in ENGLISH_WORDS.items():
        if section == "edition":      # the engine names a box by its title (editions' data)
            continue
        for code, word in words.items():
            assert en[f"{section}.{code}"] == word, (section, code)
    for code, coded in CODED.items():
        assert code in ENGLISH_REJECTIONS
        for name in coded:
            assert "{" + name + "}" in ENGLISH_REJECTIONS[code], (code, name)


def test_rejection_parameters_are_translated_too():
    r = reject("not_enough_tokens", player="Ana", have=1, count=2, tokens="rush_token_one")
    assert i18n.rejection_text("es", r) == "Ana tiene 1 ficha de Rapidez, no 2"
    r = reject("upgrade_too_late", player="Ben", tokens="cookie_other")
    assert "biscotti" in i18n.rejection_text("it", r)
    r = reject("upgrade_active", player="Chloe", upgrade="double_corners")
    assert "Cantos Duplos" in i18n.rejection_text("pt", r)
    assert "꼭짓점×2" in i18n.rejection_text("ko", r)
    r = reject("wrong_type", key="slot", expected="whole_number")
    assert "un número entero" in i18n.rejection_text("es", r)
    r = reject("correct_no_player", fields=("likes", "cookies"))
    assert r.text == 'say whose likes, cookies to correct: add "player"'
    assert "«Me gusta», cookies" in i18n.rejection_text("es", r)
    r = reject("bad_value", key="count", problem="one_or_more")
    assert i18n.rejection_text("it", r) == '"count" deve essere 1 o più'


# --- happenings -----------------------------------------------------------------------

RANK = (RankEntry("Ana", 12, 6, 1, 1), RankEntry("Ben", 9, 5, 0, 2))
TIE = (RankEntry("Ana", 12, 6, 1, 1), RankEntry("Ben", 12, 6, 1, 1))

SAMPLES = [
    hp.GameStarted("winter", "standard", ("Ana", "Ben", "Chloe"), "Ben", 77,
                   (("Ben", 1, 2), ("Ben", 2, 1))),
    hp.CardIdentified("Ana", 1, "EXO001"),
    hp.OrderCompleted("Ana", 4, "EXO001", False),
    hp.OrderCompleted("Ana", 4, "EXO002", True),
    hp.TokensGained("Ana", 1, "specialty"),
    hp.TokensGained("Ana", 2, "dislike"),
    hp.TokensSpent("Ana", 3),
    hp.UpgradeActivated("Ana", "jump"),
    hp.CardsToDraw((("Ben", 2), ("Chloe", 2)), "order_surge"),
    hp.CardsToDraw((("Ben", 1),), "order_surge", short=True),
    hp.CardsToDraw((), "order_surge", short=True),
    hp.CardsToDraw((("Ana", 1),), "two_player_draw"),
    hp.OrdersMovedDown("Ana", 1),
    hp.OrdersMovedDown("Ana", 3),
    hp.DislikesTaken("Ana", 1, 4),
    hp.DislikesTaken("Ana", 2, 5),
    hp.ShopClosed("deck_empty"),
    hp.ShopClosed("five_dislikes", "Ana"),
    hp.ShopClosed("orders_done", "Ana"),
    hp.FinalTurnBegins("Chloe"),
    hp.TurnChanged("Ben", "Ana", 2),
    hp.GameOver(RANK, ("Ana",)),
    hp.GameOver(TIE, ("Ana", "Ben")),
    hp.RankingChanged(RANK, ("Ana",)),
    hp.Corrected("Ana", "likes", 3, 4),
    hp.Corrected("Ana", "cookies", 0, 2),
    hp.Corrected(None, "deck", 10, 9),
    hp.Corrected("Ana", "cake_cards", 1, 2),
    hp.CakePlaced("Ana", 1, None, "table"),
    hp.CakePlaced("Ana", 1, "04A1", "two_drinks_one_cake"),
    hp.CakeCardGained("Ana", "cake", 2),
    hp.CakeCardGained("Ana", "break_time", 1),
    hp.CakeCardPlayed("Ana", 0),
    hp.CakesReturned("Ana", 1),
    hp.CakesReturned("Ana", 2),
    hp.Stalled("all_queues_empty"),
    hp.ShopReopened("five_dislikes", "Ben"),
    hp.ShopReopened("deck_empty", None),
    hp.Undone({"do": "end_turn"}),
    hp.Redone({"do": "complete"}),
    table_mod.NotYourTurn(2, "Chloe", "Ana"),
    table_mod.NotYourTurn(0, "Ana", "Ana", overlapped=True),
    table_mod.TablePaused("journal.db is locked by another program"),
    table_mod.TableResumed(),
    hp.GameEndedEarly(),
    hp.GameBroughtBack(),
    table_mod.DeviceStatusChanged("scanner", "garbled", "REPL text"),
    table_mod.UnknownCard("04A1B2C3"),
    table_mod.CardEnrolled("04A1B2C3", "Café de olla"),
    table_mod.DrawsDismissed(None),
    table_mod.DeviceStatusChanged("scanner", "lost"),
    table_mod.DeviceStatusChanged("scanner", "back"),
    table_mod.DeviceStatusChanged("scanner", "unsupported_firmware", "protocol 9"),
    table_mod.DeviceStatusChanged("scanner", "unavailable", "no such port"),
    table_mod.DeviceStatusChanged("scanner", "not_responding", "wiring"),
    table_mod.DeviceStatusChanged("scanner", "connected", "card scanner on loop://"),
    table_mod.DeviceStatusChanged("buttons", "ready", "4 seats"),
    table_mod.DeviceStatusChanged("buttons", "unavailable", "pin 17 is busy"),
    table_mod.DeviceStatusChanged("lights", "melted", "smoke"),
]


def all_happening_kinds() -> set[str]:
    seen, todo = set(), list(Record.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if dataclasses.is_dataclass(cls) and cls.kind:
            seen.add(cls.kind)
    return seen


def test_every_happening_kind_has_a_sample_and_a_text():
    kinds = all_happening_kinds()
    assert kinds <= {h.kind for h in SAMPLES}
    assert kinds <= set(i18n.HAPPENING_KINDS)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_happening_reads_in_every_language(lang):
    for h in SAMPLES:
        for edition in ("original", "winter"):
            out = i18n.happening_text(lang, h, edition=edition)
            assert out and "{" not in out and out != h.kind, (h, out)
    for h in SAMPLES:   # the players the happening is about are named in what it says
        out = i18n.happening_text(lang, h)
        names = {getattr(h, "player", None), getattr(h, "active", None)}
        names |= {p for p, _ in getattr(h, "draws", ())}
        if isinstance(h, hp.GameStarted):
            names.add(h.start)
        for name in names - {None}:
            assert name in out, (lang, h, out)


def test_every_device_status_the_devices_post_has_its_own_words():
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent / "companion" / "devices"
    posted = set()
    for path in root.glob("*.py"):
        src = path.read_text(encoding="utf-8")
        posted |= set(re.findall(r'DeviceStatus\("(\w+)", "(\w+)"', src))
        if "_set_status(" in src and path.name == "scanner.py":
            posted |= {("scanner", s) for s in re.findall(r'_set_status\("(\w+)"', src)}
    assert posted, "no device statuses found"
    for device, status in posted:
        assert i18n.has("en", f"happening.device_{device}_{status}"), (device, status)


def test_the_announcements_the_table_needs():
    surge = hp.CardsToDraw((("Ben", 2), ("Chloe", 2)), "order_surge")
    assert i18n.happening_text("en", surge) == "Order surge: Ben draws 2, then Chloe draws 2"
    assert i18n.happening_text("es", surge) == \
        "Acumulación de pedidos: Ben roba 2, después Chloe roba 2"
    assert i18n.happening_text("en", hp.FinalTurnBegins("Chloe")) == \
        "Final turn: Chloe plays last"
    assert "CERRADO" in i18n.happening_text("es", hp.ShopClosed("deck_empty"))
    assert "FECHADO" in i18n.happening_text("pt", hp.ShopClosed("five_dislikes", "Ana"))
    assert "CHIUSO" in i18n.happening_text("it", hp.ShopClosed("orders_done", "Ana"))
    assert "'CLOSE'" in i18n.happening_text("ko", hp.ShopClosed("deck_empty"))
    assert "enroll this card?" in i18n.happening_text("en", table_mod.UnknownCard("04AB"))
    assert i18n.happening_text("en", table_mod.NotYourTurn(1, "Ben", "Ana")) == \
        "Not your turn, Ben: Ana is playing"
    over = i18n.happening_text("it", hp.GameOver(TIE, ("Ana", "Ben")))
    assert "Ana e Ben" in over and "12" in over
    assert "cookies" in i18n.happening_text("en", hp.TokensGained("Ana", 2, "dislike"),
                                            edition="winter")
    assert "rush token" in i18n.happening_text("en", hp.TokensGained("Ana", 1, "specialty"))


# --- the rulebooks' own words ------------------------------------------------------------

@pytest.mark.parametrize("lang, edition, count, word", [
    ("en", "original", 1, "rush token"), ("en", "original", 2, "rush tokens"),
    ("en", "winter", 1, "cookie"), ("en", "winter", 3, "cookies"),
    ("es", "original", 1, "ficha de Rapidez"), ("es", "original", 2, "fichas de Rapidez"),
    ("pt", "original", 2, "Fichas de Pressa"), ("pt", "original", 1, "Ficha de Pressa"),
    ("it", "original", 2, "segnalini Fretta"), ("it", "original", 1, "segnalino Fretta"),
    ("ko", "original", 2, "러시 토큰"), ("ko", "winter", 1, "쿠키 토큰"),
    ("es", "winter", 2, "galletas"), ("pt", "winter", 1, "biscoito"),
    ("it", "winter", 2, "biscotti"),
])
def test_token_names(lang, edition, count, word):
    assert i18n.token_name(lang, edition, count) == word


@pytest.mark.parametrize("lang, open_side, closed_side", [
    ("en", "OPEN", "CLOSED"), ("es", "ABIERTO", "CERRADO"), ("pt", "ABERTO", "FECHADO"),
    ("it", "APERTO", "CHIUSO"), ("ko", "OPEN", "CLOSE"),
])
def test_the_token_sides_as_each_book_prints_them(lang, open_side, closed_side):
    assert i18n.tr(lang, "word.open") == open_side
    assert i18n.tr(lang, "word.closed") == closed_side


def test_likes_upgrades_ingredients_and_colours_use_the_books_words():
    assert i18n.tr("es", "table.likes") == "Me gusta"
    assert i18n.tr("es", "table.dislikes") == "No me gusta"
    assert i18n.tr("it", "table.likes") == "Mi piace"
    assert i18n.upgrade_name("es", "double_meeples") == "Peones duplicadores"
    assert i18n.upgrade_name("pt", "double_specialties") == "Especialidades Duplas"
    assert i18n.upgrade_name("it", "double_corners") == "Angoli Doppi"
    assert i18n.upgrade_name("ko", "diagonal_movement") == "대각선 이동"
    for lang in LANGUAGES:
        for ingredient in ("coffee", "milk", "steam", "ice", "caramel", "fruit", "chocolate",
                           "tea", "water"):
            assert i18n.ingredient_name(lang, ingredient) != ingredient
        for colour in ("red", "blue", "green", "yellow"):
            assert i18n.colour_name(lang, colour) != colour
        for upgrade in ("double_meeples", "diagonal_movement", "double_corners",
                        "double_specialties", "double_destination", "jump"):
            assert i18n.upgrade_name(lang, upgrade) != upgrade
    assert i18n.ingredient_name("it", "caramel") == "Caramello"
    assert i18n.ingredient_name("ko", "tea") == "찻잎"
    assert i18n.colour_name("pt", "yellow") == "Amarelo"


def test_names_list_and_plural_forms():
    assert i18n.names_list("en", ["Ana", "Ben", "Chloe"]) == "Ana, Ben and Chloe"
    assert i18n.names_list("es", ["Ana", "Ben"]) == "Ana y Ben"
    assert i18n.names_list("en", ["Ana"]) == "Ana"
    assert i18n.tr_count("en", "wizard.deal_cards", 1) == "1 card"
    assert i18n.tr_count("pt", "wizard.deal_cards", 3) == "3 cartas"


# --- fallback -----------------------------------------------------------------------------

def test_a_missing_key_falls_back_to_english_and_logs_once(monkeypatch, caplog):
    real = i18n.catalog

    def holed(lang):
        cat = dict(real(lang))
        if lang == "es":
            del cat["wizard.next"]
        return cat

    monkeypatch.setattr(i18n, "catalog", holed)
    monkeypatch.setattr(i18n, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="companion.words.i18n"):
        assert i18n.tr("es", "wizard.next") == "Next"
        assert i18n.tr("es", "wizard.next") == "Next"
        assert i18n.tr("es", "wizard.back") == "Atrás"
    warnings = [r for r in caplog.records if "wizard.next" in r.getMessage()]
    assert len(warnings) == 1


def test_unknown_language_and_key_and_missing_parameter_do_not_raise(caplog):
    assert i18n.tr("xx", "wizard.next") == "Next"
    assert i18n.tr("es", "no.such.key") == "no.such.key"
    assert i18n.tr("en", "wizard.seat") == "Seat {seat}"


def test_framework_text_module_uses_the_catalogs():
    text.reset("es")
    try:
        assert text.t("button.end_turn") == "Fin turno"
        assert text.tokens_lower("rush_token") == "fichas de Rapidez"
        assert text.rejection_text(reject("no_game")).startswith("No hay ninguna partida")
    finally:
        text.reset("en")


def test_a_rejection_code_newer_than_the_catalogs_shows_the_engines_words(monkeypatch):
    from companion.core.rules import rejections
    monkeypatch.setitem(rejections.ENGLISH, "brand_new", "the {thing} is new")
    r = reject("brand_new", thing="kettle")
    assert i18n.rejection_text("ko", r) == "The kettle is new"


def test_a_surge_into_an_empty_deck_is_said_once():
    from companion.words import i18n
    said = i18n.happening_text("en", hp.CardsToDraw((), "order_surge", short=True), "original")
    assert said == "Order surge: the deck is empty"
    short = i18n.happening_text("en", hp.CardsToDraw((("Ana", 2), ("Ben", 1)), "order_surge",
                                                     short=True), "original")
    assert short.endswith(". The deck ran out.") and "Ana draws 2" in short
