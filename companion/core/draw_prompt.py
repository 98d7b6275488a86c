"""Who must draw how many order cards right now, worked out from the table alone.

After an order surge (or the 2-player draw) the next players take cards from
the deck. The companion reminds them until the cards are on the table: until
they are scanned (with a scanner) or until the next turn begins (without one,
nobody could tell the companion otherwise). A tap on the screen may hide the
reminder early (``DrawsDismissed``); that does not change what is due.

``pending_draws(table)`` reads the undo history the engine keeps (a journal
replay rebuilds it), so the prompt is the same after a restart as before it:
nothing about it lives in screen or lights state. ``Draws`` is the prompt as every
output shows it: what is due and which seats' prompts were dismissed this turn,
worked out once per update by the table loop (``snapshot.Snapshot.draws``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import Accepted, Table, apply
from .rules.happenings import CardsToDraw, DrawsDismissed, Happening
from .rules.state import Game, iter_stack


@dataclass(frozen=True)
class PendingDraws:
    """Cards players must take from the deck during turn ``turn``."""
    draws: tuple[tuple[str, int], ...]   # ((player, count), ...), in drawing order
    serials: frozenset[int]              # the drawn cards (by serial) still waiting for a scan
    short: bool = False   # the deck could not cover every draw
    turn: int = 0

    def count_for(self, player: str) -> int:
        return sum(n for p, n in self.draws if p == player)

    def left_for(self, player: Any) -> int:
        """How many of ``player``'s (a ``Player``) draws are still to be taken: the
        cards due, less those of them already scanned or completed (a seat's "+N" goes
        once its own draws are done, whoever else still draws)."""
        due = self.count_for(player.name)
        if not due:
            return 0
        waiting = sum(1 for pos in player.queue for c in pos if c.serial in self.serials)
        return min(due, waiting)


def pending_draws(table: Table) -> PendingDraws | None:
    """The draws due in the current turn, or None once the turn has passed,
    the game is over, or every drawn card has been scanned."""
    game = table.game
    if game is None or game.game_over:
        return None
    ending = _turn_ending(table, game)
    if ending is None:
        return None
    before, action = ending
    drawn = _drawn_at(before, action)
    if drawn is None:
        return None
    draws, short = drawn
    waiting = _waiting_for_a_scan(game, first=before.next_serial)
    if draws and not waiting:
        return None          # every drawn card was scanned
    return PendingDraws(draws, waiting, short, game.turn)


def _turn_ending(table: Table, game: Game) -> tuple[Game, dict[str, Any]] | None:
    """The game before the ``end_turn`` that began the current turn, and that action:
    found in the undo history (newest first), None if it reaches an older turn first."""
    for before, action in iter_stack(table.undo):
        if before is None or before.turn < game.turn - 1:
            return None
        if action.get("do") == "end_turn" and before.turn == game.turn - 1:
            return before, action
    return None


Drawn = tuple[tuple[tuple[str, int], ...], bool] | None

#: the last few replays of ``_drawn_at``: (the game before, the action, what it drew). The
#: prompt is worked out after every update, and a whole turn shares one turn ending; states
#: are frozen, so the same objects replay the same (kept here, they keep their ids too)
_replayed: list[tuple[Game, dict[str, Any], Drawn]] = []


def _drawn_at(before: Game, action: dict[str, Any]) -> Drawn:
    """The cards that ending the turn made players draw and whether the deck fell short,
    replayed from ``before``: the order surge, and with two players the active player's
    own card. None if it asked for none (or could not be replayed)."""
    for game, done, drawn in _replayed:
        if game is before and (done is action or done == action):
            return drawn          # (the screen's END TURN painted ahead asked it first)
    drawn = _replay(before, action)
    _replayed.insert(0, (before, action, drawn))
    del _replayed[4:]
    return drawn


def _replay(before: Game, action: dict[str, Any]) -> Drawn:
    outcome = apply(Table(before), action)
    if not isinstance(outcome, Accepted):
        return None
    surges = [h for h in outcome.happened if isinstance(h, CardsToDraw)]
    draws = tuple(d for h in surges for d in h.draws)
    short = any(h.short for h in surges)
    if not (draws or short):
        return None
    return draws, short


def _waiting_for_a_scan(game: Game, first: int) -> frozenset[int]:
    """The serials of the cards drawn since serial ``first`` that nobody scanned yet."""
    return frozenset(c.serial for p in game.players for pos in p.queue for c in pos
                     if c.serial >= first and c.tag is None)


@dataclass(frozen=True)
class Draws:
    """The draw prompt as every output shows it: ``pending`` (what is due, or None) and
    the prompts dismissed during that turn: ``dismissed`` seats', or ``everyone``'s."""
    pending: PendingDraws | None = None
    dismissed: frozenset[int] = frozenset()
    everyone: bool = False

    def after(self, table: Table, happened: tuple[Happening, ...],
              unchanged: bool = False) -> Draws:
        """The prompt once ``happened`` made ``table`` (``unchanged``: the same table as
        before, so the same draws due): a dismissal lasts the turn it was made in (a new
        prompt, a new turn or none due forgets it)."""
        pending = self.pending if unchanged else pending_draws(table)
        same = (pending is not None and self.pending is not None
                and pending.turn == self.pending.turn and pending.draws == self.pending.draws)
        dismissed, everyone = (self.dismissed, self.everyone) if same else (frozenset(), False)
        for h in happened:
            if isinstance(h, DrawsDismissed):
                if h.seat is None:
                    everyone = True
                else:
                    dismissed |= {h.seat}
        if (pending, dismissed, everyone) == (self.pending, self.dismissed, self.everyone):
            return self
        return Draws(pending, dismissed, everyone)

    @property
    def any_dismissed(self) -> bool:
        """A prompt was dismissed this turn (the phone view then hides the whole prompt)."""
        return self.everyone or bool(self.dismissed)

    def shown_for(self, seat: int) -> bool:
        """Whether ``seat``'s prompt is still shown (the lights light it)."""
        return self.pending is not None and not self.everyone and seat not in self.dismissed
