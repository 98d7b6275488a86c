"""The café's floor page and leaderboard in a real browser (Playwright driving
Debian's Chromium): tables that play, finish, need help and go away show live."""
import os

import pytest

from companion.core import events as ev
from companion.cafe.web import build_app
from companion.outputs.web.server import BackgroundServer
from tests.cafe_fixtures import broker, hub, tables, wait_until  # noqa: F401
from tests.test_cafe import expected_board

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.fixture
def floor_server(hub):
    app = build_app(hub)
    server = BackgroundServer(app, "127.0.0.1", 0, name="café floor page")
    server.on_stop(app.close)
    assert server.start()
    yield server
    server.stop()


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield browser.new_page(viewport={"width": 1280, "height": 800})
        browser.close()


def card(name: str) -> str:
    return f"article[data-table='{name}']"


def test_the_floor_page_shows_every_table_live(hub, tables, floor_server, page, tmp_path):
    done = tables("table-1", seed=3)
    done.play_game()                                             # finished: idle, a winner
    help_me = tables("table-2", seed=4, players=4)
    help_me.play_game(until=lambda g: g.turn >= 3)
    help_me.loop.post(ev.DeviceStatus("scanner", "lost", "USB cable unplugged"))
    help_me.loop.drain()
    last = tables("table-3", seed=5, edition="winter")
    last.play_game(until=lambda g: g.token == "closed")         # the final round
    assert not last.loop.table.game.game_over

    def caught_up():                          # the hub has every table's latest state
        rows = {r["table"]: r["state"] for r in hub.store.floor(hub.venue)}
        return all(rows.get(t.name) and rows[t.name]["status"]["seq"] == t.journal.current_seq
                   for t in (done, help_me, last)) and \
            rows["table-2"]["status"]["devices"] == {"scanner": "lost"}
    assert wait_until(caught_up) and wait_until(lambda: hub.counts["results_new"] == 1)

    page.goto(floor_server.url + "/")
    page.wait_for_selector(card("table-3"))
    assert "Idle" in page.inner_text(card("table-1"))
    assert "Won by" in page.inner_text(card("table-1"))
    two = page.inner_text(card("table-2"))
    assert "Playing" in two and "Needs help: the card scanner disconnected" in two
    active = help_me.loop.table.game.active_player.name
    assert f"{active} to play" in two
    assert "Final round" in page.inner_text(card("table-3"))
    assert "help" in page.get_attribute(card("table-2"), "class")
    page.screenshot(path=str(tmp_path / "floor.png"), full_page=True)

    # live: the turn moves on at table 2, table 3 goes away, without a reload
    help_me.loop.post(ev.SeatHold(help_me.loop.table.game.active))
    help_me.loop.drain()
    after = help_me.loop.table.game.active_player.name
    assert after != active
    page.wait_for_function(f"document.querySelector(\"{card('table-2')}\").innerText"
                           f".includes('{after} to play')", timeout=2000)
    last.publisher.close()
    page.wait_for_function(f"document.querySelector(\"{card('table-3')}\")"
                           ".dataset.online === 'false'", timeout=2000)

    # the leaderboard: the finished game, as in the journal; a second one arrives live
    page.goto(floor_server.url + "/leaderboard")
    page.wait_for_selector("tr[data-player]")
    help_me.finish_game()
    assert wait_until(lambda: hub.counts["results_new"] == 2)
    expected = expected_board([done.journal_path, help_me.journal_path])
    page.wait_for_function(f"document.querySelectorAll('tr[data-player]').length === "
                           f"{len(expected)}", timeout=2000)
    shown = {}
    for row in page.query_selector_all("tr[data-player]"):
        shown[row.get_attribute("data-player")] = (
            int(row.query_selector(".games").inner_text()),
            int(row.query_selector(".wins").inner_text()),
            float(row.query_selector(".average").inner_text()),
            int(row.query_selector(".points").inner_text()))
    assert shown == expected
    page.screenshot(path=str(tmp_path / "leaderboard.png"), full_page=True)
