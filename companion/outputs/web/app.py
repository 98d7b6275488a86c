"""The phone view: its routes over the table loop (Starlette, ``routing.WebApp``, served
by uvicorn on a thread of its own: ``server.BackgroundServer``), and ``PhoneView`` which
runs it (background server, mDNS announcement, log tail).

Routes (the JSON API is documented in docs/api.md):

- ``GET /``                 the live table (``?lang=es`` etc.; remembered in a cookie)
- ``GET /history``          every game with its ranking and exports
- ``GET /history/{id}``     one game: its ranking, the score chart round by round (SVG)
                            and the turning points
- ``GET /history/{id}/{fmt}``  script, json, csv or bgstats (a download); png or pdf:
                            the finished game's one-page summary (``?lang=``)
- ``GET /companion``        version, uptime, devices, last log lines, config
- ``GET /api/table``        the running game exactly as ``replay --json`` prints it, with
                            an ``ETag`` naming the table's version (after this start's
                            epoch: a page from before a restart names no table of it)
- ``GET /api/why``          why each number or sign the companion set by itself is what it
                            is (``?lang=``): target -> key, parameters and sentence
- ``GET /api/events``       server-sent events: each update as JSON (``?lang=`` adds
                            the live table's HTML for the pages)
- ``POST /api/pair``        ``{"code": "482913", "name": "Ana's phone"}`` -> ``{"token": ...}``
                            (also set as an HttpOnly cookie for the page)
- ``DELETE /api/pair``      the phone forgets itself (its token stops working)
- ``POST /api/action``      one table-script line; needs a paired phone's token
                            (``Authorization: Bearer <token>``, or the page's cookie);
                            with ``If-Match: <ETag>`` it acts only on that table: if the
                            table changed since in a way that matters (``table.stale``),
                            412 with the current table

Reads are open; a write needs a paired phone's token (``pairing.py``: the code is
entered once, never sent with actions), comes from the page's own origin (a browser's
``Origin`` header must match the host; a cookie counts only with it), and is at most
``MAX_LINE`` bytes. Every request must name the companion itself in its Host header
(its name, its ``.local`` name, an address, localhost, or ``[web] hosts``): a page on
another site that makes its name resolve to the table (DNS rebinding) is refused before
any handler. History reads the journal through a read-only
connection of its own (``JournalReader``), never the table's, on a worker thread of the
server (never the table loop's); an action reaches the table only through its input
queue, and the phone's request waits for the loop's answer on a worker thread too. Every
error (404, 405, 413, 500, ...) is one page in the page's language (``error_page``), with
no server path in it.
"""
from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import queue
import re
import socket
import time
from typing import TYPE_CHECKING, Any
from collections.abc import AsyncIterator, Callable
from urllib.parse import urlsplit

from companion.appliance import config as config_mod
from companion.review import bgstats, exports
from companion.appliance.config import LANGUAGES
from companion.core.events import TableVersion
from companion.core.journal import Journal, JournalError
from companion.core.rules import Rejection, parse_line
from companion.core.rules.json_text import loads
from companion.core.rules.rejections import reject
from companion.core.seat_colours import shown_rejection
from companion.core.session import rebuild
from companion.core.loop import STALE, Update
from companion.words.i18n import rejection_text, tr
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from . import pages
from .live import LiveTable, LogTail, Snapshot
from .routing import WebApp, html, json_response, read_body, text, unread_closes
from .pairing import (BUSY, CODE_FILE, LOCKED, OK, Pairing, phone_name, publish_code,
                      unpublish_code)
from .why import live_names, why_json
from .server import BackgroundServer

if TYPE_CHECKING:                       # imported when announcing
    from .mdns import Announcer

log = logging.getLogger("companion.outputs.web")
MAX_LINE = 4096
HEARTBEAT = 20.0                     # s between keep-alive comments on an idle stream
MAX_STREAMS = 64                     # open live pages at once (a café full of phones)
SECRET = re.compile(r"^(\w*(password|passwd|secret|token|psk|api_key)\w*) = .*$", re.M)
TOKEN_COOKIE = "companion_token"
SUMMARY_MEDIA = {"png": "image/png", "pdf": "application/pdf"}   # companion.review.summary's
PHONES_FILE = "paired-phones.json"    # beside the journal: the paired phones (hashed tokens)


class JournalReader:
    """The history's own read-only view of the journal (one place, for one owner)."""

    def __init__(self, path: str | None, location: str = ""):
        self.path, self.location = path, location
        self._links: dict[tuple[int, str], str] = {}     # (game, ended_at) -> BG Stats link

    def games_and_links(self) -> tuple[list, dict[int, str]]:
        if not self.path or not os.path.exists(self.path):
            return [], {}
        with Journal(self.path, readonly=True) as journal:
            games = journal.games()
            links = {}
            for g in games:
                if g.ended_at is not None and g.ranking:
                    key = (g.id, g.ended_at)           # a finished game replays only once
                    if key not in self._links:
                        try:
                            state = exports.final_state(journal.lines(g.id), rules=g.rules)
                            self._links[key] = exports.play_link(journal, g, state,
                                                                 self.location)
                        except (bgstats.NotFinished, exports.ExportError) as exc:
                            # the replay disagrees, or a migrated game no longer replays
                            log.warning("game %d has no BG Stats link: %s", g.id, exc)
                            continue
                    links[g.id] = self._links[key]
        return games, links

    def game(self, game_id: int):
        """(record, table) of one game, its table as its lines rebuild it; ExportError
        for a game the journal does not have or whose lines do not replay."""
        if not self.path or not os.path.exists(self.path):
            raise exports.ExportError("no games yet")
        with Journal(self.path, readonly=True) as journal:
            record = exports.record(journal, game_id)
            rebuilt = rebuild(journal.lines(game_id), rules=record.rules)
        if rebuilt.failed_at is not None:
            raise exports.ExportError(f"the game's {rebuilt.problem}")
        return record, rebuilt.table

    def summary(self, game_id: int, fmt: str, lang: str) -> bytes:
        """The finished game's one-page summary, PNG or PDF (``companion.review.summary``)."""
        if not self.path or not os.path.exists(self.path):
            raise exports.ExportError("no games yet")
        # pygame: loaded when a phone first asks for a summary
        from companion.review import summary
        with Journal(self.path, readonly=True) as journal:
            return summary.render(journal, game_id, fmt, lang)

    def export(self, game_id: int, fmt: str) -> str:
        if not self.path or not os.path.exists(self.path):
            raise exports.ExportError("no games yet")
        with Journal(self.path, readonly=True) as journal:
            return exports.render(journal, game_id, fmt, location=self.location)


def redacted(shown: str) -> str:
    return SECRET.sub(lambda m: f'{m.group(1)} = "••••••"', shown)


class PhoneView:
    """Everything the web side needs, built once by the service or the demo."""

    def __init__(self, loop: Any, cfg: Any, journal_path: str | None = None,
                 pairing: Pairing | None = None,
                 devices: Callable[[], dict[str, str]] | None = None,
                 colours: list | None = None, clock: Callable[[], float] = time.monotonic,
                 report: Callable[[Pairing], bytes] | None = None,
                 request_update: Callable[[str], str | None] | None = None,
                 log_tail: LogTail | None = None):
        self.cfg = cfg
        #: the help archive (``coffee-companion report``) and the update request, for a paired
        #: phone: given by the service where the program is installed (issue 41)
        self.report = report
        self.request_update = request_update
        self.live = LiveTable(loop, colours)
        folder = os.path.dirname(os.path.abspath(journal_path)) if journal_path else None
        store = os.path.join(folder, PHONES_FILE) if folder else None
        self.pairing = pairing or Pairing(store=store)
        #: the running table's code, for ``coffee-companion pair`` (``pairing.publish_code``)
        self.code_file = os.path.join(folder, CODE_FILE) if folder else None
        self.reader = JournalReader(journal_path, cfg["bgstats"]["location"])
        self.devices = devices or (lambda: {})
        self.clock = clock
        self.started = clock()
        #: the last log lines: the service's, attached since it started (then it owns it);
        #: else one of our own, attached while we serve
        self._own_tail = log_tail is None
        self.log_tail = log_tail if log_tail is not None else LogTail()
        self.server: BackgroundServer | None = None
        self.announcer: Announcer | None = None
        self.app = build_app(self)

    # --- running -----------------------------------------------------------------------

    def start(self, host: str | None = None, port: int | None = None,
              mdns: bool | None = None) -> bool:
        web = self.cfg["web"]
        self.server = BackgroundServer(self.app, web["bind"] if host is None else host,
                                       web["port"] if port is None else port,
                                       name="phone view", grace=1.0)
        self.server.on_stop(self.app.close)
        if not self.server.start():
            return False
        self.live.serving = True
        if self.code_file is not None:
            self.pairing.listeners.append(self._publish)
            self._publish(self.pairing.code)
        if self._own_tail:
            logging.getLogger().addHandler(self.log_tail)
        log.info("phones open the table at %s", self.public_url)
        if web["mdns"] if mdns is None else mdns:
            from .mdns import Announcer
            self.announcer = Announcer(self.server.port)
            self.announcer.start()
        return True

    @property
    def url(self) -> str | None:
        return self.server.url if self.server is not None and self.server.running else None

    @property
    def public_url(self) -> str | None:
        """The address phones type: the host's .local name (mDNS) and the port."""
        if self.server is None or not self.server.running:
            return None
        host = self.server.host
        if host in ("", "0.0.0.0", "::"):
            host = socket.gethostname().split(".")[0] + ".local"
        return f"http://{host}" + ("" if self.server.port == 80 else f":{self.server.port}")

    def _publish(self, code: str) -> None:
        if self.code_file is not None:
            publish_code(self.code_file, code, self.public_url)

    def close(self) -> None:
        if self.code_file is not None and self._publish in self.pairing.listeners:
            self.pairing.listeners.remove(self._publish)
            unpublish_code(self.code_file)
        if self.announcer is not None:
            self.announcer.close()
            self.announcer = None
        if self.server is not None:
            self.server.stop()
        self.live.serving = False
        if self._own_tail:
            logging.getLogger().removeHandler(self.log_tail)

    # --- facts for the pages -----------------------------------------------------------

    def device_states(self) -> dict[str, str]:
        states = dict(self.devices())
        for device, status in self.live.devices.items():     # what the devices said since
            if status in ("lost", "not_responding", "unavailable", "unsupported_firmware"):
                states[device] = "lost"
            elif states.get(device) in (None, "lost", "unavailable"):
                states[device] = "ok"
        return states


# --- the routes ----------------------------------------------------------------------

def language(request: Request, cfg: Any) -> str:
    asked = request.query_params.get("lang") or request.cookies.get("lang")
    if asked in LANGUAGES:
        return asked
    for part in request.headers.get("accept-language", "").split(","):
        code = part.split(";")[0].strip().lower()[:2]
        if code in LANGUAGES:
            return code
    return cfg["game"]["language"]


def _html(request: Request, lang: str, page: str) -> Response:
    r = html(page, headers={"Cache-Control": "no-store"})
    if request.query_params.get("lang") in LANGUAGES:
        r.set_cookie("lang", lang, max_age=365 * 86400, samesite="lax")
    return r


def host_names(cfg: Any) -> frozenset[str]:
    """The names the companion answers to (addresses are always accepted)."""
    name = socket.gethostname().split(".")[0].lower()
    extra = [h.lower() for h in cfg["web"]["hosts"]]
    return frozenset({"localhost", name, f"{name}.local", *extra})


def trusted_host(host_header: str, names: frozenset[str]) -> bool:
    """Whether a request's Host names this companion: one of ``names``, or an IP address
    (a DNS-rebinding page always names its own domain, never an address)."""
    host = host_header.strip().lower()
    if host.startswith("["):                      # [::1]:8080
        host = host[1:host.find("]")] if "]" in host else host
    elif host.count(":") == 1:
        host = host.split(":")[0]
    host = host.rstrip(".")
    if host in names:
        return True
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return False


def host_check(names: frozenset[str]) -> Callable[[Request], Response | None]:
    """Run before any route: a request for a Host the companion does not answer to gets
    421."""
    def check(request: Request) -> Response | None:
        host = request.headers.get("host", "")
        if trusted_host(host, names):
            return None
        log.warning("refused a request for host %r (not this companion)", host[:80])
        return text(f"this is a Coffee Rush companion, not {host[:80]!r}\n", 421)
    return check


def _client(request: Request) -> str:
    """The phone's address."""
    return request.client.host if request.client is not None else "?"


def _bearer(request: Request) -> tuple[str | None, bool]:
    """(token, from the cookie?): the Authorization header, else the page's cookie."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip(), False
    return request.cookies.get(TOKEN_COOKIE), True


def _same_origin(request: Request) -> bool:
    """A browser's cross-site request carries a foreign Origin: refuse it. Scripts
    (curl, a home-automation hub) send no Origin and are judged by the code alone."""
    origin = request.headers.get("origin")
    if request.headers.get("sec-fetch-site") == "cross-site":
        return False
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


def _not_a_paired_phone(request: Request, pairing, reading: bool = False) -> tuple[int, str] | None:
    """Why a request may not act on the table (status, words' key), or None: it comes from
    another site, carries the page's cookie without being the page, or is no paired phone.
    ``reading``: a download that changes nothing (the help report, followed as a link,
    which carries no Origin): the cookie counts unless the browser says the link was on
    another site's page (the cookie is SameSite=Strict: a browser never sends it from one)."""
    if not _same_origin(request):
        return 403, "web.origin"
    token, from_cookie = _bearer(request)
    if (from_cookie and token and request.headers.get("origin") is None
            and not (reading and request.headers.get("sec-fetch-site") in (None, "same-origin",
                                                                            "none"))):
        return 403, "web.origin"              # a cookie counts only from the page itself
    verdict = pairing.authorize(token)
    if verdict == BUSY:
        return 429, "web.busy"
    if verdict != OK:
        log.warning("phone %s: action refused, not a paired phone", _client(request))
        return 401, "web.not_paired"
    return None


def _one_line(body: bytes) -> tuple[str | None, dict | Rejection | None]:
    """The body's text and its table-script line (None: no line, or more than one; a
    Rejection: not UTF-8 or not a line the table takes)."""
    try:
        line: str | None = body.decode("utf-8").strip()
    except UnicodeDecodeError:
        line = None
    parsed = Rejection("bad_text", {}) if line is None else parse_line(line)
    if "\n" in (line or ""):
        return line, None
    return line, parsed


def _precondition(header: str | None, epoch: str) -> tuple[bool, TableVersion | None]:
    """An If-Match header: whether it can hold, and the table version it names (None: no
    header, or "*": the action acts on the table as it is). A tag of another ``epoch`` (a
    page served before the service started again: its game numbers may be a new
    journal's) or no tag of ours cannot hold."""
    if header is None or header.strip() == "*":
        return True, None
    m = _TAG.fullmatch(header.strip())
    if m is None or m.group(1) != epoch:
        return False, None
    seen = TableVersion.from_etag(f'"{m.group(2)}"')
    return seen is not None, seen


_TAG = re.compile(r'"([0-9a-f]{6})-([^"]*)"')


def error_page(cfg: Any) -> Callable[..., Response]:
    """Every error the phone view answers: one page in the page's language (HTML for a
    page, JSON ``{"message": ...}`` for the API), never a server path or a traceback;
    ``detail``: the words' key of what went wrong, when the status alone does not say."""
    def page(request: Request, status: int, detail: str | None = None) -> Response:
        lang = language(request, cfg)
        said = tr(lang, detail) if detail else pages.error_text(lang, status)
        if request.url.path.startswith("/api/"):
            return json_response({"message": said}, status=status)
        return html(pages.error_page(lang, status, said), status,
                    headers={"Cache-Control": "no-store"})
    return page


def build_app(view: PhoneView) -> WebApp:
    live, cfg = view.live, view.cfg
    html_cache: dict[tuple[int, str], str] = {}
    json_cache: dict[int, str] = {}
    errors = error_page(cfg)

    def event_json(snap: Snapshot, lang: str | None) -> str:
        key = (snap.seq, lang or "")
        out = html_cache.get(key)
        if out is None:
            if len(html_cache) > 64:
                html_cache.clear()
            data = dict(snap.event())
            if lang:
                data["html"] = pages.live_fragment(lang, snap)
            out = html_cache[key] = json.dumps(data, ensure_ascii=False)
        return out

    def table(request: Request) -> Response:
        snap = live.latest
        body = json_cache.get(snap.seq)
        if body is None:
            json_cache.clear()
            # byte for byte what `replay --json` prints
            body = json_cache[snap.seq] = json.dumps(snap.table, ensure_ascii=False) + "\n"
        return Response(body, media_type="application/json",
                        headers={"Cache-Control": "no-store", "ETag": snap.etag})

    def why(request: Request) -> Response:
        return json_response(why_json(live.latest, language(request, cfg)),
                             headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        lang = request.query_params.get("lang")
        lang = lang if lang in LANGUAGES else None
        if len(live.clients) >= MAX_STREAMS:
            return text("too many live pages are open; try again later\n", 503,
                        headers={"Retry-After": "30"})
        token, _ = _bearer(request)                # a paired phone opened the live table
        if token:
            await run_in_threadpool(view.pairing.seen, token)
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()

        def wake() -> None:                     # the table loop's thread, or the stopping one
            with contextlib.suppress(RuntimeError):      # (the server's loop has ended)
                loop.call_soon_threadsafe(ready.set)
        client = live.listen(lang, wake)

        async def stream() -> AsyncIterator[str]:       # on the server's event loop
            try:
                snap = live.latest
                sent = snap.seq
                yield f"id: {snap.seq}\nevent: update\ndata: {event_json(snap, lang)}\n\n"
                while True:
                    try:
                        got = client.queue.get_nowait()
                    except queue.Empty:
                        ready.clear()
                        if client.queue.empty():
                            try:
                                await asyncio.wait_for(ready.wait(), HEARTBEAT)
                            except TimeoutError:
                                yield ": keep-alive\n\n"
                        continue
                    if got is None:                   # the server is stopping
                        return
                    if got.seq <= sent:               # already sent as the first state
                        continue
                    snap, sent = got, got.seq
                    yield f"id: {snap.seq}\nevent: update\ndata: {event_json(snap, lang)}\n\n"
            finally:
                live.forget(client)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    async def action(request: Request) -> Response:
        lang = language(request, cfg)

        def answer(status: int, key: str, **extra) -> Response:
            return json_response({"accepted": status == 200, "message": tr(lang, key, **{
                k: v for k, v in extra.items() if k == "reason"}), **extra}, status=status)

        def current(status: int, key: str, rejection: Rejection | None = None,
                    **extra) -> Response:
            """An answer with the table as it is now (and its ETag); a 412 also with the
            page's live table (``html``, ``seq``), which the page shows at once."""
            snap = live.latest
            data = json.loads(event_json(snap, lang if status == 412 else None))
            state = data["table"]
            if status == 412:
                extra.update(html=data["html"], seq=snap.seq)
            if rejection is not None:
                shown = shown_rejection(rejection, live_names(lang, snap))   # (its words)
                extra.update(reason=rejection_text(lang, shown),
                             rejection={"code": rejection.code, "text": rejection.text})
            r = answer(status, key, **extra, table=state, version=snap.etag)
            r.headers["etag"] = snap.etag
            return r

        def act(parsed: dict, line: str, seen: TableVersion | None,
                precondition: str | None) -> Response:       # on a worker thread
            log.info("phone %s: %s%s", _client(request), line,
                     f" (If-Match {precondition})" if precondition else "")
            try:
                update = live.post_action(parsed, _client(request), seen=seen)
            except TimeoutError:
                return answer(504, "web.no_answer")
            if update.rejection is not None:  # stale: the table changed since the phone saw it
                return current(412 if update.rejection.code in STALE else 422, "web.refused",
                               update.rejection)
            return current(200, "web.accepted",
                           happened=[h.as_dict() for h in update.happened],
                           **setup_steps(update))

        def setup_steps(update: Update) -> dict[str, Any]:
            """A game the phone set up: its setup steps for the page to walk the table
            through (``pages.setup_steps``), and the ``seq`` of the live table they go
            with; any other action: nothing."""
            game = update.table.game
            if update.action is None or update.action["do"] != "setup" or game is None:
                return {}
            snap = live.latest                  # (this update's, or a later one)
            return {"setup": pages.setup_steps(lang, game, live_names(lang, snap)),
                    "seq": snap.seq}

        refused = _not_a_paired_phone(request, view.pairing)
        if refused is not None:
            return answer(*refused)
        body = await read_body(request, MAX_LINE)
        if body is None:
            return unread_closes(answer(413, "web.refused", reason=f"> {MAX_LINE} bytes"))
        line, parsed = _one_line(body)
        if parsed is None:
            return answer(400, "web.empty_line")
        if isinstance(parsed, Rejection):
            reason = rejection_text(lang, parsed)
            return answer(422, "web.refused", reason=reason,
                          rejection={"code": parsed.code, "text": parsed.text})
        precondition = request.headers.get("if-match")
        holds, seen = _precondition(precondition, live.epoch)
        if not holds:                 # names no version of this table: cannot hold
            return current(412, "web.refused", reject("stale_table"))
        return await run_in_threadpool(act, dict(parsed), line or "", seen, precondition)

    async def pair(request: Request) -> Response:
        lang = language(request, cfg)

        def answer(status: int, key: str) -> Response:
            return json_response({"paired": status == 200, "message": tr(lang, key)},
                                 status=status)

        if not _same_origin(request):
            return answer(403, "web.origin")
        if request.method == "DELETE":              # this phone forgets itself
            phone = view.pairing.phone(_bearer(request)[0])
            if phone is not None:
                view.pairing.forget(phone.id)
            r = answer(200, "web.unpaired")
            r.delete_cookie(TOKEN_COOKIE, path="/api")
            return r
        body = await read_body(request, MAX_LINE)
        try:      # (json_text: a nesting 3.11's json refuses and 3.13's reads, told alike)
            data = loads((body or b"").decode("utf-8"))
        except UnicodeDecodeError:
            data = None
        if not isinstance(data, dict) or not isinstance(data.get("code"), str):
            r = answer(400, "web.pair_how")
            return r if body is not None else unread_closes(r)
        name = phone_name(data.get("name"), request.headers.get("user-agent", ""))
        verdict, token = view.pairing.pair(data["code"], _client(request), name)
        if verdict == LOCKED:
            return answer(429, "web.code_locked")
        if token is None:
            return answer(401, "web.code_wrong")
        r = json_response({"paired": True, "token": token, "name": name,
                          "message": tr(lang, "web.paired", name=name)})
        r.set_cookie(TOKEN_COOKIE, token, max_age=365 * 86400, path="/api", httponly=True,
                     samesite="strict")
        return r

    def home(request: Request) -> Response:
        lang = language(request, cfg)
        return _html(request, lang, pages.live_page(lang, live.latest))

    def history(request: Request) -> Response:
        lang = language(request, cfg)
        problem = ""
        try:
            games, links = view.reader.games_and_links()
        except JournalError as exc:
            log.warning("history: %s", exc)
            games, links, problem = [], {}, pages.error_text(lang, 503)
        return _html(request, lang, pages.history_page(lang, games, links, problem))

    def failed(request: Request, exc: Exception, detail: str | None = None) -> Response:
        """A game the journal does not have (404), or a journal that cannot be read now
        (503): said in the log, answered in the page's words, no path."""
        status = 404 if isinstance(exc, exports.ExportError) else 503
        log.info("%s: %s", request.url.path, exc)
        return errors(request, status, detail)

    def game_page(request: Request) -> Response:
        lang = language(request, cfg)
        game_id = request.path_params["game"]
        try:
            record, table = view.reader.game(game_id)
        except (exports.ExportError, JournalError) as exc:
            return failed(request, exc)
        return _html(request, lang, pages.game_page(lang, record, table))

    def running(game_id: int) -> bool:
        """Whether the journal has the game, still running (it has no summary yet)."""
        try:
            _, table = view.reader.game(game_id)
        except (exports.ExportError, JournalError):
            return False
        return table.game is not None and not table.game.game_over

    def summary(request: Request, game_id: int, fmt: str) -> Response:
        lang = language(request, cfg)
        try:
            data = view.reader.summary(game_id, fmt, lang)
        except (exports.ExportError, JournalError) as exc:
            return failed(request, exc, "web_error.not_over" if running(game_id) else None)
        name = f"coffee-rush-game-{game_id}-summary.{fmt}"
        return Response(data, media_type=SUMMARY_MEDIA[fmt],
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    def export(request: Request) -> Response:
        fmt = request.path_params["fmt"]
        game_id = request.path_params["game"]
        if fmt in ("png", "pdf"):
            return summary(request, game_id, fmt)
        if fmt not in exports.FORMATS:
            return errors(request, 404)
        try:
            out = view.reader.export(game_id, fmt)
        except (exports.ExportError, JournalError) as exc:
            return failed(request, exc)
        media, ext = exports.MEDIA[fmt]
        return Response(out, media_type=f"{media}; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="coffee-rush-game-{game_id}.{ext}"'})

    def companion(request: Request) -> Response:
        lang = language(request, cfg)
        shown = redacted(config_mod.show(cfg))
        return _html(request, lang, pages.companion_page(
            lang, view.clock() - view.started, view.device_states(),
            list(view.log_tail.lines), shown, view.url, view.request_update is not None))

    def not_given(request: Request, status: int, key: str) -> Response:
        """The help report refused: a page in words for a browser (the Companion page's
        link), a line of text for a script."""
        lang = language(request, cfg)
        if "text/html" in request.headers.get("accept", ""):
            return html(pages.error_page(lang, status, tr(lang, key)), status,
                        headers={"Cache-Control": "no-store"})
        return text(tr(lang, key) + "\n", status)

    def help_report(request: Request) -> Response:
        """``coffee-companion report``'s archive, for a paired phone (no codes, tokens,
        names or games in it): ``/api/report`` (the Companion page's link: the pairing
        cookie's path is /api) or ``/companion/report`` with the token."""
        refused = _not_a_paired_phone(request, view.pairing, reading=True)
        if refused is not None:
            return not_given(request, refused[0], refused[1])
        if view.report is None:
            return not_given(request, 404, "web.no_report")
        return Response(view.report(view.pairing), media_type="application/gzip", headers={
            "Content-Disposition": 'attachment; filename="coffee-companion-report.tar.gz"',
            "Cache-Control": "no-store"})

    def ask_update(request: Request) -> Response:
        """A paired phone asks for the update Settings -> Update asks for."""
        lang = language(request, cfg)
        refused = _not_a_paired_phone(request, view.pairing)
        if refused is not None:
            return json_response({"asked": False, "message": tr(lang, refused[1])},
                                 status=refused[0])
        if view.request_update is None:
            return json_response({"asked": False, "message": tr(lang, "web.update_none")},
                                 status=404)
        problem = view.request_update("phone")
        if problem:
            return json_response({"asked": False, "message": tr(
                lang, "settings.update_not_asked", error=problem)}, status=503)
        log.info("phone %s asked for an update", request.client)
        return json_response({"asked": True, "message": tr(lang, "settings.update_asked")})

    return WebApp([
        Route("/", home), Route("/history", history),
        Route("/companion/report", help_report), Route("/api/report", help_report),
        Route("/api/update", ask_update,
                                                       methods=("POST",)),
        Route("/history/{game:int}", game_page),
        Route("/history/{game:int}/{fmt:str}", export),
        Route("/companion", companion),
        Route("/api/table", table), Route("/api/events", events), Route("/api/why", why),
        Route("/api/action", action, methods=["POST"]),
        Route("/api/pair", pair, methods=["POST", "DELETE"]),
    ], before=host_check(host_names(cfg)), error_page=errors, on_close=live.close_streams,
        name="phone view")
