"""The phone view's live stream (``GET /api/events``) on its own server, each phone on a
thread of its own: a heartbeat on an idle stream, a slow phone's queue bounded, a cap on
open pages, a phone that hangs up forgotten quietly, the service stopping ends every
stream at once; and an action posted from a phone's thread waits for the table loop."""
from __future__ import annotations

import json
import logging
import threading

import httpx
import pytest

from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.loop import TableLoop
from companion.core.session import Session
from companion.outputs.web import app as web_app
from companion.outputs.web.app import PhoneView
from companion.outputs.web.live import LiveTable

from web_fixtures import web_config
from cafe_fixtures import wait_until
from timing import scaled

SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben"], "start": "Ana"}


@pytest.fixture
def view(tmp_path):
    """A started phone view over a table loop running on its own thread."""
    loop = TableLoop(Session(None, Catalog.example()))
    v = PhoneView(loop, web_config(tmp_path))
    loop.subscribe(v.live.on_update)
    loop.start()
    assert v.start(host="127.0.0.1", port=0, mdns=False)
    yield v
    v.close()
    loop.stop()


def events(lines):
    """The stream's items: ("data", dict) per update, ("comment", text) per heartbeat."""
    for line in lines:
        if line.startswith("data: "):
            yield "data", json.loads(line[6:])
        elif line.startswith(":"):
            yield "comment", line


def test_an_idle_stream_gets_heartbeats_then_the_next_update(view, monkeypatch):
    monkeypatch.setattr(web_app, "HEARTBEAT", 0.05)
    with httpx.stream("GET", view.url + "/api/events", timeout=scaled(5)) as s:
        assert s.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert s.headers["cache-control"] == "no-store"
        got = events(s.iter_lines())
        kind, first = next(got)
        assert kind == "data" and first["seq"] == view.live.latest.seq
        assert next(got) == ("comment", ": keep-alive")
        view.live.loop.post(ev.TouchAction(SETUP))
        kind, update = next(item for item in got if item[0] == "data")
        assert update["seq"] == first["seq"] + 1 and update["table"]["players"][0]["name"] == "Ana"


def test_stopping_the_service_ends_every_open_stream_at_once(view):
    ended = []

    def follow():
        with httpx.stream("GET", view.url + "/api/events?lang=ko", timeout=scaled(5)) as s:
            got = events(s.iter_lines())
            assert next(got)[0] == "data"
            opened.release()
            ended.append(list(got))                # until the server ends the stream
    opened = threading.Semaphore(0)
    phones = [threading.Thread(target=follow) for _ in range(3)]
    for phone in phones:
        phone.start()
    for _ in phones:
        assert opened.acquire(timeout=scaled(5))
    assert wait_until(lambda: len(view.live.clients) == 3)
    stopping = threading.Thread(target=view.close)
    stopping.start()
    stopping.join(scaled(5))                                # within the phone view's 1 s grace
    for phone in phones:
        phone.join(scaled(5))
    assert not stopping.is_alive() and not any(p.is_alive() for p in phones)
    assert ended == [[], [], []] and not view.live.clients
    assert view.url is None


def test_too_many_open_pages_get_503_and_a_phone_that_hangs_up_is_forgotten(view, monkeypatch,
                                                                           caplog):
    monkeypatch.setattr(web_app, "MAX_STREAMS", 1)
    caplog.set_level(logging.INFO, logger="companion.outputs.web")
    with httpx.stream("GET", view.url + "/api/events", timeout=scaled(5)) as s:
        lines = s.iter_lines()                  # (held: a dropped iterator hangs up)
        assert next(events(lines))[0] == "data"
        assert wait_until(lambda: len(view.live.clients) == 1)
        full = httpx.get(view.url + "/api/events", timeout=scaled(5))
        assert full.status_code == 503 and full.headers["retry-after"] == "30"
    for n in range(100):                    # it hung up: the next updates find it gone
        if not view.live.clients:
            break
        view.live.loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "likes": n})
                            if n else ev.TouchAction(SETUP))
        wait_until(lambda: not view.live.clients, timeout=0.1)
    assert not view.live.clients
    with httpx.stream("GET", view.url + "/api/events", timeout=scaled(5)) as s:   # room again
        assert s.status_code == 200
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


def test_a_slow_phones_queue_is_bounded(monkeypatch):
    """A phone this far behind is dropped (its stream ends; the page reconnects and gets the
    table as it is first): the table loop never waits for it, its memory stays bounded."""
    monkeypatch.setattr(LiveTable, "QUEUE", 2)
    loop = TableLoop(Session(None, Catalog.example()))
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    slow, keeping_up = live.listen(), live.listen()
    loop.post(ev.TouchAction(SETUP))
    loop.drain()
    assert keeping_up.queue.get_nowait().seq == 1
    for likes in (1, 2):
        loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "likes": likes}))
    loop.drain()
    assert live.clients == {keeping_up}
    assert slow.queue.get_nowait() is None         # its stream ends at once (what it had
    assert slow.queue.empty()                      # waiting is let go)
    assert [keeping_up.queue.get_nowait().seq for _ in range(2)] == [2, 3]


def test_an_action_waits_on_the_phones_thread_for_the_loops_answer(tmp_path):
    loop = TableLoop(Session(None, Catalog.example()))
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    with pytest.raises(TimeoutError, match="no answer within"):
        live.post_action(SETUP, "127.0.0.1", timeout=0.05)   # the loop is not running
    loop.drain()                                              # (it answers the stale one)
    loop.start()
    try:
        update = live.post_action({"do": "correct", "player": "Ben", "likes": 3}, "127.0.0.1",
                                  timeout=scaled(5))
        assert update.accepted and live.latest.table["players"][1]["likes"] == 3
        assert not live._waiting
    finally:
        loop.stop()
