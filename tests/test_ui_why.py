""""Why?" on the touchscreen, in the real App (SDL off-screen): a touch on each number or
sign the companion set by itself shows its one sentence in a panel that never covers
whose turn it is; a tap on the panel or the next action closes it."""
from __future__ import annotations

import json

import pygame
import pytest

from ui_touch import has_widget, make_app, touch, widget

from companion.core import events as ev
from companion.review.explain import explanations
from companion.core.rules.rejections import reject
from companion.outputs.screen.screens.end import EndScreen
from companion.outputs.screen.theme import MIN_TARGET
from companion.review.why_text import why_text

SURGE = [  # Ana completes 2 with 3 cards left: Ben draws 2, Chloe the last one; CLOSED
    {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"]},
    {"do": "correct", "deck": 3}, {"do": "complete"}, {"do": "complete"}, {"do": "end_turn"}]
DISLIKES = [  # Ben misses an order with the flow of time, then Chloe plays
    {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"]},
    *[{"do": "end_turn"}] * 7]
SIZES = [(800, 480), (1024, 600)]


def lines(actions):
    return [json.dumps(a) for a in actions]


def quiet(app):
    """Let the messages of the last turn run out (they sit over the panels)."""
    app.clock.now += 30
    app.tick()
    app.draw()


def panel_text(app) -> str | None:
    if not has_widget(app, "why.text"):
        return None
    return widget(app, "why.text").text


def check_panel(app, target: str, lang: str) -> None:
    """The panel shows the table's explanation of ``target``, on the screen, off whose
    turn it is."""
    want = why_text(lang, explanations(app.table)[target])
    assert panel_text(app) == want
    panel = widget(app, "why.panel").rect
    assert pygame.Rect((0, 0), app.size).contains(panel)
    banner = getattr(app.screen, "_name_banner", None)       # the end screen has none
    if banner is not None:
        assert not panel.colliderect(banner), (target, panel, banner)
    # the panel is drawn over everything else (the last widgets of the screen)
    names = [w.name for w in app.screen._widgets if not w.name.startswith("toast.")]
    assert names[-4:] == ["why.panel", "why.title", "why.close", "why.text"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_each_ruling_after_a_short_surge_answers_a_touch(lang, size):
    _, app = make_app(size, lang, lines(SURGE))
    quiet(app)
    game = app.table.game
    seat = {p.name: i for i, p in enumerate(game.players)}
    targets = {f"draw.p{seat['Chloe']}.why": "draw:Chloe", "draw.act.why": "draw:Ben",
               "hdr.sign.why": "sign", "hdr.final.why": "final"}
    for name, target in targets.items():
        w = widget(app, name)
        assert w.rect.w >= MIN_TARGET and w.rect.h >= MIN_TARGET
        touch(app, name)
        check_panel(app, target, lang)
        touch(app, "why.panel")                      # a tap closes it
        assert panel_text(app) is None
    if lang == "en":
        touch(app, f"draw.p{seat['Chloe']}.why")
        assert panel_text(app) == ("Ana completed 2 orders, so Ben and Chloe each draw 2 "
                                   "(1 left in the deck: Chloe draws 1)")


def test_the_active_players_badge_still_completes_position_1():
    """The "+2" over Ben's position 1 asks why only by its "?" corner."""
    _, app = make_app((800, 480), "en", lines(SURGE))
    quiet(app)
    badge, corner = widget(app, "act.pos1").rect, widget(app, "draw.act.why").rect
    assert not corner.collidepoint(badge.center)
    likes = app.table.game.active_player.likes
    touch(app, "act.pos1")
    assert app.table.game.active_player.likes == likes + 1
    assert panel_text(app) is None


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_dislike_count_answers_a_touch(lang):
    _, app = make_app((800, 480), lang, lines(DISLIKES))
    quiet(app)
    game = app.table.game
    seat = next(i for i, p in enumerate(game.players) if p.dislikes and i != game.active)
    name = game.players[seat].name
    touch(app, f"p{seat}.dislike.why")
    check_panel(app, f"dislikes:{name}", lang)
    if lang == "en":
        assert panel_text(app).startswith(f"When {name}'s turn ended, 1 order was still in "
                                          "position 4: with the flow of time it became a "
                                          "dislike (1 in all)")
    # the next action closes it
    touch(app, "ft.end")
    assert panel_text(app) is None


def test_a_number_with_nothing_to_explain_has_no_target():
    _, app = make_app((800, 480), "en", lines(SURGE[:1]))
    assert not any(w.name.endswith(".why") for w in app.screen._widgets)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_refused_touch_explains_itself_when_its_message_is_touched(lang):
    _, app = make_app((800, 480), lang, lines(SURGE[:1]))
    game = app.table.game
    me = game.active_player
    empty = next(i + 1 for i, pos in enumerate(me.queue) if not pos)
    app.screen.draw(app.surface)
    app.last_touch = widget(app, f"act.pos{empty}").rect.center
    app.post_action({"do": "complete", "slot": empty})     # what a touch there would post
    app.loop.drain()
    app.process_updates()
    app.draw()
    touch(app, "toast.0")
    text = panel_text(app)
    from companion.review.explain import refusal
    want = why_text(lang, refusal(reject("slot_empty", player=me.name, slot=empty),
                                  {"do": "complete"}))
    assert text == want
    banner = app.screen._name_banner
    assert not widget(app, "why.panel").rect.colliderect(banner)


def test_a_press_out_of_turn_explains_whose_turn_it_was():
    loop, app = make_app((800, 480), "en", lines(SURGE[:1]))
    loop.post(ev.SeatTap(1))                  # Ben presses during Ana's turn
    app.loop.drain()
    app.process_updates()
    app.draw()
    touch(app, "toast.0")
    assert panel_text(app) == ("Ben's button was pressed during Ana's turn: a seat's "
                               "button counts only on its own turn, so nothing changed")
    assert not widget(app, "why.panel").rect.colliderect(app.screen._name_banner)


TIES = [
    {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"]},
    {"do": "correct", "player": "Cy", "dislikes": 5},
    {"do": "end_turn"}, {"do": "end_turn"}, {"do": "end_turn"},
    {"do": "correct", "player": "Ana", "likes": 3, "dislikes": 1},
    {"do": "correct", "player": "Ben", "likes": 2},
    {"do": "correct", "player": "Cy", "likes": 2, "dislikes": 0, "cookies": 3}]


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_each_tie_break_on_the_end_screen_answers_a_touch(lang):
    _, app = make_app((800, 480), lang, lines(TIES))
    assert isinstance(app.screen, EndScreen)
    quiet(app)
    ties = [t for t in explanations(app.table) if t.startswith("tie:")]
    assert ties
    for j, target in enumerate(sorted(ties)):
        touch(app, f"end.tie{j}.why")
        check_panel(app, target, lang)
        tie_line = widget(app, f"end.tie{j}").rect
        assert not widget(app, "why.panel").rect.colliderect(tie_line)
        touch(app, "why.panel")
        assert panel_text(app) is None
