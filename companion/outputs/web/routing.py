"""The phone view's and the café hub's apps on Starlette (served by ``server.py``).

``WebApp`` is a Starlette app with what both add around their routes:

- ``before``: a check run before any route (the phone view's Host check), which may
  answer instead;
- every error page (404, 405, 413, 500, ...) through one ``error_page(request, status)``
  (the phone view's answers in the page's language); a path with a trailing slash is a
  307 to the one without (its query kept), a 405 names what the route ``Allow``s;
- a handler that raises is a 500 said once in the log, and its connection closes;
- ``close()``: the server is stopping (``on_close``: end the streams).

``read_body`` reads a request's body up to a limit, never more into memory.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Match
from starlette.types import Message, Receive, Scope, Send

log = logging.getLogger("companion.outputs.web")
BODY_WAIT = 30.0                 # s a body's next part may take (a phone that went quiet)
ErrorPage = Callable[[Request, int], Response]
#: the statuses whose meaning the words say (``web_error.<status>``; others: ``other``)
ERRORS = (400, 403, 404, 405, 408, 413, 429, 500, 503)


def text(body: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return PlainTextResponse(body, status, headers)


def html(body: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return HTMLResponse(body, status, headers)


def json_response(data: Any, status: int = 200,
                  headers: dict[str, str] | None = None) -> Response:
    """JSON as compact UTF-8, no NaN (Starlette's ``JSONResponse``)."""
    return JSONResponse(data, status, headers)


def plain_error(request: Request, status: int) -> Response:
    """An error page of a few words (an app without pages of its own)."""
    from http import HTTPStatus
    return text(HTTPStatus(status).phrase, status)


async def read_body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None if it is longer than ``limit`` bytes (a huge upload is
    never read into memory, and its connection closes after the answer). A phone that
    stops sending it for ``BODY_WAIT`` seconds, or hangs up, ends the request."""
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        return None
    out = bytearray()
    parts = request.stream().__aiter__()
    while True:
        try:
            part = await asyncio.wait_for(parts.__anext__(), BODY_WAIT)
        except StopAsyncIteration:
            return bytes(out)
        except (TimeoutError, ClientDisconnect):
            raise HTTPException(408) from None
        out += part
        if len(out) > limit:
            return None


def unread_closes(response: Response) -> Response:
    """``response`` to a request whose body is left unread: its connection closes."""
    response.headers["connection"] = "close"
    return response


class WebApp:
    """An ASGI app: ``WebApp(routes, before=..., error_page=..., on_close=...)``."""

    def __init__(self, routes: Sequence[BaseRoute],
                 before: Callable[[Request], Response | None] | None = None,
                 error_page: ErrorPage = plain_error,
                 on_close: Callable[[], None] | None = None, name: str = "web server",
                 logger: logging.Logger = log):
        self.before, self.error_page, self.on_close = before, error_page, on_close
        self.name, self.log = name, logger

        async def http_error(request: Request, exc: Exception) -> Response:
            assert isinstance(exc, HTTPException)
            return self._error(request, exc)

        def failed(request: Request, exc: Exception) -> Response:
            response = self.error_page(request, 500)       # (said in the log below)
            response.headers["connection"] = "close"
            return response

        self.starlette = Starlette(routes=list(routes), exception_handlers={
            HTTPException: http_error, Exception: failed})
        self.starlette.router.redirect_slashes = False     # (ours keeps the path relative)

    def close(self) -> None:
        """The server is stopping: end what is long-lived (streams)."""
        if self.on_close is not None:
            self.on_close()

    def _error(self, request: Request, exc: HTTPException) -> Response:
        status = exc.status_code
        if status == 404:
            bare = request.url.path.rstrip("/")
            if bare and bare != request.url.path and self._found(request, bare):
                query = request.url.query
                return Response(b"", 307,
                                {"location": quote(bare) + ("?" + query if query else "")})
        response = self.error_page(request, status)
        if status in (408, 413):                  # its body is left unread: close after
            response.headers["connection"] = "close"
        if status == 405 and exc.headers and "Allow" in exc.headers:
            response.headers["allow"] = ", ".join(sorted(
                m.strip() for m in exc.headers["Allow"].split(",")))
        return response

    def _found(self, request: Request, path: str) -> bool:
        scope = {**request.scope, "path": path}
        return any(route.matches(scope)[0] != Match.NONE
                   for route in self.starlette.router.routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        request = Request(scope, receive)
        try:
            refused = self.before(request) if self.before is not None else None
            if refused is not None:
                await refused(scope, receive, sending)
                return
            await self.starlette(scope, receive, sending)
        except Exception:  # noqa: BLE001 - one request's fault, said in the log
            self.log.exception("%s: %s %s failed", self.name, scope["method"], scope["path"])
            if not started:
                response = self.error_page(request, 500)
                response.headers["connection"] = "close"
                await response(scope, receive, send)
