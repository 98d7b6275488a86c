"""A family's first evening by touch (issue 40): nothing hidden, every tap answered.

* a "+N" draw badge never covers a card or a count, on the active seat or a side panel,
  in every language at both sizes; it goes once that seat's own draws are taken;
* a tap on nothing (an empty position, a disabled button, another seat's cards) gets a
  short answer, or closes an open "why?";
* the "why?" panel never covers END TURN.
"""
import pytest

from companion.appliance.config import LANGUAGES
from companion.core import events as ev
from companion.outputs.screen import text
from companion.outputs.screen.screenshots import SIZES, make_app, sample_script
from companion.outputs.screen.screens.base import Pointer


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    text.set_language("en")


def widgets(app):
    app.screen.invalidate()
    app.screen.draw(app.surface)
    return {w.name: w for w in app.screen._widgets}


def tap_at(app, pos):
    app.screen.handle(Pointer("down", pos))
    app.screen.handle(Pointer("up", pos))
    app.loop.drain()
    app.process_updates()


COVERED = {"pos", "like", "dislike", "rush_token", "upgrade", "score", "name"}
PANELS = {"act", "p0", "p1", "p2", "p3"}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_draw_badges_cover_no_card_and_no_count(lang, size):
    _, app = make_app(sample_script(), size, lang)
    ws = widgets(app)
    badges = [w for n, w in ws.items() if n.startswith("draw.") and not n.endswith(".why")]
    assert len(badges) == 2          # the sample's surge: Ben (active) and Chloe draw
    for badge in badges:
        assert badge.text.startswith("+")
        shown = [n for n in ws if n.split(".")[0] in PANELS and n.count(".") == 1
                 and n.split(".")[1].rstrip("1234") in COVERED]
        assert len(shown) >= 4 * 9
        for name in shown:
            assert not badge.rect.colliderect(ws[name].rect), (lang, badge.name, name)
        assert not badge.rect.colliderect(ws["ban.draw.who"].rect)


def test_a_seats_badge_goes_once_its_own_draws_are_scanned():
    loop, app = make_app(sample_script(), (800, 480))
    catalog_tags = [t for t in app.catalog.cards if t not in app.table.game.used_tags]
    ben = app.table.game.active_player
    for tag in catalog_tags:
        if app.draws.pending.left_for(app.table.game.active_player) == 0:
            break
        loop.post(ev.CardScanned(tag))
        loop.drain()
        app.process_updates()
    assert app.table.game.active_player.name == ben.name
    ws = widgets(app)
    assert "draw.act" not in ws          # Ben's draws are taken
    assert ws["draw.p2"].text == "+2"    # Chloe's are not yet


def test_a_tap_on_nothing_is_answered_and_closes_the_why_panel():
    _, app = make_app(sample_script(), (800, 480))
    ws = widgets(app)
    empty = ws["act.pos3"]
    assert empty.on_tap is None
    tap_at(app, empty.rect.center)
    assert app.screen.toasts == ["Nothing to do here"]
    toast = widgets(app)["toast.0"]
    assert not toast.rect.colliderect(widgets(app)["act.bg"].rect)   # off the active seat
    app.clock.now += 3                     # (it goes by itself)
    app.screen.tick(app.clock())
    assert app.screen.toasts == []
    tap_at(app, widgets(app)["draw.p2.why"].rect.center)
    assert app.screen.why_open is not None
    redo = widgets(app)["ft.redo"]
    assert not redo.tappable
    tap_at(app, redo.rect.center)          # a disabled button: the panel closes
    assert app.screen.why_open is None


@pytest.mark.parametrize("badge", ["draw.act.why", "draw.p2.why", "act.dislike.why"])
def test_the_why_panel_leaves_end_turn_in_view(badge):
    _, app = make_app(sample_script(), (800, 480))
    ws = widgets(app)
    if badge not in ws:
        pytest.skip(f"{badge} has nothing to explain in the sample")
    tap_at(app, ws[badge].rect.center)
    ws = widgets(app)
    assert "why.panel" in ws
    assert not ws["why.panel"].rect.colliderect(ws["ft.end"].rect)
    assert not ws["why.panel"].rect.colliderect(ws["act.name"].rect)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_end_screens_breakdown_is_whole_and_6_mm_tall(lang):
    """Each player's likes, upgrades x 2 and dislikes x -1 and the total, in icons and
    numbers at the must-read size (a capital 31 px tall at 800 x 480), never cut, in
    every language; the BG Stats code is on a page of its own (the end scene has it)."""
    from companion.outputs.screen.screenshots import FINISHED_SAMPLE, STORY_SCENES
    from companion.outputs.screen.widgets import ink_rect, record_text
    _, app = make_app(sample_script(FINISHED_SAMPLE), (800, 480), lang)
    STORY_SCENES["end"](app)
    assert app.screen.link                  # the code is there, behind "BG Stats"
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    game = app.table.game
    for i in range(len(game.players)):
        parts = [r for r in texts if r.owner in (f"end.like{i}", f"end.upgrade{i}",
                                                  f"end.dislike{i}", f"end.score{i}")]
        assert len(parts) == 4, (lang, i, [r.owner for r in texts])
        for r in parts:
            assert ink_rect("8", r.size, r.bold).h >= 31, (lang, r.owner, r.size)
            assert r.text == r.wanted and r.box.contains(r.rect), (lang, r.owner, r.text)
    ws = widgets(app)
    assert "end.qr" in ws and ws["end.qr"].rect.h <= 80


def test_a_hint_put_away_by_an_action_comes_back_at_its_next_moment():
    from companion.core import teaching
    loop, app = make_app([], (800, 480))
    app.teaching.set_enabled(True)
    loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                              "players": ["Ana", "Ben", "Chloe"], "start": "Ana"}))
    loop.drain()
    app.process_updates()
    assert app.teaching.current.key == "goal"
    loop.post(ev.TouchAction({"do": "end_turn"}))      # nobody read it: the game moved on
    loop.drain()
    app.process_updates()
    assert "goal" not in app.teaching.teacher.taught and "turn" not in \
        app.teaching.teacher.taught
    loop.post(ev.TouchAction({"do": "end_turn"}))      # the next turn: it comes again
    loop.drain()
    app.process_updates()
    assert "turn" in [h.key for h in app.teaching.queue]
    assert isinstance(app.teaching.current, teaching.Hint)


def test_a_tap_on_a_device_icon_says_what_it_is():
    from companion.core.events import DeviceStatus
    loop, app = make_app(sample_script(), (800, 480))
    loop.post(DeviceStatus("scanner", "lost", "USB cable unplugged"))
    loop.post(DeviceStatus("buttons", "connected"))
    loop.drain()
    app.process_updates()
    app.screen._toasts.clear()
    ws = widgets(app)
    target = ws["hdr.devices"]
    assert target.rect.contains(ws["hdr.dev.scanner"].rect.union(ws["hdr.dev.buttons"].rect))
    tap_at(app, ws["hdr.dev.scanner"].rect.center)
    assert app.screen.toasts == ["Scanner disconnected · Buttons connected"]
