"""What happened: the engine's report of an accepted action, in table terms.

Screen, lights and sound subscribe to these; the rules never call them.
Each happening is a small frozen record with a ``kind`` and ``as_dict()``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar


class Happening:
    kind: ClassVar[str] = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}  # type: ignore[call-overload]  # subclasses are dataclasses


@dataclass(frozen=True)
class GameStarted(Happening):
    kind: ClassVar[str] = "game_started"
    edition: str
    variant: str
    players: tuple[str, ...]
    start: str
    deck: int
    deal: tuple[tuple[str, int, int], ...]   # (player, position 1-4, cards), in deal order
    expansion: str | None = None          # "cake_time" or None


@dataclass(frozen=True)
class CardIdentified(Happening):
    kind: ClassVar[str] = "card_identified"
    player: str
    position: int
    tag: str


@dataclass(frozen=True)
class OrderCompleted(Happening):
    kind: ClassVar[str] = "order_completed"
    player: str
    position: int
    tag: str | None
    specialty: bool
    cake: bool = False   # the order carried a cake (back to the supply)


@dataclass(frozen=True)
class TokensGained(Happening):
    kind: ClassVar[str] = "tokens_gained"
    player: str
    count: int
    reason: str          # "specialty" or "dislike"


@dataclass(frozen=True)
class TokensSpent(Happening):
    kind: ClassVar[str] = "tokens_spent"
    player: str
    count: int


@dataclass(frozen=True)
class UpgradeActivated(Happening):
    kind: ClassVar[str] = "upgrade_activated"
    player: str
    upgrade: str


@dataclass(frozen=True)
class CakePlaced(Happening):
    """A cake was put on an order (Cake Time)."""
    kind: ClassVar[str] = "cake_placed"
    player: str
    position: int
    tag: str | None
    by: str              # "table" (the deck's back showed a cake) or "two_drinks_one_cake"


@dataclass(frozen=True)
class CakeCardGained(Happening):
    kind: ClassVar[str] = "cake_card_gained"
    player: str
    reason: str          # "cake" (a caked order completed) or "break_time"
    total: int


@dataclass(frozen=True)
class CakeCardPlayed(Happening):
    kind: ClassVar[str] = "cake_card_played"
    player: str
    left: int


@dataclass(frozen=True)
class CakesReturned(Happening):
    """Cakes on missed orders went back to the supply (no cake card)."""
    kind: ClassVar[str] = "cakes_returned"
    player: str
    count: int


@dataclass(frozen=True)
class CardsToDraw(Happening):
    """Players must take cards from the deck into position 1, in this order."""
    kind: ClassVar[str] = "cards_to_draw"
    draws: tuple[tuple[str, int], ...]       # (player, cards), in drawing order
    reason: str                              # "order_surge" or "two_player_draw"
    short: bool = False                      # the deck could not cover every draw


@dataclass(frozen=True)
class OrdersMovedDown(Happening):
    kind: ClassVar[str] = "orders_moved_down"
    player: str
    cards: int           # orders that moved one position down


@dataclass(frozen=True)
class DislikesTaken(Happening):
    kind: ClassVar[str] = "dislikes_taken"
    player: str
    count: int
    total: int


@dataclass(frozen=True)
class ShopClosed(Happening):
    kind: ClassVar[str] = "shop_closed"
    reason: str          # "deck_empty", "five_dislikes" or "orders_done" (junior)
    player: str | None = None


@dataclass(frozen=True)
class ShopReopened(Happening):
    """A correction took away every reason the shop had closed (table script 1.2): the
    token is open again and the round is no longer the last. ``reason``: why it had
    closed; ``player``: whose corrected count removed it (None for the deck)."""
    kind: ClassVar[str] = "shop_reopened"
    reason: str
    player: str | None = None


@dataclass(frozen=True)
class FinalTurnBegins(Happening):
    kind: ClassVar[str] = "final_turn_begins"
    player: str


@dataclass(frozen=True)
class TurnChanged(Happening):
    kind: ClassVar[str] = "turn_changed"
    player: str
    previous: str
    turn: int


@dataclass(frozen=True)
class RankEntry:
    name: str
    score: int
    likes: int
    cookies: int
    place: int


@dataclass(frozen=True)
class GameOver(Happening):
    kind: ClassVar[str] = "game_over"
    ranking: tuple[RankEntry, ...]
    winners: tuple[str, ...]


@dataclass(frozen=True)
class RankingChanged(Happening):
    """A correction after the game changed the final ranking."""
    kind: ClassVar[str] = "ranking_changed"
    ranking: tuple[RankEntry, ...]
    winners: tuple[str, ...]


@dataclass(frozen=True)
class Corrected(Happening):
    kind: ClassVar[str] = "corrected"
    player: str | None
    field: str           # "likes", "dislikes", "cookies", "cake_cards" or "deck"
    before: int
    after: int


@dataclass(frozen=True)
class Stalled(Happening):
    """Nothing can ever happen again under the rules: tell the table."""
    kind: ClassVar[str] = "stalled"
    reason: str          # "all_queues_empty"


@dataclass(frozen=True)
class Undone(Happening):
    kind: ClassVar[str] = "undone"
    action: dict


@dataclass(frozen=True)
class Redone(Happening):
    kind: ClassVar[str] = "redone"
    action: dict
