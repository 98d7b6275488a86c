"""Edition facts as data: one table, so a new edition or expansion is mostly data.

Sources (cited, not copied):
- original: Spanish rulebook ``000_200d524ddef1b49d.txt`` (Preparación, Fin de la partida),
  Portuguese ``002_...``, Italian ``004_...``.
- winter: English Winter rulebook ``001_5bfe135d7e6cd15b.txt`` (Setup step 2 and 3,
  Scoring, Upgrades, 2 Player Rules, Junior Barista Variant).
- cake_time (expansion of the original): Korean article ``003_bd6ac3bea59314d4.txt``,
  "3. 확장: 케이크 타임" (구성물, 준비, 진행, 추가되는 업그레이드, 선택 규칙).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

ORIGINAL_UPGRADES = ("double_meeples", "diagonal_movement", "double_corners", "double_specialties")
WINTER_UPGRADES = ORIGINAL_UPGRADES + ("double_destination", "jump")


@dataclass(frozen=True)
class Edition:
    id: str
    title: str
    year: int
    deck_size: int                       # order cards in the box
    removed_by_players: dict[int, int]   # player count -> cards returned to the box unseen
    like_points: int                     # score per like card
    upgrade_points: int                  # score per activated upgrade
    dislike_points: int                  # score per dislike card (negative)
    upgrades: tuple[str, ...]            # upgrade tile ids of this edition
    token: str                           # the extra-move token: "rush_token" or "cookie"
    starting_tokens: int                 # tokens each player takes at setup
    ingredients: tuple[str, ...]         # the eight ingredients
    specialty_ingredients: tuple[str, ...]   # the four on ribbon/snowflake squares
    variants: tuple[str, ...]            # allowed variants
    ristretto_start: bool                # the Ristretto/Espresso start exists
    ristretto_cards: int = 0             # how many Ristretto/Espresso cards the box has
    meeples: tuple[tuple[str, int], ...] = ()   # (colour, meeples of that colour in the box)
    board_chaos: bool = False            # the "Main board chaos!" random layout exists
    specialty_mark: str = "ribbon"       # how the board marks specialty squares
    expansions: tuple[str, ...] = ()     # expansions that can join this edition
    # Filled in by an expansion (see ``box_rules``); the plain editions leave them empty.
    expansion: str | None = None
    starting_cake_cards: int = 0         # cake cards each player takes at setup
    upgrade_draw: bool = False           # the box's rule: the starting player draws 4 at random
    # player count -> removed, "longer game" (an expansion's option)
    longer_game_removed: dict[int, int] = field(default_factory=dict)
    cake_when_position_1_holds: tuple[int, ...] = ()  # "two drinks, one cake"
    break_time_most_completed: int = 0   # Break Time pays with this many completions or fewer
    # The book's standard deal: "start_first" (the starting player's three cards, then each
    # other player) or "two_each_then_extra" (two to everyone from the starting player, then
    # the starting player's extra card: Winter, 001 "Setup" step 6).
    deal_order: str = "start_first"

    @property
    def chooses_upgrade_tiles(self) -> bool:
        """More upgrades in the box than tiles on a board: players choose which."""
        return len(self.upgrades) > UPGRADE_TILES

    def colours_for(self, players: int) -> tuple[str, ...]:
        """Seat colours the box can equip: a 2-player game needs 2 meeples each."""
        need = 2 if players == 2 else 1
        return tuple(c for c, n in self.meeples if n >= need)


EDITIONS: dict[str, Edition] = {
    "original": Edition(
        id="original", title="Coffee Rush", year=2023,
        deck_size=80, removed_by_players={2: 0, 3: 0, 4: 0},
        like_points=1, upgrade_points=2, dislike_points=-1,
        upgrades=ORIGINAL_UPGRADES,
        token="rush_token", starting_tokens=0,
        ingredients=("coffee", "milk", "steam", "ice", "caramel", "chocolate", "tea", "water"),
        specialty_ingredients=("caramel", "chocolate", "tea", "water"),
        variants=("standard",),
        ristretto_start=True, ristretto_cards=4,
        # Spanish rulebook, Contenido: 6 meeples (2 red, 2 blue, 1 green, 1 yellow)
        meeples=(("red", 2), ("blue", 2), ("green", 1), ("yellow", 1)),
        specialty_mark="ribbon",
        expansions=("cake_time",),
    ),
    "winter": Edition(
        id="winter", title="Coffee Rush: Winter", year=2025,
        deck_size=90, removed_by_players={2: 20, 3: 10, 4: 0},
        like_points=2, upgrade_points=5, dislike_points=-1,
        upgrades=WINTER_UPGRADES,
        token="cookie", starting_tokens=1,
        ingredients=("coffee", "milk", "steam", "ice", "fruit", "chocolate", "tea", "water"),
        specialty_ingredients=("fruit", "chocolate", "tea", "water"),
        variants=("standard", "junior"),
        ristretto_start=False,
        # Winter rulebook, Components: 8 meeples (2 per colour); Variable Setup
        meeples=(("red", 2), ("blue", 2), ("green", 2), ("yellow", 2)),
        board_chaos=True, specialty_mark="snowflake",
        deal_order="two_each_then_extra",
    ),
}


CAKE_TIME_UPGRADES = ("break_time", "double_destination", "storage")


@dataclass(frozen=True)
class Expansion:
    """What an expansion adds to its edition's box (applied by ``box_rules``)."""
    id: str
    title: str
    year: int
    edition: str                         # the edition it expands
    order_cards: int                     # its own order cards, shuffled into the deck
    removed_by_players: dict[int, int]   # base order cards returned to the box unseen
    upgrades: tuple[str, ...]            # upgrade tiles it adds
    meeples: tuple[tuple[str, int], ...]  # (colour, meeples it adds)
    starting_cake_cards: int
    upgrade_draw: bool
    cake_when_position_1_holds: tuple[int, ...]
    break_time_most_completed: int
    cake_cards_in_box: int               # the box's contents (the rules do not limit them)
    cakes_in_box: int


EXPANSIONS: dict[str, Expansion] = {
    # 003_bd6ac3bea59314d4.txt, "3. 확장: 케이크 타임"
    "cake_time": Expansion(
        id="cake_time", title="Coffee Rush: Cake Time", year=2024, edition="original",
        # 구성물: 30 expansion order cards; 준비: 30/20/10 base cards out for 2/3/4 players
        order_cards=30, removed_by_players={2: 30, 3: 20, 4: 10},
        # 구성물: 12 tiles (3 per colour); 추가되는 업그레이드: 브레이크타임, 도착점×2, 창고
        upgrades=CAKE_TIME_UPGRADES,
        # 개요: a green and a yellow meeple, so 2-player games can also play yellow or green
        meeples=(("green", 1), ("yellow", 1)),
        # 준비: every player takes 1 cake card; the starting player draws 4 of the 7 tiles
        starting_cake_cards=1, upgrade_draw=True,
        # 선택 규칙 "음료 2잔에 케이크 1접시": a cake when position 1 reaches 2, 4 or 6 cards
        cake_when_position_1_holds=(2, 4, 6),
        # 브레이크타임: no order or just one completed in the turn
        break_time_most_completed=1,
        cake_cards_in_box=60, cakes_in_box=32,
    ),
}

# The optional rules of an expansion, in the wizard's order (선택 규칙).
EXPANSION_OPTIONS: dict[str, tuple[str, ...]] = {
    "cake_time": ("two_drinks_one_cake", "longer_game"),
}


@cache
def box_rules(edition: str, expansion: str | None = None) -> Edition:
    """The edition's facts with an expansion's added: the box on the table."""
    base = EDITIONS[edition]
    if expansion is None:
        return base
    x = EXPANSIONS[expansion]
    meeples = dict(base.meeples)
    for colour, n in x.meeples:
        meeples[colour] = meeples.get(colour, 0) + n
    return replace(
        base, title=x.title, year=x.year,
        deck_size=base.deck_size + x.order_cards,
        removed_by_players=dict(x.removed_by_players),
        # 선택 규칙 "더 긴 게임": every base card stays in the deck
        longer_game_removed={n: 0 for n in x.removed_by_players},
        upgrades=base.upgrades + x.upgrades,
        meeples=tuple(meeples.items()),
        expansions=(), expansion=x.id,
        starting_cake_cards=x.starting_cake_cards, upgrade_draw=x.upgrade_draw,
        cake_when_position_1_holds=x.cake_when_position_1_holds,
        break_time_most_completed=x.break_time_most_completed,
    )


@dataclass(frozen=True)
class Variant:
    """How a variant changes the turn: the deal, and which end-of-turn steps run."""
    id: str
    deal: str                  # "standard" or "two_per_position"
    order_surge: bool
    flow_of_time: bool
    two_player_draw: bool
    upgrades: bool
    close_when_queue_empty: bool


VARIANTS: dict[str, Variant] = {
    "standard": Variant("standard", deal="standard", order_surge=True, flow_of_time=True,
                        two_player_draw=True, upgrades=True, close_when_queue_empty=False),
    # Winter rulebook, Junior Barista Variant: 8 cards dealt, no surge, no flow of time,
    # no upgrades; the shop closes when a player has completed every order.
    "junior": Variant("junior", deal="two_per_position", order_surge=False, flow_of_time=False,
                      two_player_draw=False, upgrades=False, close_when_queue_empty=True),
}

POSITIONS = 4            # order queue positions 1..4
DISLIKES_TO_CLOSE = 5    # a player with this many dislikes closes the shop
UPGRADE_COST = 3         # likes discarded to activate an upgrade
UPGRADE_TILES = 4        # tiles on each player board
# A player has three cups and each completed order empties one: at most 3 orders a turn
# (000_200d524ddef1b49d.txt "Preparación" step 3 and "Elaborar los pedidos"; spec 1.1 `complete`).
CUPS = 3


@dataclass(frozen=True)
class RulesVersion:
    """What a table-script version decides where the versions read the books differently.

    A game is played, and always replayed, under the version it was recorded under (the
    journal keeps it per game; ``setup`` takes it from the session, never from the line),
    so a game recorded under 1.1 keeps showing what the table saw then.
    """
    id: str
    book_deal_order: bool        # each edition deals as its own book (Winter: two each, then one)
    open_tiles: bool             # no ``upgrades`` named: any of the edition's tiles, 4 at most
    correction_reopens: bool     # a correction that removes every reason to close re-opens
    spend_waits_for_next_turn: bool   # a token won by this turn's orders is not spent this turn
    tiles_per_player: bool = False    # open tiles: 4 different ones per player, not per game


RULES_VERSIONS: dict[str, RulesVersion] = {
    "1.1": RulesVersion("1.1", book_deal_order=False, open_tiles=False,
                        correction_reopens=False, spend_waits_for_next_turn=False),
    # table-script 1.2, "Changes from version 1.1": Winter's deal (001 "Setup" step 6), the
    # edition's tiles when none are named, re-opening by correction, tokens spent while moving
    # (000 "Mover el peón", 001 "Gameplay", 003 "2.2").
    "1.2": RulesVersion("1.2", book_deal_order=True, open_tiles=True,
                        correction_reopens=True, spend_waits_for_next_turn=True),
    # table-script 1.3, "Changes from version 1.2": with open tiles each player flips at most
    # 4 different ones (a player board has 4 tiles; Winter's and Cake Time's variable set-up
    # lets each player choose their own, 001 "Variable upgrades", 003 "선택 규칙").
    "1.3": RulesVersion("1.3", book_deal_order=True, open_tiles=True,
                        correction_reopens=True, spend_waits_for_next_turn=True,
                        tiles_per_player=True),
}
RULES = "1.3"            # the table-script version new games are recorded under

JUNIOR_CARDS = (2, 4)    # cards in each position in a Junior game: default 2, at most 4
