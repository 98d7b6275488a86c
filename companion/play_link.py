"""The BG Stats link of the game that just finished (``companion.exports``), kept by a
table-loop subscriber for the end screen and the phone view.

Apart from ``exports`` so that the service's start loads neither the exports nor
bgstats: they are imported when a game is over.
"""
from __future__ import annotations

from .journal import JournalError


class PlayLink:
    """The BG Stats link of the game that just finished, for the end screen.

    A table-loop subscriber: it reads the journal on the loop's thread (the
    journal's owner), once when a game ends or its final ranking changes; ``link``
    is None while a game runs."""

    ENDINGS = ("game_over", "ranking_changed")

    def __init__(self, session, location: str = ""):
        self.session, self.location = session, location
        self.link: str | None = None
        self.refresh()

    def __call__(self, update) -> None:
        game = update.table.game
        if game is None or not game.game_over:
            self.link = None
        elif self.link is None or any(h.kind in self.ENDINGS for h in update.happened):
            self.refresh()

    def refresh(self) -> None:
        journal, game = self.session.journal, self.session.table.game
        self.link = None
        if journal is None or game is None or not game.game_over:
            return
        from . import bgstats          # here: a start with a game running needs neither
        from .exports import ExportError, final_state, play_link, record
        try:
            rec = record(journal, self.session.game_id)
            # the journal's replay, as the history exports it: the same link everywhere
            state = final_state(journal.lines(rec.id), rules=rec.rules)
            self.link = play_link(journal, rec, state, self.location)
        except (ExportError, bgstats.NotFinished, JournalError, ValueError) as exc:
            import logging
            logging.getLogger("companion.bgstats").warning("no BG Stats link: %s", exc)
