"""Seat and UNDO buttons: the gesture classifier, and gpiozero MockFactory pins end to end.

gpiozero's MockPin does not simulate contact bounce, so the bounce trains
here are written out edge by edge, on an injected clock, both straight into
the classifier and through the mock pins (``drive_low``/``drive_high``).
"""
import dataclasses
import json
import queue
import threading

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings, strategies as st

from companion.appliance import config
from companion.core import events as ev
from companion.core.journal import Journal
from companion.devices.buttons import NO_GPIO, UNDO, Buttons, Gesture, PressClassifier
from companion.devices.mock_pins import Fingers
from companion.core.session import Session
from companion.core.loop import NotYourTurn, TableLoop
from recorder import Recorder
from timing import scaled

FIXED = settings(derandomize=True, database=None, deadline=None, max_examples=200)
PINS = [17, 27, 22, 23]
SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe", "Dae"]}


class FakeClock:
    def __init__(self, t=100.0):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, dt):
        self.t += dt
        return self.t


# ---------------------------------------------------------------- the classifier


def run(classifier, edges, until=None):
    """Feed (time, pressed) edges, then poll up to ``until``; all gestures in order."""
    out = []
    for at, pressed in edges:
        out += classifier.edge(pressed, at)
    if until is not None:
        out += classifier.poll(until)
    return out


def test_a_tap_is_decided_on_release():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    assert c.edge(True, 10.0) == []
    assert c.poll(10.1) == []
    assert c.edge(False, 10.2) == [Gesture("tap", 10.2)]
    assert c.poll(20.0) == []


def test_a_hold_fires_once_at_the_threshold_while_still_pressed():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    c.edge(True, 5.0)
    assert c.next_deadline() == pytest.approx(6.0)      # the timer wakes once, at the threshold
    assert c.poll(5.5) == []
    assert c.next_deadline() == pytest.approx(6.0)
    assert c.poll(5.999) == []
    assert c.poll(6.0) == [Gesture("hold", 6.0)]        # no release needed
    assert c.poll(60.0) == []                           # once, however long it stays down
    assert c.next_deadline() is None
    assert c.edge(False, 61.0) == []                    # the release after a hold is no tap


def test_a_late_poll_still_dates_the_hold_at_its_threshold():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    c.edge(True, 0.0)
    assert c.poll(3.7) == [Gesture("hold", 1.0)]


@pytest.mark.parametrize("train", [
    [(0.000, True), (0.001, False)],
    [(0.000, True), (0.002, False), (0.004, True), (0.005, False), (0.009, True), (0.012, False)],
    [(0.000, True), (0.029, False)],
])
def test_contact_chatter_shorter_than_the_bounce_window_is_no_ghost_tap(train):
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    assert run(c, train, until=5.0) == []
    assert c.chatter == 1 and not c.busy


def test_bounce_trains_on_press_and_release_make_exactly_one_tap():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    press = [(0.000, True), (0.001, False), (0.002, True), (0.004, False), (0.005, True)]
    release = [(0.300, False), (0.301, True), (0.303, False), (0.306, True), (0.307, False)]
    assert run(c, press + release, until=3.0) == [Gesture("tap", 0.300)]


def test_bounce_trains_around_a_hold_make_exactly_one_hold():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    press = [(0.000, True), (0.003, False), (0.004, True)]
    release = [(1.500, False), (1.502, True), (1.503, False)]
    assert run(c, press + release, until=9.0) == [Gesture("hold", 1.0)]


def test_a_contact_flickering_open_mid_hold_is_not_a_second_press():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    out = run(c, [(0.0, True)], until=1.2)
    out += run(c, [(1.5, False), (1.51, True)], until=4.0)   # open for 10 ms, held on for 2.5 s
    out += run(c, [(4.0, False)], until=9.0)
    assert out == [Gesture("hold", 1.0)]


def test_a_contact_flickering_open_before_the_hold_gives_one_tap_and_nothing_more():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    out = run(c, [(0.0, True), (0.5, False), (0.51, True)], until=3.0)
    out += run(c, [(3.0, False)], until=5.0)
    assert out == [Gesture("tap", 0.5)]


def test_quick_separate_taps_all_count():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    edges = []
    for n in range(5):                      # 5 taps 150 ms apart, 80 ms long
        edges += [(n * 0.15, True), (n * 0.15 + 0.08, False)]
    assert run(c, edges, until=2.0) == [Gesture("tap", n * 0.15 + 0.08) for n in range(5)]


def test_only_holds_need_the_timer():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    assert c.next_deadline() is None
    c.edge(True, 0.0)
    c.edge(False, 0.001)                    # chatter: its window's end can wait for a poll
    assert c.next_deadline() is None and c.busy
    assert c.poll(0.5) == [] and not c.busy
    c.edge(True, 1.0)
    c.edge(False, 1.2)                      # a tap: decided at the edge, no timer
    assert c.next_deadline() is None
    c.edge(True, 1.21)                      # inside the release window: a flicker, spent
    assert c.next_deadline() is None
    assert c.edge(False, 3.0) == []


def test_no_bounce_window():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.0)
    assert run(c, [(0.0, True), (0.001, False)]) == [Gesture("tap", 0.001)]


def test_a_bounce_window_longer_than_the_hold_fires_the_hold_when_the_press_is_confirmed():
    c = PressClassifier(hold_seconds=0.3, bounce_seconds=0.5)
    assert run(c, [(0.0, True)], until=0.4) == []
    assert c.poll(0.5) == [Gesture("hold", 0.5)]


def test_times_from_the_past_count_as_now():
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    c.poll(10.0)
    c.edge(True, 9.0)                       # a thread stamped it a hair earlier
    assert c.down_since == 10.0
    assert c.edge(False, 10.5) == [Gesture("tap", 10.5)]


def test_bad_timings_are_refused():
    with pytest.raises(ValueError):
        PressClassifier(hold_seconds=0)
    with pytest.raises(ValueError):
        PressClassifier(bounce_seconds=-1)


def bursts(max_span):
    """Edge trains starting with a press, every edge within ``max_span`` of the first."""
    return st.lists(st.floats(0.0, max_span), min_size=0, max_size=12).map(sorted)


@FIXED
@given(bursts(0.029), st.booleans())
def test_any_chatter_shorter_than_the_window_that_ends_open_is_nothing(offsets, extra):
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    edges, level = [(0.0, True)], True
    for dt in offsets:
        level = not level
        edges.append((dt, level))
    if level:                               # make it end open
        edges.append((0.0295, False))
    assert run(c, edges, until=10.0) == []


@FIXED
@given(bursts(0.02), bursts(0.02), st.floats(0.05, 3.0))
def test_one_press_with_any_bounce_at_both_ends_is_exactly_one_gesture(press, release, length):
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    edges, level = [(0.0, True)], True
    for dt in press:
        level = not level
        edges.append((dt, level))
    if not level:
        edges.append((0.021, True))
    edges.append((length, False))
    level = False
    for dt in release:
        level = not level
        edges.append((length + 0.001 + dt, level))
    if level:
        edges.append((length + 0.025, False))
    out = run(c, edges, until=length + 10.0)
    expected = Gesture("hold", 1.0) if length >= 1.0 else Gesture("tap", length)
    assert out == [expected]


@FIXED
@given(st.lists(st.tuples(st.floats(0.0005, 2.0), st.booleans()), max_size=60))
def test_random_edges_never_give_more_gestures_than_presses(steps):
    c = PressClassifier(hold_seconds=1.0, bounce_seconds=0.03)
    t, out, closes, level = 0.0, [], 0, False
    for dt, pressed in steps:
        t += dt
        out += c.edge(pressed, t)
        if pressed and not level:
            closes += 1
        level = pressed
    out += c.poll(t + 10)
    assert len(out) <= closes
    assert [g.at for g in out] == sorted(g.at for g in out)


# ---------------------------------------------------------------- buttons on mock pins


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def posted():
    return []


_OPENED = []


@pytest.fixture(autouse=True, scope="module")
def close_every_button_at_the_end():
    """gpiozero buttons each run a thread; close them all at the end, in parallel
    (one close waits up to 0.1 s for its thread)."""
    yield
    closers = [threading.Thread(target=b.close) for b in _OPENED + [_FUZZ.get("buttons")] if b]
    for t in closers:
        t.start()
    for t in closers:
        t.join(scaled(5))


def make_buttons(posted, clock, **kw):
    kw.setdefault("pin_factory", MockFactory())
    b = Buttons(posted.append, kw.pop("pins", PINS), kw.pop("undo_pin", 24), driver="simulated",
                clock=clock, **kw)
    _OPENED.append(b)
    assert b.open()
    posted.clear()                          # the "ready" status
    return b


def gestures(events):
    """The events without their press stamps (for tests about timing alone)."""
    return [dataclasses.replace(e, press=None) if hasattr(e, "press") else e for e in events]


def edges_on(pin, clock, train):
    """Drive a MockPin through (seconds-after-previous, pressed) steps; pressed = low."""
    for dt, pressed in train:
        clock.advance(dt)
        pin.drive_low() if pressed else pin.drive_high()


def test_ready_status_names_every_pin(clock, posted):
    b = Buttons(posted.append, PINS, 24, driver="simulated", clock=clock)
    assert b.open()
    status = posted[0]
    assert (status.device, status.status) == ("buttons", "ready")
    assert status.detail == ("simulated buttons: seat 1 GPIO17, seat 2 GPIO27, seat 3 GPIO22, "
                             "seat 4 GPIO23, UNDO GPIO24")
    b.close()
    b.close()


@pytest.mark.parametrize("seat", range(4))
def test_tap_and_hold_on_every_seat_pin(clock, posted, seat):
    b = make_buttons(posted, clock)
    pin = b.devices[seat].pin
    assert pin.info.name == f"GPIO{PINS[seat]}"
    began = clock()
    edges_on(pin, clock, [(0, True), (0.15, False)])
    t_tap = clock()
    edges_on(pin, clock, [(1.0, True)])
    start = clock()
    clock.advance(1.0)
    b.poll()                                # the timer's job
    assert pin.state == 0                   # still pressed when the hold fires
    edges_on(pin, clock, [(0.7, False)])
    b.poll(clock.advance(5))
    # each gesture carries the moment its press began (no table here: no turn)
    assert posted == [ev.SeatTap(seat, t_tap, ev.Press(began)),
                      ev.SeatHold(seat, start + 1.0, ev.Press(start))]


def test_undo_tap_and_hold(clock, posted):
    b = make_buttons(posted, clock)
    pin = b.devices[UNDO].pin
    assert pin.info.name == "GPIO24"
    edges_on(pin, clock, [(0, True), (0.1, False)])
    t_tap = clock()
    edges_on(pin, clock, [(1, True)])
    start = clock()
    clock.advance(1.5)
    b.poll()
    assert posted == [ev.UndoTap(t_tap)]    # 1.5 s is no redo yet: redo_hold_seconds is 2
    clock.advance(0.5)
    b.poll()
    edges_on(pin, clock, [(1, False)])
    assert posted == [ev.UndoTap(t_tap), ev.UndoHold(start + 2.0)]


def test_bounce_trains_through_the_pins_make_one_tap_and_chatter_none(clock, posted):
    b = make_buttons(posted, clock)
    pin = b.devices[1].pin
    # a knock on the table: 3 ms of chatter, then open
    edges_on(pin, clock, [(0, True), (0.001, False), (0.001, True), (0.001, False)])
    b.poll(clock.advance(1.0))
    assert posted == []
    # a real tap with bounce on both ends
    edges_on(pin, clock, [(0, True), (0.002, False), (0.001, True), (0.003, False), (0.001, True),
                          (0.12, False), (0.001, True), (0.002, False)])
    b.poll(clock.advance(2.0))
    assert [type(e) for e in posted] == [ev.SeatTap] and posted[0].seat == 1
    assert b.classifiers[1].chatter == 1


def test_two_seats_pressing_at_once(clock, posted):
    b = make_buttons(posted, clock)
    p0, p2 = b.devices[0].pin, b.devices[2].pin
    p0.drive_low()
    clock.advance(0.01)
    p2.drive_low()
    clock.advance(0.2)
    p2.drive_high()
    t2 = clock()
    clock.advance(0.05)
    p0.drive_high()
    t0 = clock()
    b.poll(clock.advance(3))
    assert gestures(posted) == [ev.SeatTap(2, t2), ev.SeatTap(0, t0)]
    # seat 3 pressed while seat 1's press was in flight: the stamp says so
    assert [e.press.overlapped for e in posted] == [True, False]


def test_a_hold_due_before_another_buttons_edge_is_posted_first(clock, posted):
    b = make_buttons(posted, clock)
    start = clock()
    b.devices[0].pin.drive_low()
    clock.advance(1.5)                      # the timer thread was late: no poll in between
    b.devices[UNDO].pin.drive_low()
    clock.advance(0.1)
    b.devices[UNDO].pin.drive_high()
    assert gestures(posted) == [ev.SeatHold(0, start + 1.0), ev.UndoTap(clock())]


def test_fingers_press_through_the_mock_pin(clock, posted):
    b = make_buttons(posted, clock)
    fingers = Fingers.on(b)
    fingers.press(3)
    assert b.devices[3].pin.state == 0 and posted == []
    assert fingers.next_lift() == pytest.approx(clock() + 0.12)   # the finger lifts
    fingers.poll(clock.advance(0.2))        # the finger lifts at 0.12 s
    assert b.devices[3].pin.state == 1
    assert gestures(posted) == [ev.SeatTap(3, clock())]
    fingers.press(1, seconds=1.3)
    fingers.press(UNDO, seconds=2.2)
    start = clock()
    for _ in range(30):
        fingers.poll(clock.advance(0.1))
    assert gestures(posted[1:]) == [ev.SeatHold(1, start + 1.0), ev.UndoHold(start + 2.0)]
    assert all(d.pin.state == 1 for d in b.devices.values())


def test_only_mock_pins_can_be_pressed_by_software(posted, clock, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no_such_factory")
    b = Buttons(posted.append, PINS, 24, driver="gpio", clock=clock)
    with pytest.raises(RuntimeError, match="simulated"):
        Fingers.on(b)
    s = make_buttons(posted, clock, undo_pin=-1)
    with pytest.raises(ValueError, match="no button for UNDO"):
        Fingers.on(s).press(UNDO)


def test_the_buttons_have_no_simulation_of_their_own():
    """Simulation lives in the pin layer (mock_pins), the way gpiozero keeps it."""
    import inspect

    from companion.devices import buttons
    source = inspect.getsource(buttons.Buttons)
    assert "MockFactory" not in source and "drive_low" not in source
    assert not hasattr(buttons.Buttons, "press")


def test_without_gpio_the_buttons_say_so_once_and_the_companion_goes_on(monkeypatch, posted):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no_such_factory")   # as on a PC: nothing to load
    b = Buttons(posted.append, PINS, 24, driver="gpio").start()
    assert not b.available and b._thread is None
    assert posted == [ev.DeviceStatus("buttons", "unavailable", NO_GPIO, {"driver": "gpio"})]
    assert "pip install '.[pi]'" in NO_GPIO and 'driver = "simulated"' in NO_GPIO
    b.close()


def test_a_pin_already_taken_is_reported_not_raised(clock, posted):
    factory = MockFactory()
    first = make_buttons(posted, clock, pin_factory=factory)
    second = Buttons(posted.append, [5, 6], 17, driver="simulated", pin_factory=factory,
                     clock=clock)
    assert second.open() is False
    assert posted[0].status == "unavailable" and "already in use" in posted[0].detail
    assert second.devices == {}             # what it had claimed was given back
    assert factory.pin(5).when_changed is None
    first.close()


def test_from_config_uses_the_seats_section(tmp_path, clock, posted):
    path = tmp_path / "c.toml"
    path.write_text('[seats]\ndriver = "simulated"\npins = [5, 6, 13]\nundo_pin = -1\n'
                    'hold_seconds = 0.5\nbounce_ms = 10\n')
    b = Buttons.from_config(config.load(str(path)), posted.append, clock=clock)
    assert b.open() and sorted(b.devices) == [0, 1, 2]
    assert b.classifiers[0].hold_seconds == 0.5 and b.classifiers[0].bounce_seconds == 0.01
    assert [d.pin.info.name for d in b.devices.values()] == ["GPIO5", "GPIO6", "GPIO13"]
    b.close()


def test_edges_after_close_are_ignored(clock, posted):
    b = make_buttons(posted, clock)
    pin = b.devices[0].pin
    b.close()
    pin.drive_low()
    clock.advance(2)
    pin.drive_high()
    assert posted == []


# ---------------------------------------------------------------- with the real timer thread


def test_timer_thread_fires_the_hold_while_the_button_is_still_down():
    events = queue.Queue()
    b = Buttons(events.put, PINS, 24, driver="simulated", hold_seconds=0.3, bounce_ms=10).start()
    assert events.get(timeout=scaled(2)).status == "ready"
    pin = b.devices[2].pin
    fingers = Fingers.on(b).start()
    fingers.press(2, seconds=5)
    hold = events.get(timeout=scaled(2))
    assert hold == ev.SeatHold(2, hold.at, hold.press) and pin.state == 0
    fingers.close()
    b.close()
    assert not b._thread


def test_fingers_thread_lifts_taps_on_a_real_clock():
    events = queue.Queue()
    b = Buttons(events.put, PINS, 24, driver="simulated").start()
    events.get(timeout=scaled(2))
    fingers = Fingers.on(b).start()
    fingers.press(0)
    fingers.press(UNDO)
    got = [events.get(timeout=scaled(2)), events.get(timeout=scaled(2))]
    assert sorted(type(e).__name__ for e in got) == ["SeatTap", "UndoTap"]
    fingers.close()
    b.close()


# ---------------------------------------------------------------- into the table loop


def table(clock=None):
    loop = TableLoop(Session())
    rec = Recorder()
    loop.subscribe(rec)
    loop.post(ev.TouchAction(SETUP))
    loop.drain()
    return loop, rec


def seat_buttons(loop, clock, **kw):
    """Mock-pin buttons wired to a table loop the way the service wires them."""
    b = Buttons(loop.post, PINS, 24, driver="simulated", pin_factory=MockFactory(), clock=clock,
                turn_now=loop.turn_now, **kw)
    _OPENED.append(b)
    assert b.open()
    return b


def test_presses_while_the_loop_is_busy_queue_up_and_apply_in_order(clock):
    loop, rec = table()
    gate, busy = threading.Event(), threading.Event()

    def slow_screen(update):                # a subscriber stuck on the first update
        if not busy.is_set():
            busy.set()
            gate.wait(scaled(5))
    loop.subscribe(slow_screen)
    b = seat_buttons(loop, clock)
    loop.start()
    assert busy.wait(scaled(2))                     # the loop is now stuck in "buttons ready"
    p0 = b.devices[0].pin
    for _ in range(3):                      # Ana: three taps
        edges_on(p0, clock, [(0.2, True), (0.1, False)])
    edges_on(p0, clock, [(0.2, True)])      # then holds to end her turn
    b.poll(clock.advance(1.2))
    edges_on(p0, clock, [(0.1, False)])
    # Ben taps while the table still shows Ana's turn: that press belongs to Ana's turn
    edges_on(b.devices[1].pin, clock, [(0.2, True), (0.1, False)])
    edges_on(b.devices[UNDO].pin, clock, [(0.2, True), (0.1, False)])  # and UNDO
    assert loop.inputs.qsize() == 6 and len(rec.updates) == 2   # setup, buttons ready
    gate.set()
    rec.wait_for(lambda u: isinstance(u.event, ev.UndoTap))
    # the UNDO pressed while the table still showed the setup would undo Ana's end of
    # turn, which nobody had seen yet: refused; pressed again now, it undoes it
    edges_on(b.devices[UNDO].pin, clock, [(0.2, True), (0.1, False)])
    rec.wait_for(lambda u: isinstance(u.event, ev.UndoTap) and u.accepted)
    loop.stop()
    events = [u.event for u in rec.updates[2:]]
    assert [type(e).__name__ for e in events] == ["SeatTap"] * 3 + ["SeatHold", "SeatTap",
                                                                    "UndoTap", "UndoTap"]
    assert [u.accepted for u in rec.updates[2:]] == [True] * 4 + [False, False, True]
    assert rec.updates[6].happened == (NotYourTurn(1, "Ben", "Ana"),)   # Ana played then
    assert rec.updates[7].rejection.code == "stale_turn"       # "Ben's turn had already begun"
    assert [h.kind for h in rec.updates[-1].happened] == ["undone"]   # Ana's end of turn
    game = loop.table.game
    assert game.players[0].likes == 3 and game.active == 0 and game.players[1].likes == 0


def not_your_turn(updates):
    return [(u.seat, u.happened[0].overlapped) for u in updates
            if u.happened and isinstance(u.happened[0], NotYourTurn)]


def seat_updates(loop):
    return [u for u in loop.drain() if not isinstance(u.event, ev.DeviceStatus)]


def journaled(journal):
    return [json.loads(x)["do"] for x in journal.latest_game()[1]]


@pytest.fixture
def journal(tmp_path):
    with Journal(str(tmp_path / "journal.db")) as j:
        yield j


def journal_table(journal):
    loop = TableLoop(Session(journal))
    loop.post(ev.TouchAction(SETUP))
    loop.drain()
    return loop


def test_a_press_from_a_seat_that_is_not_active_changes_nothing(clock):
    loop, rec = table()
    b = seat_buttons(loop, clock)
    before = loop.table
    edges_on(b.devices[2].pin, clock, [(0, True), (0.1, False)])
    edges_on(b.devices[3].pin, clock, [(0.1, True)])
    b.poll(clock.advance(1.5))
    edges_on(b.devices[3].pin, clock, [(0.1, False)])
    ups = seat_updates(loop)
    assert loop.table is before
    assert [(u.seat, u.happened[0]) for u in ups] == [
        (2, NotYourTurn(2, "Chloe", "Ana")), (3, NotYourTurn(3, "Dae", "Ana"))]
    assert all(not u.accepted for u in ups)


def test_all_four_seats_holding_at_once_end_at_most_the_active_turn(clock, journal):
    loop = journal_table(journal)
    b = seat_buttons(loop, clock)
    for seat in range(4):                   # four hands slam down within 30 ms, Ana first
        edges_on(b.devices[seat].pin, clock, [(0.01, True)])
    updates = []
    for _ in range(20):                     # the timer thread's job, on the fake clock
        b.poll(clock.advance(0.1))
        updates += seat_updates(loop)       # the loop keeps up with every hold as it fires
    for seat in range(4):
        edges_on(b.devices[seat].pin, clock, [(0.01, False)])
    updates += seat_updates(loop)
    assert journaled(journal) == ["setup", "end_turn"]           # Ana's turn, nobody else's
    assert loop.table.game.active == 1 and loop.table.game.turn == 2
    assert not_your_turn(updates) == [(1, False), (2, False), (3, False)]   # once each


@pytest.mark.parametrize("first", [1, 3])
def test_when_another_seat_pressed_first_even_the_active_hold_changes_nothing(clock, journal,
                                                                                first):
    loop = journal_table(journal)
    b = seat_buttons(loop, clock)
    edges_on(b.devices[first].pin, clock, [(0, True)])          # Ben (or Dae) first...
    edges_on(b.devices[0].pin, clock, [(0.02, True)])           # ...then Ana, 20 ms later
    updates = []
    for _ in range(20):
        b.poll(clock.advance(0.1))
        updates += seat_updates(loop)
    for seat in (0, first):
        edges_on(b.devices[seat].pin, clock, [(0.05, False)])
    updates += seat_updates(loop)
    assert journaled(journal) == ["setup"] and loop.table.game.active == 0
    # one "not your turn" each; Ana's says "two buttons at once, press again"
    assert sorted(not_your_turn(updates)) == [(0, True), (first, False)]
    texts = {u.seat: u.rejection.code for u in updates}
    assert texts == {0: "buttons_overlap", first: "not_your_turn"}


def test_a_hold_begun_out_of_turn_never_ends_the_next_turn(clock, journal):
    loop = journal_table(journal)
    b = seat_buttons(loop, clock)
    edges_on(b.devices[0].pin, clock, [(0, True)])              # Ana holds to end her turn
    b.poll(clock.advance(0.5))
    edges_on(b.devices[0].pin, clock, [(0, False)])             # (too short: a tap)
    loop.drain()
    edges_on(b.devices[0].pin, clock, [(0.1, True)])            # Ana holds again
    edges_on(b.devices[1].pin, clock, [(0.6, True)])            # Ben starts holding in Ana's turn
    updates = []
    for _ in range(30):                     # Ana's hold fires, then Ben's, a turn later
        b.poll(clock.advance(0.1))
        updates += seat_updates(loop)
    edges_on(b.devices[0].pin, clock, [(0, False)])
    edges_on(b.devices[1].pin, clock, [(0, False)])
    updates += seat_updates(loop)
    game = loop.table.game
    assert journaled(journal) == ["setup", "complete", "end_turn"]
    assert game.active == 1 and game.turn == 2                  # Ben's turn is still running
    assert not_your_turn(updates) == [(1, False)]               # told once
    assert [u.happened[0].active for u in updates if u.seat == 1] == ["Ana"]


@pytest.mark.parametrize("offset", [-0.05, -0.01, 0.0, 0.01, 0.05])
def test_a_tap_across_the_moment_the_active_hold_fires_changes_nothing(clock, journal, offset):
    """Ben taps around the moment Ana's hold ends her turn: his tap began in Ana's turn."""
    loop = journal_table(journal)
    b = seat_buttons(loop, clock)
    edges_on(b.devices[0].pin, clock, [(0, True)])              # Ana holds
    t_fire = clock() + 1.0
    b.poll(clock.advance(1.0 - 0.1 + min(offset, 0)))
    loop.drain()
    edges_on(b.devices[1].pin, clock, [(0, True)])              # Ben's press begins
    updates = []
    clock.t = max(clock.t, t_fire) + max(offset, 0)
    b.poll()                                                    # Ana's hold fires
    updates += seat_updates(loop)
    edges_on(b.devices[1].pin, clock, [(0.15, False)])          # Ben's tap ends after it
    edges_on(b.devices[0].pin, clock, [(0.1, False)])
    updates += seat_updates(loop)
    assert journaled(journal) == ["setup", "end_turn"]
    assert loop.table.game.players[1].likes == 0
    assert not_your_turn(updates) == [(1, False)]


def test_after_the_turn_changed_the_new_active_seat_plays(clock, journal):
    loop = journal_table(journal)
    b = seat_buttons(loop, clock)
    edges_on(b.devices[0].pin, clock, [(0, True)])
    b.poll(clock.advance(1.1))                                  # Ana's hold ends her turn
    loop.drain()
    edges_on(b.devices[1].pin, clock, [(0.2, True), (0.1, False)])   # Ben taps (Ana still down)
    edges_on(b.devices[0].pin, clock, [(0.1, False)])
    ups = seat_updates(loop)
    assert journaled(journal) == ["setup", "end_turn", "complete"]
    assert [u.accepted for u in ups] == [True]


_FUZZ = {}


def fuzz_buttons():
    """One set of mock buttons for every fuzz example (closing gpiozero buttons is slow)."""
    if not _FUZZ:
        clock = FakeClock()
        sink = []
        b = Buttons(lambda e: sink[-1](e), PINS, 24, driver="simulated",
                    pin_factory=MockFactory(), clock=clock)
        sink.append(lambda e: None)
        assert b.open()
        _FUZZ.update(buttons=b, clock=clock, sink=sink)
    return _FUZZ["buttons"], _FUZZ["clock"], _FUZZ["sink"]


@FIXED
@given(st.lists(st.tuples(st.sampled_from([0, 1, 2, 3, UNDO]), st.booleans(),
                          st.floats(0.0, 1.5)), max_size=40))
def test_whatever_fingers_do_on_the_pins_the_table_stays_sound(steps):
    b, clock, sink = fuzz_buttons()
    loop, rec = table()
    sink.append(loop.post)
    presses = {name: 0 for name in b.devices}
    for name, pressed, dt in steps:
        clock.advance(dt)
        b.poll()
        pin = b.devices[name].pin
        if pressed and pin.state == 1:
            presses[name] += 1
        pin.drive_low() if pressed else pin.drive_high()
    for device in b.devices.values():       # every finger off, all settled
        device.pin.drive_high()
    b.poll(clock.advance(10))
    sink.pop()
    assert not any(c.busy for c in b.classifiers.values())
    ups = loop.drain()
    assert all(u.rejection is None or u.rejection.code != "storage_failed" for u in ups)
    gestures = [u.event for u in ups]
    for name, count in presses.items():
        mine = [e for e in gestures if (isinstance(e, (ev.UndoTap, ev.UndoHold)) if name == UNDO
                                        else getattr(e, "seat", None) == name)]
        assert len(mine) <= count


def test_a_long_undo_hold_asks_for_the_pairing_code_once_a_press(clock, posted):
    """Held on past the redo, UNDO asks for the phones' pairing code (a table without a
    screen says it aloud): once a press, and a press let go before it asks nothing."""
    b = make_buttons(posted, clock)
    asked = []
    b.on_code_asked = lambda: asked.append(clock())
    pin = b.devices[UNDO].pin
    edges_on(pin, clock, [(0, True)])
    start = clock()
    assert b.next_deadline() == start + 2.0          # the redo first
    b.poll(clock.advance(2.0))
    assert b.next_deadline() == start + Buttons.CODE_HOLD_SECONDS   # the timer wakes then
    b.poll(clock.advance(3.9))
    assert posted == [ev.UndoHold(start + 2.0)] and asked == []
    b.poll(clock.advance(0.1))
    assert asked == [start + Buttons.CODE_HOLD_SECONDS]
    b.poll(clock.advance(10))
    assert len(asked) == 1 and b.next_deadline() is None
    edges_on(pin, clock, [(0.5, False), (1.0, True), (3.0, False)])   # a redo, no code
    b.poll(clock.advance(10))
    assert len(asked) == 1
    edges_on(pin, clock, [(1.0, True)])
    b.poll(clock.advance(Buttons.CODE_HOLD_SECONDS))
    assert len(asked) == 2
