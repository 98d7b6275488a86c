"""The game at the table, as plain data.

A state is never changed once the engine has handed it out: the engine clones
it, changes the clone and returns that. Old states can therefore be kept as
undo snapshots for free.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .editions import POSITIONS, RULES, RULES_VERSIONS, Edition, RulesVersion, box_rules


@dataclass(frozen=True)
class Card:
    """An order card in someone's order queue.

    ``serial`` counts the cards dealt or drawn in this game, from 1, in the
    order they left the deck (the order in which scans identify them).
    ``tag`` is what the scanner read, or None while the card is not identified.
    ``cake``: a cake sits on the card (Cake Time).
    """
    serial: int
    tag: str | None = None
    cake: bool = False


@dataclass
class Player:
    name: str
    queue: list[list[Card]]            # positions 1..4, oldest arrival first
    tiles: tuple[str, ...]             # the 4 upgrade tiles on the player board
    likes: int = 0
    dislikes: int = 0
    cookies: int = 0                   # rush tokens (original) or cookies (winter)
    upgrades: tuple[str, ...] = ()     # activated upgrade ids, in activation order
    discarded_likes: int = 0           # likes paid for upgrades (out of play)
    cake_cards: int = 0                # cake cards in hand (Cake Time)

    def clone(self) -> Player:
        return Player(self.name, [list(p) for p in self.queue], self.tiles, self.likes,
                      self.dislikes, self.cookies, self.upgrades, self.discarded_likes,
                      self.cake_cards)

    def cakes(self) -> int:
        """Cakes on this player's orders."""
        return sum(c.cake for p in self.queue for c in p)

    def order_count(self) -> int:
        return sum(len(p) for p in self.queue)

    def find(self, tag: str) -> int | None:
        """Position index (0-based) holding the card with this tag, or None."""
        for i, position in enumerate(self.queue):
            for card in position:
                if card.tag == tag:
                    return i
        return None


def empty_queue() -> list[list[Card]]:
    return [[] for _ in range(POSITIONS)]


@dataclass
class Game:
    edition: str
    variant: str
    players: list[Player]
    start: int                          # seat of the starting player
    active: int | None               # seat of the active player; None once over
    deck: int                           # cards left in the order deck
    removed: int                        # cards out of the game at setup
    ristretto_start: bool = False
    turn: int = 1
    token: str = "open"                 # the starting player token: "open" / "closed"
    closed_reason: str | None = None
    next_serial: int = 1
    used_tags: frozenset = frozenset()  # every tag identified in this game
    completed_this_turn: int = 0
    spent_this_turn: bool = False
    upgraded_this_turn: bool = False
    game_over: bool = False
    corrected: bool = False             # counts were set by hand at least once
    expansion: str | None = None     # "cake_time" or None
    longer_game: bool = False           # Cake Time option: every base card in the deck
    two_drinks_one_cake: bool = False   # Cake Time option: the companion places the cakes
    rules_version: str = RULES          # the table-script version the game is played under
    open_tiles: bool = False            # no tiles named: any of the edition's, 4 at most
    tokens_won_this_turn: int = 0       # tokens the active player's orders gave this turn

    def clone(self) -> Game:
        g = Game(**{f: getattr(self, f) for f in _GAME_FIELDS})
        g.players = [p.clone() for p in self.players]
        return g

    @property
    def rules(self) -> Edition:
        """The box on the table: the edition with its expansion, if any."""
        return box_rules(self.edition, self.expansion)

    @property
    def version(self) -> RulesVersion:
        """What the game's table-script version decides (``editions.RULES_VERSIONS``)."""
        return RULES_VERSIONS[self.rules_version]

    def tiles_in_play(self) -> frozenset[str]:
        """Upgrade ids flipped by anyone in this game (with open tiles, 4 at most)."""
        return frozenset(u for p in self.players for u in p.upgrades)

    def spendable_tokens(self, player: Player) -> int:
        """Tokens ``player`` may spend now: tokens are spent while moving, before orders
        are completed, so those this turn's orders gave wait for the next turn (1.2)."""
        if not self.version.spend_waits_for_next_turn or self.active_player is not player:
            return player.cookies
        return max(0, player.cookies - self.tokens_won_this_turn)

    @property
    def last_seat(self) -> int:
        """The seat just before the starting player: they take the final turn."""
        return (self.start - 1) % len(self.players)

    def seat_of(self, name: str) -> int | None:
        for i, p in enumerate(self.players):
            if p.name == name:
                return i
        return None

    @property
    def active_player(self) -> Player | None:
        return None if self.active is None else self.players[self.active]

    def total_cards(self) -> int:
        """Every card of the box, wherever it is now (for conservation checks)."""
        return (self.deck + self.removed
                + sum(p.order_count() + p.likes + p.dislikes + p.discarded_likes
                      for p in self.players))


_GAME_FIELDS = [f for f in Game.__dataclass_fields__]


@dataclass(frozen=True)
class Table:
    """What the engine keeps: the current game and its undo/redo history.

    ``undo`` is a linked list of (game before, action) pairs, newest first:
    ``(entry, rest)`` or None. ``redo`` likewise holds undone actions.
    """
    game: Game | None = None
    undo: tuple | None = None
    redo: tuple | None = None


def push(stack: tuple | None, item: Any) -> tuple:
    return (item, stack)


def stack_items(stack: tuple | None) -> list:
    out = []
    while stack is not None:
        out.append(stack[0])
        stack = stack[1]
    return out
