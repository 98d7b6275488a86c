"""The hub's database: the tables as last reported and every finished game.

SQLAlchemy Core with portable statements only (no dialect upserts), so the same
code runs on SQLite and PostgreSQL. One writer (the hub's writer thread, a batch
of messages per transaction); the web pages read. A result is kept once per
(venue, table, game id) - and the game's start, which tells a replaced journal's
game 1 from the old one: a duplicate is recognised by its digest and ignored, a
correction after the end replaces it.
"""
from __future__ import annotations

import json
import os
from datetime import datetime

from sqlalchemy import (Column, Float, Integer, MetaData, String, Table, Text, create_engine,
                        event, select, update)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

meta = MetaData()

tables = Table(
    "tables", meta,
    Column("venue", String(64), primary_key=True),
    Column("name", String(64), primary_key=True),
    Column("status", String(16), nullable=False, default="offline"),
    Column("state", Text),                  # the retained state JSON
    Column("updated_at", Float),            # the table's clock at that state
    Column("received_at", Float),           # the hub's clock when it arrived
)

results = Table(
    "results", meta,
    Column("venue", String(64), primary_key=True),
    Column("table_name", String(64), primary_key=True),
    Column("game_id", Integer, primary_key=True, autoincrement=False),
    # with the game id, the game's start names it even if a table's journal was replaced
    # (a new journal counts its games from 1 again)
    Column("started_at", String(40), primary_key=True),
    Column("digest", String(32), nullable=False),
    Column("month", String(7), nullable=False, index=True),   # YYYY-MM, hub's local time
    Column("ended_at", String(40), nullable=False),
    Column("payload", Text, nullable=False),
    Column("received_at", Float, nullable=False),
)


class StoreError(Exception):
    """The hub's database cannot be used; the message says which and why."""


def database_url(setting: str) -> str:
    """``[cafe] database``: a URL as it is, a file path as an SQLite URL."""
    if "://" in setting:
        return setting
    path = os.path.abspath(os.path.expanduser(setting))
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as exc:
        raise StoreError(f"the hub's database {path}: cannot create its folder "
                         f"({exc.strerror})") from None
    return "sqlite:///" + path


def month_of(ended_at: str) -> str:
    """The month a game counts for, in the hub's local time zone."""
    return datetime.fromisoformat(ended_at).astimezone().strftime("%Y-%m")


class Store:
    def __init__(self, setting: str):
        url = database_url(setting)       # a StoreError already for a folder it cannot make
        try:
            self.engine: Engine = create_engine(url, pool_pre_ping=True)
            if self.engine.dialect.name == "sqlite":
                event.listen(self.engine, "connect", _sqlite_modes)
            meta.create_all(self.engine)
        except (SQLAlchemyError, ImportError) as exc:
            raise StoreError(f"the hub's database {_hide(url)} cannot be opened: "
                             f"{getattr(exc, 'orig', None) or exc}") from None

    def close(self) -> None:
        self.engine.dispose()

    # --- writing (the hub's writer thread) ------------------------------------------------

    def write(self, venue: str, items: list[tuple]) -> list[str | None]:
        """Keep a batch of messages in one transaction, in their order. Items are
        ("state", table, state, at), ("status", table, text, at) or
        ("result", table, payload, digest, at); returns, per item, what it was for
        results ("new", "duplicate" or "corrected") and None for the others."""
        out: list[str | None] = []
        with self.engine.begin() as conn:
            for item in items:
                kind, name = item[0], item[1]
                if kind == "state":
                    state, at = item[2], item[3]
                    self._upsert_table(conn, venue, name, {
                        "state": json.dumps(state, ensure_ascii=False),
                        "updated_at": (state.get("status") or {}).get("updated_at"),
                        "received_at": at})
                    out.append(None)
                elif kind == "status":
                    self._upsert_table(conn, venue, name, {"status": item[2],
                                                           "received_at": item[3]})
                    out.append(None)
                else:
                    out.append(self._result(conn, venue, name, *item[2:]))
        return out

    def _upsert_table(self, conn, venue: str, name: str, values: dict) -> None:
        key = (tables.c.venue == venue) & (tables.c.name == name)
        if conn.execute(update(tables).where(key).values(**values)).rowcount == 0:
            conn.execute(tables.insert().values(venue=venue, name=name,
                                                **{"status": "online", **values}))

    def _result(self, conn, venue: str, name: str, payload: dict, digest: str,
                received_at: float) -> str:
        key = ((results.c.venue == venue) & (results.c.table_name == name)
               & (results.c.game_id == payload["game"])
               & (results.c.started_at == payload["started_at"]))
        values = {"digest": digest, "month": month_of(payload["ended_at"]),
                  "ended_at": payload["ended_at"], "received_at": received_at,
                  "payload": json.dumps(payload, ensure_ascii=False)}
        had = conn.execute(select(results.c.digest).where(key)).scalar()
        if had == digest:
            return "duplicate"
        if had is None:
            conn.execute(results.insert().values(venue=venue, table_name=name,
                                                 game_id=payload["game"],
                                                 started_at=payload["started_at"], **values))
            return "new"
        conn.execute(update(results).where(key).values(**values))
        return "corrected"

    # --- reading (the web pages) ----------------------------------------------------------

    def floor(self, venue: str) -> list[dict]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(tables).where(tables.c.venue == venue)
                                .order_by(tables.c.name)).all()
        return [{"table": r.name, "status": r.status,
                 "state": json.loads(r.state) if r.state else None,
                 "received_at": r.received_at} for r in rows]

    def results_of(self, venue: str, month: str | None = None) -> list[dict]:
        query = select(results.c.payload).where(results.c.venue == venue)
        if month:
            query = query.where(results.c.month == month)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(results.c.ended_at)).all()
        return [json.loads(r.payload) for r in rows]

    def months(self, venue: str) -> list[str]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(results.c.month).where(results.c.venue == venue)
                                .distinct().order_by(results.c.month.desc())).all()
        return [r.month for r in rows]


def _sqlite_modes(dbapi_conn, _record) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


def _hide(url: str) -> str:
    from sqlalchemy.engine import make_url
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - only for the message
        return "(the configured URL)"
