"""The hub's pages: the floor (every table at a glance) and the month's leaderboard.

Starlette, served by ``companion.outputs.web.server.BackgroundServer`` (the phone view's
runner). Both pages are small HTML files that render JSON from the API and
stay live through one server-sent event stream (``/api/stream``): the hub
tells the page after every change, at most a few times a second.

- ``/``                 the floor page
- ``/leaderboard``      the leaderboard page (``?month=YYYY-MM``)
- ``/api/floor``        every table: online, phase, elapsed, round, whose turn, help
- ``/api/leaderboard``  a month's standings (``?month=``; default: this month)
- ``/api/health``       counts and the hub's lag behind the tables
- ``/api/stream``       server-sent events: ``floor`` and ``results``
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import time
from datetime import datetime
from importlib import resources
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, StreamingResponse
from starlette.routing import Route

from companion.appliance.config import LANGUAGES
from companion.words.i18n import DEFAULT, tr
from .hub import Hub
from .leaderboard import standings

MIN_GAP = 0.25          # seconds between two pushes of the same stream
KEEPALIVE = 15.0
WORDS = ("title", "leaderboard", "floor", "playing", "idle", "over", "offline", "online",
         "final_round", "needs_help", "round", "to_play", "elapsed", "no_tables", "month",
         "player", "games", "wins", "average", "points", "no_games", "winner", "shop_open",
         "shop_closed", "help_device")


# what both pages start with: the head, and the words and helpers their scripts share
HEAD = """<!doctype html>
<html lang="{{LANG}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Coffee Rush · {{VENUE}}</title>
<script>
const W = {{WORDS}};
const say = (key, params={}) => (W[key] || key).replace(/\\{(\\w+)\\}/g, (_, k) => params[k] ?? "");
const esc = s => String(s).replace(/[&<>"']/g,
  c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));
</script>
"""


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
    """Wakes the open streams from the hub's MQTT thread."""

    def __init__(self):
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiters: set[asyncio.Queue] = set()
        self.closing = False

    def changed(self, what: str, _table: str) -> None:          # any thread
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):        # the loop closed meanwhile
                loop.call_soon_threadsafe(self._wake, what)

    def _wake(self, what: str | None) -> None:
        for q in list(self.waiters):
            q.put_nowait(what)

    def close(self) -> None:                                    # the server's loop
        self.closing = True
        self._wake(None)


def build_app(hub: Hub, language: str = DEFAULT, clock: Callable[[], float] = time.time):
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

    def page(name: str, request: Request) -> HTMLResponse:
        lang = request.query_params.get("lang", language)
        lang = lang if lang in LANGUAGES else "en"
        words = {w: tr(lang, f"cafe.{w}") for w in WORDS}
        html = HEAD + resources.files("companion.cafe").joinpath(
            f"pages/{name}.html").read_text("utf-8")
        html = (html.replace("{{LANG}}", lang).replace("{{VENUE}}", _escape(venue))
                .replace("{{WORDS}}",
                         json.dumps(words, ensure_ascii=False).replace("<", "\\u003c")))
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def floor_page(request: Request):
        return page("floor", request)

    async def board_page(request: Request):
        return page("leaderboard", request)

    async def api_floor(request: Request):
        return JSONResponse(await run_in_threadpool(floor))

    async def api_board(request: Request):
        month = request.query_params.get("month")
        if month is not None and not _is_month(month):
            return JSONResponse({"error": "month must look like 2026-11"}, status_code=400)
        return JSONResponse(await run_in_threadpool(board, month))

    async def api_health(request: Request):
        return JSONResponse({"venue": venue, "broker": hub.connected.is_set(),
                             "lag_s": hub.lag_percentiles(), "counts": dict(hub.counts)})

    async def stream(request: Request):
        notifier.loop = asyncio.get_running_loop()
        q: asyncio.Queue = asyncio.Queue()
        notifier.waiters.add(q)

        async def events():
            try:
                yield _sse("floor", await run_in_threadpool(floor))
                while not notifier.closing:
                    try:
                        what = await asyncio.wait_for(q.get(), KEEPALIVE)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    if what is None:
                        return
                    await asyncio.sleep(MIN_GAP)             # gather a burst into one push
                    kinds = {what}
                    while not q.empty():
                        kinds.add(q.get_nowait())
                    if None in kinds:
                        return
                    if "floor" in kinds:
                        yield _sse("floor", await run_in_threadpool(floor))
                    if "results" in kinds:
                        yield _sse("results", {})
            finally:
                notifier.waiters.discard(q)
        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    app = Starlette(routes=[
        Route("/", floor_page), Route("/leaderboard", board_page),
        Route("/api/floor", api_floor), Route("/api/leaderboard", api_board),
        Route("/api/health", api_health), Route("/api/stream", stream),
    ])
    app.state.notifier = notifier
    return app


def _sse(event: str, data: dict) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _is_month(text: str) -> bool:
    try:
        datetime.strptime(text, "%Y-%m")
    except ValueError:
        return False
    return len(text) == 7


def _escape(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
