"""The optional turn timer: a pace aid shared by the lights and the sound cues.

``[game] turn_timer`` gives the seconds per turn (0 = off). When a turn
begins, the timer starts; in its last quarter the active seat's lights turn
amber and the ``timer_warning`` cue plays; when it runs out the lights turn
red and ``timer_end`` plays. That is all: the timer never posts an action and
never changes the game. The players decide what an overrun means.

Nothing here reads a clock: callers pass ``now``. Each output (lights, sound)
keeps its own ``TurnClock`` and feeds it the games it sees, so both start the
timer on the same update.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: The timer warns when this fraction of the turn is left.
WARNING_FRACTION = 0.25
#: Tolerance for float time arithmetic: a step due at t counts as reached at t.
EPSILON = 1e-9


@dataclass(frozen=True)
class TurnTimer:
    """One running turn: started at ``started`` (clock seconds), lasts ``seconds``."""
    started: float
    seconds: float

    @property
    def warning_at(self) -> float:
        return self.started + self.seconds * (1.0 - WARNING_FRACTION)

    @property
    def ends_at(self) -> float:
        return self.started + self.seconds

    def phase(self, now: float) -> str:
        """"running", "warning" (last quarter) or "ended"."""
        if now + EPSILON >= self.ends_at:
            return "ended"
        if now + EPSILON >= self.warning_at:
            return "warning"
        return "running"

    def lit(self, now: float, pixels: int) -> int:
        """How many of ``pixels`` LEDs still show the time left (``pixels`` at the
        start, one fewer after each 1/``pixels`` of the turn, 0 at the end)."""
        gone = math.floor((now - self.started) * pixels / self.seconds + EPSILON)
        return max(0, min(pixels, pixels - gone))

    def next_step(self, now: float, pixels: int) -> float | None:
        """When the bar or the phase next changes after ``now``; None once ended."""
        if self.phase(now) == "ended":
            return None
        gone = math.floor((now - self.started) * pixels / self.seconds + EPSILON)
        candidates = [self.started + (gone + 1) * self.seconds / pixels, self.ends_at]
        if now + EPSILON < self.warning_at:
            candidates.append(self.warning_at)
        return min(t for t in candidates if t > now)


def turn_key(game) -> tuple | None:
    """What identifies "this turn": None when no turn is being played."""
    if game is None or game.game_over or game.active is None:
        return None
    return (game.turn, game.active)


class TurnClock:
    """Starts a ``TurnTimer`` whenever a new turn is seen (or clears it).

    A new turn is a change of (turn number, active seat): an ended turn, a new
    game, or an undone end of turn (which gives that player a fresh timer).
    """

    def __init__(self, seconds: float = 0):
        self.seconds = float(seconds or 0)
        self.timer: TurnTimer | None = None
        self._key: tuple | None = None

    @property
    def enabled(self) -> bool:
        return self.seconds > 0

    def observe(self, game, now: float) -> bool:
        """Feed the game after an update; True when the timer (re)started or stopped."""
        key = turn_key(game) if self.enabled else None
        if key == self._key:
            return False
        self._key = key
        self.timer = None if key is None else TurnTimer(now, self.seconds)
        return True
