import pytest

from companion.core.rules.happenings import (CardsToDraw, FinalTurnBegins, GameOver, ShopClosed,
                                             Stalled, TurnChanged)
from rules_helpers import DONE, END, play, player, queue_sizes, rejected, setup

FOUR = ["Ana", "Ben", "Chloe", "Dae"]


def kinds(h):
    return [x.kind for x in h]


@pytest.mark.parametrize("edition", ["original", "winter"])
def test_surge_four_players_next_two_draw_in_order(edition):
    t, _ = play(setup(edition, FOUR))
    deck = t.game.deck
    t, h = play(DONE, DONE, END, table=t)
    draw = next(x for x in h if isinstance(x, CardsToDraw))
    assert draw.draws == (("Ben", 2), ("Chloe", 2)) and draw.reason == "order_surge"
    assert queue_sizes(t.game, "Ben") == [3, 1, 0, 0]
    assert queue_sizes(t.game, "Dae") == [1, 1, 0, 0]
    assert t.game.deck == deck - 4
    # Ben's drawn cards joined the end of position 1, after his dealt card
    ben = player(t.game, "Ben")
    assert [c.serial for c in ben.queue[0]] == sorted(c.serial for c in ben.queue[0])


def test_surge_three_players_both_others_draw():
    t, _ = play(setup(), DONE, END)
    assert queue_sizes(t.game, "Ben") == [2, 1, 0, 0]
    assert queue_sizes(t.game, "Chloe") == [2, 1, 0, 0]


def test_surge_two_players_other_draws_then_active_draws_one():
    t, _ = play(setup(players=["Ana", "Ben"]))
    t, h = play(DONE, DONE, END, table=t)
    draws = [x for x in h if isinstance(x, CardsToDraw)]
    assert draws[0].draws == (("Ben", 2),) and draws[1].draws == (("Ana", 1),)
    assert draws[1].reason == "two_player_draw"
    assert queue_sizes(t.game, "Ana") == [1, 1, 0, 0]   # pos1 empty after flow, +1 drawn


def test_no_surge_without_completed_orders():
    t, _ = play(setup())
    deck = t.game.deck
    t, h = play(END, table=t)
    assert not [x for x in h if isinstance(x, CardsToDraw)] and t.game.deck == deck


def test_deck_short_partial_draws_in_order_and_closes():
    t, _ = play(setup(FOUR and "original", FOUR), {"do": "correct", "deck": 3}, DONE, DONE, END)
    g = t.game
    assert queue_sizes(g, "Ben")[0] == 3 and queue_sizes(g, "Chloe")[0] == 2
    assert g.deck == 0 and g.token == "closed" and g.closed_reason == "deck_empty"


def test_deck_reaching_exactly_zero_closes():
    # Table script 1.1 (version 1 kept the shop open here): a surge that takes the deck's
    # last card closes the shop; 001_5bfe135d7e6cd15b.txt "Objective".
    t, h = play(setup(FOUR and "original", FOUR), {"do": "correct", "deck": 4}, DONE, DONE, END)
    assert t.game.deck == 0 and t.game.token == "closed" and t.game.closed_reason == "deck_empty"
    draws = next(x for x in h if isinstance(x, CardsToDraw))
    assert draws.draws == (("Ben", 2), ("Chloe", 2)) and not draws.short
    assert kinds(h).index("cards_to_draw") < kinds(h).index("shop_closed")


def test_flow_of_time_moves_orders_and_turns_position_4_into_dislikes():
    t, _ = play(setup("winter", FOUR))
    for _ in range(4 * 3):
        t, _ = play(END, table=t)
    ana = player(t.game, "Ana")
    # her position-2 card fell off at her third turn, the two position-1 cards wait in 4
    assert [len(p) for p in ana.queue] == [0, 0, 0, 2]
    assert ana.dislikes == 1 and ana.cookies == 2
    t, h = play(END, table=t)
    ana = player(t.game, "Ana")
    assert ana.dislikes == 3 and ana.cookies == 4 and ana.order_count() == 0
    assert "dislikes_taken" in kinds(h) and "tokens_gained" in kinds(h)


def test_flow_moves_only_the_active_players_queue():
    t, _ = play(setup(players=["Ana", "Ben", "Chloe"]), END)
    assert queue_sizes(t.game, "Ana") == [0, 2, 1, 0]
    assert queue_sizes(t.game, "Ben") == [1, 1, 0, 0]


def test_five_dislikes_close_the_shop():
    t, _ = play(setup(players=["Ana", "Ben", "Chloe"]), {"do": "correct", "player": "Ana",
                                                          "dislikes": 4})
    for _ in range(6):                  # two rounds: nothing falls off yet
        t, _ = play(END, table=t)
    assert t.game.token == "open"
    t, h = play(END, table=t)           # Ana's third turn: her position-2 card falls off
    assert player(t.game, "Ana").dislikes == 5
    closed = next(x for x in h if isinstance(x, ShopClosed))
    assert closed.reason == "five_dislikes" and closed.player == "Ana"


def test_two_player_surge_of_the_last_cards_closes_before_the_flow_of_time():
    t, h = play(setup(players=["Ana", "Ben"]), {"do": "correct", "deck": 2}, DONE, DONE, END)
    k = kinds(h)
    assert k.index("cards_to_draw") < k.index("shop_closed") < k.index("orders_moved_down")


def test_two_player_draw_of_the_last_card_closes():
    # Table script 1.1; 000_200d524ddef1b49d.txt "Reglas para partidas de 2 jugadores":
    # the end is triggered even when the cards run out during the draw.
    t, h = play(setup(players=["Ana", "Ben"]), {"do": "correct", "deck": 1}, END)
    assert t.game.deck == 0 and t.game.token == "closed"
    assert kinds(h).index("cards_to_draw") < kinds(h).index("shop_closed")
    t, h = play(END, table=t)           # Ben's draw finds the deck empty: game over
    assert t.game.game_over and "cards_to_draw" not in kinds(h)


def test_correcting_the_deck_to_zero_closes_a_running_game_but_not_junior():
    t, h = play(setup(players=["Ana", "Ben", "Chloe"]), {"do": "correct", "deck": 0})
    assert t.game.token == "closed" and kinds(h)[-2:] == ["corrected", "shop_closed"]
    t, h = play(setup("winter", ["Ana", "Ben"], variant="junior"), {"do": "correct", "deck": 0})
    assert t.game.token == "open" and kinds(h)[-1] == "corrected"
    assert rejected(t, {"do": "correct", "player": "Ana", "dislikes": 0}).code == \
        "junior_no_dislikes"


def test_at_most_three_orders_a_turn_in_every_variant():
    two = play(setup(players=["Ana", "Ben"]), END, END)[0]         # Ana drew a 4th card
    four = play(setup("winter", FOUR), END, END, DONE, DONE, END, END)[0]   # Chloe's surge
    junior = play(setup("winter", ["Ana", "Ben", "Chloe"], variant="junior"))[0]
    for t in (two, four, junior):
        assert t.game.active_player.name == "Ana" and t.game.active_player.order_count() >= 4
        t, _ = play(DONE, DONE, DONE, table=t)
        r = rejected(t, DONE)
        assert r.code == "three_orders" and r.text == \
            "Ana has already completed 3 orders this turn: one per cup"
        t, _ = play({"do": "undo"}, DONE, table=t)         # undo frees a cup
        assert t.game.completed_this_turn == 3


def test_final_round_ends_after_the_seat_before_the_starting_player():
    t, _ = play(setup(players=FOUR, start="Chloe"))
    assert t.game.last_seat == 1  # Ben plays last
    t, h = play({"do": "correct", "deck": 0}, DONE, END, table=t)   # Chloe closes the shop
    assert t.game.token == "closed" and t.game.active == 3
    t, h = play(END, table=t)           # Dae
    t, h = play(END, table=t)           # Ana -> Ben's final turn begins
    assert any(isinstance(x, FinalTurnBegins) and x.player == "Ben" for x in h)
    t, h = play(END, table=t)           # Ben: game over
    assert t.game.game_over and t.game.active is None
    assert isinstance(h[-1], GameOver)
    turn = t.game.turn
    assert turn == 4


def test_closing_during_the_last_seats_turn_ends_the_game_at_that_turn():
    t, _ = play(setup(players=["Ana", "Ben", "Chloe"]), END, END)
    assert t.game.active == 2
    t, h = play({"do": "correct", "player": "Chloe", "dislikes": 5}, table=t)
    assert any(isinstance(x, FinalTurnBegins) and x.player == "Chloe" for x in h)
    t, _ = play(END, table=t)
    assert t.game.game_over


@pytest.mark.parametrize("edition,expected", [("original", 3 + 2 - 1), ("winter", 6 + 5 - 1)])
def test_score_formula(edition, expected):
    t, _ = play(setup(edition, ["Ana", "Ben"]),
                {"do": "correct", "player": "Ana", "likes": 6, "dislikes": 1},
                {"do": "activate_upgrade", "upgrade": "double_meeples"})
    from companion.core.rules import score
    assert score(edition, player(t.game, "Ana")) == expected


def _finish(t):
    """Empty the deck, then a completed order's surge cannot be covered: the shop closes."""
    t, _ = play({"do": "correct", "deck": 0}, table=t)
    for _ in range(40):
        if t.game.game_over:
            return t
        if t.game.token == "open" and t.game.active_player.order_count():
            t, _ = play(DONE, table=t)
        t, _ = play(END, table=t)
    raise AssertionError("the game did not end")


def test_game_over_ranking_after_corrections():
    t = _finish(play(setup("original", FOUR))[0])
    t, h = play({"do": "correct", "player": "Ana", "likes": 5, "dislikes": 1, "cookies": 0},
                {"do": "correct", "player": "Ben", "likes": 4, "dislikes": 0, "cookies": 9},
                {"do": "correct", "player": "Chloe", "likes": 4, "dislikes": 0, "cookies": 2},
                {"do": "correct", "player": "Dae", "likes": 4, "dislikes": 0, "cookies": 2},
                table=t)
    last = h[-1]
    assert last.kind == "ranking_changed"
    # all score 4; Ana has most likes; Ben beats Chloe/Dae on tokens; Chloe and Dae share 3rd
    assert [(r.name, r.place) for r in last.ranking] == [
        ("Ana", 1), ("Ben", 2), ("Chloe", 3), ("Dae", 3)]
    assert last.winners == ("Ana",)


def test_shared_victory_and_tie_breaks_exactly():
    from companion.core.rules.scoring import ranking, winners
    from companion.core.rules.state import Game, Player, empty_queue
    ps = [Player("Ana", empty_queue(), (), likes=4, cookies=1),
          Player("Ben", empty_queue(), (), likes=4, cookies=1),
          Player("Chloe", empty_queue(), (), likes=5, dislikes=1, cookies=0),
          Player("Dae", empty_queue(), (), likes=3, cookies=7, upgrades=("jump",), dislikes=1)]
    g = Game("original", "standard", ps, 0, None, 0, 0, game_over=True)
    r = ranking(g)
    # scores: Ana 4, Ben 4, Chloe 4, Dae 3+2-1 = 4; likes: Chloe 5 first, then Ana/Ben 4 (cookies 1)
    # vs Dae 3 likes
    assert [(x.name, x.place) for x in r] == [("Chloe", 1), ("Ana", 2), ("Ben", 2), ("Dae", 4)]
    assert winners(r) == ("Chloe",)
    from dataclasses import replace
    chloe = replace(ps[2], likes=4, dislikes=0, cookies=1)
    r = ranking(replace(g, players=(ps[0], ps[1], chloe, ps[3])))
    assert winners(r) == ("Ana", "Ben", "Chloe")


def test_after_game_over_only_correct_undo_redo_and_setup():
    t = _finish(play(setup(players=["Ana", "Ben"]))[0])
    for a in (DONE, END, {"do": "scan", "tag": "X"}, {"do": "spend_cookies", "count": 1},
              {"do": "activate_upgrade", "upgrade": "jump"}):
        assert rejected(t, a).code == "game_over"
    t2, h = play({"do": "correct", "player": "Ben", "likes": 9}, table=t)
    assert h[-1].kind == "ranking_changed" and h[-1].winners == ("Ben",)
    t3, h = play({"do": "undo"}, table=t2)
    assert player(t3.game, "Ben").likes == 0


def test_turn_counter_and_turn_changed():
    t, h = play(setup(players=["Ana", "Ben", "Chloe"], start="Chloe"), END)
    assert t.game.turn == 2
    tc = next(x for x in h if isinstance(x, TurnChanged))
    assert (tc.player, tc.previous, tc.turn) == ("Ana", "Chloe", 2)


def test_stall_is_reported_when_every_queue_is_empty():
    t, _ = play(setup(players=["Ana", "Ben", "Chloe"]))
    # nobody completes anything: cards fall off as dislikes until every queue is empty
    # (the deck still holds cards, so only the stall can say nothing more will happen)
    stalled = False
    for _ in range(20):
        t, h = play(END, table=t)
        if any(isinstance(x, Stalled) for x in h):
            stalled = True
            break
    assert stalled
    assert all(p.order_count() == 0 for p in t.game.players) and t.game.token == "open"


def test_two_player_games_do_not_stall():
    t, _ = play(setup(players=["Ana", "Ben"]))
    for _ in range(30):
        t, h = play(END, table=t) if not t.game.game_over else (t, [])
        assert not any(isinstance(x, Stalled) for x in h)
