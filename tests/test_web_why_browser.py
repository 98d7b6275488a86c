""""Why?" on a phone, in a real browser (Playwright driving Debian's Chromium): a tap on
the "?" beside the CLOSED sign shows its sentence, and the next action closes it."""
import os

import pytest

from companion.core import events as ev
from companion.review.explain import explanations
from recorder import Recorder
from companion.review.why_text import why_text

from test_web_browser import CHROMIUM, FLAGS
from test_web_why import surge_view

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def test_a_tap_on_the_question_mark_shows_why_and_the_next_action_closes_it(tmp_path):
    from playwright.sync_api import sync_playwright
    loop, view = surge_view(tmp_path)
    assert view.start("127.0.0.1", 0, mdns=False)
    loop.start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(view.url + "/?lang=ko")
            page.wait_for_function("document.getElementById('live').dataset.seq !== undefined")
            sign = "details.why[data-why='sign']"
            want = why_text("ko", explanations(loop.table)["sign"])
            assert page.inner_text(sign).strip() == "?"           # folded: only the "?"
            page.click(f"{sign} summary")
            assert page.evaluate(f"document.querySelector(\"{sign}\").open")
            assert want in page.inner_text(sign)
            rec = Recorder()
            loop.subscribe(rec)
            loop.post(ev.TouchAction({"do": "end_turn"}))           # Ben ends his turn
            rec.wait_for(lambda u: u.accepted)
            page.wait_for_function(
                "document.querySelector(\"details.why[data-why='sign']\") "
                "&& !document.querySelector(\"details.why[data-why='sign']\").open", timeout=5000)
            assert page.is_visible("details.why[data-why='final'] summary")
            browser.close()
    finally:
        loop.stop()
        view.close()
