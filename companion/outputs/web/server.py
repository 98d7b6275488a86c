"""Serve an ASGI app (Starlette) over HTTP/1.1 on a background thread.

A small server of our own: asyncio's streams, h11 for the protocol (the parser uvicorn
uses too), and the ASGI messages an app sends and receives (``http`` and ``lifespan``).
It replaces uvicorn, whose import alone (its command line, click, multiprocessing, the
reloaders) cost the service about 3 MB of its resident memory for one plain server on
one socket (issue 19).

The table must never depend on a web page: ``BackgroundServer.start`` binds the
port itself first, so a port already taken or a bind address that does not
exist gives one warning in words and ``False``, and the caller carries on
without the server. It installs no signal handlers: the service's own SIGTERM
handling stays in charge.

``stop`` first runs the stop callbacks on the server's event loop (long-lived
responses such as server-sent event streams end there), then stops accepting,
closes idle keep-alive connections and gives requests in hand ``grace`` seconds,
and joins the thread.

Used by the phone view (``companion.outputs.web.app``) and the café hub.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from http import HTTPStatus
from typing import Any
from collections.abc import Callable
from urllib.parse import unquote

import h11

log = logging.getLogger("companion.outputs.web")
KEEP_ALIVE = 30.0           # s an idle connection stays open for its next request
READ_SIZE = 65536
HEADER_LIMIT = 16 * 1024    # bytes of request line and headers


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


class Exchange:
    """One request and its response on a connection: the ASGI ``receive`` and ``send``."""

    def __init__(self, conn: h11.Connection, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, method: bytes, logger: logging.Logger):
        self.conn, self.reader, self.writer = conn, reader, writer
        self.head = method == b"HEAD"
        self.log = logger
        self.body_done = False
        self.started = False
        self.complete = asyncio.Event()
        self.disconnected = False

    async def _read(self) -> bool:
        """More bytes from the phone into h11; False when it has gone."""
        try:
            data = await self.reader.read(READ_SIZE)
        except (ConnectionError, OSError):
            data = b""
        if not data:
            self.disconnected = True
            return False
        self.conn.receive_data(data)
        return True

    async def receive(self) -> dict[str, Any]:
        if self.conn.they_are_waiting_for_100_continue and not self.started:
            await self._write(h11.InformationalResponse(status_code=100, headers=[]))
        while not self.body_done and not self.disconnected:
            event = self.conn.next_event()
            if event is h11.NEED_DATA:
                await self._read()
            elif isinstance(event, h11.Data):
                return {"type": "http.request", "body": bytes(event.data), "more_body": True}
            else:                                           # EndOfMessage
                self.body_done = True
                return {"type": "http.request", "body": b"", "more_body": False}
        await self._until_done_or_gone()
        return {"type": "http.disconnect"}

    async def _until_done_or_gone(self) -> None:
        """The body is read: wait until the response is complete or the phone has gone
        (what a stream's ``receive`` is for); bytes of a next request wait in h11."""
        done = asyncio.ensure_future(self.complete.wait())
        try:
            while not self.complete.is_set() and not self.disconnected:
                more = asyncio.ensure_future(self._read())
                await asyncio.wait({done, more}, return_when=asyncio.FIRST_COMPLETED)
                if not more.done():
                    more.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await more
        finally:
            done.cancel()

    async def send(self, message: dict[str, Any]) -> None:
        if self.disconnected:
            return
        kind = message["type"]
        if not self.started:
            if kind != "http.response.start":
                raise RuntimeError(f"expected http.response.start, not {kind}")
            self.started = True
            status = message["status"]
            await self._write(h11.Response(status_code=status,
                                           headers=list(message.get("headers", [])),
                                           reason=_reason(status)))
        elif kind == "http.response.body" and not self.complete.is_set():
            body = message.get("body", b"")
            if body and not self.head:
                await self._write(h11.Data(data=body))
            if not message.get("more_body", False):
                await self._write(h11.EndOfMessage())
                self.complete.set()
        else:
            raise RuntimeError(f"unexpected ASGI message {kind} after the response")

    async def _write(self, event: Any) -> None:
        data = self.conn.send(event)
        if data is None:
            return
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, OSError):
            self.disconnected = True
            self.complete.set()


def _reason(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode()
    except ValueError:
        return b""


class BackgroundServer:
    """``BackgroundServer(app, "0.0.0.0", 8080, name="phone view").start()``."""

    def __init__(self, app: Any, host: str, port: int, name: str = "web server",
                 grace: float = 2.0, logger: logging.Logger = log):
        self.app, self.host, self.port, self.name = app, host, port, name
        self.grace = grace
        self.log = logger
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._stop_callbacks: list[Callable[[], None]] = []
        self._ready = threading.Event()
        self._exit: asyncio.Event | None = None
        self._idle: set[asyncio.StreamWriter] = set()      # keep-alive, between requests
        self._busy: set[asyncio.Task] = set()              # connections in a request
        self.error: str | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and self.error is None

    @property
    def url(self) -> str:
        host = self.host if self.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    def on_stop(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` on the server's event loop when it stops (end streams there)."""
        self._stop_callbacks.append(fn)

    def start(self, timeout: float = 10.0) -> bool:
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
        self._thread = threading.Thread(target=self._run, args=(self._sock,), name=self.name,
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self.error:
            self.log.warning("%s did not start: %s", self.name, self.error or "timed out")
            self.stop()
            return False
        self.log.info("%s listening on %s:%d", self.name, self.host or "*", self.port)
        return True

    def _run(self, sock: socket.socket) -> None:
        try:
            asyncio.run(self._serve(sock))
        except BaseException as exc:  # noqa: BLE001 - the table goes on without the server
            self.error = self.error or f"{type(exc).__name__}: {exc}"
            self.log.warning("%s stopped: %s", self.name, self.error)
        finally:
            self._ready.set()

    async def _serve(self, sock: socket.socket) -> None:
        self.loop = asyncio.get_running_loop()
        self._exit = asyncio.Event()
        lifespan = Lifespan(self.app)
        if not await lifespan.startup():
            self.error = lifespan.error or "the app's start-up failed"
            return
        server = await asyncio.start_server(self._connection, sock=sock,
                                            limit=HEADER_LIMIT)
        self._ready.set()
        await self._exit.wait()
        server.close()
        for writer in list(self._idle):          # waiting for a next request: none comes
            writer.close()
        if self._busy:
            await asyncio.wait(set(self._busy), timeout=self.grace)
        for task in list(self._busy):
            task.cancel()
        await lifespan.shutdown()

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=HEADER_LIMIT)
        peer, here = writer.get_extra_info("peername"), writer.get_extra_info("sockname")
        task = asyncio.current_task()
        try:
            while self._exit is not None and not self._exit.is_set():
                self._idle.add(writer)
                request = await self._next_request(conn, reader, writer)
                self._idle.discard(writer)
                if request is None:
                    break
                assert task is not None
                self._busy.add(task)
                try:
                    await self._exchange(conn, request, reader, writer, peer, here)
                finally:
                    self._busy.discard(task)
                if conn.our_state is h11.DONE and conn.their_state is h11.SEND_BODY:
                    await self._rest_of_body(conn, reader)
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    break                        # closing, or a body left unread
                conn.start_next_cycle()
        except asyncio.CancelledError:
            pass                      # still answering ``grace`` after the stop: cut off
        finally:
            self._idle.discard(writer)
            writer.close()

    async def _next_request(self, conn: h11.Connection, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> h11.Request | None:
        """The next request on the connection; None when it closes, idles out or is not
        HTTP (then answered 400)."""
        try:
            while True:
                event = conn.next_event()
                if event is not h11.NEED_DATA:
                    return event if isinstance(event, h11.Request) else None
                data = await asyncio.wait_for(reader.read(READ_SIZE), KEEP_ALIVE)
                conn.receive_data(data)
        except h11.RemoteProtocolError as exc:
            with contextlib.suppress(h11.LocalProtocolError, ConnectionError, OSError):
                status = exc.error_status_hint
                writer.write(conn.send(h11.Response(
                    status_code=status, reason=_reason(status),
                    headers=[(b"content-length", b"0"), (b"connection", b"close")])) or b"")
                writer.write(conn.send(h11.EndOfMessage()) or b"")
            return None
        except (TimeoutError, ConnectionError, OSError):
            return None

    async def _rest_of_body(self, conn: h11.Connection, reader: asyncio.StreamReader) -> None:
        """A request body the app did not read (a GET's end, mostly): read past it, up to
        ``READ_SIZE`` bytes, so that the connection can take the next request."""
        left = READ_SIZE
        with contextlib.suppress(h11.RemoteProtocolError, TimeoutError, ConnectionError,
                                 OSError):
            while left > 0:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = await asyncio.wait_for(reader.read(left), KEEP_ALIVE)
                    conn.receive_data(data)
                    left -= len(data) or left
                elif not isinstance(event, h11.Data):
                    return                               # EndOfMessage (or closed)

    async def _exchange(self, conn: h11.Connection, request: h11.Request,
                        reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                        peer: Any, here: Any) -> None:
        target = request.target
        path, _, query = target.partition(b"?")
        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
                 "http_version": request.http_version.decode(), "scheme": "http",
                 "method": request.method.decode("ascii"),
                 "path": unquote(path.decode("ascii", "replace")), "raw_path": path,
                 "query_string": query, "root_path": "", "headers": list(request.headers),
                 "client": tuple(peer[:2]) if peer else None,
                 "server": tuple(here[:2]) if here else None, "state": {}}
        exchange = Exchange(conn, reader, writer, request.method, self.log)
        try:
            await self.app(scope, exchange.receive, exchange.send)
        except Exception:  # noqa: BLE001 - one request's fault, said in the log
            self.log.exception("%s: %s %s failed", self.name, scope["method"], scope["path"])
            if not exchange.started:
                await exchange.send({"type": "http.response.start", "status": 500, "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]})
                await exchange.send({"type": "http.response.body",
                                     "body": b"Internal Server Error"})
        if not exchange.complete.is_set():          # an app that ended without a whole answer
            exchange.disconnected = True

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and join the thread (safe to call twice, or after a failed start)."""
        loop, stop = self.loop, self._exit
        if loop is not None and stop is not None and not loop.is_closed():
            def close() -> None:
                for fn in self._stop_callbacks:
                    try:
                        fn()
                    except Exception:  # noqa: BLE001 - a callback must not block the stop
                        self.log.exception("stop callback of %s failed", self.name)
                stop.set()
            with contextlib.suppress(RuntimeError):      # the loop closed meanwhile
                loop.call_soon_threadsafe(close)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                self.log.warning("%s did not stop within %.0f s", self.name, timeout)
            self._thread = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None


class Lifespan:
    """The ASGI lifespan protocol: the app's start-up before the first request, its
    shutdown after the last (Starlette's ``lifespan`` context)."""

    def __init__(self, app: Any):
        self.app = app
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.started = asyncio.Event()
        self.ended = asyncio.Event()
        self.error: str | None = None
        self.task: asyncio.Task | None = None

    async def startup(self) -> bool:
        self.task = asyncio.ensure_future(self._run())
        await self.inbox.put({"type": "lifespan.startup"})
        starting = asyncio.ensure_future(self.started.wait())
        await asyncio.wait({starting, self.task}, return_when=asyncio.FIRST_COMPLETED)
        starting.cancel()
        return self.started.is_set() and self.error is None

    async def _run(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"},
                 "state": {}}
        try:
            await self.app(scope, self.inbox.get, self._send)
        except Exception as exc:  # noqa: BLE001 - an app without lifespan: it just starts
            if not self.started.is_set():
                log.debug("the app has no lifespan (%s): starting without", exc)
                self.started.set()
        finally:
            self.ended.set()

    async def _send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind in ("lifespan.startup.failed", "lifespan.shutdown.failed"):
            self.error = message.get("message") or kind
        if kind.startswith("lifespan.startup"):
            self.started.set()
        elif kind.startswith("lifespan.shutdown"):
            self.ended.set()

    async def shutdown(self) -> None:
        if self.task is None or self.task.done():
            return
        await self.inbox.put({"type": "lifespan.shutdown"})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ended.wait(), 5.0)
        self.task.cancel()
