"""The player of the sound cues: the thread that owns ``pygame.mixer``.

What each update calls for is ``cues.cues_for`` (pure, tested without audio).

``SoundPlayer`` is the table-loop subscriber. Called on the loop thread, it
only queues the update and wakes its own thread. That thread is the only one
that touches ``pygame.mixer``: it opens the mixer, loads the WAVs, works out
the cues and plays them at their times: one update's cues follow one another
(surge ticks ``SURGE_SPACING`` apart, other cues after the previous one has
sounded), and the turn timer's cues wait for their moment. ``Sound.play``
returns at once (SDL mixes in its own audio thread), so nothing here blocks.

Keeping the mixer on one thread: the screen initialises pygame's display
and fonts itself and must not call ``pygame.init()`` / ``pygame.quit()``
(which also open and close the mixer) or any ``pygame.mixer`` function; it
can leave sound entirely to this module.

No audio device, no cue folder, a missing file: one warning in the log and
the table carries on (silent, or without that cue). ``[sound] enabled =
false`` never touches pygame at all.

The settings screen can call ``set_volume``, ``set_turn_timer`` or set
``muted``; they take effect on the sound thread.

Speech (``companion.outputs.voice``) arrives as WAV bytes through ``play_speech``; the
sound thread plays the sentences one after another on a channel of their own
(``speech_volume``), after the cues already due, so a cue never cuts a sentence.

For tests, ``tick(now)`` does the thread's work at ``now`` on the calling
thread and returns when it wants to run again (None = only after an update).
"""
from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import os
import threading
import time
from typing import Any
from contextlib import AbstractContextManager
from collections import deque
from pathlib import Path
from collections.abc import Callable

import importlib.resources

from companion.appliance.config import SoundSettings, VoiceSettings

from companion.core.snapshot import Snapshot
from companion.core.loop import Update
from companion.core.turn_timer import TurnClock
from companion.core.worker import Worker
from .cues import CUE_IDS, cues_for

log = logging.getLogger("companion.outputs.sound")   # the name the log has always used

SURGE_SPACING = 0.15    # seconds between two surge ticks
CUE_GAP = 0.05          # silence after a cue before the next cue of the same update
TIMER_TAG = "timer"


#: seconds before trying a missing audio output again, doubling up to the longest
RETRY_FIRST = 5.0
RETRY_LONGEST = 60.0

#: where Linux shows its sound cards' playback devices (``pcmC<card>D<device>p``)
SOUND_DEVICES = Path("/dev/snd")


def no_sound_card_yet(devices: Path = SOUND_DEVICES) -> bool:
    """True when SDL would go to ALSA (Linux, ``SDL_AUDIODRIVER`` unset or ``alsa``) and no
    playback device exists yet: a card that its driver brings up after the service starts.

    The mixer is not even tried then: alsa-lib reads its configuration once per process,
    with the part for each card present at that moment
    (``/usr/share/alsa/cards/<driver>.conf``), and waiting for the device node keeps that
    first read for when the card exists. (The booted Trixie guest's "No such file or
    directory" was another cause: the unit's device access, looked up when the service
    starts, before the sound driver; install.sh loads ALSA's core early for that.)"""
    import sys
    if not sys.platform.startswith("linux"):
        return False
    if os.environ.get("SDL_AUDIODRIVER", "").lower() not in ("", "alsa"):
        return False
    try:
        return not any(devices.glob("pcmC*D*p"))
    except OSError:
        return True


def default_folder() -> Path:
    """The bundled cues: ``sounds/`` (package data, so in the wheel too)."""
    return Path(str(importlib.resources.files("companion.sounds")))


SPEECH_WAITING = 4
"""Sentences at most waiting to be said (a few seconds of speech; each is a whole decoded
sound in memory): when play runs ahead of the voice, the oldest are dropped."""


class SoundPlayer(Worker):
    """Plays the cues for each update; see the module docstring."""

    thread_name = "sound"
    name = "sound"                         # an ``outputs.Output``

    def __init__(self, folder: os.PathLike | None = None,
                 volume: float = SoundSettings().volume,
                 enabled: bool = True, turn_timer: float = 0,
                 clock: Callable[[], float] = time.monotonic,
                 quiet: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
                 sound_devices: Path = SOUND_DEVICES):
        #: where the sound cards' playback devices appear (``no_sound_card_yet``)
        self.sound_devices = sound_devices
        #: what opening the audio device is wrapped in: the service's keeps libasound's
        #: own chatter on file descriptor 2 out of the log (we say it once, in words)
        self.quiet = quiet
        self.folder = Path(folder) if folder else default_folder()
        self.volume = float(volume)
        self.enabled = enabled
        self.muted = False                 # the screen may toggle this at any time
        self.clock = clock
        self.turns = TurnClock(turn_timer)
        #: (clock time, cue) of every cue handed to the mixer, newest last.
        self.played: deque = deque(maxlen=1000)
        self.sounds: dict = {}             # cue id -> pygame.mixer.Sound
        self.state = "closed"              # closed -> playing | silent | off
        self.mixer_thread: str | None = None   # name of the thread that opened it
        self._own_mixer = False
        self._due: list = []               # heap of (time, order, cue, tag)
        self._game = None                  # the game as of the last update
        self._order = itertools.count()
        self._cond = threading.Condition()
        self._inbox: list = []
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._played_cond = threading.Condition()
        self.speech_volume = VoiceSettings().volume
        self._speech: deque = deque()      # pygame Sounds of sentences waiting to be said
        self._speech_channel: Any = None   # pygame.mixer.Channel once the mixer is open
        #: no audio output yet (a sound card that appears after the service starts, a USB
        #: speaker plugged in later): when to try opening it again, and the wait after that
        self._retry_at: float | None = None
        self._retry_wait = RETRY_FIRST

    # --- the output interface (``outputs.Output``) -------------------------------------

    def start(self, snapshot: Snapshot | None = None) -> SoundPlayer:
        """Follow the table as it is (``snapshot``: the turn timer of a resumed game),
        then start the thread."""
        if snapshot is not None and self.enabled:
            self._put(("table", snapshot.table))
        super().start()
        return self

    def on_update(self, update: Update) -> None:
        self(update)

    def status(self) -> str:
        """"off" (disabled), "closed" (not started), "playing", or "silent" (no audio)."""
        return "off" if not self.enabled else self.state

    # --- any thread ------------------------------------------------------------------

    def __call__(self, update: Update) -> None:
        """The table-loop subscriber: queue the update, wake the sound thread."""
        if self.enabled:
            self._put(("update", update))

    def play(self, cue: str) -> None:
        """Play one cue now (e.g. from the screen's sound test)."""
        if cue not in CUE_IDS:
            raise ValueError(f"unknown sound cue {cue!r}")
        if self.enabled:
            self._put(("cue", cue))

    def play_speech(self, wav: bytes) -> None:
        """Say a rendered sentence (WAV bytes) after what is already playing (any thread)."""
        if self.enabled:
            self._put(("speech", wav))

    def set_volume(self, volume: float) -> None:
        """Change the volume 0-1 (e.g. from the settings screen)."""
        volume = float(volume)
        if not 0.0 <= volume <= 1.0:
            raise ValueError(f"volume must be between 0 and 1, got {volume!r}")
        if self.enabled:
            self._put(("volume", volume))
        else:
            self.volume = volume

    def set_turn_timer(self, seconds: float) -> None:
        """Change the turn timer (0 = off); the current turn starts a fresh timer."""
        if self.enabled:
            self._put(("turn_timer", float(seconds)))
        else:
            self.turns = TurnClock(seconds)

    def attach(self, loop) -> SoundPlayer:
        """Subscribe to a ``TableLoop`` (and start the turn timer of a resumed game)."""
        if self.enabled:
            self._put(("table", loop.snapshot.table))
        loop.subscribe(self.on_update)
        return self

    def wait_played(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until at least ``count`` cues were played (tests, tools)."""
        with self._played_cond:
            return self._played_cond.wait_for(lambda: len(self.played) >= count, timeout)

    def _put(self, item) -> None:
        with self._cond:
            self._inbox.append((item, self.clock()))
            self._cond.notify()

    # --- the sound thread ------------------------------------------------------------

    def _wanted(self) -> bool:
        return self.enabled

    def close(self) -> None:
        """Stop the thread and close the mixer if this player opened it."""
        if self._thread is not None:
            self.stop()                    # the thread closes its own mixer
        else:
            self._shutdown()

    def _has_work(self) -> bool:
        return bool(self._inbox)

    def _failed(self, exc: Exception) -> None:
        log.exception("the sound cues failed")

    def _finish(self) -> None:
        self._shutdown()                   # the mixer closes on the thread that opened it

    def tick(self, now: float | None = None) -> float | None:
        """Take in what arrived, play every cue due by ``now``; return when the
        next cue is due (clock time), or None."""
        now = self.clock() if now is None else now
        if self.state == "closed" or (self._retry_at is not None and now >= self._retry_at):
            self._open(now)
        with self._cond:
            received, self._inbox = self._inbox, []
        for item, at in received:
            self._take(item, at)
        while self._due and self._due[0][0] <= now:
            _, _, cue, _ = heapq.heappop(self._due)
            self._sound(cue, now)
        wake = self._due[0][0] if self._due else None
        if self._speech:
            wake = self._say(now) if wake is None else min(wake, self._say(now))
        if self._retry_at is not None:
            wake = self._retry_at if wake is None else min(wake, self._retry_at)
        return wake

    def _say(self, now: float) -> float:
        """Queue waiting sentences on the speech channel; when to look again."""
        channel = self._speech_channel
        while self._speech and channel is not None and channel.get_queue() is None:
            sound = self._speech.popleft()
            try:
                if channel.get_busy():
                    channel.queue(sound)
                else:
                    channel.play(sound)
            except Exception as exc:  # pygame.error: the device went away
                log.warning("speech could not play (%s); the table carries on silently", exc)
                self.state = "silent"
                self._speech.clear()
                break
            with self._played_cond:
                self.played.append((now, "speech"))
                self._played_cond.notify_all()
        return now + 0.25

    def _take(self, item, at: float) -> None:
        what, value = item
        if what == "cue":
            self._schedule([value], at)
        elif what == "speech":
            self._queue_speech(value)
        elif what == "volume":
            self.volume = value
            for sound in self.sounds.values():
                sound.set_volume(value)
        else:
            self._follow_game(what, value, at)

    def _queue_speech(self, wav: bytes) -> None:
        """A spoken sentence waits for the speech channel (only while playing, unmuted)."""
        if self.state != "playing" or self.muted or self._speech_channel is None:
            return
        import io

        import pygame
        try:       # SDL_mixer converts espeak's 22050 Hz mono to the mixer's format
            sound = pygame.mixer.Sound(file=io.BytesIO(wav))
        except Exception as exc:  # a broken WAV: skip this sentence only
            log.warning("a spoken sentence could not be loaded: %s", exc)
            return
        sound.set_volume(self.speech_volume)
        if len(self._speech) >= SPEECH_WAITING:   # a table faster than the voice:
            self._speech.popleft()                # the stalest sentence goes
        self._speech.append(sound)

    def _follow_game(self, what: str, value, at: float) -> None:
        """A new table, update or turn timer: the turn clock's cues, then the update's."""
        if what == "turn_timer":
            self.turns = TurnClock(value)
            self._cancel_timer_cues()
            game = self._game
        else:
            game = value.game if what == "table" else value.table.game
        self._game = game
        if self.turns.observe(game, at):
            self._cancel_timer_cues()
            timer = self.turns.timer
            if timer is not None and self.state == "playing":
                self._push(timer.warning_at, "timer_warning", TIMER_TAG)
                self._push(timer.ends_at, "timer_end", TIMER_TAG)
        if what == "update":
            self._schedule(cues_for(value), at)

    def _cancel_timer_cues(self) -> None:
        self._due = [d for d in self._due if d[3] != TIMER_TAG]
        heapq.heapify(self._due)

    def _schedule(self, cues: list, at: float) -> None:
        """One update's cues, one after the other from ``at``."""
        if self.state != "playing" or self.muted:
            return
        t = at
        for cue in cues:
            if cue not in self.sounds:
                continue
            self._push(t, cue, None)
            if cue == "surge_tick":
                t += SURGE_SPACING
            else:
                t += self.sounds[cue].get_length() + CUE_GAP

    def _push(self, at: float, cue: str, tag) -> None:
        heapq.heappush(self._due, (at, next(self._order), cue, tag))

    def _sound(self, cue: str, now: float) -> None:
        if self.state != "playing" or self.muted or cue not in self.sounds:
            return
        try:
            self.sounds[cue].play()
        except Exception as exc:  # pygame.error: the device went away
            log.warning("sound cue %s could not play (%s); the table carries on silently",
                        cue, exc)
            self.state = "silent"
            return
        with self._played_cond:
            self.played.append((now, cue))
            self._played_cond.notify_all()

    # --- the mixer (only ever on the thread that runs tick) -----------------------------

    def _open(self, now: float = 0.0) -> None:
        if not self.enabled:
            self.state = "off"
            return
        retrying, self._retry_at = self._retry_at is not None, None
        self.state = "silent"
        self.mixer_thread = threading.current_thread().name
        if not self.folder.is_dir():
            log.warning("no sound cues: the folder %s does not exist; set [sound] folder to "
                        "the folder with the cue WAV files (the bundled sounds/ "
                        "folder) "
                        "or [sound] enabled = false. The table carries on silently.",
                        self.folder)
            return
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame
            if pygame.mixer.get_init() is None and no_sound_card_yet(self.sound_devices):
                raise LookupError(f"no sound card in {self.sound_devices} yet")
            if pygame.mixer.get_init() is None:
                # mono, as the cues and espeak's speech are: SDL_mixer keeps each sound
                # converted to the mixer's format (stereo doubled them: 0.84 MB of cues
                # alone); the sound card gets the same sound on both sides from SDL or ALSA
                with self.quiet():                # libasound's own chatter; we say it once
                    pygame.mixer.init(frequency=22050, size=-16, channels=1, buffer=512)
                self._own_mixer = True
        except Exception as exc:  # ImportError, pygame.error: no audio device / driver
            if not retrying:
                log.warning("no sound: the audio output cannot be opened (%s). Check the "
                            "speaker or HDMI audio and the SDL_AUDIODRIVER setting, or set "
                            "[sound] enabled = false. The table carries on silently and "
                            "tries again now and then.", exc)
            self._retry_at = now + self._retry_wait        # a sound card may come later
            self._retry_wait = min(self._retry_wait * 2, RETRY_LONGEST)
            return
        if retrying:
            log.warning("sound: the audio output opened now; the cues play again")
        self._retry_wait = RETRY_FIRST
        missing = []
        for cue in CUE_IDS:
            path = self.folder / (cue + ".wav")
            try:
                sound = pygame.mixer.Sound(str(path))
            except Exception:     # FileNotFoundError, pygame.error (not a WAV)
                missing.append(cue)
                continue
            sound.set_volume(self.volume)
            self.sounds[cue] = sound
        if missing:
            log.warning("sound cues missing or unreadable in %s: %s (regenerate them with "
                        "python tools/make_sounds.py); the other cues still play",
                        self.folder, ", ".join(missing))
        self.state = "playing" if self.sounds else "silent"
        if self.state == "playing":
            pygame.mixer.set_reserved(1)                 # channel 0: speech only
            self._speech_channel = pygame.mixer.Channel(0)

    def _shutdown(self) -> None:
        self._retry_at, self._retry_wait = None, RETRY_FIRST
        self.sounds.clear()
        self._speech.clear()
        self._speech_channel = None
        self._due.clear()
        if self._own_mixer:
            import pygame
            with contextlib.suppress(Exception):
                pygame.mixer.quit()
            self._own_mixer = False
        self.state = "closed" if self.enabled else "off"


def build_sound(cfg, clock: Callable[[], float] = time.monotonic,
                quiet: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext
                ) -> SoundPlayer:
    """A player for ``[sound]`` (enabled, volume, folder) and ``[game] turn_timer``;
    ``quiet``: see ``SoundPlayer.quiet``."""
    s = cfg["sound"]
    folder = os.path.expanduser(s["folder"]) if s["folder"] else None
    return SoundPlayer(folder, volume=s["volume"], enabled=s["enabled"],
                       turn_timer=cfg["game"]["turn_timer"], clock=clock,
                       quiet=quiet)
