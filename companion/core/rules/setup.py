"""Starting a game: validate the setup line, then deal (spec "Setup").

Rulebooks: Winter p.2-3 Setup steps 2, 3, 4, 6 (cards removed by player count,
one cookie each, 4 of the upgrade tiles, the deal); Spanish original,
Preparación (the deal) and its Ristretto/Espresso start; Winter Junior Barista
Variant (two cards in every position, no upgrades); Cake Time, 003_... "3. 확장:
케이크 타임" 준비 and 선택 규칙 (the deck per player count, a cake card each, seven
upgrade tiles, the two optional rules).
"""
from __future__ import annotations

from typing import Any

from .cakes import arrived_in_position_1
from .editions import EDITIONS, EXPANSION_OPTIONS, EXPANSIONS, JUNIOR_CARDS, ORIGINAL_UPGRADES, \
    RULES, RULES_VERSIONS, UPGRADE_TILES, VARIANTS, Edition, RulesVersion, box_rules
from .happenings import GameStarted
from .rejections import Rejection, reject
from .state import Card, Game, GameDraft, PlayerDraft, empty_queue


def _tiles(edition: Edition, names: list[str], given: Any, open_tiles: bool
           ) -> dict[str, tuple[str, ...]] | Rejection:
    if given is None:       # not named: 1.2 any of the edition's (4 at most), 1.1 the original 4
        return {n: edition.upgrades if open_tiles else ORIGINAL_UPGRADES for n in names}
    if isinstance(given, dict):
        if set(given) != set(names):
            return reject("upgrade_players", players=", ".join(names))
        lists = given
    else:
        lists = {n: given for n in names}
    out = {}
    for name in names:
        ids = _tile_list(edition, name, lists[name])
        if isinstance(ids, Rejection):
            return ids
        out[name] = ids
    return out


def _tile_list(edition: Edition, name: str, ids: Any) -> tuple[str, ...] | Rejection:
    """One player's 4 upgrade tiles, each the edition's and named once."""
    if not isinstance(ids, list):
        return reject("upgrade_list", player=name)
    if len(ids) != UPGRADE_TILES:
        return reject("upgrade_count", count=len(ids))
    for u in ids:
        if not isinstance(u, str) or u not in edition.upgrades:
            return reject("upgrade_unknown", upgrade=u, edition=edition.expansion or edition.id)
    if len(set(ids)) != len(ids):
        dup = next(u for u in ids if ids.count(u) > 1)
        return reject("upgrade_twice", upgrade=dup)
    return tuple(ids)


def _expansion(a: dict[str, Any], edition: Edition) -> str | None | Rejection:
    expansion = a.get("expansion")
    if expansion is not None:
        if expansion not in EXPANSIONS:
            return reject("bad_expansion", expansion=expansion)
        if expansion not in edition.expansions:
            return reject("expansion_not_original")
    options = EXPANSION_OPTIONS.get(expansion, ()) if expansion is not None else ()
    for option in ("longer_game", "two_drinks_one_cake"):
        if a.get(option) and option not in options:
            return reject("option_needs_cake_time", option=option)
    return expansion


def start_game(a: dict[str, Any], rules_version: str = RULES
               ) -> tuple[Game, GameStarted] | Rejection:
    """Validate ``a`` and deal, under the table-script version ``rules_version`` (the
    session's: a journal replays each game under the version it was recorded under)."""
    version = RULES_VERSIONS[rules_version]
    found = EDITIONS.get(a["edition"])
    if found is None:
        return reject("bad_edition", edition=a["edition"])
    expansion = _expansion(a, found)
    if isinstance(expansion, Rejection):
        return expansion
    edition = box_rules(found.id, expansion)
    names = a["players"]
    refused = _names_problem(names, a) or _variant_problem(a, edition)
    if refused is not None:
        return refused
    variant = a.get("variant", "standard")
    upgrades = VARIANTS[variant].upgrades
    tiles: dict[str, tuple[str, ...]] | Rejection = (
        _tiles(edition, names, a.get("upgrades"), version.open_tiles) if upgrades
        else {n: () for n in names})
    if isinstance(tiles, Rejection):
        return tiles
    game = _table(a, edition, version, variant, tiles, expansion)
    deal = _deal_plan(game, edition, version, a.get("junior_cards"))
    for seat, pos, from_deck in deal:
        game.players[seat].queue[pos].append(Card(game.next_serial))
        game.next_serial += 1
        if from_deck:
            game.deck -= 1
        if pos == 0:
            arrived_in_position_1(game, seat, None)
    happened = GameStarted(edition.id, variant, tuple(names), names[game.start], game.deck,
                           _grouped(deal, names), expansion)
    return game.freeze(), happened


def _names_problem(names: list[Any], a: dict[str, Any]) -> Rejection | None:
    """2 to 4 players, each named once; the starting player one of them."""
    if not 2 <= len(names) <= 4:
        return reject("player_count", count=len(names))
    start_name = a.get("start", names[0])
    for n in names:
        if not isinstance(n, str) or not n.strip():
            return reject("empty_name")
    for n in names:
        if names.count(n) > 1:
            return reject("duplicate_name", name=n)
    if start_name not in names:
        return reject("unknown_start", name=start_name)
    return None


def _variant_problem(a: dict[str, Any], edition: Edition) -> Rejection | None:
    """The variant, the Ristretto start and the Junior cards the box allows."""
    variant = a.get("variant", "standard")
    if variant not in edition.variants:
        return reject("bad_variant", variant=variant, edition=edition.expansion or edition.id)
    if "upgrades" in a and not VARIANTS[variant].upgrades:
        return reject("junior_upgrades")
    if a.get("ristretto_start", False) and not edition.ristretto_start:
        return reject("ristretto_not_original")
    junior_cards = a.get("junior_cards")
    if junior_cards is not None:
        if variant != "junior":
            return reject("junior_cards_not_junior")
        if not JUNIOR_CARDS[0] <= junior_cards <= JUNIOR_CARDS[1]:
            return reject("bad_junior_cards", count=junior_cards, least=JUNIOR_CARDS[0],
                          most=JUNIOR_CARDS[1])
    return None


def _table(a: dict[str, Any], edition: Edition, version: RulesVersion, variant: str,
           tiles: dict[str, tuple[str, ...]], expansion: str | None) -> GameDraft:
    """The game before the deal: the players with their tiles and tokens, the deck."""
    names = a["players"]
    players = [PlayerDraft(name, empty_queue(), tiles[name], cookies=edition.starting_tokens,
                           cake_cards=edition.starting_cake_cards)
               for name in names]
    longer = a.get("longer_game", False)
    removed = (edition.longer_game_removed if longer
               else edition.removed_by_players).get(len(names), 0)
    start = names.index(a.get("start", names[0]))
    return GameDraft(edition=edition.id, variant=variant, players=players, start=start,
                     active=start, deck=edition.deck_size - removed, removed=removed,
                     ristretto_start=a.get("ristretto_start", False), expansion=expansion,
                     longer_game=longer,
                     two_drinks_one_cake=a.get("two_drinks_one_cake", False),
                     junior_cards=a.get("junior_cards") or JUNIOR_CARDS[0],
                     rules_version=version.id,
                     open_tiles=(VARIANTS[variant].upgrades and "upgrades" not in a
                                 and version.open_tiles))


def _deal_plan(game: GameDraft, edition: Edition, version: RulesVersion,
               junior_cards: int | None) -> list[tuple[int, int, bool]]:
    """The deal, card by card: (seat, position index, from the deck)."""
    n, start = len(game.players), game.start
    clockwise = [(start + i) % n for i in range(n)]
    deal: list[tuple[int, int, bool]] = []
    if game.ristretto_start:
        return _ristretto_deal(game, edition, clockwise)
    if VARIANTS[game.variant].deal == "two_per_position":
        each = junior_cards or JUNIOR_CARDS[0]
        deal += [(s, pos, True) for s in clockwise for pos in range(4) for _ in range(each)]
    elif version.book_deal_order and edition.deal_order == "two_each_then_extra":
        # Winter (001 "Setup" step 6): two cards to each player, then the starting player's extra
        deal += [(s, pos, True) for s in clockwise for pos in (0, 1)]
        deal += [(start, 0, True)]
    else:
        deal += [(start, 0, True), (start, 0, True), (start, 1, True)]
        deal += [(s, pos, True) for s in clockwise[1:] for pos in (0, 1)]
    return deal


def _ristretto_deal(game: GameDraft, edition: Edition, clockwise: list[int]
                    ) -> list[tuple[int, int, bool]]:
    """The 4 Ristretto/Espresso cards are set apart first; one to each player."""
    game.deck -= edition.ristretto_cards
    game.removed += edition.ristretto_cards - len(clockwise)
    return ([(s, 0, False) for s in clockwise] + [(s, 1, True) for s in clockwise]
            + [(game.start, 0, True)])


def _grouped(deal: list[tuple[int, int, bool]], names: list[str]
             ) -> tuple[tuple[str, int, int], ...]:
    out: list[list[Any]] = []
    for seat, pos, _ in deal:
        if out and out[-1][0] == names[seat] and out[-1][1] == pos + 1:
            out[-1][2] += 1
        else:
            out.append([names[seat], pos + 1, 1])
    return tuple((str(x[0]), int(x[1]), int(x[2])) for x in out)
