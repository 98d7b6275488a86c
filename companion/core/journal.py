"""The game journal: every accepted action, durable before anyone reacts to it.

SQLite in WAL mode with ``synchronous=FULL``: a committed action survives a
power cut. Actions are stored as table-script lines per game (the setup line is
action 0), each with every fact that decided it (a completion's specialty), so a
game is rebuilt by replaying its lines, without the card catalog, and exported
as a table script as it is. The seat colours are part of a game's recorded setup.

A second writer is kept out by a lock file beside the journal. When opened, the
file is checked (SQLite's ``quick_check``, which also finds a truncated file, and
its schema): a damaged, truncated, foreign, newer or locked file is reported with
its name and how to move it aside, and nothing is ever written into it. Once the
table loop has claimed the journal, only the loop's thread may use it.

Schema 1 (before table script 1.1) stored lines without the specialty the
catalog gave them; such a journal is migrated once (``needs_migration``), by
the session, after a copy of the file is kept beside it.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from datetime import datetime, UTC
from typing import Any
from collections.abc import Callable, Iterator

from .rules.editions import RULES   # the table-script version new games are recorded under

SCHEMA_VERSION = 2
_ENDED_EARLY = "ended_early:"       # meta key prefix: a game the table ended before its end
_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games(
    id INTEGER PRIMARY KEY,
    edition TEXT NOT NULL,
    variant TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON list of names, seat order
    setup TEXT NOT NULL,            -- the setup line
    started_at TEXT NOT NULL,       -- ISO 8601, UTC
    ended_at TEXT,                  -- NULL while the game runs
    ranking TEXT,                   -- JSON ranking once over
    seat_colors TEXT,               -- JSON list of colour names, seat order (NULL: the box's)
    rules TEXT NOT NULL DEFAULT '1.1',  -- table-script version the game was recorded under
    problem TEXT                    -- why a game migrated from schema 1 does not replay
);
CREATE TABLE actions(
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


class JournalError(Exception):
    """A journal that cannot be used; the message names the file and what to do.

    ``fault``: for a storage fault, what it is (``FULL``, ``READ_ONLY`` or ``FAILING``), so
    the screen, the log and doctor can say it in the players' words; None otherwise."""

    def __init__(self, message: str, fault: str | None = None):
        super().__init__(message)
        self.fault = fault


FULL, READ_ONLY, FAILING = "full", "read_only", "failing"
"""The storage faults, named for what they are (a full card is no failing card)."""

FREE_SPACE_HINT = ("free some space: old system logs (sudo journalctl --vacuum-size=50M), "
                   "the package cache (sudo apt-get clean), photos or other files")


class JournalBusy(JournalError):
    """Another program holds the journal's write lock right now: nothing was
    written; the same record may be tried again once it lets go."""


@dataclass(frozen=True)
class GameRecord:
    id: int
    edition: str
    variant: str
    players: list[str]
    started_at: str
    ended_at: str | None
    ranking: list[Any] | None
    actions: int
    seat_colors: list[str] | None = None
    rules: str = RULES
    problem: str | None = None       # unreplayable (migrated) game, or an unreadable field
    expansion: str | None = None     # "cake_time", from the recorded setup line


def _json_or_problem(text: str | None, what: str, problems: list[str]) -> Any:
    """A stored JSON column; a damaged one is noted, not raised (the lines are the truth)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        problems.append(f"its stored {what} is damaged")
        return None


FULL_BELOW_BYTES = 256 * 1024
"""Less free space than this where the journal lives counts as a full disk."""
CACHE_KIB = 128
"""SQLite's page cache per connection (KiB): see ``Journal._connect``."""


def _free_bytes(path: str) -> int | None:
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def mounted_read_only(path: str) -> bool:
    """The file system holding ``path`` is mounted read-only (an SD card the kernel
    remounted after errors, or a write-protect switch)."""
    folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return bool(st.f_flag & os.ST_RDONLY)


def storage_fault(exc: sqlite3.DatabaseError, path: str) -> str | None:
    """What a write that SQLite refused means for the card: FULL (SQLITE_FULL: ENOSPC or
    too little room), READ_ONLY (SQLITE_READONLY, or a read-only mount), FAILING (an I/O
    error on a card with room that is writable), or None (not a storage fault)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if code is not None else None
    msg = str(exc)
    if primary == sqlite3.SQLITE_FULL or (primary is None and "full" in msg):
        return FULL
    if primary == sqlite3.SQLITE_READONLY or (primary is None and "readonly" in msg):
        return READ_ONLY
    if primary == sqlite3.SQLITE_IOERR or (primary is None and "disk I/O error" in msg):
        if mounted_read_only(path):
            return READ_ONLY
        free = _free_bytes(path)
        return FULL if free is not None and free < FULL_BELOW_BYTES else FAILING
    return None


def _read_only(path: str, why: str) -> str:
    return (f"{path} cannot be written ({why}): the disk is mounted read-only or the file's "
            "permissions forbid it; `coffee-companion history` can still read it")


def _busy(exc: sqlite3.DatabaseError) -> bool:
    """SQLite gave up waiting for another connection's lock (SQLITE_BUSY/LOCKED)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


class Journal:
    def __init__(self, path: str, clock: Callable[[], float] = time.time,
                 readonly: bool = False, durable: bool = True, busy_timeout: float = 5.0):
        self.path = str(path)
        self.busy_timeout = busy_timeout    # how long a write waits for another program's lock
        self.clock = clock
        self.readonly = readonly
        self._lock_fd: int | None = None
        self._batch = False
        self._game_id: int | None = None
        self._seq = 0
        self._owner: int | None = None     # thread ident once claimed (the table loop)
        self.schema = SCHEMA_VERSION
        if readonly and not os.path.exists(self.path):
            raise JournalError(f"{self.path}: no such journal")
        if not readonly:
            self._take_lock()
        self._durable = durable
        side = [self.path + s for s in ("-wal", "-shm") if not os.path.exists(self.path + s)]
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._close_refused(side)
            if "not a database" in str(exc) or "malformed" in str(exc):
                raise self._refuse(f"is damaged, truncated or not a journal ({exc})") from None
            raise self._error(exc) from None
        except JournalError:
            self._close_refused(side)
            raise

    # --- opening -----------------------------------------------------------------

    def _take_lock(self) -> None:
        folder = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(folder):
            raise JournalError(f"{self.path}: the folder {folder} does not exist")
        try:
            fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                raise JournalError(_read_only(self.path, exc.strerror or str(exc)),
                                   READ_ONLY if exc.errno == errno.EROFS else None) from None
            raise JournalError(
                f"{self.path}: cannot create its lock file ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalError(f"{self.path} is in use by another coffee-companion "
                               "(stop the other one first; the journal was not touched)") from None
        self._lock_fd = fd

    def _connect(self, readonly: bool) -> sqlite3.Connection:
        db = self._connect_file(readonly)
        try:    # SQLite's page cache, per connection: 128 KiB (the default, 2 MiB, fills
            # over a day of games: resident memory the journal's short reads never need;
            # 512 KiB still grew the service about 0.5 MB over a 500-game soak, issue 19;
            # what falls out is read again from the system's file cache)
            db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        except sqlite3.Error:       # its first statement reads the file (a full disk, a
            db.close()              # damaged file): nothing of it stays open
            raise
        return db

    def _connect_file(self, readonly: bool) -> sqlite3.Connection:
        if readonly:
            uri = "file:" + os.path.abspath(self.path) + "?mode=ro"
            if not os.access(os.path.dirname(os.path.abspath(self.path)), os.W_OK):
                # a read-only disk or folder: SQLite cannot make the WAL's shared-memory
                # file there, and nobody can change the journal there either
                uri += "&immutable=1"
            return sqlite3.connect(uri, uri=True, timeout=self.busy_timeout,
                                   isolation_level=None, check_same_thread=False)
        return sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)

    def _open(self) -> None:
        """Check an existing file through a read-only connection (closing it writes
        nothing, unlike a writer's last close, which checkpoints); only a sound journal
        of ours, or a new one, is then opened for writing. (The file itself is never
        opened outside SQLite: closing any descriptor of it would drop the locks SQLite
        holds on it in this process.) A truncated file is one SQLite finds malformed."""
        if os.path.exists(self.path):
            self.db = self._connect(readonly=True)
            new = self._inspect()
            if self.readonly:
                if new:
                    raise JournalError(f"{self.path} is empty: it holds no games")
                return
            self.db.close()
            self._check_writable()
        else:
            new = True
        self.db = self._connect(readonly=False)
        self._set_modes()
        if new:
            self._create()

    def _set_modes(self) -> None:
        """WAL and full sync, set only once the file is known to be ours (or new):
        switching to WAL rewrites the header, and a foreign file stays untouched."""
        if not self.readonly:
            self.db.execute(f"PRAGMA synchronous={'FULL' if self._durable else 'OFF'}")
            self.db.execute("PRAGMA journal_mode=WAL")

    def move_aside_hint(self) -> str:
        """The shell command that moves this journal (and its WAL) out of the way."""
        files = [f for f in (self.path, self.path + "-wal") if os.path.exists(f)]
        return " && ".join(f"mv {f} {f.replace(self.path, self.path + '.damaged', 1)}"
                           for f in files or [self.path])

    def _refuse(self, what: str) -> JournalError:
        return JournalError(f"{self.path} {what}; nothing was written to it. Move it aside "
                            f"to start a new journal: {self.move_aside_hint()}")

    def _quick_check(self) -> None:
        rows = self.db.execute("PRAGMA quick_check(3)").fetchall()
        if [r[0] for r in rows] != ["ok"]:
            raise self._refuse("is damaged (SQLite quick_check: "
                               + "; ".join(str(r[0]) for r in rows) + ")")

    def _create(self) -> None:
        with self._transaction():
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)
            self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))

    def _inspect(self) -> bool:
        """Refuse a damaged, foreign or newer file; True when it holds nothing yet."""
        self._quick_check()
        tables = {r[0] for r in
                  self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            return True
        if not {"meta", "games", "actions"} <= tables:
            raise JournalError(f"{self.path} is an SQLite file but not a coffee-companion "
                               "journal; choose another path (this file was not changed)")
        row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        schema = row[0] if row else None
        if schema not in {str(v) for v in range(1, SCHEMA_VERSION + 1)}:
            if isinstance(schema, str) and schema.isdigit():
                raise JournalError(
                    f"{self.path} was written by a newer coffee-companion (journal schema "
                    f"{schema}; this one reads up to {SCHEMA_VERSION}); nothing was written "
                    f"to it. Update the companion, or move it aside to start a new journal: "
                    f"{self.move_aside_hint()}")
            raise self._refuse(f"has no readable schema version ({schema!r})")
        self.schema = int(schema)
        return False

    @property
    def needs_migration(self) -> bool:
        """Written by schema 1: its lines lack the specialty the catalog gave them."""
        return self.schema < SCHEMA_VERSION

    def keep_copy(self) -> str:
        """Copy the whole journal beside it (before a migration); returns the copy's path."""
        n, target = 1, f"{self.path}.schema{self.schema}"
        while os.path.exists(target):
            n += 1
            target = f"{self.path}.schema{self.schema}.{n}"
        try:
            copy = sqlite3.connect(target)
            with copy:
                self.db.backup(copy)
            copy.close()
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        return target

    def migrate(self, games: dict[int, dict[str, Any]]) -> None:
        """Schema 1 -> 2 in one transaction. ``games``: id -> {"lines": resolved lines,
        "rules": version, "problem": text or None, "seat_colors": names or None}."""
        try:
            with self._transaction():
                for column in ("seat_colors TEXT", "rules TEXT NOT NULL DEFAULT '1.1'",
                               "problem TEXT"):
                    self.db.execute(f"ALTER TABLE games ADD COLUMN {column}")
                for game_id, g in games.items():
                    self.db.execute("UPDATE games SET rules=?, problem=?, seat_colors=? "
                                    "WHERE id=?",
                                    (g["rules"], g["problem"],
                                     None if g["seat_colors"] is None
                                     else json.dumps(g["seat_colors"]), game_id))
                    for seq, line in enumerate(g["lines"]):
                        self.db.execute("UPDATE actions SET line=? WHERE game_id=? AND seq=?",
                                        (line, game_id, seq))
                self.db.execute("DELETE FROM meta WHERE key LIKE 'note:seat_colors:%'")
                self.db.execute("UPDATE meta SET value=? WHERE key='schema'",
                                (str(SCHEMA_VERSION),))
                self.db.execute("INSERT OR REPLACE INTO meta VALUES ('migrated_from', ?)",
                                (json.dumps({"schema": self.schema, "at": _iso(self.clock())}),))
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        self.schema = SCHEMA_VERSION

    # --- one owner -----------------------------------------------------------------

    def claim(self) -> None:
        """From now on only the calling thread (the table loop's) may use the journal."""
        self._owner = threading.get_ident()

    def release(self) -> None:
        self._owner = None

    def _mine(self) -> None:
        if self._owner is not None and threading.get_ident() != self._owner:
            raise RuntimeError(f"{self.path} belongs to the table loop's thread: ask the loop")

    def _error(self, exc: sqlite3.DatabaseError) -> JournalError:
        """The JournalError for what SQLite refused, its storage fault named."""
        return JournalError(self._explain(exc), storage_fault(exc, self.path))

    def _explain(self, exc: sqlite3.DatabaseError) -> str:
        msg = str(exc)
        if "locked" in msg or "busy" in msg:
            return f"{self.path} is locked by another program; try again when it is closed"
        if "not a database" in msg or "malformed" in msg or "corrupt" in msg:
            return (f"{self.path} is damaged or not a journal ({msg}); it was left as it is "
                    "- move it aside to start a new journal")
        fault = storage_fault(exc, self.path)
        if fault == FULL:
            free = _free_bytes(self.path)
            room = f" ({free // 1024} KiB free)" if free is not None else ""
            return (f"{self.path}: the SD card (or disk) is full{room}: {FREE_SPACE_HINT}; "
                    "the journal was not changed")
        if fault == FAILING:
            return (f"{self.path}: the disk reported an error ({msg}) although it has room "
                    "and is writable: the SD card or disk may be failing; copy the journal "
                    "somewhere safe")
        return self._explain_opening(msg, fault)

    def _explain_opening(self, msg: str, fault: str | None) -> str:
        """``_explain`` for a file that cannot be opened or written (or anything else)."""
        if fault == READ_ONLY and mounted_read_only(self.path):
            return _read_only(self.path, "the disk is mounted read-only")
        if self.readonly and ("unable to open" in msg or "readonly" in msg):
            return f"{self.path} cannot be read ({msg}): check its permissions"
        if "readonly" in msg:
            return _read_only(self.path, msg)
        if "unable to open" in msg:
            return (f"{self.path} cannot be opened for writing ({msg}): check that its folder "
                    "exists and can be written")
        return f"{self.path}: {msg}"

    def _close_refused(self, created: list[str]) -> None:
        """Close a refused journal and remove the empty side files SQLite made for it."""
        self.close()
        for f in created:
            with contextlib.suppress(OSError):
                if os.path.getsize(f) == 0 or f.endswith("-shm"):
                    os.remove(f)

    def _check_writable(self) -> None:
        """SQLite opens a file it may not write read-only without a word; say so at
        open, not with every action later."""
        if not os.access(self.path, os.W_OK):
            raise JournalError(_read_only(self.path, "no permission to write it"))

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
            del self.db                     # closed: no connection to use by mistake
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -----------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        self._mine()
        if self._batch:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group many records in one transaction (a replay into a scratch journal)."""
        self._mine()
        self.db.execute("BEGIN IMMEDIATE")
        self._batch = True
        try:
            yield
        except BaseException:
            self._batch = False
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self._batch = False
        self.db.execute("COMMIT")

    def record(self, line: str, *, new_game: dict[str, Any] | None = None,
               game_over: list[Any] | None = None, reopened: bool = False,
               seat_colors: list[str] | None = None, rules: str = RULES,
               progress: tuple[str, Any] | None = None) -> None:
        """Store one accepted action durably; raise JournalError if it could not be.

        ``new_game``: the setup action (starts a games row), with its ``seat_colors``
        (colour names), played under the table-script version ``rules``. ``game_over``: the
        ranking, when this action ended the game (or changed a final ranking).
        ``reopened``: the action (an undo) made a finished game
        run again. ``progress``: (key, JSON value) kept in the same transaction (how far
        a ``replay --db`` got).
        """
        now = _iso(self.clock())
        try:
            with self._transaction():
                if new_game is not None:
                    cur = self.db.execute(
                        "INSERT INTO games(edition, variant, players, setup, started_at,"
                        " seat_colors, rules) VALUES (?,?,?,?,?,?,?)",
                        (new_game["edition"], new_game.get("variant", "standard"),
                         json.dumps(new_game["players"], ensure_ascii=False), line, now,
                         None if not seat_colors else json.dumps(list(seat_colors)), rules))
                    game_id, seq = cur.lastrowid, 0
                else:
                    if self._game_id is None:
                        raise JournalError(f"{self.path}: an action arrived before any setup")
                    game_id, seq = self._game_id, self._seq + 1
                self.db.execute("INSERT INTO actions VALUES (?,?,?,?)", (game_id, seq, line, now))
                if game_over is not None:
                    self.db.execute("UPDATE games SET ended_at=?, ranking=? WHERE id=?",
                                    (now, json.dumps(game_over, ensure_ascii=False), game_id))
                elif reopened:
                    self.db.execute("UPDATE games SET ended_at=NULL, ranking=NULL WHERE id=?",
                                    (game_id,))
                if progress is not None:
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                    (progress[0], json.dumps(progress[1], ensure_ascii=False)))
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                raise JournalBusy(self._explain(exc)) from None
            raise self._error(exc) from None
        self._game_id, self._seq = game_id, seq

    def end_early(self, game_id: int) -> None:
        """The table ended game ``game_id`` before its end ("End this game" in Settings):
        not a table-script line (the game's lines stay as played, and replay the same),
        but a mark beside it, with the time: the game is over without a ranking, and is
        not resumed. ``bring_back`` takes the mark away again."""
        now = _iso(self.clock())
        try:
            with self._transaction():
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                (_ENDED_EARLY + str(game_id),
                                 json.dumps({"at": now, "actions": self._seq + 1
                                             if self._game_id == game_id else None})))
                self.db.execute("UPDATE games SET ended_at=?, ranking=NULL WHERE id=?",
                                (now, game_id))
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                raise JournalBusy(self._explain(exc)) from None
            raise self._error(exc) from None

    def bring_back(self, game_id: int) -> None:
        """Undo ``end_early``: game ``game_id`` runs again and is resumed as before."""
        try:
            with self._transaction():
                self.db.execute("DELETE FROM meta WHERE key=?", (_ENDED_EARLY + str(game_id),))
                self.db.execute("UPDATE games SET ended_at=NULL WHERE id=?", (game_id,))
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                raise JournalBusy(self._explain(exc)) from None
            raise self._error(exc) from None
        self._game_id = game_id

    def ended_early(self, game_id: int) -> str | None:
        """When the table ended game ``game_id`` before its end, else None."""
        mark = self.meta(_ENDED_EARLY + str(game_id))
        return mark.get("at") if isinstance(mark, dict) else None

    def set_meta(self, key: str, value: Any) -> None:
        try:
            with self._transaction():
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                (key, json.dumps(value, ensure_ascii=False)))
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None

    def meta(self, key: str, default: Any = None) -> Any:
        """A small JSON value kept beside the games (e.g. a replay's progress)."""
        self._mine()
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
            return default if row is None else json.loads(row[0])
        except (sqlite3.DatabaseError, ValueError) as exc:
            raise JournalError(
                f"{self.path}: the stored value {key!r} is unreadable ({exc})") from None

    @property
    def current_game_id(self) -> int | None:
        """The game the last record or resume was about."""
        return self._game_id

    @property
    def current_seq(self) -> int | None:
        """The sequence number of the last action recorded or resumed (setup = 0)."""
        return None if self._game_id is None else self._seq

    # --- reading -----------------------------------------------------------------

    def latest_game(self) -> tuple[int, list[str]] | None:
        """The last game's id and its lines (setup first), to resume it."""
        self._mine()
        try:
            row = self.db.execute("SELECT max(id) FROM games").fetchone()
            if row[0] is None:
                return None
            lines = self.lines(row[0])
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        self._game_id, self._seq = row[0], len(lines) - 1
        return row[0], lines

    def lines(self, game_id: int) -> list[str]:
        self._mine()
        try:
            rows = self.db.execute("SELECT seq, line FROM actions WHERE game_id=? ORDER BY seq",
                                   (game_id,)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        if [r[0] for r in rows] != list(range(len(rows))):
            raise JournalError(f"{self.path}: game {game_id} has missing actions; "
                               "the journal is damaged")
        return [r[1] for r in rows]

    def games(self, where: str = "", args: tuple[Any, ...] = (), limit: int = -1
              ) -> list[GameRecord]:
        """The games, oldest first (``where``/``limit``: the newest ``limit`` matching)."""
        self._mine()
        extra = ("g.seat_colors, g.rules, g.problem" if self.schema >= 2
                 else "NULL, '1', NULL")
        try:
            rows = self.db.execute(
                "SELECT g.id, g.edition, g.variant, g.players, g.started_at, g.ended_at,"
                " g.ranking, (SELECT count(*) FROM actions a WHERE a.game_id = g.id), "
                + extra + f", g.setup FROM games g {where} ORDER BY g.id DESC LIMIT ?",
                (*args, limit)).fetchall()[::-1]
        except sqlite3.DatabaseError as exc:
            raise self._error(exc) from None
        out = []
        for r in rows:
            problems = [r[10]] if r[10] else []
            players = _json_or_problem(r[3], "player list", problems)
            ranking = _json_or_problem(r[6], "ranking", problems)
            colours = _json_or_problem(r[8], "seat colours", problems)
            if not (isinstance(players, list) and all(isinstance(n, str) for n in players)):
                players = [] if players is None else ["?"]
            setup = _json_or_problem(r[11], "setup line", problems)
            expansion = setup.get("expansion") if isinstance(setup, dict) else None
            out.append(GameRecord(r[0], r[1], r[2], players, r[4], r[5],
                                  ranking if isinstance(ranking, list) else None, r[7],
                                  colours if isinstance(colours, list) else None, r[9],
                                  "; ".join(problems) or None,
                                  expansion if isinstance(expansion, str) else None))
        return out

    def game(self, game_id: int) -> GameRecord | None:
        found = self.games("WHERE g.id = ?", (game_id,))
        return found[0] if found else None

    def recent_names(self, limit: int = 12) -> list[str]:
        """Player names of recent games, newest first, without repeats."""
        seen: list[str] = []
        for g in reversed(self.games(limit=limit)):
            for n in g.players:
                if n not in seen:
                    seen.append(n)
        return seen[:limit]
