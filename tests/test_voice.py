"""Spoken announcements: the sentences for each moment in five languages, rendered
for real by espeak-ng into WAV (installed by .ci/run), played through the sound
thread on pygame's dummy audio driver, and silence with one warning without an engine.
"""
from __future__ import annotations

from dataclasses import replace
import io
import logging
import shutil
import wave

import pytest

from companion.core import events as ev
from companion.appliance.config import LANGUAGES, defaults
from companion.core.rules.happenings import (CardsToDraw, DislikesTaken, GameOver, RankEntry,
                                             ShopClosed, TurnChanged)
from companion.core.rules.state import Table
from companion.core.session import Session
from companion.outputs.sound import SoundPlayer
from companion.core.loop import TableLoop, Update
from companion.outputs.voice import VOICES, Voice, build_voice, phrases_for, render
from companion.core.rules import apply
from tests.rules_helpers import setup
from timing import scaled


def game_of(players):
    return apply(Table(), setup(players=players, start=players[0])).table.game

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed (.ci/run installs it)")


def moments():
    """One update per moment worth saying, on a 4-player game closed by Dae."""
    game = replace(game_of(["Ana", "Ben", "Chloe", "Dae"]), token="closed")
    table = Table(game)
    rank = (RankEntry("Ana", 9, 5, 1, 1), RankEntry("Ben", 4, 3, 0, 2))
    return {
        "turn": Update(None, table, {"do": "end_turn"}, (TurnChanged("Ben", "Ana", 2),)),
        "surge": Update(None, table, {"do": "end_turn"},
                        (CardsToDraw((("Chloe", 2), ("Dae", 1)), "order_surge"),)),
        "dislike": Update(None, table, {"do": "end_turn"}, (DislikesTaken("Ben", 2, 3),)),
        "closed": Update(None, table, {"do": "end_turn"}, (ShopClosed("five_dislikes", "Ben"),)),
        "winner": Update(None, table, {"do": "end_turn"}, (GameOver(rank, ("Ana",)),)),
    }


def test_the_english_sentences_are_short_and_name_the_players():
    said = {k: phrases_for(u, "en") for k, u in moments().items()}
    assert said == {
        "turn": ["Ben"],
        "surge": ["Chloe draws two, Dae draws one"],
        "dislike": ["Ben: two dislikes"],
        "closed": ["Shop closed. Dae plays last."],      # the seat before the starter
        "winner": ["Ana wins!"],
    }


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_has_its_own_sentence_for_every_moment(lang):
    for kind, update in moments().items():
        said = phrases_for(update, lang)
        assert len(said) == 1 and "{" not in said[0], (lang, kind, said)
        names = [n for n in ("Ana", "Ben", "Chloe", "Dae") if n in said[0]]
        assert names, (lang, kind, said)
        if lang != "en" and kind != "turn":
            assert said != phrases_for(update, "en"), (lang, kind)


def test_a_refused_input_says_nothing():
    u = Update(ev.SeatTap(1), Table(game_of(["Ana", "Ben"])), rejection=object())
    assert phrases_for(u, "en") == []


@needs_espeak
@pytest.mark.parametrize("lang", LANGUAGES)
def test_espeak_ng_renders_each_language_to_a_wav(lang):
    text = phrases_for(moments()["surge"], lang)[0]
    with wave.open(io.BytesIO(render(text, lang))) as wav:
        seconds = wav.getnframes() / wav.getframerate()
        assert wav.getsampwidth() == 2 and 0.8 < seconds < 8, (lang, seconds)
    assert VOICES[lang]


def test_without_an_engine_the_voice_is_silent_with_one_warning(caplog):
    played = []
    voice = Voice(played.append, engine="no-such-speech-engine")
    with caplog.at_level(logging.WARNING, logger="companion.outputs.voice"):
        voice.start()
        for u in moments().values():
            voice(u)
        assert voice.wait_spoken(1, timeout=scaled(5))
        voice.stop()
        for u in moments().values():
            voice(u)                          # later moments: still nothing, no new warning
    assert voice.state == "silent" and played == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "apt install espeak-ng" in warnings[0].getMessage()


def test_off_in_the_config_or_without_sound_there_is_no_voice():
    cfg = defaults()
    assert build_voice(cfg, None) is None
    cfg.values["voice"]["enabled"] = False
    assert build_voice(cfg, SoundPlayer(enabled=True)) is None


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


@needs_espeak
def test_sentences_are_rendered_off_the_loop_and_played_by_the_sound_thread():
    cfg = defaults()
    cfg.values["voice"]["volume"] = 0.5
    sound = SoundPlayer(clock=Clock())
    voice = build_voice(cfg, sound, language="ko")
    loop = TableLoop(Session())
    sound.attach(loop)
    voice.attach(loop)
    voice.start()
    try:
        import pygame
        sound.tick(0.0)                      # the mixer open; another test of this worker
        speech = pygame.mixer.Channel(0)     # may have left a sentence queued on its speech
        speech.stop()                        # channel (the mixer is the process's): the
        speech.stop()                        # first stop starts the queued one, the second ends it
        loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                                  "players": ["Ana", "Ben"]}))
        loop.post(ev.TouchAction({"do": "end_turn"}))
        loop.drain()                         # the loop has moved on; rendering happens later
        assert voice.wait_spoken(2)
        assert voice.spoken == ["Ana 님, 카드 한 장", "Ben"]     # the 2-player draw, the turn
        sound.tick(1.0)
        assert (1.0, "speech") in sound.played and sound.speech_volume == 0.5
    finally:
        voice.stop()
        sound.close()


@needs_espeak
def test_a_newer_turn_drops_what_was_not_yet_said():
    said = []
    voice = Voice(said.append)                # not started: everything waits in the queue
    table = Table(game_of(["Ana", "Ben"]))
    voice(Update(None, table, {}, (DislikesTaken("Ana", 1, 1),)))
    voice(Update(None, table, {}, (TurnChanged("Ben", "Ana", 2),)))
    voice(Update(None, table, {}, (TurnChanged("Ana", "Ben", 3),)))
    voice.start()
    assert voice.wait_spoken(1)
    voice.stop()
    assert voice.spoken == ["Ana"]


def test_the_service_speaks_in_the_screens_language_and_settings_turn_it_off(tmp_path):
    from companion.appliance.service import Service
    from companion.outputs.screen.settings_store import Settings
    cfg = defaults()
    cfg.values["journal"]["path"] = str(tmp_path / "journal.db")
    cfg.values["catalog"]["paths"] = []
    cfg.values["seats"]["driver"] = "none"
    cfg.values["pixels"]["driver"] = "none"
    svc = Service(cfg, headless=True)
    svc.start_outputs()
    try:
        assert svc.voice is not None and svc.voice in svc.outputs
        svc.apply_settings(Settings(language="ko", voice=False))
        assert svc.voice.language == "en"         # an input: nothing changes until the loop
        svc.loop.drain()                          # applies it (here, on this thread)
        assert (svc.voice.language, svc.voice.enabled) == ("ko", False)
        assert svc.log_words.language == "ko"
        svc.voice(moments()["turn"])              # off: nothing is queued
        assert svc.voice._queue == []
    finally:
        svc.shutdown()
