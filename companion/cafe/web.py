"""The hub's pages: the floor (every table at a glance) and the month's leaderboard.

Starlette routes (``companion.outputs.web.routing.WebApp``), served by
``companion.outputs.web.server.BackgroundServer`` (the phone view's server: uvicorn on
a thread of its own; the database is read on its worker threads, each open stream waits
on its event loop). Both pages are small HTML files
that render JSON from the API and stay live through one server-sent event stream
(``/api/stream``): the hub tells the page after every change, at most a few times a
second.

- ``/``                 the floor page
- ``/leaderboard``      the leaderboard page (``?month=YYYY-MM``)
- ``/api/floor``        every table: online, phase, elapsed, round, whose turn, help
  (``?lang=``: the language a seat colour's name is in)
- ``/api/leaderboard``  a month's standings (``?month=``; default: this month; ``?lang=``:
  the language a seat colour's row is named in)
- ``/api/health``       counts and the hub's lag behind the tables
- ``/api/stream``       server-sent events: ``floor`` and ``results``
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from datetime import datetime
from html import escape
from collections.abc import AsyncIterator, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from companion.outputs.web.routing import ERRORS, WebApp, html, json_response

from companion.words.i18n import DEFAULT, colour_name, tr
from . import view
from .hub import Hub
from .leaderboard import standings

MIN_GAP = 0.25          # seconds between two pushes of the same stream
KEEPALIVE = 15.0


def shown_names(state: dict, lang: str) -> dict[str, str]:
    """A table's players called by their seat's colour (as the table marks them, in its
    state's status), named in ``lang``: recorded name -> shown name."""
    players = state.get("players") or []
    colours = (state.get("status") or {}).get("seat_colours") or []
    return {p["name"]: colour_name(lang, c) for p, c in zip(players, colours, strict=False)
            if isinstance(c, str)}


def floor_card(row: dict, now: float, lang: str = DEFAULT) -> dict:
    """One table as the floor page shows it (a seat colour's name in ``lang``)."""
    state = row["state"] or {}
    st = state.get("status") or {}
    names = shown_names(state, lang)
    active = st.get("active")
    started = st.get("started_at")
    elapsed = None
    if started and st.get("phase") == "playing":
        elapsed = max(0, int(now - datetime.fromisoformat(started).timestamp()))
    return {
        "table": row["table"], "online": row["status"] == "online",
        "phase": st.get("phase", "idle"), "game": st.get("game"),
        "players": [{"name": names.get(p["name"], p["name"]), "score": p["score"]}
                    for p in state.get("players", [])],
        "started_at": started, "elapsed_s": elapsed,
        "round": st.get("round", 0), "turn": st.get("turn", 0),
        "active": names.get(active, active) if isinstance(active, str) else active,
        "final_round": bool(st.get("final_round")), "shop": st.get("shop", "OPEN"),
        "needs_help": list(st.get("needs_help") or []),
        "devices": st.get("devices") or {},
        "winners": [names.get(w, w) for w in state.get("winners") or []],
    }


class Waiter:
    """One open stream: what changed since it last looked, and the event that wakes it
    on the server's event loop."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.ready = asyncio.Event()
        self.kinds: set[str | None] = set()

    def wake(self, what: str | None) -> None:                  # any thread
        self.kinds.add(what)
        with contextlib.suppress(RuntimeError):                 # (the loop has ended)
            self.loop.call_soon_threadsafe(self.ready.set)

    def take(self) -> set[str | None]:
        self.ready.clear()
        kinds, self.kinds = self.kinds, set()
        return kinds


class Notifier:
    """Wakes the open streams (on the server's event loop) from the hub's MQTT thread."""

    def __init__(self) -> None:
        self.waiters: set[Waiter] = set()
        self.closing = threading.Event()
        self._lock = threading.Lock()

    def listen(self) -> Waiter:                                  # on the event loop
        waiter = Waiter()
        with self._lock:
            self.waiters.add(waiter)
        return waiter

    def forget(self, waiter: Waiter) -> None:
        with self._lock:
            self.waiters.discard(waiter)

    def changed(self, what: str, _table: str) -> None:          # any thread
        self._wake(what)

    def _wake(self, what: str | None) -> None:
        with self._lock:
            for waiter in self.waiters:
                waiter.wake(what)

    def close(self) -> None:                                    # the server is stopping
        self.closing.set()
        self._wake(None)


def error_page(language: str) -> Callable[[Request, int], Response]:
    """Every error the hub answers: one short page in the page's language (JSON for the
    API), never a server path."""
    def page(request: Request, status: int) -> Response:
        lang = view.language_of(request.query_params.get("lang"),
                                request.headers.get("accept-language", ""), language)
        key = f"web_error.{status}" if status in ERRORS else "web_error.other"
        said = tr(lang, key)
        if request.url.path.startswith("/api/"):
            return json_response({"error": said}, status=status)
        return html(f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
                    f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                    f'<title>{escape(tr(lang, "web_error.title"))}</title></head><body>'
                    f'<main><h1>{escape(tr(lang, "web_error.title"))}</h1>'
                    f'<p>{escape(said)}</p><p><a href="/?lang={lang}">'
                    f'{escape(tr(lang, "cafe.floor"))}</a></p></main></body></html>', status)
    return page


def build_app(hub: Hub, language: str = DEFAULT,
              clock: Callable[[], float] = time.time) -> WebApp:
    store, venue = hub.store, hub.venue
    notifier = Notifier()
    hub.subscribe(notifier.changed)

    def floor(lang: str) -> dict:
        now = clock()
        return {"venue": venue, "now": now,
                "tables": [floor_card(r, now, lang) for r in store.floor(venue)]}

    def board(month: str | None, lang: str) -> dict:
        month = month or datetime.now().strftime("%Y-%m")
        months = store.months(venue)
        return {"venue": venue, "month": month, "language": lang,
                "months": sorted(set(months) | {month}, reverse=True),
                "rows": standings(store.results_of(venue, month), lang)}

    def lang_of(request: Request) -> str:
        return view.language_of(request.query_params.get("lang"),
                                request.headers.get("accept-language", ""), language)

    def page(name: str, request: Request) -> Response:
        lang = lang_of(request)
        return html(view.render(name, lang, venue),
                    headers={"Cache-Control": "no-store", "Vary": "Accept-Language"})

    def floor_page(request: Request) -> Response:
        return page("floor", request)

    def board_page(request: Request) -> Response:
        return page("leaderboard", request)

    def api_floor(request: Request) -> Response:
        return json_response(floor(lang_of(request)))

    def api_board(request: Request) -> Response:
        month = request.query_params.get("month")
        if month is not None and not _is_month(month):
            return json_response({"error": "month must look like 2026-11"}, status=400)
        return json_response(board(month, lang_of(request)))   # (a seat colour's name)

    def api_health(request: Request) -> Response:
        return json_response({"venue": venue, "broker": hub.connected.is_set(),
                              "lag_s": hub.lag_percentiles(), "counts": dict(hub.counts)})

    async def stream(request: Request) -> Response:
        waiter = notifier.listen()
        lang = lang_of(request)

        async def events() -> AsyncIterator[str]:          # on the server's event loop
            try:
                yield _sse("floor", await run_in_threadpool(floor, lang))
                while not notifier.closing.is_set():
                    try:
                        await asyncio.wait_for(waiter.ready.wait(), KEEPALIVE)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    if None not in waiter.kinds:
                        await asyncio.sleep(MIN_GAP)        # gather a burst into one push
                    kinds = waiter.take()
                    if None in kinds or notifier.closing.is_set():
                        return
                    if "floor" in kinds:
                        yield _sse("floor", await run_in_threadpool(floor, lang))
                    if "results" in kinds:
                        yield _sse("results", {})
            finally:
                notifier.forget(waiter)
        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    return WebApp([
        Route("/", floor_page), Route("/leaderboard", board_page),
        Route("/api/floor", api_floor), Route("/api/leaderboard", api_board),
        Route("/api/health", api_health), Route("/api/stream", stream),
    ], error_page=error_page(language), on_close=notifier.close, name="café hub")


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _is_month(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m")
    except ValueError:
        return False
    return len(text) == 7

