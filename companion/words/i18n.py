"""The screen's words in five languages: English, Spanish, Portuguese, Italian, Korean.

Each language is one TOML catalog in ``companion/words/locales/`` (``en.toml``,
``es.toml``, ...). A catalog's sections become the first part of a key:
``[rejection] no_game = "..."`` is the key ``rejection.no_game``. Texts are
Python format templates: ``tr("es", "happening.turn_changed", player="Ana")``.

Game words come from each language's own rulebook (cited in ``docs``; see the
catalog headers): "Me gusta" / "No me gusta" and "fichas de Rapidez" in Spanish,
"Fichas de Pressa" in Portuguese, "segnalini Fretta" in Italian, 러시 토큰 in
Korean, and cookies in the Winter edition. The starting player token's sides
are printed ABIERTO/CERRADO, ABERTO/FECHADO and APERTO/CHIUSO in the Spanish,
Portuguese and Italian books; the Korean article keeps 'OPEN'/'CLOSE' in English.

Public functions (all pure, safe to call from any thread):

- ``tr(lang, key, **params)``        one text; a key missing in ``lang`` falls back
                                      to English (logged once per key).
- ``tr_count(lang, key, count, **params)``  ``key_one`` or ``key_other`` by count.
- ``token_name(lang, edition, count)``     rush token(s) or cookie(s).
- ``rejection_text(lang, rejection)``      an engine ``Rejection`` in ``lang``.
- ``happening_text(lang, happening, edition=...)``  what the screen announces.
- ``upgrade_name``, ``ingredient_name``, ``colour_name``, ``drink_name``, ``language_name``.
"""
from __future__ import annotations

import logging
import marshal
import os
import re
import string
import sys
import tomllib
from collections.abc import Iterable
from functools import cache
from typing import Any, assert_never

from companion.appliance.config import LANGUAGES, TomlProblem
from companion.core.rules.editions import EDITIONS
from companion.core.rules.rejections import ENGLISH as ENGLISH_REJECTIONS
from companion.core.rules.rejections import CODED, Rejection
from companion.core.rules.json_text import JsonProblem
from companion.core.rules.happenings import (KINDS, CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardEnrolled, CardIdentified,
                                             CardsToDraw, Corrected, DeviceStatusChanged,
                                             DislikesTaken, DrawsDismissed, FinalTurnBegins,
                                             GameOver, GameStarted, Happening, NotYourTurn,
                                             OrderCompleted, OrdersMovedDown, RankingChanged,
                                             Redone, ShopClosed, ShopReopened, Stalled, TablePaused,
                                             TableResumed, TokensGained, TokensSpent, TurnChanged,
                                             UnknownCard, UpgradeActivated, Undone)
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly

log = logging.getLogger("companion.words.i18n")

DEFAULT = "en"
_warned: set = set()


# --- catalogs ----------------------------------------------------------------------

def _flatten(table: dict, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, name + "."))
        elif isinstance(value, str):
            out[name] = value
        else:
            raise ValueError(f"{name}: a catalog entry must be a text, not {value!r}")
    return out


LOCALES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locales")


@cache
def catalog(lang: str) -> dict[str, str]:
    """Every key -> template of one language (read once, then cached)."""
    if lang not in LANGUAGES:
        raise KeyError(f"{lang!r} is not a language of the companion ({', '.join(LANGUAGES)})")
    # beside this module (the companion is installed unpacked): importlib.resources would
    # load its readers and zipfile at every start, a noticeable part of it on a small Pi
    path = os.path.join(LOCALES, f"{lang}.toml")
    cached = os.path.join(LOCALES, "__pycache__", f"{lang}.{sys.implementation.cache_tag}.marshal")
    with open(path, "rb") as fh:
        stamp = os.fstat(fh.fileno())
        stamp_key = (stamp.st_mtime_ns, stamp.st_size)
        try:
            with open(cached, "rb") as got:
                seen, entries = marshal.loads(got.read())
            if seen == stamp_key and isinstance(entries, dict):
                return entries
        except (OSError, EOFError, ValueError, TypeError):
            pass
        entries = _flatten(tomllib.loads(fh.read().decode("utf-8")))
    _keep_parsed(cached, stamp_key, entries)
    return entries


def _keep_parsed(cached: str, stamp_key: tuple, entries: dict[str, str]) -> None:
    """The parsed entries beside the byte code, as Python keeps its modules' (same place,
    same rule: not when byte code is not written; the file's size and time tell a stale
    one): tomllib is pure Python, and parsing a language file was about 45 M instructions
    of every start on the Pi (issue 19). A folder that cannot be written costs nothing."""
    if sys.dont_write_bytecode:
        return
    try:
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        part = f"{cached}.{os.getpid()}.part"
        with open(part, "wb") as fh:
            marshal.dump((stamp_key, entries), fh)
        os.replace(part, cached)
    except OSError:
        pass


def placeholders(template: str) -> set[str]:
    """The {names} a template uses."""
    return {field.split(".")[0].split("[")[0]
            for _, field, _, _ in string.Formatter().parse(template) if field}


def _warn_once(what: tuple, message: str, *args: Any) -> None:
    if what not in _warned:
        _warned.add(what)
        log.warning(message, *args)


class _Params(dict):
    """Format parameters that leave an unknown {name} visible instead of raising."""

    def __missing__(self, key: str) -> str:
        _warn_once(("param", key), "a text asks for {%s}, which was not given", key)
        return "{" + key + "}"


def _normal(lang: str | None) -> str:
    return lang if lang in LANGUAGES else DEFAULT


def has(lang: str, key: str) -> bool:
    return key in catalog(_normal(lang))


def template(lang: str, key: str) -> str:
    """The text of ``key`` in ``lang`` with its {parameters} left for a script to fill (the
    café pages' JavaScript); English where ``lang`` has none, the key where nothing has it."""
    lang = _normal(lang)
    found = catalog(lang).get(key) or catalog(DEFAULT).get(key)
    if found is None:
        _warn_once(("key", key), "no text for %r in any language", key)
        return key
    return found


def tr(lang: str, key: str, /, **params: Any) -> str:
    """The text of ``key`` in ``lang`` with ``params`` filled in."""
    lang = _normal(lang)
    template = catalog(lang).get(key)
    if template is None:
        template = catalog(DEFAULT).get(key)
        if template is None:
            _warn_once(("key", key), "no text for %r in any language", key)
            return key
        _warn_once((lang, key), "no %s text for %r: showing the English one", lang, key)
    try:
        return template.format_map(_Params(params))   # C, not string.Formatter's Python
    except (ValueError, IndexError) as exc:  # a broken template must not break the screen
        _warn_once(("format", lang, key), "the %s text for %r is malformed (%s)", lang, key, exc)
        return template


def tr_count(lang: str, key: str, count: int, /, **params: Any) -> str:
    """``key_one`` for exactly one, else ``key_other`` (every language has both)."""
    return tr(lang, f"{key}_{'one' if count == 1 else 'other'}", count=count, **params)


# --- game words ----------------------------------------------------------------------

def token_name(lang: str, edition: str, count: int = 2) -> str:
    """The extra-move token of ``edition`` (rush token or cookie), singular or plural."""
    token = EDITIONS[edition].token if edition in EDITIONS else "rush_token"
    return tr(lang, f"token.{token}_{'one' if count == 1 else 'other'}")


def upgrade_name(lang: str, upgrade: str) -> str:
    key = f"upgrade.{upgrade}"
    return tr(lang, key) if has(DEFAULT, key) else upgrade


def ingredient_name(lang: str, ingredient: str) -> str:
    key = f"ingredient.{ingredient}"
    return tr(lang, key) if has(DEFAULT, key) else ingredient


def colour_name(lang: str, colour: str) -> str:
    key = f"colour.{colour}"
    return tr(lang, key) if has(DEFAULT, key) else colour


_EXAMPLE_ORDER = re.compile(r"Example order (\d+)")


def drink_name(lang: str, drink: str) -> str:
    """A card's drink as the table shows it: a catalog's own name as it was typed, but the
    example catalog's made-up "Example order 18" (core/data/example-cards.toml) in ``lang``."""
    example = _EXAMPLE_ORDER.fullmatch(drink)
    return tr(lang, "card.example_order", number=example[1]) if example else drink


def language_name(lang: str) -> str:
    """A language's own name (the same in every catalog: players look for their own)."""
    return tr(lang, f"language.{lang}")


def names_list(lang: str, names: Iterable[str]) -> str:
    """'Ana', 'Ana and Ben', 'Ana, Ben and Chloe' in ``lang``."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    head = tr(lang, "word.list_separator").join(names[:-1])
    return tr(lang, "word.list_last", head=head, last=names[-1])


# --- rejections ----------------------------------------------------------------------

def json_problem_text(lang: str, problem: JsonProblem) -> str:
    """Text that is not JSON, told in ``lang`` with where: "line 8, column 31: a comma
    before `}`" (``json_text.JsonProblem``; the English is ``problem.english()``)."""
    said = tr(lang, "json." + problem.what, **problem.params())
    return tr(lang, "json.at", line=problem.line, column=problem.column, problem=said)


def toml_problem_text(lang: str, path: str, problem: TomlProblem) -> str:
    """A config file that is not TOML, told in ``lang`` with where ("…/config.toml, line 3,
    column 12: `es` needs double quotes: "es" …"; the English is ``problem.english``)."""
    said = tr(lang, "toml." + problem.what, item=problem.item)
    if not problem.line:
        return tr(lang, "toml.somewhere", path=path, problem=said)
    return tr(lang, "toml.at", path=path, line=problem.line, column=problem.column,
              problem=said)


def _rejection_params(lang: str, code: str, params: dict) -> dict:
    """The parameters that are ids (``rejections.CODED``) in ``lang``'s words; an id the
    locale files do not name reads as itself."""
    def word(section: str, value: str) -> str:
        key = f"{section}.{value}"       # (a word may use the rejection's other parameters)
        return tr(lang, key, **params) if has(DEFAULT, key) else value

    out = dict(params)
    for name, section in CODED.get(code, {}).items():
        value = out.get(name)
        if isinstance(value, str):
            out[name] = word(section, value)
        elif isinstance(value, tuple):
            out[name] = tr(lang, "word.list_separator").join(word(section, v) for v in value)
    return out


def rejection_text(lang: str, rejection: Rejection, sentence: bool = True) -> str:
    """Why an action was refused, in ``lang`` (same parameters as the English text).

    ``sentence``: start with a capital letter, as on the screen (the English
    templates start in lower case so a CLI can put "line 3: " before them)."""
    key = f"rejection.{rejection.code}"
    if rejection.code not in ENGLISH_REJECTIONS:
        text = rejection.code
    elif not has(DEFAULT, key):        # a code newer than the catalogs: the engine's words
        _warn_once(("key", key), "no text for %r in any language", key)
        text = rejection.text
    else:
        params = _rejection_params(_normal(lang), rejection.code, dict(rejection.params))
        text = tr(lang, key, **params)
    return text[:1].upper() + text[1:] if sentence else text


# --- happenings ----------------------------------------------------------------------

def _draws(lang: str, draws: tuple) -> str:
    parts = []
    for i, (player, count) in enumerate(draws):
        key = "happening.draws_first" if i == 0 else "happening.draws_then"
        parts.append(tr(lang, key, player=player, count=count))
    return tr(lang, "word.then_separator").join(parts)


def _winners(lang: str, h: GameOver | RankingChanged) -> str:
    best = h.ranking[0].score if h.ranking else 0
    if len(h.winners) == 1:
        return tr_count(lang, "happening.winner", best, player=h.winners[0], score=best)
    return tr_count(lang, "happening.winners", best, players=names_list(lang, h.winners),
                    score=best)


def _action_name(lang: str, action: Any) -> str:
    do = action.get("do") if isinstance(action, dict) else None
    key = f"action.{do}"
    return tr(lang, key) if isinstance(do, str) and has(DEFAULT, key) else str(do)


def _t(lang: str, key: str, **params: Any) -> str:
    return tr(lang, f"happening.{key}", **params)


def _order_completed(lang: str, h: OrderCompleted, edition: str) -> str:
    key = "order_completed_specialty" if h.specialty else "order_completed"
    return _t(lang, key, player=h.player, position=h.position,
              token=token_name(lang, edition, 1))


def _tokens_gained(lang: str, h: TokensGained, edition: str) -> str:
    key = "tokens_gained_dislike" if h.reason == "dislike" else "tokens_gained"
    return _t(lang, key, player=h.player, count=h.count, tokens=token_name(lang, edition, h.count))


def _cake_placed(lang: str, h: CakePlaced) -> str:
    if h.by == "two_drinks_one_cake":
        return _t(lang, "cake_placed_rule", player=h.player)
    return _t(lang, "cake_placed", player=h.player, position=h.position)


def _cake_card_gained(lang: str, h: CakeCardGained) -> str:
    key = "cake_card_gained_break_time" if h.reason == "break_time" else "cake_card_gained"
    return _t(lang, key, player=h.player, total=h.total)


def _cards_to_draw(lang: str, h: CardsToDraw) -> str:
    if h.reason == "two_player_draw":
        text = _t(lang, "two_player_draw", player=h.draws[0][0] if h.draws else "")
    elif h.draws:
        text = _t(lang, "order_surge", draws=_draws(lang, h.draws))
    else:
        return _t(lang, "order_surge_none")          # says the deck is empty already
    return text.rstrip(".") + (". " + _t(lang, "deck_short") if h.short else "")


def _shop_closed(lang: str, h: ShopClosed) -> str:
    reason = h.reason if h.reason in ("deck_empty", "five_dislikes", "orders_done") else "other"
    return _t(lang, f"shop_closed_{reason}", player=h.player or "",
              closed=tr(lang, "word.closed"))


def _shop_reopened(lang: str, h: ShopReopened) -> str:
    """A correction took the last reason away (table script 1.2)."""
    return _t(lang, "shop_reopened_deck" if h.player is None else "shop_reopened_dislikes",
              player=h.player or "", open=tr(lang, "word.open"))


def _corrected(lang: str, h: Corrected, edition: str) -> str:
    if h.field == "cookies":
        what = token_name(lang, edition, 2)
    else:
        what = tr(lang, f"field.{h.field}") if has(DEFAULT, f"field.{h.field}") else h.field
    if h.player is None:
        return _t(lang, "corrected_deck", field=what, before=h.before, after=h.after)
    return _t(lang, "corrected", player=h.player, field=what, before=h.before, after=h.after)


def _not_your_turn(lang: str, h: NotYourTurn) -> str:
    if h.player is None:
        return _t(lang, "seat_empty", seat=h.seat + 1)
    if h.overlapped:
        return _t(lang, "not_your_turn_overlap", player=h.player)
    return _t(lang, "not_your_turn", player=h.player, active=h.active or "")


def _device_status(lang: str, h: DeviceStatusChanged) -> str:
    key = f"device_{h.device}_{h.status}"
    if has(DEFAULT, f"happening.{key}"):
        return _t(lang, key, detail=h.detail)
    return _t(lang, "device_other", device=h.device, status=h.status, detail=h.detail)


# radon C-D: one case per happening, the exhaustive match (assert_never)
def happening_text(lang: str, h: Happening, edition: str = "original") -> str:
    """The sentence the screen shows for a happening (engine or table loop).

    Four families, each an exhaustive ``match`` with one line per case: ``assert_never``
    here fails mypy for a happening no family takes, and in a family for one it forgot."""
    match h:
        case GameStarted() | CardIdentified() | Corrected() | UnknownCard() | CardEnrolled():
            return _card_text(lang, h, edition)
        case (OrderCompleted() | TokensGained() | TokensSpent() | UpgradeActivated()
              | CakePlaced() | CakeCardGained() | CakeCardPlayed() | CakesReturned()):
            return _order_text(lang, h, edition)
        case (CardsToDraw() | OrdersMovedDown() | DislikesTaken() | ShopClosed()
              | ShopReopened() | FinalTurnBegins() | TurnChanged() | GameOver()
              | RankingChanged()):
            return _flow_text(lang, h)
        case (Stalled() | DrawsDismissed() | TablePaused() | TableResumed() | Undone()
              | Redone() | NotYourTurn() | DeviceStatusChanged() | GameEndedEarly()
              | GameBroughtBack()):
            return _table_text(lang, h)
        case _:
            assert_never(h)


def _card_text(lang: str, h: GameStarted | CardIdentified | Corrected | UnknownCard
               | CardEnrolled, edition: str) -> str:
    """A game set up, a card read, a correction, the catalog."""
    match h:
        case GameStarted():
            return _t(lang, "game_started", start=h.start, players=names_list(lang, h.players))
        case CardIdentified():
            return _t(lang, "card_identified", player=h.player, position=h.position, tag=h.tag)
        case Corrected():
            return _corrected(lang, h, edition)
        case UnknownCard():
            return _t(lang, "unknown_card", tag=h.tag)
        case CardEnrolled():
            return _t(lang, "card_enrolled", tag=h.tag, drink=h.drink)
        case _:
            assert_never(h)


def _order_text(lang: str, h: OrderCompleted | TokensGained | TokensSpent | UpgradeActivated
                | CakePlaced | CakeCardGained | CakeCardPlayed | CakesReturned,
                edition: str) -> str:
    """An order filled, and what it brought: tokens, upgrades, cakes."""
    match h:
        case OrderCompleted():
            return _order_completed(lang, h, edition)
        case TokensGained():
            return _tokens_gained(lang, h, edition)
        case TokensSpent():
            return _t(lang, "tokens_spent", player=h.player, count=h.count,
                      tokens=token_name(lang, edition, h.count))
        case UpgradeActivated():
            return _t(lang, "upgrade_activated", player=h.player,
                      upgrade=upgrade_name(lang, h.upgrade))
        case CakePlaced():
            return _cake_placed(lang, h)
        case CakeCardGained():
            return _cake_card_gained(lang, h)
        case CakeCardPlayed():
            return _t(lang, "cake_card_played", player=h.player, left=h.left)
        case CakesReturned():
            return tr_count(lang, "happening.cakes_returned", h.count, player=h.player)
        case _:
            assert_never(h)


def _flow_text(lang: str, h: CardsToDraw | OrdersMovedDown | DislikesTaken | ShopClosed
               | ShopReopened | FinalTurnBegins | TurnChanged | GameOver
               | RankingChanged) -> str:
    """The flow of time, the sign, the turns and the end."""
    match h:
        case CardsToDraw():
            return _cards_to_draw(lang, h)
        case OrdersMovedDown():
            return tr_count(lang, "happening.orders_moved_down", h.cards, player=h.player)
        case DislikesTaken():
            return tr_count(lang, "happening.dislikes_taken", h.count, player=h.player,
                            total=h.total)
        case ShopClosed():
            return _shop_closed(lang, h)
        case ShopReopened():
            return _shop_reopened(lang, h)
        case FinalTurnBegins():
            return _t(lang, "final_turn_begins", player=h.player)
        case TurnChanged():
            return _t(lang, "turn_changed", player=h.player, previous=h.previous, turn=h.turn)
        case GameOver():
            return _t(lang, "game_over", result=_winners(lang, h))
        case RankingChanged():
            return _t(lang, "ranking_changed", result=_winners(lang, h))
        case _:
            assert_never(h)


def _table_text(lang: str, h: Stalled | DrawsDismissed | TablePaused | TableResumed | Undone
                | Redone | NotYourTurn | DeviceStatusChanged | GameEndedEarly
                | GameBroughtBack) -> str:
    """The table itself: a pause, an undo, a refused press, a device."""
    match h:
        case (Stalled() | DrawsDismissed() | TablePaused() | TableResumed() | GameEndedEarly()
              | GameBroughtBack()):
            return _t(lang, h.kind)
        case Undone() | Redone():
            return _t(lang, h.kind, action=_action_name(lang, h.action))
        case NotYourTurn():
            return _not_your_turn(lang, h)
        case DeviceStatusChanged():
            return _device_status(lang, h)
        case _:
            assert_never(h)


HAPPENING_KINDS = KINDS
"""Every happening's ``kind`` (``rules.happenings.KINDS``): each has words in every language."""


if __name__ == "__main__":
    # what install.sh runs once, as the owner of the program's folder: every language
    # file parsed and kept beside the byte code (``_keep_parsed``)
    for _lang in LANGUAGES:
        catalog(_lang)
    print(f"kept the parsed language files in {os.path.join(LOCALES, '__pycache__')}")
