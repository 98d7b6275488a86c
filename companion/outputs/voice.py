"""Spoken announcements: the table's moments said aloud, in the screen's language.

Players look at the board, not at the screen; a short sentence at the right
moment lets them keep doing so. What is said (``phrases_for``, pure):

===========================  =================================================
happening                    spoken (English; every language has its own)
===========================  =================================================
the turn passes              "Ben"
an order surge               "Chloe draws two, Dae draws one"
orders fall off position 4   "Ben: one dislike" / "Ben: two dislikes"
the shop closes              "Shop closed. Dae plays last."
the game ends                "Ana wins!" / "Ana and Ben win!"
a teaching hint comes up     the hint's words (``say``, from the touchscreen)
===========================  =================================================

How it is said: espeak-ng (Raspberry Pi OS and Debian: ``apt install
espeak-ng``), which speaks all five languages (en, es, pt-BR, it, ko). The
``Voice`` subscriber only queues the sentences on the table loop's thread;
its own thread renders each one to a WAV (``espeak-ng -w``, a subprocess with
a time limit) and hands the bytes to the sound thread
(``SoundPlayer.play_speech``), which plays them after the cues of the same
moment, one sentence after another. A sentence made stale by a newer turn is
dropped before it is rendered.

No espeak-ng, or a failing one: one warning in the log, then silence, never a
crash. No audio device: the sound thread is already silent (and said so).
``[voice] enabled = false`` starts nothing at all; ``[voice] volume`` sets the
loudness and the settings screen can turn the voice on and off.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping
from typing import Any, assert_never

from companion.appliance.config import VoiceSettings
from companion.core.rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardEnrolled, CardIdentified,
                                             CardsToDraw, Corrected, DeviceStatusChanged,
                                             DislikesTaken, DrawsDismissed, FinalTurnBegins,
                                             GameOver, GameStarted, Happening, NotYourTurn,
                                             OrderCompleted, OrdersMovedDown, RankingChanged,
                                             Redone, ShopClosed, ShopReopened, Stalled, TablePaused,
                                             TableResumed, TokensGained, TokensSpent, TurnChanged,
                                             UnknownCard, UpgradeActivated, Undone)
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly
from companion.core.rules.state import Game
from companion.core.seat_colours import game_names, shown_happening
from companion.core.snapshot import Snapshot
from companion.core.loop import Update
from companion.words import i18n
from companion.core.worker import Worker

log = logging.getLogger("companion.outputs.voice")

#: espeak-ng's voice for each language of the companion (the Portuguese rulebook and its
#: words are Brazilian).
VOICES = {"en": "en", "es": "es", "pt": "pt-br", "it": "it", "ko": "ko"}
#: words a minute: a little slower than espeak's 175, for a noisy table
SPEED = 150
RENDER_SECONDS = 10.0     # longest wait for one sentence


def phrases_for(update: Update, lang: str) -> list[str]:
    """The sentences one update calls for, in order (none for a refused input). The
    players are named as the screen shows them: a name "Play with seat colours" gave is
    said in ``lang`` (``seat_colours.shown_names``)."""
    if update.rejection is not None:
        return []
    game = update.table.game
    names = game_names(lang, tuple(p.name for p in game.players) if game is not None else (),
                       update.snapshot.seat_colours if update.snapshot is not None else ())
    return [text for h in update.happened
            if (text := phrase_of(shown_happening(h, names), lang, game, names)) is not None]


def _t(lang: str, key: str, **params: Any) -> str:
    return i18n.tr(lang, f"voice.{key}", **params)


def _n(lang: str, key: str, count: int, **params: Any) -> str:
    return i18n.tr_count(lang, f"voice.{key}", count, number=number_word(lang, count), **params)


# radon C-D: one case per happening, the exhaustive match (assert_never)
def phrase_of(h: Happening, lang: str, game: Game | None,
              names: Mapping[str, str] | None = None) -> str | None:
    """The sentence one happening calls for, or None (``names``: the players' names as
    said, recorded -> shown). One case per happening: the match is exhaustive, so a new
    happening fails mypy until the voice decides."""
    match h:
        case DislikesTaken():
            return _n(lang, "dislikes", h.count, player=h.player)
        case CardsToDraw():
            return i18n.tr(lang, "word.list_separator").join(
                _n(lang, "draws", count, player=player) for player, count in h.draws) or None
        case ShopClosed():
            last = game.players[game.last_seat].name if game is not None else ""
            return _t(lang, "shop_closed", player=(names or {}).get(last, last))
        case ShopReopened():
            return _t(lang, "shop_reopened")
        case TurnChanged():
            return None if game is not None and game.game_over else _t(lang, "turn",
                                                                        player=h.player)
        case GameOver():
            if len(h.winners) == 1:
                return _t(lang, "winner", player=h.winners[0])
            return _t(lang, "winners", players=i18n.names_list(lang, h.winners))
        case (GameStarted() | CardIdentified() | OrderCompleted() | TokensGained()
              | TokensSpent() | UpgradeActivated() | CakePlaced() | CakeCardGained()
              | CakeCardPlayed() | CakesReturned() | OrdersMovedDown() | FinalTurnBegins()
              | RankingChanged() | Corrected() | Stalled() | Undone() | Redone()
              | NotYourTurn() | UnknownCard() | CardEnrolled() | DeviceStatusChanged()
              | TablePaused() | TableResumed() | DrawsDismissed() | GameEndedEarly()
              | GameBroughtBack()):
            return None                 # the screen shows these; the voice keeps quiet
        case _:
            assert_never(h)


def number_word(lang: str, count: int) -> str:
    """Small counts as words ("two"): espeak says digits well, but a word reads the same
    in the log and the tests; larger counts stay digits."""
    key = f"voice.number_{count}"
    return i18n.tr(lang, key) if 1 <= count <= 4 else str(count)


def render(text: str, lang: str, engine: str = VoiceSettings().engine,
           timeout: float = RENDER_SECONDS) -> bytes:
    """``text`` spoken in ``lang`` as a WAV file's bytes. Raises OSError or
    subprocess.SubprocessError when the engine is missing or fails."""
    fd, path = tempfile.mkstemp(prefix="companion-voice-", suffix=".wav")
    os.close(fd)
    try:
        subprocess.run([engine, "-v", VOICES.get(lang, "en"), "-s", str(SPEED), "-w", path,
                        "--", text], check=True, timeout=timeout, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with open(path, "rb") as fh:
            return fh.read()
    finally:
        os.unlink(path)


SPOKEN_KEPT = 500
"""``Voice.spoken`` keeps at least this many of the latest sentences (and at most twice
as many): a service runs for days."""


class Voice(Worker):
    """The table-loop subscriber that speaks; see the module docstring.

    ``play(wav_bytes)`` receives each rendered sentence (normally
    ``SoundPlayer.play_speech``). ``language`` is read when an update arrives.
    """

    name = "voice"                      # an ``outputs.Output``
    thread_name = "voice"

    def __init__(self, play: Callable[[bytes], None], language: str = "en",
                 engine: str = VoiceSettings().engine, enabled: bool = True):
        self.play = play
        self.language = language
        self.engine = engine
        self.enabled = enabled          # the settings screen turns it on and off
        self.spoken: list[str] = []     # sentences handed to the sound thread (newest last)
        self.state = "idle"             # idle -> ready | silent
        self._cond = threading.Condition()
        self._queue: list[tuple[int, str, str]] = []     # (turn, lang, text)
        self._turn = 0
        self._stopping = False
        self._thread: threading.Thread | None = None

    # --- the table loop's thread: only queue ------------------------------------------

    def __call__(self, update: Update) -> None:
        if not self.enabled or self.state == "silent":
            return
        phrases = phrases_for(update, self.language)
        if not phrases:
            return
        with self._cond:
            if any(isinstance(h, TurnChanged) for h in update.happened):
                self._turn += 1
                # what was still waiting belongs to a turn that is over
                self._queue = [q for q in self._queue if q[0] == self._turn]
            self._queue += [(self._turn, self.language, p) for p in phrases]
            self._cond.notify()

    def say(self, text: str, lang: str | None = None) -> None:
        """Say ``text`` (a teaching hint) after what is already waiting, in ``lang`` (the
        voice's language by default); any thread may call. Like every sentence, it is
        dropped if a newer turn begins before it is rendered."""
        if not self.enabled or self.state == "silent" or not text:
            return
        with self._cond:
            self._queue.append((self._turn, lang or self.language, text))
            self._cond.notify()

    def attach(self, loop) -> Voice:
        loop.subscribe(self.on_update)
        return self

    # --- the output interface (``outputs.Output``) -------------------------------------

    def start(self, snapshot: Snapshot | None = None) -> Voice:
        """Start the voice's thread (it says what happens from now: nothing of the table
        as it is)."""
        super().start()
        return self

    def on_update(self, update: Update) -> None:
        self(update)

    def status(self) -> str:
        """"off" (switched off in the settings), or the engine's state."""
        return self.state if self.enabled else "off"

    # --- the voice's own thread ---------------------------------------------------------

    def close(self) -> None:
        self.stop()

    def wait_spoken(self, count: int, timeout: float = 10.0) -> bool:
        """Wait until ``count`` sentences were handed on (tests)."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self.spoken) >= count
                                       or self.state == "silent", timeout)

    def check_engine(self) -> bool:
        """Whether the speech engine is there; warns once and goes silent if not."""
        if self.state == "idle":
            if shutil.which(self.engine) is None:
                self._silence("%s was not found. Install it (Raspberry Pi OS / Debian: sudo apt "
                              "install espeak-ng) or set [voice] enabled = false.", self.engine)
            else:
                self.state = "ready"
        return self.state == "ready"

    def _silence(self, message: str, *args) -> None:
        log.warning("no voice: " + message + " The table carries on without it.", *args)
        with self._cond:
            self.state = "silent"
            self._queue.clear()
            self._cond.notify_all()

    def _begin(self) -> bool:
        return self.check_engine()

    def _has_work(self) -> bool:
        return bool(self._queue)

    def tick(self, now: float | None = None) -> float | None:
        """Render the next sentence waiting and hand it to the sound thread."""
        with self._cond:
            if not self._queue or self.state == "silent":
                return None
            _, lang, text = self._queue.pop(0)
        try:
            wav = render(text, lang, self.engine)
        except (OSError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            self._silence("%s failed (%s%s).", self.engine, exc,
                          ": " + detail.decode(errors="replace").strip() if detail else "")
            return None
        self.play(wav)
        with self._cond:
            self.spoken.append(text)
            if len(self.spoken) > 2 * SPOKEN_KEPT:    # a day of play: the latest only
                del self.spoken[:-SPOKEN_KEPT]
            self._cond.notify_all()
        return None


def build_voice(cfg, sound, language: str | None = None) -> Voice | None:
    """A voice for ``[voice]`` speaking through ``sound`` (a SoundPlayer), or None when
    the voice or the sound is off."""
    v = cfg["voice"]
    if not v["enabled"] or sound is None or not sound.enabled:
        return None
    sound.speech_volume = v["volume"]
    return Voice(sound.play_speech, language or cfg["game"]["language"], v["engine"])
