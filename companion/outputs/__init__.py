"""Outputs: what the table shows, plays, says, serves and reports for every update.
screen (pygame), lights, sound, voice, web (phone view), mqtt (café reports).
May import: core, words, review, appliance.config; one output never imports another.

One interface for every output of the table loop, and the one list the service keeps.

An output (the lights, the sound, the voice, the phone view's live table, MQTT, the
log) is started with the loop's snapshot (``snapshot.Snapshot``: the table as it is
now), then handed every ``Update`` on the loop's thread (it must not block: a worker
output queues it for its own thread), and closed once at the end. ``status()`` says in
one word how it is doing, for the companion page and the logs.

``Outputs`` is the one place outputs are wired: ``start`` shows an output the table,
subscribes it and keeps it; ``close`` closes them in the order they started (the lights
first: the LEDs go dark), then those that run on the main thread (the touchscreen,
``screen.app``: it closes pygame's display and fonts, which the others' threads may use
until they are closed).

A start-up fault (``StartupFault``: a broken config, catalog or journal, a missing font or
display) is what every output shows in its way before the table: the screen's fault page,
the lights' blink, the log and systemd's status line. ``appliance.faults`` finds them.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from companion.core.snapshot import Snapshot
    from companion.core.loop import TableLoop, Update

log = logging.getLogger("companion.outputs")


# The touch action each kind offers besides Try again (None: nothing is safe).
MOVE_JOURNAL_ASIDE = "move_journal_aside"
SKIP_CATALOG_FILE = "skip_catalog_file"
CONTINUE = "continue"
RETRY = "retry"


@dataclass(frozen=True)
class StartupFault:
    kind: str                       # config, catalog, journal, font, display
    detail: str                     # the technical message (file names), for the log too
    path: str | None = None      # the file concerned
    action: str | None = None    # the safe touch action, if any
    params: dict[str, object] = field(default_factory=dict)   # for the screen's words
    storage: str | None = None   # journal: the storage fault (full, read_only, failing)

    @property
    def _variant(self) -> str:
        if self.action == MOVE_JOURNAL_ASIDE:
            return "_damaged"
        return f"_{self.storage}" if self.storage else ""

    @property
    def title_key(self) -> str:
        return f"fault.{self.kind}_title{self._variant}"

    @property
    def fix_key(self) -> str:
        return f"fault.{self.kind}_fix{self._variant}"

    def status(self) -> str:
        """One line for `systemctl status` and the log, in English."""
        return f"fault: {SUMMARY[self.kind]}: {self.detail}"


SUMMARY = {
    "config": "the config file has mistakes",
    "catalog": "a card catalog is broken",
    "journal": "the game journal cannot be opened",
    "font": "a font is missing",
    "display": "no display, but one is configured",
}


@runtime_checkable
class Output(Protocol):
    """What the table loop needs of an output."""

    name: str
    """What it is, in the logs ("lights", "sound", ...)."""

    def start(self, snapshot: Snapshot | None = None) -> object:
        """Show the table as it is, then begin (a worker starts its thread)."""
        ...

    def on_update(self, update: Update) -> None:
        """One update, on the loop's thread: must not block."""
        ...

    def close(self) -> None:
        """Stop for good (the service's shutdown)."""
        ...

    def status(self) -> str:
        """How it is doing, in one word: "ok", "simulated", "silent", "offline", ..."""
        ...


AnOutput = TypeVar("AnOutput", bound=Output)


class Outputs:
    """The table loop's outputs, in the order they started."""

    def __init__(self, loop: TableLoop) -> None:
        self.loop = loop
        self.started: list[Output] = []
        self.main_thread: list[Output] = []   # of those, the ones that close last

    def __iter__(self) -> Iterator[Output]:
        return iter(list(self.started))

    def __len__(self) -> int:
        return len(self.started)

    def start(self, output: AnOutput, main_thread: bool = False) -> AnOutput:
        """Start ``output`` with the loop's snapshot and hand it every update from now.
        ``main_thread``: it runs on the main thread (the touchscreen) and is closed after
        the others, on the thread that calls ``close``."""
        output.start(self.loop.snapshot)
        self.loop.subscribe(output.on_update)
        self.started.append(output)
        if main_thread:
            self.main_thread.append(output)
        log.debug("output started: %s", output.name)
        return output

    def status(self) -> dict[str, str]:
        """Each output's status by name."""
        return {o.name: o.status() for o in self.started}

    def close(self) -> None:
        """Close every output, in the order they started, those on the main thread last;
        one that fails is logged."""
        last = self.main_thread
        for output in [o for o in self.started if o not in last] + last:
            if output.on_update in self.loop.subscribers:
                self.loop.subscribers.remove(output.on_update)
            try:
                output.close()
            except Exception as exc:
                log.warning("closing %s failed: %s", output.name, exc)
        self.started.clear()
        self.main_thread = []
