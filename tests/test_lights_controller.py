"""The lights controller: light context from table updates, frames to a strip only
when they change, the real neopixel library down to its last write, and config.

Time is a hand-moved clock: ``tick(now)`` does the lights thread's work on the
test's thread, and ``follow`` steps from one wake-up time to the next the way
the thread would, counting renders and strip writes -- no sleeping.
"""
from __future__ import annotations

import logging
import threading

import pytest

from companion.core import events as ev
from companion.appliance.config import defaults
from companion.outputs.lights.pixels import (NeoPixelStrip, Segment, SimulatedStrip,
                                             contiguous_segments)
from companion.outputs.lights.controller import (DRAW_PROMPT_WITHOUT_SCANNER, MAX_FPS,
                                                 LightsController, build_lights)
from companion.core.rules.state import Table
from companion.core.session import Session
from companion.core.loop import TableLoop, Update
from tests.test_light_patterns import table_game
from tests.test_pixels import TEST_PIN, fresh_blinka, wire  # noqa: F401  (fixtures)
from timing import scaled

R, B, G, Y = (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 200, 0)
r, b, g, y = (51, 0, 0), (0, 0, 51), (0, 51, 0), (51, 40, 0)
# one-letter colours keep a frame's LEDs in aligned columns (O is off)
O, W, A, X = (0, 0, 0), (255, 255, 255), (255, 96, 0), (255, 0, 0)  # noqa: E741
SETUP3 = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"]}


class Clock:
    def __init__(self, now=0.0):
        self.now = now

    def __call__(self):
        return self.now


def make(seats=4, length=4, clock=None, **kw):
    clock = clock or Clock()
    strip = SimulatedStrip(seats * length, brightness=1.0)
    c = LightsController(strip, contiguous_segments(seats, length), clock=clock, **kw)
    return c, strip, clock


def table_loop(controller, clock):
    loop = TableLoop(Session(), clock=clock)
    controller.attach(loop)
    return loop


def post(loop, *events):
    for e in events:
        loop.post(e)
    return loop.drain()


def follow(c, start, end):
    """Run the controller from ``start`` to ``end`` as its thread would: tick at
    ``start``, then at each wake-up time it asks for. Returns (ticks, writes)."""
    writes0, ticks = c.writes, 0
    wake = c.tick(start)
    ticks += 1
    while wake is not None and wake <= end:
        wake = c.tick(wake)
        ticks += 1
    return ticks, c.writes - writes0


def seat_frames(strip, seats=4, length=4):
    cur = strip.current
    return [list(cur[s * length:(s + 1) * length]) for s in range(seats)]


def scan_deal(loop, count=7):
    post(loop, *[ev.CardScanned(f"D{i}") for i in range(count)])


# --- the real neopixel library: bytes on the wire ------------------------------

def test_controller_frame_reaches_the_wire_in_grb_order_scaled_by_the_cap(wire):
    strip = NeoPixelStrip(6, pin=TEST_PIN, brightness=0.5)
    segments = [Segment(0, 0, 3), Segment(1, 3, 3, reversed=True)]
    c = LightsController(strip, segments, clock=Clock())
    game = table_game(2, active=0, fourth={1: 1})     # Ben has an order in position 4
    c(Update(None, Table(game)))
    c.tick(0.0)
    # seat 0 (red, active): R R R; seat 1 (blue, waiting, one pip) reads b O X
    # left to right, placed backwards on LEDs 5, 4, 3.
    assert len(wire) == 1
    assert wire[0][1] == bytes([
        0, 127, 0,   0, 127, 0,   0, 127, 0,     # LEDs 0-2: red 255 * 0.5 -> 127
        0, 127, 0,                               # LED 3: the red pip
        0, 0, 0,                                 # LED 4: the pip's dark gap
        0, 0, 25,                                # LED 5: dim blue 51 * 0.5 -> 25
    ])
    c.tick(1.0)
    c.tick(50.0)
    assert len(wire) == 1                        # nothing changed, nothing sent
    c.close()
    assert wire[-1][1] == bytes(18)              # closing switches every LED off


# --- writes only when something changes ----------------------------------------

def test_a_static_table_writes_nothing_for_ten_seconds():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3))
    ticks, writes = follow(c, 0.0, 10.0)
    assert (ticks, writes) == (1, 1)             # one frame, then it sleeps for good
    assert c.tick(0.0) is None                   # nothing pending: wait for an update
    renders = c.frames_rendered
    for i in range(1, 101):                      # even if woken every 0.1 s ...
        c.tick(i / 10)
    assert strip.writes == 1                     # ... the frame is the same
    assert c.frames_rendered == renders + 100


def test_a_flash_writes_while_it_animates_then_stops():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3))
    c.tick(0.0)
    clock.now = 3.0
    post(loop, ev.SeatTap(2))                    # not Cy's turn: Cy's segment flashes
    ticks, writes = follow(c, 3.0, 13.0)
    assert writes == 7                           # off, on, off, on, off, on, back to normal
    assert ticks == 7
    assert seat_frames(strip)[2] == [g] * 4
    assert c.tick(13.0) is None and c.flashes == {}


def test_animation_runs_at_the_frame_rate_only_while_the_shop_is_closed():
    c, strip, clock = make(fps=10)
    game = table_game(3, active=0, token="closed")
    c(Update(None, Table(game)))
    assert c.tick(0.0) == pytest.approx(0.1)
    ticks, writes = follow(c, 0.0, 1.0)
    assert 10 <= ticks <= 12 and 5 <= writes <= ticks
    fast, _, _ = make(fps=60)
    fast(Update(None, Table(game)))
    assert fast.tick(0.0) == pytest.approx(1 / MAX_FPS)   # capped at 30 frames a second
    c(Update(None, Table(table_game(3, active=0))))       # e.g. undo: shop open again
    assert c.tick(2.0) is None


def test_the_thread_sleeps_without_timeout_when_nothing_moves():
    strip = SimulatedStrip(16, brightness=1.0)
    c = LightsController(strip, contiguous_segments(4, 4))      # real clock, real thread
    loop = TableLoop(Session())
    c.attach(loop)
    c.start()
    loop.start()
    try:
        loop.post(ev.TouchAction(SETUP3))
        loop.post(ev.SeatTap(1))                 # a flash: frames for 0.6 s, then quiet
        loop.post(ev.Stop())
        loop._thread.join(scaled(5))
        assert c.wait_idle(5)                    # asleep with no timeout ...
        assert c.flashes == {} and c.last.next_change is None and not c.last.animating
        assert seat_frames(strip)[1] == [b] * 4  # ... after the flash has ended
        assert 2 <= strip.writes <= 8
        assert threading.current_thread() is not c._thread
    finally:
        c.close()
    assert strip.current == tuple([O] * 16)


# --- the turn timer through the controller ----------------------------------------

def test_turn_timer_thresholds_and_it_never_posts_an_action():
    c, strip, clock = make(turn_timer=60)
    loop = table_loop(c, clock)
    clock.now = 100.0
    post(loop, ev.TouchAction(SETUP3))           # Ana's turn starts at 100
    frames = {}
    for t in (100.0, 114.9, 115.0, 130.0, 145.0, 159.9, 160.0, 400.0):
        clock.now = t
        c.tick(t)
        frames[t] = seat_frames(strip)[0]
    assert frames == {
        100.0: [R, R, R, R], 114.9: [R, R, R, R], 115.0: [R, R, R, r],
        130.0: [R, R, r, r], 145.0: [A, r, r, r], 159.9: [A, r, r, r],
        160.0: [X, O, X, O], 400.0: [X, O, X, O],
    }
    assert loop.inputs.empty()                   # a pace aid only: no action was posted
    assert loop.table.game.active == 0
    assert c.tick(400.0) is None
    clock.now = 401.0
    post(loop, ev.SeatHold(0))                   # Ben's turn: a fresh timer
    c.tick(401.0)
    assert seat_frames(strip)[:2] == [[r] * 4, [B] * 4]
    assert c.tick(416.0) == 431.0 and seat_frames(strip)[1] == [B, B, B, b]


def test_the_timer_is_off_by_default():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3))
    assert c.tick(0.0) is None and c.turns.timer is None


# --- draw prompts -------------------------------------------------------------------

def surge(clock, **kw):
    """Ana completes one order and ends her turn: Ben and Cy must draw 1 each."""
    c, strip, _ = make(clock=clock, **kw)
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3))
    scan_deal(loop)
    clock.now = 8.0                  # (Ana's LEDs show the position she took until 9.5)
    post(loop, ev.SeatTap(0))
    clock.now = 10.0
    ups = post(loop, ev.SeatHold(0))
    assert [h.kind for h in ups[0].happened][0] == "cards_to_draw"
    return c, strip, loop


def test_drawing_seats_blink_until_their_cards_are_scanned():
    clock = Clock()
    c, strip, loop = surge(clock)
    c.tick(10.0)
    assert seat_frames(strip)[:3] == [[r] * 4, [W] * 4, [W] * 4]
    c.tick(10.5)
    assert seat_frames(strip)[:3] == [[r] * 4, [B] * 4, [g] * 4]
    clock.now = 11.2
    post(loop, ev.CardScanned("N1"))             # the oldest waiting card: Ben's
    c.tick(12.0)
    assert set(c.draws) == {2}
    assert seat_frames(strip)[:3] == [[r] * 4, [B] * 4, [W] * 4]
    post(loop, ev.CardScanned("N2"))             # Cy's
    assert c.tick(12.1) is None and c.draws == {}
    assert seat_frames(strip)[:3] == [[r] * 4, [B] * 4, [g] * 4]


def test_the_screen_can_dismiss_a_draw_prompt():
    clock = Clock()
    c, strip, loop = surge(clock)
    c.tick(10.0)
    post(loop, ev.DismissDraws(seat=1))
    c.tick(11.0)
    assert set(c.draws) == {2}
    post(loop, ev.DismissDraws())
    assert c.tick(11.0) is None
    assert seat_frames(strip)[:3] == [[r] * 4, [B] * 4, [g] * 4]


def test_undoing_the_surge_ends_the_prompt():
    clock = Clock()
    c, strip, loop = surge(clock)
    post(loop, ev.UndoTap())
    assert c.tick(10.0) is None and c.draws == {}
    assert seat_frames(strip)[0] == [R] * 4      # Ana's turn again


def test_without_a_scanner_the_prompt_times_out():
    clock = Clock()
    c, strip, loop = surge(clock, draw_timeout=DRAW_PROMPT_WITHOUT_SCANNER)
    ticks, writes = follow(c, 10.0, 60.0)
    assert writes == 2 * DRAW_PROMPT_WITHOUT_SCANNER     # one write per half-second blink
    assert c.draws == {} and seat_frames(strip)[1] == [B] * 4


# --- rejections, scanner, colours ----------------------------------------------------

def test_a_rejection_without_a_seat_flashes_nothing():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3), ev.TouchAction({"do": "spend_cookies", "count": 3}))
    assert c.flashes == {} and c.tick(0.0) is None


def test_scanner_lost_blinks_until_it_is_back():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3), ev.DeviceStatus("scanner", "lost", "unplugged"))
    assert c.tick(0.0) == 1.0
    assert [s[0] for s in seat_frames(strip)] == [(255, 0, 255)] * 4
    clock.now = 5.0
    post(loop, ev.DeviceStatus("buttons", "ready"))      # other devices change nothing
    assert c.scanner_lost_since == 0.0
    post(loop, ev.DeviceStatus("scanner", "back"))
    assert c.tick(5.0) is None
    assert seat_frames(strip)[0] == [R] * 4


def test_game_over_celebrates_then_rests():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction({"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}),
         ev.TouchAction({"do": "correct", "player": "Ben", "dislikes": 5}))   # shop closes
    c.tick(0.0)
    assert c.last.animating                       # amber breath
    clock.now = 30.0
    ups = post(loop, ev.SeatHold(0), ev.SeatHold(1))
    assert ups[-1].happened[-1].kind == "game_over"
    ticks, writes = follow(c, 30.0, 100.0)
    assert (ticks, writes) == (161, 161)          # 20 s of marquee at 8 steps a second ...
    assert c.tick(100.0) is None                  # ... then it stops: Ana won, steady red
    assert seat_frames(strip)[:2] == [[R] * 4, [b] * 4]


def test_seat_colours_can_change_at_runtime():
    c, strip, clock = make(seats=2, length=2)
    c(Update(None, Table(table_game(2, active=0))))
    c.set_seat_colors(["yellow", "green"])
    c.tick(0.0)
    assert strip.current == (Y, Y, g, g)
    with pytest.raises(ValueError, match="unknown seat colour"):
        c.set_seat_colors(["mauve", "green"])


def test_segments_must_cover_the_seats_in_order():
    with pytest.raises(ValueError, match="seats 0, 1, ... without gaps"):
        LightsController(SimulatedStrip(8), [Segment(0, 0, 4), Segment(2, 4, 4)])


def test_a_strip_that_fails_mid_game_leaves_the_table_running(caplog):
    class Flaky(SimulatedStrip):
        def _write(self, colors):
            raise OSError("[Errno 19] No such device")
    c = LightsController(Flaky(8), contiguous_segments(2, 4), clock=Clock())
    c(Update(None, Table(table_game(2))))
    with caplog.at_level(logging.WARNING, logger="companion.outputs.lights"):
        assert c.tick(0.0) is None
        c.tick(1.0)
    warnings = [rec for rec in caplog.records if rec.levelno == logging.WARNING]
    assert len(warnings) == 1 and "No such device" in warnings[0].getMessage()
    assert warnings[0].exc_info is None and c.strip is None and c.writes == 0


# --- from the configuration -----------------------------------------------------------

def config(**pixels):
    cfg = defaults()
    cfg.values["pixels"].update(pixels)
    return cfg


def test_driver_none_means_no_lights():
    assert build_lights(config(driver="none")) is None


def test_simulated_driver_follows_the_layout_and_the_game_settings():
    assert build_lights(config(driver="simulated"), clock=Clock()).style.sweep   # on by default
    cfg = config(driver="simulated", segment_length=3, first_pixel=2, reverse=True,
                 brightness=0.5, fps=12, active_sweep=False)
    cfg.values["game"]["turn_timer"] = 90
    c = build_lights(cfg, clock=Clock())
    assert isinstance(c.strip, SimulatedStrip) and c.strip.pixel_count == 2 + 4 * 3
    assert c.positions[0] == [4, 3, 2] and c.fps == 12 and c.turns.seconds == 90
    assert c.draw_timeout == DRAW_PROMPT_WITHOUT_SCANNER       # no scanner configured
    c(Update(None, Table(table_game(2, active=0))))
    c.tick(0.0)
    assert c.strip.current[:5] == (O, O, (127, 0, 0), (127, 0, 0), (127, 0, 0))
    cfg.values["scanner"]["port"] = "loop://"
    assert build_lights(cfg, seat_count=2).draw_timeout is None


def _one_clear_warning(caplog, *needles):
    warnings = [rec for rec in caplog.records if rec.name == "companion.outputs.lights"]
    assert len(warnings) == 1
    text = warnings[0].getMessage()
    for needle in needles:
        assert needle in text
    assert warnings[0].exc_info is None          # a message, not a traceback
    return text


def test_neopixel_on_a_pc_gives_one_installer_message(fresh_blinka, caplog):
    fresh_blinka.setenv("BLINKA_FORCEBOARD", "GENERIC_LINUX_PC")
    fresh_blinka.setenv("BLINKA_FORCECHIP", "GENERIC_X86")
    with caplog.at_level(logging.WARNING):
        assert build_lights(config(driver="neopixel")) is None
    _one_clear_warning(caplog, "no NeoPixel strip", "enable SPI", "'spi' and 'gpio' groups",
                       "[pi]", '[pixels] driver = "simulated"',
                       "carries on without lights")


def test_neopixel_with_a_pin_the_board_lacks(fresh_blinka, caplog):
    fresh_blinka.setenv("BLINKA_OS_AGNOSTIC", "1")
    with caplog.at_level(logging.WARNING):
        assert build_lights(config(driver="neopixel", pin="D10")) is None
    _one_clear_warning(caplog, "no pin named 'D10'")


def test_neopixel_driver_that_fails_on_its_first_write(wire, caplog, monkeypatch):
    """On a Pi, rpi_ws281x opens SPI/PWM on the first write; a failure there (no
    permission, SPI off) must also end in one message, not a traceback."""
    from adafruit_blinka.microcontroller.generic_agnostic_board import neopixel as backend

    def refuse(gpio, buf):
        raise RuntimeError("ws2811_init failed with code -13 (Unable to initialize SPI)")
    monkeypatch.setattr(backend, "neopixel_write", refuse)
    with caplog.at_level(logging.WARNING):
        assert build_lights(config(driver="neopixel", pin=TEST_PIN, segment_length=2),
                            seat_count=2) is None
    _one_clear_warning(caplog, "Unable to initialize SPI", "enable SPI")


def test_neopixel_driver_on_the_test_board_drives_the_strip(wire):
    c = build_lights(config(driver="neopixel", pin=TEST_PIN, segment_length=2,
                            brightness=1.0), seat_count=2, clock=Clock())
    assert len(wire) == 1 and wire[0][1] == bytes(12)          # the blank first frame
    c(Update(None, Table(table_game(2, active=1))))
    c.tick(0.0)
    assert wire[-1][1] == bytes([0, 51, 0] * 2 + [0, 0, 255] * 2)
    c.close()


def test_blinka_is_told_not_to_prompt_for_installs(fresh_blinka):
    """Blinka >= 10 asks on a terminal whether to pip-install Pi backends and waits
    for an answer; the lights must never leave the table service on that prompt."""
    fresh_blinka.delenv("BLINKA_SKIP_DEPENDENCY_CHECK", raising=False)
    fresh_blinka.setenv("BLINKA_FORCEBOARD", "GENERIC_LINUX_PC")
    fresh_blinka.setenv("BLINKA_FORCECHIP", "GENERIC_X86")
    build_lights(config(driver="neopixel"))
    import os
    assert os.environ["BLINKA_SKIP_DEPENDENCY_CHECK"] == "1"


def test_brightness_from_the_settings_screen_never_exceeds_the_configured_cap(wire):
    strip = NeoPixelStrip(2, pin=TEST_PIN, brightness=0.4)
    c = LightsController(strip, [Segment(0, 0, 1), Segment(1, 1, 1)], clock=Clock())
    c(Update(None, Table(table_game(2, active=0))))
    c.tick(0.0)
    assert wire[-1][1] == bytes([0, 102, 0, 0, 0, 20])          # 255 * 0.4, 51 * 0.4
    c.set_brightness(0.2)
    c.tick(1.0)
    assert wire[-1][1] == bytes([0, 51, 0, 0, 0, 10])           # same colours, dimmer
    c.set_brightness(1.0)                                       # above the cap: capped
    c.tick(2.0)
    assert wire[-1][1] == bytes([0, 102, 0, 0, 0, 20]) and len(wire) == 3
    with pytest.raises(ValueError, match="between 0 and 1"):
        c.set_brightness(2)


def test_turn_timer_can_be_switched_on_during_a_turn():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3))
    assert c.tick(0.0) is None
    clock.now = 5.0
    c.set_turn_timer(40)
    assert c.tick(5.0) == 15.0 and seat_frames(strip)[0] == [R] * 4
    c.set_turn_timer(0)
    assert c.tick(6.0) is None


def test_device_news_before_any_game_is_shown_without_error(caplog):
    c, strip, clock = make()
    loop = table_loop(c, clock)
    with caplog.at_level(logging.ERROR, logger="companion.outputs.lights"):
        post(loop, ev.DeviceStatus("buttons", "ready", "4 seats"),
             ev.DeviceStatus("scanner", "lost", "unplugged"))
        c.tick(0.0)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert c.scanner_lost_since == 0.0


def test_brightness_can_change_and_shows_at_once():
    strip = SimulatedStrip(2, brightness=1.0)
    strip.show([(200, 100, 50), (0, 0, 0)])
    strip.set_brightness(0.5)
    assert strip.show([(200, 100, 50), (0, 0, 0)])          # same colours, new level: written
    assert strip.frames[-1][0] == (100, 50, 25)
    with pytest.raises(ValueError):
        strip.set_brightness(1.5)


def test_a_draw_prompt_dismissed_through_the_table_loop_stops_the_blink():
    c, strip, clock = make()
    loop = table_loop(c, clock)
    post(loop, ev.TouchAction(SETUP3), ev.SeatTap(0), ev.SeatHold(0))
    c.tick(clock.now)
    assert c.draws                                    # Ben and Cy must draw
    ups = post(loop, ev.DismissDraws())
    assert [h.kind for h in ups[0].happened] == ["draws_dismissed"]
    c.tick(clock.now)
    assert not c.draws


def test_a_draw_prompt_lasts_one_turn_and_comes_back_after_a_restart():
    """Like the screen's prompt: worked out from the game, ended by the next turn."""
    clock = Clock()
    c, strip, loop = surge(clock)                # Ben and Cy must draw; Ben's turn
    c.tick(10.0)
    assert set(c.draws) == {1, 2}
    again, strip2, _ = make(clock=clock)          # the companion restarts on that table
    again.show_table(loop.table)
    again.tick(10.0)
    assert set(again.draws) == {1, 2}
    assert seat_frames(strip2)[1:3] == [[W] * 4, [W] * 4]
    post(loop, ev.SeatHold(1))                    # Ben's turn ends: the prompt goes
    c.tick(10.5)
    assert c.draws == {}
