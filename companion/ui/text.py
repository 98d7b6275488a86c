"""The words of the table view, end screen and fix mode: ``t(key, **params)``.

``ENGLISH`` below is the source of every key these screens use, with its
English text and ``{params}``. When ``companion.ui.i18n`` is present, ``t``
asks it for the current language (``i18n.tr(lang, key, **params)``) and falls
back to the English text here for a key it does not know; rejections go
through ``i18n.rejection_text``. ``set_language`` switches the language.
"""
from __future__ import annotations

from typing import Any, Optional

ENGLISH: dict[str, str] = {
    # top bar
    "table.turn_round": "Turn {turn} · Round {round}",
    "table.turn_of": "{player}'s turn",
    "word.open": "OPEN",                 # the starting player token's sides
    "word.closed": "CLOSED",
    "table.deck": "Deck {count}",
    "table.final_round": "Final round",
    "table.last_turn": "Last turn!",
    "table.plays_last": "{player} plays last",
    "table.closed_because.deck_empty": "Shop closed: the order deck ran out",
    "table.closed_because.five_dislikes": "Shop closed: {player} has 5 dislikes",
    "table.closed_because.orders_done": "Shop closed: {player} completed every order",
    # player panels
    "table.points_one": "{count} pt",
    "table.points_other": "{count} pts",
    "table.you_play": "Playing now",
    "table.tap_card_hint": "Tap an order to complete it",
    "table.no_orders": "No orders in the queue",
    "table.likes": "Likes",
    "table.dislikes": "Dislikes",
    "table.upgrades": "Upgrades",
    "token.rush_token_other": "rush tokens",
    "token.cookie_other": "cookies",
    # pending draws and banners
    "table.draw_one": "{player} draws {count}",
    "table.draw_join": ", then ",
    "table.draw_title": "Draw order cards",
    "table.draw_short": "The deck ran out: not every card could be drawn.",
    "table.stalled": "Every order queue is empty: the game cannot go on. Undo, or fix the counts.",
    "table.no_game": "No game is running",
    "table.start_hint": "Start a new game to see the table here.",
    "table.scan_dealt": "Scan the dealt cards so the screen can show them",
    # device status
    "device.scanner": "Scanner",
    "device.buttons": "Buttons",
    "device.lost": "{device} disconnected",
    "device.back": "{device} connected",
    # buttons
    "button.end_turn": "End turn",
    "button.undo": "Undo",
    "button.redo": "Redo",
    "button.upgrade": "Upgrade",
    "button.spend": "Spend",
    "button.fix": "Fix",
    "button.settings": "Settings",
    "button.new_game": "New game",
    "button.rematch": "Rematch",
    "button.confirm": "Confirm",
    "button.cancel": "Cancel",
    "button.save": "Save",
    "button.close": "Close",
    "button.later": "Later",
    "button.enroll": "Enroll",
    "button.ok": "OK",
    # dialogs
    "spend.title": "{player}: how many {tokens} to spend?",
    "spend.hint": "Each one is one extra move.",
    "upgrade.title": "{player}: activate an upgrade (costs 3 likes)",
    "upgrade.double_meeples": "Double Meeples",
    "upgrade.diagonal_movement": "Diagonal Movement",
    "upgrade.double_corners": "Double Corners",
    "upgrade.double_specialties": "Double Specialties",
    "upgrade.double_destination": "Double Destination",
    "upgrade.jump": "Jump",
    "ingredient.coffee": "Coffee",
    "ingredient.milk": "Milk",
    "ingredient.steam": "Steam",
    "ingredient.ice": "Ice",
    "ingredient.caramel": "Caramel",
    "ingredient.fruit": "Fruit",
    "ingredient.chocolate": "Chocolate",
    "ingredient.tea": "Tea",
    "ingredient.water": "Water",
    "enroll.title": "New card: {tag}",
    "enroll.body": "This card is not in the catalog yet. Enroll it now so the screen can show its drink?",
    # fix mode
    "fix.guard_title": "Correct the counts?",
    "fix.guard_body": "Only when the table agrees the companion is wrong. Every correction is recorded and can be undone.",
    "fix.open": "Correct counts",
    "fix.title": "Correct the counts",
    "fix.deck": "Order deck",
    "fix.no_change": "Nothing changed",
    # end screen
    "end.title": "Game over",
    "end.winner": "{player} wins!",
    "end.shared": "{players} share the victory!",
    "word.list_separator": ", ",
    "word.list_last": "{head} and {last}",
    "end.place": "{place}.",
    "end.points_one": "{count} point",
    "end.points_other": "{count} points",
    "end.likes_part_one": "{count} like × {weight} = {points}",
    "end.likes_part_other": "{count} likes × {weight} = {points}",
    "end.upgrades_part_one": "{count} upgrade × {weight} = {points}",
    "end.upgrades_part_other": "{count} upgrades × {weight} = {points}",
    "end.dislikes_part_one": "{count} dislike × {weight} = {points}",
    "end.dislikes_part_other": "{count} dislikes × {weight} = {points}",
    "end.tie_likes": "{better} ahead of {worse}: same score, more likes",
    "end.tie_cookies": "{better} ahead of {worse}: same score and likes, more {tokens}",
    "end.tie_shared": "{better} and {worse}: same score, likes and {tokens}, so they share the place",
    "end.corrected": "Counts were corrected by hand during this game.",
}

_language = "en"
_i18n: Any = None
_looked = False


def set_language(lang: str) -> None:
    """Switch the words of every screen to ``lang`` (en, es, pt, it, ko)."""
    global _language
    _language = lang


def language() -> str:
    return _language


def _catalog() -> Any:
    global _i18n, _looked
    if not _looked:
        _looked = True
        try:
            from . import i18n
            _i18n = i18n
        except ImportError:
            _i18n = None
    return _i18n


def t(key: str, **params: Any) -> str:
    """The text of ``key`` in the current language, with ``params`` filled in."""
    cat = _catalog()
    if cat is not None:
        try:
            text = cat.tr(_language, key, **params)
        except (KeyError, LookupError):
            text = None
        if text is not None and text != key:
            return text
    template = ENGLISH.get(key)
    if template is None:
        return key
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template


def t_count(key: str, count: int, **params: Any) -> str:
    """``key_one`` or ``key_other`` by ``count`` (plural forms), in the current language."""
    return t(f"{key}_{'one' if count == 1 else 'other'}", count=count, **params)


def rejection_text(rejection: Any) -> str:
    """Why the engine said no, in words for the table."""
    cat = _catalog()
    if cat is not None and hasattr(cat, "rejection_text"):
        try:
            return cat.rejection_text(_language, rejection)
        except Exception:
            pass
    text = rejection.text
    return text[:1].upper() + text[1:]


def tokens_lower(token: str) -> str:
    """"rush tokens" or "cookies" in the current language (plural, as in a sentence)."""
    return t(f"token.{token}_other")


def tokens_name(token: str) -> str:
    """"Rush tokens" or "Cookies": the plural as a heading."""
    name = tokens_lower(token)
    return name[:1].upper() + name[1:]


def join_names(names: list[str]) -> str:
    """"Ana", "Ana and Ben", "Ana, Ben and Chloe"."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    head = t("word.list_separator").join(names[:-1])
    return t("word.list_last", head=head, last=names[-1])


_letters: dict[str, dict[str, str]] = {}
INGREDIENT_IDS = ("coffee", "milk", "steam", "ice", "caramel", "fruit", "chocolate", "tea", "water")


def ingredient_letters(ingredient: str) -> str:
    """The letters on an ingredient disc in the current language: two letters of its
    name ("Co", "Ch", "Ca"), or one syllable in Korean; never the same for two."""
    table = _letters.get(_language)
    if table is None:
        table, used = {}, set()
        for ing in INGREDIENT_IDS:
            name = t(f"ingredient.{ing}")
            if name == f"ingredient.{ing}":
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


def upgrade_name(upgrade: str) -> str:
    return t(f"upgrade.{upgrade}")


def reset(lang: Optional[str] = None) -> None:
    """Look for the i18n catalog again (tests) and optionally set the language."""
    global _looked
    _looked = False
    _letters.clear()
    if lang is not None:
        set_language(lang)
