"""The game at the table, as plain data.

``Game`` and ``Player`` are frozen: nothing changes a state once the engine has
handed it out, on any thread. The engine works the way boardgame.io's reducers do
with immer: a move is applied to a *draft* (``Game.draft()``, plain mutable lists),
and the draft is frozen into the new state (``GameDraft.freeze()``). Old states
can therefore be kept as undo snapshots for free, and shared with every thread.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .editions import (JUNIOR_CARDS, POSITIONS, RULES, RULES_VERSIONS, Edition, RulesVersion,
                       box_rules)


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


class PlayerReads:
    """What a player's state says, for a frozen ``Player`` and a ``PlayerDraft`` alike."""
    name: str
    queue: Sequence[Sequence[Card]]
    tiles: tuple[str, ...]
    upgrades: tuple[str, ...]
    likes: int
    dislikes: int
    cookies: int
    discarded_likes: int
    cake_cards: int

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


def _frozen_queue(queue: Iterable[Iterable[Card]]) -> tuple[tuple[Card, ...], ...]:
    return tuple(map(tuple, queue))


@dataclass(frozen=True)
class Player(PlayerReads):
    """One player's state; ``queue`` (positions 1..4, oldest arrival first) is kept as
    tuples whatever it was given."""
    name: str
    queue: tuple[tuple[Card, ...], ...]
    tiles: tuple[str, ...]             # the 4 upgrade tiles on the player board
    likes: int = 0
    dislikes: int = 0
    cookies: int = 0                   # rush tokens (original) or cookies (winter)
    upgrades: tuple[str, ...] = ()     # activated upgrade ids, in activation order
    discarded_likes: int = 0           # likes paid for upgrades (out of play)
    cake_cards: int = 0                # cake cards in hand (Cake Time)

    def __post_init__(self) -> None:
        object.__setattr__(self, "queue", _frozen_queue(self.queue))
        object.__setattr__(self, "tiles", tuple(self.tiles))
        object.__setattr__(self, "upgrades", tuple(self.upgrades))

    def draft(self) -> PlayerDraft:
        """A mutable copy for the engine to change (``PlayerDraft.freeze``)."""
        d = object.__new__(PlayerDraft)           # the same fields: copied, not re-checked
        d.__dict__.update(self.__dict__)
        d.queue = list(map(list, self.queue))
        return d


@dataclass
class PlayerDraft(PlayerReads):
    """A player being changed by the engine, inside one move (never handed out)."""
    name: str
    queue: list[list[Card]]
    tiles: tuple[str, ...]
    likes: int = 0
    dislikes: int = 0
    cookies: int = 0
    upgrades: tuple[str, ...] = ()
    discarded_likes: int = 0
    cake_cards: int = 0

    def freeze(self) -> Player:
        p = object.__new__(Player)                # the hot path: every action freezes
        p.__dict__.update(self.__dict__, queue=_frozen_queue(self.queue),
                          tiles=tuple(self.tiles), upgrades=tuple(self.upgrades))
        return p


def empty_queue() -> list[list[Card]]:
    return [[] for _ in range(POSITIONS)]


class GameReads:
    """What a game's state says, for a frozen ``Game`` and a ``GameDraft`` alike."""
    edition: str
    variant: str
    expansion: str | None
    rules_version: str
    start: int
    active: int | None
    deck: int
    removed: int
    tokens_won_this_turn: int
    completed_this_turn: int
    spent_this_turn: bool
    upgraded_this_turn: bool
    open_tiles: bool
    token: str
    game_over: bool
    players: Sequence[PlayerReads]

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

    def spendable_tokens(self, player: PlayerReads) -> int:
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
    def active_player(self) -> PlayerReads | None:
        return None if self.active is None else self.players[self.active]

    def total_cards(self) -> int:
        """Every card of the box, wherever it is now (for conservation checks)."""
        return (self.deck + self.removed
                + sum(p.order_count() + p.likes + p.dislikes + p.discarded_likes
                      for p in self.players))


@dataclass(frozen=True)
class Game(GameReads):
    """A game's state; ``players`` is kept as a tuple whatever it was given."""
    edition: str
    variant: str
    players: tuple[Player, ...]
    start: int                          # seat of the starting player
    active: int | None                  # seat of the active player; None once over
    deck: int                           # cards left in the order deck
    removed: int                        # cards out of the game at setup
    ristretto_start: bool = False
    turn: int = 1
    token: str = "open"                 # the starting player token: "open" / "closed"
    closed_reason: str | None = None
    next_serial: int = 1
    used_tags: frozenset[str] = frozenset()  # every tag identified in this game
    completed_this_turn: int = 0
    spent_this_turn: bool = False
    upgraded_this_turn: bool = False
    game_over: bool = False
    corrected: bool = False             # counts were set by hand at least once
    expansion: str | None = None        # "cake_time" or None
    longer_game: bool = False           # Cake Time option: every base card in the deck
    two_drinks_one_cake: bool = False   # Cake Time option: the companion places the cakes
    junior_cards: int = JUNIOR_CARDS[0]  # Junior Barista: cards dealt in each position
    rules_version: str = RULES          # the table-script version the game is played under
    open_tiles: bool = False            # no tiles named: any of the edition's, 4 at most
    tokens_won_this_turn: int = 0       # tokens the active player's orders gave this turn

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))
        object.__setattr__(self, "used_tags", frozenset(self.used_tags))

    @property
    def active_player(self) -> Player | None:
        return None if self.active is None else self.players[self.active]

    def draft(self) -> GameDraft:
        """A mutable copy for the engine to change within one move (``GameDraft.freeze``)."""
        d = object.__new__(GameDraft)             # the same fields: copied, not re-checked
        d.__dict__.update(self.__dict__)
        d.players = [p.draft() for p in self.players]   # (4 at most)
        return d


@dataclass
class GameDraft(GameReads):
    """A game being changed by the engine inside one move: what ``Game`` holds, in
    mutable form. Never handed out: ``freeze`` makes the state the engine returns."""
    edition: str
    variant: str
    players: list[PlayerDraft]
    start: int
    active: int | None
    deck: int
    removed: int
    ristretto_start: bool = False
    turn: int = 1
    token: str = "open"
    closed_reason: str | None = None
    next_serial: int = 1
    used_tags: frozenset[str] = frozenset()
    completed_this_turn: int = 0
    spent_this_turn: bool = False
    upgraded_this_turn: bool = False
    game_over: bool = False
    corrected: bool = False
    expansion: str | None = None
    longer_game: bool = False
    two_drinks_one_cake: bool = False
    junior_cards: int = JUNIOR_CARDS[0]
    rules_version: str = RULES
    open_tiles: bool = False
    tokens_won_this_turn: int = 0

    @property
    def active_player(self) -> PlayerDraft | None:
        return None if self.active is None else self.players[self.active]

    def freeze(self) -> Game:
        g = object.__new__(Game)                  # the hot path: every action freezes
        g.__dict__.update(self.__dict__, players=tuple(p.freeze() for p in self.players),
                          used_tags=frozenset(self.used_tags))
        return g


@dataclass(frozen=True)
class Table:
    """What the engine keeps: the current game and its undo/redo history.

    ``undo`` is a linked list of (game before, action) pairs, newest first:
    ``(entry, rest)`` or None. ``redo`` likewise holds undone actions.
    """
    game: Game | None = None
    undo: tuple[Any, ...] | None = None
    redo: tuple[Any, ...] | None = None


def push(stack: tuple[Any, ...] | None, item: Any) -> tuple[Any, ...]:
    return (item, stack)


def iter_stack(stack: tuple[Any, ...] | None) -> Iterator[Any]:
    """The items of ``stack``, newest first, one at a time (a caller that stops early does
    not walk a whole game's history)."""
    while stack is not None:
        yield stack[0]
        stack = stack[1]


def stack_items(stack: tuple[Any, ...] | None) -> list[Any]:
    out = []
    while stack is not None:
        out.append(stack[0])
        stack = stack[1]
    return out
