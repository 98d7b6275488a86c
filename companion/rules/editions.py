"""Edition facts as data: one table, so a new edition or expansion is mostly data.

Sources (cited, not copied):
- original: Spanish rulebook ``000_200d524ddef1b49d.txt`` (Preparación, Fin de la partida),
  Portuguese ``002_...``, Italian ``004_...``.
- winter: English Winter rulebook ``001_5bfe135d7e6cd15b.txt`` (Setup step 2 and 3,
  Scoring, Upgrades, 2 Player Rules, Junior Barista Variant).
"""
from __future__ import annotations

from dataclasses import dataclass

ORIGINAL_UPGRADES = ("double_meeples", "diagonal_movement", "double_corners", "double_specialties")
WINTER_UPGRADES = ORIGINAL_UPGRADES + ("double_destination", "jump")


@dataclass(frozen=True)
class Edition:
    id: str
    title: str
    year: int
    deck_size: int                       # order cards in the box
    removed_by_players: dict             # player count -> cards returned to the box unseen
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
    meeples: tuple = ()                  # (colour, meeples of that colour in the box)
    board_chaos: bool = False            # the "Main board chaos!" random layout exists
    specialty_mark: str = "ribbon"       # how the board marks specialty squares

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
    ),
}


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
