"""The phone's Companion page: a paired phone downloads the help report (a link) and asks
for an update (a button that posts with fetch), in the page's language, the answer said in a
live region (issue 41). The routes through the app, then a real Chromium clicking them, and
axe-core on the page."""
import io
import json
import os
import tarfile

import httpx
import pytest

from companion.appliance import updates
from companion.appliance.config import LANGUAGES
from companion.appliance.service import Service
from companion.outputs.web import pages
from companion.words.i18n import tr

from a11y import VIEWPORTS, at_every_size
from test_web_browser import CHROMIUM, browser  # noqa: F401 - fixture
from web_fixtures import web_config
from timing import scaled

WORDS = ("help", "report", "report_hint", "report_wait", "update", "update_hint",
         "update_confirm", "update_asking", "update_none", "pair_first", "no_report")


def members(data: bytes) -> dict[str, str]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read().decode("utf-8", "replace")
                for m in tar.getmembers()}


@pytest.fixture
def installed(tmp_path):
    """A service whose program is installed as releases (so it may update itself), its
    phone view on a free port."""
    layout = updates.Layout(str(tmp_path / "opt"))
    os.makedirs(layout.release("1.0-a"))
    layout.switch("current", "1.0-a")
    svc = Service(web_config(tmp_path), headless=True)
    svc.update_prefix = layout.prefix
    svc.start_web()
    assert svc.web is not None
    yield svc, tmp_path / "state" / "update-requested"
    svc.shutdown()


def test_the_words_are_in_every_language_and_our_own():
    english = {key: tr("en", "web." + key) for key in WORDS}
    for lang in LANGUAGES:
        for key in WORDS:
            said = tr(lang, "web." + key)
            assert said and said != "web." + key, (lang, key)
            assert lang == "en" or said != english[key], (lang, key)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_has_a_report_link_an_update_button_and_a_live_region(lang):
    page = pages.companion_page(lang, 5.0, {}, [], "", can_update=True)
    assert f'<a class="btn" id="report" href="/api/report?lang={lang}"' in page
    assert '<button type="button" id="update"' in page
    assert '<p id="help-msg" role="status" aria-live="polite"></p>' in page
    for key in ("help", "report", "update", "update_hint"):
        assert pages.t(lang, "web." + key) in page
    assert json.dumps(tr(lang, "web.update_confirm"), ensure_ascii=False) in page
    # not installed as releases: no button, the reason instead
    plain = pages.companion_page(lang, 5.0, {}, [], "")
    assert 'id="update"' not in plain and pages.t(lang, "web.update_none") in plain


def test_the_report_link_counts_the_pairing_cookie_unless_another_site_sent_it(installed):
    svc, _ = installed
    url = svc.web.url
    token = httpx.post(url + "/api/pair", json={"code": svc.web.pairing.code},
                       timeout=scaled(5)).json()["token"]
    cookie = {"Cookie": f"companion_token={token}"}
    # a link followed on the page (no Origin): the browser says same-origin, or nothing
    for site in ("same-origin", None):
        extra = {"Sec-Fetch-Site": site} if site else {}
        r = httpx.get(url + "/api/report", headers={**cookie, **extra}, timeout=scaled(30))
        assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
        assert "attachment" in r.headers["content-disposition"]
        assert token not in "".join(members(r.content).values())
    for site in ("cross-site", "same-site"):
        r = httpx.get(url + "/api/report?lang=es", timeout=scaled(5),
                      headers={**cookie, "Sec-Fetch-Site": site, "Accept": "text/html"})
        assert r.status_code == 403 and tr("es", "web.origin") in r.text
    # a phone not paired, from the page: a page in its words, with the way back
    r = httpx.get(url + "/api/report?lang=ko", headers={"Accept": "text/html"}, timeout=scaled(5))
    assert r.status_code == 401 and r.headers["content-type"].startswith("text/html")
    assert tr("ko", "web.not_paired") in r.text and 'href="/?lang=ko"' in r.text
    # an update still needs the page's Origin with the cookie (it changes the table)
    r = httpx.post(url + "/api/update", headers={**cookie, "Sec-Fetch-Site": "same-origin"},
                   timeout=scaled(5))
    assert r.status_code == 403


def test_without_releases_the_update_answer_says_why_in_words(tmp_path):
    svc = Service(web_config(tmp_path), headless=True)
    svc.update_prefix = str(tmp_path / "nothing-installed")
    svc.start_web()
    try:
        url = svc.web.url
        token = httpx.post(url + "/api/pair", json={"code": svc.web.pairing.code},
                           timeout=scaled(5)).json()["token"]
        r = httpx.post(url + "/api/update?lang=it", headers={"Authorization": f"Bearer {token}"},
                       timeout=scaled(5))
        assert r.status_code == 404 and r.json()["message"] == tr("it", "web.update_none")
        page = httpx.get(url + "/companion?lang=it", timeout=scaled(5)).text
        assert 'id="update"' not in page and 'id="report"' in page
    finally:
        svc.shutdown()


def pair(page, url: str, code: str) -> None:
    """Pair the phone as a person does: the code typed on the live page."""
    page.goto(url + "/")
    page.click("details.ctl summary")
    page.fill("#code", code)
    page.click("#pairbtn")
    page.wait_for_function("document.getElementById('msg').dataset.status === '200'")


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed")
@pytest.mark.timeout(120)
def test_a_paired_phone_clicks_report_and_update_in_chromium(installed, browser, tmp_path):
    svc, asked = installed
    url = svc.web.url
    found: list[str] = []
    phone = browser.new_context(viewport=VIEWPORTS["390x844"], accept_downloads=True)
    page = phone.new_page()
    # not paired yet: told how to pair; Update is refused and the refusal is said
    page.goto(url + "/companion?lang=es")
    assert page.is_visible("#pair-first")
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name=tr("es", "web.update")).click()
    page.wait_for_function("document.getElementById('help-msg').dataset.status === '401'")
    assert page.inner_text("#help-msg") == tr("es", "web.not_paired")
    assert not asked.exists()
    found += at_every_size(page, "es-companion-unpaired")

    pair(page, url, svc.web.pairing.shown())
    for lang in ("en", "ko"):
        page.goto(url + f"/companion?lang={lang}")
        assert page.is_hidden("#pair-first")
        found += at_every_size(page, f"{lang}-companion-paired")
    # the report: a link; it downloads, and the live region says it is coming
    with page.expect_download(timeout=30000) as got:
        page.get_by_role("link", name=tr("ko", "web.report")).click()
    assert page.inner_text("#help-msg") == tr("ko", "web.report_wait")
    download = got.value
    assert download.suggested_filename == "coffee-companion-report.tar.gz"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    files = members(path.read_bytes())
    assert "doctor.txt" in files
    assert svc.web.pairing.code not in "".join(files.values())
    # Update: a cancelled confirmation asks nothing; an accepted one asks, and says so
    page.once("dialog", lambda d: d.dismiss())
    page.click("#update")
    assert not asked.exists() and page.inner_text("#help-msg") == tr("ko", "web.report_wait")
    page.once("dialog", lambda d: d.accept())
    page.click("#update")
    page.wait_for_function("document.getElementById('help-msg').dataset.status === '200'")
    assert page.inner_text("#help-msg") == tr("ko", "settings.update_asked")
    assert json.loads(asked.read_text())["by"] == "phone"
    assert page.is_disabled("#update")
    found += at_every_size(page, "ko-companion-update-asked")
    phone.close()
    assert not found, "\n".join(found)
