"""What the table does by hand once a game is set up, in words: the starting player
token, the board, the upgrade tiles left to the table, the deal and the meeples.

One source for every output that walks a table through it: the touchscreen wizard's
deal and meeple steps (``outputs.screen.screens.wizard_steps``) and the phone's setup
steps after its Start (``outputs.web.pages.setup_steps``). Everything is read from the
game the setup starts (``rules.setup.start_game``: the wizard's preview, or the game
the table loop just started), so the words follow the box, the variant, the options
and the player count as the rules data define them; the words are the locale files'
(``wizard.*``, ``cake.*``).
"""
from __future__ import annotations

from companion.words.i18n import token_name, tr

from .rules.editions import EDITIONS, UPGRADE_TILES
from .rules.state import Game
from .setup_choices import meeple_order


def starter(game: Game) -> str:
    return game.players[game.start].name


def start_token(lang: str, game: Game) -> str:
    """Who takes the starting player token, which side up."""
    return tr(lang, "wizard.start_token", player=starter(game), open=tr(lang, "word.open"))


def board_hint(lang: str, game: Game) -> str | None:
    """What goes on the main board before the meeples (Winter's tiles), if anything."""
    return tr(lang, "wizard.board_hint") if EDITIONS[game.edition].board_chaos else None


def open_tiles_hint(lang: str, game: Game) -> str | None:
    """The upgrade tiles were not named at setup: the table decides during the game."""
    total = len(game.rules.upgrades)
    if not game.open_tiles or total <= UPGRADE_TILES:     # (the original's four: no choice)
        return None
    return tr(lang, "wizard.upgrades_open_hint", count=UPGRADE_TILES, total=total)


def deal_heading(lang: str, game: Game) -> str | None:
    """The deck to build (Cake Time, 준비; 선택 규칙), or the cards to take out first."""
    box = game.rules
    removed = game.removed - (box.ristretto_cards - len(game.players)
                              if game.ristretto_start else 0)
    if game.expansion is not None:
        return (tr(lang, "cake.deal_build", count=removed) if removed
                else tr(lang, "cake.deal_build_longer"))
    return tr(lang, "wizard.deal_removed", count=removed) if removed else None


def deal_order(lang: str, game: Game) -> str:
    """In which order the cards are dealt (Ristretto, Junior Barista, the book's order)."""
    first = starter(game)
    if game.ristretto_start:
        return tr(lang, "wizard.deal_ristretto")
    if game.variant == "junior":
        return tr(lang, "wizard.deal_order_junior", start=first, count=game.junior_cards)
    if game.version.book_deal_order and game.rules.deal_order == "two_each_then_extra":
        return tr(lang, "wizard.deal_order_two_each", start=first)   # 001 Setup step 6
    return tr(lang, "wizard.deal_order_start_first", start=first)


def deal_steps(lang: str, game: Game) -> list[str]:
    """What the table does beside the deal: its order, the tokens and cake cards."""
    box = game.rules
    steps = [deal_order(lang, game)]
    if box.starting_tokens:
        steps.append(tr(lang, "wizard.deal_tokens", token=token_name(lang, game.edition, 1)))
    if box.starting_cake_cards:
        steps += [tr(lang, "cake.deal_cake_cards"), tr(lang, "cake.deal_cakes")]
    return steps


def deck_left(lang: str, game: Game) -> str:
    """The deck after the deal: a count the companion keeps (the table's bar shows it),
    not a step; nobody counts eighty cards by hand (a miscount is put right with Fix)."""
    return tr(lang, "wizard.deal_deck", count=game.deck)


def deal_notes(lang: str, game: Game) -> list[str]:
    """The lines beside the deal on the touchscreen: its steps, then the deck left."""
    return deal_steps(lang, game) + [deck_left(lang, game)]


def deal_seats(game: Game) -> list[int]:
    """The seats in dealing order: from the starting player, clockwise."""
    n = len(game.players)
    return [(game.start + k) % n for k in range(n)]


def dealt(game: Game, seat: int) -> list[tuple[int, int]]:
    """(cards, cakes on them) in each of ``seat``'s positions, as dealt."""
    return [(len(pos), sum(c.cake for c in pos)) for pos in game.players[seat].queue]


def meeples_hint(lang: str, count: int) -> str:
    """How the meeples are placed (two players: two each, alternating)."""
    hint = tr(lang, "wizard.meeples_hint")
    return tr(lang, "wizard.meeples_two") + " " + hint if count == 2 else hint


def meeple_seats(game: Game) -> list[int]:
    """Seats in meeple placement order (``setup_choices.meeple_order``)."""
    return meeple_order(len(game.players), game.start)
