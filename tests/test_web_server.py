"""The web adapters' server (uvicorn on h11, Starlette, on a thread of its own) and its routes:
serves, stops cleanly, a port already taken gives one warning and no exception, and a
phone that misbehaves (too many connections, huge headers, a slowloris, hanging up
mid-stream) never disturbs another."""
import asyncio
import logging
import queue
import socket
import threading

import httpx
import pytest

from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from companion.outputs.web.routing import WebApp, read_body, text, unread_closes
from companion.outputs.web.server import HEADER_LIMIT, BackgroundServer
from cafe_fixtures import wait_until
from timing import scaled


def hello_app():
    return WebApp([Route("/", lambda request: text("hello"))])


@pytest.fixture
def serve():
    """serve(app, **options) -> a started server on a loopback port, stopped at the end."""
    started = []

    def start(app, **options):
        server = BackgroundServer(app, "127.0.0.1", 0, name="test server", **options)
        assert server.start()
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()


def raw(server, data: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=scaled(5))
    s.sendall(data)
    return s


def read_head(s: socket.socket) -> bytes:
    got = b""
    while b"\r\n\r\n" not in got:
        more = s.recv(65536)
        if not more:
            break
        got += more
    return got


def read_answer(s: socket.socket, ending: bytes) -> bytes:
    """One answer's head and body, up to ``ending``."""
    got = b""
    while not got.endswith(ending):
        more = s.recv(65536)
        if not more:
            break
        got += more
    return got


def read_all(s: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    got = b""
    while more := s.recv(65536):
        got += more
    return got


def test_serves_then_stops_cleanly():
    calls = []
    server = BackgroundServer(hello_app(), "127.0.0.1", 0, name="test server")
    server.on_stop(lambda: calls.append("stop"))
    assert server.start()
    try:
        assert httpx.get(server.url + "/", timeout=scaled(5)).text == "hello"
    finally:
        server.stop()
    assert calls == ["stop"]
    assert not server.running
    with socket.socket() as s:          # the port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", server.port))
    server.stop()                       # twice: nothing more happens
    assert calls == ["stop"]


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


def test_one_connection_serves_many_requests_and_a_failing_handler_is_a_500(caplog, serve):
    """Keep-alive (a phone's page reuses its connection), a body the handler did not read,
    a HEAD, a handler that raises (500, said in the log), a request that is not HTTP (400)."""
    async def echo(request: Request):
        body = await read_body(request, 1_000_000)
        return text(f"{request.method} {request.url.path} {request.path_params['x']} "
                    f"{request.query_params['q']} {len(body or b'')}")

    def boom(request):
        raise ValueError("boom")
    app = WebApp([Route("/e/{x}", echo, methods=["GET", "POST"]),
                  Route("/ignore", lambda request: text("ok"), methods=["POST"]),
                  Route("/boom", boom)])
    caplog.set_level(logging.ERROR, logger="companion.outputs.web")
    server = serve(app)
    peers = set()
    with httpx.Client(timeout=scaled(5)) as client:
        def get(*args, **kw):
            return client.request(*args, extensions={"trace": lambda name, info: peers.add(
                id(info.get("return_value"))) if name == "connection.connect_tcp.complete"
                else None}, **kw)
        assert get("GET", server.url + "/e/a%20b?q=1").text == "GET /e/a b a b 1 0"
        assert get("POST", server.url + "/e/p?q=2", content=b"x" * 200_000).text == \
            "POST /e/p p 2 200000"
        assert get("POST", server.url + "/ignore", content=b"unread").text == "ok"
        head = get("HEAD", server.url + "/e/h?q=3")
        assert head.status_code == 200 and head.content == b""
        assert int(head.headers["content-length"]) == len("HEAD /e/h h 3 0")
        assert get("GET", server.url + "/boom").status_code == 500
        assert get("GET", server.url + "/e/again?q=4").text == "GET /e/again again 4 0"
        chunked = get("POST", server.url + "/e/c?q=5", content=iter([b"ab", b"cde"]))
        assert chunked.text == "POST /e/c c 5 5"         # a chunked upload
    assert len(peers) == 2, "every request on one connection (the 500 closes its own)"
    with raw(server, b"NOT HTTP\r\n\r\n") as s:
        assert read_head(s).startswith(b"HTTP/1.1 400 Bad Request")
    with raw(server, b"GET / HTTP/1.1\r\n\r\n") as s:         # HTTP/1.1 without Host
        assert read_head(s).startswith(b"HTTP/1.1 400 Bad Request")
    server.stop()
    assert not server.running
    assert "GET /boom failed" in caplog.text          # said once the thread has ended


def test_routes_answer_404_405_and_a_trailing_slash(serve):
    server = serve(WebApp([
        Route("/history/{game:int}", lambda r: text(str(r.path_params["game"] + 1))),
        Route("/api/pair", lambda r: text("p"), methods=["POST", "DELETE"])]))
    with httpx.Client(base_url=server.url, timeout=scaled(5)) as client:
        assert client.get("/history/41").text == "42"
        assert client.get("/history/x").status_code == 404
        assert client.get("/nowhere").text == "Not Found"
        wrong = client.get("/api/pair")
        assert wrong.status_code == 405 and wrong.headers["allow"] == "DELETE, POST"
        slash = client.get("/history/41/?lang=es")
        assert slash.status_code == 307 and slash.headers["location"] == "/history/41?lang=es"


def test_headers_too_large_is_431_and_a_body_too_large_is_refused_unread(serve):
    got = {}

    async def upload(request):
        body = await read_body(request, 10)
        got["body"] = body
        if body is None:
            return unread_closes(text("too big", 413))
        return text(body.decode())
    server = serve(WebApp([Route("/up", upload, methods=["POST"])]))
    with raw(server, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * HEADER_LIMIT) as s:
        answer = read_all(s)                                  # answered, then closed
        assert answer.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
        assert b"\r\nconnection: close\r\n" in answer
    with httpx.Client(base_url=server.url, timeout=scaled(5)) as client:
        assert client.post("/up", content=b"small").text == "small"
        r = client.post("/up", content=b"x" * 10_000_000)    # never read into memory
        assert r.status_code == 413 and got["body"] is None
        assert r.headers["connection"] == "close"            # its body is left unread
        assert client.post("/up", content=iter([b"x" * 6, b"y" * 6])).status_code == 413


def test_a_slowloris_does_not_block_another_phone_and_an_idle_one_is_closed(serve):
    server = serve(hello_app(), keep_alive=0.5)
    with raw(server, b"GET / HTTP/1.1\r\nHo") as slow:          # never finishes its headers
        assert httpx.get(server.url + "/", timeout=scaled(5)).text == "hello"
        assert slow.recv(100) == b""            # its head is not in: closed after the wait
    with raw(server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n") as idle:
        first = read_answer(idle, b"hello")
        assert first.startswith(b"HTTP/1.1 200 OK") and first.endswith(b"hello")
        assert idle.recv(100) == b""            # kept alive, idle: closed


def test_too_many_connections_are_refused_until_one_closes(serve, caplog):
    server = serve(hello_app(), max_connections=2)
    caplog.set_level(logging.WARNING, logger="companion.outputs.web")
    held = [raw(server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n") for _ in range(2)]
    try:
        for s in held:                      # both served, both kept alive
            assert read_head(s).startswith(b"HTTP/1.1 200 OK")
        with raw(server, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n") as third:
            answer = read_all(third)                          # answered, then closed
            assert answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
            assert answer.endswith(b"too many connections; try again later\n")
        held.pop().close()
        assert wait_until(lambda: server.connections < 2)
        assert httpx.get(server.url + "/", timeout=scaled(5)).text == "hello"
    finally:
        for s in held:
            s.close()
    assert [r.getMessage() for r in caplog.records] == [
        "test server: 2 connections open, refusing more"]


def stream_app(ended: threading.Event, items: "queue.Queue[str | None]"):
    def events(request):
        async def chunks():
            try:
                yield "data: first\n\n"
                while (item := await asyncio.to_thread(items.get, timeout=scaled(5))) is not None:
                    yield f"data: {item}\n\n"
            finally:
                ended.set()
        return StreamingResponse(chunks(), media_type="text/event-stream")
    return WebApp([Route("/events", events), Route("/", lambda request: text("hello"))],
                  on_close=lambda: items.put(None))


def test_a_phone_hanging_up_mid_stream_ends_it_quietly(serve, caplog):
    ended, items = threading.Event(), queue.Queue()
    server = serve(stream_app(ended, items))
    caplog.set_level(logging.DEBUG, logger="companion.outputs.web")
    with httpx.stream("GET", server.url + "/events", timeout=scaled(5)) as s:
        assert s.headers["transfer-encoding"] == "chunked"
        assert next(s.iter_lines()) == "data: first"
    for n in range(100):                    # the next writes find it gone
        if ended.is_set():
            break
        items.put(str(n))
        ended.wait(0.1)
    assert ended.is_set()
    items.put(None)                         # (lets the stream's reading thread go)
    assert wait_until(lambda: server.connections == 0)
    assert httpx.get(server.url + "/", timeout=scaled(5)).text == "hello"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


def test_stop_ends_an_open_stream_within_its_grace(serve):
    ended, items = threading.Event(), queue.Queue()
    server = serve(stream_app(ended, items), grace=5.0)
    server.on_stop(server.app.close)
    with httpx.stream("GET", server.url + "/events", timeout=scaled(5)) as s:
        lines = s.iter_lines()
        assert [next(lines), next(lines)] == ["data: first", ""]
        items.put("second")
        assert next(lines) == "data: second"
        stopping = threading.Thread(target=server.stop)
        stopping.start()
        rest = list(lines)                           # the stream ends: its last chunk came
    stopping.join(scaled(5))
    assert not stopping.is_alive() and ended.is_set() and not server.running
    assert rest == [""]


def test_request_smuggling_and_malformed_framing_are_refused(serve):
    """What a hand-written parser may get wrong, h11 refuses: two different lengths, a
    length that is no number, an encoding other than chunked, a bad chunk, two Hosts; and
    Content-Length beside Transfer-Encoding is read as chunked (the RFC's rule), so the
    request behind it is a request of its own, never a body."""
    got = []

    async def upload(request):
        got.append(await read_body(request, 1000))
        return text("ok")
    server = serve(WebApp([Route("/up", upload, methods=["GET", "POST"])]))
    for attack in (
            b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde",
            b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
            b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            b"POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"zz\r\nab\r\n0\r\n\r\n",
            b"GET /up HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"):
        with raw(server, attack) as s:
            answer = read_all(s)                                  # answered, then closed
            assert answer.startswith(b"HTTP/1.1 400 "), (attack, answer)
            assert answer.count(b"HTTP/1.1 ") == 1, answer      # no second request read
    assert got == []
    with raw(server, b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: "
             b"chunked\r\n\r\n0\r\n\r\nGET /up HTTP/1.1\r\nHost: x\r\n\r\n") as s:
        answers = read_answer(s, b"ok")
        while answers.count(b"ok") < 2:
            answers += s.recv(65536)
    assert answers.count(b"HTTP/1.1 200 OK") == 2 and got == [b"", b""]


def test_a_body_that_stops_coming_ends_its_request(serve, monkeypatch):
    from companion.outputs.web import routing
    monkeypatch.setattr(routing, "BODY_WAIT", 0.3)

    async def upload(request):
        body = await read_body(request, 1000)
        return text(f"{len(body or b'')}")
    server = serve(WebApp([Route("/up", upload, methods=["POST"])]))
    with raw(server, b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc") as slow:
        assert httpx.post(server.url + "/up", content=b"12345", timeout=scaled(5)).text == "5"
        answer = read_all(slow)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"connection: close" in answer.lower()
