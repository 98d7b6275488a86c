"""Issue 40's layout points and issue 36's last touch path, on the real App off-screen.

* a message (toast) never covers a footer button, a card or a count: it shows in the top
  bar's room for a message, beside the hint card; SPEND takes one tap;
* a side panel's slots and counts keep their width while that seat draws ("+N" goes in
  its name line);
* "Red plays last" is as big as "Final round";
* the "why?" on a score after an upgrade says why it dropped;
* the story chart's numbered flags stand on their rounds' ticks;
* ``cake`` as a correction by touch (Fix, Cakes on orders), at once and undoable.
"""
from __future__ import annotations

import json

import pygame

import pytest
from ui_touch import english_words, has_widget, line, make_app, touch, widget  # noqa: F401 (a fixture)

from companion.core.events import TouchAction
from companion.outputs.screen import text
from companion.outputs.screen.table_layout import table_layout



def run(app, *actions) -> None:
    for a in actions:
        app.loop.post(TouchAction(a))
    app.loop.drain()
    app.process_updates()
    app.draw()


ORIGINAL = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"])


def footer_buttons(app) -> list:
    app.screen.draw(app.surface)
    return [w for w in app.screen._widgets if w.name.startswith("ft.")]


def toasts(app) -> list:
    app.screen.draw(app.surface)
    return [w for w in app.screen._widgets if w.name.startswith("toast.")]


# --- a message never covers a footer button ------------------------------------------------

def test_a_message_shows_in_the_top_bar_beside_the_hint_card_and_never_covers_a_button():
    loop, app = make_app(lines=[ORIGINAL, line(do="correct", player="Ana", cookies=2)])
    app.teaching.set_enabled(True)
    while has_widget(app, "teach.ok"):
        touch(app, "teach.ok")
    run(app, {"do": "correct", "deck": 0})          # the shop closes: a hint and a message
    assert app.teaching.current is not None and has_widget(app, "teach.box")
    shown = toasts(app)
    assert [w.text for w in shown] == ["Shop closed: the order deck ran out"]
    header = table_layout((800, 480), 3).header
    assert header.contains(shown[0].rect)           # the top bar's room for a message
    keep = footer_buttons(app) + [widget(app, n) for n in ("act.bg", "teach.box", "hdr.sign",
                                                           "hdr.settings")]
    for w in keep:
        assert not shown[0].rect.colliderect(w.rect), w.name
    touch(app, "ft.spend")                          # one tap: nothing over SPEND took it
    assert has_widget(app, "dlg.ok")
    touch(app, "dlg.cancel")
    app.clock.now += 5.5                            # its whole time
    app.tick()
    assert app.screen.toasts
    app.clock.now += 1
    app.tick()
    assert not app.screen.toasts


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", [(800, 480), (1024, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_refusals_near_any_button_keep_off_every_footer_button(lang, size):
    text.reset(lang)
    loop, app = make_app(size=size, lang=lang, lines=[ORIGINAL])
    for w in footer_buttons(app):
        app.screen._toasts.clear()
        app.screen.toast("A refusal, near the finger", near=w.rect.center)
        app.screen.toast("Another one", near=w.rect.midtop)
        for t in toasts(app):
            for b in footer_buttons(app):
                assert not t.rect.colliderect(b.rect), (w.name, t.name, b.name)


def test_a_message_keeps_off_an_open_dialogs_buttons_so_one_tap_picks_the_tile():
    loop, app = make_app(lines=[ORIGINAL, line(do="correct", player="Ana", likes=3)])
    run(app, {"do": "correct", "deck": 0})          # "Shop closed: ..." shows
    assert toasts(app)
    touch(app, "ft.upgrade")
    app.screen.draw(app.surface)
    buttons = [w for w in app.screen._widgets if w.name.startswith("dlg.") and w.on_tap
               and w.name != "dlg.shade"]
    assert len(buttons) >= 5
    for t in toasts(app):
        assert not any(t.rect.colliderect(b.rect) for b in buttons), t.text
    touch(app, "dlg.up.double_meeples")             # the first tap picks it
    assert app.table.game.players[0].upgrades == ("double_meeples",) or \
        "double_meeples" in app.table.game.players[0].upgrades


# --- the story chart's flags stand on their rounds' ticks -------------------------------------

class _RecordingPen:
    def __init__(self):
        self.written: list[tuple[str, pygame.Rect]] = []

    def write(self, surface, text, box, size, color, bold=False, align="center"):
        self.written.append((text, pygame.Rect(box)))
        return pygame.Rect(box)

    def width(self, text, size, bold=False):
        return len(text) * size // 2


@pytest.mark.parametrize("flags", [(1, 4, 9), (2, 3), (12,)])
def test_the_story_charts_flags_stand_on_their_rounds_ticks(flags):
    from companion.review.story import Story
    from companion.review.story_chart import ChartLook, paint_chart
    rounds = tuple((r, 2 * r % 7, r // 2) for r in range(13))
    story = Story("original", ("Ana", "Ben", "Chloe"), 0, rounds, (), True)
    look = ChartLook(text=14, line=3, marker=10, flag=18, background=(0, 0, 0),
                     grid=(40, 40, 40), ink=(200, 200, 200), dim=(120, 120, 120),
                     outline=(10, 10, 10), flag_color=(250, 200, 0))
    surface = pygame.Surface((520, 300))
    pen = _RecordingPen()
    rect = pygame.Rect(0, 0, 520, 300)
    plot = paint_chart(surface, rect, story, [(200, 0, 0), (0, 200, 0), (0, 0, 200)], look,
                       pen, flags)
    numbers = {int(t): box for t, box in pen.written if box.top > plot.bottom}
    for r in flags:
        assert r in numbers, f"flagged round {r} has no number under it"
        x = numbers[r].centerx
        # the flag's line runs down the plot on that round's tick (not half a round off)
        column = [surface.get_at((x, y))[:3] for y in range(plot.top + 2, plot.top + 20)]
        assert (250, 200, 0) in column, (r, x)
        half = (numbers[r].centerx - numbers[r - 1].centerx) // 2 if r - 1 in numbers \
            else plot.w // 24
        off = [surface.get_at((x - half, y))[:3] for y in range(plot.top + 2, plot.top + 20)]
        assert (250, 200, 0) not in off, r


# --- "why?" on the score after an upgrade ------------------------------------------------------

@pytest.mark.parametrize("edition, words", [
    ("original", "paid 3 likes (−3 points) and the tile scores +2, so the score went from 3 to 2"),
    ("winter", "paid 3 likes (−6 points) and the tile scores +5, so the score went from 6 to 5"),
])
def test_the_why_on_a_score_after_an_upgrade_says_why_it_dropped(edition, words):
    setup = line(do="setup", edition=edition, players=["Ana", "Ben", "Chloe"])
    loop, app = make_app(lines=[setup, line(do="correct", player="Ana", likes=3)])
    assert not has_widget(app, "act.score.why")          # nothing to explain yet
    touch(app, "ft.upgrade")
    touch(app, "dlg.up.double_meeples")
    touch(app, "act.score.why")
    said = widget(app, "why.text").text
    assert said.startswith("Ana flipped Double Meeples: that ") and said.endswith(words), said
    touch(app, "ft.end")                                 # later, on her side panel: the same
    touch(app, "p0.score.why")
    assert widget(app, "why.text").text == said


def test_the_upgrade_hint_says_what_an_upgrade_does_to_the_score():
    loop, app = make_app()
    app.teaching.set_enabled(True)
    run(app, json.loads(ORIGINAL), {"do": "correct", "player": "Ben", "likes": 3},
        {"do": "end_turn"})                              # Ben's turn begins: he may upgrade
    hints = []
    for _ in range(12):
        if app.teaching.current is None:
            break
        hints.append(app.teaching.text(app.teaching.current))
        touch(app, "teach.ok")
    assert any("pay 3 to flip an upgrade tile (−3 points, +2 for the tile)" in h
               for h in hints), hints


# --- ``cake`` as a correction, by touch (issue 36) -------------------------------------------

TWO_DRINKS = line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"],
                  expansion="cake_time", two_drinks_one_cake=True)


def test_a_cake_put_right_by_touch_under_two_drinks_one_cake_replays_the_same():
    """No scanner, and the table is never asked about the deck's backs: Fix, "Cakes…",
    a touch on Ben's position 1 puts a cake there at once; Undo takes it back; the lines
    the companion recorded replay to the same table."""
    from companion.core.rules.view import table_json
    from inprocess import cli
    loop, app = make_app(lines=[TWO_DRINKS])
    assert "scanner" not in app.devices
    touch(app, "act.pos2")
    touch(app, "ft.end")
    ben = app.table.game.players[1]
    before = [sum(c.cake for c in pos) for pos in ben.queue]
    touch(app, "ft.fix")
    touch(app, "dlg.ok")
    touch(app, "fix.cakes")
    assert widget(app, "fix.cakes.title").text == "Put a cake on an order"
    assert not widget(app, "fix.cakes.undo").enabled
    touch(app, "fix.cake.1.2")                       # Ben's position 2
    assert app.loop.session.lines[-1] == json.dumps({"do": "cake", "player": "Ben",
                                                     "slot": 2})
    ben = app.table.game.players[1]
    assert [sum(c.cake for c in pos) for pos in ben.queue] == \
        [before[0], before[1] + 1, 0, 0]
    assert has_widget(app, "fix.cake.1.2.cake")       # at once, on this screen
    touch(app, "fix.cakes.undo")                     # undoable, right here
    assert not has_widget(app, "fix.cake.1.2.cake")
    touch(app, "fix.cake.1.2")
    touch(app, "fix.cakes.done")
    touch(app, "fix.cancel")
    assert app.table.game.active == 1
    assert has_widget(app, "act.pos2.cake")          # and on the table (Ben's turn)
    touch(app, "ft.undo")                            # the table's UNDO takes it back too
    assert not has_widget(app, "act.pos2.cake")
    touch(app, "ft.redo")
    script = "\n".join(app.loop.session.lines) + "\n"
    replayed = cli("replay", "-", "--json", "--strict", stdin=script.encode())
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == table_json(app.table)
    assert json.loads(replayed.stdout)["players"][1]["cakes"][1].count(True) == before[1] + 1


def test_a_position_with_no_order_without_a_cake_takes_no_cake():
    loop, app = make_app(lines=[TWO_DRINKS])
    touch(app, "ft.fix")
    touch(app, "dlg.ok")
    touch(app, "fix.cakes")
    game = app.table.game
    for seat, p in enumerate(game.players):
        for i, pos in enumerate(p.queue):
            w = widget(app, f"fix.cake.{seat}.{i + 1}")
            assert (w.on_tap is not None) == any(not c.cake for c in pos), (p.name, i + 1)


# --- "Red plays last" is as big as "Final round" ----------------------------------------------

@pytest.mark.parametrize("lang", ["en", "es", "pt", "it", "ko"])
@pytest.mark.parametrize("names", [("Ana", "Ben", "Chloe"),
                                   ("Ana", "Ben", "Maximiliano Fernández")])
def test_who_plays_last_is_as_big_as_final_round_and_they_take_turns(lang, names):
    from companion.outputs.screen import theme
    from companion.outputs.screen.widgets import text_width
    from companion.words.i18n import tr
    text.reset(lang)
    setup = line(do="setup", edition="original", players=list(names))
    loop, app = make_app(lang=lang, lines=[setup, line(do="correct", deck=0)])
    app.screen._toasts.clear()
    final = widget(app, "hdr.final")
    seen = {}
    for _ in range(4):                               # the App's clock runs on: they swap
        w = widget(app, "hdr.final")
        seen[w.text] = w
        assert not has_widget(app, "hdr.detail")
        deadline = app.screen.next_deadline()
        assert deadline is not None and deadline - app.clock() <= theme.TABLE_FINAL_SWAP_S
        app.clock.now = deadline
        app.tick()
    assert tr(lang, "table.final_round") in seen and len(seen) == 2, list(seen)
    last = next(t for t in seen if t != tr(lang, "table.final_round"))
    assert names[2].split()[0][:1] in last             # Chloe (or her short name) plays last
    sizes = {(w.size, w.min_size, w.rect.h) for w in seen.values()}
    assert sizes == {(final.size, final.size, final.rect.h)} and final.size == app.screen.m.must
    for t, w in seen.items():
        assert text_width(t, w.size, True) <= w.rect.w, t     # whole, never shrunk or cut


def test_the_last_seats_turn_says_last_turn_and_nothing_takes_turns():
    loop, app = make_app(lines=[ORIGINAL, line(do="correct", deck=0), line(do="end_turn"),
                                line(do="end_turn")])
    assert app.table.game.active == app.table.game.last_seat
    assert app.screen.toasts and not has_widget(app, "hdr.final")   # "Shop closed" has it
    assert has_widget(app, "hdr.detail")            # (whose turn it is stays under it)
    app.clock.now += 10
    app.tick()
    assert widget(app, "hdr.final").text == "Last turn!"
    assert app.screen.next_deadline() is None or not app.screen._final_takes_turns(
        app.table.game)


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_a_tap_on_nothing_is_answered_while_the_hint_card_shows_over_no_button(lang):
    from companion.outputs.screen.screens.base import Pointer
    text.reset(lang)
    loop, app = make_app(lang=lang)
    app.teaching.set_enabled(True)
    run(app, json.loads(ORIGINAL))
    assert has_widget(app, "teach.box")
    empty = widget(app, "act.pos3")                 # nobody's order there yet
    assert not app.table.game.active_player.queue[2]
    app.screen.handle(Pointer("down", empty.rect.center))
    app.screen.handle(Pointer("up", empty.rect.center))
    shown = toasts(app)
    assert [w.text for w in shown] == [app.screen.t("table.nothing_here")]
    keep = footer_buttons(app) + [widget(app, n) for n in ("act.bg", "teach.box", "hdr.sign",
                                                           "hdr.settings")]
    for w in keep:
        assert not shown[0].rect.colliderect(w.rect), w.name
    app.clock.now += 2.1                            # a passing answer: gone in two seconds
    app.tick()
    assert toasts(app) == []


def test_a_refusal_is_said_at_once_while_the_hint_card_shows():
    loop, app = make_app()
    app.teaching.set_enabled(True)
    run(app, json.loads(ORIGINAL))
    touch(app, "act.pos2")
    touch(app, "act.specialty")           # a rush token, won this turn: not spendable yet
    assert has_widget(app, "teach.box")
    touch(app, "ft.spend")
    shown = toasts(app)
    assert not has_widget(app, "dlg.ok") and len(shown) == 1
    assert "rush token" in shown[0].text, shown[0].text
    for w in footer_buttons(app) + [widget(app, "act.bg"), widget(app, "teach.box")]:
        assert not shown[0].rect.colliderect(w.rect), w.name


# --- draws never squeeze a card or a count -----------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", [(800, 480), (1024, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_drawing_seats_cards_and_counts_are_as_wide_as_anyone_elses(lang, size):
    from companion.outputs.screen.screenshots import sample_script
    text.reset(lang)
    loop, app = make_app(size=size, lang=lang, lines=sample_script())
    app.screen.draw(app.surface)
    ws = {w.name: w for w in app.screen._widgets}
    drawing = [n.split(".")[1] for n in ws if n.startswith("draw.p") and n.count(".") == 1]
    still = [n.split(".")[0] for n in ws if n.startswith("p") and n.endswith(".bg")
             and n.split(".")[0] not in drawing]
    assert drawing and still, (drawing, still)
    parts = ["pos1", "pos2", "pos3", "pos4", "like", "dislike", "rush_token", "upgrade"]
    for d in drawing:
        badge = ws[f"draw.{d}"].rect
        for part in parts:
            assert ws[f"{d}.{part}"].rect.w == ws[f"{still[0]}.{part}"].rect.w, (d, part)
            assert not badge.colliderect(ws[f"{d}.{part}"].rect), (d, part)
        for part in ("name", "score", "seat"):
            assert not badge.colliderect(ws[f"{d}.{part}"].rect), (d, part)


@pytest.mark.parametrize("lang", ["en", "es", "ko"])
@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 800)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_drawing_seats_name_shows_whole_beside_its_badge_and_its_score(lang, size):
    """4 players, Charlie draws 2: the "+2" in the name line once left the name as "Ch".
    The name shows whole; the badge shows beside it, over no card or count; the score
    keeps its words ("2 pts", never a bare number beside "+2")."""
    from companion.outputs.screen.screenshots import sample_script
    from companion.outputs.screen.text import t_count
    from companion.outputs.screen.widgets import text_width
    text.reset(lang)
    lines = [x.replace("Chloe", "Charlie") for x in sample_script()]
    loop, app = make_app(size=size, lang=lang, lines=lines)
    app.screen.draw(app.surface)
    ws = {w.name: w for w in app.screen._widgets}
    game = app.table.game
    assert len(game.players) == 4
    seat = next(i for i, p in enumerate(game.players) if p.name == "Charlie")
    pre = f"p{seat}"
    badge = ws[f"draw.{pre}"]
    assert badge.text == "+2" and ws[f"{pre}.bg"].rect.contains(badge.rect)
    assert ws[f"{pre}.name"].text == "Charlie"
    name = ws[f"{pre}.name"]
    assert text_width("Charlie", name.min_size, True) <= name.rect.w
    points = t_count("table.points", 2)
    assert ws[f"{pre}.score"].text == points and not points.strip().isdigit()
    for part in ("name", "score", "seat", "pos1", "pos2", "pos3", "pos4", "like", "dislike",
                 "rush_token", "upgrade"):
        assert not badge.rect.colliderect(ws[f"{pre}.{part}"].rect), part


# --- the footer's labels: one type size in every language -----------------------------------

def _footer_sizes(lang: str, size: tuple[int, int], script: str) -> dict[str, tuple[str, int]]:
    from companion.outputs.screen.screenshots import sample_script
    from companion.outputs.screen.widgets import record_text
    text.reset(lang)
    loop, app = make_app(size=size, lang=lang, lines=sample_script(script))
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    return {r.owner: (r.text, r.size) for r in texts if r.owner.startswith("ft.")}


@pytest.mark.parametrize("script", ["sample_game.jsonl", "sample_cake_game.jsonl"])
@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 800)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_footer_labels_take_one_type_size_in_every_language(size, script):
    """"Deshacer" took 14 px where "Undo" took 16: every language now draws the footer's
    labels at the same sizes (the small buttons', END TURN's), whole, and no smaller than
    English had them."""
    from companion.outputs.screen.layout import Metrics
    from companion.words import i18n
    m = Metrics.of(size)
    small, end = set(), set()
    for lang in ("en", "es", "pt", "it", "ko"):
        drawn = _footer_sizes(lang, size, script)
        assert {"ft.undo", "ft.redo", "ft.fix", "ft.end"} <= set(drawn), (lang, drawn)
        for owner, (words, s) in drawn.items():
            (end if owner == "ft.end" else small).add(s)
            key = {"ft.cake_card": "cake.play", "ft.end": "button.end_turn"}.get(
                owner, "button." + owner[3:])
            assert words.replace("\n", " ") == i18n.tr(lang, key).replace("\n", " "), \
                (lang, owner, words)                       # whole, never cut
    assert len(small) == 1 and len(end) == 1, (small, end)
    if script == "sample_game.jsonl":
        assert small.pop() >= m.small and end.pop() == m.must


def test_a_tap_is_answered_at_once_while_shop_closed_shows_which_then_has_its_whole_time():
    loop, app = make_app(lines=[ORIGINAL])
    run(app, {"do": "correct", "deck": 0})
    assert [w.text for w in toasts(app)] == ["Shop closed: the order deck ran out"]
    app.clock.now += 3
    app.tick()
    from companion.outputs.screen.screens.base import Pointer
    empty = widget(app, "act.pos3")                 # an empty position: nothing to do
    assert not app.table.game.active_player.queue[2]
    app.screen.handle(Pointer("down", empty.rect.center))
    app.screen.handle(Pointer("up", empty.rect.center))
    assert [w.text for w in toasts(app)] == [app.screen.t("table.nothing_here")]
    app.clock.now += 2.1                            # the answer goes; the message is back
    app.tick()
    assert [w.text for w in toasts(app)] == ["Shop closed: the order deck ran out"]
    app.clock.now += 5.5                            # for its whole time
    app.tick()
    assert app.screen.toasts
    app.clock.now += 1
    app.tick()
    assert not app.screen.toasts
