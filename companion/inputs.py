"""Typed input events: what the world tells the table loop.

Any thread (a gpiozero callback, the serial reader, the touchscreen, a script)
builds one of these and hands it to ``TableLoop.post``. The loop is the only
place where they turn into game actions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping


@dataclass(frozen=True)
class Press:
    """Where a seat press began: the moment, and the turn the table showed then.

    The buttons stamp this when the contact closes; the table loop decides with
    it (a press belongs to its seat and the moment it *began*). ``turn`` and
    ``active`` are the game's turn number and active seat at that moment (None
    without a game); ``overlapped`` is True when another seat's press was still
    in flight (down, its gesture not yet given) as this one began.
    """
    began: float
    turn: int | None = None
    active: int | None = None
    overlapped: bool = False


@dataclass(frozen=True)
class SeatTap:
    """A short press of a seat button: complete that seat's oldest order.
    ``count`` quick taps in a row step on: 2 = the order after the oldest, and so on."""
    seat: int          # 0-based seat index, clockwise, seat 0 = first player in setup
    at: float = 0.0    # monotonic time of the press, for latency measurements
    press: Press | None = None   # from the buttons; None from the screen or a script
    count: int = 1     # quick taps in a row (a double tap: 2)


@dataclass(frozen=True)
class SeatHold:
    """A long press of a seat button: end that seat's turn."""
    seat: int
    at: float = 0.0
    press: Press | None = None


@dataclass(frozen=True)
class UndoTap:
    """A short press of the shared UNDO button."""
    at: float = 0.0


@dataclass(frozen=True)
class UndoHold:
    """A long press of the shared UNDO button: redo."""
    at: float = 0.0


@dataclass(frozen=True)
class CardScanned:
    """A card's tag was read (NFC UID in hex, or a QR/barcode text)."""
    tag: str
    source: str = "scanner"
    at: float = 0.0


@dataclass(frozen=True)
class TouchAction:
    """A table-script action chosen on the touchscreen, e.g. {"do": "end_turn"}.
    A setup from the wizard also names each seat's colour (box colour names, seat order),
    which the journal records with the game's setup."""
    action: Mapping[str, Any]
    at: float = 0.0
    seat_colors: tuple[str, ...] = ()


@dataclass(frozen=True)
class WebAction(TouchAction):
    """A table-script action posted from a paired phone (the phone view's POST
    /api/action); ``client`` is its address, for the log."""
    client: str = ""


@dataclass(frozen=True)
class ScriptLine:
    """One raw table-script line (from a file, stdin or a test)."""
    text: str
    line_no: int = 0


@dataclass(frozen=True)
class DeviceStatus:
    """A device's health changed: scanner lost/back, buttons ready, ...

    ``device`` is e.g. "scanner" or "buttons"; ``status`` is e.g. "lost",
    "back", "connected", "unsupported_firmware". ``detail`` is a message an
    installer understands; ``params`` carries values for translation.
    """
    device: str
    status: str
    detail: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EnrollRequest:
    """Attach catalog data (drink, recipe, specialty) to a scanned tag."""
    tag: str
    drink: str
    recipe: tuple[str, ...]
    specialty: bool = False


@dataclass(frozen=True)
class DismissDraws:
    """The table saw the "X draws 2" prompt (or drew by hand): stop showing it.
    ``seat`` is 0-based, or None for every seat."""
    seat: int | None = None


@dataclass(frozen=True)
class Stop:
    """Ask the table loop to finish after the inputs already queued."""


InputEvent = (SeatTap | SeatHold | UndoTap | UndoHold | CardScanned | TouchAction | WebAction
              | ScriptLine | DeviceStatus | EnrollRequest | DismissDraws | Stop)
