"""The App: touches become TouchActions in the table loop, rejections are shown,
a game played by touch alone matches its table script, and nothing is drawn
while nothing changes. SDL's dummy video driver, a real TableLoop and Session."""
import json
import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.core import events as ev  # noqa: E402
from companion.core.catalog import Catalog  # noqa: E402
from companion.core.rules import Accepted, Table, apply  # noqa: E402
from companion.core.rules.view import table_json  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.core.loop import TableLoop  # noqa: E402
from companion.outputs import Outputs  # noqa: E402
from companion.outputs.screen.app import UPDATE_EVENT, App  # noqa: E402
from companion.outputs.screen.screens.end import EndScreen  # noqa: E402
from companion.outputs.screen.screens.fix import FixScreen  # noqa: E402
from timing import scaled  # noqa: E402

SIZE = (800, 480)
SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"],
         "start": "Ana"}


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


@pytest.fixture
def display():
    pygame.display.init()
    pygame.font.init()
    surface = pygame.display.set_mode(SIZE)
    pygame.event.clear()
    yield surface
    pygame.display.quit()



@pytest.fixture(autouse=True)
def english_afterwards():
    """Screens set the language for the whole process: leave it as other tests expect."""
    yield
    from companion.outputs.screen import text
    text.set_language("en")

def make(display, catalog=None):
    loop = TableLoop(Session(None, catalog or Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=display, clock=Clock()), main_thread=True)
    return loop, app


def settle(loop, app):
    loop.drain()
    app.pump()


def widget(app, name):
    app.pump()
    for w in app.screen.widgets():
        if w.name == name:
            return w
    return None


def finger(app, pos, kind):
    w, h = app.size
    etype = pygame.FINGERDOWN if kind == "down" else pygame.FINGERUP
    app.handle(pygame.event.Event(etype, x=pos[0] / w, y=pos[1] / h, dx=0.0, dy=0.0,
                                  touch_id=1, finger_id=0, pressure=1.0))


def touch(loop, app, name):
    w = widget(app, name)
    assert w is not None, f"no widget {name} on {type(app.screen).__name__}"
    finger(app, w.rect.center, "down")
    finger(app, w.rect.center, "up")
    settle(loop, app)


def posted(loop):
    out = []
    while not loop.inputs.empty():
        out.append(loop.inputs.get_nowait())
    return out


def start(loop, app, setup=SETUP):
    app.post_action(setup)
    settle(loop, app)


def test_finger_tap_on_an_order_posts_complete_with_slot_and_card(display):
    loop, app = make(display)
    start(loop, app)
    loop.post(ev.CardScanned("EXO001"))
    settle(loop, app)
    me = app.table.game.active_player
    slot = next(i for i, pos in enumerate(me.queue) if pos and pos[0].tag == "EXO001") + 1
    w = widget(app, f"act.pos{slot}")
    finger(app, w.rect.center, "down")
    finger(app, w.rect.center, "up")
    (event,) = posted(loop)
    assert isinstance(event, ev.TouchAction)
    assert dict(event.action) == {"do": "complete", "slot": slot, "card": "EXO001"}


@pytest.mark.parametrize("lang, words", [("en", "Example order 1"), ("es", "Ejemplo 1"),
                                         ("pt", "Exemplo 1"),
                                         ("it", "Esempio 1"), ("ko", "예시 1")])
def test_the_example_catalogs_cards_are_named_in_the_tables_language(display, lang, words):
    loop, app = make(display)
    app.set_language(lang)
    start(loop, app)
    loop.post(ev.CardScanned("EXO001"))
    settle(loop, app)
    me = app.table.game.active_player
    slot = next(i for i, pos in enumerate(me.queue) if pos and pos[0].tag == "EXO001") + 1
    assert widget(app, f"act.pos{slot}").cards[0][0] == words
    app.set_language("en" if lang != "en" else "es")     # and it follows a change of language
    app.process_updates()
    assert widget(app, f"act.pos{slot}").cards[0][0] != words


def test_unscanned_card_tap_posts_slot_only_and_end_turn_button(display):
    loop, app = make(display)
    start(loop, app)
    me = app.table.game.active_player
    slot = next(i for i, pos in enumerate(me.queue) if pos) + 1
    touch(loop, app, f"act.pos{slot}")
    assert app.table.game.active_player.likes == 1
    w = widget(app, "ft.end")
    finger(app, w.rect.center, "down")
    finger(app, w.rect.center, "up")
    (event,) = posted(loop)
    assert dict(event.action) == {"do": "end_turn"}


def test_mouse_clicks_work_and_sdl_touch_copies_are_ignored(display):
    loop, app = make(display)
    start(loop, app)
    w = widget(app, "ft.end")
    # the synthetic mouse events SDL makes from a touch: ignored
    app.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=w.rect.center, button=1, touch=True))
    app.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=w.rect.center, button=1, touch=True))
    assert posted(loop) == []
    # a right click: ignored too
    app.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=w.rect.center, button=3, touch=False))
    app.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=w.rect.center, button=3, touch=False))
    assert posted(loop) == []
    # a real click on a laptop
    app.handle(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=w.rect.center, button=1, touch=False))
    app.handle(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=w.rect.center, button=1, touch=False))
    (event,) = posted(loop)
    assert dict(event.action) == {"do": "end_turn"}


def test_finger_lifted_elsewhere_is_no_tap(display):
    loop, app = make(display)
    start(loop, app)
    end, undo = widget(app, "ft.end"), widget(app, "ft.undo")
    finger(app, end.rect.center, "down")
    finger(app, undo.rect.center, "up")
    assert posted(loop) == []


def test_finger_coordinates_scale_with_the_window(display):
    loop = TableLoop(Session(None, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=pygame.Surface((1280, 800)), clock=Clock()),
                              main_thread=True)
    start(loop, app)
    w = widget(app, "ft.end")
    assert w.rect.right > 1000          # laid out for the bigger screen
    finger(app, w.rect.center, "down")
    finger(app, w.rect.center, "up")
    (event,) = posted(loop)
    assert dict(event.action) == {"do": "end_turn"}


def test_a_rejected_touch_shows_the_rejection_near_the_finger(display):
    loop, app = make(display)
    start(loop, app)
    me = app.table.game.active_player
    slot = next(i for i, pos in enumerate(me.queue) if len(pos) == 1) + 1
    w = widget(app, f"act.pos{slot}")
    # two quick taps on a one-card position: the second arrives after the card is gone
    for _ in range(2):
        finger(app, w.rect.center, "down")
        finger(app, w.rect.center, "up")
    settle(loop, app)
    assert app.screen.toasts == [f"{me.name} has no order in position {slot}"]
    toast = widget(app, "toast.0")
    assert toast is not None
    assert not toast.rect.colliderect(w.rect)            # never over the card it is about
    assert toast.rect.bottom <= w.rect.centery or toast.rect.top >= w.rect.centery


def test_seat_button_out_of_turn_is_shown_and_toast_goes_away(display):
    loop, app = make(display)
    start(loop, app)
    loop.post(ev.SeatTap(1))
    settle(loop, app)
    assert app.screen.toasts == ["It's Ana's turn"]     # says whose turn it is
    assert app.wait_timeout_ms() is not None      # the toast is an animation: wake up for it
    app.clock.now += 10
    app.pump()
    assert app.screen.toasts == [] and app.wait_timeout_ms() is None
    # a refusal made stale by the next turn goes at once, not after its 3 s
    loop.post(ev.SeatTap(1))
    settle(loop, app)
    assert app.screen.toasts == ["It's Ana's turn"]
    loop.post(ev.SeatHold(0))
    settle(loop, app)
    assert "It's Ana's turn" not in app.screen.toasts


def test_upgrade_offered_only_when_the_engine_would_accept_it(display):
    loop, app = make(display)
    start(loop, app)
    assert widget(app, "ft.upgrade") is None                 # no likes yet
    app.post_action({"do": "correct", "player": "Ana", "likes": 3})
    settle(loop, app)
    assert widget(app, "ft.upgrade") is not None
    touch(loop, app, "ft.upgrade")
    names = {w.name for w in app.screen.widgets()}
    assert {f"dlg.up.{u}" for u in app.table.game.players[0].tiles} <= names
    touch(loop, app, "dlg.up.double_corners")
    assert app.table.game.players[0].upgrades == ("double_corners",)
    assert widget(app, "ft.upgrade") is None                 # once per turn
    # after completing an order upgrades are too late, whatever the likes
    app.post_action({"do": "end_turn"})
    settle(loop, app)
    app.post_action({"do": "correct", "player": "Ben", "likes": 5})
    settle(loop, app)
    assert widget(app, "ft.upgrade") is not None
    app.post_action({"do": "complete"})
    settle(loop, app)
    assert widget(app, "ft.upgrade") is None
    for u in app.table.game.players[1].tiles:    # the engine agrees
        assert not isinstance(apply(app.table, {"do": "activate_upgrade", "upgrade": u}),
                              Accepted)


def test_spend_tokens_with_plus_minus_then_confirm(display):
    loop, app = make(display)
    start(loop, app)
    assert widget(app, "ft.spend") is None
    app.post_action({"do": "correct", "player": "Ana", "cookies": 3})
    settle(loop, app)
    touch(loop, app, "ft.spend")
    touch(loop, app, "dlg.count.plus")
    touch(loop, app, "dlg.count.plus")
    touch(loop, app, "dlg.count.plus")          # capped at the 3 Ana has
    touch(loop, app, "dlg.count.minus")
    touch(loop, app, "dlg.ok")
    assert app.table.game.players[0].cookies == 1


def test_fix_mode_is_guarded_and_posts_correct_actions(display):
    loop, app = make(display)
    start(loop, app)
    touch(loop, app, "ft.fix")
    assert not isinstance(app.screen, FixScreen)      # the guard first
    touch(loop, app, "dlg.cancel")
    assert widget(app, "dlg.ok") is None
    touch(loop, app, "ft.fix")
    touch(loop, app, "dlg.ok")
    assert isinstance(app.screen, FixScreen)
    touch(loop, app, "fix.1.likes.plus")
    touch(loop, app, "fix.1.likes.plus")
    touch(loop, app, "fix.2.dislikes.plus")
    touch(loop, app, "fix.deck.n.minus")
    deck = app.table.game.deck
    touch(loop, app, "fix.save")
    g = app.table.game
    assert (g.players[1].likes, g.players[2].dislikes, g.deck) == (2, 1, deck - 1)
    assert not isinstance(app.screen, FixScreen)
    touch(loop, app, "ft.undo")                 # the deck correction is undone first
    assert app.table.game.deck == deck


def test_pending_draws_until_scanned_or_dismissed(display):
    loop, app = make(display)
    start(loop, app)
    app.post_action({"do": "complete"})
    app.post_action({"do": "end_turn"})
    settle(loop, app)
    banner = widget(app, "ban.draw.who")
    assert banner is not None and banner.text == "Ben draws 1, then Chloe draws 1"
    # scanning the dealt cards and the drawn ones identifies them: the banner goes
    tags = [t for t, c in app.catalog.cards.items() if c.edition == "original"]
    waiting = sum(1 for p in app.table.game.players for pos in p.queue for c in pos
                  if c.tag is None)
    for tag in tags[:waiting]:
        loop.post(ev.CardScanned(tag))
    settle(loop, app)
    assert widget(app, "ban.draw.who") is None
    # next surge: dismissed by a tap
    app.post_action({"do": "complete"})
    app.post_action({"do": "end_turn"})
    settle(loop, app)
    assert widget(app, "ban.draw.who") is not None
    touch(loop, app, "ban.draw.who")
    assert widget(app, "ban.draw.who") is None


def test_draw_prompt_leaves_the_turn_in_view_and_ends_with_the_turn(display):
    """No scanner: the prompt shows who draws how many beside the panels, never over the
    active player's name or counts, and goes when the next turn begins."""
    loop, app = make(display)
    start(loop, app)
    app.post_action({"do": "complete"})
    app.post_action({"do": "end_turn"})
    settle(loop, app)
    ws = {w.name: w for w in app.screen.widgets()}
    assert ws["draw.act"].text == "+1" and ws["draw.p2"].text == "+1"    # Ben and Chloe
    keep = [n for n in ws if n.startswith(("act.name", "act.score", "act.like", "act.dislike",
                                           "act.rush_token", "act.upgrade", "hdr."))]
    prompt = [n for n in ws if n.startswith(("draw.", "ban.draw"))]
    assert keep and prompt
    for a in prompt:
        for b in keep:
            assert not ws[a].rect.colliderect(ws[b].rect), (a, b)
    app.post_action({"do": "end_turn"})       # Ben's turn ends: Chloe's begins
    settle(loop, app)
    names = {w.name for w in app.screen.widgets()}
    assert not {"draw.act", "draw.p2", "draw.p0", "ban.draw.who"} & names


def test_draw_prompt_survives_a_restart(display, tmp_path):
    """The prompt comes from the journal's game, not from what the screen remembered."""
    from companion.core.journal import Journal
    db = str(tmp_path / "j.db")
    with Journal(db) as journal:
        loop = TableLoop(Session(journal, Catalog.example()))
        for a in (SETUP, {"do": "complete"}, {"do": "end_turn"}):
            loop.post(ev.TouchAction(a))
        loop.drain()
    with Journal(db) as journal:
        loop = TableLoop(Session(journal, Catalog.example()))
        app = Outputs(loop).start(App(loop, surface=display, clock=Clock()), main_thread=True)
        names = {w.name: w for w in app.screen.widgets()}
        assert names["ban.draw.who"].text == "Ben draws 1, then Chloe draws 1"


def test_unknown_card_prompts_to_enroll(display):
    loop, app = make(display)
    start(loop, app)
    loop.post(ev.CardScanned("04AABBCCDD"))
    settle(loop, app)
    assert type(app.screen).__name__ == "EnrollScreen"     # the enroll screen takes over
    assert getattr(app.screen, "tag", "04AABBCCDD") == "04AABBCCDD"


def test_device_status_icons(display):
    loop, app = make(display)
    start(loop, app)
    loop.post(ev.DeviceStatus("scanner", "lost", "cable"))
    settle(loop, app)
    w = widget(app, "hdr.dev.scanner")
    assert w is not None and w.data == ("scanner", "lost")
    assert "Scanner disconnected" in app.screen.toasts


def test_game_over_shows_the_end_screen_and_rematch_starts_the_same_setup(display):
    loop, app = make(display)
    start(loop, app)
    app.post_action({"do": "correct", "player": "Ana", "dislikes": 5})   # shop closes
    settle(loop, app)
    for _ in range(3):
        touch(loop, app, "ft.end")
    assert app.table.game.game_over and isinstance(app.screen, EndScreen)
    touch(loop, app, "end.undo")                      # back into the game
    assert not isinstance(app.screen, EndScreen)
    touch(loop, app, "ft.end")
    assert isinstance(app.screen, EndScreen)
    touch(loop, app, "end.rematch")
    # the same table, asked again who starts, then the deal and the meeples
    assert app.screen.step == "start" and app.screen.model.players == ["Ana", "Ben", "Chloe"]
    touch(loop, app, "wz.start.1")
    steps = []
    while type(app.screen).__name__ == "WizardScreen":
        steps.append(app.screen.step)
        touch(loop, app, "wz.next")
    assert "deal" in steps and "meeples" in steps
    g = app.table.game
    assert not g.game_over and [p.name for p in g.players] == ["Ana", "Ben", "Chloe"]
    assert g.turn == 1 and g.players[g.start].name == "Ben"
    assert not isinstance(app.screen, EndScreen)


def test_updates_from_the_loop_thread_wake_the_main_thread(display):
    loop, app = make(display)
    loop.start()
    try:
        app.post_action(SETUP)
        # the main loop blocks in pygame.event.wait() until the subscriber's event arrives
        for _ in range(50):
            app.step()
            if app.table.game is not None:
                break
        assert app.table.game is not None
    finally:
        loop.stop()


def test_nothing_is_drawn_while_nothing_changes(display):
    loop, app = make(display)
    start(loop, app)
    app.draw()
    before = (app.display_updates, app.frames)
    for _ in range(200):
        pygame.event.post(pygame.event.Event(pygame.USEREVENT + 30))
        pygame.event.post(pygame.event.Event(UPDATE_EVENT))     # a wake-up with no update
        app.step()
    assert (app.display_updates, app.frames) == before
    # a small change repaints only a small area
    touch(loop, app, "ft.spend") if widget(app, "ft.spend") else None
    loop.post(ev.SeatTap(2))
    loop.drain()
    pygame.event.post(pygame.event.Event(UPDATE_EVENT))
    app.step()
    assert app.display_updates == before[0] + 1
    drawn = app.screen.draw(app.surface)
    assert drawn == []                                  # and nothing left to draw after


def test_a_partial_change_updates_only_its_area(display):
    loop, app = make(display)
    start(loop, app)
    app.post_action({"do": "correct", "player": "Ana", "cookies": 3})
    settle(loop, app)
    touch(loop, app, "ft.spend")
    w = widget(app, "dlg.count.plus")
    finger(app, w.rect.center, "down")
    rects = app.screen.draw(app.surface)
    area = sum(r.w * r.h for r in rects)
    assert 0 < area < SIZE[0] * SIZE[1] * 0.2


# --- a game played by touch alone -----------------------------------------------------

def _script(seed: int) -> list[dict]:
    """A seeded game as table-script actions (no scans: touch cannot scan)."""
    rng = random.Random(seed)
    table = Table()
    actions = [dict(SETUP, players=["Ana", "Ben", "Chloe", "Dae"])]
    table = apply(table, actions[0]).table
    for _ in range(60):
        g = table.game
        if g.game_over:
            break
        me = g.active_player
        options = [{"do": "end_turn"}] * 3
        options += [{"do": "complete", "slot": i + 1} for i, pos in enumerate(me.queue) if pos] * 3
        options += [{"do": "activate_upgrade", "upgrade": u} for u in me.tiles]
        if me.cookies:
            options.append({"do": "spend_cookies", "count": rng.randint(1, me.cookies)})
        options += [{"do": "undo"}, {"do": "redo"},
                    {"do": "correct", "player": rng.choice(g.players).name,
                     "likes": rng.randint(0, 6), "cookies": rng.randint(0, 3)}]
        if g.turn > 12:
            options.append({"do": "correct", "player": me.name, "dislikes": 5})
        a = rng.choice(options)
        out = apply(table, a)
        if isinstance(out, Accepted):
            table = out.table
            actions.append(a)
    while not table.game.game_over:
        a = {"do": "correct", "player": table.game.active_player.name, "dislikes": 5} \
            if table.game.token == "open" else {"do": "end_turn"}
        table = apply(table, a).table
        actions.append(a)
    return actions


def _touch_action(loop, app, a: dict) -> None:
    do = a["do"]
    if do == "complete":
        touch(loop, app, f"act.pos{a['slot']}")
    elif do == "end_turn":
        touch(loop, app, "ft.end")
    elif do == "undo":
        touch(loop, app, "end.undo" if isinstance(app.screen, EndScreen) else "ft.undo")
    elif do == "redo":
        touch(loop, app, "ft.redo")
    elif do == "activate_upgrade":
        touch(loop, app, "ft.upgrade")
        touch(loop, app, f"dlg.up.{a['upgrade']}")
    elif do == "spend_cookies":
        touch(loop, app, "ft.spend")
        for _ in range(a["count"] - 1):
            touch(loop, app, "dlg.count.plus")
        touch(loop, app, "dlg.ok")
    elif do == "correct":
        if isinstance(app.screen, EndScreen):
            touch(loop, app, "end.fix")
        else:
            touch(loop, app, "ft.fix")
            touch(loop, app, "dlg.ok")
        g = app.table.game
        seat = g.seat_of(a["player"])
        for field in ("likes", "dislikes", "cookies"):
            if field in a:
                now = getattr(g.players[seat], field)
                step = "plus" if a[field] > now else "minus"
                for _ in range(abs(a[field] - now)):
                    touch(loop, app, f"fix.{seat}.{field}.{step}")
        touch(loop, app, "fix.save")
        if isinstance(app.screen, FixScreen):      # nothing changed: leave fix mode
            touch(loop, app, "fix.cancel")
    else:
        raise AssertionError(a)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_game_played_by_touch_alone_reaches_the_scripts_final_state(display, seed):
    actions = _script(seed)
    expected = Session(None, Catalog.example())
    for a in actions:
        assert not hasattr(expected.apply(a), "code"), a
    loop, app = make(display)
    app.post_action(actions[0])               # the setup comes from the wizard (UI-B)
    settle(loop, app)
    for a in actions[1:]:
        _touch_action(loop, app, a)
    assert json.dumps(table_json(app.table)) == json.dumps(table_json(expected.table))
    assert json.dumps(table_json(loop.table)) == json.dumps(table_json(expected.table))
    assert isinstance(app.screen, EndScreen)


def test_a_stalled_table_shows_the_stall_banner(display):
    from companion.core.rules import Table as T
    loop, app = make(display)
    start(loop, app)
    from dataclasses import replace
    g = app.table.game                    # every order queue empty, the shop open
    g = replace(g, players=tuple(replace(p, queue=((), (), (), ())) for p in g.players))
    loop.session.table = T(g, app.table.undo, None)
    loop.post(ev.DeviceStatus("scanner", "connected"))   # any update brings the new table
    settle(loop, app)
    banner = widget(app, "ban.stall")
    assert banner is not None and "cannot go on" in banner.text
    assert widget(app, "ft.end") is not None       # the table decides: end the turn, fix, ...


def test_a_scanner_talking_nonsense_is_shown_in_words(display):
    loop, app = make(display)
    start(loop, app)
    loop.post(ev.DeviceStatus("scanner", "garbled", "REPL text"))
    settle(loop, app)
    assert widget(app, "hdr.dev.scanner").data == ("scanner", "garbled")
    assert app.screen.toasts[-1] == ("The card scanner is not responding properly: "
                                     "re-flash the scanner (firmware/README.md)")


def test_the_screen_shows_a_paused_table_until_the_journal_is_free(display, tmp_path):
    import sqlite3
    import time

    from companion.core.journal import Journal
    path = str(tmp_path / "journal.db")
    journal = Journal(path, busy_timeout=0.05)
    loop = TableLoop(Session(journal, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=display, clock=Clock()), main_thread=True)
    start(loop, app)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")              # another program holds the write lock
    loop.post(ev.TouchAction({"do": "end_turn"}))
    loop.start()

    def wait(predicate):
        deadline = time.monotonic() + scaled(5)
        while not predicate():
            assert time.monotonic() < deadline, app.screen.toasts
            app.pump()
    try:
        wait(lambda: any(t.startswith("Paused: another program is using the journal")
                         for t in app.screen.toasts))
        assert app.table.game.turn == 1
    finally:
        other.execute("ROLLBACK")
        other.close()
    wait(lambda: app.table.game.turn == 2)
    wait(lambda: "The journal is free again: the table goes on" in app.screen.toasts)
    assert not any(t.startswith("Paused") for t in app.screen.toasts)
    loop.stop()
    journal.close()
