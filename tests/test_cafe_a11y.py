"""The café's floor and leaderboard checked by axe-core in Debian's Chromium (issue 39):
no serious or critical violation at 360x740 and 390x844, in English and Korean, with a
table playing, one needing help, one finished and one offline; and in words: the page
follows Accept-Language, switches language keeping the page, says a device's trouble
wholly in the page's language, an offline table once, and time played with its unit."""
import os

import pytest

from companion.core import events as ev
from tests.a11y import VIEWPORTS, at_every_size
from tests.cafe_fixtures import broker, hub, tables, wait_until  # noqa: F401
from tests.test_cafe_browser import CHROMIUM, FLAGS, card, floor_server  # noqa: F401

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason="Debian's chromium is not installed (.ci/run installs it)")


def test_the_floor_and_leaderboard_pass_axe_and_read_in_words(hub, tables, floor_server):
    from playwright.sync_api import sync_playwright
    done = tables("table-1", seed=3)
    done.play_game()
    help_me = tables("table-2", seed=4, players=4)
    help_me.play_game(until=lambda g: g.turn >= 3)
    help_me.loop.post(ev.DeviceStatus("scanner", "lost", "USB cable unplugged"))
    help_me.loop.drain()
    gone = tables("table-3", seed=5)
    gone.play_game(until=lambda g: g.turn >= 2)
    gone.loop.post(ev.DeviceStatus("scanner", "lost", "USB cable unplugged"))
    gone.loop.drain()
    assert wait_until(lambda: hub.counts["results_new"] == 1)
    assert wait_until(lambda: any(r["table"] == "table-2" and (r["state"] or {}).get(
        "status", {}).get("devices") == {"scanner": "lost"} for r in hub.store.floor(hub.venue)))
    gone.publisher.close()
    assert wait_until(lambda: any(r["table"] == "table-3" and r["status"] != "online"
                                  for r in hub.store.floor(hub.venue)))
    found: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        # the browser's language, when the address names none
        page = browser.new_page(locale="ko-KR", extra_http_headers={
            "Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"})
        page.goto(floor_server.url + "/")
        page.wait_for_selector(card("table-3"))
        assert page.evaluate("document.documentElement.lang") == "ko"
        page.close()
        for lang in ("en", "ko"):
            page = browser.new_page(viewport=VIEWPORTS["390x844"])
            page.goto(floor_server.url + f"/?lang={lang}")
            page.wait_for_selector(card("table-3") + "[data-online='false']")
            found += at_every_size(page, f"cafe-{lang}-floor")
            if lang == "ko":
                two = page.inner_text(card("table-2"))
                assert "도움 필요: 카드 리더 연결 끊김" in two, two
                off = page.inner_text(card("table-3"))
                assert off.count("연결 끊김") == 1 and "도움 필요" not in off, off
                assert "분 진행" in two or "초 진행" in two, two      # a unit, not "0:33"
                # the leaderboard link keeps the language
                assert page.get_attribute("#to-board", "href") == "leaderboard?lang=ko"
            page.goto(floor_server.url + f"/leaderboard?lang={lang}")
            page.wait_for_selector("tr[data-player]")
            found += at_every_size(page, f"cafe-{lang}-leaderboard")
            page.set_viewport_size(VIEWPORTS["360x740"])
            heads = page.evaluate("[...document.querySelectorAll('thead th')]"
                                  ".map(th => th.getBoundingClientRect().height)")
            line = page.evaluate("parseFloat(getComputedStyle(document.querySelector("
                                 "'thead th')).lineHeight) || 24")
            assert max(heads) < 2.6 * line, (lang, heads)        # at most two lines
            if lang == "ko":                  # the switch keeps the page
                page.click("nav.langs a[hreflang='es']")
                page.wait_for_selector("tr[data-player]")
                assert page.url.endswith("/leaderboard?lang=es")
            page.close()
        browser.close()
    assert not found, "\n".join(found)
