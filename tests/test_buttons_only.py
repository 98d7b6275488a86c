"""A table with seat buttons only: no scanner, no touch.

The multi-tap gesture in the pure classifier, then whole games pressed through
gpiozero's MockFactory pins on an injected clock, watched by the real screen.
"""
import json
import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402
from gpiozero.pins.mock import MockFactory  # noqa: E402

from companion.core import events as ev  # noqa: E402
from companion.core.catalog import Catalog  # noqa: E402
from companion.devices.buttons import Buttons, Gesture, PressClassifier  # noqa: E402
from companion.devices.mock_pins import Fingers as PinFingers  # noqa: E402
from companion.core.journal import Journal  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.core.loop import TableLoop, stepped_slot  # noqa: E402
from companion.outputs import Outputs  # noqa: E402
from companion.outputs.screen.app import App  # noqa: E402

PINS = [17, 27, 22, 23]
SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe", "Dae"],
         "start": "Ana"}


# ---------------------------------------------------------------- the gesture

def test_a_double_tap_is_one_tap_counted_twice_dated_at_its_first_release():
    c = PressClassifier(1.0, 0.03, multi_tap_seconds=0.35)
    c.edge(True, 10.0)
    assert c.edge(False, 10.1) == []            # maybe a second tap comes
    assert c.next_deadline() == pytest.approx(10.45)
    c.edge(True, 10.3)
    assert c.edge(False, 10.4) == []
    assert c.poll(10.7) == []                   # 0.35 s after the second release ...
    assert c.poll(10.75) == [Gesture("tap", 10.1, 2)]
    assert c.next_deadline() is None


def test_a_single_tap_waits_for_the_window_and_a_slow_second_tap_is_its_own():
    c = PressClassifier(1.0, 0.03, multi_tap_seconds=0.35)
    c.edge(True, 0.0)
    c.edge(False, 0.1)
    c.edge(True, 0.6)                           # after the window: the first tap is out
    assert c.edge(False, 0.7) == []
    assert c.poll(5.0) == [Gesture("tap", 0.7)]
    assert run_edges(PressClassifier(1.0, 0.03, 0.35), [(0, True), (0.1, False)], 1.0) \
        == [Gesture("tap", 0.1, 1)]


def test_taps_then_a_hold_give_the_taps_first_then_the_hold():
    c = PressClassifier(1.0, 0.03, multi_tap_seconds=0.35)
    out = run_edges(c, [(0.0, True), (0.1, False), (0.3, True)], 2.0)
    assert out == [Gesture("tap", 0.1, 1), Gesture("hold", 1.3)]


def test_chatter_between_taps_adds_no_tap():
    c = PressClassifier(1.0, 0.03, multi_tap_seconds=0.35)
    out = run_edges(c, [(0.0, True), (0.1, False), (0.2, True), (0.21, False)], 2.0)
    assert out == [Gesture("tap", 0.1, 1)]


def run_edges(c, edges, until):
    out = []
    for at, pressed in edges:
        out += c.edge(pressed, at)
    return out + c.poll(until)


def test_stepped_slot_counts_from_the_oldest_order():
    from companion.core.rules.state import Card, Player
    p = Player("Ana", [[Card(1)], [], [Card(2)], [Card(3)]], ())
    assert [stepped_slot(p, n) for n in (1, 2, 3, 4)] == [4, 3, 1, 1]
    from dataclasses import replace
    assert stepped_slot(replace(p, queue=((), (), (), ())), 2) is None


# ---------------------------------------------------------------- at the table

class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


class Fingers:
    """Presses the seat buttons through the mock pins, moving the clock."""

    def __init__(self, buttons, clock, loop):
        self.b, self.clock, self.loop = buttons, clock, loop

    def _wait(self, dt):
        self.clock.t += dt
        self.b.poll()

    def tap(self, seat, times=1):
        pin = PinFingers.on(self.b).pin(seat)
        for _ in range(times):
            pin.drive_low()
            self._wait(0.08)
            pin.drive_high()
            self._wait(0.12)
        self._wait(0.5)                         # the multi-tap window passes
        return self.loop.drain()

    def hold(self, seat):
        pin = PinFingers.on(self.b).pin(seat)
        pin.drive_low()
        self._wait(1.1)
        pin.drive_high()
        self._wait(0.1)
        return self.loop.drain()


@pytest.fixture
def table(tmp_path):
    pygame.display.init()
    pygame.font.init()
    clock = Clock()
    journal = Journal(str(tmp_path / "j.db"))
    loop = TableLoop(Session(journal, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=pygame.Surface((800, 480)), clock=clock),
                              main_thread=True)
    buttons = Buttons(loop.post, PINS, -1, multi_tap_ms=300, driver="simulated",
                      pin_factory=MockFactory(), clock=clock, turn_now=loop.turn_now)
    assert buttons.open()
    loop.post(ev.TouchAction(SETUP))
    loop.drain()
    app.process_updates()
    yield loop, app, Fingers(buttons, clock, loop), journal
    buttons.close()
    journal.close()


def draw_widgets(app):
    return [w.name for w in app.screen.widgets() if w.name.startswith(("draw.", "ban.draw"))]


def test_a_whole_game_with_seat_buttons_only(table):
    """Four seat buttons alone play a game to its end: taps, double taps, holds. The draw
    prompt shows only in the turn an order surge began, and the journal (what the
    buttons did) replays to the same final table."""
    loop, app, fingers, journal = table
    rng = random.Random(13)
    prompts = double_taps = 0
    for _ in range(120):
        game = loop.table.game
        if game.game_over:
            break
        seat, me = game.active, game.active_player
        filled = [i for i in range(4) if me.queue[i]]
        for _ in range(rng.choice([0, 1, 1, 2])):
            filled = [i for i in range(4) if loop.table.game.players[seat].queue[i]]
            if not filled:
                break
            taps = 2 if len(filled) > 1 and rng.random() < 0.4 else 1
            want = stepped_slot(loop.table.game.players[seat], taps)
            updates = fingers.tap(seat, taps)
            app.process_updates()
            done = [h for u in updates for h in u.happened if h.kind == "order_completed"]
            assert [h.position for h in done] == [want]
            double_taps += taps == 2
        if rng.random() < 0.2:                 # somebody presses out of turn
            fingers.tap((seat + 1) % 4)
            app.process_updates()
        updates = fingers.hold(seat)
        app.process_updates()
        surged = any(h.kind == "cards_to_draw" and h.draws for u in updates for h in u.happened)
        shown = draw_widgets(app)
        assert not shown or surged, "a draw prompt outlived the turn it was for"
        prompts += bool(shown)
    assert loop.table.game.game_over and prompts and double_taps
    lines = journal.latest_game()[1]
    assert any('"slot"' in line for line in lines)
    assert Session(journal, Catalog.example()).table.game.players \
        == loop.table.game.players


def test_a_double_tap_writes_the_line_a_touch_on_that_position_writes(table):
    loop, app, fingers, journal = table
    fingers.tap(0)                              # Ana completes one order: Ben and Chloe draw
    for _ in range(8):                          # until a player has orders in two positions
        me = loop.table.game.active_player
        if sum(1 for pos in me.queue if pos) >= 2:
            break
        fingers.hold(loop.table.game.active)
    slot = stepped_slot(me, 2)
    assert slot != stepped_slot(me, 1)
    fingers.tap(loop.table.game.active, 2)
    by_button = journal.latest_game()[1][-1]
    # the screen marks the position taken for a moment (the LEDs too: test_light_patterns)
    app.process_updates()
    marked = [w.name for w in app.screen.widgets() if getattr(w, "highlight", False)]
    assert marked == [f"act.pos{slot}"]
    fingers.clock.t += app.screen.TAKEN_SECONDS
    app.tick()
    assert not [w for w in app.screen.widgets() if getattr(w, "highlight", False)]
    loop.post(ev.TouchAction({"do": "undo"}))
    loop.drain()
    app.process_updates()
    app.screen.complete(slot)                   # what a touch on that position posts
    loop.drain()
    assert journal.latest_game()[1][-1] == by_button
    assert json.loads(by_button)["slot"] == slot


def test_with_two_players_the_prompt_names_both_draws():
    """The surge and the 2-player draw come from one end of turn: one prompt for both."""
    from companion.core.draw_prompt import pending_draws
    from companion.core.rules import Table, apply
    t = Table()
    for a in ({"do": "setup", "edition": "original", "players": ["Ana", "Ben"],
               "start": "Ana"}, {"do": "complete"}, {"do": "end_turn"}):
        t = apply(t, a).table
    due = pending_draws(t)
    assert due.draws == (("Ben", 1), ("Ana", 1)) and due.turn == 2
    t = apply(t, {"do": "end_turn"}).table        # Ben's turn ends: only his own draw now
    assert pending_draws(t).draws == (("Ben", 1),)
