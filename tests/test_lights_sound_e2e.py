"""End to end: a table script and seat presses through the TableLoop, with the lights
and the sound built from config (simulated strip, SDL's dummy audio driver).

After every step the strip shows the expected frame and the expected cues were
handed to the real mixer. Both outputs run on one hand-moved clock: each step
happens at its time, then ``tick`` does what their threads would do.
"""
from __future__ import annotations

import pytest

from companion.core import events as ev
from companion.appliance.config import defaults
from companion.outputs.lights.controller import build_lights
from companion.core.session import Session
from companion.outputs.sound import build_sound
from companion.core.loop import TableLoop

R, B = (255, 0, 0), (0, 0, 255)
r, b = (51, 0, 0), (0, 0, 51)
# one-letter colours keep a frame's LEDs in aligned columns (O is off)
O, W, M = (0, 0, 0), (255, 255, 255), (255, 0, 255)  # noqa: E741
AMBER_RED = (153, 48, 0)      # dim red half-way to amber (the shop-closed breath at its top)


def line(text):
    return ev.ScriptLine(text)


# (time, inputs, Ana's 4 LEDs, Ben's 4 LEDs, cues)
STEPS = [
    (0.0, [line('{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}')],
     [R] * 4, [b] * 4, []),
    # the 5 dealt cards pass over the scanner
    (10.0, [line(f'{{"do": "scan", "tag": "C{i}"}}') for i in range(1, 6)],
     [R] * 4, [b] * 4, ["card_scanned"] * 5),
    # Ben presses his button on Ana's turn: his segment flashes (dark first), buzz
    (20.0, [ev.SeatTap(1)], [R] * 4, [O] * 4, ["rejected"]),
    (20.1, [], [R] * 4, [B] * 4, []),
    (20.6, [], [R] * 4, [b] * 4, []),
    # Ana taps: her oldest order is done; her LEDs show which position (2: second quarter)
    (30.0, [ev.SeatTap(0)], [O, W, O, O], [b] * 4, ["tap", "order_completed"]),
    (31.5, [], [R] * 4, [b] * 4, []),
    # Ana holds: order surge (Ben draws 1), 2-player draw (Ana draws 1), Ben's turn
    (40.0, [ev.SeatHold(0)], [W] * 4, [W] * 4, ["surge_tick", "surge_tick", "turn_change"]),
    (40.5, [], [r] * 4, [B] * 4, []),
    # the scanner identifies the oldest waiting card: Ben's; Ana still blinks
    (50.0, [line('{"do": "scan", "tag": "N1"}')], [W] * 4, [B] * 4, ["card_scanned"]),
    (60.0, [line('{"do": "scan", "tag": "N2"}')], [r] * 4, [B] * 4, ["card_scanned"]),
    # the scanner's cable is pulled, then plugged back
    (70.0, [ev.DeviceStatus("scanner", "lost", "unplugged")],
     [M, r, r, r], [M, B, B, B], ["scanner_lost"]),
    (71.0, [], [(0, 0, 255), r, r, r], [(0, 0, 255), B, B, B], []),
    (80.0, [ev.DeviceStatus("scanner", "back")], [r] * 4, [B] * 4, []),
    # a correction gives Ana her fifth dislike: the shop closes, Ben plays the final turn
    (90.0, [line('{"do": "correct", "player": "Ana", "dislikes": 5}')],
     [AMBER_RED] * 4, [B] * 4, ["shop_closed", "final_turn"]),
    (92.5, [], [(66, 7, 0)] * 4, [(0, 0, 76)] * 4, []),     # breath low, Ben's pulse low
    # Ben ends the final turn: he draws 1 (2 players), game over, Ben wins (0 vs -4)
    (100.0, [ev.SeatHold(1)], [r] * 4, [W, B, B, B],
     ["surge_tick", "game_over", "winner"]),
    (104.125, [], [r] * 4, [B, W, B, B], []),    # the marquee has moved on 33 steps
    (121.0, [], [r] * 4, [B] * 4, []),
]


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def table():
    cfg = defaults()
    cfg.values["seats"]["pins"] = [17, 27]
    cfg.values["scanner"]["port"] = "loop://"       # a scanner: draw prompts wait for it
    cfg.values["pixels"].update(driver="simulated", segment_length=4, brightness=1.0,
                                active_sweep=False)   # (the sweep has its own tests)
    clock = Clock()
    lights = build_lights(cfg, clock=clock)
    sound = build_sound(cfg, clock=clock)
    loop = TableLoop(Session(), clock=clock)
    lights.attach(loop)
    sound.attach(loop)
    yield clock, loop, lights, sound
    lights.close()
    sound.close()


def test_a_scripted_game_lights_and_sounds_at_every_step(table):
    clock, loop, lights, sound = table
    strip = lights.strip
    for i, (t, inputs, ana, ben, cues) in enumerate(STEPS):
        clock.now = t
        for e in inputs:
            loop.post(e)
        loop.drain()
        lights.tick(t)
        assert [list(strip.current[:4]), list(strip.current[4:])] == [ana, ben], \
            f"lights after step {i} (t={t})"
        # play this step's cues: everything due before the next step
        until = STEPS[i + 1][0] if i + 1 < len(STEPS) else t + 60
        before = len(sound.played)
        wake = sound.tick(t)
        while wake is not None and wake < until:
            wake = sound.tick(wake)
        played = [c for _, c in list(sound.played)[before:]]
        assert played == cues, f"cues after step {i} (t={t})"
    assert sound.state == "playing"
    assert loop.table.game.game_over
    assert lights.tick(200.0) is None and sound.tick(200.0) is None   # all quiet now
