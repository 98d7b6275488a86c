"""The language the screens speak now, and their words in it: ``t(key, **params)``.

Every text comes from ``companion.words.i18n`` (the catalogs in ``locales/``).
This module only remembers the screens' current language (``set_language``,
called by the App when the settings change it), so that a screen writes
``t("button.undo")`` instead of passing the language to every call, and keeps
the few helpers that need that language: plural forms, token words, a list of
names, and the letters on an ingredient disc.

It also remembers the players of the table's game and their seat colours
(``set_players``, called by the App with every update), so that a name the setup's
"Play with seat colours" gave shows in the current language (``shown``; the rule is
``companion.core.seat_colours.shown_name``): every ``t`` fills its ``player``,
``active``, ``previous`` and ``start`` with the names as shown, and ``join_names``
joins them as shown. The journal keeps the names as they were given.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from companion.core import seat_colours
from companion.core.rules.rejections import Rejection
from companion.words import i18n

_language = i18n.DEFAULT
_players: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())   # names, seat colours
_names: Mapping[str, str] | None = None                          # (worked out from them)
NAME_PARAMS = ("player", "active", "previous", "start")        # what t() fills with a name


def set_language(lang: str) -> None:
    """Switch the words of every screen to ``lang`` (en, es, pt, it, ko)."""
    global _language, _names
    _language, _names = lang, None


def language() -> str:
    return _language


def set_players(names: Iterable[str], colours: Iterable[str]) -> None:
    """The table's game: its players' names as recorded, in seat order, and its seat
    colours (names: "red", ...; none: the box's order)."""
    global _players, _names
    players = (tuple(names), tuple(colours))
    if players != _players:
        _players, _names = players, None


def shown_names() -> Mapping[str, str]:
    """The game's players, recorded name -> the name shown in the current language."""
    global _names
    if _names is None:
        _names = seat_colours.game_names(_language, *_players)
    return _names


def shown(name: str) -> str:
    """A player's name as the screens show it in the current language: a seat-colour
    name the setup gave follows the language; any other name stays as it was given."""
    return shown_names().get(name, name)


def t(key: str, **params: Any) -> str:
    """The text of ``key`` in the current language, with ``params`` filled in (a
    player's name as ``shown`` shows it)."""
    for k in NAME_PARAMS:
        if isinstance(params.get(k), str):
            params[k] = shown(params[k])
    return i18n.tr(_language, key, **params)


def in_every_language(key: str) -> list[str]:
    """The text of ``key`` in each of the five languages (for words that take one type size
    whatever the language: the footer's labels)."""
    return [i18n.tr(lang, key) for lang in i18n.LANGUAGES]


def t_count(key: str, count: int, **params: Any) -> str:
    """``key_one`` or ``key_other`` by ``count`` (plural forms), in the current language."""
    return i18n.tr_count(_language, key, count, **params)


def rejection_text(rejection: Rejection) -> str:
    """Why the engine said no, in words for the table (the player it names as ``shown``)."""
    return i18n.rejection_text(_language, seat_colours.shown_rejection(rejection,
                                                                        shown_names()))


def tokens_lower(token: str) -> str:
    """"rush tokens" or "cookies" in the current language (plural, as in a sentence)."""
    return t(f"token.{token}_other")


def tokens_name(token: str) -> str:
    """"Rush tokens" or "Cookies": the plural as a heading."""
    name = tokens_lower(token)
    return name[:1].upper() + name[1:]


def join_names(names: Iterable[str]) -> str:
    """"Ana", "Ana and Ben", "Ana, Ben and Chloe" (as ``shown`` shows each)."""
    return i18n.names_list(_language, [shown(n) for n in names])


def drink_name(drink: str) -> str:
    """A card's drink in the current language (the example catalog's cards are translated)."""
    return i18n.drink_name(_language, drink)


def upgrade_name(upgrade: str) -> str:
    return i18n.upgrade_name(_language, upgrade)


_letters: dict[str, dict[str, str]] = {}
INGREDIENT_IDS = ("coffee", "milk", "steam", "ice", "caramel", "fruit", "chocolate", "tea", "water")


def ingredient_letters(ingredient: str) -> str:
    """The letters on an ingredient disc in the current language: two letters of its
    name ("Co", "Ch", "Ca"), or one syllable in Korean; never the same for two."""
    table = _letters.get(_language)
    if table is None:
        table, used = {}, set()
        for ing in INGREDIENT_IDS:
            name = i18n.ingredient_name(_language, ing)
            if name == ing:
                name = ing.title()
            if name and ord(name[0]) >= 0x1100:        # Hangul (and other syllabic scripts)
                options = [name[0]] + [name[:2]]
            else:
                options = [name[0].upper() + c.lower() for c in name[1:] if c.isalpha()]
            pick = next((o for o in options if o not in used), name[:2])
            used.add(pick)
            table[ing] = pick
        _letters[_language] = table
    return table.get(ingredient, ingredient[:2].title())


def reset(lang: str | None = None) -> None:
    """Forget the letters worked out so far and the game's players (tests) and
    optionally set the language."""
    _letters.clear()
    set_players((), ())
    if lang is not None:
        set_language(lang)
