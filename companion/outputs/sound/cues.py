"""Which sound cues an update calls for: pure, so it is tested without audio.

``cues_for(update)`` maps one table-loop ``Update`` to the cue ids to play, in
order (the ids are the WAV file stems in ``sounds/``, see
``tools/make_sounds.py``):

=====================  ====================================================
cue                    when
=====================  ====================================================
``tap``                a seat button tap was accepted (before its result)
``order_completed``    an order was completed
``specialty``          ... and it was a specialty order (token gained)
``card_scanned``       the scanner identified a dealt or drawn card
``surge_tick``         once per card to draw (order surge, 2-player draw)
``dislike``            orders fell off position 4 as dislikes
``shop_closed``        the shop closed
``final_turn``         the final turn began
``turn_change``        the turn passed to the next seat
``game_over``          the game ended, then ``winner`` (the fanfare)
``rejected``           any rejected input, e.g. a seat that is not active
``scanner_lost``       the card scanner was disconnected
``timer_warning``      the optional turn timer entered its last quarter
``timer_end``          the turn timer ran out
``cake_card``          a player gained a cake card (Cake Time)
=====================  ====================================================
"""
from __future__ import annotations

from typing import assert_never

from companion.core.events import SeatTap
from companion.core.rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardEnrolled, CardIdentified,
                                             CardsToDraw, Corrected, DeviceStatusChanged,
                                             DislikesTaken, DrawsDismissed, FinalTurnBegins,
                                             GameOver, GameStarted, Happening, NotYourTurn,
                                             OrderCompleted, OrdersMovedDown, RankingChanged,
                                             Redone, ShopClosed, ShopReopened, Stalled, TablePaused,
                                             TableResumed, TokensGained, TokensSpent, TurnChanged,
                                             UnknownCard, UpgradeActivated, Undone)
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly
from companion.core.loop import Update

#: Every cue id; the same set as ``CUES`` in tools/make_sounds.py (a test checks).
CUE_IDS = ("tap", "order_completed", "specialty", "surge_tick", "turn_change", "dislike",
           "shop_closed", "final_turn", "game_over", "winner", "rejected", "card_scanned",
           "scanner_lost", "timer_warning", "timer_end", "cake_card")


def cues_for(update: Update) -> list[str]:
    """The cue ids one update calls for, in the order they should sound."""
    if update.rejection is not None:
        return ["rejected"]
    out: list[str] = []
    if isinstance(update.event, SeatTap) and update.accepted:
        out.append("tap")
    for h in update.happened:
        out += cues_of(h)
    return out


# radon C-D: one case per happening, the exhaustive match (assert_never)
def cues_of(h: Happening) -> list[str]:
    """The cue ids one happening calls for (one case per happening: the match is
    exhaustive, so a new happening fails mypy until it is given its sound or none)."""
    match h:
        case OrderCompleted():
            return ["specialty" if h.specialty else "order_completed"]
        case CardIdentified():
            return ["card_scanned"]
        case CakeCardGained():
            return ["cake_card"]
        case CardsToDraw():
            return ["surge_tick"] * sum(count for _, count in h.draws)
        case DislikesTaken():
            return ["dislike"]
        case ShopClosed():
            return ["shop_closed"]
        case FinalTurnBegins():
            return ["final_turn"]
        case TurnChanged():
            return ["turn_change"]
        case GameOver():
            return ["game_over", "winner"]
        case DeviceStatusChanged():
            return ["scanner_lost"] if (h.device, h.status) == ("scanner", "lost") else []
        case (GameStarted() | TokensGained() | TokensSpent() | UpgradeActivated() | CakePlaced()
              | CakeCardPlayed() | CakesReturned() | OrdersMovedDown() | ShopReopened()
              | RankingChanged() | Corrected() | Stalled() | Undone() | Redone()
              | NotYourTurn() | UnknownCard() | CardEnrolled() | TablePaused()
              | TableResumed() | DrawsDismissed() | GameEndedEarly() | GameBroughtBack()):
            return []                   # silent: the screen and the voice say these
        case _:
            assert_never(h)
