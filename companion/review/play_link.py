"""The BG Stats link of the game that just finished (``companion.review.exports``), asked for
by a table-loop subscriber for the end screen and the phone view.

Making it replays the whole game, so it is made on a worker (``worker.Jobs``), never on
the loop's thread: the loop reads what the worker needs (the game's record and lines,
the journal being its own), the worker makes the link and posts it back as an input
(``inputs.PlayLinkFound``); the loop keeps it if the table is still the one it was made
for, and its snapshot carries it (``snapshot.Snapshot.play_link``): the screen and the
phone view read it there, as every output reads the table.

Apart from ``exports`` so that the service's start loads neither the exports nor
bgstats: they are imported when a game is over, on the worker.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from companion.core.events import PlayLinkFound, TableVersion
from companion.core.journal import GameRecord, JournalError
from companion.core.worker import Jobs

log = logging.getLogger("companion.review.bgstats")

#: (the game's record, its lines, the location) -> the link, or None (the worker's part)
MakeLink = Callable[[GameRecord, Sequence[str], str], "str | None"]


def make_link(game: GameRecord, lines: Sequence[str], location: str = "") -> str | None:
    """The link as the history exports it (the journal's lines replayed): the same
    link everywhere. None, with a warning, when it cannot be made."""
    from . import bgstats          # here: a start with a game running needs neither
    from .exports import ExportError, final_state, link_of
    try:
        state = final_state(list(lines), rules=game.rules)
        return link_of(game, lines[0], state, location)
    except (ExportError, bgstats.NotFinished, JournalError, ValueError, IndexError) as exc:
        log.warning("no BG Stats link: %s", exc)
        return None


class PlayLink:
    """Asks for the BG Stats link of the game that just finished.

    A table-loop subscriber: when a game is over (or its finished table changes, e.g.
    a correction reranks it) it asks a worker for the link, which the worker posts to
    the loop. It keeps no link itself: the loop's snapshot has it."""

    def __init__(self, loop: Any, location: str = "", make: MakeLink = make_link,
                 jobs: Jobs | None = None):
        self.loop, self.location = loop, location
        self.session = loop.session
        self._make = make
        self._jobs = jobs if jobs is not None else Jobs("play-link")
        self._for: TableVersion | None = None    # the table the link is (being) made for
        self._want(loop.turn_now())             # before the loop runs: a resumed game

    def __call__(self, update: Any) -> None:
        """On the loop's thread."""
        if isinstance(update.event, PlayLinkFound):
            return
        if update.version is not None and update.version != self._for:
            self._want(update.version)

    def _want(self, version: TableVersion) -> None:
        """The table is now ``version``: no link while a game runs, else ask the worker.
        On the journal's owner thread (the loop's, or the service's before it runs)."""
        self._for = version
        journal, game = self.session.journal, self.session.table.game
        game_id = self.session.game_id
        record = None
        if journal is not None and game is not None and game.game_over and game_id is not None:
            try:
                record = journal.game(game_id)     # one row: the loop's thread may read it
            except JournalError as exc:
                log.warning("no BG Stats link: %s", exc)
        if record is None:
            return
        lines, location, post = tuple(self.session.lines), self.location, self.loop.post

        def job() -> None:                         # on the worker's thread
            post(PlayLinkFound(version, self._make(record, lines, location)))
        self._jobs.submit(job)

    def close(self) -> None:
        self._jobs.close()
