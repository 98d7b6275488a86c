""""Why?" on a phone, in a real browser (Playwright driving Debian's Chromium): a tap on
the "?" beside the CLOSED sign, named by its question, shows its sentence, and it stays open
(and focused) while the table moves on, as long as the table still explains it."""
import os

import pytest

from companion.core import events as ev
from companion.review.explain import explanations
from recorder import Recorder
from companion.review.why_text import why_text
from companion.words.i18n import tr

from test_web_browser import CHROMIUM, FLAGS
from test_web_why import surge_view

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def test_a_tap_on_the_question_mark_shows_why_and_it_stays_open_across_updates(tmp_path):
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
            assert page.inner_text(f"{sign} summary [aria-hidden]") == "?"  # folded: the "?"
            assert want not in page.inner_text(sign)
            name = page.locator(f"{sign} summary").evaluate("s => s.textContent")
            assert name == "?" + tr("ko", "phone.why_sign", sign=tr("ko", "word.closed"))
            box = page.locator(f"{sign} summary").bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44         # a thumb's target
            page.click(f"{sign} summary")
            assert page.evaluate(f"document.querySelector(\"{sign}\").open")
            assert want in page.inner_text(sign)
            rec = Recorder()
            loop.subscribe(rec)
            loop.post(ev.TouchAction({"do": "end_turn"}))           # Ben ends his turn
            rec.wait_for(lambda u: u.accepted)
            page.wait_for_function(f"+document.getElementById('live').dataset.seq >= "
                                   f"{view.live.latest.seq}", timeout=5000)
            assert page.evaluate(f"document.querySelector(\"{sign}\").open")   # still open
            assert page.evaluate(f"document.activeElement.matches(\"{sign} summary\")")
            assert page.is_visible("details.why[data-why='final'] summary")
            browser.close()
    finally:
        loop.stop()
        view.close()
