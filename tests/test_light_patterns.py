"""Golden frames of the light patterns: 4 seats x 4 LEDs, colours written out by hand.

Each seat's 4 colours are listed in the seat's own order (left to right as the
player sees them). Letters, so a frame reads at a glance:

    R B G Y   seat colours at full brightness (red, blue, green, yellow)
    r b g y   the same, dimmed to a fifth (a waiting seat)
    O off   W white   A amber   M magenta   X red (pips, timer's end)
"""
from __future__ import annotations

from dataclasses import replace
import pytest

from companion.outputs.lights.patterns import (DrawPrompt, LightContext, Lights, Style, breath,
                                               color, frame_from_lights, pulse, render)
from companion.core.rules.state import Card, Game, Player
from companion.core.turn_timer import TurnClock, TurnTimer
from tests.rules_helpers import END, play, setup

R, B, G, Y = (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 200, 0)
r, b, g, y = (51, 0, 0), (0, 0, 51), (0, 51, 0), (51, 40, 0)
# one-letter colours keep a frame's LEDs in aligned columns (O is off)
O, W, A, M, X = (0, 0, 0), (255, 255, 255), (255, 96, 0), (255, 0, 255), (255, 0, 0)  # noqa: E741
BLUE = (0, 0, 255)

STYLE = Style(seat_count=4, segment_length=4)
NAMES = ["Ana", "Ben", "Cy", "Dee"]
TILES = ("double_meeples", "diagonal_movement", "double_corners", "double_specialties")


def table_game(players=3, active=0, start=0, fourth=None, token="open", game_over=False,
               likes=None, queues=None):
    """A game as plain data: ``fourth[seat]`` cards in position 4, or full ``queues``."""
    serial = iter(range(1, 1000))
    ps = []
    for seat in range(players):
        if queues is not None:
            queue = [[Card(next(serial), t) for t in pos] for pos in queues[seat]]
        else:
            queue = [[Card(next(serial), f"T{seat}")], [], [],
                     [Card(next(serial), f"U{seat}{i}")
                      for i in range((fourth or {}).get(seat, 0))]]
        ps.append(Player(NAMES[seat], queue, TILES, likes=(likes or {}).get(seat, 0)))
    return Game("original", "standard", ps, start=start,
                active=None if game_over else active, deck=50, removed=0, token=token,
                game_over=game_over)


def seats(lights: Lights):
    return [list(s) for s in lights.seats]


# --- seat colours, active and waiting ----------------------------------------

def test_three_players_first_seat_active_fourth_segment_dark():
    lights = render(table_game(3, active=0), LightContext(), 0.0, STYLE)
    assert seats(lights) == [
        [R, R, R, R],
        [b, b, b, b],
        [g, g, g, g],
        [O, O, O, O],
    ]
    assert lights.animating is False and lights.next_change is None


def test_four_players_second_seat_active():
    lights = render(table_game(4, active=1), LightContext(), 7.0, STYLE)
    assert seats(lights) == [
        [r, r, r, r],
        [B, B, B, B],
        [g, g, g, g],
        [y, y, y, y],
    ]
    assert not lights.animating and lights.next_change is None


def test_no_game_all_dark():
    lights = render(None, LightContext(), 0.0, STYLE)
    assert seats(lights) == [[O] * 4] * 4
    assert not lights.animating and lights.next_change is None


def test_seat_colours_can_be_given_by_name_or_rgb():
    style = Style(2, 2, ("yellow", (10, 20, 30)))
    lights = render(table_game(2, active=1), LightContext(), 0.0, style)
    assert seats(lights) == [[y, y], [(10, 20, 30)] * 2]
    assert color("Blue") == B
    with pytest.raises(ValueError, match="unknown seat colour 'purple'"):
        Style(1, 1, ("purple",))
    with pytest.raises(ValueError, match="2 seats but only 1 seat colours"):
        Style(2, 1, ("red",))


# --- urgency pips ------------------------------------------------------------

def test_red_pips_for_orders_in_position_four():
    game = table_game(4, active=0, fourth={0: 1, 1: 1, 2: 2, 3: 3})
    lights = render(game, LightContext(), 0.0, STYLE)
    assert seats(lights) == [
        [R, R, O, X],          # on the red seat the dark gap makes the pip visible
        [b, b, O, X],
        [O, X, O, X],
        [O, X, O, X],          # 3 orders, but 4 LEDs hold 2 pips
    ]
    assert not lights.animating and lights.next_change is None


# --- the turn timer ----------------------------------------------------------

@pytest.mark.parametrize("now,expected,next_change", [
    (100.0, [R, R, R, R], 115.0),      # start: full bar in the seat's colour
    (114.999, [R, R, R, R], 115.0),
    (115.0, [R, R, R, r], 130.0),      # a quarter gone: one LED out (dim)
    (130.0, [R, R, r, r], 145.0),
    (144.999, [R, R, r, r], 145.0),
    (145.0, [A, r, r, r], 160.0),      # last quarter: amber
    (159.999, [A, r, r, r], 160.0),
    (160.0, [X, O, X, O], None),       # time is up: red dashes, and it stays so
    (500.0, [X, O, X, O], None),
])
def test_turn_timer_empties_turns_amber_then_red(now, expected, next_change):
    ctx = LightContext(timer=TurnTimer(started=100.0, seconds=60.0))
    lights = render(table_game(3, active=0), ctx, now, STYLE)
    assert seats(lights) == [expected, [b] * 4, [g] * 4, [O] * 4]
    assert lights.next_change == pytest.approx(next_change) if next_change else \
        lights.next_change is None
    assert not lights.animating


def test_timer_with_more_leds_steps_at_each_led():
    timer = TurnTimer(0.0, 16.0)
    assert [timer.lit(t, 16) for t in (0, 0.999, 1.0, 11.999, 12.0, 15.999, 16.0)] == \
        [16, 16, 15, 5, 4, 1, 0]
    assert [timer.phase(t) for t in (11.999, 12.0, 15.999, 16.0)] == \
        ["running", "warning", "warning", "ended"]
    assert timer.next_step(0.0, 16) == 1.0 and timer.next_step(11.5, 16) == 12.0
    assert timer.next_step(16.0, 16) is None


def test_timer_with_fewer_leds_still_warns_at_the_last_quarter():
    timer = TurnTimer(0.0, 60.0)
    assert timer.next_step(40.0, 1) == 45.0 and timer.next_step(45.0, 1) == 60.0


def test_turn_clock_starts_a_timer_on_each_new_turn_only():
    tc = TurnClock(30)
    g1 = table_game(3, active=0)
    assert tc.observe(g1, 5.0) and tc.timer == TurnTimer(5.0, 30.0)
    assert not tc.observe(g1, 9.0) and tc.timer.started == 5.0      # same turn
    g2 = replace(table_game(3, active=1), turn=2)
    assert tc.observe(g2, 12.0) and tc.timer.started == 12.0
    assert tc.observe(table_game(3, game_over=True), 20.0) and tc.timer is None
    off = TurnClock(0)
    assert not off.observe(g1, 1.0) and off.timer is None


# --- shop closed and the final turn --------------------------------------------

def test_shop_closed_every_segment_breathes_amber():
    game = table_game(3, active=0, start=0, token="closed")      # last seat is 2
    at_rest = render(game, LightContext(), 0.0, STYLE)
    assert seats(at_rest) == [[R] * 4, [b] * 4, [g] * 4, [O] * 4]
    assert at_rest.animating is True
    top = render(game, LightContext(), 2.0, STYLE)                 # half a 4 s breath
    assert seats(top) == [
        [(255, 48, 0)] * 4,           # red half-way to amber
        [(128, 48, 26)] * 4,          # dim blue half-way to amber
        [(128, 74, 0)] * 4,           # dim green half-way to amber
        [O] * 4,                      # nobody sits there
    ]
    assert top.animating


def test_on_the_final_turn_the_last_seat_pulses_and_the_others_breathe():
    game = table_game(3, active=2, start=0, token="closed")
    assert seats(render(game, LightContext(), 2.0, STYLE)) == [
        [(153, 48, 0)] * 4,           # dim red half-way to amber
        [(128, 48, 26)] * 4,
        [G] * 4,                      # the final turn's seat, pulse at its top
        [O] * 4,
    ]
    low = render(game, LightContext(), 0.5, STYLE)
    assert breath(0.5) == pytest.approx(0.0732, abs=1e-4) and pulse(0.5) == pytest.approx(0.3)
    assert seats(low) == [
        [(66, 7, 0)] * 4,             # dim red, 7 % amber
        [(19, 7, 47)] * 4,            # dim blue, 7 % amber
        [(0, 76, 0)] * 4,             # green at 30 %
        [O] * 4,
    ]
    assert low.animating


# --- game over -----------------------------------------------------------------

def test_winners_share_the_marquee_then_stay_bright():
    game = table_game(4, game_over=True, likes={0: 2, 1: 5, 2: 1, 3: 5})   # Ben and Dee tie
    ctx = LightContext(game_over_since=50.0)
    first = render(game, ctx, 50.0, STYLE)
    assert seats(first) == [
        [r, r, r, r],
        [W, B, B, B],
        [g, g, g, g],
        [W, Y, Y, Y],
    ]
    assert first.next_change == 50.125 and not first.animating
    assert seats(render(game, ctx, 50.125, STYLE))[1] == [B, W, B, B]
    assert seats(render(game, ctx, 50.5, STYLE))[3] == [W, Y, Y, Y]     # 4 steps: round again
    after = render(game, ctx, 70.0, STYLE)
    assert seats(after) == [[r] * 4, [B] * 4, [g] * 4, [Y] * 4]
    assert after.next_change is None and not after.animating


def test_a_resumed_game_over_shows_the_winner_steady():
    game = table_game(2, game_over=True, likes={0: 3, 1: 1})
    lights = render(game, LightContext(), 5.0, STYLE)
    assert seats(lights)[:2] == [[R] * 4, [b] * 4] and lights.next_change is None


# --- draw prompt after a surge ------------------------------------------------

def test_seats_that_must_draw_blink_white_until_their_cards_are_scanned():
    table, happened = play(setup(players=NAMES[:3]), {"do": "complete"}, END)
    game = table.game                       # Ana completed 1: Ben and Cy each drew 1
    ben, cy = game.players[1].queue[0][-1], game.players[2].queue[0][-1]
    assert ben.tag is None and cy.tag is None
    ctx = LightContext(draws={1: DrawPrompt(frozenset({ben.serial}), 10.0),
                              2: DrawPrompt(frozenset({cy.serial}), 10.0)})
    on = render(game, ctx, 10.0, STYLE)
    assert seats(on) == [[r] * 4, [W] * 4, [W] * 4, [O] * 4]       # Ben is active now
    assert on.next_change == 10.5 and not on.animating
    off = render(game, ctx, 10.5, STYLE)
    assert seats(off) == [[r] * 4, [B] * 4, [g] * 4, [O] * 4]
    assert off.next_change == 11.0
    # the scanner identifies the oldest unidentified cards first: scan them all
    for i in range(8):
        table, _ = play({"do": "scan", "tag": f"S{i}"}, table=table)
    done = render(table.game, ctx, 11.0, STYLE)
    assert seats(done) == [[r] * 4, [B] * 4, [g] * 4, [O] * 4]
    assert done.next_change is None


def test_a_draw_prompt_with_a_time_limit_stops_blinking_at_it():
    table, _ = play(setup(players=NAMES[:3]), {"do": "complete"}, END)
    serial = table.game.players[2].queue[0][-1].serial
    ctx = LightContext(draws={2: DrawPrompt(frozenset({serial}), 0.0, until=2.2)})
    assert render(table.game, ctx, 2.0, STYLE).next_change == 2.2
    late = render(table.game, ctx, 2.2, STYLE)
    assert seats(late)[2] == [g] * 4 and late.next_change is None


# --- rejected input flash -------------------------------------------------------

@pytest.mark.parametrize("now,seat2,next_change", [
    (5.0, [O] * 4, 5.1),
    (5.1, [G] * 4, 5.2),
    (5.2, [O] * 4, 5.3),
    (5.5, [G] * 4, 5.6),
    (5.6, [g] * 4, None),       # over: back to waiting-dim
])
def test_a_rejected_seat_flashes_briefly(now, seat2, next_change):
    lights = render(table_game(3, active=0), LightContext(flashes={2: 5.0}), now, STYLE)
    assert seats(lights) == [[R] * 4, [b] * 4, seat2, [O] * 4]
    assert lights.next_change == pytest.approx(next_change) if next_change else \
        lights.next_change is None


def test_a_tap_on_an_empty_seat_flashes_its_dark_segment():
    lights = render(table_game(3, active=0), LightContext(flashes={3: 0.0}), 0.1, STYLE)
    assert seats(lights)[3] == [Y] * 4


# --- scanner lost ---------------------------------------------------------------

def test_scanner_lost_blinks_the_first_led_of_every_segment():
    ctx = LightContext(scanner_lost_since=0.0)
    first = render(table_game(3, active=0), ctx, 0.0, STYLE)
    assert seats(first) == [[M, R, R, R], [M, b, b, b], [M, g, g, g], [M, O, O, O]]
    assert first.next_change == 1.0 and not first.animating
    second = render(table_game(3, active=0), ctx, 1.0, STYLE)
    assert seats(second) == [[BLUE, R, R, R], [BLUE, b, b, b], [BLUE, g, g, g],
                             [BLUE, O, O, O]]
    assert second.next_change == 2.0
    assert seats(render(None, ctx, 2.5, STYLE))[0] == [M, O, O, O]


# --- onto the strip -------------------------------------------------------------

def test_frames_follow_the_segment_positions():
    lights = Lights(((R, G), (B, W)))
    assert frame_from_lights(lights, [[1, 2], [5, 4]], 6) == [O, R, G, O, W, B]


def test_uneven_segments():
    style = Style(2, (2, 3))
    assert seats(render(table_game(2, active=1), LightContext(), 0.0, style)) == \
        [[r, r], [B, B, B]]


# --- not by colour alone: motion on the active seat; the position a completion took ------

def test_the_active_seat_is_told_by_a_moving_gap_when_the_sweep_is_on():
    from companion.outputs.lights.patterns import OFF, SWEEP_STEP
    style = Style(3, 8, sweep=True)
    game = table_game(3, active=1)
    frames = [render(game, LightContext(), t * SWEEP_STEP, style) for t in range(10)]
    gaps = [f.seats[1].index(OFF) for f in frames]
    assert gaps == [t % 8 for t in range(10)]              # one LED further each step
    assert all(OFF not in f.seats[0] for f in frames)        # waiting seats stay still
    assert frames[0].next_change == pytest.approx(SWEEP_STEP)
    assert render(game, LightContext(), 0.0, Style(3, 8)).next_change is None   # sweep off


def test_a_completed_position_shows_as_its_quarter_of_the_segment():
    from companion.outputs.lights.patterns import OFF, TAKEN_SECONDS, WHITE
    game = table_game(3, active=0)
    for position, lit in ((1, [0, 1]), (2, [2, 3]), (3, [4, 5]), (4, [6, 7])):
        lights = render(game, LightContext(taken={0: (position, 5.0)}), 5.5, Style(3, 8))
        assert [i for i, c in enumerate(lights.seats[0]) if c == WHITE] == lit
        assert set(lights.seats[0]) == {WHITE, OFF}
        assert lights.next_change == pytest.approx(5.0 + TAKEN_SECONDS)
    after = render(game, LightContext(taken={0: (2, 5.0)}), 5.0 + TAKEN_SECONDS, Style(3, 8))
    assert WHITE not in after.seats[0]


def test_a_completed_order_with_a_cake_shows_its_quarter_pink():
    # Cake Time without a scanner: a seat button's multi-tap says which kind it took
    from companion.outputs.lights.patterns import CAKE, OFF
    game = table_game(3, active=0)
    lights = render(game, LightContext(taken={0: (1, 5.0, True)}), 5.5, Style(3, 8))
    assert [i for i, c in enumerate(lights.seats[0]) if c == CAKE] == [0, 1]
    assert set(lights.seats[0]) == {CAKE, OFF}
