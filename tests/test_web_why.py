""""Why?" in the phone view: the live page has a "?" with the sentence beside each ruling
the table shows, ``GET /api/why`` answers the same per target, and ``GET /api/table``
keeps exactly the keys replay --json prints."""
from __future__ import annotations

import json
from html import escape

import httpx

from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.review.explain import explanations
from companion.core.rules.view import table_json
from companion.core.session import Session
from companion.core.loop import TableLoop
from companion.review.why_text import why_text
from companion.outputs.web import pages
from companion.outputs.web.app import PhoneView
from companion.outputs.web.live import LiveTable

from web_fixtures import web_config
from timing import scaled

SURGE = [  # Ana completes 2 with 3 cards left: Ben draws 2, Chloe the last one; CLOSED
    {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"], "start": "Ana"},
    {"do": "correct", "deck": 3}, {"do": "complete"}, {"do": "complete"}, {"do": "end_turn"}]


def played(actions, live_class=LiveTable):
    loop = TableLoop(Session(None, Catalog.example()))
    live = live_class(loop)
    loop.subscribe(live.on_update)
    for a in actions:
        loop.post(ev.TouchAction(a))
    loop.drain()
    return loop, live


def test_the_live_page_says_why_beside_each_ruling():
    loop, live = played(SURGE)
    now = explanations(loop.table)
    assert {"draw:Ben", "draw:Chloe", "sign", "final"} <= set(now)
    for lang in ("en", "ko"):
        html = pages.live_fragment(lang, live.latest)
        for target in ("sign", "final", "draw:Ben"):
            assert f'data-why="{target}"' in html
            assert escape(why_text(lang, now[target])) in html
        # Ben's and Chloe's draws are one sentence: said once
        assert html.count(escape(why_text(lang, now["draw:Ben"]))) == 1
    html = pages.live_fragment("en", live.latest)
    assert ("Ana completed 2 orders, so Ben and Chloe each draw 2 (1 left in the deck: "
            "Chloe draws 1)") in html


def test_a_dislike_and_a_refused_press_say_why_on_the_page():
    loop, live = played([SURGE[0], *[{"do": "end_turn"}] * 7])
    game = loop.table.game
    who = [p.name for p in game.players if p.dislikes]
    assert who
    html = pages.live_fragment("es", live.latest)
    for name in who:
        assert f'data-why="dislikes:{name}"' in html
    seat = (game.active + 1) % 3                       # not that seat's turn
    loop.post(ev.SeatTap(seat))
    loop.drain()
    html = pages.live_fragment("en", live.latest)
    assert 'data-why="refusal"' in html
    assert escape(f"{game.players[seat].name}'s button was pressed during "
                  f"{game.active_player.name}'s turn") in html


def test_tie_breaks_on_the_finished_game_say_why():
    loop, live = played([SURGE[0], {"do": "correct", "player": "Chloe", "dislikes": 5},
                         *[{"do": "end_turn"}] * 3])
    assert loop.table.game.game_over
    html = pages.live_fragment("it", live.latest)
    assert 'data-why="tie:0"' in html and 'class="ties"' in html


def surge_view(tmp_path) -> tuple[TableLoop, PhoneView]:
    """A table that has played SURGE, and its phone view (not started)."""
    loop = TableLoop(Session(None, Catalog.example()))
    view = PhoneView(loop, web_config(tmp_path))
    loop.subscribe(view.live.on_update)
    for a in SURGE:
        loop.post(ev.TouchAction(a))
    loop.drain()
    return loop, view


def test_api_why_answers_each_target_and_api_table_keeps_its_keys(tmp_path):
    loop, view = surge_view(tmp_path)
    assert view.start(host="127.0.0.1", port=0, mdns=False)
    try:
        with httpx.Client(base_url=view.url, headers={"Host": "localhost"},
                          timeout=scaled(10)) as client:
            r = client.get("/api/why?lang=ko")
            assert r.status_code == 200
            data = r.json()
            now = explanations(loop.table)
            assert data["language"] == "ko" and data["seq"] == view.live.latest.seq
            assert set(data["explanations"]) == set(now)
            sign = data["explanations"]["sign"]
            assert sign["text"] == why_text("ko", now["sign"])
            assert sign["key"] == "why.closed_surge_other" and sign["target"] == "sign"
            assert sign["params"]["closed"] == {"word": "word.closed"}
            draw = data["explanations"]["draw:Chloe"]
            assert draw["params"]["short"]["params"]["left"] == 1
            # /api/table is still exactly replay --json's state, with nothing added
            table = client.get("/api/table").json()
            assert table == json.loads(json.dumps(table_json(loop.table)))
            assert "explanations" not in table
            r = client.get("/")
            assert 'data-why="sign"' in r.text
    finally:
        view.close()
