"""The phone view checked by axe-core in Debian's Chromium (issue 39): no serious or critical
violation at 360x740 and 390x844, in English and Korean, on every state a player meets:
the running game with each seat to play, news after an action, a "why?" open, the game
over (and REMATCH asking who starts), the history, a game's story and the companion page.
And the page reads in words: the live region says what changed, focus and an open "why?"
survive an update."""
import os

import pytest

from companion.core import events as ev
from companion.words.i18n import tr
from recorder import Recorder

from a11y import VIEWPORTS, at_every_size
from test_web_browser import CHROMIUM, browser  # noqa: F401 - fixture
from web_fixtures import new_game, service_with_web  # noqa: F401 - fixture

# axe-core runs some 10-20 times a test (about 30 s alone on 2 cores): twice the suite's
# 60 s, so a machine busy with other work does not cut it short; still bounded
pytestmark = [pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                 reason="Debian's chromium is not installed (.ci/run installs it)"),
              pytest.mark.timeout(120)]
PLAYERS = ["Ana", "Ben", "도윤"]


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
def test_a_running_game_passes_axe_with_each_seat_to_play(service_with_web, browser, lang):
    """Each seat to play, with what just happened (the start, then the last turn), then a
    "why?" open."""
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": PLAYERS})
    page = browser.new_page(viewport=VIEWPORTS["390x844"])
    found: list[str] = []
    page.goto(svc.web.url + f"/?lang={lang}")
    shown(page, svc.web.live.latest.seq)
    for seat, name in enumerate(PLAYERS, 1):
        assert page.locator(f"[data-seat='{seat}'].active").count() == 1
        assert name in page.inner_text("h1")                     # whose turn: the headline
        assert page.locator(".news li").count() > 0               # what just happened
        found += at_every_size(page, f"{lang}-seat{seat}")
        post(svc, {"do": "complete", "slot": 1})
        post(svc, {"do": "end_turn"})
        shown(page, svc.web.live.latest.seq)
    page.locator("details.why summary").first.click()
    assert page.evaluate("document.querySelector('details.why').open")
    found += at_every_size(page, f"{lang}-why-open")
    page.close()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_game_over_history_story_and_companion_pass_axe(service_with_web, browser, lang):
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": PLAYERS})
    page = browser.new_page(viewport=VIEWPORTS["390x844"])
    found: list[str] = []
    page.goto(svc.web.url + f"/?lang={lang}")
    post(svc, {"do": "complete", "slot": 1})
    # the game over: a fifth dislike closes the shop; the round is played out
    post(svc, {"do": "correct", "player": PLAYERS[0], "dislikes": 5})
    for _ in PLAYERS:
        post(svc, {"do": "end_turn"})
    assert svc.session.table.game.game_over
    shown(page, svc.web.live.latest.seq)
    page.wait_for_selector("#story")
    assert page.is_visible("#newgame") and page.is_hidden("button[data-do='end_turn']")
    found += at_every_size(page, f"{lang}-game-over")
    page.click("#ctl > summary")            # the table's controls, then REMATCH: the New
    page.click("#rematch")                  # game form, filled, asks who starts
    assert page.evaluate("document.activeElement.id") == "starter"
    # in sight above the controls docked at the bottom (here open, with the pairing form)
    assert page.evaluate("""() => {const r=document.getElementById('starter')
        .getBoundingClientRect();return document.elementFromPoint(r.x+r.width/2,
        r.y+r.height/2)?.id}""") == "starter"
    # whole: the controls close, and the list stays above the dock as it shrinks
    page.wait_for_function("""() => document.getElementById('starter').getBoundingClientRect()
        .bottom <= document.querySelector('.dock').getBoundingClientRect().top""", timeout=5000)
    assert not page.evaluate("document.getElementById('ctl').open")
    found += at_every_size(page, f"{lang}-rematch-asks-who-starts")
    for path, name in (("/history", "history"), (f"/history/{svc.session.game_id}", "story"),
                       ("/companion", "companion")):
        page.goto(svc.web.url + f"{path}?lang={lang}")
        found += at_every_size(page, f"{lang}-{name}")
    page.close()
    assert not found, "\n".join(found)


CAKE_TIME = {"do": "setup", "edition": "original", "expansion": "cake_time",
             "players": PLAYERS, "start": "Ben", "ristretto_start": True,
             "two_drinks_one_cake": True, "longer_game": True}


def pair(page, svc) -> None:
    """Pair the page's phone (the table's controls opened, the code typed)."""
    page.click("#ctl > summary")
    if page.is_visible("#pair"):
        page.fill("#code", svc.web.pairing.shown())
        page.click("#pairbtn")
        page.wait_for_function("document.getElementById('msg').dataset.status === '200'")


def over_on_a_paired_phone(svc, browser, lang: str, setup: dict):
    """A game set up with ``setup``, ended (a fifth dislike, the round played out), seen
    on a phone paired in ``lang`` at 360 x 740: the page, its end shown."""
    new_game(svc, setup)
    page = browser.new_page(viewport=VIEWPORTS["360x740"])
    page.goto(svc.web.url + f"/?lang={lang}")
    pair(page, svc)
    post(svc, {"do": "correct", "player": PLAYERS[0], "dislikes": 5})
    for _ in PLAYERS:
        post(svc, {"do": "end_turn"})
    page.wait_for_selector("h1[data-phase='over']")
    return page


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_cake_time_rematch_keeps_its_options_and_walks_the_table_through_the_setup(
        service_with_web, browser, lang):
    """REMATCH after a Cake Time game fills the New game form with every option it was
    set up with; Start then shows the setup steps the touchscreen's wizard shows (the
    deal and the meeples), focused, ticked off one by one and put away."""
    svc = service_with_web
    page = over_on_a_paired_phone(svc, browser, lang, CAKE_TIME)
    found: list[str] = []
    page.click("#rematch")
    assert page.input_value("#newgame select[name=edition]") == "cake_time"
    for name in ("ristretto", "two_drinks_one_cake", "longer_game"):      # every option
        box = f"#newgame input[name={name}]:visible"
        assert page.is_visible(box) and page.is_checked(box) and page.is_enabled(box), name
    assert page.is_hidden("#junior")
    found += at_every_size(page, f"{lang}-cake-rematch-form")
    page.select_option("#starter", label="도윤")
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("#setup")
    game = svc.session.table.game
    assert not game.game_over and game.players[game.start].name == "도윤"
    assert (game.expansion, game.ristretto_start, game.two_drinks_one_cake,
            game.longer_game) == ("cake_time", True, True, True)
    # the setup steps, in words, focused on their heading, in sight once the page shows
    # the new game (the New game form above the controls goes away)
    page.wait_for_selector("h1[data-phase='playing']")
    assert page.evaluate("document.activeElement.id") == "setup-h"
    assert page.evaluate("""() => {const r=document.getElementById('setup-h')
        .getBoundingClientRect();return document.elementFromPoint(r.x+10,
        r.y+r.height/2)?.id}""") == "setup-h"
    assert page.inner_text("#setup-h") == tr(lang, "phone.setup_title")
    assert page.locator("#setup h3").all_inner_texts() == [
        tr(lang, "wizard.deal_title"), tr(lang, "wizard.meeples_title")]
    assert page.locator("#setup table.deal tbody th").all_inner_texts() == ["도윤", "Ana", "Ben"]
    meeples = page.locator("#setup ol.steps").last.locator("li").all_inner_texts()
    assert meeples == ["Ben", "Ana", "도윤"]           # from the player right of the starter
    page.evaluate("document.getElementById('setup').scrollIntoView()")
    found += at_every_size(page, f"{lang}-cake-rematch-setup-steps")
    boxes = page.locator("#setup input[type=checkbox]")
    boxes.first.check()
    page.evaluate("document.querySelector('#setup table.deal').scrollIntoView()")
    found += at_every_size(page, f"{lang}-cake-rematch-setup-deal")
    # the button that puts them away, focused from the keyboard: in sight above the dock
    page.focus("#setup-done")
    assert page.evaluate("""() => {const r=document.getElementById('setup-done')
        .getBoundingClientRect();return document.elementFromPoint(r.x+r.width/2,
        r.y+r.height/2)?.id}""") == "setup-done"
    found += at_every_size(page, f"{lang}-cake-rematch-setup-meeples")
    # a table update keeps the steps and what is ticked; so does a reload of the page
    post(svc, {"do": "complete", "slot": 1})
    shown(page, svc.web.live.latest.seq)
    assert page.is_visible("#setup") and boxes.first.is_checked()
    page.reload()
    page.wait_for_selector("#setup")
    assert boxes.first.is_checked() and not boxes.nth(1).is_checked()
    page.click("#setup-done")
    assert page.locator("#setup").count() == 0
    assert page.evaluate("document.activeElement.tagName") == "H1"
    page.reload()                                           # put away: for good
    shown(page, svc.web.live.latest.seq)
    assert page.locator("#setup").count() == 0
    page.close()
    assert not found, "\n".join(found)


def contrast(a, b) -> float:
    def lum(c):
        lin = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
               for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_text_on_every_seat_colour_reads():
    """"Playing now" on each seat colour of the box (and the wizard's green): >= 4.5:1."""
    from companion.core.seat_colours import SCREEN_RGB
    from companion.outputs.web.pages import _on
    for colour in (*SCREEN_RGB, (0x27, 0xa0, 0x52)):
        ink = _on(colour)
        rgb = tuple(int(ink[i:i + 2], 16) for i in (1, 3, 5))
        assert contrast(rgb, colour) >= 4.5, (colour, ink, contrast(rgb, colour))


WINTER_EACH = {"do": "setup", "edition": "winter", "players": PLAYERS, "start": "Ana",
               "upgrades": {"Ana": ["double_meeples", "diagonal_movement", "double_corners",
                                    "jump"],
                            "Ben": ["double_corners", "double_specialties",
                                    "double_destination", "jump"],
                            "도윤": ["double_meeples", "diagonal_movement", "double_corners",
                                    "double_specialties"]}}


def tiles_shown(page) -> dict[str, list[str]]:
    """Each tile group on show: its legend -> the tiles ticked."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#tiles fieldset.tileset:not([hidden])')].map(g => [g.querySelector('legend')
        .textContent, [...g.querySelectorAll('input:checked')].map(b => b.value)]))""")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_phone_s_upgrade_tiles_are_chosen_in_the_form_and_kept_by_rematch(
        service_with_web, browser, lang):
    """The New game form offers the upgrade tiles as the wizard's upgrade step does (the
    same for everyone, each player's own, or decided at the table), in a fieldset of
    radio buttons and a group of boxes per holder, by keyboard; REMATCH keeps each
    player's tiles; four tiles exactly, or the form says so and starts nothing."""
    svc = service_with_web
    page = over_on_a_paired_phone(svc, browser, lang, WINTER_EACH)
    found: list[str] = []
    first = [p.tiles for p in svc.session.table.game.players]
    page.click("#rematch")
    assert page.is_checked("#tiles input[name=tiles][value=each]")
    legend = tr(lang, "phone.tiles_of", player="{}")
    assert tiles_shown(page) == {legend.format(name): WINTER_EACH["upgrades"][name]
                                 for name in PLAYERS}
    assert page.locator("#tiles > legend").inner_text() == tr(lang, "wizard.upgrades_title")
    page.evaluate("document.getElementById('tiles').scrollIntoView()")
    found += at_every_size(page, f"{lang}-winter-rematch-tiles-each")
    page.select_option("#starter", label="Ben")
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("h1[data-phase='playing']")
    game = svc.session.table.game
    assert [p.tiles for p in game.players] == first and not game.open_tiles
    assert game.players[game.start].name == "Ben"

    # a new game: the same four for everyone, chosen by keyboard; three are refused
    post(svc, {"do": "correct", "player": PLAYERS[0], "dislikes": 5})
    for _ in PLAYERS:
        post(svc, {"do": "end_turn"})
    page.wait_for_selector("h1[data-phase='over']")
    page.click("#ctl > summary")                  # (the first REMATCH closed the controls)
    page.click("#rematch")
    page.focus("#tiles input[name=tiles][value=each]")
    page.keyboard.press("ArrowUp")                       # the radio before: the same for all
    assert page.is_checked("#tiles input[name=tiles][value=shared]")
    choose = tr(lang, "wizard.upgrades_choose", count=4, total=6)
    assert list(tiles_shown(page)) == [choose]
    shared = page.locator("#tiles fieldset.tileset:not([hidden]) input")
    for k in (0, 2, 4):
        shared.nth(k).focus()
        page.keyboard.press("Space")
    assert page.inner_text("#tiles fieldset.tileset:not([hidden]) [data-count]") == \
        tr(lang, "wizard.upgrades_chosen", chosen=3, count=4)
    page.select_option("#starter", label="도윤")
    page.click("#newgame button[type=submit]")
    assert page.inner_text("#msg") == choose and svc.session.table.game.game_over
    assert page.evaluate("document.activeElement.value") == "double_meeples"
    found += at_every_size(page, f"{lang}-winter-tiles-shared")
    shared.nth(5).check()
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("h1[data-phase='playing']")
    tiles = ("double_meeples", "double_corners", "double_destination", "jump")
    assert [p.tiles for p in svc.session.table.game.players] == [tiles] * 3
    page.close()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_phone_s_cake_time_tiles_are_drawn_by_the_box_s_rule_and_the_original_s_said(
        service_with_web, browser, lang):
    """Cake Time: the box's rule, 4 of 7 drawn (by the page at Start, or by its button;
    REMATCH draws four anew by default, or keeps the same four if asked, as the
    touchscreen's rematch: issue 40); the original game: its four tiles said, nothing to
    choose; Junior: no tiles."""
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "players": PLAYERS})
    page = browser.new_page(viewport=VIEWPORTS["390x844"])
    page.goto(svc.web.url + f"/?lang={lang}")
    pair(page, svc)
    post(svc, {"do": "correct", "player": PLAYERS[0], "dislikes": 5})
    for _ in PLAYERS:
        post(svc, {"do": "end_turn"})
    page.wait_for_selector("h1[data-phase='over']")
    assert page.is_visible("#tiles-original") and page.is_hidden("#tiles")
    page.select_option("#newgame select[name=edition]", "winter")
    page.check("#junior")
    assert page.is_hidden("#tiles") and page.is_hidden("#tiles-original")
    page.check("input[name=variant][value=standard]")     # Winter: at first, as the wizard, the
    assert page.is_checked("input[name=tiles][value=shared]")      # original four for all
    assert tiles_shown(page) == {tr(lang, "wizard.upgrades_choose", count=4, total=6):
                                 ["double_meeples", "diagonal_movement", "double_corners",
                                  "double_specialties"]}
    page.select_option("#newgame select[name=edition]", "cake_time")
    assert page.is_visible("#tiles") and page.is_checked("input[name=tiles][value=draw]")
    page.click("#tiles [data-draw]:visible")
    drawn = tiles_shown(page)
    assert [len(x) for x in drawn.values()] == [4]
    for i, name in enumerate(PLAYERS):
        page.locator("#newgame input[name=player]").nth(i).fill(name)
    page.select_option("#starter", label="Ana")
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("h1[data-phase='playing']")
    game = svc.session.table.game
    assert game.expansion == "cake_time" and not game.open_tiles
    assert [list(p.tiles) for p in game.players] == list(drawn.values()) * 3
    post(svc, {"do": "correct", "player": PLAYERS[0], "dislikes": 5})
    for _ in PLAYERS:
        post(svc, {"do": "end_turn"})
    page.wait_for_selector("h1[data-phase='over']")
    assert page.is_hidden("[data-again]")              # (no last game drawn: no choice)
    # REMATCH: four drawn anew (the page's draw injected: the box's last four), or the same
    page.evaluate("""() => { let i = 0; crypto.getRandomValues = a => {
        a[0] = [6, 5, 4, 3][i++ % 4]; return a; }; }""")
    page.click("#rematch")
    box = ["double_meeples", "diagonal_movement", "double_corners", "double_specialties",
           "break_time", "double_destination", "storage"]
    legend = tr(lang, "wizard.upgrades_choose", count=4, total=7)
    assert page.is_checked("input[name=tiles][value=draw]")
    assert page.locator("[data-again] legend").inner_text() == tr(lang, "cake.upgrades_draw")
    assert page.is_visible("[data-again]") and page.is_checked("input[name=again][value=new]")
    assert tiles_shown(page) == {legend: box[3:]}
    found = at_every_size(page, f"{lang}-cake-rematch-draw-new")
    page.check("input[name=again][value=same]")
    assert tiles_shown(page) == drawn
    assert page.evaluate("""document.querySelector('input[name=again][value=same]')
        .getAttribute('aria-describedby')""") == "again-hint"
    page.evaluate("document.querySelector('[data-again]').scrollIntoView()")
    found += at_every_size(page, f"{lang}-cake-rematch-draw-same")
    page.check("input[name=again][value=new]")
    assert tiles_shown(page) == {legend: box[3:]}
    page.check("input[name=again][value=same]")
    page.select_option("#starter", index=1)
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("h1[data-phase='playing']")
    assert [list(p.tiles) for p in svc.session.table.game.players] == list(drawn.values()) * 3
    page.close()
    assert not found, "\n".join(found)


WINTER = {"do": "setup", "edition": "winter", "players": PLAYERS, "start": "Ana"}


def visible_options(page) -> list[list[str]]:
    """The New game form's options on show, between the players and the tiles: each as
    [its group's legend or "", its kind, its label, its hint (by aria-describedby)]."""
    return page.evaluate("""() => [...document.querySelectorAll(
        '#newgame-form > fieldset ~ * input:not([name=tiles]):not([name=again]):not(' +
        '[type=checkbox][value]), #newgame-form select[name=junior_cards]')]
        .filter(i => i.checkVisibility() && !i.closest('#tiles'))
        .map(i => { const f = i.closest('fieldset'), h = i.getAttribute('aria-describedby');
          return [f ? f.querySelector('legend').textContent : '', i.type,
                  i.closest('label').textContent.trim(),
                  h ? document.getElementById(h).textContent : '']; })""")


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_the_phone_s_options_are_the_wizard_s_for_each_box(service_with_web, browser, lang):
    """Each box's options on the phone are what the touchscreen's wizard offers (issue 40):
    the original game's Ristretto start alone (one box: no group around it), its hint
    saying what Off and On do as the wizard's; Cake Time's Options, the Ristretto start and
    its two optional rules, each with its hint; Winter's Variant, standard or Junior (and
    Junior's cards per position, its hint counting the orders), never an Options legend
    over nothing."""
    svc = service_with_web
    page = over_on_a_paired_phone(svc, browser, lang, WINTER)
    found: list[str] = []
    w = lambda key, **kw: tr(lang, key, **kw)  # noqa: E731
    page.select_option("#newgame select[name=edition]", "original")
    assert visible_options(page) == [
        ["", "checkbox", w("wizard.ristretto"), w("wizard.ristretto_hint_off")]]
    page.check("#newgame input[name=ristretto]:visible")
    assert visible_options(page)[0][3] == w("wizard.ristretto_hint")
    page.evaluate("document.getElementById('ristretto-hint').scrollIntoView({block: 'center'})")
    found += at_every_size(page, f"{lang}-original-options")
    page.select_option("#newgame select[name=edition]", "cake_time")
    options = w("wizard.options_title")
    assert visible_options(page) == [
        [options, "checkbox", w("wizard.ristretto"), w("wizard.ristretto_hint_off")],
        [options, "checkbox", w("cake.two_drinks_one_cake"), w("cake.two_drinks_one_cake_hint")],
        [options, "checkbox", w("cake.longer_game"), w("cake.longer_game_hint")]]
    page.evaluate("document.getElementById('newgame').scrollIntoView()")
    found += at_every_size(page, f"{lang}-cake-options")
    page.select_option("#newgame select[name=edition]", "winter")
    variant = w("wizard.variant_title")
    assert visible_options(page) == [
        [variant, "radio", w("variant.standard"), ""],
        [variant, "radio", w("variant.junior"), w("wizard.junior_hint", orders=8)]]
    assert page.locator("#newgame legend:visible").all_inner_texts() == [
        w("phone.players"), variant, w("wizard.upgrades_title"),
        w("wizard.upgrades_choose", count=4, total=6)]
    found += at_every_size(page, f"{lang}-winter-options")
    page.check("#junior")                  # Junior: its cards per position, counted
    page.select_option("select[name=junior_cards]", "3")
    assert visible_options(page)[-1] == [variant, "select-one", w("wizard.junior_cards")
                                         + " 234", w("wizard.junior_hint", orders=12)]
    assert page.is_hidden("#tiles")
    page.evaluate("document.getElementById('junior-hint').scrollIntoView({block: 'center'})")
    found += at_every_size(page, f"{lang}-winter-junior")
    page.close()
    assert not found, "\n".join(found)
