"""Requests, responses and routes: the small layer between our HTTP server (``server.py``)
and the handlers of the phone view (``app.py``) and the café hub (``companion.cafe.web``).

A handler takes a ``Request`` and returns a ``Response``, or a ``Stream`` for server-sent
events (its chunks are written as they come, on the connection's own thread). ``Router``
picks the handler by path (``/history/{game:int}``) and method: an unknown path is 404, a
method the route does not take 405 with ``Allow``, a path with a trailing slash a 307 to
the one without; a route that takes GET takes HEAD too. Its ``before`` check runs before
any route (the phone view's Host check).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, quote, unquote

#: reads a request's body: at most ``limit`` bytes, None when it is longer
BodyReader = Callable[[int], "bytes | None"]
Handler = Callable[["Request"], "Response"]


class Request:
    """One request as the handlers see it: header names in lower case (the first of a
    repeated header counts), the query's parameters (the last of a repeated one counts)."""

    def __init__(self, method: str, target: str, headers: dict[str, str],
                 client: str = "?", body: BodyReader | None = None):
        self.method = method
        path, _, query = target.partition("?")
        self.path = unquote(path)
        self.query_string = query
        self.query: dict[str, str] = dict(parse_qsl(query, keep_blank_values=True))
        self.headers = headers
        self.client = client
        self.params: dict[str, Any] = {}           # the route's {name} parts
        self._body = body
        self._cookies: dict[str, str] | None = None

    @property
    def cookies(self) -> dict[str, str]:
        if self._cookies is None:
            self._cookies = {}
            for part in self.headers.get("cookie", "").split(";"):
                key, _, value = part.partition("=")
                key, value = key.strip(), value.strip()
                if len(value) > 1 and value[0] == value[-1] == '"':
                    value = value[1:-1]
                if key:
                    self._cookies[key] = value
        return self._cookies

    def body(self, limit: int) -> bytes | None:
        """The request's body, or None if it is longer than ``limit`` bytes (a huge upload
        is never read into memory)."""
        return b"" if self._body is None else self._body(limit)


class Response:
    """A whole answer: status, headers (names in lower case) and body."""

    def __init__(self, body: bytes | str = b"", status: int = 200,
                 media_type: str | None = None, headers: dict[str, str] | None = None):
        self.status = status
        self.body = body.encode("utf-8") if isinstance(body, str) else body
        self.headers: list[tuple[str, str]] = []
        if media_type is not None:
            if media_type.startswith("text/") and "charset=" not in media_type:
                media_type += "; charset=utf-8"
            self.headers.append(("content-type", media_type))
        for name, value in (headers or {}).items():
            self.headers.append((name.lower(), value))

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k == name), None)

    def set_header(self, name: str, value: str) -> None:
        self.headers = [(k, v) for k, v in self.headers if k != name] + [(name, value)]

    def set_cookie(self, name: str, value: str, max_age: int, path: str = "/",
                   httponly: bool = False, samesite: str = "lax") -> None:
        self.headers.append(("set-cookie", f"{name}={value}" + ("; HttpOnly" if httponly
                             else "") + f"; Max-Age={max_age}; Path={path}; SameSite={samesite}"))

    def delete_cookie(self, name: str, path: str = "/") -> None:
        self.headers.append(("set-cookie", f'{name}=""; expires=Thu, 01 Jan 1970 00:00:00 GMT;'
                             f" Max-Age=0; Path={path}; SameSite=lax"))


class Stream(Response):
    """An answer written as its chunks come (server-sent events): no length, so chunked.
    The server closes ``chunks`` when the phone hangs up or the server stops."""

    def __init__(self, chunks: Iterator[str], media_type: str,
                 headers: dict[str, str] | None = None):
        super().__init__(b"", 200, media_type, headers)
        self.chunks = chunks

    def close(self) -> None:
        close = getattr(self.chunks, "close", None)
        if close is not None:
            close()


def text(body: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, "text/plain", headers)


def html(body: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status, "text/html", headers)


def json_response(data: Any, status: int = 200,
                  headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data, ensure_ascii=False, allow_nan=False,
                               separators=(",", ":")), status, "application/json", headers)


_PART = re.compile(r"\{(\w+)(?::(int|str))?\}")


class Route:
    """``Route("/history/{game:int}", handler)``: GET (and HEAD) unless ``methods`` says."""

    def __init__(self, path: str, handler: Handler, methods: tuple[str, ...] = ("GET",)):
        self.handler = handler
        self.methods = frozenset(methods) | ({"HEAD"} if "GET" in methods else set())
        self.ints = {m.group(1) for m in _PART.finditer(path) if m.group(2) == "int"}
        pattern, at = "", 0
        for m in _PART.finditer(path):
            pattern += re.escape(path[at:m.start()])
            pattern += f"(?P<{m.group(1)}>[0-9]+)" if m.group(2) == "int" else \
                f"(?P<{m.group(1)}>[^/]+)"
            at = m.end()
        self.pattern = re.compile(pattern + re.escape(path[at:]))

    def match(self, path: str) -> dict[str, Any] | None:
        m = self.pattern.fullmatch(path)
        if m is None:
            return None
        return {k: int(v) if k in self.ints else v for k, v in m.groupdict().items()}


class Router:
    """The app a ``BackgroundServer`` serves: ``router(request) -> Response``."""

    def __init__(self, routes: list[Route],
                 before: Callable[[Request], Response | None] | None = None,
                 on_close: Callable[[], None] | None = None):
        self.routes, self.before, self.on_close = routes, before, on_close

    def close(self) -> None:
        """The server is stopping: end what is long-lived (streams)."""
        if self.on_close is not None:
            self.on_close()

    def __call__(self, request: Request) -> Response:
        if self.before is not None:
            refused = self.before(request)
            if refused is not None:
                return refused
        found = self._find(request.path)
        bare = request.path.rstrip("/")
        if found is None and bare and bare != request.path and self._find(bare) is not None:
            query = "?" + request.query_string if request.query_string else ""
            return Response(b"", 307, headers={"Location": quote(bare) + query})
        if found is None:
            return text("Not Found", 404)
        routes = [(route, params) for route, params in found
                  if request.method in route.methods]
        if not routes:
            allowed = sorted(set().union(*(route.methods for route, _ in found)))
            return text("Method Not Allowed", 405, {"Allow": ", ".join(allowed)})
        route, request.params = routes[0]
        return route.handler(request)

    def _find(self, path: str) -> list[tuple[Route, dict[str, Any]]] | None:
        found = [(route, params) for route in self.routes
                 if (params := route.match(path)) is not None]
        return found or None
