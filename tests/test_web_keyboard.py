"""The phone view by keyboard alone, and in words (issue 39), in Debian's Chromium: a
player pairs (Enter in the code field) and plays a turn with Tab and Enter only, reading
what happened by the buttons; a tap while the table cannot be reached says so in the
page's language; after the game over the page offers a New game form and Rematch instead
of Complete and End turn (Rematch fills the form and asks who starts); history times are
the table's local time."""
import os
import time

import pytest

from companion.core import events as ev
from companion.outputs.web.pages import local_time
from companion.words.i18n import tr
from recorder import Recorder

from test_web_browser import CHROMIUM, browser  # noqa: F401 - fixture
from web_fixtures import new_game, service_with_web  # noqa: F401 - fixture

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def tab_to(page, selector: str, limit: int = 60) -> None:
    """Press Tab until ``selector`` has the focus (as a keyboard user does)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_a_turn_played_by_keyboard_alone(service_with_web, browser):
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": ["Ana", "Ben"]})
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(svc.web.url + "/?lang=en")
    page.wait_for_function("document.getElementById('live').dataset.seq !== undefined")
    tab_to(page, "#ctl > summary")
    page.keyboard.press("Enter")                                  # opens the controls
    tab_to(page, "#code")
    page.keyboard.type(svc.web.pairing.shown())
    page.keyboard.press("Enter")                                  # Enter pairs
    page.wait_for_function("document.getElementById('msg').dataset.status === '200'")
    assert page.is_hidden("#pair")
    tab_to(page, "button[data-do='complete']")
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('msg').textContent.includes("
                           f"{tr('en', 'happening.order_completed', player='Ana')!r})")
    assert svc.session.table.game.players[0].likes == 1
    tab_to(page, "button[data-do='end_turn']")
    before = page.locator("button[data-do='end_turn']").bounding_box()
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('h1').textContent === \"Ben's turn\"")
    assert "Ben's turn" in page.inner_text("#msg")                # said by the buttons
    # the buttons did not move under the thumb while the news grew
    assert page.locator("button[data-do='end_turn']").bounding_box() == before
    # the focus stayed on End turn through the update
    assert page.evaluate("document.activeElement.dataset.do") == "end_turn"
    assert svc.session.table.game.active_player.name == "Ben"

    # the table cannot be reached: words in the page's language, not "Failed to fetch"
    page.goto(svc.web.url + "/?lang=ko")
    page.wait_for_function("document.getElementById('live').dataset.seq !== undefined")
    page.route("**/api/action", lambda route: route.abort())
    page.click("button[data-do='undo']")
    page.wait_for_function("document.getElementById('msg').dataset.status === 'offline'")
    assert page.inner_text("#msg") == tr("ko", "phone.offline")
    assert svc.session.table.game.active_player.name == "Ben"
    page.close()


def test_after_the_game_over_a_new_game_form_and_rematch(service_with_web, browser):
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"]})
    page = browser.new_page(viewport={"width": 360, "height": 740})
    page.goto(svc.web.url + "/?lang=en")
    page.wait_for_function("document.getElementById('live').dataset.seq !== undefined")
    page.click("#ctl > summary")
    if page.is_visible("#pair"):
        page.fill("#code", svc.web.pairing.shown())
        page.click("#pairbtn")
        page.wait_for_function("document.getElementById('msg').dataset.status === '200'")
    assert page.is_visible("button[data-do='end_turn']") and page.is_hidden("#newgame")
    rec = Recorder()
    svc.loop.subscribe(rec)
    svc.loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "dislikes": 5}))
    for _ in range(3):
        svc.loop.post(ev.TouchAction({"do": "end_turn"}))
    rec.wait_for(lambda u: u.table.game is not None and u.table.game.game_over)
    page.wait_for_selector("h1[data-phase='over']")
    assert page.is_hidden("button[data-do='end_turn']")
    assert page.is_hidden("button[data-do='complete']")
    assert page.is_visible("#rematch") and page.is_visible("#newgame")

    # Rematch: the New game form, filled with the same players, seats and edition, asks
    # who starts (the books choose the starter anew), as the touchscreen's wizard does
    page.click("#rematch")
    assert page.evaluate("document.activeElement.id") == "starter"      # focus: who starts
    # in sight above the controls docked at the bottom, not under them
    assert page.evaluate("""() => {const r=document.getElementById('starter')
        .getBoundingClientRect();return document.elementFromPoint(r.x+r.width/2,
        r.y+r.height/2)?.id}""") == "starter"
    assert page.inner_text("#msg") == tr("en", "phone.rematch_ready")   # and said so
    assert svc.session.table.game.game_over                             # nothing posted yet
    assert page.input_value("#newgame select[name=edition]") == "original"
    assert [page.locator("#newgame input[name=player]").nth(i).input_value()
            for i in range(4)] == ["Ana", "Ben", "Cy", ""]
    assert page.locator("#starter option").all_inner_texts() == [
        tr("en", "phone.start_choose"), "Ana", "Ben", "Cy", tr("en", "wizard.random")]
    page.click("#newgame button[type=submit]")                # no starter yet: asked again
    page.wait_for_function("document.getElementById('msg').textContent === "
                           f"{tr('en', 'phone.start_needed')!r}")
    assert page.evaluate("document.activeElement.id") == "starter"
    assert svc.session.table.game.game_over
    page.select_option("#starter", label="Cy")
    page.click("#newgame button[type=submit]")
    page.wait_for_function("document.getElementById('msg').dataset.status", timeout=5000)
    assert page.evaluate("document.getElementById('msg').dataset.status") == "200", \
        page.inner_text("#msg")
    page.wait_for_selector("h1[data-phase='playing']")
    game = svc.session.table.game
    assert [p.name for p in game.players] == ["Ana", "Ben", "Cy"] and not game.game_over
    assert game.players[game.start].name == "Cy" and game.active_player.name == "Cy"
    assert page.is_hidden("#newgame")

    # a New game of the Winter edition, as a Junior game, from the form
    svc.loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "dislikes": 5}))
    for _ in range(3):
        svc.loop.post(ev.TouchAction({"do": "end_turn"}))
    page.wait_for_selector("h1[data-phase='over']")
    page.select_option("#newgame select[name=edition]", "winter")
    assert page.locator("input[name=ristretto]:visible").count() == 0
    assert page.is_visible("#junior")
    names = page.locator("#newgame input[name=player]")
    for i in range(4):                                    # (the rematch's names cleared)
        names.nth(i).fill("")
    names.nth(0).fill("도윤")
    page.click("#newgame button[type=submit]")                    # one name: refused in words
    page.wait_for_function("document.getElementById('msg').textContent === "
                           f"{tr('en', 'phone.names_needed')!r}")
    # who starts: the names typed, in order, then a random pick; the first by default
    names.nth(1).fill("Mia")
    assert page.locator("#starter option").all_inner_texts() == [
        "도윤", "Mia", tr("en", "wizard.random")]
    assert page.input_value("#starter") == "도윤"                 # the first, by default
    # "Pick at random": the page draws (the rules draw nothing); its draw injected here
    page.select_option("#starter", label=tr("en", "wizard.random"))
    page.evaluate("() => { crypto.getRandomValues = a => { a[0] = 7; return a; }; }")
    assert page.is_hidden("select[name=junior_cards]")    # Junior's cards: once Junior
    page.check("#junior")
    page.select_option("select[name=junior_cards]", "3")
    page.click("#newgame button[type=submit]")
    page.wait_for_function("document.getElementById('msg').dataset.status", timeout=5000)
    assert page.evaluate("document.getElementById('msg').dataset.status") == "200", \
        page.inner_text("#msg")
    page.wait_for_selector("h1[data-phase='playing']")
    game = svc.session.table.game
    assert [p.name for p in game.players] == ["도윤", "Mia"]
    assert game.edition == "winter" and game.variant == "junior"
    assert game.junior_cards == 3
    assert game.players[game.start].name == "Mia"             # drawn: 7 % 2 players
    # then the table's setup by hand, as the wizard's steps say it: Junior's deal
    page.wait_for_selector("#setup")
    assert tr("en", "wizard.deal_order_junior", start="Mia", count=3) in page.inner_text("#setup")
    page.close()


def test_history_times_are_the_tables_local_time(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Seoul")
    time.tzset()
    try:
        assert local_time("2026-11-28T03:05:00+00:00") == "2026-11-28 12:05"
        assert local_time("2026-11-28T23:30:00") == "2026-11-29 08:30"      # naive: UTC
    finally:
        monkeypatch.undo()
        time.tzset()
