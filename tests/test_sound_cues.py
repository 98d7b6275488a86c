"""Sound cues: the cue chosen for every kind of update, and the player on pygame's
real mixer (SDL_AUDIODRIVER=dummy, set in conftest.py), including a missing or
failing audio device. Time is a hand-moved clock and ``tick(now)`` plays what is
due, so nothing here sleeps.
"""
from __future__ import annotations

import importlib.util
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pygame
import pytest

from companion.core import events as ev
from companion.appliance.config import defaults
from companion.core.rules.happenings import (CardsToDraw, DislikesTaken, FinalTurnBegins, GameOver,
                                             RankEntry, ShopClosed, TurnChanged)
from companion.core.rules.state import Table
from companion.core.session import Session
from companion.outputs.sound import (CUE_IDS, CUE_GAP, SURGE_SPACING, SoundPlayer, build_sound,
                                     cues_for, default_folder)
from companion.outputs.sound.player import RETRY_FIRST
from companion.core.loop import TableLoop, Update
from timing import scaled

SOUNDS = Path(__file__).resolve().parent.parent / "sounds"
SETUP3 = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"]}


class Clock:
    def __init__(self, now=0.0):
        self.now = now

    def __call__(self):
        return self.now


@pytest.fixture
def players():
    """Make SoundPlayers; every one is closed afterwards (so the mixer is too)."""
    made = []

    def make(**kw):
        kw.setdefault("clock", Clock())
        p = SoundPlayer(**kw)
        made.append(p)
        return p
    yield make
    for p in made:
        p.close()
    assert pygame.mixer.get_init() is None


def loop_with(*subscribers, clock=None):
    loop = TableLoop(Session(), clock=clock or Clock())
    for s in subscribers:
        s.attach(loop)
    return loop


def updates(*events, loop=None):
    loop = loop or loop_with()
    for e in events:
        loop.post(e)
    return loop.drain()


# --- the cue ids are the generated files ---------------------------------------

def test_cue_ids_are_the_generated_wavs():
    tool = SOUNDS.parent / "tools" / "make_sounds.py"
    spec = importlib.util.spec_from_file_location("make_sounds", tool)
    make_sounds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_sounds)
    assert set(CUE_IDS) == set(make_sounds.CUES) and len(CUE_IDS) == 16
    assert default_folder() == SOUNDS
    assert all((SOUNDS / (c + ".wav")).is_file() for c in CUE_IDS)


# --- which cue for which update ---------------------------------------------------

def test_seat_taps_scans_and_turns():
    loop = loop_with()
    ups = updates(ev.TouchAction(SETUP3), ev.CardScanned("EX1"), ev.SeatTap(0), ev.SeatTap(0),
                  ev.SeatHold(0), loop=loop)
    assert [cues_for(u) for u in ups] == [
        [],                                          # setup: the lights show who starts
        ["card_scanned"],                            # the first dealt card identified
        ["tap", "order_completed"],                  # accepted tap, then its result
        ["tap", "order_completed"],
        ["surge_tick"] * 4 + ["turn_change"],        # Ben and Cy draw 2 each
    ]


def test_specialty_orders_ring_the_specialty_cue_instead():
    ups = updates(ev.TouchAction(SETUP3),
                  ev.TouchAction({"do": "complete", "specialty": True}))
    assert cues_for(ups[1]) == ["specialty"]


def test_rejections_buzz():
    loop = loop_with()
    ups = updates(ev.TouchAction(SETUP3), ev.SeatTap(2),
                  ev.TouchAction({"do": "spend_cookies", "count": 4}),
                  ev.ScriptLine("not json"), loop=loop)
    assert [cues_for(u) for u in ups[1:]] == [["rejected"]] * 3
    assert ups[1].happened[0].kind == "not_your_turn"


def test_undo_and_comment_lines_are_quiet_and_redo_replays_the_cue():
    ups = updates(ev.TouchAction(SETUP3), ev.SeatTap(0), ev.UndoTap(), ev.UndoHold(),
                  ev.ScriptLine("# a comment"))
    assert [cues_for(u) for u in ups[2:]] == [[], ["order_completed"], []]


def test_scanner_lost_and_back():
    ups = updates(ev.DeviceStatus("scanner", "lost", "unplugged"),
                  ev.DeviceStatus("scanner", "back"), ev.DeviceStatus("buttons", "lost"))
    assert [cues_for(u) for u in ups] == [["scanner_lost"], [], []]


def test_the_end_of_a_turn_in_order():
    """Surge, dislike, shop closed, final turn and turn change, as the engine reports them."""
    ranking = (RankEntry("Ana", 3, 3, 0, 1),)
    u = Update(ev.SeatHold(1), Table(), {"do": "end_turn"}, (
        CardsToDraw((("Cy", 2), ("Ana", 1)), "order_surge", True),
        ShopClosed("deck_empty"),
        DislikesTaken("Ben", 1, 5),
        TurnChanged("Cy", "Ben", 9),
        FinalTurnBegins("Cy"),
    ), seat=1)
    assert cues_for(u) == ["surge_tick"] * 3 + ["shop_closed", "dislike", "turn_change",
                                                 "final_turn"]
    over = Update(ev.SeatHold(2), Table(), {"do": "end_turn"},
                  (GameOver(ranking, ("Ana",)),), seat=2)
    assert cues_for(over) == ["game_over", "winner"]


def test_a_whole_short_game_ends_with_the_fanfare():
    ups = updates(ev.TouchAction({"do": "setup", "edition": "original",
                                  "players": ["Ana", "Ben"]}),
                  ev.TouchAction({"do": "correct", "player": "Ben", "dislikes": 5}),
                  ev.SeatHold(0), ev.SeatHold(1))
    assert cues_for(ups[1]) == ["shop_closed"]
    assert cues_for(ups[2]) == ["surge_tick", "turn_change", "final_turn"]
    assert cues_for(ups[3])[-2:] == ["game_over", "winner"]


# --- the player on the real mixer (dummy audio driver) --------------------------------

def test_cues_play_on_the_real_mixer_one_after_another(players):
    p = players(volume=0.5)
    loop = loop_with(p)
    updates(ev.TouchAction(SETUP3), ev.SeatTap(0), ev.SeatTap(0), loop=loop)
    p.clock.now = 10.0
    updates(ev.SeatHold(0), loop=loop)
    assert p.tick(0.0) == pytest.approx(p.sounds["tap"].get_length() + CUE_GAP)
    assert p.state == "playing" and pygame.mixer.get_init() is not None
    assert len(p.sounds) == len(CUE_IDS) == 16
    assert p.sounds["winner"].get_volume() == pytest.approx(0.5, abs=0.01)
    assert pygame.mixer.get_busy()               # the taps are sounding
    wake = p.tick(0.2)
    assert [c for _, c in p.played] == ["tap", "tap", "order_completed", "order_completed"]
    assert wake == 10.0
    t = 10.0
    while wake is not None:
        t = wake
        wake = p.tick(t)
    surge = [(round(at, 3), c) for at, c in p.played][4:]
    assert surge == [(10.0, "surge_tick"), (10.15, "surge_tick"), (10.3, "surge_tick"),
                     (10.45, "surge_tick"), (10.6, "turn_change")]
    assert SURGE_SPACING == 0.15
    assert p.mixer_thread == "MainThread"


def test_turn_timer_cues_at_the_last_quarter_and_the_end(players):
    p = players(turn_timer=60)
    loop = loop_with(p, clock=p.clock)
    p.clock.now = 100.0
    updates(ev.TouchAction(SETUP3), loop=loop)
    assert p.tick(100.0) == 145.0
    assert p.tick(144.99) == 145.0 and list(p.played) == []
    assert p.tick(145.0) == 160.0 and list(p.played) == [(145.0, "timer_warning")]
    assert p.tick(160.0) is None and list(p.played)[-1] == (160.0, "timer_end")
    assert loop.inputs.empty() and loop.table.game.active == 0    # never acts
    # a turn that ends early cancels its cues and starts the next player's timer
    p.clock.now = 170.0
    updates(ev.SeatHold(0), loop=loop)
    assert p.tick(170.0) == 215.0
    p.clock.now = 200.0
    updates(ev.SeatHold(1), loop=loop)
    assert p.tick(200.0) == 245.0
    assert p.tick(246.0) == 260.0
    assert [c for at, c in p.played if at > 160] == ["turn_change", "turn_change",
                                                     "timer_warning"]


def test_muted_player_plays_nothing(players):
    p = players()
    loop = loop_with(p)
    p.muted = True
    updates(ev.TouchAction(SETUP3), ev.SeatTap(0), loop=loop)
    assert p.tick(5.0) is None and list(p.played) == []
    p.muted = False
    p.play("winner")
    p.tick(6.0)
    assert [c for _, c in p.played] == ["winner"]
    with pytest.raises(ValueError, match="unknown sound cue 'fanfare'"):
        p.play("fanfare")


def test_the_sound_thread_owns_the_mixer(players):
    p = players(clock=__import__("time").monotonic)
    loop = TableLoop(Session())
    p.attach(loop)
    p.start()
    loop.start()
    try:
        loop.post(ev.TouchAction(SETUP3))
        loop.post(ev.SeatTap(2))
        loop.post(ev.SeatTap(0))
        assert p.wait_played(3, timeout=scaled(5))
    finally:
        loop.stop()
        p.close()
    assert [c for _, c in p.played] == ["rejected", "tap", "order_completed"]
    assert p.mixer_thread == "sound"


# --- no audio, no files, disabled --------------------------------------------------------

def _warnings(caplog):
    return [r for r in caplog.records if r.name == "companion.outputs.sound"
            and r.levelno >= logging.WARNING]


def test_an_audio_driver_that_does_not_exist_means_silence_and_one_warning(players, caplog,
                                                                          monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "no_such_driver")
    p = players()
    loop = loop_with(p)
    with caplog.at_level(logging.WARNING):
        updates(ev.TouchAction(SETUP3), ev.SeatTap(0), ev.SeatTap(0), loop=loop)
        assert p.tick(0.0) == RETRY_FIRST        # wakes only to try the output again
        updates(ev.SeatHold(0), loop=loop)
        assert p.tick(1.0) == RETRY_FIRST
        assert p.tick(RETRY_FIRST) == 3 * RETRY_FIRST    # still none: the wait doubles
    assert p.state == "silent" and list(p.played) == []
    [warning] = _warnings(caplog)
    assert "audio output cannot be opened" in warning.getMessage()
    assert "no_such_driver" in warning.getMessage()
    assert "carries on silently" in warning.getMessage() and warning.exc_info is None


def test_a_mixer_that_fails_to_open(players, caplog, monkeypatch):
    def no_device(*a, **kw):
        raise pygame.error("No available audio device")
    monkeypatch.setattr(pygame.mixer, "init", no_device)
    p = players(turn_timer=30)
    loop = loop_with(p)
    with caplog.at_level(logging.WARNING):
        updates(ev.TouchAction(SETUP3), ev.SeatTap(1), loop=loop)
        assert p.tick(0.0) == RETRY_FIRST        # silent: not even the timer wakes it
        p.play("tap")
        p.tick(1.0)
    assert list(p.played) == []
    [warning] = _warnings(caplog)
    assert "No available audio device" in warning.getMessage()


def test_a_sound_card_that_appears_after_the_start_is_opened_then(players, caplog,
                                                                   monkeypatch):
    """A Pi's HDMI or USB audio can come up after the service (seen in the booted
    appliance check): the player tries again, and the cues play once the card is there."""
    monkeypatch.setenv("SDL_AUDIODRIVER", "no_such_driver")
    p = players()
    loop = loop_with(p)
    try:
        with caplog.at_level(logging.WARNING):
            assert p.tick(0.0) == RETRY_FIRST and p.state == "silent"
            monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")       # the card is there now
            p.tick(RETRY_FIRST - 0.1)
            assert p.state == "silent"                            # not yet due
            p.tick(RETRY_FIRST)
            assert p.state == "playing"
            updates(ev.TouchAction(SETUP3), ev.SeatTap(0), loop=loop)
            p.tick(RETRY_FIRST + 1)
        assert [c for _, c in p.played] == ["tap", "order_completed"]   # after it opened
        words = [r.getMessage() for r in _warnings(caplog)]
        assert len(words) == 2 and "opened now" in words[1]
    finally:
        p.close()


def test_a_missing_folder_gives_one_warning(players, caplog, tmp_path):
    p = players(folder=tmp_path / "nowhere")
    with caplog.at_level(logging.WARNING):
        p.play("tap")
        p.tick(0.0)
        p.play("tap")
        p.tick(1.0)
    [warning] = _warnings(caplog)
    assert "nowhere does not exist" in warning.getMessage()
    assert "[sound] folder" in warning.getMessage()
    assert list(p.played) == [] and pygame.mixer.get_init() is None


def test_a_missing_cue_file_silences_only_that_cue(players, caplog, tmp_path):
    for cue in CUE_IDS:
        if cue != "tap":
            shutil.copy(SOUNDS / (cue + ".wav"), tmp_path)
    (tmp_path / "winner.wav").write_bytes(b"not a wav file")
    p = players(folder=tmp_path)
    loop = loop_with(p)
    with caplog.at_level(logging.WARNING):
        updates(ev.TouchAction(SETUP3), ev.SeatTap(0), loop=loop)
        p.tick(5.0)
    [warning] = _warnings(caplog)
    assert "tap, winner" in warning.getMessage()
    assert [c for _, c in p.played] == ["order_completed"]


def test_disabled_sound_never_loads_pygame():
    code = textwrap.dedent("""
        import sys
        from companion.core import events as ev
        from companion.core.session import Session
        from companion.outputs.sound import SoundPlayer
        from companion.core.loop import TableLoop
        p = SoundPlayer(enabled=False)
        loop = TableLoop(Session())
        p.attach(loop)
        p.start()
        loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                                  "players": ["A", "B"]}))
        loop.drain()
        p.play("tap")
        p.tick(0.0)
        p.close()
        print(p.state, "pygame" in sys.modules, len(p.played))
    """)
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root)
    assert out.stdout.split() == ["off", "False", "0"]


def test_built_from_config(tmp_path):
    cfg = defaults()
    p = build_sound(cfg)
    assert (p.folder, p.volume, p.enabled, p.turns.seconds) == (SOUNDS, 0.7, True, 0)
    cfg.values["sound"].update(folder=str(tmp_path), volume=0.25, enabled=False)
    cfg.values["game"]["turn_timer"] = 45
    p = build_sound(cfg)
    assert (p.folder, p.volume, p.enabled, p.turns.seconds) == (tmp_path, 0.25, False, 45)
    cfg.values["sound"]["folder"] = "~/cues"
    assert build_sound(cfg).folder == Path.home() / "cues"


def test_volume_and_turn_timer_change_at_runtime(players):
    p = players(volume=0.7, turn_timer=60)
    loop = loop_with(p)
    updates(ev.TouchAction(SETUP3), loop=loop)
    assert p.tick(0.0) == 45.0
    p.set_volume(0.2)
    p.clock.now = 10.0
    p.set_turn_timer(20)                        # the running turn gets a fresh 20 s timer
    assert p.tick(10.0) == 25.0
    assert p.sounds["tap"].get_volume() == pytest.approx(0.2, abs=0.01)
    p.set_turn_timer(0)                         # off: the pending cues are dropped
    assert p.tick(11.0) is None
    with pytest.raises(ValueError, match="between 0 and 1"):
        p.set_volume(1.5)


def test_no_sound_card_yet_is_only_for_alsa_on_linux(tmp_path, monkeypatch):
    from companion.outputs.sound.player import no_sound_card_yet
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.delenv("SDL_AUDIODRIVER", raising=False)
    assert no_sound_card_yet(tmp_path)                       # no card at all
    assert no_sound_card_yet(tmp_path / "no_snd_folder")
    (tmp_path / "pcmC0D0c").touch()                          # a capture device only
    (tmp_path / "controlC0").touch()
    assert no_sound_card_yet(tmp_path)
    (tmp_path / "pcmC0D0p").touch()                          # a playback device
    assert not no_sound_card_yet(tmp_path)
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")           # not ALSA: not our business
    assert not no_sound_card_yet(tmp_path / "no_snd_folder")
    monkeypatch.setenv("SDL_AUDIODRIVER", "alsa")
    assert no_sound_card_yet(tmp_path / "no_snd_folder")
    monkeypatch.setattr("sys.platform", "darwin")
    assert not no_sound_card_yet(tmp_path / "no_snd_folder")


def test_alsa_is_not_opened_before_the_sound_card_exists(players, caplog, monkeypatch,
                                                          tmp_path):
    """alsa-lib reads the per-card part of its configuration once per process: opened
    before the card's driver is up, it never finds the card (a booted Trixie guest). So
    the player waits for a playback device before it opens the mixer at all."""
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("SDL_AUDIODRIVER", "alsa")
    opened = []

    def init(*a, **kw):
        opened.append(os.environ["SDL_AUDIODRIVER"])
        raise pygame.error("the test's mixer does not open")
    monkeypatch.setattr(pygame.mixer, "init", init)
    p = players(sound_devices=tmp_path)
    with caplog.at_level(logging.WARNING):
        assert p.tick(0.0) == RETRY_FIRST and p.state == "silent"
        assert p.tick(RETRY_FIRST) == 3 * RETRY_FIRST
        assert opened == []                                   # ALSA never touched
        (tmp_path / "pcmC0D0p").touch()                       # the card's driver is up
        p.tick(3 * RETRY_FIRST)
    assert opened == ["alsa"]
    [warning] = _warnings(caplog)
    assert f"no sound card in {tmp_path} yet" in warning.getMessage()
