"""Cake Time: cakes on orders and cake cards (spec "Cake Time").

Source: 003_bd6ac3bea59314d4.txt, "3. 확장: 케이크 타임" (진행, 추가되는 업그레이드,
선택 규칙). The numbers are data in ``editions.EXPANSIONS``; this module only
moves cakes and counts cake cards. Cakes and cake cards are not limited (the
spec's reading: the sources give the box's contents, not a limit), so the
supply is not counted.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from .happenings import (CakeCardGained, CakeCardPlayed, CakePlaced, CakesReturned,
                         Happening)
from .rejections import Rejection, reject
from .state import Card, GameDraft, PlayerDraft


def arrived_in_position_1(game: GameDraft, seat: int, out: list[Happening] | None) -> None:
    """A card just joined the end of position 1 (deal or draw).

    "Two drinks, one cake": when position 1 then holds 2, 4 or 6 cards, the
    card gets a cake; the companion places it itself (선택 규칙)."""
    if not game.two_drinks_one_cake:
        return
    p = game.players[seat]
    position = p.queue[0]
    if len(position) in game.rules.cake_when_position_1_holds and not position[-1].cake:
        position[-1] = replace(position[-1], cake=True)
        if out is not None:
            out.append(CakePlaced(p.name, 1, position[-1].tag, "two_drinks_one_cake"))


def put_cake(g: GameDraft, a: dict[str, Any]) -> list[Happening] | Rejection:
    """``cake``: the table put a cake on one of ``player``'s orders (진행, 1st point)."""
    if g.expansion is None:
        return reject("not_cake_time")
    seat = g.seat_of(a["player"])
    if seat is None:
        return reject("unknown_player", player=a["player"])
    p = g.players[seat]
    slot, tag = a.get("slot"), a.get("card")
    if tag is not None:
        pos = p.find(tag)
        if pos is None:
            return reject("card_not_in_queue", card=tag, player=p.name)
        if slot is not None and pos != slot - 1:
            return reject("card_not_in_slot", card=tag, slot=slot, player=p.name)
        j = next(j for j, c in enumerate(p.queue[pos]) if c.tag == tag)
        if p.queue[pos][j].cake:
            return reject("cake_already", card=tag, player=p.name)
    else:
        pos = (slot or 1) - 1
        if not p.queue[pos]:
            return reject("slot_empty", player=p.name, slot=pos + 1)
        free = [j for j, c in enumerate(p.queue[pos]) if not c.cake]
        if not free:
            return reject("cake_no_free_order", player=p.name, slot=pos + 1)
        j = free[-1]                        # the newest card without a cake
    card = p.queue[pos][j]
    p.queue[pos][j] = replace(card, cake=True)
    return [CakePlaced(p.name, pos + 1, card.tag, "table")]


def play_cake_card(g: GameDraft, me: PlayerDraft) -> list[Happening] | Rejection:
    """``play_cake_card``: before the active player ``me`` completes an order (진행, 3rd point)."""
    if g.expansion is None:
        return reject("not_cake_time")
    if me.cake_cards < 1:
        return reject("no_cake_card", player=me.name)
    if g.completed_this_turn:
        return reject("cake_card_too_late", player=me.name)
    me.cake_cards -= 1
    return [CakeCardPlayed(me.name, me.cake_cards)]


def completed(me: PlayerDraft, card: Card, out: list[Happening]) -> None:
    """A completed order's cake goes back to the supply and earns a cake card (진행, 2nd)."""
    if card.cake:
        me.cake_cards += 1
        out.append(CakeCardGained(me.name, "cake", me.cake_cards))


def missed(me: PlayerDraft, cards: list[Card], out: list[Happening]) -> None:
    """Cakes on orders that became dislikes go back to the supply, no card (진행, 4th)."""
    cakes = sum(c.cake for c in cards)
    if cakes:
        out.append(CakesReturned(me.name, cakes))


def break_time(g: GameDraft, me: PlayerDraft, out: list[Happening]) -> None:
    """Break Time at the end of ``me``'s turn, before the surge (추가되는 업그레이드)."""
    if "break_time" in me.upgrades and g.completed_this_turn <= g.rules.break_time_most_completed:
        me.cake_cards += 1
        out.append(CakeCardGained(me.name, "break_time", me.cake_cards))
