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


def test_one_connection_serves_many_requests_and_a_failing_handler_is_a_500(caplog):
    """Keep-alive (a phone's page reuses its connection), a body the handler did not read,
    a HEAD, a handler that raises (500, said in the log), a request that is not HTTP (400)."""
    async def echo(request):
        return PlainTextResponse(f"{request.method} {request.url.path} "
                                 f"{request.query_params['q']} {len(await request.body())}")

    async def boom(request):
        raise ValueError("boom")
    app = Starlette(routes=[Route("/e/{x}", echo, methods=["GET", "POST", "HEAD"]),
                            Route("/ignore", lambda request: PlainTextResponse("ok"),
                                  methods=["POST"]),
                            Route("/boom", boom)])
    server = BackgroundServer(app, "127.0.0.1", 0, name="test server")
    caplog.set_level(logging.ERROR, logger="companion.outputs.web")
    assert server.start()
    peers = set()
    try:
        with httpx.Client(timeout=5) as client:
            def get(*args, **kw):
                r = client.request(*args, extensions={"trace": lambda name, info: peers.add(
                    id(info.get("return_value"))) if name == "connection.connect_tcp.complete"
                    else None}, **kw)
                return r
            assert get("GET", server.url + "/e/a%20b?q=1").text == "GET /e/a b 1 0"
            assert get("POST", server.url + "/e/p?q=2", content=b"x" * 200_000).text == \
                "POST /e/p 2 200000"
            assert get("POST", server.url + "/ignore", content=b"unread").text == "ok"
            head = get("HEAD", server.url + "/e/h?q=3")
            assert head.status_code == 200 and head.content == b""
            assert get("GET", server.url + "/boom").status_code == 500
            assert get("GET", server.url + "/e/again?q=4").text == "GET /e/again 4 0"
        assert len(peers) == 1, "every request on one connection"
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as raw:
            raw.sendall(b"NOT HTTP\r\n\r\n")
            assert raw.recv(100).startswith(b"HTTP/1.1 400 Bad Request")
    finally:
        server.stop()
    assert not server.running
    assert "GET /boom failed" in caplog.text          # said once the thread has ended
