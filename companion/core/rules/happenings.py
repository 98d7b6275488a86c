"""What happened: the engine's and the table loop's report of an input, in table terms.

Screen, lights, sound, voice, the phone view and MQTT read these; the rules never
call them. Each happening is a small frozen record with a ``kind`` and ``as_dict()``.

``Happening`` is the closed union of them all (the loop's contract with its outputs,
docs/architecture.md, "The loop and its outputs"): an output ``match``es a happening and ends with
``case _: assert_never(h)``, so a new happening fails ``mypy`` until every output
says what it does with it (tests/test_contract.py proves that).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, TypeAlias, get_args


class Record:
    """What every happening has: its ``kind`` (the id in logs, MQTT and the locale
    files' ``happening.`` keys) and a plain dict of its fields."""
    kind: ClassVar[str] = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}  # type: ignore[call-overload]  # subclasses are dataclasses


@dataclass(frozen=True)
class GameStarted(Record):
    kind: ClassVar[str] = "game_started"
    edition: str
    variant: str
    players: tuple[str, ...]
    start: str
    deck: int
    deal: tuple[tuple[str, int, int], ...]   # (player, position 1-4, cards), in deal order
    expansion: str | None = None          # "cake_time" or None


@dataclass(frozen=True)
class CardIdentified(Record):
    kind: ClassVar[str] = "card_identified"
    player: str
    position: int
    tag: str


@dataclass(frozen=True)
class OrderCompleted(Record):
    kind: ClassVar[str] = "order_completed"
    player: str
    position: int
    tag: str | None
    specialty: bool
    cake: bool = False   # the order carried a cake (back to the supply)


@dataclass(frozen=True)
class TokensGained(Record):
    kind: ClassVar[str] = "tokens_gained"
    player: str
    count: int
    reason: str          # "specialty" or "dislike"


@dataclass(frozen=True)
class TokensSpent(Record):
    kind: ClassVar[str] = "tokens_spent"
    player: str
    count: int


@dataclass(frozen=True)
class UpgradeActivated(Record):
    kind: ClassVar[str] = "upgrade_activated"
    player: str
    upgrade: str


@dataclass(frozen=True)
class CakePlaced(Record):
    """A cake was put on an order (Cake Time)."""
    kind: ClassVar[str] = "cake_placed"
    player: str
    position: int
    tag: str | None
    by: str              # "table" (the deck's back showed a cake) or "two_drinks_one_cake"


@dataclass(frozen=True)
class CakeCardGained(Record):
    kind: ClassVar[str] = "cake_card_gained"
    player: str
    reason: str          # "cake" (a caked order completed) or "break_time"
    total: int


@dataclass(frozen=True)
class CakeCardPlayed(Record):
    kind: ClassVar[str] = "cake_card_played"
    player: str
    left: int


@dataclass(frozen=True)
class CakesReturned(Record):
    """Cakes on missed orders went back to the supply (no cake card)."""
    kind: ClassVar[str] = "cakes_returned"
    player: str
    count: int


@dataclass(frozen=True)
class CardsToDraw(Record):
    """Players must take cards from the deck into position 1, in this order."""
    kind: ClassVar[str] = "cards_to_draw"
    draws: tuple[tuple[str, int], ...]       # (player, cards), in drawing order
    reason: str                              # "order_surge" or "two_player_draw"
    short: bool = False                      # the deck could not cover every draw


@dataclass(frozen=True)
class OrdersMovedDown(Record):
    kind: ClassVar[str] = "orders_moved_down"
    player: str
    cards: int           # orders that moved one position down


@dataclass(frozen=True)
class DislikesTaken(Record):
    kind: ClassVar[str] = "dislikes_taken"
    player: str
    count: int
    total: int


@dataclass(frozen=True)
class ShopClosed(Record):
    kind: ClassVar[str] = "shop_closed"
    reason: str          # "deck_empty", "five_dislikes" or "orders_done" (junior)
    player: str | None = None


@dataclass(frozen=True)
class ShopReopened(Record):
    """A correction took away every reason the shop had closed (table script 1.2): the
    token is open again and the round is no longer the last. ``reason``: why it had
    closed; ``player``: whose corrected count removed it (None for the deck)."""
    kind: ClassVar[str] = "shop_reopened"
    reason: str
    player: str | None = None


@dataclass(frozen=True)
class FinalTurnBegins(Record):
    kind: ClassVar[str] = "final_turn_begins"
    player: str


@dataclass(frozen=True)
class TurnChanged(Record):
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
class GameOver(Record):
    kind: ClassVar[str] = "game_over"
    ranking: tuple[RankEntry, ...]
    winners: tuple[str, ...]


@dataclass(frozen=True)
class RankingChanged(Record):
    """A correction after the game changed the final ranking."""
    kind: ClassVar[str] = "ranking_changed"
    ranking: tuple[RankEntry, ...]
    winners: tuple[str, ...]


@dataclass(frozen=True)
class Corrected(Record):
    kind: ClassVar[str] = "corrected"
    player: str | None
    field: str           # "likes", "dislikes", "cookies", "cake_cards" or "deck"
    before: int
    after: int


@dataclass(frozen=True)
class Stalled(Record):
    """Nothing can ever happen again under the rules: tell the table."""
    kind: ClassVar[str] = "stalled"
    reason: str          # "all_queues_empty"


@dataclass(frozen=True)
class Undone(Record):
    kind: ClassVar[str] = "undone"
    action: dict[str, Any]


@dataclass(frozen=True)
class Redone(Record):
    kind: ClassVar[str] = "redone"
    action: dict[str, Any]


# --- the table loop's own happenings (no rule decided them) ------------------------------

@dataclass(frozen=True)
class NotYourTurn(Record):
    """A seat's press changed nothing: not its turn when the press began, or
    (``overlapped``) another seat's button was being pressed at that moment."""
    kind: ClassVar[str] = "not_your_turn"
    seat: int
    player: str | None
    active: str | None
    overlapped: bool = False


@dataclass(frozen=True)
class UnknownCard(Record):
    """A scanned tag that no catalog knows: offer to enroll it."""
    kind: ClassVar[str] = "unknown_card"
    tag: str


@dataclass(frozen=True)
class CardEnrolled(Record):
    kind: ClassVar[str] = "card_enrolled"
    tag: str
    drink: str


@dataclass(frozen=True)
class DeviceStatusChanged(Record):
    kind: ClassVar[str] = "device_status"
    device: str
    status: str
    detail: str = ""


@dataclass(frozen=True)
class TablePaused(Record):
    """Another program holds the journal's lock: nothing can be saved, so the
    table waits (inputs stay queued, none is lost or refused)."""
    kind: ClassVar[str] = "table_paused"
    detail: str = ""


@dataclass(frozen=True)
class TableResumed(Record):
    """The journal is free again: the waiting inputs are applied in order."""
    kind: ClassVar[str] = "table_resumed"


@dataclass(frozen=True)
class GameEndedEarly(Record):
    """The table ended the running game before its end (Settings, "End this game" or
    "New game"): no ranking; until the next game is set up, an undo brings it back."""
    kind: ClassVar[str] = "game_ended_early"


@dataclass(frozen=True)
class GameBroughtBack(Record):
    """An undo brought back the game the table had ended early: it runs again."""
    kind: ClassVar[str] = "game_brought_back"


@dataclass(frozen=True)
class DrawsDismissed(Record):
    """The draw prompt was dismissed (screen and lights stop showing it)."""
    kind: ClassVar[str] = "draws_dismissed"
    seat: int | None = None


# --- the closed union: every happening there is --------------------------------------------

RuleHappening: TypeAlias = (
    GameStarted | CardIdentified | OrderCompleted | TokensGained | TokensSpent
    | UpgradeActivated | CakePlaced | CakeCardGained | CakeCardPlayed | CakesReturned
    | CardsToDraw | OrdersMovedDown | DislikesTaken | ShopClosed | ShopReopened
    | FinalTurnBegins | TurnChanged | GameOver | RankingChanged | Corrected | Stalled
    | Undone | Redone)
"""What the rules engine reports of an accepted action."""

LoopHappening: TypeAlias = (
    NotYourTurn | UnknownCard | CardEnrolled | DeviceStatusChanged | TablePaused
    | TableResumed | DrawsDismissed | GameEndedEarly | GameBroughtBack)
"""What the table loop itself reports (presses, the scanner, devices, the journal's lock)."""

Happening: TypeAlias = RuleHappening | LoopHappening
"""Every happening: what an ``Update.happened`` holds. ``isinstance(x, Happening)`` works."""

KINDS: tuple[str, ...] = tuple(c.kind for c in get_args(Happening))
"""Every happening's ``kind``, in the union's order."""
