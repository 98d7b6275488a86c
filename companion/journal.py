"""The game journal: every accepted action, durable before anyone reacts to it.

SQLite in WAL mode with ``synchronous=FULL``: a committed action survives a
power cut. Actions are stored as table-script lines per game (the setup line is
action 0), so a game is rebuilt by replaying its lines and exported as a table
script as it is. A second writer is kept out by a lock file beside the journal.
A damaged, foreign or locked file is reported with its name and never
overwritten.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Iterator, Optional

SCHEMA_VERSION = "1"
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
    ranking TEXT                    -- JSON ranking once over
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
    """A journal that cannot be used; the message names the file and what to do."""


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
    ended_at: Optional[str]
    ranking: Optional[list]
    actions: int


FULL_BELOW_BYTES = 256 * 1024
"""Less free space than this where the journal lives counts as a full disk."""


def _free_bytes(path: str) -> Optional[int]:
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


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
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds")


class Journal:
    def __init__(self, path: str, clock: Callable[[], float] = time.time,
                 readonly: bool = False, durable: bool = True, busy_timeout: float = 5.0):
        self.path = str(path)
        self.busy_timeout = busy_timeout    # how long a write waits for another program's lock
        self.clock = clock
        self.readonly = readonly
        self._lock_fd: Optional[int] = None
        self._batch = False
        self._game_id: Optional[int] = None
        self._seq = 0
        if readonly and not os.path.exists(self.path):
            raise JournalError(f"{self.path}: no such journal")
        if not readonly:
            self._take_lock()
        try:
            self.db = self._connect(durable)
            self._check_or_create()
        except sqlite3.DatabaseError as exc:
            self.close()
            raise JournalError(self._explain(exc)) from None
        except JournalError:
            self.close()
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
                raise JournalError(_read_only(self.path, exc.strerror)) from None
            raise JournalError(f"{self.path}: cannot create its lock file ({exc.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise JournalError(f"{self.path} is in use by another coffee-companion "
                               "(stop the other one first; the journal was not touched)") from None
        self._lock_fd = fd

    def _connect(self, durable: bool) -> sqlite3.Connection:
        if self.readonly:
            uri = "file:" + os.path.abspath(self.path) + "?mode=ro"
            if not os.access(os.path.dirname(os.path.abspath(self.path)), os.W_OK):
                # a read-only disk or folder: SQLite cannot make the WAL's shared-memory
                # file there, and nobody can change the journal there either
                uri += "&immutable=1"
            db = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout,
                                 isolation_level=None, check_same_thread=False)
        else:
            db = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                                 check_same_thread=False)
        self._durable = durable
        return db

    def _set_modes(self) -> None:
        """WAL and full sync, set only once the file is known to be ours (or new):
        switching to WAL rewrites the header, and a foreign file stays untouched."""
        if not self.readonly:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL" if self._durable else "PRAGMA synchronous=OFF")

    def _check_or_create(self) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            if self.readonly:
                raise JournalError(f"{self.path} is empty: it holds no games")
            self._set_modes()
            with self._transaction():
                for stmt in _SCHEMA.split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            return
        if not {"meta", "games", "actions"} <= tables:
            raise JournalError(f"{self.path} is an SQLite file but not a coffee-companion "
                               "journal; choose another path (this file was not changed)")
        row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None or row[0] != SCHEMA_VERSION:
            raise JournalError(f"{self.path} has journal schema {row[0] if row else '?'}, "
                               f"this companion reads schema {SCHEMA_VERSION}")
        self._set_modes()
        if not self.readonly:
            self._check_writable()

    def _explain(self, exc: sqlite3.DatabaseError) -> str:
        msg = str(exc)
        if "locked" in msg or "busy" in msg:
            return f"{self.path} is locked by another program; try again when it is closed"
        if "not a database" in msg or "malformed" in msg or "corrupt" in msg:
            return (f"{self.path} is damaged or not a journal ({msg}); it was left as it is "
                    "- move it aside to start a new journal")
        if "full" in msg or "disk I/O error" in msg:
            free = _free_bytes(self.path)
            if free is not None and free < FULL_BELOW_BYTES:
                return (f"{self.path}: the disk is full ({free // 1024} KiB free): free some "
                        "space (old logs, photos, other files) and start again; the journal "
                        "was not changed")
            return (f"{self.path}: the disk reported an error ({msg}): the SD card or disk "
                    "may be failing; copy the journal somewhere safe")
        if self.readonly and ("unable to open" in msg or "readonly" in msg):
            return f"{self.path} cannot be read ({msg}): check its permissions"
        if "readonly" in msg:
            return _read_only(self.path, msg)
        if "unable to open" in msg:
            return (f"{self.path} cannot be opened for writing ({msg}): check that its folder "
                    "exists and can be written")
        return f"{self.path}: {msg}"

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
            self.db = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- writing -----------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
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

    def record(self, line: str, *, new_game: Optional[dict] = None,
               game_over: Optional[list] = None, reopened: bool = False) -> None:
        """Store one accepted action durably; raise JournalError if it could not be.

        ``new_game``: the setup action (starts a games row). ``game_over``: the
        ranking, when this action ended the game (or changed a final ranking).
        ``reopened``: the action (an undo) made a finished game run again.
        """
        now = _iso(self.clock())
        try:
            with self._transaction():
                if new_game is not None:
                    cur = self.db.execute(
                        "INSERT INTO games(edition, variant, players, setup, started_at)"
                        " VALUES (?,?,?,?,?)",
                        (new_game["edition"], new_game.get("variant", "standard"),
                         json.dumps(new_game["players"], ensure_ascii=False), line, now))
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
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                raise JournalBusy(self._explain(exc)) from None
            raise JournalError(self._explain(exc)) from None
        self._game_id, self._seq = game_id, seq

    def set_note(self, key: str, value) -> None:
        """Keep a small JSON value beside the games (e.g. a game's seat colours)."""
        try:
            with self._transaction():
                self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                (f"note:{key}", json.dumps(value, ensure_ascii=False)))
        except sqlite3.DatabaseError as exc:
            raise JournalError(self._explain(exc)) from None

    def note(self, key: str, default=None):
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (f"note:{key}",)).fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(self._explain(exc)) from None
        return default if row is None else json.loads(row[0])

    @property
    def current_game_id(self) -> Optional[int]:
        """The game the last record or resume was about."""
        return self._game_id

    # --- reading -----------------------------------------------------------------

    def latest_game(self) -> Optional[tuple[int, list[str]]]:
        """The last game's id and its lines (setup first), to resume it."""
        try:
            row = self.db.execute("SELECT max(id) FROM games").fetchone()
            if row[0] is None:
                return None
            lines = self.lines(row[0])
        except sqlite3.DatabaseError as exc:
            raise JournalError(self._explain(exc)) from None
        self._game_id, self._seq = row[0], len(lines) - 1
        return row[0], lines

    def lines(self, game_id: int) -> list[str]:
        try:
            rows = self.db.execute("SELECT seq, line FROM actions WHERE game_id=? ORDER BY seq",
                                   (game_id,)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise JournalError(self._explain(exc)) from None
        if [r[0] for r in rows] != list(range(len(rows))):
            raise JournalError(f"{self.path}: game {game_id} has missing actions; "
                               "the journal is damaged")
        return [r[1] for r in rows]

    def games(self) -> list[GameRecord]:
        try:
            rows = self.db.execute(
                "SELECT g.id, g.edition, g.variant, g.players, g.started_at, g.ended_at,"
                " g.ranking, (SELECT count(*) FROM actions a WHERE a.game_id = g.id)"
                " FROM games g ORDER BY g.id").fetchall()
        except sqlite3.DatabaseError as exc:
            raise JournalError(self._explain(exc)) from None
        return [GameRecord(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5],
                           json.loads(r[6]) if r[6] else None, r[7]) for r in rows]

    def recent_names(self, limit: int = 12) -> list[str]:
        """Player names of recent games, newest first, without repeats."""
        seen: list[str] = []
        for g in reversed(self.games()):
            for n in g.players:
                if n not in seen:
                    seen.append(n)
        return seen[:limit]
