"""The end screen shows the finished game's BG Stats link as a QR code that a real
decoder (zbar) reads back from the screen's pixels; Settings shows the pairing code."""
import io
import time

import pygame
from pyzbar import pyzbar

from companion.review import history
from companion.core import events as ev
from companion.review.exports import PlayLink
from companion.core.journal import Journal
from companion.core.session import Session
from companion.core.loop import TableLoop
from recorder import Recorder
from companion.outputs.screen import screenshots
from companion.outputs import Outputs
from companion.outputs.screen.app import App
from companion.outputs.web.pairing import Pairing
from played_games import finished_game


def decode_screen(surface: pygame.Surface, rect: pygame.Rect) -> list[str]:
    part = surface.subsurface(rect)
    grey = bytes(min(255, sum(part.get_at((x, y))[:3]) // 3)
                 for y in range(part.get_height()) for x in range(part.get_width()))
    return [r.data.decode() for r in pyzbar.decode((grey, part.get_width(), part.get_height()))]


def test_end_screen_qr_code_decodes_to_the_history_link(tmp_path):
    db = finished_game(tmp_path / "journal.db")
    out = io.StringIO()
    assert history.run(db, 1, "bgstats", out=out) == 0
    link = out.getvalue().strip()
    screenshots._init_pygame()
    with Journal(db) as journal:
        session = Session(journal)
        loop = TableLoop(session)
        links = PlayLink(loop)
        loop.subscribe(links)
        app = Outputs(loop).start(App(loop, surface=pygame.Surface((800, 480)), language="ko"),
                                  main_thread=True)
        recorder = Recorder()
        loop.subscribe(recorder)
        assert type(app.screen).__name__ == "EndScreen" and app.screen.link is None
        loop.start()                              # a worker makes the link, the loop keeps it
        found = recorder.wait_for(lambda u: isinstance(u.event, ev.PlayLinkFound))
        loop.stop()
        links.close()
        assert found.snapshot.play_link == link   # the loop's snapshot carries it
        assert app.process_updates() >= 1         # the screen takes it from the update
        assert app.screen.link == link
        later = Outputs(loop).start(App(loop, surface=pygame.Surface((800, 480)), language="ko"),
                                    main_thread=True)
        assert type(later.screen).__name__ == "EndScreen" and later.screen.link == link
        app.screen.invalidate()
        app.screen.draw(app.surface)
        assert type(app.screen).__name__ == "EndScreen"
        # "BG Stats" beside the winner: the ranking keeps the whole width, and the code
        # has a page of its own
        qr = next(w for w in app.screen.widgets() if w.name == "end.qr")
        assert qr.rect.bottom <= next(w for w in app.screen.widgets()
                                      if w.name == "end.row0").rect.top
        qr.on_tap()                               # tapped: the code fills the screen
        app.screen.invalidate()
        app.screen.draw(app.surface)
        big = next(w for w in app.screen.widgets() if w.name == "qr.code")
        assert big.rect.h == 480 and decode_screen(app.surface, big.rect) == [link]
        next(w for w in app.screen.widgets() if w.name == "qr.back").on_tap()
        assert type(app.screen).__name__ == "EndScreen"


def test_settings_show_the_pairing_code_and_renew_it():
    _, app = screenshots.make_app([], (800, 480), "en")
    app.pairing = Pairing(code="482913")
    app.web_url = "http://coffee-rush.local:8080"
    screen = app.open("settings")
    screen.invalidate()
    screen.draw(app.surface)
    texts = {w.name: getattr(w, "text", "") for w in screen.widgets()}
    assert texts["set.pairing_code"] == "482 913"
    assert "coffee-rush.local" in texts["set.web_url"]
    next(w for w in screen.widgets() if w.name == "set.new_code").on_tap()
    assert app.pairing.code != "482913"


def test_settings_list_the_paired_phones_and_forget_one_by_touch():
    from ui_touch import touch, widget
    _, app = screenshots.make_app([], (800, 480), "en")
    app.pairing = Pairing(code="482913")
    app.web_url = "http://coffee-rush.local:8080"
    _, ana = app.pairing.pair("482913", "10.0.0.2", "Ana's phone")
    _, ben = app.pairing.pair("482913", "10.0.0.3", "iPhone")
    app.open("settings")
    assert widget(app, "set.phones").text == "Phones (2)"
    touch(app, "set.phones")
    assert [widget(app, f"set.phone.{k}").text for k in (0, 1)] == ["Ana's phone", "iPhone"]
    touch(app, "set.forget.0")
    assert app.pairing.authorize(ana) == "wrong" and app.pairing.authorize(ben) == "ok"
    assert widget(app, "set.phone.0").text == "iPhone"
    touch(app, "set.phones_done")
    assert widget(app, "set.phones").text == "Phones (1)"


def test_every_paired_phone_can_be_reached_and_forgotten_four_at_a_time():
    from ui_touch import has_widget, touch, widget
    _, app = screenshots.make_app([], (800, 480), "en")
    app.pairing = Pairing(code="482913")
    tokens = [app.pairing.pair("482913", f"10.0.0.{k}", f"Phone {k}")[1] for k in range(6)]
    app.open("settings")
    touch(app, "set.phones")
    assert [widget(app, f"set.phone.{k}").text for k in range(4)] == \
        ["Phone 0", "Phone 1", "Phone 2", "Phone 3"]
    assert widget(app, "set.phones_page").text == "1–4 of 6"
    assert not widget(app, "set.phones_prev").enabled
    touch(app, "set.phones_next")
    assert widget(app, "set.phones_page").text == "5–6 of 6"
    assert [widget(app, f"set.phone.{k}").text for k in range(2)] == ["Phone 4", "Phone 5"]
    assert not has_widget(app, "set.phone.2") and not widget(app, "set.phones_next").enabled
    touch(app, "set.forget.1")                     # the newest phone
    touch(app, "set.forget.0")                     # the page empties: back to the first four
    assert app.pairing.authorize(tokens[5]) == "wrong" and app.pairing.authorize(tokens[4]) == \
        "wrong" and app.pairing.authorize(tokens[0]) == "ok"
    assert [widget(app, f"set.phone.{k}").text for k in range(4)] == \
        ["Phone 0", "Phone 1", "Phone 2", "Phone 3"]
    assert not has_widget(app, "set.phones_page")  # four fit: no pages
    touch(app, "set.phones_done")
    assert widget(app, "set.phones").text == "Phones (4)"


def test_the_end_screen_reaches_the_pairing_code_and_settings_say_when_phones_were_seen(
        tmp_path):
    """A new phone can pair after the game is over (issue 39): ⚙ on the end screen opens
    Settings, whose phones list says when each phone was last seen."""
    from ui_touch import touch, widget
    db = finished_game(tmp_path / "journal.db")
    screenshots._init_pygame()
    with Journal(db) as journal:
        loop = TableLoop(Session(journal))
        app = Outputs(loop).start(App(loop, surface=pygame.Surface((800, 480)), language="en"),
                                  main_thread=True)
        app.pairing = Pairing(code="482913", wall=lambda: 1_700_000_000.0)
        assert type(app.screen).__name__ == "EndScreen"
        _, token = app.pairing.pair("482913", "10.0.0.2", "Ana's phone")
        touch(app, "end.settings")
        assert type(app.screen).__name__ == "SettingsScreen"
        assert widget(app, "set.pairing_code").text == "482 913"
        touch(app, "set.phones")
        seen = widget(app, "set.phone_seen.0").text
        assert seen.startswith("seen ") and seen.endswith(
            time.strftime("%H:%M", time.localtime(1_700_000_000.0)))
        touch(app, "set.phones_done")
        app.screen.close()
        assert type(app.screen).__name__ == "EndScreen"     # back where it was


def test_the_end_screens_title_is_whole_beside_the_bg_stats_button_in_every_language():
    """"Fin de la partida" beside BG Stats was cut ("Fin de la par…") at 800 x 480: it takes
    two lines where one cannot hold it."""
    from companion.outputs.screen import text
    from companion.outputs.screen.widgets import record_text
    for lang in ("en", "es", "pt", "it", "ko"):
        _loop, app = screenshots.make_app(screenshots.sample_script(screenshots.FINISHED_SAMPLE),
                                          (800, 480), lang)
        screenshots.STORY_SCENES["end"](app)
        assert app.screen.link
        app.screen.invalidate()
        with record_text() as texts:
            app.screen.draw(app.surface)
        title = [r for r in texts if r.owner == "end.title"]
        assert title and all("…" not in r.text and r.box.contains(r.rect) for r in title)
        assert " ".join(" ".join(r.text for r in title).split()) == text.t("end.title"), lang
    text.set_language("en")
