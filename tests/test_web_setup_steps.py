"""The phone's setup steps (what a table does by hand after the phone's Start) say what
the touchscreen wizard's deal and meeple steps say, for the same setup: the same words
from the locale files, in the same order, from the game the setup starts; and the
rematch line of a finished game keeps every option it was set up with."""
from __future__ import annotations

import json
import random
import re
from html import escape, unescape

import pytest
from ui_touch import has_widget, make_app, widget

from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.loop import TableLoop
from companion.core.rules import apply, parse_action
from companion.core.rules.state import Table
from companion.core.rules.view import table_json
from companion.core.session import Session
from companion.outputs.screen import text
from companion.outputs.web import pages
from companion.outputs.web.live import LiveTable
from companion.words import i18n
from companion.words.i18n import tr

SETUPS = [  # (language, box, expansion, players, start seat, options)
    ("en", "original", "cake_time", ["Ana", "Ben"], 1,
     {"ristretto": True, "two_drinks_one_cake": True}),
    ("ko", "original", "cake_time", ["도윤", "Mia", "Cy"], 2, {"longer_game": True}),
    ("es", "original", None, ["Ana", "Ben", "Cy", "Dae"], 2, {}),
    ("it", "winter", None, ["Ana", "Ben", "Cy"], 0, {"junior_cards": 3}),
    ("pt", "winter", None, ["Ana <3", "B&B"], 1, {}),      # (escaped once)
]


def wizard_at_the_deal(lang, edition, expansion, players, start, options):
    """The touchscreen wizard with these choices, on its deal step."""
    text.reset(lang)
    loop, app = make_app(lang=lang)
    screen = app.open("wizard", rng=random.Random(3))
    md = screen.model
    md.set_edition(edition, expansion)
    md.set_count(len(players))
    for seat, name in enumerate(players):
        md.set_name(seat, name)
    md.start = start
    md.ristretto = options.get("ristretto", False)
    for o in ("two_drinks_one_cake", "longer_game"):
        if o in options:
            md.options[o] = options[o]
    if "junior_cards" in options:
        md.variant, md.junior_cards = "junior", options["junior_cards"]
    md.set_upgrade_mode("open")              # what the phone's form sets up: tiles not named
    screen.go("deal")
    return app, screen


def lists(html: str) -> list[list[list[str]]]:
    """The texts of each item of each ordered list of steps (its words, then a deal
    table's caption and cells)."""
    return [[[unescape(x) for x in re.split(r"<[^>]+>", li) if x]
             for li in re.findall(r"<li>(.*?)</li>", ol)]
            for ol in re.findall(r'<ol class="steps">(.*?)</ol>', html)]


@pytest.mark.parametrize("setup", SETUPS, ids=lambda s: f"{s[0]}-{s[1]}-{s[2]}")
def test_the_phone_s_setup_steps_are_the_wizard_s_deal_and_meeples(setup):
    lang, edition, expansion, players, start, options = setup
    try:
        app, screen = wizard_at_the_deal(*setup)
        action = screen.model.action()
        deal_words = [widget(app, "wz.deal_removed").text] \
            if has_widget(app, "wz.deal_removed") else []
        notes, k = [], 0
        while has_widget(app, f"wz.dealnote.{k}"):
            notes.append(widget(app, f"wz.dealnote.{k}").text)
            k += 1
        order = screen.model.meeple_order()
        cells = {(s, p): widget(app, f"wz.deal.{s}.{p}").text
                 for s in range(len(players)) for p in range(4)}
        screen.go("meeples")
        hint = widget(app, "wz.meeples_hint").text
        meeples = [widget(app, f"wz.meeple.{k}").text for k in range(len(order))]
    finally:
        text.reset("en")
    game = apply(Table(), parse_action(action)).table.game   # the game Start begins
    html = pages.setup_steps(lang, game)
    before, deal, placed = lists(html)
    first = players[start]
    before, placed = [x[0] for x in before], [x[0] for x in placed]
    assert before[0] == i18n.tr(lang, "wizard.start_token", player=first,
                                open=i18n.tr(lang, "word.open"))
    assert (i18n.tr(lang, "wizard.board_hint") in before) == (edition == "winter")
    # tiles left to the table: nothing to do now, so said, not ticked
    open_hint = i18n.tr(lang, "wizard.upgrades_open_hint", count=4,
                        total=len(game.rules.upgrades))
    assert open_hint not in before
    assert (f'<p class="tiles">{escape(open_hint)}</p>' in html) == (
        game.open_tiles and len(game.rules.upgrades) > 4)       # (not Junior's, no tiles)
    # the deal: the cards to take out (or the deck to build), the order with the table
    # of each seat's positions from the starting player, then the wizard's other notes;
    # the last, the deck left after the deal, is a count said, not a step to tick
    deck = i18n.tr(lang, "wizard.deal_deck", count=game.deck)
    assert notes[-1] == deck
    assert [x[0] for x in deal] == deal_words + notes[:-1]
    assert html.count(escape(deck)) == 1
    assert re.search(rf'</ol><p class="deck">{re.escape(escape(deck))}</p><h3>', html)
    caption, *rows = deal[len(deal_words)][1:]
    assert caption == i18n.tr(lang, "wizard.deal_title")
    heads = [x for p in range(1, 5) for x in (str(p), i18n.tr(lang, "word.position",
                                                               position=p))]
    assert rows[:8] == heads                   # (the number shown, the words read out)
    rows = rows[8:]
    seats = [(start + k) % len(players) for k in range(len(players))]
    expect = []
    for s in seats:
        expect.append(players[s])
        for p in range(4):
            words = cells[(s, p)]
            cakes = sum(c.cake for c in game.players[s].queue[p])
            # a cake: the cards and a cake mark shown, the words read out
            expect += ([words, i18n.tr(lang, "web.cake"),
                        i18n.tr(lang, "phone.with_cake", card=words)] if cakes else [words])
    assert rows == expect
    # the meeples: the wizard's hint, then its order
    assert f"<p>{escape(hint)}</p>" in html
    assert [f"{k}.  {name}" for k, name in enumerate(placed, 1)] == meeples
    # every step has a box to tick inside its label; the headings are the wizard's
    assert html.count('<label class="check"><input type="checkbox">') == \
        len(before) + len(deal) + len(placed)
    for key in ("phone.setup_title", "wizard.deal_title", "wizard.meeples_title"):
        assert escape(i18n.tr(lang, key)) in html


def finished(setup: dict) -> LiveTable:
    """A table that played ``setup`` to its end (a fifth dislike, the round played out)."""
    loop = TableLoop(Session(None, Catalog.example()))
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    loop.post(ev.TouchAction(setup))
    loop.drain()
    game = live.latest.game
    loop.post(ev.TouchAction({"do": "correct", "player": game.players[0].name,
                              "dislikes": 5}))
    for _ in game.players:
        loop.post(ev.TouchAction({"do": "end_turn"}))
    loop.drain()
    assert live.latest.game.game_over
    return live


CAKE_TIME = {"do": "setup", "edition": "original", "expansion": "cake_time",
             "players": ["Ana", "Ben", "Cy"], "start": "Ben", "ristretto_start": True,
             "two_drinks_one_cake": True, "longer_game": True}


@pytest.mark.parametrize("setup", [
    CAKE_TIME,
    {"do": "setup", "edition": "original", "expansion": "cake_time",
     "players": ["Ana", "Ben"], "start": "Ana", "longer_game": True},
    {"do": "setup", "edition": "winter", "variant": "junior", "junior_cards": 4,
     "players": ["Ana", "Ben"], "start": "Ben"},
    {"do": "setup", "edition": "winter", "players": ["Ana", "Ben", "Cy"], "start": "Cy"},
    {"do": "setup", "edition": "winter", "players": ["Ana", "Ben"], "start": "Ben",
     "upgrades": ["double_meeples", "double_corners", "double_destination", "jump"]},
    {"do": "setup", "edition": "original", "expansion": "cake_time", "players": ["Ana", "Ben"],
     "start": "Ana", "upgrades": {
         "Ana": ["double_meeples", "diagonal_movement", "break_time", "storage"],
         "Ben": ["double_corners", "double_specialties", "double_destination", "storage"]}},
], ids=["cake-every-option", "cake-longer", "junior-4", "winter-open", "winter-shared",
        "cake-each"])
def test_the_rematch_line_keeps_every_option_of_the_game(setup):
    """What REMATCH fills the New game form with: the game's setup line, every option in
    it (Cake Time's two rules and the Ristretto start, Junior's cards), no starter (asked
    anew); and the line with a starter starts the same game again."""
    game = apply(Table(), parse_action(setup)).table
    again = pages.rematch_line("en", table_json(game), (), game.game)
    assert again == {k: v for k, v in setup.items() if k != "start"}
    same = apply(Table(), parse_action({**again, "start": setup["start"]})).table.game
    assert same == game.game                          # the same deal, options and deck


def test_a_finished_cake_time_game_s_page_carries_its_rematch_line():
    live = finished(CAKE_TIME)
    for lang in ("en", "ko"):
        page = pages.live_page(lang, live.latest)
        again = json.loads(unescape(re.search(r'data-rematch="([^"]*)"', page).group(1)))
        assert again == {k: v for k, v in CAKE_TIME.items() if k != "start"}
        # the form offers each of them for Cake Time
        options = re.search(r'<fieldset data-for="cake_time"><legend>(.*?)</legend>(.*?)'
                            r'</fieldset>', page)
        assert options.group(1) == tr(lang, "wizard.options_title")
        for name in ("ristretto", "two_drinks_one_cake", "longer_game"):
            assert f'<input type="checkbox" name="{name}"' in options.group(2), name
