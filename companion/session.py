"""A session: the rules engine bound to a journal and a card catalog.

``Session.apply`` is the only way an action changes the table: the engine
decides, the journal commits the line, and only then is the new table kept and
returned for anyone to react to. A journal that cannot save turns the action
into a rejection ("storage_failed"): nothing changes, nothing is half-done.
A journal another program holds locked raises ``JournalBusy`` instead (also
with nothing changed): the table loop pauses and applies the action later.
"""
from __future__ import annotations

from typing import Optional, Union

from .catalog import Catalog
from .journal import Journal, JournalBusy, JournalError
from .rules import Accepted, Rejection, Table, apply, parse_line, to_line
from .rules.rejections import reject
from .rules.scoring import ranking

Outcome = Union[Accepted, Rejection]


def _ranking_json(game) -> list:
    return [r.__dict__ for r in ranking(game)]


class Session:
    def __init__(self, journal: Optional[Journal] = None, catalog: Optional[Catalog] = None):
        self.journal = journal
        self.catalog = catalog if catalog is not None else Catalog()
        self.table = Table()
        if journal is not None:
            self._resume()

    def _resume(self) -> None:
        """Rebuild the last game of the journal by replaying its lines."""
        latest = self.journal.latest_game()
        if latest is None:
            return
        game_id, lines = latest
        table = Table()
        for n, line in enumerate(lines):
            action = parse_line(line)
            outcome = action if isinstance(action, Rejection) else apply(
                table, action, self.catalog.specialty_tags)
            if isinstance(outcome, Rejection) or action is None:
                raise JournalError(f"{self.journal.path}: game {game_id} action {n} "
                                   f"cannot be replayed ({outcome}); the journal was left as it is")
            table = outcome.table
        self.table = table

    @property
    def game_id(self) -> Optional[int]:
        """The journal's number for the current game (None without a journal or game)."""
        return None if self.journal is None else self.journal.current_game_id

    def apply(self, action: dict) -> Outcome:
        before = self.table.game
        outcome = apply(self.table, action, self.catalog.specialty_tags)
        if isinstance(outcome, Rejection):
            return outcome
        after = outcome.table.game
        if self.journal is not None:
            new_game = action if action["do"] == "setup" else None
            over = after is not None and after.game_over and (
                new_game is None and (before is None or not before.game_over
                                      or action["do"] in ("correct", "redo")))
            reopened = (before is not None and before.game_over and after is not None
                        and not after.game_over)
            try:
                self.journal.record(to_line(action), new_game=new_game,
                                    game_over=_ranking_json(after) if over else None,
                                    reopened=reopened)
            except JournalBusy:
                raise                # nothing changed: the table loop waits and tries again
            except JournalError as exc:
                return reject("storage_failed", error=str(exc))
        self.table = outcome.table
        return outcome

    def apply_line(self, text: str) -> Optional[Outcome]:
        """A raw table-script line: None for blank/comment lines."""
        action = parse_line(text)
        if action is None or isinstance(action, Rejection):
            return action
        return self.apply(action)
