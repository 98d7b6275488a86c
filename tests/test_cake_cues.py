"""Cake Time's lights and sound: the cake card cue, and a draw prompt that asks for cakes."""
from __future__ import annotations

import pytest

from companion.core import events as ev
from companion.outputs.lights.patterns import (CAKE, CAKE_STEP, DrawPrompt, LightContext, Style,
                                               render)
from companion.outputs.sound import cues_for
from tests.rules_helpers import END, play, setup
from tests.test_light_patterns import seats
from tests.test_lights_controller import Clock, make, post, table_loop

STYLE = Style(seat_count=4, segment_length=4)
R, B, G = (255, 0, 0), (0, 0, 255), (0, 255, 0)
r, b, g = (51, 0, 0), (0, 0, 51), (0, 51, 0)
# one-letter colours keep a frame's LEDs in aligned columns (O is off)
O, W = (0, 0, 0), (255, 255, 255)  # noqa: E741
CAKE3 = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"],
         "expansion": "cake_time"}


@pytest.mark.parametrize("two_drinks,off_colours", [
    (False, [[r] * 4, [CAKE] * 4, [CAKE] * 4, [O] * 4]),   # check the deck's back for a cake
    (True, [[r] * 4, [B] * 4, [g] * 4, [O] * 4]),         # the companion places the cakes
])
def test_a_cake_time_draw_prompt_blinks_white_and_cake_pink(two_drinks, off_colours):
    table, _ = play(setup(players=["Ana", "Ben", "Cy"], expansion="cake_time",
                          two_drinks_one_cake=two_drinks), {"do": "complete"}, END)
    game = table.game
    ctx = LightContext(draws={s: DrawPrompt(frozenset({game.players[s].queue[0][-1].serial}),
                                            10.0) for s in (1, 2)})
    assert seats(render(game, ctx, 10.0, STYLE)) == [[r] * 4, [W] * 4, [W] * 4, [O] * 4]
    assert seats(render(game, ctx, 10.5, STYLE)) == off_colours


def test_a_cake_card_gained_flashes_the_seat_pink_then_its_colour():
    table, _ = play(setup(players=["Ana", "Ben", "Cy"], expansion="cake_time"))
    ctx = LightContext(cake_cards={0: 3.0})
    first = render(table.game, ctx, 3.0, STYLE)
    assert seats(first)[0] == [CAKE] * 4 and first.next_change == pytest.approx(3.0 + CAKE_STEP)
    assert seats(render(table.game, ctx, 3.0 + CAKE_STEP, STYLE))[0] == [R] * 4
    over = render(table.game, ctx, 3.0 + 6 * CAKE_STEP, STYLE)
    assert seats(over)[0] == [R] * 4 and over.next_change is None


def test_a_caked_order_completed_chimes_and_flashes_its_seat():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    ups = post(loop, ev.TouchAction(CAKE3), ev.TouchAction({"do": "cake", "player": "Ana"}),
               ev.TouchAction({"do": "complete", "slot": 1}),
               ev.TouchAction({"do": "complete", "slot": 1}))
    assert [cues_for(u) for u in ups[1:]] == [[], ["order_completed"],
                                              ["order_completed", "cake_card"]]
    wake = c.tick(0.0)
    assert c.context().cake_cards == {0: 0.0}       # stamped when the update arrived
    assert list(strip.current[:4]) == [CAKE] * 4 and wake == pytest.approx(CAKE_STEP)
    c.tick(CAKE_STEP)
    assert list(strip.current[:4]) == [R] * 4
    c.tick(1.0)
    assert c.context().cake_cards == {}             # over: nothing left to show


def test_break_time_chimes_at_the_end_of_the_turn():
    loop = table_loop(make()[0], Clock())
    ups = post(loop, ev.TouchAction({**CAKE3, "upgrades": ["break_time", "storage",
                                                          "double_meeples", "double_corners"]}),
               ev.TouchAction({"do": "correct", "player": "Ana", "likes": 3}),
               ev.TouchAction({"do": "activate_upgrade", "upgrade": "break_time"}),
               ev.TouchAction(END))
    assert cues_for(ups[-1]) == ["cake_card", "turn_change"]
