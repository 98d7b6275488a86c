"""A session: the rules engine bound to a journal and a card catalog.

``Session.apply`` is the only way an action changes the table: the engine
decides, the journal commits the line, and only then is the new table kept and
returned for anyone to react to. A journal that cannot save turns the action
into a rejection ("storage_failed"): nothing changes, nothing is half-done.
A journal another program holds locked raises ``JournalBusy`` instead (also
with nothing changed): the table loop pauses and applies the action later.

The card catalog is consulted once, when an action happens: the line is stored
with the specialty it decided, so ``rebuild`` (the one way a game is rebuilt from
its lines: resume, ``history``, ``replay --db``, the migration of an older
journal) needs no catalog, and a later catalog edit never changes a recorded game.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable
from typing import Any

from .catalog import Catalog
from .journal import Journal, JournalBusy, JournalError
from .rules import Accepted, Action, Game, Rejection, Table, apply, parse_line, to_line
from .rules.editions import RULES, RULES_VERSIONS
from .rules.engine import NO_SPECIALTIES
from .rules.rejections import reject
from .rules.scoring import ranking
from .seat_colours import NAMES, SCREEN_RGB

Outcome = Accepted | Rejection
log = logging.getLogger("companion.core.session")

SEAT_COLOUR_NAMES = NAMES   # the box's meeple colours (companion.core.seat_colours)


def _ranking_json(game: Game) -> list[dict[str, Any]]:
    return [r.__dict__ for r in ranking(game)]


@dataclass
class Rebuilt:
    """A game rebuilt from its lines: the table, the lines as recorded (each with the
    facts that decided it), and where it stopped if a line was refused."""
    table: Table
    lines: list[str] = field(default_factory=list)
    failed_at: int | None = None          # index of the line that could not be replayed
    rejection: Rejection | None = None

    @property
    def problem(self) -> str | None:
        if self.failed_at is None:
            return None
        return f"action {self.failed_at} cannot be replayed ({self.rejection})"


def rebuild(lines: Iterable[str], specialty_tags: frozenset[str] = NO_SPECIALTIES,
            rules: str = RULES) -> Rebuilt:
    """Replay a game's stored lines from an empty table, under the table-script version
    ``rules`` the game was recorded under (``GameRecord.rules``).

    ``specialty_tags`` is empty for a journal of this version (the lines carry their
    specialties); only a schema-1 journal, whose lines do not, is rebuilt with a catalog.
    """
    out = Rebuilt(Table())
    if rules not in RULES_VERSIONS:     # version 1 (a migrated game kept as recorded): the
        rules = "1.1"                   # nearest this engine still plays
    for n, line in enumerate(lines):
        action = parse_line(line)
        if action is None:
            action = reject("bad_json", column=1, problem="empty")
        outcome = action if isinstance(action, Rejection) else apply(out.table, action,
                                                                     specialty_tags, rules)
        if isinstance(outcome, Rejection):
            out.failed_at, out.rejection = n, outcome
            return out
        out.table = outcome.table
        out.lines.append(to_line(outcome.action))
    return out


def migrate(journal: Journal, catalog: Catalog) -> None:
    """Bring a schema-1 journal to this version, once: each game is replayed with the
    catalog of today (as the old companion did at every start) and its lines are stored
    with the specialties that decided them; the seat colours kept as side notes become
    part of each game's setup. A copy of the file is kept first, and a game that no
    longer replays under table script 1.1 is kept as it was, marked, never altered."""
    copy = journal.keep_copy()
    games = {}
    for g in journal.games():
        lines = journal.lines(g.id)
        rebuilt = rebuild(lines, catalog.specialty_tags, "1.1")
        problem = rebuilt.problem
        game = rebuilt.table.game
        if problem is None and g.ranking is not None and (
                game is None or not game.game_over or _ranking_json(game) != g.ranking):
            problem = "it ends differently under table script 1.1"
        games[g.id] = {"lines": lines if problem else rebuilt.lines,
                       "rules": "1" if problem else "1.1",
                       "problem": problem and f"recorded under table script 1: {problem}",
                       "seat_colors": _colour_names(journal.meta(f"note:seat_colors:{g.id}"))}
    journal.migrate(games)
    log.warning("%s: migrated from journal schema 1 (a copy of the old file is %s); "
                "%d game(s), %d kept as recorded under table script 1", journal.path, copy,
                len(games), sum(1 for g in games.values() if g["problem"]))


# The screen's RGB seat colours as schema 1 kept them: the shades of that version, and
# today's (companion.core.seat_colours, whose red and green were tuned since).
SCHEMA1_SEAT_RGB: dict[tuple[int, ...], str] = {
    (214, 48, 49): "red", (36, 113, 214): "blue", (39, 160, 82): "green",
    (240, 190, 20): "yellow"}


def _colour_names(rgbs: Any) -> list[str] | None:
    """Schema 1 kept the screen's RGB triples; the setup records the box's colour names."""
    by_rgb: dict[tuple[int, ...], str] = {**SCHEMA1_SEAT_RGB,
              **{tuple(rgb): name for rgb, name in zip(SCREEN_RGB, NAMES, strict=True)}}
    if not isinstance(rgbs, list):
        return None
    names = [by_rgb.get(tuple(c)) if isinstance(c, list) else None for c in rgbs]
    found = [n for n in names if n]
    return found if len(found) == len(names) else None


def _final_ranking(action: Action, before: Game | None, after: Game | None
                   ) -> list[dict[str, Any]] | None:
    """The ranking to record when this action ends the game (or, on a finished game, a
    correction or redo changes it); None otherwise."""
    if after is None or not after.game_over or action["do"] == "setup":
        return None
    if before is None or not before.game_over or action["do"] in ("correct", "redo"):
        return _ranking_json(after)
    return None


def _box_colours(action: Action, seat_colors: tuple[str, ...]) -> tuple[str, ...]:
    """The seat colours to record with a setup: the players' seats only, each one of the
    box's colours, no colour twice; anything else is not recorded (with a warning)."""
    if action["do"] == "setup":                 # the players' seats only
        seat_colors = tuple(seat_colors)[:len(action["players"])]
    if (not set(seat_colors) <= set(SEAT_COLOUR_NAMES)
            or len(set(seat_colors)) < len(seat_colors)):
        log.warning("seat colours %r are not the box's colours: not recorded", seat_colors)
        return ()
    return seat_colors


class Session:
    def __init__(self, journal: Journal | None = None, catalog: Catalog | None = None):
        self.journal = journal
        #: the table-script version the next ``setup`` is played under (a replayed script
        #: may name an older one: ``# table-script 1.1``); a running game keeps its own
        self.rules = RULES
        self.catalog = catalog if catalog is not None else Catalog()
        self.table = Table()
        #: colour names of the current game's seats, if chosen
        self.seat_colors: tuple[str, ...] = ()
        #: players of recent games, newest first (the wizard)
        self.recent_names: tuple[str, ...] = ()
        #: the current game's lines as the journal holds them, setup first (what follows
        #: from the game's history, e.g. which hints it has taught: companion.core.teaching)
        self.lines: list[str] = []
        #: a game the table ended before its end ("End this game"), kept until the next
        #: game is set up so that it can be brought back (undone): its table, lines and
        #: seat colours
        self.ended: tuple[Table, list[str], tuple[str, ...]] | None = None
        if journal is not None:
            if journal.needs_migration:
                migrate(journal, self.catalog)
            self._resume(journal)

    def _resume(self, journal: Journal) -> None:
        """Rebuild the last game of the journal by replaying its lines (no catalog)."""
        self.recent_names = tuple(journal.recent_names(12))
        latest = journal.latest_game()
        if latest is None:
            return
        game_id, lines = latest
        record = journal.game(game_id)
        if record is not None and record.rules not in RULES_VERSIONS:
            log.warning("%s: game %s was recorded under table script %s and is not resumed "
                        "(%s); it stays in the journal", journal.path, game_id,
                        record.rules, record.problem)
            return
        rebuilt = rebuild(lines, rules=record.rules if record is not None else RULES)
        if rebuilt.failed_at is not None:
            raise JournalError(
                f"{journal.path}: game {game_id} {rebuilt.problem}; nothing was written "
                f"to the journal. Move it aside to start a new one: "
                f"{journal.move_aside_hint()}")
        colours = tuple(record.seat_colors or ()) if record is not None else ()
        if journal.ended_early(game_id) is not None:     # ended by the table: not resumed,
            self.ended = (rebuilt.table, list(rebuilt.lines), colours)  # but can come back
            return
        self.table = rebuilt.table
        self.lines = list(rebuilt.lines)
        self.seat_colors = colours

    @property
    def game_id(self) -> int | None:
        """The journal's number for the current game (None without a journal or game)."""
        return None if self.journal is None else self.journal.current_game_id

    def apply(self, action: Action, seat_colors: tuple[str, ...] = (),
              progress: tuple[str, Any] | None = None) -> Outcome:
        """Apply one validated action. ``seat_colors``: colour names chosen for a setup.
        ``progress``: (key, value) stored with the line (``replay --db``)."""
        seat_colors = _box_colours(action, seat_colors)
        before = self.table.game
        outcome = apply(self.table, action, self.catalog.specialty_tags, self.rules)
        if isinstance(outcome, Rejection):
            return outcome
        new_game = action if action["do"] == "setup" else None
        line = to_line(outcome.action)
        if self.journal is not None:
            refused = self._record(line, action, before, outcome.table.game, seat_colors,
                                   progress)
            if refused is not None:
                return refused
        if new_game is not None:
            self.ended = None                     # a new game: the ended one stays ended
            self.seat_colors = tuple(seat_colors)
            names = list(action["players"])
            self.recent_names = tuple(names + [n for n in self.recent_names
                                               if n not in names])[:12]
        self.table = outcome.table
        self.lines = [line] if new_game is not None else self.lines + [line]
        return outcome

    def _record(self, line: str, action: Action, before: Game | None, after: Game | None,
                seat_colors: tuple[str, ...], progress: tuple[str, Any] | None
                ) -> Rejection | None:
        """Commit the line to the journal: None once it is saved, else the rejection
        (``JournalBusy`` goes through: nothing changed, the table loop tries again)."""
        assert self.journal is not None
        new_game = action if action["do"] == "setup" else None
        reopened = (before is not None and before.game_over and after is not None
                    and not after.game_over)
        try:
            self.journal.record(line, new_game=new_game, rules=self.rules,
                                game_over=_final_ranking(action, before, after),
                                reopened=reopened, seat_colors=list(seat_colors),
                                progress=progress)
        except JournalBusy:
            raise                # nothing changed: the table loop waits and tries again
        except JournalError as exc:       # a full card says it is full, not failing
            log.error("action not saved: %s", exc)
            return reject(f"storage_{exc.fault}" if exc.fault else "storage_failed",
                          error=str(exc))
        return None

    def end_game(self) -> Rejection | None:
        """End the running game before its end ("End this game", "New game" in Settings):
        the companion's own act, not a table-script line. The journal marks the game
        ended (its lines stay as played); the table is empty until the next setup, and
        until then ``bring_back`` undoes it. None once done, else why not."""
        game = self.table.game
        if game is None or game.game_over:
            return reject("no_game") if game is None else reject("game_over")
        if self.journal is not None and self.journal.current_game_id is not None:
            refused = _stored(self.journal.end_early, self.journal.current_game_id,
                              "the game's end not saved")
            if refused is not None:
                return refused
        self.ended = (self.table, self.lines, self.seat_colors)
        self.table, self.lines, self.seat_colors = Table(), [], ()
        return None

    def bring_back(self) -> Rejection | None:
        """Undo ``end_game``: the ended game runs again as it was (until a new game is set
        up). None once done, else why not."""
        if self.ended is None or self.table.game is not None:
            return reject("nothing_to_undo")
        table, lines, colours = self.ended
        if self.journal is not None:
            game_id = self.journal.current_game_id
            if game_id is not None:
                refused = _stored(self.journal.bring_back, game_id, "the game not brought back")
                if refused is not None:
                    return refused
        self.table, self.lines, self.seat_colors = table, lines, colours
        self.ended = None
        return None

    def apply_line(self, text: str, progress: tuple[str, Any] | None = None
                   ) -> Outcome | None:
        """A raw table-script line: None for blank/comment lines."""
        action = parse_line(text)
        if action is None or isinstance(action, Rejection):
            return action
        return self.apply(action, progress=progress)


def _stored(write: Callable[[int], object], game_id: int, failed: str) -> Rejection | None:
    """A mark beside a game's lines written (None), or the storage fault as a rejection
    (a busy journal is the caller's to retry: it goes up)."""
    try:
        write(game_id)
    except JournalBusy:
        raise
    except JournalError as exc:
        log.error("%s: %s", failed, exc)
        return reject(f"storage_{exc.fault}" if exc.fault else "storage_failed", error=str(exc))
    return None
