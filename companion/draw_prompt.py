"""Who must draw how many order cards right now, worked out from the table alone.

After an order surge (or the 2-player draw) the next players take cards from
the deck. The companion reminds them until the cards are on the table: until
they are scanned (with a scanner) or until the next turn begins (without one,
nobody could tell the companion otherwise). A tap on the screen may hide the
reminder early; that is a screen matter and does not change what is due.

``pending_draws(table)`` reads the undo history the engine keeps (a journal
replay rebuilds it), so the prompt is the same after a restart as before it:
nothing about it lives in screen or lights state.
"""
from __future__ import annotations

from dataclasses import dataclass

from .rules import Accepted, Table, apply
from .rules.happenings import CardsToDraw
from .rules.state import stack_items


@dataclass(frozen=True)
class PendingDraws:
    """Cards players must take from the deck during turn ``turn``."""
    draws: tuple          # ((player, count), ...), in drawing order
    serials: frozenset    # the drawn cards (by serial) still waiting for a scan
    short: bool = False   # the deck could not cover every draw
    turn: int = 0

    def count_for(self, player: str) -> int:
        return sum(n for p, n in self.draws if p == player)


def pending_draws(table: Table) -> PendingDraws | None:
    """The draws due in the current turn, or None once the turn has passed,
    the game is over, or every drawn card has been scanned."""
    game = table.game
    if game is None or game.game_over:
        return None
    for before, action in stack_items(table.undo):
        if before is None or before.turn < game.turn - 1:
            return None
        if action.get("do") != "end_turn" or before.turn != game.turn - 1:
            continue
        outcome = apply(Table(before), action)
        if not isinstance(outcome, Accepted):
            return None
        # the order surge, and with two players the active player's own card
        surges = [h for h in outcome.happened if isinstance(h, CardsToDraw)]
        draws = tuple(d for h in surges for d in h.draws)
        short = any(h.short for h in surges)
        if not (draws or short):
            return None
        first = before.next_serial
        waiting = frozenset(c.serial for p in game.players for pos in p.queue for c in pos
                            if c.serial >= first and c.tag is None)
        if draws and not waiting:
            return None          # every drawn card was scanned
        return PendingDraws(draws, waiting, short, game.turn)
    return None
