"""Every rule recordable at a table without a scanner, by touch alone (table script 1.3).

A table with no scanner (nothing in ``app.devices``, no card ever scanned) and the real App
off-screen: fingers tap its widgets (``tests/ui_touch.py``). Each table-script action and key
has a path by touch whose effect shows at once; a seat button's completion can be told a
specialty on the screen; and a whole 3-player game of each edition, played by touch alone
with specialties, upgrades, tokens spent and cakes, ends in the state its own table script
(the lines the companion recorded) replays to with ``replay --json``.
"""
from __future__ import annotations

import json
import random

import pytest
from ui_touch import english_words, has_widget, line, make_app, touch, widget  # noqa: F401 (a fixture)

from companion.core import events as ev
from companion.core.events import TouchAction
from companion.core.rules.view import table_json
from inprocess import cli



def posted(app) -> list[dict]:
    return [dict(e.action) for e in app._own if isinstance(e, TouchAction)]


def run(app, *events) -> None:
    for e in events:
        app.loop.post(e)
    app.loop.drain()
    app.process_updates()
    app.draw()


def me(app):
    return app.table.game.active_player


def no_cake_on_the_back(app) -> None:
    """The cake question after a deal or a draw, answered: no cake on the deck's back."""
    if has_widget(app, "ban.cake.done"):
        touch(app, "ban.cake.done")


def stat(app, name: str) -> str:
    return widget(app, name).value


ORIGINAL = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"])
CAKE = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"],
            expansion="cake_time")


# --- specialty orders ------------------------------------------------------------------------

def test_a_touch_completion_is_made_a_specialty_with_one_more_tap_and_one_undo_takes_it_back():
    loop, app = make_app(lines=[ORIGINAL])
    assert not has_widget(app, "act.specialty")
    touch(app, "act.pos2")
    assert widget(app, "act.specialty").text == "★ A specialty order? Tap: +1 rush token"
    assert (stat(app, "act.like"), stat(app, "act.rush_token")) == ("1", "0")
    touch(app, "act.specialty")
    assert (stat(app, "act.like"), stat(app, "act.rush_token")) == ("1", "1")   # at once
    assert not has_widget(app, "act.specialty")
    assert posted(app)[-2:] == [{"do": "undo"}, {"do": "complete", "slot": 2,
                                                 "specialty": True}]
    assert app.table.game.tokens_won_this_turn == 1        # it waits for the next turn
    touch(app, "ft.undo")                                  # the whole completion goes
    assert (stat(app, "act.like"), stat(app, "act.rush_token")) == ("0", "0")
    assert [len(p) for p in me(app).queue] == [2, 1, 0, 0]
    touch(app, "ft.redo")
    assert (stat(app, "act.like"), stat(app, "act.rush_token")) == ("1", "1")


def test_a_seat_button_completion_offers_specialty_for_a_few_seconds():
    loop, app = make_app(lines=[ORIGINAL])
    run(app, ev.SeatTap(0, count=1))                      # Ana's button: her oldest order
    assert me(app).likes == 1 and has_widget(app, "act.specialty")
    app.clock.now += app.screen.SPECIALTY_SECONDS - 0.5
    app.tick()
    assert has_widget(app, "act.specialty")
    touch(app, "act.specialty")
    assert me(app).cookies == 1 and me(app).likes == 1
    run(app, ev.SeatTap(0, count=1))
    app.clock.now += app.screen.SPECIALTY_SECONDS + 0.1   # unanswered: a plain order
    app.tick()
    assert not has_widget(app, "act.specialty")
    assert widget(app, "act.hint").text == "Tap an order to complete it"
    assert me(app).cookies == 1 and me(app).likes == 2


def test_the_offer_goes_with_the_next_move_and_is_not_made_for_a_scanned_specialty():
    loop, app = make_app(lines=[ORIGINAL])
    touch(app, "act.pos2")
    touch(app, "act.pos1")                  # the next completion: the offer is for that one
    touch(app, "act.specialty")
    assert me(app).cookies == 1 and posted(app)[-1] == {"do": "complete", "slot": 1,
                                                        "specialty": True}
    touch(app, "ft.end")
    assert not has_widget(app, "act.specialty")
    # a card the catalog knows was scanned: the catalog said what it is, nothing to ask
    specialty = next(c for c in app.catalog.cards.values() if c.specialty)
    loop, app = make_app(lines=[ORIGINAL, line(do="scan", tag=specialty.tag)])
    run(app, ev.CardScanned(specialty.tag))
    assert me(app).cookies == 1 and not has_widget(app, "act.specialty")


# --- the scan prompt ---------------------------------------------------------------------------

def test_the_scan_prompt_shows_only_where_a_scanner_is_configured_or_seen():
    loop, app = make_app(lines=[ORIGINAL])
    assert widget(app, "act.hint").text == "Tap an order to complete it"
    run(app, ev.DeviceStatus("scanner", "lost", "USB cable unplugged"))   # configured
    assert widget(app, "act.hint").text.startswith("Scan the dealt cards in deal order")
    loop, app = make_app(lines=[ORIGINAL])
    tag = sorted(app.catalog.cards)[0]
    run(app, TouchAction({"do": "scan", "tag": tag}))       # a card was scanned (the phone)
    assert widget(app, "act.hint").text == \
        "Scan the dealt cards in deal order: next, Ana's card in position 1"


# --- every action and key, by touch, its effect shown at once ----------------------------------

def test_complete_by_position_and_end_turn_by_touch():
    loop, app = make_app(lines=[ORIGINAL])
    touch(app, "act.pos1")
    assert posted(app)[-1] == {"do": "complete", "slot": 1}
    assert stat(app, "act.like") == "1" and widget(app, "act.pos1").highlight
    touch(app, "ft.end")
    assert posted(app)[-1] == {"do": "end_turn"}
    assert widget(app, "act.name").text == "Ben's turn"
    assert widget(app, "p0.like").value == "1"


def test_complete_the_order_with_or_without_a_cake_by_touch():
    loop, app = make_app(lines=[CAKE, line(do="cake", player="Ana", slot=1)])
    assert has_widget(app, "act.pos1.cake")
    no_cake_on_the_back(app)
    touch(app, "act.pos1")
    touch(app, "dlg.caked")
    assert posted(app)[-1] == {"do": "complete", "slot": 1, "cake": True}
    assert stat(app, "act.cake_card") == "2" and not has_widget(app, "act.pos1.cake")
    touch(app, "act.specialty")             # the caked order was a specialty too
    assert posted(app)[-1] == {"do": "complete", "slot": 1, "cake": True, "specialty": True}
    assert (stat(app, "act.cake_card"), stat(app, "act.rush_token")) == ("2", "1")


def test_upgrade_spend_cake_card_and_cake_by_touch():
    loop, app = make_app(lines=[CAKE, line(do="correct", player="Ana", likes=3, cookies=2)])
    no_cake_on_the_back(app)
    touch(app, "ft.upgrade")
    touch(app, "dlg.up.break_time")
    assert posted(app)[-1] == {"do": "activate_upgrade", "upgrade": "break_time"}
    assert (stat(app, "act.upgrade"), stat(app, "act.like")) == ("1", "0")
    assert has_widget(app, "act.break_time")
    touch(app, "ft.spend")
    touch(app, "dlg.count.plus")
    touch(app, "dlg.ok")
    assert posted(app)[-1] == {"do": "spend_cookies", "count": 2}
    assert stat(app, "act.rush_token") == "0"
    touch(app, "ft.cake_card")
    assert posted(app)[-1] == {"do": "play_cake_card"}
    assert stat(app, "act.cake_card") == "0"
    touch(app, "act.pos2")
    touch(app, "ft.end")                    # Ben and Chloe draw 1 each: cakes on them?
    assert widget(app, "ban.cake.ask").text.startswith("Cake on the deck's back?")
    touch(app, "ban.cake.2")                # Chloe's drawn card shows a cake
    assert posted(app)[-1] == {"do": "cake", "player": "Chloe"}
    assert has_widget(app, "p2.pos1.cake")
    touch(app, "ban.cake.done")
    assert not has_widget(app, "ban.cake.ask")


def test_correct_undo_and_redo_by_touch():
    loop, app = make_app(lines=[CAKE])
    no_cake_on_the_back(app)
    touch(app, "ft.fix")
    touch(app, "dlg.ok")
    for f in ("likes", "dislikes", "cookies", "cake_cards"):
        touch(app, f"fix.1.{f}.plus")
    touch(app, "fix.deck.n.minus")
    touch(app, "fix.save")
    assert posted(app)[-2:] == [
        {"do": "correct", "player": "Ben", "likes": 1, "dislikes": 1, "cookies": 1,
         "cake_cards": 2},
        {"do": "correct", "deck": app.table.game.deck}]
    assert [widget(app, f"p1.{s}").value for s in ("like", "dislike", "rush_token",
                                                    "cake_card")] == ["1", "1", "1", "2"]
    touch(app, "ft.undo")                   # the deck's correction, then Ben's
    touch(app, "ft.undo")
    assert widget(app, "p1.like").value == "0"
    touch(app, "ft.redo")
    assert widget(app, "p1.like").value == "1"


# --- "two drinks, one cake": the companion never asks about a deck back --------------------

TWO_DRINKS = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"],
                  expansion="cake_time", two_drinks_one_cake=True)


def test_two_drinks_one_cake_never_asks_about_a_deck_back_and_cake_stays_a_correction():
    """Not the screen's cake question, not a hint, not the phone view: the companion places
    those cakes itself. ``cake`` stays accepted, as a correction."""
    from companion.outputs.web import pages
    from companion.outputs.web.live import LiveTable
    from companion.words.i18n import tr
    langs = ("en", "es", "pt", "it", "ko")
    asks = {tr(lang, key) for lang in langs for key in ("cake.ask", "cake.ask_deal")}
    loop, app = make_app(lines=[TWO_DRINKS])
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    app.teaching.set_enabled(True)
    shown: list[str] = []
    for _ in range(4):                       # completions, surges, the cards drawn
        assert not has_widget(app, "ban.cake.ask")
        shown += [getattr(w, "text", "") or "" for w in app.screen._widgets]
        shown += [h for h in (app.teaching.text(x) for x in [app.teaching.current] if x)]
        html = pages.live_page("en", live.latest)
        assert not any(a in html for a in asks) and "ban.cake" not in html
        touch(app, "act.pos1")
        touch(app, "ft.end")
        if has_widget(app, "teach.ok"):
            touch(app, "teach.ok")
    assert sum(p.cakes() for p in app.table.game.players) > 0     # the rule put cakes
    assert not any(a in s for s in shown for a in asks)
    assert not any("back" in s for s in shown if "deck" in s)     # no other words for it either
    run(app, TouchAction({"do": "cake", "player": "Ben"}))        # a correction
    assert app.table.game.players[1].cakes() >= 1


# --- done when: a 3-player game of each edition by touch alone equals its script -------------

def wizard_to_game(app, edition: str, variant: str | None, tiles: str | None) -> None:
    app.open("wizard", rng=random.Random(5), recent_names=["Ana", "Ben", "Chloe"])
    touch(app, f"wz.edition.{edition}")
    if variant is not None:
        touch(app, f"wz.variant.{variant}")
    touch(app, "wz.next")
    touch(app, "wz.count.3")
    touch(app, "wz.next")
    for k in range(3):
        touch(app, f"wz.recent.{k}")
    touch(app, "wz.next")
    touch(app, "wz.next")                    # the box's colours
    touch(app, "wz.start.1")                 # Ben starts
    touch(app, "wz.next")
    if tiles is not None:
        touch(app, f"wz.tiles.{tiles}")
    for _ in range(8):                       # options, board, deal, meeples: the game
        if app.table.game is not None:
            return
        touch(app, "wz.next")
    raise AssertionError(f"the wizard did not start the game: {app.screen.step}")


def take_turn(app, n: int) -> None:
    """The active player's turn, every choice a tap: an upgrade when one is offered, a token
    spent when one may be, a cake card now and then, two or three orders (the one with the
    cake when asked; every other one a specialty), END TURN, then the cake question."""
    if has_widget(app, "ft.upgrade"):
        touch(app, "ft.upgrade")
        ups = sorted(w.name for w in app.screen._widgets if w.name.startswith("dlg.up."))
        touch(app, ups[n % len(ups)])
    if has_widget(app, "ft.spend") and app.table.game.spendable_tokens(me(app)):
        touch(app, "ft.spend")               # one tap: no message covers a button
        touch(app, "dlg.ok")
    if has_widget(app, "ft.cake_card") and n % 3 == 0:
        touch(app, "ft.cake_card")
    for k in range(2 + n % 2):
        filled = [i + 1 for i, pos in enumerate(me(app).queue) if pos]
        if not filled or app.table.game.completed_this_turn >= 3:
            break
        touch(app, f"act.pos{filled[-1]}")
        if has_widget(app, "dlg.caked"):
            touch(app, "dlg.caked")
        if (n + k) % 2 == 0 and has_widget(app, "act.specialty"):
            touch(app, "act.specialty")
    touch(app, "ft.end")
    if has_widget(app, "ban.cake.ask"):
        chips = sorted(w.name for w in app.screen._widgets
                       if w.name.startswith("ban.cake.") and w.name[-1].isdigit())
        if n % 2 == 0:
            touch(app, chips[0])
        touch(app, "ban.cake.done")
    if has_widget(app, "ban.draw.who"):
        touch(app, "ban.draw.who")           # drawn: the prompt is tapped away


GAMES = {
    "original": ("original", None, None),
    "winter": ("winter", "standard", "open"),
    "winter_junior": ("winter", "junior", None),
    "cake_time": ("cake_time", None, None),
}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_whole_game_by_touch_alone_ends_as_its_table_script_replays(name):
    loop, app = make_app()
    assert "scanner" not in app.devices
    wizard_to_game(app, *GAMES[name])
    game = app.table.game
    assert len(game.players) == 3 and not game.used_tags
    if game.expansion is not None and has_widget(app, "ban.cake.ask"):
        touch(app, "ban.cake.0")             # the deck's back showed a cake in the deal
        touch(app, "ban.cake.done")
    n = 0
    while not app.table.game.game_over:
        take_turn(app, n)
        n += 1
        if n == 9 and app.table.game.variant == "standard":
            touch(app, "ft.fix")             # the table counts the deck: 4 left
            touch(app, "dlg.ok")
            for _ in range(app.table.game.deck - 4):
                touch(app, "fix.deck.n.minus")
            touch(app, "fix.save")
        assert n < 60, "the game did not end"
    done = [a for a in posted(app) if a["do"] not in ("undo",)]
    kinds = {a["do"] for a in done}
    assert {"complete", "end_turn", "spend_cookies", "correct" if name != "winter_junior"
            else "complete"} <= kinds
    assert any(a.get("specialty") for a in done)
    if name != "winter_junior":
        assert "activate_upgrade" in kinds
    if name == "cake_time":
        assert {"cake", "play_cake_card"} <= kinds and any("cake" in a for a in done
                                                           if a["do"] == "complete")
    script = "\n".join(app.loop.session.lines) + "\n"
    replayed = cli("replay", "-", "--json", "--strict", stdin=script.encode())
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == table_json(app.table)
    assert table_json(app.table)["game_over"] and table_json(app.table)["winners"]


def test_complete_the_order_without_its_cake_by_touch():
    loop, app = make_app(lines=[CAKE, line(do="cake", player="Ana", slot=1)])
    no_cake_on_the_back(app)
    touch(app, "act.pos1")                  # position 1 holds orders with and without one
    touch(app, "dlg.plain")
    assert posted(app)[-1] == {"do": "complete", "slot": 1, "cake": False}
    assert stat(app, "act.cake_card") == "1" and has_widget(app, "act.pos1.cake")
