"""Serve an app (``routing.Router``) over HTTP/1.1 on the standard library's threads.

A small server of our own on ``socket``, ``selectors`` and ``threading``. It replaces
one on asyncio and h11 serving Starlette, whose stack (asyncio, anyio, Starlette, h11 and
what they import) cost the service about 5 MB of its resident memory (issue 19);
``http.server`` would bring ``shutil``'s compression modules, ``mimetypes`` and ``html``.

One thread accepts; each connection is served on a thread of its own, so a slow or
vanished phone (an open server-sent event stream, a slowloris) holds only its own
thread, never the table loop or another phone. Limits: at most ``max_connections`` at
once (one more is answered 503 and closed), a request line and headers of at most
``HEADER_LIMIT`` bytes (431) that arrive within ``HEAD_TIME`` once begun, a keep-alive
connection idle for ``keep_alive`` seconds is closed, and a write blocked for
``SEND_TIMEOUT`` (a phone that stopped reading) ends its connection. A request that is
not HTTP/1.x is answered 400; a phone hanging up mid-answer ends its connection quietly.
A handler that raises is a 500, said in the log.

The table must never depend on a web page: ``BackgroundServer.start`` binds the
port itself first, so a port already taken or a bind address that does not
exist gives one warning in words and ``False``, and the caller carries on
without the server. It installs no signal handlers: the service's own SIGTERM
handling stays in charge.

``stop`` first runs the stop callbacks (long-lived responses such as server-sent event
streams end there), then stops accepting, closes idle keep-alive connections, gives
requests in hand ``grace`` seconds, cuts off what is left and joins the threads.

Used by the phone view (``companion.outputs.web.app``) and the café hub.
"""
from __future__ import annotations

import contextlib
import logging
import re
import selectors
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus

from .routing import Request, Response, Stream, text

log = logging.getLogger("companion.outputs.web")
KEEP_ALIVE = 30.0           # s an idle connection stays open for its next request
HEAD_TIME = 10.0            # s a request's line and headers may take once begun
SEND_TIMEOUT = 30.0         # s a write may wait for a phone that does not read
LINGER = 2.0                # s, and at most LINGER_SIZE bytes, read past an unread body
LINGER_SIZE = 1 << 20       # at the end (else its sender may not get to read the answer)
READ_SIZE = 65536
HEADER_LIMIT = 16 * 1024    # bytes of request line and headers
MAX_CONNECTIONS = 100       # open at once (64 live pages, and their other requests)
REFUSERS = 8                # connections over the limit answered 503 at once (more: closed)

App = Callable[[Request], Response]
_REQUEST_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e]+) HTTP/1\.([01])")
_NAME = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")


class BadRequest(Exception):
    """A request the server answers itself (400, 431, 501) before closing."""

    def __init__(self, status: int, why: str):
        super().__init__(why)
        self.status = status


class Gone(Exception):
    """The connection ended: the phone hung up or went quiet, or the server cut it."""


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
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    """(method, target, HTTP minor version, headers) of a request's head; BadRequest if
    it is not HTTP/1.x (the first of a repeated header counts, names in lower case)."""
    lines = head.split(b"\n")
    m = _REQUEST_LINE.fullmatch(lines[0].rstrip(b"\r"))
    if m is None:
        raise BadRequest(400, "not an HTTP/1.x request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, colon, value = line.rstrip(b"\r").partition(b":")
        if not colon or _NAME.fullmatch(name) is None:
            raise BadRequest(400, "a malformed header line")
        headers.setdefault(name.decode("ascii").lower(), value.strip(b" \t").decode("latin-1"))
    if m.group(3) == b"1" and "host" not in headers:
        raise BadRequest(400, "an HTTP/1.1 request without Host")
    return m.group(1).decode("ascii"), m.group(2).decode("ascii"), m.group(3).decode(), headers


class Body:
    """A request's body, read only when the handler asks (``Request.body``)."""

    def __init__(self, conn: Connection, headers: dict[str, str]):
        self.conn = conn
        self.continue_first = headers.get("expect", "").lower() == "100-continue"
        encoding = headers.get("transfer-encoding", "").strip().lower()
        length = headers.get("content-length", "").strip()
        self.left: int | None = 0                   # bytes still to read; None: chunked
        if encoding:
            if encoding != "chunked":
                raise BadRequest(501, f"transfer-encoding {encoding[:40]!r}")
            self.left = None
        elif length:
            if not length.isdigit():
                raise BadRequest(400, "a Content-Length that is no number")
            self.left = int(length)
        self.done = self.left == 0
        self.asked = False

    def read(self, limit: int) -> bytes | None:
        if self.done:
            return b""
        if self.left is not None and self.left > limit:
            return None                             # not read: the connection closes
        self._continue()
        if self.left is not None:
            data = self.conn.take(self.left)
            self.left, self.done = 0, True
            return data
        return self._chunked(limit)

    def _continue(self) -> None:
        if self.continue_first and not self.asked:
            self.conn.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        self.asked = True

    def _chunked(self, limit: int) -> bytes | None:
        out = bytearray()
        while True:
            try:
                size = int(self.conn.line().split(b";")[0].strip(), 16)
            except ValueError:
                raise BadRequest(400, "a malformed chunk") from None
            if size == 0:
                while self.conn.line():             # trailers, up to the empty line
                    pass
                self.done = True
                return bytes(out)
            if len(out) + size > limit:
                return None
            out += self.conn.take(size)
            if self.conn.take(2) != b"\r\n":
                raise BadRequest(400, "a malformed chunk")

    def settles(self) -> bool:
        """Whether what the handler left unread can be read past after the answer (a
        length of up to ``READ_SIZE`` bytes, no 100-continue left unanswered): else the
        connection takes no next request."""
        return self.done or (not (self.continue_first and not self.asked)
                             and self.left is not None and self.left <= READ_SIZE)

    def finish(self) -> bool:
        """Read past what the handler left unread: whether the connection can take a next
        request."""
        if self.done:
            return True
        if not self.settles():
            return False
        self.read(READ_SIZE)
        return True


class Connection:
    """One phone's TCP connection, its requests one after the other, on its own thread."""

    def __init__(self, server: BackgroundServer, sock: socket.socket, peer: object):
        self.server, self.sock = server, sock
        self.client = peer[0] if isinstance(peer, tuple) and peer else "?"
        self.buffer = bytearray()
        self.idle = True               # waiting for a next request: stop closes it at once
        self.deadline = 0.0
        self.unread = False            # a request's body is left unread

    # --- reading -----------------------------------------------------------------------

    def _more(self) -> None:
        """More bytes into the buffer before the deadline; Gone if none come."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Gone
        try:
            self.sock.settimeout(left)
            data = self.sock.recv(READ_SIZE)
        except OSError:                # a timeout, a reset, or the server cut it
            raise Gone from None
        if not data:
            raise Gone
        self.buffer += data

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes of the body."""
        self.deadline = time.monotonic() + self.server.keep_alive
        while len(self.buffer) < n:
            self._more()
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

    def line(self) -> bytes:
        """The next line of a chunked body (without its end)."""
        self.deadline = time.monotonic() + self.server.keep_alive
        while (end := self.buffer.find(b"\n")) < 0:
            if len(self.buffer) > 1024:
                raise BadRequest(400, "a chunk line too long")
            self._more()
        data = bytes(self.buffer[:end]).rstrip(b"\r")
        del self.buffer[:end + 1]
        return data

    def head(self, wait: float | None = None) -> bytes | None:
        """The next request's line and headers; None when the connection ends before one
        begins (the phone closed it, it idled out after ``wait`` seconds, the server
        stops)."""
        self.deadline = time.monotonic() + (self.server.keep_alive if wait is None else wait)
        begun = False
        while True:
            while self.buffer[:1] in (b"\r", b"\n"):        # blank lines between requests
                del self.buffer[:1]
            if self.buffer and not begun:                   # a slowloris has HEAD_TIME
                begun = True
                self.deadline = min(self.deadline, time.monotonic() + HEAD_TIME)
            end = _END_OF_HEAD.search(self.buffer)
            if end is not None and end.start() <= HEADER_LIMIT:
                head = bytes(self.buffer[:end.start()])
                del self.buffer[:end.end()]
                return head
            if len(self.buffer) > HEADER_LIMIT:
                raise BadRequest(431, "request line and headers too large")
            try:
                self._more()
            except Gone:
                return None

    # --- writing -----------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        try:
            self.sock.settimeout(SEND_TIMEOUT)
            self.sock.sendall(data)
        except OSError:                # hung up, reset, not reading, or cut by the server
            raise Gone from None

    def respond(self, method: str, response: Response, keep: bool, chunked: bool) -> bool:
        """Write ``response``; whether the connection stays open (keep-alive)."""
        lines = [f"HTTP/1.1 {response.status} {_reason(response.status)}"]
        lines += [f"{name}: {value}" for name, value in response.headers]
        stream = isinstance(response, Stream)
        if not stream:
            lines.append(f"content-length: {len(response.body)}")
        elif chunked:
            lines.append("transfer-encoding: chunked")
        else:
            keep = False               # an HTTP/1.0 stream ends when the connection does
        if not keep:
            lines.append("connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace")
        if not stream:
            self.send(head if method == "HEAD" else head + response.body)
            return keep
        assert isinstance(response, Stream)
        try:
            self.send(head)
            if method != "HEAD":
                for chunk in response.chunks:
                    data = chunk.encode("utf-8")
                    if data:
                        self.send(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
                if chunked:
                    self.send(b"0\r\n\r\n")
        finally:
            response.close()
        return keep

    def refuse(self, exc: BadRequest) -> None:
        """Answer a request the server could not read, and close."""
        with contextlib.suppress(Gone):
            self.respond("GET", text(f"{_reason(exc.status)}: {exc}\n", exc.status),
                         keep=False, chunked=False)

    # --- serving -----------------------------------------------------------------------

    def serve(self) -> None:
        try:
            while not self.server.stopping.is_set():
                self.idle = True
                head = self.head()
                self.idle = False
                if head is None or not self.exchange(head):
                    return
        except BadRequest as exc:
            self.refuse(exc)
        except Gone:
            pass                       # the phone hung up, or the server cut it off

    def exchange(self, head: bytes) -> bool:
        """One request and its response; whether the connection takes another."""
        method, target, minor, headers = parse_head(head)
        body = Body(self, headers)
        request = Request(method, target, headers, self.client, body.read)
        closing = "close" in headers.get("connection", "").lower()
        keep = minor == "1" and not closing and not self.server.stopping.is_set()
        response = self.server.answer(request)
        if response.status >= 500 and not isinstance(response, Stream):
            keep = False
        keep = self.respond(method, response, keep and body.settles(), chunked=minor == "1")
        keep = keep and body.finish()
        self.unread = not body.done
        return keep and not self.server.stopping.is_set()

    def close(self) -> None:
        """Close the connection; with a body left unread, first let the phone finish
        sending it (for a while), so that it reads the answer rather than a reset."""
        if self.unread and not self.server.stopping.is_set():
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_WR)
                until, left = time.monotonic() + LINGER, LINGER_SIZE
                while left > 0 and (wait := until - time.monotonic()) > 0:
                    self.sock.settimeout(wait)
                    data = self.sock.recv(READ_SIZE)
                    if not data:
                        break
                    left -= len(data)
        with contextlib.suppress(OSError):
            self.sock.close()

    def cut(self) -> None:
        """End the connection from another thread (its reads and writes fail at once)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)


class BackgroundServer:
    """``BackgroundServer(router, "0.0.0.0", 8080, name="phone view").start()``."""

    def __init__(self, app: App, host: str, port: int, name: str = "web server",
                 grace: float = 2.0, logger: logging.Logger = log,
                 max_connections: int = MAX_CONNECTIONS, keep_alive: float = KEEP_ALIVE):
        self.app, self.host, self.port, self.name = app, host, port, name
        self.grace = grace
        self.log = logger
        self.max_connections, self.keep_alive = max_connections, keep_alive
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None
        self._stop_callbacks: list[Callable[[], None]] = []
        self._connections: dict[Connection, threading.Thread] = {}
        self._changed = threading.Condition()          # guards _connections
        self._full = False
        self._refusing = 0                             # threads answering 503
        self.error: str | None = None

    @property
    def running(self) -> bool:
        return (self._thread is not None and self._thread.is_alive()
                and not self.stopping.is_set() and self.error is None)

    @property
    def connections(self) -> int:
        """Connections open now."""
        with self._changed:
            return len(self._connections)

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
        self._sock.setblocking(False)
        self._wake = socket.socketpair()
        self._thread = threading.Thread(target=self._accept_all, args=(self._sock, self._wake[0]),
                                        name=self.name, daemon=True)
        self._thread.start()
        self.log.info("%s listening on %s:%d", self.name, self.host or "*", self.port)
        return True

    def _accept_all(self, sock: socket.socket, wake: socket.socket) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(sock, selectors.EVENT_READ)
            selector.register(wake, selectors.EVENT_READ)
            while not self.stopping.is_set():
                for key, _ in selector.select():
                    if key.fileobj is sock:
                        self._accept(sock)

    def _accept(self, listening: socket.socket) -> None:
        try:
            sock, peer = listening.accept()
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        except OSError as exc:         # out of file descriptors: wait a moment, not spin
            self.log.warning("%s: cannot accept a connection: %s", self.name, exc)
            self.stopping.wait(1.0)
            return
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = Connection(self, sock, peer)
        with self._changed:
            full = len(self._connections) >= self.max_connections
            refused = full and self._refusing < REFUSERS
            self._refusing += refused
            if not full:
                self._connections[conn] = threading.Thread(
                    target=self._serve, args=(conn,), daemon=True,
                    name=f"{self.name} {conn.client}")
        if full and not self._full:
            self.log.warning("%s: %d connections open, refusing more", self.name,
                             self.max_connections)
        self._full = full
        if not full:
            self._connections[conn].start()
        elif refused:                   # on a thread: it waits for the request (a while)
            threading.Thread(target=self._refuse, args=(conn,), daemon=True,
                             name=f"{self.name} refusing {conn.client}").start()
        else:
            conn.close()

    def _refuse(self, conn: Connection) -> None:
        """Answer one connection over the limit 503 (once its request is in: closed with
        the request unread, it would get a reset instead of the answer), and close it."""
        try:
            with contextlib.suppress(BadRequest, Gone):
                conn.head(wait=LINGER)
            conn.refuse(BadRequest(503, "too many connections; try again later"))
            conn.close()
        finally:
            with self._changed:
                self._refusing -= 1

    def _serve(self, conn: Connection) -> None:
        try:
            conn.serve()
        except Exception:  # noqa: BLE001 - a fault of ours: said, and the rest go on
            self.log.exception("%s: a connection from %s failed", self.name, conn.client)
        finally:
            conn.close()
            with self._changed:
                self._connections.pop(conn, None)
                self._changed.notify_all()

    def answer(self, request: Request) -> Response:
        """The app's response; 500 (said in the log) if the handler raises."""
        try:
            return self.app(request)
        except (Gone, BadRequest):
            raise
        except Exception:  # noqa: BLE001 - one request's fault, said in the log
            self.log.exception("%s: %s %s failed", self.name, request.method, request.path)
            return text("Internal Server Error", 500)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and join the threads (safe to call twice, or after a failed start)."""
        if self._thread is not None:
            for fn in self._stop_callbacks:
                try:
                    fn()
                except Exception:  # noqa: BLE001 - a callback must not block the stop
                    self.log.exception("stop callback of %s failed", self.name)
            self.stopping.set()
            if self._wake is not None:
                with contextlib.suppress(OSError):
                    self._wake[1].send(b"x")
            self._thread.join(timeout)
            self._end_connections(timeout)
            self._thread = None
        for sock in (self._sock, *(self._wake or ())):
            if sock is not None:
                sock.close()
        self._sock, self._wake = None, None

    def _end_connections(self, timeout: float) -> None:
        """Close the idle connections, give the busy ones ``grace``, cut off the rest."""
        until = time.monotonic() + timeout
        with self._changed:
            for conn in self._connections:
                if conn.idle:
                    conn.cut()
            self._changed.wait_for(lambda: not self._connections, self.grace)
            for conn in self._connections:
                conn.cut()
            threads = list(self._connections.values())
        for thread in threads:
            thread.join(max(0.0, until - time.monotonic()))
        if any(thread.is_alive() for thread in threads) or self._thread and \
                self._thread.is_alive():
            self.log.warning("%s did not stop within %.0f s", self.name, timeout)
