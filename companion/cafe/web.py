"""The hub's pages: the floor (every table at a glance) and the month's leaderboard.

Routes of ``companion.outputs.web.routing``, served by
``companion.outputs.web.server.BackgroundServer`` (the phone view's server, on threads:
each open stream waits on a connection's own thread). Both pages are small HTML files
that render JSON from the API and stay live through one server-sent event stream
(``/api/stream``): the hub tells the page after every change, at most a few times a
second.

- ``/``                 the floor page
- ``/leaderboard``      the leaderboard page (``?month=YYYY-MM``)
- ``/api/floor``        every table: online, phase, elapsed, round, whose turn, help
- ``/api/leaderboard``  a month's standings (``?month=``; default: this month)
- ``/api/health``       counts and the hub's lag behind the tables
- ``/api/stream``       server-sent events: ``floor`` and ``results``
"""
from __future__ import annotations

import json
import queue
import threading
import time
from datetime import datetime
from collections.abc import Callable, Iterator

from companion.outputs.web.routing import Request, Response, Route, Router, Stream, html, \
    json_response

from companion.words.i18n import DEFAULT
from . import view
from .hub import Hub
from .leaderboard import standings

MIN_GAP = 0.25          # seconds between two pushes of the same stream
KEEPALIVE = 15.0


def floor_card(row: dict, now: float) -> dict:
    """One table as the floor page shows it."""
    state = row["state"] or {}
    st = state.get("status") or {}
    started = st.get("started_at")
    elapsed = None
    if started and st.get("phase") == "playing":
        elapsed = max(0, int(now - datetime.fromisoformat(started).timestamp()))
    return {
        "table": row["table"], "online": row["status"] == "online",
        "phase": st.get("phase", "idle"), "game": st.get("game"),
        "players": [{"name": p["name"], "score": p["score"]} for p in state.get("players", [])],
        "started_at": started, "elapsed_s": elapsed,
        "round": st.get("round", 0), "turn": st.get("turn", 0), "active": st.get("active"),
        "final_round": bool(st.get("final_round")), "shop": st.get("shop", "OPEN"),
        "needs_help": list(st.get("needs_help") or []),
        "devices": st.get("devices") or {}, "winners": state.get("winners") or [],
    }


class Notifier:
    """Wakes the open streams (each on its connection's thread) from the hub's MQTT
    thread."""

    def __init__(self) -> None:
        self.waiters: set[queue.Queue[str | None]] = set()
        self.closing = threading.Event()
        self._lock = threading.Lock()

    def listen(self) -> queue.Queue[str | None]:
        q: queue.Queue[str | None] = queue.Queue()
        with self._lock:
            self.waiters.add(q)
        return q

    def forget(self, q: queue.Queue[str | None]) -> None:
        with self._lock:
            self.waiters.discard(q)

    def changed(self, what: str, _table: str) -> None:          # any thread
        self._wake(what)

    def _wake(self, what: str | None) -> None:
        with self._lock:
            waiters = list(self.waiters)
        for q in waiters:
            q.put_nowait(what)

    def close(self) -> None:                                    # the server is stopping
        self.closing.set()
        self._wake(None)


def build_app(hub: Hub, language: str = DEFAULT,
              clock: Callable[[], float] = time.time) -> Router:
    store, venue = hub.store, hub.venue
    notifier = Notifier()
    hub.subscribe(notifier.changed)

    def floor() -> dict:
        now = clock()
        return {"venue": venue, "now": now,
                "tables": [floor_card(r, now) for r in store.floor(venue)]}

    def board(month: str | None) -> dict:
        month = month or datetime.now().strftime("%Y-%m")
        months = store.months(venue)
        return {"venue": venue, "month": month,
                "months": sorted(set(months) | {month}, reverse=True),
                "rows": standings(store.results_of(venue, month))}

    def page(name: str, request: Request) -> Response:
        lang = view.language_of(request.query.get("lang"),
                                request.headers.get("accept-language", ""), language)
        return html(view.render(name, lang, venue),
                    headers={"Cache-Control": "no-store", "Vary": "Accept-Language"})

    def floor_page(request: Request) -> Response:
        return page("floor", request)

    def board_page(request: Request) -> Response:
        return page("leaderboard", request)

    def api_floor(request: Request) -> Response:
        return json_response(floor())

    def api_board(request: Request) -> Response:
        month = request.query.get("month")
        if month is not None and not _is_month(month):
            return json_response({"error": "month must look like 2026-11"}, status=400)
        return json_response(board(month))

    def api_health(request: Request) -> Response:
        return json_response({"venue": venue, "broker": hub.connected.is_set(),
                              "lag_s": hub.lag_percentiles(), "counts": dict(hub.counts)})

    def stream(request: Request) -> Response:
        def events() -> Iterator[str]:          # on the screen's own connection thread
            q = notifier.listen()
            try:
                yield _sse("floor", floor())
                while not notifier.closing.is_set():
                    try:
                        what = q.get(timeout=KEEPALIVE)
                    except queue.Empty:
                        yield ": keep-alive\n\n"
                        continue
                    if what is None:
                        return
                    notifier.closing.wait(MIN_GAP)          # gather a burst into one push
                    kinds: set[str | None] = {what}
                    while not q.empty():
                        kinds.add(q.get_nowait())
                    if None in kinds:
                        return
                    if "floor" in kinds:
                        yield _sse("floor", floor())
                    if "results" in kinds:
                        yield _sse("results", {})
            finally:
                notifier.forget(q)
        return Stream(events(), media_type="text/event-stream",
                      headers={"Cache-Control": "no-store"})

    return Router([
        Route("/", floor_page), Route("/leaderboard", board_page),
        Route("/api/floor", api_floor), Route("/api/leaderboard", api_board),
        Route("/api/health", api_health), Route("/api/stream", stream),
    ], on_close=notifier.close)


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _is_month(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m")
    except ValueError:
        return False
    return len(text) == 7

