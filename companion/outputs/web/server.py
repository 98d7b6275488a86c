"""Serve an ASGI app (``routing.WebApp``: Starlette) with uvicorn on h11, on a thread of
its own.

Why this stack (docs/phone-view.md has the measurements): uvicorn with h11 and Starlette
is the smaller of the two well-kept stacks the project considered (about 13 MB resident
for the server and its first answer, against about 19 MB for aiohttp), both pure Python
on the Pi (h11, no compiled HTTP parser to build for armv6l), and it starts faster.

uvicorn parses HTTP (h11: repeated headers, Content-Length against Transfer-Encoding,
keep-alive, pipelining, 100-continue, chunked bodies) and runs the handlers on its own
event loop, on this module's background thread: the table loop never waits for a phone.
What uvicorn leaves open, its documented extension point (``Config(http=<a protocol
class>)``) adds here, on h11's public state (``their_state``, ``trailing_data``):

- at most ``max_connections`` open at once: one more is answered 503 once its request
  is in (at most ``REFUSERS`` at a time; more are closed), said once in the log;
- a connection must send a whole request head within ``HEAD_TIME`` of its first byte
  (a slowloris), and one that sends nothing is closed after ``keep_alive``;
- a request head over ``HEADER_LIMIT`` bytes is answered 431;
- a request whose body is left unread (a huge upload refused with 413) is answered and
  then read past for a while (``LINGER``) before closing, so that its sender reads the
  answer rather than a reset.

Body limits, streams and the Host check are the app's (``routing.read_body``,
``routing.WebApp``). A phone that stopped reading stalls only its own stream (uvicorn's
flow control), and it ends when the phone goes.

The table must never depend on a web page: ``BackgroundServer.start`` binds the port
itself first, so a port already taken or a bind address that does not exist gives one
warning in words and ``False``, and the caller carries on without the server. uvicorn
installs no signal handlers off the main thread: the service's own SIGTERM handling stays
in charge.

``stop`` first runs the stop callbacks (long-lived responses such as server-sent event
streams end there), then uvicorn stops accepting, closes idle keep-alive connections,
gives requests in hand ``grace`` seconds, cuts off what is left, and the thread ends.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import threading
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("companion.outputs.web")
KEEP_ALIVE = 30.0           # s an idle connection stays open for its next request
HEAD_TIME = 10.0            # s a request's line and headers may take once begun
LINGER = 2.0                # s, and at most LINGER_SIZE bytes, read past an unread body
LINGER_SIZE = 1 << 20       # at the end (else its sender may not get to read the answer)
HEADER_LIMIT = 16 * 1024    # bytes of request line and headers
MAX_CONNECTIONS = 100       # open at once (64 live pages, and their other requests)
REFUSERS = 8                # connections over the limit answered 503 at once (more: closed)
_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (IPv6 when the host is one); OSError if not."""
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                               flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


class _Transport:
    """A connection's transport as uvicorn sees it: closing it while the phone is still
    sending a body nobody read first ends our side, reads past the rest for a while, and
    only then closes (else the phone gets a reset instead of the answer)."""

    def __init__(self, transport: asyncio.Transport, protocol: _Guarded):
        self._transport, self._protocol = transport, protocol
        self.lingering = False

    def close(self) -> None:
        p = self._protocol
        if self.lingering or self._transport.is_closing():
            return
        if p.conn.their_state is h11.SEND_BODY and not p.guard.stopping.is_set():
            self.lingering = True
            with contextlib.suppress(OSError, RuntimeError, NotImplementedError):
                self._transport.write_eof()
            self._transport.resume_reading()
            p.loop.call_later(LINGER, self._transport.close)
            return
        self._transport.close()

    def is_closing(self) -> bool:
        return self.lingering or self._transport.is_closing()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class Guard:
    """One server's limits and what its connections share."""

    def __init__(self, name: str, logger: logging.Logger, max_connections: int,
                 keep_alive: float):
        self.name, self.log = name, logger
        self.max_connections, self.keep_alive = max_connections, keep_alive
        self.stopping = threading.Event()
        self.full = False               # said once, until a connection is taken again
        self.refusing = 0


class _Guarded(H11Protocol):
    """uvicorn's h11 protocol with the limits above (``guard``: set per server)."""

    guard: Guard

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = _Transport(transport, self)  # type: ignore[assignment]
        self._raw = transport
        self._timer: asyncio.TimerHandle | None = None
        self._lingered = 0
        g = self.guard
        open_now = len(self.connections)
        self.refused = open_now > g.max_connections
        if self.refused and not g.full:
            g.log.warning("%s: %d connections open, refusing more", g.name, g.max_connections)
        g.full = self.refused
        if self.refused:
            if g.refusing >= REFUSERS:
                self._raw.close()
                return
            g.refusing += 1
            self._head = bytearray()
            self._arm(LINGER)
        else:
            self._arm(g.keep_alive)     # a connection that never sends a byte

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.refused and hasattr(self, "_head"):
            self.guard.refusing -= 1
            del self._head
        super().connection_lost(exc)

    def _arm(self, wait: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(wait, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if self.refused:
            self._refuse()
        elif self.conn.their_state is h11.IDLE:       # no whole request head in time
            self._raw.close()

    def _refuse(self) -> None:
        """Answer 503 (the request's head is in, or the wait is over) and close."""
        self._answer(503, "Service Unavailable", "too many connections; try again later")

    def _answer(self, status: int, reason: str, why: str) -> None:
        """Answer a request the app never sees (its head is not read by h11), and close."""
        body = f"{reason}: {why}\n".encode()
        self._raw.write(f"HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; "
                        f"charset=utf-8\r\nconnection: close\r\ncontent-length: "
                        f"{len(body)}\r\n\r\n".encode() + body)
        self._raw.close()

    def data_received(self, data: bytes) -> None:
        if self.refused:
            if hasattr(self, "_head"):
                self._head += data
                if _END_OF_HEAD.search(self._head) or len(self._head) > HEADER_LIMIT:
                    self._disarm()
                    self._refuse()
            return
        if self.transport.is_closing():           # lingering: read past, then close
            self._lingered += len(data)
            if self._lingered > LINGER_SIZE:
                self._raw.close()
            return
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            if self.conn.trailing_data[0] and (self._timer is None or
                                               self._timer.when() - self.loop.time()
                                               > HEAD_TIME):
                self._arm(HEAD_TIME)              # a head has begun: it has HEAD_TIME
        else:
            self._disarm()

    def send_400_response(self, msg: str) -> None:
        """h11 found no HTTP/1.1 request here (uvicorn answers 400), or a head too large
        (431)."""
        if len(self.conn.trailing_data[0]) <= HEADER_LIMIT:
            super().send_400_response(msg)
        else:
            self._answer(431, "Request Header Fields Too Large",
                         "request line and headers too large")


class BackgroundServer:
    """``BackgroundServer(app, "0.0.0.0", 8080, name="phone view").start()``: ``app`` is an
    ASGI app (``routing.WebApp``)."""

    def __init__(self, app: Any, host: str, port: int, name: str = "web server",
                 grace: float = 2.0, logger: logging.Logger = log,
                 max_connections: int = MAX_CONNECTIONS, keep_alive: float = KEEP_ALIVE):
        self.app, self.host, self.port, self.name = app, host, port, name
        self.grace = grace
        self.log = logger
        self.guard = Guard(name, logger, max_connections, keep_alive)
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._server: uvicorn.Server | None = None
        self._stop_callbacks: list[Callable[[], None]] = []
        self.error: str | None = None

    @property
    def stopping(self) -> threading.Event:
        return self.guard.stopping

    @property
    def running(self) -> bool:
        return (self._thread is not None and self._thread.is_alive()
                and not self.stopping.is_set() and self.error is None)

    @property
    def connections(self) -> int:
        """Connections open now."""
        server = self._server
        return 0 if server is None else len(server.server_state.connections)

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def on_stop(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` first when the server stops (end streams there)."""
        self._stop_callbacks.append(fn)

    def start(self) -> bool:
        """Serve in the background; False (after one warning) if it cannot."""
        try:
            self._sock = bind(self.host, self.port)
        except OSError as exc:
            why = ("the port is already in use by another program"
                   if exc.errno in (98, 48) else exc.strerror or str(exc))
            self.error = f"{self.name} not started on {self.host or '*'}:{self.port}: {why}"
            self.log.warning("%s; the table plays on without it", self.error)
            return False
        self.port = self._sock.getsockname()[1]          # the real one when port 0 was asked
        protocol = type("GuardedH11", (_Guarded,), {"guard": self.guard})
        config = uvicorn.Config(
            self.app, http=protocol, ws="none", lifespan="off", interface="asgi3",
            log_config=None, access_log=False, server_header=False,
            timeout_keep_alive=max(1, round(self.guard.keep_alive)),
            timeout_graceful_shutdown=max(1, round(self.grace)),
            h11_max_incomplete_event_size=HEADER_LIMIT)
        config.timeout_keep_alive = self.guard.keep_alive  # type: ignore[assignment]  # (loop.call_later takes a float)
        # uvicorn's own start and stop lines ("Started server process", on a logger named
        # uvicorn.error) say nothing ours do not: its warnings and errors still show
        logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, args=(self._server, self._sock),
                                        name=self.name, daemon=True)
        self._thread.start()
        self.log.info("%s listening on %s:%d", self.name, self.host or "*", self.port)
        return True

    def _serve(self, server: uvicorn.Server, sock: socket.socket) -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except Exception:  # noqa: BLE001 - the table plays on without its web pages
            self.error = f"{self.name} stopped"
            self.log.exception("%s stopped", self.name)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and join the thread (safe to call twice, or after a failed start)."""
        if self._thread is not None and self._server is not None:
            for fn in self._stop_callbacks:
                try:
                    fn()
                except Exception:  # noqa: BLE001 - a callback must not block the stop
                    self.log.exception("stop callback of %s failed", self.name)
            self.stopping.set()
            self._server.should_exit = True
            self._thread.join(timeout)
            if self._thread.is_alive():
                self._server.force_exit = True
                self._thread.join(1.0)
                self.log.warning("%s did not stop within %.0f s", self.name, timeout)
            self._thread = None
        if self._sock is not None:
            self._sock.close()
        self._sock = None
