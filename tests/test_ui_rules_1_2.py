"""Table script 1.2 at the table, by touch and by seat buttons (the real App, off-screen).

Each change of 1.2 must be playable, not only in a script: the order with or without a
cake chosen by touch, a seat button's guess said on the screen, Spend offering only what
may be spent now and saying why, the edition's tiles offered four at most, and a
correction that re-opens the shop.
"""
from __future__ import annotations

import json
from html import escape as html_escape

import pytest
from ui_touch import has_widget, make_app, touch, widget

from companion.core import events as ev
from companion.core.events import TouchAction
from companion.outputs.screen import text


@pytest.fixture(autouse=True)
def _english():
    text.reset("en")
    yield
    text.reset("en")


def posted(app) -> list[dict]:
    return [dict(e.action) for e in app._own if isinstance(e, TouchAction)]


def line(**a) -> str:
    return json.dumps(a)


CAKE_SETUP = line(do="setup", edition="original", players=["Ana", "Ben"], expansion="cake_time")
# Ana's position 1: her first card (no cake), then a card with a cake
CAKED = [CAKE_SETUP, line(do="cake", player="Ana", slot=1)]


def run(app, *events) -> None:
    for e in events:
        app.loop.post(e)
    app.loop.drain()
    app.process_updates()
    app.draw()


def test_a_touch_on_a_mixed_position_asks_which_order():
    loop, app = make_app(lines=CAKED)
    touch(app, "act.pos1")
    assert widget(app, "dlg.title").text == "Position 1: which order?"
    touch(app, "dlg.caked")
    assert posted(app)[-1] == {"do": "complete", "slot": 1, "cake": True}
    ana = app.table.game.players[0]
    assert ana.cake_cards == 2 and [c.cake for c in ana.queue[0]] == [False]
    touch(app, "act.pos1")            # one order left there: no question, it is completed
    assert not has_widget(app, "dlg.title")
    assert posted(app)[-1] == {"do": "complete", "slot": 1}


def test_a_scanned_card_is_named_by_its_tag():
    loop, app = make_app(lines=CAKED + [line(do="scan", tag="EXO001"),
                                 line(do="scan", tag="EXO002")])
    touch(app, "act.pos1")
    touch(app, "dlg.plain")
    assert posted(app)[-1] == {"do": "complete", "slot": 1, "card": "EXO001"}


def test_a_seat_button_guess_is_said_on_the_screen():
    loop, app = make_app(lines=CAKED)
    run(app, ev.SeatTap(0, count=2))                 # a double tap: position 1, its first
    assert app.table.game.players[0].likes == 1
    assert any("position 1, the order without a cake" in t and "Touch position 1" in t
               for t in app.screen.toasts)


def test_spend_offers_what_may_be_spent_now_and_says_why_not_more():
    start = line(do="setup", edition="original", players=["Ana", "Ben"])
    loop, app = make_app(lines=[start, line(do="complete", specialty=True)])
    assert app.table.game.players[0].cookies == 1
    touch(app, "ft.spend")                         # her only token came with this turn's order
    assert not has_widget(app, "dlg.count.plus")
    assert any("next turn" in t for t in app.screen.toasts)
    loop, app = make_app(lines=[start, line(do="correct", player="Ana", cookies=2),
                                line(do="complete", specialty=True)])
    touch(app, "ft.spend")
    assert "1 won this turn wait" in widget(app, "dlg.hint").text
    touch(app, "dlg.count.plus")                   # 2: fine
    touch(app, "dlg.count.plus")                   # 3: one of them was won this turn
    assert any("next turn" in t for t in app.screen.toasts)
    touch(app, "dlg.ok")
    assert posted(app)[-1] == {"do": "spend_cookies", "count": 2}


def test_the_editions_tiles_are_offered_until_a_player_has_flipped_four():
    """Table script 1.3: four tiles per player (a board holds 4), not four in the game."""
    setup = line(do="setup", edition="winter", players=["Ana", "Ben"])
    likes = [line(do="correct", player=n, likes=15) for n in ("Ana", "Ben")]
    loop, app = make_app(lines=[setup, *likes])
    six = {"double_meeples", "diagonal_movement", "double_corners", "double_specialties",
           "double_destination", "jump"}
    touch(app, "ft.upgrade")
    assert {w.name for w in app.screen._widgets if w.name.startswith("dlg.up.")} == {
        f"dlg.up.{u}" for u in six}
    touch(app, "dlg.up.jump")
    for u in ("double_destination", "double_corners", "diagonal_movement"):
        run(app, TouchAction({"do": "end_turn"}), TouchAction({"do": "end_turn"}))
        touch(app, "ft.upgrade")
        touch(app, f"dlg.up.{u}")
    run(app, TouchAction({"do": "end_turn"}))     # Ben: none flipped, all six offered
    touch(app, "ft.upgrade")
    assert {w.name for w in app.screen._widgets if w.name.startswith("dlg.up.")} == {
        f"dlg.up.{u}" for u in six}
    touch(app, "dlg.up.double_meeples")            # a fifth kind in the game: his own tile
    assert app.table.game.players[1].upgrades == ("double_meeples",)
    run(app, TouchAction({"do": "end_turn"}))     # Ana has flipped four: no UPGRADE
    assert app.table.game.active_player.name == "Ana"
    assert not has_widget(app, "ft.upgrade")


def test_a_correction_that_removes_the_fifth_dislike_reopens_the_sign():
    start = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"])
    loop, app = make_app(lines=[start])
    app.post_action({"do": "correct", "player": "Ben", "dislikes": 5})
    run(app)
    assert not widget(app, "hdr.sign").is_open
    app.post_action({"do": "correct", "player": "Ben", "dislikes": 4})
    run(app)
    assert widget(app, "hdr.sign").is_open
    assert any("Shop open again: the correction removed Ben's fifth dislike" in t
               for t in app.screen.toasts)
    assert not any(t.startswith("Shop closed") for t in app.screen.toasts)


def test_every_output_shows_the_reopened_shop():
    """The lights, the MQTT state and the phone view derive the sign from the table, so a
    correction that re-opens the shop ends the amber breath and the final round there."""
    from companion.outputs.lights.patterns import LightContext, Style, render
    from companion.outputs.mqtt.topics import state_payload
    from companion.core.rules import Table, apply, parse_line

    opened = apply(Table(), parse_line(line(do="setup", edition="original",
                                            players=["Ana", "Ben", "Chloe"]))).table
    closed = apply(opened, parse_line(line(do="correct", player="Ben", dislikes=5))).table
    reopened = apply(closed, parse_line(line(do="correct", player="Ben", dislikes=4))).table

    def outputs(table):
        lights = render(table.game, LightContext(), 1.0, Style(3, 8)).seats
        mqtt = state_payload(table, venue="v", name="t", game_id=1, seq=1, started_at=None,
                             devices={}, updated_at=0.0)["status"]
        return lights, mqtt["shop"], mqtt["final_round"]

    assert outputs(closed)[1:] == ("CLOSED", True)
    assert outputs(closed)[0] != outputs(opened)[0]          # the amber breath
    assert outputs(reopened) == outputs(opened)
    assert outputs(reopened)[1:] == ("OPEN", False)


# --- a seat button's guess, and a touch that offers the other order ------------------------

def guessed(app) -> None:
    """Ana's double tap takes position 1's first order: the one without a cake."""
    run(app, ev.SeatTap(0, count=2))
    ana = app.table.game.players[0]
    assert ana.likes == 1 and ana.cake_cards == 1 and [c.cake for c in ana.queue[0]] == [True]


def test_after_a_seat_buttons_guess_a_touch_on_the_position_offers_the_other_instead():
    loop, app = make_app(lines=CAKED)
    guessed(app)
    touch(app, "act.pos1")
    assert widget(app, "dlg.title").text == \
        "Position 1: the button took the order without a cake"
    # the note about the guess goes: it would cover the question
    assert not any("The other one?" in t for t in app.screen.toasts)
    touch(app, "dlg.instead")
    assert posted(app)[-2:] == [{"do": "undo"}, {"do": "complete", "slot": 1, "cake": True}]
    ana = app.table.game.players[0]
    # one order completed, the caked one: its cake card came, the plain order stays
    assert ana.likes == 1 and ana.cake_cards == 2 and [c.cake for c in ana.queue[0]] == [False]
    assert not has_widget(app, "dlg.title")
    touch(app, "act.pos1")           # no guess now: the last order there is completed at once
    assert posted(app)[-1] == {"do": "complete", "slot": 1}
    assert app.table.game.players[0].likes == 2


def test_after_a_guess_both_orders_of_the_position_can_be_completed():
    loop, app = make_app(lines=CAKED)
    guessed(app)
    touch(app, "act.pos1")
    touch(app, "dlg.too")
    assert posted(app)[-1] == {"do": "complete", "slot": 1, "cake": True}
    ana = app.table.game.players[0]
    assert ana.likes == 2 and ana.cake_cards == 2 and ana.queue[0] == ()


def test_a_guess_is_offered_back_only_while_it_is_the_last_thing_done():
    loop, app = make_app(lines=CAKED)
    guessed(app)
    run(app, TouchAction({"do": "correct", "player": "Ben", "likes": 1}))   # something since
    touch(app, "act.pos1")           # not offered: the one order left there goes
    assert posted(app)[-1] == {"do": "complete", "slot": 1}
    assert app.table.game.players[0].cake_cards == 2
    loop, app = make_app(lines=CAKED)
    guessed(app)
    run(app, ev.SeatHold(0), ev.SeatHold(1))       # Ana's turn ended and came back
    touch(app, "act.pos1")
    assert not has_widget(app, "dlg.instead")


def test_the_question_goes_when_the_guess_is_undone_by_the_undo_button():
    loop, app = make_app(lines=CAKED)
    guessed(app)
    touch(app, "act.pos1")
    assert has_widget(app, "dlg.instead")
    run(app, ev.UndoTap())
    assert not has_widget(app, "dlg.instead")
    assert app.table.game.players[0].likes == 0


def test_a_choice_made_by_touch_is_not_called_a_guess():
    loop, app = make_app(lines=CAKED)
    touch(app, "act.pos1")
    touch(app, "dlg.plain")
    assert not any("The other one?" in t for t in app.screen.toasts)
    touch(app, "act.pos1")                          # the caked one is left: completed at once
    assert posted(app)[-1] == {"do": "complete", "slot": 1}


def test_a_seat_buttons_order_with_a_cake_lights_its_quarter_pink():
    """Through the table loop and the lights controller: the quarter a seat button took is
    pink for an order with a cake, white for one without."""
    from companion.outputs.lights.pixels import SimulatedStrip, contiguous_segments
    from companion.outputs.lights.controller import LightsController
    from companion.outputs.lights.patterns import (CAKE, CAKE_STEP, CAKE_STEPS, OFF, TAKEN_SECONDS,
                                                   WHITE)
    from companion.core.session import Session
    from companion.core.loop import TableLoop

    class Clock:
        now = 10.0

        def __call__(self):
            return self.now

    clock = Clock()
    strip = SimulatedStrip(2 * 8, brightness=1.0)
    lights = LightsController(strip, contiguous_segments(2, 8), clock=clock)
    loop = TableLoop(Session(), clock=clock)
    lights.attach(loop)
    for a in (json.loads(x) for x in CAKED + [line(do="cake", player="Ana", slot=2)]):
        loop.post(TouchAction(a))
    loop.post(ev.SeatTap(0))                 # one tap: position 2, its one order, caked
    loop.drain()
    lights.tick(clock.now)
    assert set(strip.current[:8]) == {CAKE}  # first the cake card gained: the seat flashes
    clock.now += CAKE_STEP * CAKE_STEPS + 0.05
    lights.tick(clock.now)                   # then the quarter taken, pink: it had a cake
    ana = list(strip.current[:8])
    assert set(ana) == {CAKE, OFF} and [i for i, c in enumerate(ana) if c == CAKE] == [2, 3]
    clock.now += TAKEN_SECONDS
    loop.post(ev.SeatTap(0, count=1))        # then position 1's oldest: no cake
    loop.drain()
    lights.tick(clock.now)
    ana = list(strip.current[:8])
    assert [i for i, c in enumerate(ana) if c == WHITE] == [0, 1] and CAKE not in ana


def test_fix_by_touch_that_removes_the_fifth_dislike_reopens_every_output():
    """The Fix screen, by touch: Ben's fifth dislike taken away. The sign on the screen,
    the lights, the phone view (sign and news) and the MQTT state and event, all fed by
    the same table loop, say the shop is open again."""
    from companion.outputs.lights.pixels import SimulatedStrip, contiguous_segments
    from companion.outputs.lights.controller import LightsController
    from companion.outputs.mqtt.topics import event_payload, state_payload
    from companion.outputs.web import pages
    from companion.outputs.web.live import LiveTable

    start = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"])
    loop, app = make_app(lines=[start])
    strip = SimulatedStrip(3 * 8, brightness=1.0)
    lights = LightsController(strip, contiguous_segments(3, 8), clock=app.clock)
    lights.attach(loop)
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    events: list = []
    loop.subscribe(events.append)
    lights.tick(app.clock())
    open_frame = list(strip.current)
    run(app, TouchAction({"do": "correct", "player": "Ben", "dislikes": 5}))
    app.clock.now += 1.0                        # into the closed shop's amber breath
    lights.tick(app.clock())
    assert not widget(app, "hdr.sign").is_open and list(strip.current) != open_frame
    assert 'class="sign closed"' in pages.live_fragment("en", live.latest)

    touch(app, "ft.fix")
    touch(app, "dlg.ok")                       # yes, correct the counts
    touch(app, "fix.1.dislikes.minus")         # Ben: 5 -> 4
    touch(app, "fix.save")
    assert posted(app)[-1] == {"do": "correct", "player": "Ben", "dislikes": 4}
    assert widget(app, "hdr.sign").is_open
    said = "Shop open again: the correction removed Ben's fifth dislike"
    assert any(said in t for t in app.screen.toasts)
    app.clock.now += 1.0
    lights.tick(app.clock())
    assert list(strip.current) == open_frame          # no amber breath, no final round
    html = pages.live_fragment("en", live.latest)
    assert 'class="sign open"' in html and html_escape(said) in html and "Final round" not in html
    state = state_payload(app.table, venue="v", name="t", game_id=1, seq=1, started_at=None,
                          devices={}, updated_at=0.0)
    assert (state["token"], state["status"]["shop"], state["status"]["final_round"]) == \
        ("open", "OPEN", False)
    last = event_payload(events[-1], game_id=1, seq=2, at=0.0)
    assert {"kind": "shop_reopened", "reason": "five_dislikes", "player": "Ben"} in \
        last["happened"]


# --- the wizard and the table, by touch, for Winter's deal, open tiles and Junior's cards ---

def wizard(app, edition: str, count: int, start: int):
    import random
    screen = app.open("wizard", rng=random.Random(3), recent_names=["Ana", "Ben", "Chloe", "Dae"])
    touch(app, f"wz.edition.{edition}")
    return screen, count, start


def names_colours_start(app, count: int, start: int) -> None:
    touch(app, "wz.next")
    touch(app, f"wz.count.{count}")
    touch(app, "wz.next")
    for k in range(count):
        touch(app, f"wz.recent.{k}")
    touch(app, "wz.next")
    touch(app, "wz.next")                       # the box's colours
    touch(app, f"wz.start.{start}")
    touch(app, "wz.next")


def test_a_winter_table_is_told_its_books_deal_and_scans_in_that_order():
    loop, app = make_app()
    screen, _, _ = wizard(app, "winter", 3, 1)
    touch(app, "wz.variant.standard")
    names_colours_start(app, 3, 1)              # Ana, Ben, Chloe; Ben starts
    assert screen.step == "upgrades"
    touch(app, "wz.tiles.open")                 # the tiles are decided at the table
    assert "any of the 6 tiles, 4 different tiles at most" in widget(app, "wz.tiles_status").text
    assert not widget(app, "wz.tile.jump").enabled
    touch(app, "wz.next")
    touch(app, "wz.next")                       # the printed board
    assert screen.step == "deal"
    assert widget(app, "wz.dealnote.0").text == \
        "Deal: two cards to each player from Ben, then one more to Ben"
    assert [widget(app, f"wz.deal.1.{p}").text for p in range(2)] == ["2 cards", "1 card"]
    touch(app, "wz.next")
    touch(app, "wz.next")                       # meeples: the game starts
    setup = [a for a in posted(app) if a["do"] == "setup"]
    assert setup == [{"do": "setup", "edition": "winter", "players": ["Ana", "Ben", "Chloe"],
                      "start": "Ben", "variant": "standard"}]
    game = app.table.game
    assert game.open_tiles and len(game.players[0].tiles) == 6

    # at the table (with a scanner): the scan prompt follows the same order, card by card
    run(app, ev.DeviceStatus("scanner", "connected"))
    app.screen._dismiss_draws()
    hint = "Scan the dealt cards in deal order: next, {}'s card in position {}"
    expected = [("Ben", 1), ("Ben", 2), ("Chloe", 1), ("Chloe", 2), ("Ana", 1), ("Ana", 2),
                ("Ben", 1)]
    tags = ["EXO001", "EXO002", "EXO003", "EXO004", "EXO005", "EXO006", "EXO007"]
    for (who, position), tag in zip(expected, tags, strict=True):
        assert widget(app, "act.hint").text == hint.format(who, position)
        run(app, ev.CardScanned(tag))
    ben = app.table.game.players[1]
    assert [[c.tag for c in pos] for pos in ben.queue[:2]] == [["EXO001", "EXO007"], ["EXO002"]]


def test_junior_offers_two_three_or_four_cards_a_position():
    loop, app = make_app()
    screen, _, _ = wizard(app, "winter", 2, 0)
    touch(app, "wz.variant.junior")
    assert {w.name for w in app.screen._widgets if w.name.startswith("wz.junior_cards.")} == \
        {"wz.junior_cards.2", "wz.junior_cards.3", "wz.junior_cards.4"}
    assert widget(app, "wz.junior_cards.2").on
    touch(app, "wz.junior_cards.3")
    assert "12 orders each" in widget(app, "wz.junior_hint").text
    names_colours_start(app, 2, 0)
    touch(app, "wz.next")                       # the printed board
    assert screen.step == "deal"
    assert [widget(app, f"wz.deal.0.{p}").text for p in range(4)] == ["3 cards"] * 4
    assert widget(app, "wz.dealnote.0").text == \
        "Deal: 3 cards for each position, player by player from Ana"
    touch(app, "wz.next")
    touch(app, "wz.next")
    setup = [a for a in posted(app) if a["do"] == "setup"]
    assert setup[-1]["junior_cards"] == 3
    assert [len(pos) for pos in app.table.game.players[1].queue] == [3, 3, 3, 3]


def test_cake_time_without_named_tiles_offers_its_seven_to_each_player():
    loop, app = make_app()
    wizard(app, "cake_time", 2, 0)
    names_colours_start(app, 2, 0)
    touch(app, "wz.tiles.open")
    assert "any of the 7 tiles" in widget(app, "wz.tiles_status").text
    for _ in range(5):                          # options, deal, meeples...: to the game
        if app.table.game is not None:
            break
        touch(app, "wz.next")
    assert app.table.game is not None and app.table.game.open_tiles
    run(app, TouchAction({"do": "correct", "player": "Ana", "likes": 15}))
    if has_widget(app, "ban.cake.done"):
        touch(app, "ban.cake.done")
    touch(app, "ft.upgrade")
    seven = {"double_meeples", "diagonal_movement", "double_corners", "double_specialties",
             "break_time", "double_destination", "storage"}
    assert {w.name for w in app.screen._widgets if w.name.startswith("dlg.up.")} == \
        {f"dlg.up.{u}" for u in seven}
    touch(app, "dlg.up.break_time")
    for u in ("storage", "double_destination", "double_corners"):
        run(app, TouchAction({"do": "end_turn"}), TouchAction({"do": "end_turn"}))
        if has_widget(app, "ban.cake.done"):
            touch(app, "ban.cake.done")
        touch(app, "ft.upgrade")
        touch(app, f"dlg.up.{u}")
    run(app, TouchAction({"do": "end_turn"}), TouchAction({"do": "end_turn"}))
    assert set(app.table.game.players[0].upgrades) == {"break_time", "storage",
                                                        "double_destination", "double_corners"}
    run(app, TouchAction({"do": "end_turn"}),
        TouchAction({"do": "correct", "player": "Ben", "likes": 3}))
    if has_widget(app, "ban.cake.done"):
        touch(app, "ban.cake.done")
    assert app.table.game.active_player.name == "Ben"
    touch(app, "ft.upgrade")                    # Ben: any of the seven (1.3: his own four)
    assert {w.name for w in app.screen._widgets if w.name.startswith("dlg.up.")} == \
        {f"dlg.up.{u}" for u in seven}
