"""No message, banner or hint on the table covers what players read or tap (issue 40).

For a set of table scenes holding every kind of message the table shows (a refusal near the
finger, "Shop closed", the final round and who plays last, Cake Time's "Cake on the deck's
back?", the teaching hints, the flow of time's among them, the draw prompt), at 800x480,
1024x600 and 1280x800: no message's rectangle meets an order card's slot, a count, a "+N"
draw badge, the draw prompt, whose turn it is (the turn line) or a footer button.

The hint card holds the side column while it shows (the other players' panels wait behind
it, ``teaching_view.area_for``), or, for a hint about another player the column cannot hold
beside their panel, the active player's positions 1-3: it is checked against the rest of
the active player's panel, the top bar's turn and the footer. Once "Shop closed" covered
the lowest side panel and the cake question covered the draw prompt, the counts and the
lowest side panel: this test failed on both.
"""
from __future__ import annotations

import json

import pytest
from ui_touch import has_widget, line, make_app, touch

from companion.core.events import TouchAction
from companion.outputs.screen import text
from companion.outputs.screen.screenshots import sample_script
from companion.outputs.screen.widgets import OrderCard, Stat
from companion.words.fonts import hangul_missing

SIZES = [(800, 480), (1024, 600), (1280, 800)]

# what a message is: a toast, a banner over the panels, the final round's words, the hint card
MESSAGES = ("toast.", "ban.cake.bg", "ban.stall", "hdr.final", "teach.box")
# what none covers, besides the cards and the counts: badges, the draw prompt, the turn line
KEPT = ("draw.", "ban.draw.who", "act.name", "act.banner", "act.seat", "hdr.turn",
        "hdr.detail", "ft.")


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    text.set_language("en")


def run(app, *actions) -> None:
    for a in actions:
        app.loop.post(TouchAction(a))
    app.loop.drain()
    app.process_updates()


def play_a_step(app, step: int) -> None:
    """A taught game's step: the active player completes their first filled position on
    even steps (if any), else ends the turn; then nothing covers what it must not."""
    me = app.table.game.active_player
    filled = [i + 1 for i, pos in enumerate(me.queue) if pos]
    if step % 2 == 0 and filled:
        run(app, {"do": "complete", "slot": filled[0]})
    else:
        run(app, {"do": "end_turn"})
    check(app, f"step {step}")


def kept(w) -> bool:
    """What players read and tap: a position with cards (an empty one may hold a message),
    a count, a badge, the turn, a footer button."""
    return (isinstance(w, OrderCard) and bool(w.cards)) or isinstance(w, Stat) \
        or w.name.startswith(KEPT)


def shown_messages(app) -> list:
    app.screen.draw(app.surface)
    return [w for w in app.screen._widgets if w.name.startswith(MESSAGES)
            and not w.name.startswith("ban.cake.") or w.name == "ban.cake.bg"]


def check(app, where: str, covered: list | None = None) -> set[str]:
    """The kinds of message shown; each covering of what players read and tap is added to
    ``covered`` (asserted at once without it)."""
    app.screen.draw(app.surface)
    ws = app.screen._widgets
    seen = set()
    found = [] if covered is None else covered
    for msg in shown_messages(app):
        seen.add(msg.name.split(".")[0] if msg.name.startswith("toast.") else msg.name)
        for w in ws:
            if w is msg or not kept(w):
                continue
            if msg.name == "teach.box" and (
                    w.name in ("act.pos1", "act.pos2", "act.pos3")
                    if msg.rect == app.screen.hint_spot
                    else w.name.startswith(("p", "draw.p"))):
                # the side column waits behind the hint card; a hint about another player
                # that the column cannot hold beside their panel lies over the active
                # player's positions 1-3 (``test_ui_teaching``: their panel in sight)
                continue
            if msg.rect.colliderect(w.rect):
                found.append((where, msg.name, getattr(msg, "text", ""), w.name))
    assert covered is not None or not found, found
    return seen


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_message_covers_a_card_a_count_the_draws_the_turn_or_a_button(size, lang):
    text.reset(lang)
    seen: set[str] = set()
    covered: list = []
    # the sample's mid-game: two seats draw (the prompt and the badges)
    loop, app = make_app(size=size, lang=lang, lines=sample_script())
    assert has_widget(app, "ban.draw.who")
    for near in ("act.pos3", "p0.pos2", "ft.spend", "hdr.sign"):    # refusals by the finger
        w = next(x for x in app.screen._widgets if x.name == near)
        app.screen.toast("A refusal, near the finger that asked", near=w.rect.center)
        seen |= check(app, f"refusal near {near}", covered)
    app.screen._toasts.clear()
    # the shop closes: "Shop closed: ... has 5 dislikes", then the final round's words
    game = app.table.game
    other = game.players[(game.active + 1) % len(game.players)].name
    run(app, {"do": "correct", "player": other, "dislikes": 5})
    assert app.screen.toasts
    seen |= check(app, "shop closed", covered)
    for _ in range(3):          # "Final round", "... plays last" take turns
        app.clock.now += 7
        app.tick()
        seen |= check(app, "final round", covered)
    # Cake Time: the question while two seats draw
    loop, app = make_app(size=size, lang=lang, lines=sample_script("sample_cake_game.jsonl"))
    assert has_widget(app, "ban.cake.bg") and has_widget(app, "ban.draw.who")
    seen |= check(app, "cake question", covered)
    app.screen.toast("A refusal, near the cake question",
                     near=next(w for w in app.screen._widgets if w.name == "ban.cake.bg"
                               ).rect.center)
    seen |= check(app, "refusal near the cake question", covered)
    assert {"toast", "hdr.final", "ban.cake.bg"} <= seen, seen
    assert covered == [], covered


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_hint_of_a_taught_game_covers_the_active_player_the_turn_or_a_button(size, lang):
    """A taught game's first turns: each hint as it comes (the goal, the turn, an order
    done, the flow of time, an order surge ...), with a message beside it."""
    text.reset(lang)
    loop, app = make_app(size=size, lang=lang)
    app.teaching.set_enabled(True)
    run(app, json.loads(line(do="setup", edition="original", players=["Ana", "Ben", "Chloe"])))
    keys = set()
    for step in range(12):
        while has_widget(app, "teach.box"):
            keys.add(app.teaching.current.key)
            check(app, f"hint {app.teaching.current.key}")
            touch(app, "teach.ok")
        play_a_step(app, step)
    assert {"goal", "turn", "flow_of_time"} <= keys, keys


def cake_question_texts(app, count: int) -> list:
    """The cake question's texts as a whole repaint draws them: ``count`` of them, each
    whole (no ellipsis) and inside its box."""
    from companion.outputs.screen.widgets import record_text
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    asked = [r for r in texts if r.owner.startswith("ban.cake.")]
    assert len(asked) == count, [r.owner for r in asked]
    for r in asked:
        assert "…" not in r.text and r.box.contains(r.rect), (r.owner, r.text)
    return asked


@pytest.mark.parametrize("lang", ["en", "es", "pt", "it", "ko"])
def test_the_cake_question_of_a_four_player_deal_is_whole_and_covers_nothing(lang):
    """Four players took cards in the deal: the words over a row of chips, each chip as wide
    as its name needs; nothing cut, nothing covered, at 800x480."""
    if lang == "ko" and hangul_missing():
        pytest.skip("no Korean font: Korean is drawn as boxes (apt install fonts-nanum)")
    text.reset(lang)
    loop, app = make_app(lang=lang, lines=[line(
        do="setup", edition="original", players=["Ana", "Ben", "Charlie", "Maximiliano"],
        expansion="cake_time")])
    assert check(app, "a four player deal") == {"ban.cake.bg"}
    asked = cake_question_texts(app, 6)                     # the words, 4 chips, Done
    assert any(r.text == "+ Maximiliano" for r in asked)
    for n in range(1, 5):       # the cards that give it room stay a finger's target
        card = next(w for w in app.screen._widgets if w.name == f"act.pos{n}")
        assert min(card.rect.size) >= 48, card.rect


@pytest.mark.parametrize("lang", ["en", "es", "pt", "it", "ko"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_cake_questions_words_are_whole_at_every_size(size, lang):
    """Two players took cards: the words beside the chips where they are whole there, else
    over them; never cut ("Tocad a quién va el nuev…" once, at 1280x800)."""
    text.reset(lang)
    loop, app = make_app(size=size, lang=lang, lines=sample_script("sample_cake_game.jsonl"))
    check(app, "the cake question")
    cake_question_texts(app, 4)                             # the words, 2 chips, Done


@pytest.mark.parametrize("lang", ["en", "es", "ko"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_stalled_tables_words_are_whole_and_cover_no_count_panel_or_turn(size, lang):
    """Every order queue empty (nothing can happen): the words take the active player's
    empty positions, whole; they once lay across the panels' feet, over every count."""
    from dataclasses import replace

    from companion.core.events import DeviceStatus
    from companion.core.rules import Table
    from companion.outputs.screen.widgets import record_text
    text.reset(lang)
    loop, app = make_app(size=size, lang=lang, lines=[line(
        do="setup", edition="original", players=["Ana", "Ben", "Chloe"])])
    game = app.table.game
    game = replace(game, players=tuple(replace(p, queue=((), (), (), ()))
                                       for p in game.players))
    loop.session.table = Table(game, app.table.undo, None)
    loop.post(DeviceStatus("scanner", "connected"))       # any update shows the new table
    loop.drain()
    app.process_updates()
    assert "ban.stall" in check(app, "stalled")       # (and the scanner's news, a toast)
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    said = [r for r in texts if r.owner == "ban.stall"]
    assert said and all("…" not in r.text and r.box.contains(r.rect) for r in said), said
    assert " ".join(" ".join(r.text for r in said).split()) == text.t("table.stalled")


@pytest.mark.parametrize("lang", ["en", "es", "pt", "it", "ko"])
def test_a_message_the_top_bar_cannot_hold_shows_its_headline_whole_and_a_tap_shows_it_all(
        lang):
    """"Shop open again: the correction removed Chloe's fifth dislike. Flip ..." was cut to
    "Shop open again: the correction removed Chl…" at 13 px in the top bar's room: now the
    words before its first ": " and a "›", whole; a tap shows the message whole, another
    puts it away. Nothing on any screen of the screenshots is cut (checked here for this
    scene)."""
    from companion.outputs.screen import screenshots
    from companion.outputs.screen.widgets import record_text
    text.reset(lang)
    _loop, app = screenshots.make_app(screenshots.sample_script(), (800, 480), lang)
    screenshots.SCENES["table-reopened"][0](app)
    [message] = [n for n in app.screen.toasts]
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    [shown] = [r for r in texts if r.owner == "toast.0"]
    assert "…" not in shown.text and shown.box.contains(shown.rect)
    assert shown.wanted.endswith(" ›") and message.startswith(shown.wanted[:-2])
    touch(app, "toast.0")
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    whole = [r for r in texts if r.owner == "toast.whole"]
    assert whole and all("…" not in r.text and r.box.contains(r.rect) for r in whole)
    assert " ".join(" ".join(r.text for r in whole).split()) == " ".join(message.split())
    assert min(r.size for r in whole) >= app.screen.m.body
    touch(app, "toast.whole")
    assert not has_widget(app, "toast.whole") and not app.screen.toasts


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_taught_cake_time_game_shows_its_question_and_hints_without_covering(size, players):
    """Cake Time's "Cake on the deck's back?" and the hints of a taught game's first turns
    share the screen: neither covers a card, a count, the draws, the turn or a button, nor
    each other (the question waits under a card over positions 1-3), and no hint about
    another player covers that player's panel (once it took the side column over it)."""
    loop, app = make_app(size=size)
    app.teaching.set_enabled(True)
    names = ["Ana", "Ben", "Chloe", "Dae"][:players]
    run(app, json.loads(line(do="setup", edition="original", players=names,
                             expansion="cake_time")))
    asked = 0
    for step in range(8):
        while has_widget(app, "teach.box"):
            hint = app.teaching.current
            check(app, f"hint {hint.key}")
            ws = app.screen._widgets
            box = next(w for w in ws if w.name == "teach.box")
            question = [w for w in ws if w.name.startswith("ban.cake.")]
            asked += bool(question)
            assert not any(box.rect.colliderect(w.rect) for w in question), hint.key
            game = app.table.game
            about = {hint.values.get("player"), *(hint.values.get("drawers") or ())}
            theirs = tuple(f"p{s}." for s, p in enumerate(game.players)
                           if p.name in about and s != game.active)
            assert not [w.name for w in ws if theirs and w.name.startswith(theirs)
                        and box.rect.colliderect(w.rect)], (step, hint.key)
            touch(app, "teach.ok")
        if has_widget(app, "ban.cake.done"):
            asked += 1
            touch(app, "ban.cake.done")
        play_a_step(app, step)
    assert asked, "the question came up"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_stalled_tables_words_wait_under_a_hint_over_positions_1_to_3(size):
    """Four players, every queue empty, a hint about the middle side panel's player: the
    card lies over the active player's positions 1-3, where the stalled table's words go;
    they wait under it (the card once cut them at position 4) and come back once it is
    read."""
    from dataclasses import replace

    from companion.core import teaching
    from companion.core.events import DeviceStatus
    from companion.core.rules import Table
    loop, app = make_app(size=size, lines=[line(
        do="setup", edition="original", players=["Ana", "Ben", "Chloe", "Dae"])])
    game = app.table.game
    game = replace(game, players=tuple(replace(p, queue=((), (), (), ()))
                                       for p in game.players))
    loop.session.table = Table(game, app.table.undo, None)
    loop.post(DeviceStatus("scanner", "connected"))
    loop.drain()
    app.process_updates()
    app.teaching.set_enabled(True)
    middle = game.players[(game.active + 2) % 4].name
    app.teaching.queue = [teaching.Hint("flow_of_time", (("edition", "original"),
                                                          ("player", middle)))]
    app.screen.changed()
    app.screen.draw(app.surface)
    box = next(w for w in app.screen._widgets if w.name == "teach.box")
    assert box.rect == app.screen.hint_spot
    assert not has_widget(app, "ban.stall")
    # the card says something waits under it: its "Got it" in the words' red
    from companion.outputs.screen import theme
    ok = next(w for w in app.screen._widgets if w.name == "teach.ok")
    said = next(w for w in app.screen._widgets if w.name == "teach.waits")
    assert ok.color == theme.DANGER and said.text == text.t("teach.then_stalled")
    assert ok.rect.contains(said.rect)
    check(app, "a hint over a stalled table")
    app.teaching.next()
    assert has_widget(app, "ban.stall")
    assert not has_widget(app, "teach.waits")


def test_a_new_game_shows_no_message_about_the_last_one():
    """The deck runs out ("Shop closed: the order deck ran out"), the game ends, REMATCH
    by touch at once: the new game's table shows none of the last game's messages (the
    first evening's rematch showed "Shop closed" beside the new game's OPEN sign)."""
    loop, app = make_app(lines=[
        line(do="setup", edition="original", players=["Ana", "Ben"], start="Ana"),
        line(do="correct", deck=1), line(do="end_turn")])
    closed = text.t("table.closed_because.deck_empty")
    assert app.screen.toasts == [closed]
    loop.post(TouchAction({"do": "end_turn"}))
    loop.drain()
    app.process_updates()
    assert app.table.game.game_over
    touch(app, "end.rematch")
    touch(app, "wz.start.0")
    while has_widget(app, "wz.next"):
        touch(app, "wz.next")
    game = app.table.game
    assert not game.game_over and game.token == "open"
    assert app.screen.toasts == []
