"""The background runner of the web adapters: serves, stops cleanly, and a port
already taken gives one warning and no exception."""
import logging
import socket

import httpx
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from companion.outputs.web.server import BackgroundServer


def hello_app():
    return Starlette(routes=[Route("/", lambda request: PlainTextResponse("hello"))])


def test_serves_then_stops_cleanly():
    calls = []
    server = BackgroundServer(hello_app(), "127.0.0.1", 0, name="test server")
    server.on_stop(lambda: calls.append("stop"))
    assert server.start()
    try:
        assert httpx.get(server.url + "/", timeout=5).text == "hello"
    finally:
        server.stop()
    assert calls == ["stop"]
    assert not server.running
    with socket.socket() as s:          # the port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", server.port))


def test_port_taken_is_one_warning(caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        server = BackgroundServer(hello_app(), "127.0.0.1", port, name="phone view")
        with caplog.at_level(logging.INFO):
            assert server.start() is False
        server.stop()
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "already in use" in warnings[0].getMessage()
    assert "plays on" in warnings[0].getMessage()


def test_an_address_this_machine_does_not_have_is_one_warning(caplog):
    server = BackgroundServer(hello_app(), "192.0.2.123", 0, name="phone view")   # TEST-NET-1
    with caplog.at_level(logging.INFO):
        assert server.start() is False
    server.stop()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "192.0.2.123" in warnings[0], warnings
