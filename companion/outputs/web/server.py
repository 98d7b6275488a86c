"""Run an ASGI app (Starlette) with uvicorn on a background thread.

The table must never depend on a web page: ``BackgroundServer.start`` binds the
port itself first, so a port already taken or a bind address that does not
exist gives one warning in words and ``False``, and the caller carries on
without the server. Uvicorn never installs signal handlers here (it only does
so on the main thread), so the service's own SIGTERM handling stays in charge.

``stop`` first runs the stop callbacks on the server's event loop (long-lived
responses such as server-sent event streams end there), then asks uvicorn to
finish and joins the thread; open connections get ``grace`` seconds.

Used by the phone view (``companion.outputs.web.app``) and the café hub.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
from typing import Any
from collections.abc import Callable

import uvicorn

log = logging.getLogger("companion.outputs.web")


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


class BackgroundServer:
    """``BackgroundServer(app, "0.0.0.0", 8080, name="phone view").start()``."""

    def __init__(self, app: Any, host: str, port: int, name: str = "web server",
                 grace: float = 2.0, logger: logging.Logger = log):
        self.app, self.host, self.port, self.name = app, host, port, name
        self.grace = grace
        self.log = logger
        self.server: uvicorn.Server | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._stop_callbacks: list[Callable[[], None]] = []
        self._ready = threading.Event()
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
        config = uvicorn.Config(self.app, log_level="warning", access_log=False,
                                lifespan="on", loop="asyncio", http="h11", ws="none",
                                # uvicorn annotates int; it waits with a float all the same
                                timeout_graceful_shutdown=self.grace,  # type: ignore[arg-type]
                                timeout_keep_alive=30)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, args=(self.server, self._sock),
                                        name=self.name, daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout) or self.error:
            self.log.warning("%s did not start: %s", self.name, self.error or "timed out")
            self.stop()
            return False
        self.log.info("%s listening on %s:%d", self.name, self.host or "*", self.port)
        return True

    def _run(self, server: uvicorn.Server, sock: socket.socket) -> None:
        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            watcher = asyncio.ensure_future(self._watch_started(server))
            try:
                await server.serve(sockets=[sock])
            finally:
                watcher.cancel()
        try:
            asyncio.run(serve())
        except BaseException as exc:  # noqa: BLE001 - SystemExit from uvicorn included
            self.error = self.error or f"{type(exc).__name__}: {exc}"
            self.log.warning("%s stopped: %s", self.name, self.error)
        finally:
            self._ready.set()

    async def _watch_started(self, server: uvicorn.Server) -> None:
        while not server.started:
            await asyncio.sleep(0.01)
        self._ready.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving and join the thread (safe to call twice, or after a failed start)."""
        server = self.server
        if server is not None and self.loop is not None and not self.loop.is_closed():
            def close() -> None:
                for fn in self._stop_callbacks:
                    try:
                        fn()
                    except Exception:  # noqa: BLE001 - a callback must not block the stop
                        self.log.exception("stop callback of %s failed", self.name)
                server.should_exit = True
            with contextlib.suppress(RuntimeError):      # the loop closed meanwhile
                self.loop.call_soon_threadsafe(close)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                self.log.warning("%s did not stop within %.0f s", self.name, timeout)
            self._thread = None
        if self._sock is not None:
            self._sock.close()
            self._sock = None
