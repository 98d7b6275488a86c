"""The screen's words in five languages: English, Spanish, Portuguese, Italian, Korean.

Each language is one TOML catalog in ``companion/ui/locales/`` (``en.toml``,
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
- ``upgrade_name``, ``ingredient_name``, ``colour_name``, ``language_name``.
"""
from __future__ import annotations

import logging
import marshal
import os
import string
import sys
import tomllib
from collections.abc import Iterable
from functools import cache
from typing import Any

from ..config import LANGUAGES
from ..rules.editions import EDITIONS
from ..rules.rejections import ENGLISH as ENGLISH_REJECTIONS
from ..rules.rejections import CODED, Rejection

log = logging.getLogger("companion.ui.i18n")

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
                seen, entries = marshal.load(got)
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

def _rejection_params(lang: str, code: str, params: dict) -> dict:
    """The parameters that are ids (``rejections.CODED``) in ``lang``'s words; an id the
    locale files do not name reads as itself."""
    def word(section: str, value: str) -> str:
        key = f"{section}.{value}"
        return tr(lang, key) if has(DEFAULT, key) else value

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


def _winners(lang: str, h: Any) -> str:
    best = h.ranking[0].score if h.ranking else 0
    if len(h.winners) == 1:
        return tr(lang, "happening.winner", player=h.winners[0], score=best)
    return tr(lang, "happening.winners", players=names_list(lang, h.winners), score=best)


def _action_name(lang: str, action: Any) -> str:
    do = action.get("do") if isinstance(action, dict) else None
    key = f"action.{do}"
    return tr(lang, key) if isinstance(do, str) and has(DEFAULT, key) else str(do)


def happening_text(lang: str, h: Any, edition: str = "original") -> str:
    """The sentence the screen shows for a happening (engine or table loop)."""
    kind = getattr(h, "kind", "")
    t = lambda key, **p: tr(lang, f"happening.{key}", **p)   # noqa: E731
    if kind == "game_started":
        return t("game_started", start=h.start, players=names_list(lang, h.players))
    if kind == "card_identified":
        return t("card_identified", player=h.player, position=h.position, tag=h.tag)
    if kind == "order_completed":
        key = "order_completed_specialty" if h.specialty else "order_completed"
        return t(key, player=h.player, position=h.position, token=token_name(lang, edition, 1))
    if kind == "tokens_gained":
        key = "tokens_gained_dislike" if h.reason == "dislike" else "tokens_gained"
        return t(key, player=h.player, count=h.count, tokens=token_name(lang, edition, h.count))
    if kind == "tokens_spent":
        return t("tokens_spent", player=h.player, count=h.count,
                 tokens=token_name(lang, edition, h.count))
    if kind == "upgrade_activated":
        return t("upgrade_activated", player=h.player, upgrade=upgrade_name(lang, h.upgrade))
    if kind == "cake_placed":
        if h.by == "two_drinks_one_cake":
            return t("cake_placed_rule", player=h.player)
        return t("cake_placed", player=h.player, position=h.position)
    if kind == "cake_card_gained":
        key = "cake_card_gained_break_time" if h.reason == "break_time" else "cake_card_gained"
        return t(key, player=h.player, total=h.total)
    if kind == "cake_card_played":
        return t("cake_card_played", player=h.player, left=h.left)
    if kind == "cakes_returned":
        return tr_count(lang, "happening.cakes_returned", h.count, player=h.player)
    if kind == "cards_to_draw":
        if h.reason == "two_player_draw":
            text = t("two_player_draw", player=h.draws[0][0] if h.draws else "")
        elif h.draws:
            text = t("order_surge", draws=_draws(lang, h.draws))
        else:
            return t("order_surge_none")          # says the deck is empty already
        return text.rstrip(".") + (". " + t("deck_short") if h.short else "")
    if kind == "orders_moved_down":
        return tr_count(lang, "happening.orders_moved_down", h.cards, player=h.player)
    if kind == "dislikes_taken":
        return tr_count(lang, "happening.dislikes_taken", h.count, player=h.player,
                        total=h.total)
    if kind == "shop_closed":
        reason = h.reason if h.reason in ("deck_empty", "five_dislikes", "orders_done") \
            else "other"
        return t(f"shop_closed_{reason}", player=h.player or "", closed=tr(lang, "word.closed"))
    if kind == "shop_reopened":       # a correction took the last reason away (1.2)
        return t("shop_reopened_deck" if h.player is None else "shop_reopened_dislikes",
                 player=h.player or "", open=tr(lang, "word.open"))
    if kind == "final_turn_begins":
        return t("final_turn_begins", player=h.player)
    if kind == "turn_changed":
        return t("turn_changed", player=h.player, previous=h.previous, turn=h.turn)
    if kind == "game_over":
        return t("game_over", result=_winners(lang, h))
    if kind == "ranking_changed":
        return t("ranking_changed", result=_winners(lang, h))
    if kind == "corrected":
        if h.field == "cookies":
            what = token_name(lang, edition, 2)
        else:
            what = tr(lang, f"field.{h.field}") if has(DEFAULT, f"field.{h.field}") else h.field
        if h.player is None:
            return t("corrected_deck", field=what, before=h.before, after=h.after)
        return t("corrected", player=h.player, field=what, before=h.before, after=h.after)
    if kind == "stalled":
        return t("stalled")
    if kind == "undone":
        return t("undone", action=_action_name(lang, h.action))
    if kind == "redone":
        return t("redone", action=_action_name(lang, h.action))
    if kind == "not_your_turn":
        if h.player is None:
            return t("seat_empty", seat=h.seat + 1)
        if getattr(h, "overlapped", False):
            return t("not_your_turn_overlap", player=h.player)
        return t("not_your_turn", player=h.player, active=h.active or "")
    if kind == "unknown_card":
        return t("unknown_card", tag=h.tag)
    if kind == "card_enrolled":
        return t("card_enrolled", tag=h.tag, drink=h.drink)
    if kind == "draws_dismissed":
        return t("draws_dismissed")
    if kind in ("table_paused", "table_resumed"):
        return t(kind)
    if kind == "device_status":
        key = f"device_{h.device}_{h.status}"
        if has(DEFAULT, f"happening.{key}"):
            return t(key, detail=h.detail)
        return t("device_other", device=h.device, status=h.status, detail=h.detail)
    _warn_once(("kind", kind), "no text for happening %r", kind)
    return kind


HAPPENING_KINDS = ("game_started", "card_identified", "order_completed", "tokens_gained",
                   "tokens_spent", "upgrade_activated", "cards_to_draw", "orders_moved_down",
                   "dislikes_taken", "shop_closed", "shop_reopened", "final_turn_begins",
                   "turn_changed", "game_over", "ranking_changed", "corrected", "stalled", "undone",
                   "redone",
                   "not_your_turn", "unknown_card", "card_enrolled", "draws_dismissed",
                   "device_status", "table_paused", "table_resumed", "cake_placed",
                   "cake_card_gained", "cake_card_played", "cakes_returned")
