"""The web side of the table loop: what every phone sees, and what it may post.

``LiveTable`` is one more subscriber of the table loop (``TableLoop.subscribe``):
on the loop's thread it only turns each ``Update`` into a small snapshot (the
table exactly as ``replay --json`` prints it, plus the draws the table still
owes, the seats' colours and what just happened) and puts it in each open
stream's queue. Everything else (JSON text, pages, the streams to the
phones) happens on the web server's thread, so the table's own tap-to-frame
time does not grow with the number of phones.

It never touches the journal or the game: a phone's action is posted as a
typed input (``WebAction``) and its answer is the loop's ``Update`` for it (the
phone's thread waits for it on an event).
"""
from __future__ import annotations

import collections
import dataclasses
import itertools
import logging
import queue
import secrets
import threading
import time
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from companion.core import events as ev
from companion.core.seat_colours import names_of, same_table, screen_rgb
from companion.core.snapshot import Snapshot as TableSnapshot
from companion.core.loop import Update
from companion.core.rules.view import table_json

log = logging.getLogger("companion.outputs.web")


@dataclass(frozen=True)
class Snapshot:
    seq: int
    table: dict                        # exactly replay --json's output
    game: Any                          # the rules' Game (immutable once made), or None
    draws: tuple = ()                  # ((player, count), ...) the table still has to draw
    draws_short: bool = False
    happened: tuple = ()               # the engine's happenings of this update
    rejection: Any | None = None
    colours: tuple = ()                # RGB per seat
    drinks: dict = field(default_factory=dict)   # tag -> drink, for the cards the catalog knows
    bgstats: str | None = None         # the finished game's BG Stats link (the loop's snapshot)
    game_id: int | None = None         # the journal's number of the game (its story page)
    at: float = 0.0                    # time.monotonic() when the loop applied it
    posted_at: float = 0.0             # the input's own time (a seat press), if it had one
    rules_table: Any = None            # the rules' Table (with its history): "why?"
    action: dict | None = None         # the action this update tried (a refusal's "why?")
    version: ev.TableVersion = ev.TableVersion()   # the table's version (its ETag)
    epoch: str = ""                    # this phone view's start (``LiveTable.epoch``)

    @property
    def etag(self) -> str:
        """The HTTP entity tag of this table: its version, after the epoch of the phone
        view that served it (``"<epoch>-<game>.<step>.<turn>.<active>"``)."""
        return f'"{self.epoch}-{self.version.etag[1:]}' if self.epoch else self.version.etag

    def event(self) -> dict:
        """The JSON of one update as ``GET /api/events`` streams it; ``version`` is the
        table's ETag, what the page sends back as ``If-Match``."""
        return {"seq": self.seq, "version": self.etag, "table": self.table,
                "happened": [h.as_dict() for h in self.happened],
                "rejection": None if self.rejection is None else {
                    "code": self.rejection.code, "text": self.rejection.text},
                "draws": [list(d) for d in self.draws]}


@dataclass(eq=False)
class Client:
    queue: queue.Queue[Snapshot | None]         # None: the stream ends
    lang: str | None = None
    since: float = field(default_factory=time.monotonic)
    #: called (on the loop's thread, or the stopping one) after each put: wakes the
    #: phone's stream on the web server's event loop
    wake: Callable[[], None] = lambda: None


class LiveTable:
    """The phone view's output of the table loop (``outputs.Output``: the service starts
    it with ``outputs.Outputs``, a test may ``loop.subscribe(live.on_update)``); the web
    app reads ``latest`` and ``listen()``s; ``post_action`` waits for the loop's answer."""

    name = "web live view"
    QUEUE = 64                          # a phone this far behind is dropped (it reconnects)

    def __init__(self, loop: Any, colours: list | None = None):
        self.loop = loop
        #: new at every start, in every ETag: a journal started afresh numbers its games
        #: from 1 again, and a page left open from before must not name a table of it
        self.epoch = secrets.token_hex(3)
        self.colours = tuple(tuple(c) for c in (colours or ()))
        self.devices: dict[str, str] = {}
        self._seq = itertools.count(1)
        self._draws: tuple = ()
        self._short = False
        self._colour_names: tuple[str, ...] = ()   # the seat colours the snapshot named
        shared = loop.snapshot              # the loop's: frozen, any thread may read it
        self.latest = Snapshot(0, table_json(shared.table), shared.table.game,
                               colours=self.colours, at=time.monotonic(),
                               rules_table=shared.table,
                               version=shared.version, epoch=self.epoch,
                               bgstats=shared.play_link, game_id=shared.game_id)
        self.serving = False                # the web server is up (``PhoneView.start``)
        self.clients: set[Client] = set()
        self._waiting: dict[int, _Answer] = {}
        self._lock = threading.Lock()       # guards clients and _waiting

    # --- the output interface (``outputs.Output``) -------------------------------------

    def start(self, snapshot: TableSnapshot | None = None) -> LiveTable:
        """Show the table as it is: its draws due, seat colours and devices."""
        if snapshot is not None:
            self._follow(snapshot)
            self.latest = dataclasses.replace(self.latest, draws=self._draws,
                                              draws_short=self._short, colours=self.colours,
                                              game_id=snapshot.game_id,
                                              bgstats=snapshot.play_link)
        return self

    def on_update(self, update: Update) -> None:
        self(update)

    def close(self) -> None:
        self.close_streams()

    def status(self) -> str:
        """"ok", or "no server" while the web server is not serving."""
        return "ok" if self.serving else "no server"

    # --- the table loop's thread -------------------------------------------------------

    def __call__(self, u: Update) -> None:
        shared = u.snapshot if u.snapshot is not None else self.loop.snapshot
        self._follow(shared)
        state = table_json(u.table)
        happened = tuple(u.happened)
        last = self.latest
        if (not happened and u.rejection is None and last is not None
                and last.game_id == shared.game_id):
            # an update with nothing new at the table (a play link ready, a device's state)
            # keeps the news: a phone opening the page then still reads what just happened
            happened = last.happened
        snap = Snapshot(next(self._seq), state, u.table.game, draws=self._draws,
                        draws_short=self._short, happened=happened,
                        rejection=u.rejection, colours=self.colours, at=time.monotonic(),
                        posted_at=u.posted_at, drinks=self._drinks(state, shared),
                        version=u.version if u.version is not None else self.loop.turn_now(),
                        epoch=self.epoch,
                        bgstats=shared.play_link,
                        game_id=shared.game_id,
                        rules_table=u.table, action=u.action)
        self.latest = snap
        with self._lock:
            waiter = self._waiting.pop(id(u.event), None)
            clients = list(self.clients)
        if waiter is not None:
            waiter.update = u
            waiter.done.set()
        for client in clients:
            try:
                client.queue.put_nowait(snap)
            except queue.Full:            # this phone is too far behind: it reconnects
                self.forget(client)
                client.queue = _closed_queue()
            client.wake()

    def _follow(self, shared: TableSnapshot) -> None:
        """The loop's snapshot as the phones show it: the devices' reports, the seats'
        colours chosen at setup, and who still draws how many (``draw_prompt``: as the
        touchscreen and the lights show it), unless a prompt was dismissed this turn."""
        self.devices.update(shared.devices)
        if shared.seat_colours and shared.seat_colours != self._colour_names:
            self._colour_names = shared.seat_colours
            self.colours = tuple(tuple(c) for c in screen_rgb(shared.seat_colours))
        due = shared.draws
        if due.pending is None or due.any_dismissed:
            self._draws, self._short = (), False
        else:
            self._draws, self._short = due.pending.draws, due.pending.short

    def _drinks(self, state: dict, shared: TableSnapshot) -> dict:
        """The drink of each scanned card on the table, by tag (the snapshot's catalog)."""
        catalog = shared.catalog
        out: dict[str, str] = {}
        if catalog is None:
            return out
        for p in state["players"]:
            for pos in p["queue"]:
                for tag in pos:
                    card = catalog.get(tag) if tag else None
                    if card is not None:
                        out[tag] = card.drink
        return out

    # --- the web server's thread -------------------------------------------------------

    def listen(self, lang: str | None = None,
               wake: Callable[[], None] | None = None) -> Client:
        client = Client(queue.Queue(self.QUEUE), lang)
        if wake is not None:
            client.wake = wake
        with self._lock:
            self.clients.add(client)
        return client

    def forget(self, client: Client) -> None:
        with self._lock:
            self.clients.discard(client)

    def close_streams(self) -> None:
        """End every stream (the server is stopping)."""
        with self._lock:
            clients, self.clients = list(self.clients), set()
        for client in clients:
            try:
                client.queue.put_nowait(None)
            except queue.Full:
                client.queue = _closed_queue()
            client.wake()

    def post_action(self, action: dict, client: str, timeout: float = 5.0,
                    seen: ev.TableVersion | None = None) -> Update:
        """Post a phone's action to the table loop and wait for its ``Update`` (on the
        phone's own thread; TimeoutError after ``timeout``); ``seen`` is the version its
        ``If-Match`` named (the loop's check refuses the action if the table has changed
        since). A new game with the table's players on the same seats (the phone's
        rematch) keeps their seats' colours, as the touchscreen's rematch does."""
        event = ev.WebAction(action, at=time.monotonic(), client=client, seen=seen,
                             seat_colors=self._same_seats(action))
        answer = _Answer()
        with self._lock:
            self._waiting[id(event)] = answer
        self.loop.post(event)
        try:
            if not answer.done.wait(timeout) or answer.update is None:
                raise TimeoutError(f"the table gave no answer within {timeout:.0f} s")
            return answer.update
        finally:
            with self._lock:
                self._waiting.pop(id(event), None)

    def _same_seats(self, action: dict) -> tuple[str, ...]:
        """The seat colours of the table shown, for a setup of the same players on the
        same seats (a seat's colour name in any language: ``same_table``); else none."""
        snap = self.latest
        players = [p["name"] for p in snap.table.get("players") or []]
        colours = names_of(snap.colours)
        if action.get("do") != "setup" or "" in colours or not same_table(
                action.get("players") or [], players, colours):
            return ()
        return tuple(colours[:len(players)])


class _Answer:
    """The table loop's answer to one posted action, set on the loop's thread."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.update: Update | None = None


def _closed_queue() -> queue.Queue[Snapshot | None]:
    q: queue.Queue[Snapshot | None] = queue.Queue(1)
    q.put_nowait(None)
    return q


class LogTail(logging.Handler):
    """The last ``size`` log lines, for the phone's Companion page: attached when the
    service starts (not when the phone view does), so the start-up's lines are there too."""

    def __init__(self, size: int = 100):
        super().__init__(logging.INFO)
        self.lines: collections.deque = collections.deque(maxlen=size)
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s",
                                            "%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(self.format(record))
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)
