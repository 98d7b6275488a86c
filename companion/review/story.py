"""The game's story: each player's score round by round and the turning points.

Pure (no pygame, no I/O): a finished game's table, as the journal's replay left it
(``session.rebuild``, or the live table), holds its whole history in the undo stack:
every action that still counts, each with the game just before it (undone actions
are gone, redone ones are back). ``story_of`` replays those actions through the
engine once more and reads what happened, so the story is the journal's, decided by
the same rules as the game: scores by the edition's weights (``rules.scoring.score``).

A round is every seat playing once, from the starting player: it ends when the seat
before the starting player ends its turn (the turn counter's rounds, as the phone
shows them). ``rounds[0]`` is the table right after the setup; ``rounds[r]`` the
scores at the end of round ``r``. Corrections after the game count in its last round
(the final ranking is the truth the end screen shows).

Turning points are key + params (words in the locale files' ``[story]`` section,
``companion.review.story_words``):

- ``surge``: the biggest order surge (the most orders completed in one turn, at least
  2): ``player``, ``count``, ``draws`` ((player, cards), in drawing order);
- ``fifth_dislike``: the dislike that closed the shop: ``player``, ``round``;
- ``last_card``: the deck ran out: ``turn``, ``round``, ``player`` (who took the last
  card; None when a correction set the deck to 0);
- ``orders_done``: Junior Barista, a player's last order closed the shop: ``player``;
- ``upgrade``: the first upgrade flipped: ``player``, ``upgrade``, ``round``;
- ``lead``: the lead changing hands for the last time: ``player``, ``previous``,
  ``round``; ``lead_from``: the winner led from ``round`` on, nobody before them.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from companion.core.rules.actions import Action
from companion.core.rules.engine import Accepted, apply
from companion.core.rules.happenings import (CardsToDraw, Corrected, GameOver, Happening,
                                             ShopClosed, ShopReopened, TurnChanged,
                                             UpgradeActivated)
from companion.core.rules.scoring import score
from companion.core.rules.state import Game, Table, stack_items

#: how much each kind of turning point says about the game, most first: the end screen
#: shows the few that say most (``highlights``)
PRIORITY = ("lead", "lead_from", "last_card", "fifth_dislike", "orders_done", "surge",
            "upgrade")
#: the order of points that came with the same action (the surge empties the deck, ...)
IN_ONE_ACTION = ("upgrade", "surge", "last_card", "fifth_dislike", "orders_done", "lead",
                 "lead_from")
CLOSING = ("last_card", "fifth_dislike", "orders_done")
SURGE_WORTH_TELLING = 2        # a surge of one order happens every turn


@dataclass(frozen=True)
class TurningPoint:
    key: str                                   # "surge", "fifth_dislike", ... (above)
    round: int
    turn: int
    params: tuple[tuple[str, Any], ...] = ()   # (name, value) pairs: hashable
    at: int = 0                                # the action it came with (0: the first)

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    def __getitem__(self, name: str) -> Any:
        return self.kwargs[name]


@dataclass(frozen=True)
class Story:
    edition: str
    players: tuple[str, ...]                   # seat order
    start: int                                 # the starting player's seat
    rounds: tuple[tuple[int, ...], ...]        # [0]: after the setup; [r]: end of round r
    points: tuple[TurningPoint, ...]           # every turning point, in the order they came
    finished: bool                             # the game is over

    @property
    def round_count(self) -> int:
        return len(self.rounds) - 1

    def scores_of(self, seat: int) -> list[int]:
        return [r[seat] for r in self.rounds]

    def highlights(self, count: int = 3) -> tuple[TurningPoint, ...]:
        """The ``count`` turning points that say most, in the order they came."""
        ranked = sorted(self.points, key=lambda p: PRIORITY.index(p.key))[:count]
        return tuple(p for p in self.points if p in ranked)

    def named(self, names: Mapping[str, str]) -> Story:
        """This story with its players named as people see them (``names``: recorded ->
        shown, ``core.seat_colours.shown_names``); the journal's story keeps the names."""
        if all(k == v for k, v in names.items()):
            return self
        return replace(self, players=tuple(names.get(n, n) for n in self.players),
                       points=tuple(_named(p, names) for p in self.points))


def _named(point: TurningPoint, names: Mapping[str, str]) -> TurningPoint:
    def one(key: str, value: Any) -> Any:
        if key in ("player", "previous") and isinstance(value, str):
            return names.get(value, value)
        if key == "draws":
            return tuple((names.get(who, who), n) for who, n in value)
        return value
    return replace(point, params=tuple((k, one(k, v)) for k, v in point.params))


@dataclass(frozen=True)
class Step:
    """One action that still counts: the game before and after it, what happened."""
    before: Game
    action: Action
    after: Game
    happened: tuple[Happening, ...]


def steps(table: Table) -> tuple[Game | None, list[Step]]:
    """The game right after its setup and every action since, replayed."""
    history = list(reversed(stack_items(table.undo)))   # oldest first
    if not history:
        return table.game, []
    out = []
    for before, action in history:
        outcome = apply(Table(before), action)
        if not isinstance(outcome, Accepted) or outcome.table.game is None:
            raise ValueError(f"the action {action} does not replay on its own game")
        out.append(Step(before, action, outcome.table.game, outcome.happened))
    return history[0][0], out


def _scores(game: Game) -> tuple[int, ...]:
    return tuple(score(game.edition, p) for p in game.players)


def round_of(game: Game, turn: int | None = None) -> int:
    """The round a turn belongs to (turn 1 is the starting player's first)."""
    return ((game.turn if turn is None else turn) - 1) // len(game.players) + 1


def story_of(table: Table) -> Story | None:
    """The story of the table's game (None without a game)."""
    first, done = steps(table)
    if first is None:
        return None
    reader = _Reader(first.players[first.start].name, [_scores(first)])
    for at, step in enumerate(done):
        reader.read(at, step)
    last = done[-1].after if done else first
    rounds = reader.rounds
    if last.game_over and len(rounds) > 1:
        rounds[-1] = _scores(last)      # a correction after the game counts in its last round
    points = reader.points + [p for p in (reader.surge, reader.first_upgrade) if p is not None]
    lead = _lead(rounds, [p.name for p in first.players], reader.round_ends)
    if lead is not None:
        points.append(lead)
    points.sort(key=lambda p: (p.at, IN_ONE_ACTION.index(p.key)))
    return Story(first.edition, tuple(p.name for p in first.players), first.start,
                 tuple(rounds), tuple(points), last.game_over)


Point = Callable[..., TurningPoint]


@dataclass
class _Reader:
    """What ``story_of`` gathers reading the game's actions oldest first."""
    start_name: str                          # the starting player: their turn begins a round
    rounds: list[tuple[int, ...]]            # the scores at the end of each round so far
    points: list[TurningPoint] = field(default_factory=list)   # how the shop closed
    surge: TurningPoint | None = None        # the biggest surge so far
    first_upgrade: TurningPoint | None = None
    round_ends: list[int] = field(default_factory=list)        # the action ending each round

    def read(self, at: int, step: Step) -> None:
        """One action: its turning points, and the scores if it ended a round."""
        def point(key: str, **params: Any) -> TurningPoint:
            return TurningPoint(key, round_of(step.before), step.before.turn,
                                tuple(params.items()), at)

        for h in step.happened:
            self._happening(h, step, point)
        if _ends_round(step, self.start_name):
            self.rounds.append(_scores(step.after))
            self.round_ends.append(at)

    def _happening(self, h: Happening, step: Step, point: Point) -> None:
        if isinstance(h, CardsToDraw):
            self._surge(h, step, point)
        elif isinstance(h, UpgradeActivated) and self.first_upgrade is None:
            self.first_upgrade = point("upgrade", player=h.player, upgrade=h.upgrade)
        elif isinstance(h, ShopClosed):
            self.points.append(_closing(step, h, point))
        elif isinstance(h, ShopReopened):     # a miscount put right: it never closed
            self.points = [p for p in self.points if p.key not in CLOSING]

    def _surge(self, h: CardsToDraw, step: Step, point: Point) -> None:
        """Keep an order surge worth telling that is bigger than any before it."""
        count = step.before.completed_this_turn
        if h.reason != "order_surge" or count < SURGE_WORTH_TELLING:
            return
        if self.surge is not None and count <= self.surge["count"]:
            return
        active = step.before.active
        player = step.before.players[active].name if active is not None else ""
        self.surge = point("surge", player=player, count=count, draws=h.draws)


def _ends_round(step: Step, start_name: str) -> bool:
    """The action ended a round: the starting player's turn began, or the game ended."""
    return any((isinstance(h, TurnChanged) and h.player == start_name)
               or isinstance(h, GameOver) for h in step.happened)


def nice_ticks(low: int, high: int, most: int = 6) -> list[int]:
    """A chart's round numbers from ``low`` to ``high`` (0 always in), at most about
    ``most`` steps (the touchscreen's and the phone's charts)."""
    low, high = min(low, 0), max(high, 1)
    step = next((s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000)
                 if (high - low) / s <= most), 1000)
    return list(range(math.floor(low / step) * step, math.ceil(high / step) * step + 1, step))


def _closing(step: Step, h: ShopClosed, point: Point) -> TurningPoint:
    """Why the shop closed, as a turning point."""
    if h.reason == "deck_empty":
        taker = None
        for d in step.happened:
            if isinstance(d, CardsToDraw) and d.draws:
                taker = d.draws[-1][0]               # the last to draw took the last card
        if any(isinstance(d, Corrected) and d.field == "deck" for d in step.happened):
            taker = None
        return point("last_card", player=taker)
    if h.reason == "five_dislikes":       # a Fix that set the count is no dislike taken
        fixed = any(isinstance(d, Corrected) and d.field == "dislikes" for d in step.happened)
        return point("fifth_dislike", player=h.player, fixed=fixed)
    return point("orders_done", player=h.player)


def _lead(rounds: list[tuple[int, ...]], names: list[str], round_ends: list[int]
          ) -> TurningPoint | None:
    """The last time the lead changed hands (a round's leader: the one highest score)."""
    leader: int | None = None           # the last round's sole leader
    since, before = 0, None
    for r, scores in enumerate(rounds[1:], 1):
        top = max(scores)
        if scores.count(top) != 1:
            continue
        now = scores.index(top)
        if now != leader:
            before, leader, since = leader, now, r
    final = rounds[-1] if len(rounds) > 1 else None
    if leader is None or final is None or final.count(max(final)) != 1 \
            or final.index(max(final)) != leader:
        return None                       # a tie at the end: nobody kept the lead
    turn = since * len(names)             # the last turn of that round
    at = round_ends[since - 1]
    if before is None:
        return TurningPoint("lead_from", since, turn, (("player", names[leader]),), at)
    return TurningPoint("lead", since, turn, (("player", names[leader]),
                                              ("previous", names[before])), at)
