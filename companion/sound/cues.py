"""Which sound cues an update calls for: pure, so it is tested without audio.

``cues_for(update)`` maps one table-loop ``Update`` to the cue ids to play, in
order (the ids are the WAV file stems in ``companion/sounds/``, see
``companion/sounds/make_sounds.py``):

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

from ..inputs import SeatTap
from ..rules.happenings import (CakeCardGained, CardIdentified, CardsToDraw, DislikesTaken,
                                FinalTurnBegins, GameOver, OrderCompleted, ShopClosed,
                                TurnChanged)
from ..table import DeviceStatusChanged, Update

#: Every cue id; the same set as ``CUES`` in companion/sounds/make_sounds.py (a test checks).
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
        if isinstance(h, OrderCompleted):
            out.append("specialty" if h.specialty else "order_completed")
        elif isinstance(h, CardIdentified):
            out.append("card_scanned")
        elif isinstance(h, CakeCardGained):
            out.append("cake_card")
        elif isinstance(h, CardsToDraw):
            out += ["surge_tick"] * sum(count for _, count in h.draws)
        elif isinstance(h, DislikesTaken):
            out.append("dislike")
        elif isinstance(h, ShopClosed):
            out.append("shop_closed")
        elif isinstance(h, FinalTurnBegins):
            out.append("final_turn")
        elif isinstance(h, TurnChanged):
            out.append("turn_change")
        elif isinstance(h, GameOver):
            out += ["game_over", "winner"]
        elif isinstance(h, DeviceStatusChanged) and h.device == "scanner" \
                and h.status == "lost":
            out.append("scanner_lost")
    return out
