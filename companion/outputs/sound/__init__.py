"""The table's sound: which cues each moment calls for, and the thread that plays them
(the same shape as ``companion.outputs.lights``).

* ``cues`` -- a pure function from one table-loop update to the cue ids it calls
  for, in order.
* ``player`` -- the table-loop subscriber whose own thread owns ``pygame.mixer``:
  it loads the WAVs (``sounds/`` unless ``[sound] folder`` says
  otherwise), plays each update's cues at their times, the turn timer's cues,
  and the voice's sentences.

May import: core, words, appliance.config; never another output.
"""
from .cues import CUE_IDS, cues_for
from .player import CUE_GAP, SURGE_SPACING, SoundPlayer, build_sound, default_folder

__all__ = ["CUE_GAP", "CUE_IDS", "SURGE_SPACING", "SoundPlayer", "build_sound", "cues_for",
           "default_folder"]
