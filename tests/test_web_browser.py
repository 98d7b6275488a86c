"""The phone view in a real browser (Playwright driving Debian's Chromium) against
the service on simulated hardware: a seat tap shows on the page within 1 s, the
history export downloads, an action from an unpaired phone is refused, the phone pairs
once with the code (the token an HttpOnly cookie) and acts, and Forget unpairs it."""
import os
import time

import pytest

from companion.core import events as ev
from companion.devices.mock_pins import Fingers
from recorder import Recorder

from web_fixtures import service_with_web  # noqa: F401 - fixture

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def likes_of(seat: int) -> str:
    return f"document.querySelector('[data-seat=\"{seat}\"] .counts b').textContent"


def test_tap_shows_on_the_page_and_actions_need_the_code(service_with_web, browser):
    svc = service_with_web
    rec = Recorder()
    svc.loop.subscribe(rec)
    svc.loop.post(ev.TouchAction({"do": "setup", "edition": "winter",
                                  "players": ["Ana", "Bé", "김민준"]}))
    rec.wait_for(lambda u: u.accepted)
    page = browser.new_page(viewport={"width": 390, "height": 844}, accept_downloads=True)
    sent: list = []          # every request the page makes: no action may carry the code
    page.on("request", lambda r: sent.append((r.url, r.all_headers(), r.post_data or "")))
    page.goto(svc.web.url + "/?lang=ko")
    page.wait_for_selector("[data-seat='3']")
    assert "김민준" in page.inner_text("[data-seat='3'] h2")
    assert page.evaluate(likes_of(1)) == "0"
    page.wait_for_function("document.getElementById('live').dataset.seq !== undefined")

    # a seat tap on the simulated button reaches the page within a second
    fingers = Fingers.on(svc.inputs[0]).start()
    pressed = time.monotonic()
    fingers.press(0)
    page.wait_for_function(f"{likes_of(1)} === '1'", timeout=1000)
    assert time.monotonic() - pressed < 1.0
    fingers.close()

    # undo without the code: refused, nothing changes
    page.click("details.ctl summary")
    page.click("button[data-do='undo']")
    page.wait_for_function("document.getElementById('msg').dataset.status === '401'")
    assert page.evaluate(likes_of(1)) == "1"
    assert len(svc.session.table.game.players) == 3 and svc.session.table.game.players[0].likes == 1

    # paired once with the code shown in Settings: the code is not kept by the page, the
    # token is an HttpOnly cookie the page's script cannot read
    code = svc.web.pairing.code
    page.fill("#code", svc.web.pairing.shown())
    page.click("#pairbtn")
    page.wait_for_function("document.getElementById('msg').dataset.status === '200'")
    assert page.is_hidden("#pair") and page.input_value("#code") == ""
    assert "companion_token" not in page.evaluate("document.cookie")
    page.click("button[data-do='undo']")
    page.wait_for_function(f"{likes_of(1)} === '0'", timeout=1000)
    assert svc.session.table.game.players[0].likes == 0

    # a new code does not unpair this phone; "Forget" in Settings does, at once
    svc.web.pairing.renew()
    page.click("button[data-do='redo']")
    page.wait_for_function(f"{likes_of(1)} === '1'", timeout=1000)
    for phone in svc.web.pairing.phones():
        svc.web.pairing.forget(phone.id)
    page.click("button[data-do='undo']")
    page.wait_for_function("document.getElementById('msg').dataset.status === '401'")
    assert page.is_visible("#pair")                     # it asks for the code again
    assert svc.session.table.game.players[0].likes == 1
    page.close()
    actions = [(h, body) for url, h, body in sent if url.endswith("/api/action")]
    assert len(actions) >= 4 and sum(url.endswith("/api/pair") for url, _, _ in sent) == 1
    for headers, body in actions:
        assert code not in body and all(code not in v for v in headers.values()), headers


def test_history_export_downloads(service_with_web, browser, tmp_path):
    svc = service_with_web
    if svc.session.game_id is None:             # this test alone: one game to export
        rec = Recorder()
        svc.loop.subscribe(rec)
        svc.loop.post(ev.TouchAction({"do": "setup", "edition": "winter",
                                      "players": ["Ana", "Bé"]}))
        rec.wait_for(lambda u: u.accepted)
    page = browser.new_page(accept_downloads=True)
    page.goto(svc.web.url + "/history?lang=es")
    assert page.locator("#game-1").count() == 1
    with page.expect_download() as got:
        page.click("#game-1 a[href='/history/1/csv']")
    download = got.value
    assert download.suggested_filename == "coffee-rush-game-1.csv"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("game,started_utc") and "Ana" in text
    page.close()


def test_two_phones_a_page_still_showing_anas_turn_cannot_end_bens(service_with_web, browser):
    """Two paired phones show Ana's turn; phone A ends it; phone B's live updates have not
    arrived yet (its stream is held), so it still shows Ana's turn and sends that table's
    version with its End turn: refused with 412 and the words, and Ben's turn goes on.
    The refusal brings B the table as it is (its stream still held): B shows Ben's turn
    and acts on it."""
    from web_fixtures import new_game
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"],
                   "start": "Ana"})
    phones = [browser.new_context(viewport={"width": 390, "height": 844}) for _ in range(2)]
    held = []

    def hold(route):                                  # B's updates never arrive
        held.append(route)
    phones[1].route("**/api/events*", hold)
    try:
        a, b = (p.new_page() for p in phones)
        version = "document.getElementById('live').dataset.version"
        for page in (a, b):
            page.goto(svc.web.url + "/?lang=en")
            page.click("details.ctl summary")
            page.fill("#code", svc.web.pairing.shown())
            page.click("#pairbtn")
            page.wait_for_function("document.getElementById('msg').dataset.status === '200'")
        ana_turn = a.evaluate(version)
        assert b.evaluate(version) == ana_turn and held      # both show Ana's turn
        assert "Ana" in b.inner_text("#live")

        a.click("button[data-do='end_turn']")
        a.wait_for_function("document.getElementById('msg').dataset.status === '200'")
        a.wait_for_function(f"{version} !== {ana_turn!r}", timeout=2000)   # A shows Ben's
        b.click("button[data-do='end_turn']")
        b.wait_for_function("document.getElementById('msg').dataset.status === '412'")
        assert b.inner_text("#msg") == "Refused: Ben's turn had already begun"
        game = svc.session.table.game
        assert (game.active, game.turn) == (1, 2)              # Ben's turn goes on

        assert b.evaluate(version) == a.evaluate(version) != ana_turn   # Ben's turn now
        assert "Ben" in b.inner_text("[data-seat='2'] h2") and len(held) == 1
        assert b.locator("[data-seat='2'] .now").count() == 1              # "Playing now"
        b.click("button[data-do='end_turn']")
        b.wait_for_function("document.getElementById('msg').dataset.status === '200'")
        assert svc.session.table.game.active == 2              # Ben's turn ended, Chloe's
    finally:
        for p in phones:
            p.close()


def test_a_phone_pairs_with_its_name_by_pressing_enter(service_with_web, browser):
    """The pairing page asks for the phone's name; Enter in the code field pairs (issue 39),
    and Settings' list has the phone by that name."""
    svc = service_with_web
    context = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        page = context.new_page()
        page.goto(svc.web.url + "/?lang=en")
        page.click("details.ctl summary")
        page.fill("#phonename", "Chloe's Pixel")
        page.fill("#code", svc.web.pairing.shown())
        page.press("#code", "Enter")
        page.wait_for_function("document.getElementById('msg').dataset.status === '200'")
        assert page.is_hidden("#pair") and page.input_value("#code") == ""
        assert "Chloe's Pixel" in page.inner_text("#msg")
        names = {p.name: p for p in svc.web.pairing.phones()}
        assert "Chloe's Pixel" in names and names["Chloe's Pixel"].last_seen > 0
    finally:
        context.close()
