"""Synthesize the companion's sound cues as small WAV files.

Every cue is built from sine partials with smooth attack/decay envelopes using
only the standard library (``math``, ``struct``, ``wave``). Nothing random and
no timestamps go in, so running the script twice gives byte-identical files.

Usage::

    python tools/make_sounds.py [OUTDIR]     # default: sounds/

Importing this module has no side effects; code and tests use ``CUES`` (cue id
-> one-line description), ``synthesize(cue)`` and ``write_all(outdir)``.
"""
from __future__ import annotations

import math
import struct
import sys
import wave
from pathlib import Path
from collections.abc import Callable, Sequence

SAMPLE_RATE = 22050          # Hz, mono
SAMPLE_WIDTH = 2             # bytes: signed 16-bit PCM
FULL_SCALE = 32767

#: Cue id (= file stem) -> what the table plays it for.
CUES: dict[str, str] = {
    "tap": "a seat button tap was accepted",
    "order_completed": "an order was completed and its card paid out",
    "specialty": "a player gained a specialty token",
    "surge_tick": "one tick per card to draw during a rush surge",
    "turn_change": "the turn passed to the next seat",
    "dislike": "a customer disliked the drink (dislike token)",
    "shop_closed": "the café bell: a shop closed",
    "final_turn": "the final round has begun",
    "game_over": "the game is over, scores are being tallied",
    "winner": "fanfare for the winning seat",
    "rejected": "input rejected, e.g. not that seat's turn",
    "card_scanned": "the scanner read a known card",
    "scanner_lost": "the card scanner was disconnected",
    "timer_warning": "the turn timer entered its last quarter",
    "timer_end": "the turn timer ran out",
    "cake_card": "a player gained a cake card (Cake Time)",
}

# A partial is (frequency ratio to the note's pitch, amplitude, decay scale).
# The decay scale shortens the ring of upper partials, as on a real bell.
Partial = tuple[float, float, float]
Voice = Sequence[Partial]

SINE: Voice = ((1.0, 1.0, 1.0),)
SOFT: Voice = ((1.0, 1.0, 1.0), (2.0, 0.22, 0.7), (3.0, 0.07, 0.5))
BRIGHT: Voice = ((1.0, 1.0, 1.0), (2.0, 0.35, 0.8), (3.0, 0.15, 0.6), (4.0, 0.06, 0.5))
MELLOW: Voice = ((1.0, 1.0, 1.0), (3.0, 0.09, 0.8), (5.0, 0.03, 0.6))
BELL: Voice = ((1.0, 1.0, 1.0), (2.0, 0.45, 0.75), (2.76, 0.32, 0.55),
               (5.40, 0.14, 0.35), (8.93, 0.05, 0.25))
# Odd harmonics only, rolled off faster than a square wave: a soft, low buzz.
BUZZ: Voice = ((1.0, 1.0, 1.0), (3.0, 0.40, 1.0), (5.0, 0.22, 1.0),
               (7.0, 0.12, 1.0), (9.0, 0.06, 1.0))

_NOTE_OFFSETS = {"C": -9, "D": -7, "E": -5, "F": -4, "G": -2, "A": 0, "B": 2}


def pitch(name: str) -> float:
    """Frequency in Hz of a note name like ``"A4"``, ``"C#6"`` or ``"Bb3"``."""
    letter, rest = name[0].upper(), name[1:]
    semis = _NOTE_OFFSETS[letter]
    while rest and rest[0] in "#b":
        semis += 1 if rest[0] == "#" else -1
        rest = rest[1:]
    octave = int(rest)
    return 440.0 * 2.0 ** ((semis + 12 * (octave - 4)) / 12.0)


def _ramp(x: float) -> float:
    """Raised-cosine ramp from 0 (x<=0) to 1 (x>=1): a click-free fade shape."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    return 0.5 - 0.5 * math.cos(math.pi * x)


def tone(freq: float, seconds: float, voice: Voice = SOFT, *, attack: float = 0.006,
         decay: float = 0.0, release: float = 0.03, glide_to: float = 0.0,
         vibrato: tuple[float, float] = (0.0, 0.0)) -> list[float]:
    """One note, amplitude about 1, starting and ending at exactly zero.

    ``decay`` is the exponential time constant in seconds (0 = sustain);
    ``glide_to`` slides the pitch exponentially to that frequency;
    ``vibrato`` is (rate Hz, depth in semitones).
    """
    n = max(1, int(round(seconds * SAMPLE_RATE)))
    out = [0.0] * n
    rate, depth = vibrato
    ratio_end = (glide_to / freq) if glide_to else 1.0
    nyquist_guard = SAMPLE_RATE * 0.45
    phase = 0.0
    for i in range(n):
        t = i / SAMPLE_RATE
        frac = i / n
        f = freq * ratio_end ** frac
        if depth:
            f *= 2.0 ** (depth * math.sin(2.0 * math.pi * rate * t) / 12.0)
        env = _ramp(t / attack) * _ramp((seconds - t) / release)
        sample = 0.0
        for ratio, amp, decay_scale in voice:
            if f * ratio >= nyquist_guard:
                continue
            partial_env = math.exp(-t / (decay * decay_scale)) if decay else 1.0
            sample += amp * partial_env * math.sin(ratio * phase)
        out[i] = env * sample
        phase += 2.0 * math.pi * f / SAMPLE_RATE
    return out


class Score:
    """A mono mix buffer: place notes at times, then render to 16-bit PCM.

    The buffer grows to fit the last note, so a cue lasts until its last note
    has faded out.
    """

    def __init__(self) -> None:
        self.samples: list[float] = []

    def add(self, at: float, note: Sequence[float], gain: float = 1.0) -> Score:
        start = int(round(at * SAMPLE_RATE))
        missing = start + len(note) - len(self.samples)
        if missing > 0:
            self.samples.extend([0.0] * missing)
        for i, value in enumerate(note):
            self.samples[start + i] += gain * value
        return self

    def render(self, peak_dbfs: float) -> bytes:
        """Normalize to ``peak_dbfs``, fade the very edges, pack as int16 LE."""
        if peak_dbfs > -1.0:
            raise ValueError("cue peaks must stay at or below -1 dBFS")
        samples = self.samples
        n = len(samples)
        fade_in, fade_out = int(0.003 * SAMPLE_RATE), int(0.010 * SAMPLE_RATE)
        shaped = [samples[i] * _ramp(i / fade_in) * _ramp((n - 1 - i) / fade_out)
                  for i in range(n)]
        peak = max(abs(v) for v in shaped) or 1.0
        scale = FULL_SCALE * 10.0 ** (peak_dbfs / 20.0) / peak
        ints = [max(-FULL_SCALE, min(FULL_SCALE, int(round(v * scale)))) for v in shaped]
        return struct.pack(f"<{n}h", *ints)


# --- the cues ---------------------------------------------------------------

def _tap() -> Score:
    # A single short, bright blip.
    return Score().add(0.0, tone(pitch("E6"), 0.08, BRIGHT, attack=0.003,
                                     decay=0.03, release=0.02))


def _surge_tick() -> Score:
    # A woody "tock": low-mid pitch that drops quickly; quiet, made to repeat.
    return Score().add(0.0, tone(pitch("D5"), 0.09, SOFT, attack=0.002,
                                     decay=0.025, release=0.03, glide_to=pitch("A4")))


def _order_completed() -> Score:
    # "Ka-ching": a quick G5 pickup into a ringing C6 with a sparkle on top.
    s = Score()
    s.add(0.0, tone(pitch("G5"), 0.12, BRIGHT, decay=0.08))
    s.add(0.09, tone(pitch("C6"), 0.36, BRIGHT, decay=0.14, release=0.08))
    s.add(0.09, tone(pitch("G6"), 0.30, SINE, decay=0.08, release=0.08), gain=0.25)
    return s


def _specialty() -> Score:
    # A high, glittering bell run going up an E major arpeggio.
    s = Score()
    for k, name in enumerate(("E6", "G#6", "B6", "E7")):
        start = 0.06 * k
        s.add(start, tone(pitch(name), 0.6 - start, BELL, attack=0.003,
                          decay=0.12, release=0.1), gain=0.7)
    return s


def _turn_change() -> Score:
    # A soft falling "ding-dong" (major third).
    s = Score()
    s.add(0.0, tone(pitch("E5"), 0.32, SOFT, decay=0.2, release=0.08))
    s.add(0.2, tone(pitch("C5"), 0.4, SOFT, decay=0.22, release=0.1))
    return s


def _dislike() -> Score:
    # A dark falling minor third, the second note sagging a little.
    s = Score()
    s.add(0.0, tone(pitch("A4"), 0.22, MELLOW, attack=0.015, decay=0.3, release=0.06))
    s.add(0.2, tone(pitch("F#4"), 0.3, MELLOW, attack=0.015, decay=0.3, release=0.1,
                    glide_to=pitch("F4")))
    return s


def _shop_closed() -> Score:
    # The café door bell: two strikes of a small bell, then its ring.
    s = Score()
    s.add(0.0, tone(pitch("A6"), 0.7, BELL, attack=0.002, decay=0.18, release=0.15))
    s.add(0.13, tone(pitch("A6"), 0.57, BELL, attack=0.002, decay=0.16, release=0.15),
          gain=0.8)
    return s


def _final_turn() -> Score:
    # "Da-da-da-DAA": three repeated D5s and a held A5.
    s = Score()
    for k in range(3):
        s.add(0.12 * k, tone(pitch("D5"), 0.09, SOFT, decay=0.08, release=0.03))
    s.add(0.36, tone(pitch("A5"), 0.34, SOFT, decay=0.25, release=0.1,
                     vibrato=(6.0, 0.08)))
    return s


def _game_over() -> Score:
    # A descending C major arpeggio resolving to a low ringing C chord.
    s = Score()
    for k, name in enumerate(("C6", "G5", "E5", "C5")):
        s.add(0.15 * k, tone(pitch(name), 0.3, SOFT, decay=0.18, release=0.08))
    for name, gain in (("C4", 0.7), ("G4", 0.5), ("C5", 0.4)):
        s.add(0.6, tone(pitch(name), 1.0, SOFT, attack=0.01, decay=0.45, release=0.3),
              gain=gain)
    return s


def _winner() -> Score:
    # A rising major arpeggio fanfare into a bright held C major chord.
    s = Score()
    for k, name in enumerate(("C5", "E5", "G5")):
        s.add(0.13 * k, tone(pitch(name), 0.16, BRIGHT, decay=0.12, release=0.04))
    s.add(0.39, tone(pitch("C6"), 0.16, BRIGHT, decay=0.12, release=0.04))
    for name, gain in (("C6", 0.7), ("E6", 0.45), ("G6", 0.35)):
        s.add(0.52, tone(pitch(name), 1.18, BRIGHT, attack=0.01, decay=0.6,
                         release=0.35, vibrato=(5.5, 0.1)), gain=gain)
    return s


def _rejected() -> Score:
    # A low, soft double buzz.
    s = Score()
    s.add(0.0, tone(150.0, 0.11, BUZZ, attack=0.008, release=0.025))
    s.add(0.17, tone(150.0, 0.11, BUZZ, attack=0.008, release=0.025))
    return s


def _card_scanned() -> Score:
    # A quick rising "bip-BIP" (a fifth up), like a friendly scanner.
    s = Score()
    s.add(0.0, tone(pitch("C6"), 0.06, SINE, attack=0.003, release=0.02))
    s.add(0.09, tone(pitch("G6"), 0.11, SINE, attack=0.003, decay=0.06, release=0.03))
    return s


def _scanner_lost() -> Score:
    # A "power down" slide: one octave down with a little wobble.
    return Score().add(0.0, tone(pitch("A5"), 0.5, SINE, attack=0.01, release=0.1,
                                    glide_to=pitch("A4"), vibrato=(9.0, 0.15)))


def _timer_warning() -> Score:
    # Three short, high, identical pips.
    s = Score()
    for k in range(3):
        s.add(0.12 * k, tone(pitch("F#6"), 0.06, SINE, attack=0.004, release=0.025))
    return s


def _timer_end() -> Score:
    # A gentle alarm: alternating E6/C6 four times, the last one ringing.
    s = Score()
    for k, name in enumerate(("E6", "C6", "E6")):
        s.add(0.13 * k, tone(pitch(name), 0.12, SOFT, decay=0.1, release=0.03))
    s.add(0.39, tone(pitch("C6"), 0.3, SOFT, decay=0.15, release=0.1))
    return s


def _cake_card() -> Score:
    # A sweet "ta-da": a soft pickup into a bell-like major sixth, like a plate set down.
    s = Score()
    s.add(0.0, tone(pitch("G5"), 0.10, SOFT, decay=0.08, release=0.03), gain=0.6)
    s.add(0.09, tone(pitch("E6"), 0.45, BELL, attack=0.003, decay=0.14, release=0.12))
    s.add(0.09, tone(pitch("C6"), 0.45, SOFT, attack=0.003, decay=0.18, release=0.12),
          gain=0.35)
    return s


# cue id -> (builder, peak level in dBFS). Frequent cues sit a little lower.
_BUILDERS: dict[str, tuple[Callable[[], Score], float]] = {
    "tap": (_tap, -6.0),
    "order_completed": (_order_completed, -3.0),
    "specialty": (_specialty, -3.0),
    "surge_tick": (_surge_tick, -6.0),
    "turn_change": (_turn_change, -3.0),
    "dislike": (_dislike, -3.0),
    "shop_closed": (_shop_closed, -3.0),
    "final_turn": (_final_turn, -3.0),
    "game_over": (_game_over, -2.0),
    "winner": (_winner, -2.0),
    "rejected": (_rejected, -4.0),
    "card_scanned": (_card_scanned, -6.0),
    "scanner_lost": (_scanner_lost, -3.0),
    "timer_warning": (_timer_warning, -5.0),
    "timer_end": (_timer_end, -3.0),
    "cake_card": (_cake_card, -4.0),
}
assert set(_BUILDERS) == set(CUES), "every cue needs a builder and a description"


def synthesize(cue: str) -> bytes:
    """The cue's PCM frames: 16-bit signed little-endian mono at SAMPLE_RATE."""
    if cue not in _BUILDERS:
        raise KeyError(f"unknown sound cue {cue!r} (known: {', '.join(CUES)})")
    build, peak_dbfs = _BUILDERS[cue]
    return build().render(peak_dbfs)


def write_cue(cue: str, outdir: Path) -> Path:
    """Write ``<outdir>/<cue>.wav`` and return its path."""
    path = Path(outdir) / (cue + ".wav")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(SAMPLE_WIDTH)
        out.setframerate(SAMPLE_RATE)
        out.writeframes(synthesize(cue))
    return path


def write_all(outdir: Path) -> list[Path]:
    """Write every cue in ``CUES`` into ``outdir`` (created if missing)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return [write_cue(cue, outdir) for cue in CUES]


def main(argv: Sequence[str]) -> int:
    if len(argv) > 1:
        print("usage: python tools/make_sounds.py [OUTDIR]", file=sys.stderr)
        return 2
    outdir = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "sounds"
    for path in write_all(outdir):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
