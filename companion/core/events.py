"""Typed input events: what the world tells the table loop.

Any thread (a gpiozero callback, the serial reader, the touchscreen, a script)
builds one of these and hands it to ``TableLoop.post``. The loop is the only
place where they turn into game actions.

An input made against what its sender saw carries that table's version
(``TableVersion``: a seat press from the moment it began, a touch from the frame
the finger landed on, a phone from its ``If-Match``, a scan from the moment the
line was read); the loop refuses it if it has gone stale (``table.refusal``).
Script lines and inputs without a version are never stale.

Not only the devices post: a settings change (``SettingsChanged``), catalogs read
afresh (``CatalogLoaded``) and a worker's result (``PlayLinkFound``) come through the
same queue, so that only the loop's thread ever changes what the table holds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

if TYPE_CHECKING:
    from .catalog import Catalog


@dataclass(frozen=True)
class TableVersion:
    """Which table a sender saw: the game and how many actions it had, with the turn.

    ``game`` is the journal's number of the game (without a journal, a count of the
    games this table loop has started; 0 before any game), ``step`` the sequence
    number of its last accepted action (the setup is 0: every accepted action, undo,
    redo and correction moves it on, so two different tables never share a version,
    and a resumed game keeps its version across a restart). ``turn`` and ``active``
    are that table's turn number and active seat (None without a game, ``active``
    None once it is over): the loop judges with them whether an input made against
    this version would act on another turn.
    """
    game: int = 0
    step: int = 0
    turn: int | None = None
    active: int | None = None

    def same_table(self, other: TableVersion) -> bool:
        return (self.game, self.step) == (other.game, other.step)

    def same_turn(self, other: TableVersion) -> bool:
        return (self.game, self.turn, self.active) == (other.game, other.turn, other.active)

    @property
    def etag(self) -> str:
        """The HTTP entity tag naming this version (``GET /api/table``'s ``ETag``)."""
        def part(n: int | None) -> str:
            return "-" if n is None else str(n)
        return f'"{self.game}.{self.step}.{part(self.turn)}.{part(self.active)}"'

    @classmethod
    def from_etag(cls, text: str) -> TableVersion | None:
        """The version an ``If-Match`` names (one entity tag, as ``etag`` writes it);
        None for anything else."""
        m = _ETAG.fullmatch(text.strip())
        if m is None:
            return None
        game, step, turn, active = m.groups()
        return cls(int(game), int(step), None if turn == "-" else int(turn),
                   None if active == "-" else int(active))


_ETAG = re.compile(r'"(\d{1,9})\.(\d{1,9})\.(\d{1,9}|-)\.(\d{1,9}|-)"')


@dataclass(frozen=True)
class Press:
    """Where a seat press began: the moment, and the table shown then.

    The buttons stamp this when the contact closes; the table loop decides with
    it (a press belongs to its seat and the moment it *began*). ``seen`` is the
    table's version at that moment (its turn and active seat: None without a
    table loop to ask); ``overlapped`` is True when another seat's press was still
    in flight (down, its gesture not yet given) as this one began.
    """
    began: float
    seen: TableVersion | None = None
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
    """A short press of the shared UNDO button (``seen``: the table when it began)."""
    at: float = 0.0
    seen: TableVersion | None = None


@dataclass(frozen=True)
class UndoHold:
    """A long press of the shared UNDO button: redo."""
    at: float = 0.0
    seen: TableVersion | None = None


@dataclass(frozen=True)
class CardScanned:
    """A card's tag was read (NFC UID in hex, or a QR/barcode text); ``seen``: the
    table when the scanner's line was read."""
    tag: str
    source: str = "scanner"
    at: float = 0.0
    seen: TableVersion | None = None


@dataclass(frozen=True)
class TouchAction:
    """A table-script action chosen on the touchscreen, e.g. {"do": "end_turn"}.
    A setup from the wizard also names each seat's colour (box colour names, seat order),
    which the journal records with the game's setup. ``seen``: the table the screen
    showed (None: never stale)."""
    action: Mapping[str, Any]
    at: float = 0.0
    seat_colors: tuple[str, ...] = ()
    seen: TableVersion | None = None


@dataclass(frozen=True)
class WebAction(TouchAction):
    """A table-script action posted from a paired phone (the phone view's POST
    /api/action); ``client`` is its address, for the log; ``seen`` the version its
    ``If-Match`` named."""
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
class EndGame:
    """End the running game before its end (Settings: "End this game", "New game"): the
    companion's own act, not a table-script line (``Session.end_game``). ``seen``: the
    table the screen showed; refused once a new game has started since."""
    at: float = 0.0
    seen: TableVersion | None = None


@dataclass(frozen=True)
class BringBackGame:
    """Undo an ``EndGame``: the game the table ended runs again, as long as no other game
    was set up since (the UNDO button on an empty table does the same)."""
    at: float = 0.0
    seen: TableVersion | None = None


@dataclass(frozen=True)
class DismissDraws:
    """The table saw the "X draws 2" prompt (or drew by hand): stop showing it.
    ``seat`` is 0-based, or None for every seat."""
    seat: int | None = None


@dataclass(frozen=True)
class SettingsChanged:
    """The table's settings as the Settings screen (or the service's start) left them.

    Any thread posts it; the table loop applies it on its own thread (it keeps them as
    ``TableLoop.settings``) and every output learns of it from that update: the log's and
    the voice's language, the voice on or off, the volume, the brightness, the turn timer.
    ``changed`` names the one setting that changed ("" for all of them)."""
    language: str
    voice: bool = True
    volume: float = 0.7
    brightness: float = 0.3
    turn_timer: int = 0
    changed: str = ""


@dataclass(frozen=True)
class CatalogLoaded:
    """The card catalogs read afresh (the fault page's Try again): the table loop swaps
    them in on its own thread. ``problems``: the files that could not be read, in words."""
    catalog: Catalog
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayLinkFound:
    """A worker made the BG Stats link of the finished game on the table ``made_for``
    (None when it cannot be made): the table loop keeps it, if the table is still that
    one, and its snapshot carries it (``snapshot.Snapshot.play_link``) to every output."""
    made_for: TableVersion
    link: str | None


@dataclass(frozen=True)
class Stop:
    """Ask the table loop to finish after the inputs already queued."""


InputEvent = (SeatTap | SeatHold | UndoTap | UndoHold | CardScanned | TouchAction | WebAction
              | ScriptLine | DeviceStatus | EnrollRequest | DismissDraws | SettingsChanged
              | CatalogLoaded | PlayLinkFound | EndGame | BringBackGame | Stop)
