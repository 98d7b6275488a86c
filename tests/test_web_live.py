"""What the phones see, straight from the table loop (no server): who draws how
many until the cards are scanned or the prompt is dismissed, and the page's words."""
import json
import re
from html import escape, unescape

from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.session import Session
from companion.core.loop import TableLoop
from companion.outputs.web import pages
from companion.outputs.web.live import LiveTable
from companion.words import i18n


def table():
    loop = TableLoop(Session(None, Catalog.example()))
    live = LiveTable(loop, colours=[(39, 160, 82)])
    loop.subscribe(live.on_update)
    loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                              "players": ["Ana", "Ben", "Chloe"], "start": "Ana"}))
    loop.drain()
    return loop, live


def surge(loop, live):
    """Ana completes an order and ends her turn: Ben and Chloe draw."""
    loop.post(ev.SeatTap(0))
    loop.post(ev.SeatHold(0))
    loop.drain()
    assert live.latest.draws


def test_an_order_surge_shows_who_draws_until_dismissed():
    loop, live = table()
    surge(loop, live)
    assert live.latest.draws == (("Ben", 1), ("Chloe", 1))
    html = pages.live_fragment("es", live.latest)
    assert "Ben" in html and 'class="draws"' in html
    assert 'style="--c:#27a052;--on:#181412" data-seat="1"' in html   # the wizard's colour,
    # and the text that reads on it
    loop.post(ev.DismissDraws())
    loop.drain()
    assert live.latest.draws == ()
    assert 'class="draws"' not in pages.live_fragment("es", live.latest)


def test_scanning_the_drawn_cards_ends_the_prompt_and_names_the_drinks():
    loop, live = table()
    surge(loop, live)
    tags = sorted(t for t, c in Catalog.example().cards.items() if c.edition == "original")
    for tag in tags[:12]:                             # the deal and the two drawn cards
        loop.post(ev.CardScanned(tag))
    loop.drain()
    assert live.latest.draws == ()
    drink = Catalog.example().get(tags[0]).drink          # "Example order N", in Korean
    assert i18n.drink_name("ko", drink) in pages.live_fragment("ko", live.latest)
    assert i18n.drink_name("ko", drink) != drink
    assert live.latest.event()["table"] == live.latest.table


def test_undo_takes_the_prompt_back():
    loop, live = table()
    surge(loop, live)
    loop.post(ev.UndoTap())
    loop.drain()
    assert live.latest.draws == ()


def test_cake_time_cakes_and_cake_cards_show_when_the_table_has_them():
    import dataclasses
    loop, live = table()
    state = dict(live.latest.table)
    state["players"] = [dict(p, cake_cards=2, cakes=[[True] * len(pos) for pos in p["queue"]])
                        for p in state["players"]]          # spec 1.1 "Output", Cake Time
    html = pages.live_fragment("it", dataclasses.replace(live.latest, table=state))
    assert 'class="card unknown cake" title="Torta"' in html
    assert "Carte torta <b>2</b>" in html
    assert "cake" not in pages.live_fragment("it", live.latest)


def test_the_new_game_form_asks_who_starts_and_the_rematch_line_names_no_starter():
    """The New game form asks who starts (labelled, as the wizard asks it; the names typed
    fill it, or a random pick by the page); once the game is over, the rematch's line (what
    REMATCH fills the form with) keeps the box, players and options but names no starter:
    the books choose the starter anew."""
    loop = TableLoop(Session(None, Catalog.example()))
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    loop.post(ev.TouchAction({"do": "setup", "edition": "original", "ristretto_start": True,
                              "players": ["Ana", "Ben", "Chloe"], "start": "Chloe"}))
    loop.post(ev.TouchAction({"do": "correct", "player": "Chloe", "dislikes": 5}))
    for _ in range(3):
        loop.post(ev.TouchAction({"do": "end_turn"}))
    loop.drain()
    assert live.latest.game.game_over
    for lang in ("en", "it", "ko"):
        page = pages.live_page(lang, live.latest)
        label = (f'<label>{escape(i18n.tr(lang, "wizard.start_title"))} '
                 f'<select name="start" id="starter">')
        assert label in page                       # the select sits in its label
        options = re.findall(r'<option value="" data-pick="(\w+)">([^<]*)</option>', page)
        assert options == [("first", escape(i18n.tr(lang, "phone.player_n", n=1))),
                           ("random", escape(i18n.tr(lang, "wizard.random")))]
        said = json.loads(re.search(r"const W=(\{.*?\});", page).group(1))
        assert said["choose"] == i18n.tr(lang, "phone.start_choose")
        assert said["start_needed"] == i18n.tr(lang, "phone.start_needed")
        assert said["rematch_ready"] == i18n.tr(lang, "phone.rematch_ready")
        again = json.loads(unescape(re.search(r'data-rematch="([^"]*)"', page).group(1)))
        assert again == {"do": "setup", "edition": "original",
                         "players": ["Ana", "Ben", "Chloe"], "ristretto_start": True}
