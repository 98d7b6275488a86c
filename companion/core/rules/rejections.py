"""Rejections: a code and parameters, never words; the engine's English text.

A rejection's parameters are names the table typed (players, card tags, keys of a
line), numbers, or ids of game things (an upgrade, a token's word form, a value
kind). ``CODED`` says which parameters are ids and in which section of the locale
files (``companion/words/locales/*.toml``) their words are: every language's screen text
comes from there. The English templates and words below are the engine's own text
(``Rejection.text``): what ``replay`` reports and the logs say.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .editions import EDITIONS, EXPANSIONS

ENGLISH: dict[str, str] = {
    # reading a line
    "bad_json": "not valid JSON at column {column}: {problem}",
    "bad_text": "this line is not valid UTF-8 text",
    "line_too_long": "this line is longer than {limit} bytes: not a table-script line",
    "not_object": "a line must be a JSON object with a \"do\" key",
    "missing_do": "the line has no \"do\" key saying what happened",
    "unknown_action": "\"{do}\" is not an action the companion knows",
    "unknown_key": "\"{key}\" is not a key of {do}",
    "missing_key": "{do} needs \"{key}\"",
    "wrong_type": "\"{key}\" must be {expected}",
    "bad_value": "\"{key}\" {problem}",
    "too_big": "\"{key}\" must be at most {limit}",
    "too_long": "\"{key}\" is longer than {limit} characters",
    "not_text": "\"{key}\" holds {char}, which is not a character (a lone surrogate)",
    # game flow
    "no_game": "no game is running: start one with setup first",
    "game_running": "a game is already running: finish it before a new setup",
    "game_over": "the game is over: only corrections, undo, redo or a new setup now",
    "not_your_turn": "{player} is not the active player",
    "buttons_overlap": "{player}, another seat's button was down as you pressed: press again",
    "storage_failed": "the action could not be saved ({error}); nothing changed",
    "storage_full": "the SD card is full: the action was not saved and nothing changed. "
                    "Free some space (sudo journalctl --vacuum-size=50M, sudo apt-get clean, "
                    "old files), then press again",
    "storage_read_only": "the SD card is read-only: the action was not saved and nothing "
                         "changed. Restart the companion; if it stays read-only, check the "
                         "card (its lock switch, or a card that needs replacing)",
    "storage_failing": "the SD card reported an error: the action was not saved and nothing "
                       "changed. Copy the journal somewhere safe (coffee-companion history "
                       "--export) and try again; if it happens again, replace the card",
    # setup
    "bad_edition": "\"{edition}\" is not an edition (original or winter)",
    "player_count": "Coffee Rush is for 2 to 4 players, not {count}",
    "empty_name": "every player needs a name",
    "duplicate_name": "two players are called {name}",
    "unknown_start": "the starting player {name} is not among the players",
    "bad_variant": "the {variant} variant is not part of {edition}",
    "junior_upgrades": "upgrades are not used in the Junior variant",
    "ristretto_not_original": "the Ristretto start belongs to the original game only",
    "upgrade_count": "each player has exactly 4 upgrade tiles, not {count}",
    "upgrade_list": "the upgrade tiles of {player} must be a list of 4 upgrade ids",
    "upgrade_unknown": "\"{upgrade}\" is not an upgrade of {edition}",
    "upgrade_twice": "the upgrade tile {upgrade} is listed twice",
    "upgrade_players": "upgrade tiles must be given for exactly the players: {players}",
    "bad_expansion": "\"{expansion}\" is not an expansion (cake_time)",
    "expansion_not_original": "Cake Time expands the original game only",
    "option_needs_cake_time": "the option {option} needs the Cake Time expansion",
    "junior_cards_not_junior": "junior_cards belongs to the Junior variant only",
    "bad_junior_cards": "a Junior game deals {least} to {most} cards in each position, not {count}",
    # complete
    "queue_empty": "{player} has no orders to complete",
    "slot_empty": "{player} has no order in position {slot}",
    "card_not_in_queue": "card {card} is not in {player}'s order queue",
    "card_not_in_slot": "card {card} is not in position {slot} of {player}'s queue",
    "three_orders": "{player} has already completed 3 orders this turn: one per cup",
    "cake_with_card": "name the order by its card or by its cake, not both",
    "no_caked_order": "{player} has no order with a cake there",
    "no_uncaked_order": "{player} has no order without a cake there",
    # upgrades
    "upgrade_in_junior": "upgrades are not used in the Junior variant",
    "upgrade_too_late": "{player} can only upgrade at the start of the turn, before completing "
                        "orders or spending {tokens}",
    "upgrade_once": "{player} has already activated an upgrade this turn",
    "upgrade_needs_likes": "{player} needs 3 likes to upgrade (has {likes})",
    "upgrade_not_tile": "{upgrade} is not one of {player}'s upgrade tiles",
    "upgrade_active": "{player}'s {upgrade} upgrade is already active",
    "upgrade_fifth_tile": "{upgrade} would be a fifth tile: this table already plays {tiles}",
    "upgrade_fifth_own_tile": "{upgrade} would be {player}'s fifth tile: a player board holds "
                              "4, and {player} has flipped {tiles}",
    # Cake Time
    "not_cake_time": "cakes and cake cards belong to the Cake Time expansion",
    "cake_already": "card {card} of {player} already has a cake",
    "cake_no_free_order": "every order of {player} in position {slot} already has a cake",
    "no_cake_card": "{player} has no cake card to play",
    "cake_card_too_late": "{player} can only play a cake card before completing an order",
    # tokens
    "not_enough_tokens": "{player} has {have} {tokens}, not {count}",
    "tokens_won_this_turn": "{player} can spend {have} {tokens} now, not {count}: tokens won "
                            "by this turn's orders wait for the next turn (tokens are spent "
                            "while moving, before orders are completed)",
    # scan
    "scan_used": "card {tag} was already used in this game",
    "scan_other_queue": "card {tag} is in {owner}'s queue, not {player}'s",
    "scan_nothing_waiting": "card {tag} is new, but no dealt card is waiting to be identified",
    # correct
    "unknown_player": "there is no player called {player}",
    "correct_deck_alone": "the deck count is corrected on its own line, without a player",
    "correct_nothing": "say which counts to correct: likes, dislikes, cookies or deck",
    "correct_no_player": "say whose {fields} to correct: add \"player\"",
    "junior_no_dislikes": "the Junior variant has no dislikes to correct",
    # undo / redo
    "nothing_to_undo": "there is nothing to undo",
    "nothing_to_redo": "there is nothing to redo",
    # seats
    "empty_seat": "nobody sits at seat {seat}",
    # an input made against an older table (the table loop's check: companion/core/loop.py)
    "stale_turn": "{player}'s turn had already begun",
    "stale_game_over": "the game had already ended",
    "stale_game": "a new game had already begun",
    "stale_table": "the table had changed in the meantime: look again, then try again",
}


# Parameters holding an id (or a tuple of ids, said as a list), per code: parameter ->
# locale section (``value.whole_number``).
CODED: dict[str, dict[str, str]] = {
    "correct_no_player": {"fields": "field"},
    "wrong_type": {"expected": "value"},
    "bad_value": {"problem": "problem"},
    "bad_json": {"problem": "json"},
    "bad_variant": {"variant": "variant", "edition": "edition"},
    "upgrade_unknown": {"upgrade": "upgrade", "edition": "edition"},
    "upgrade_not_tile": {"upgrade": "upgrade"},
    "upgrade_active": {"upgrade": "upgrade"},
    "upgrade_twice": {"upgrade": "upgrade"},
    "upgrade_too_late": {"tokens": "token"},
    "not_enough_tokens": {"tokens": "token"},
    "tokens_won_this_turn": {"tokens": "token"},
    "upgrade_fifth_tile": {"upgrade": "upgrade", "tiles": "upgrade"},
    "upgrade_fifth_own_tile": {"upgrade": "upgrade", "tiles": "upgrade"},
    "option_needs_cake_time": {"option": "cake"},
}

# The engine's English words for those ids (an id without a word here reads as itself:
# the engine's text has always named upgrades, variants and options by their ids).
ENGLISH_WORDS: dict[str, dict[str, str]] = {
    "value": {"text": "a text", "whole_number": "a whole number", "bool": "true or false",
              "list": "a list", "list_or_object": "a list or an object"},
    "problem": {"position": "must be a position from 1 to 4", "empty": "must not be empty",
                "one_or_more": "must be 1 or more", "negative": "cannot be negative"},
    "token": {"rush_token_one": "rush token", "rush_token_other": "rush tokens",
              "cookie_one": "cookie", "cookie_other": "cookies"},
    # what is wrong with a line that is not JSON (json_text.JsonProblem.what; its params)
    "json": {"empty": "nothing to read",
             "comma_before_close": "a comma before `{char}`",
             "unclosed": "the `{char}` here is never closed",
             "unclosed_text": "the text that opens with `\"` here is never closed",
             "expected_colon": "a `:` belongs after the key, not `{char}`",
             "key_not_quoted": "the key `{char}` needs double quotes: \"{char}\"",
             "single_quotes": "texts and keys go in double quotes (\"), not single ones (')",
             "expected_key": "a key in double quotes belongs here, not `{char}`",
             "expected_value": "a value belongs here, not `{char}`",
             "expected_comma": "a comma or `{other}` belongs here, not `{char}`",
             "wrong_close": "`{char}` cannot close `{other}`",
             "unknown_word": "`{char}` is not a value: a text goes in double quotes; true, "
                             "false and null are written in lower case",
             "bad_number": "`{char}` is not a number as JSON writes it",
             "bad_escape": "`{char}` is not an escape JSON knows (a backslash is written "
                           "\\\\)",
             "control_in_text": "an invisible character ({char}) inside a text: write a tab "
                                "as \\t, a line break as \\n",
             "extra": "more after the end: `{char}`",
             "too_deep": "brackets nested more than {limit} deep",
             "too_many_digits": "a whole number of more than {limit} digits",
             "unreadable": "it cannot be read as JSON",
             "not_text": "byte {char} is not UTF-8 text"},
    "edition": {**{e.id: e.title for e in EDITIONS.values()},
                **{x.id: x.title for x in EXPANSIONS.values()}},
}


@dataclass(frozen=True)
class Rejection:
    code: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The engine's English sentence (lower case first: a CLI puts "line 3: " before it)."""
        words = {}
        for name, section in CODED.get(self.code, {}).items():
            value, english = self.params.get(name), ENGLISH_WORDS.get(section, {})
            if isinstance(value, str):
                words[name] = english.get(value, value).format_map(self.params) \
                    if section == "json" else english.get(value, value)
            elif isinstance(value, tuple):
                words[name] = ", ".join(english.get(v, str(v)) for v in value)
        return ENGLISH[self.code].format(**{**self.params, **words})

    def __str__(self) -> str:
        return self.text


def reject(code: str, **params: Any) -> Rejection:
    if code not in ENGLISH:
        raise KeyError(f"unknown rejection code {code}")
    return Rejection(code, params)


def token_id(token: str, count: int = 2) -> str:
    """The id of a token's word, singular or plural: ``"cookie_one"``, ``"rush_token_other"``
    (the locale key ``token.<id>``)."""
    return f"{token}_{'one' if count == 1 else 'other'}"
