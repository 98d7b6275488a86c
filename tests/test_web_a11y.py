"""The phone view checked by axe-core in Debian's Chromium (issue 39): no serious or critical
violation at 360x740 and 390x844, in English and Korean, on every state a player meets:
the running game with each seat to play, news after an action, a "why?" open, the game
over, the history, a game's story and the companion page. And the page reads in words:
the live region says what changed, focus and an open "why?" survive an update."""
import os

import pytest

from companion.core import events as ev
from recorder import Recorder

from a11y import VIEWPORTS, serious
from test_web_browser import CHROMIUM, FLAGS
from web_fixtures import new_game, service_with_web  # noqa: F401 - fixture

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")
PLAYERS = ["Ana", "Ben", "도윤"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def post(svc, action: dict):
    rec = Recorder()
    svc.loop.subscribe(rec)
    try:
        svc.loop.post(ev.TouchAction(action))
        return rec.wait_for(lambda u: u.action is not None and u.action["do"] == action["do"])
    finally:
        svc.loop.subscribers.remove(rec)


def shown(page, seq: int) -> None:
    """Wait until the page shows the table's update ``seq`` or a later one."""
    page.wait_for_function(f"+document.getElementById('live').dataset.seq >= {seq}",
                           timeout=5000)


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", sorted(VIEWPORTS))
def test_every_state_of_the_phone_view_passes_axe(service_with_web, browser, lang, size):
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": PLAYERS})
    page = browser.new_page(viewport=VIEWPORTS[size])
    found: list[str] = []
    tag = f"{lang}-{size}"
    page.goto(svc.web.url + f"/?lang={lang}")
    shown(page, svc.web.live.latest.seq)
    for seat, name in enumerate(PLAYERS, 1):
        assert page.locator(f"[data-seat='{seat}'].active").count() == 1
        assert name in page.inner_text("h1")                     # whose turn: the headline
        found += serious(page, f"{tag}-live-seat{seat}")
        post(svc, {"do": "complete", "slot": 1})
        post(svc, {"do": "end_turn"})
        shown(page, svc.web.live.latest.seq)
        found += serious(page, f"{tag}-news-after-seat{seat}")
    why = page.locator("details.why summary").first
    why.click()
    assert page.evaluate("document.querySelector('details.why').open")
    found += serious(page, f"{tag}-why-open")
    # the game over: a fifth dislike closes the shop; the round is played out
    post(svc, {"do": "correct", "player": PLAYERS[0], "dislikes": 5})
    for _ in PLAYERS:
        post(svc, {"do": "end_turn"})
    shown(page, svc.web.live.latest.seq)
    assert svc.session.table.game.game_over
    page.wait_for_selector("#story")
    found += serious(page, f"{tag}-game-over")
    for path, name in (("/history", "history"), (f"/history/{svc.session.game_id}", "story"),
                       ("/companion", "companion")):
        page.goto(svc.web.url + f"{path}?lang={lang}")
        found += serious(page, f"{tag}-{name}")
    page.close()
    assert not found, "\n".join(found)
