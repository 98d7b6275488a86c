"""The end of a turn: order surge, flow of time, the 2-player draw, next player.

Spec "end_turn"; Winter rulebook, Gameplay 4.3 Order surge and Final order,
5 Flow of time and Missed orders, 2 Player Rules; Spanish original,
"4. Acumulación de pedidos" and "1. Paso del tiempo" (same steps, rush tokens
for cookies).

The deck running out closes the shop, also when a draw takes exactly its last card
(spec 1.1; Winter "Objective": the game ends when the order deck runs out; Spanish
"Reglas para partidas de 2 jugadores": the end can be triggered even when the cards run out during
"Paso del tiempo").
"""
from __future__ import annotations

from . import cakes
from .editions import DISLIKES_TO_CLOSE, VARIANTS
from .happenings import (CardsToDraw, DislikesTaken, FinalTurnBegins, GameOver, Happening,
                         OrdersMovedDown, ShopClosed, Stalled, TokensGained, TurnChanged)
from .scoring import ranking, winners
from .state import Card, GameDraft, GameReads, PlayerDraft


def draw(game: GameDraft, seat: int, count: int, out: list[Happening]) -> None:
    """``count`` cards leave the deck and join the end of position 1."""
    position = game.players[seat].queue[0]
    for _ in range(count):
        position.append(Card(game.next_serial))
        game.next_serial += 1
        game.deck -= 1
        cakes.arrived_in_position_1(game, seat, out)


def close_shop(game: GameDraft, reason: str, player: str | None, out: list[Happening]) -> None:
    """Flip the starting player token to CLOSED (once)."""
    if game.token == "closed":
        return
    game.token = "closed"
    game.closed_reason = reason
    out.append(ShopClosed(reason, player))
    if game.active == game.last_seat and not game.game_over:
        out.append(FinalTurnBegins(game.players[game.last_seat].name))


def check_dislikes(game: GameDraft, out: list[Happening]) -> None:
    for p in game.players:
        if p.dislikes >= DISLIKES_TO_CLOSE:
            close_shop(game, "five_dislikes", p.name, out)
            return


def is_stalled(game: GameReads) -> bool:
    """3-4 players, standard rules, token open, every queue empty: nothing can happen."""
    return (not game.game_over and game.token == "open" and len(game.players) >= 3
            and VARIANTS[game.variant].order_surge and game.completed_this_turn == 0
            and all(p.order_count() == 0 for p in game.players))


def end_turn(game: GameDraft, seat: int) -> list[Happening]:
    """The active player (at ``seat``) ends the turn."""
    out: list[Happening] = []
    rules = VARIANTS[game.variant]
    me = game.players[seat]
    cakes.break_time(game, me, out)       # 0. Break Time (Cake Time upgrade), before the surge
    if rules.order_surge and game.completed_this_turn > 0:
        _order_surge(game, seat, out)     # 1.
    if rules.flow_of_time:
        _flow_of_time(game, me, out)      # 2.
    if rules.two_player_draw and len(game.players) == 2:
        _two_player_draw(game, seat, out)  # 3.
    if game.token == "closed" and seat == game.last_seat:
        _game_over(game, out)             # 4. Game over, or the next player
    else:
        _next_player(game, seat, out)
    return out


def _order_surge(game: GameDraft, seat: int, out: list[Happening]) -> None:
    """The next player (two players) or the next two draw as many orders as were
    completed this turn; the deck running out closes the shop (spec 1.1)."""
    k, n = game.completed_this_turn, len(game.players)
    receivers = [(seat + 1) % n] if n == 2 else [(seat + 1) % n, (seat + 2) % n]
    draws: list[tuple[str, int]] = []
    placed: list[Happening] = []
    short = False
    for r in receivers:
        take = min(k, game.deck)
        short = short or take < k
        if take:
            draw(game, r, take, placed)
            draws.append((game.players[r].name, take))
    if draws or short:
        out.append(CardsToDraw(tuple(draws), "order_surge", short))
    out.extend(placed)
    if game.deck == 0:      # ran out, exactly or short: the shop closes (spec 1.1)
        close_shop(game, "deck_empty", None, out)


def _flow_of_time(game: GameDraft, me: PlayerDraft, out: list[Happening]) -> None:
    """Every order moves down one position; those past position 4 become dislikes."""
    missed = len(me.queue[3])
    moved = sum(len(p) for p in me.queue[:3])
    gone = me.queue[3]
    me.queue = [[], me.queue[0], me.queue[1], me.queue[2]]
    if missed:
        me.dislikes += missed
        me.cookies += missed
        out.append(DislikesTaken(me.name, missed, me.dislikes))
        out.append(TokensGained(me.name, missed, "dislike"))
        cakes.missed(me, gone, out)
    if moved:
        out.append(OrdersMovedDown(me.name, moved))
    check_dislikes(game, out)


def _two_player_draw(game: GameDraft, seat: int, out: list[Happening]) -> None:
    """Two players: the active player draws one card (the last one ends the game)."""
    if game.deck == 0:
        close_shop(game, "deck_empty", None, out)
        return
    placed: list[Happening] = []
    draw(game, seat, 1, placed)
    out.append(CardsToDraw(((game.players[seat].name, 1),), "two_player_draw"))
    out.extend(placed)
    if game.deck == 0:      # the draw took the last card: the end is triggered
        close_shop(game, "deck_empty", None, out)


def _game_over(game: GameDraft, out: list[Happening]) -> None:
    game.game_over = True
    game.active = None
    ranked = ranking(game)
    out.append(GameOver(ranked, winners(ranked)))


def _next_player(game: GameDraft, seat: int, out: list[Happening]) -> None:
    nxt_seat = game.active = (seat + 1) % len(game.players)
    game.turn += 1
    game.completed_this_turn = 0
    game.spent_this_turn = game.upgraded_this_turn = False
    game.tokens_won_this_turn = 0
    nxt = game.players[nxt_seat].name
    out.append(TurnChanged(nxt, game.players[seat].name, game.turn))
    if game.token == "closed" and nxt_seat == game.last_seat:
        out.append(FinalTurnBegins(nxt))
    if is_stalled(game):
        out.append(Stalled("all_queues_empty"))
