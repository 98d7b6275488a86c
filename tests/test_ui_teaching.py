"""Learn while playing: a first game set up and played on the real App (SDL's dummy
driver, a real table loop and session, fingers on the widgets), in each language, with
teaching on: every hint comes once, at its moment, and never over the active player;
teaching off shows none; a resumed game does not teach again what it has passed."""
from __future__ import annotations

import collections
import io
import json
import random
import tomllib
from importlib import resources

import pytest
from ui_touch import has_widget, make_app, needs_dejavu, touch, widget

from companion.appliance import demo
from companion.core import events as ev
from companion.core import teaching
from companion.core.catalog import Catalog
from companion.core.journal import Journal
from companion.core.rules import Accepted, apply
from companion.core.rules import happenings as hp
from companion.core.session import Session
from companion.core.loop import TableLoop
from companion.outputs.screen import text
from companion.outputs import Outputs
from companion.outputs.screen.app import App
from companion.outputs.screen.screens.end import EndScreen
from companion.outputs.screen.screens.table_view import TableView
from companion.outputs.screen.settings_store import settings_for
from companion.outputs.screen.teaching_view import Teaching
from companion.outputs.screen.widgets import Stat, Widget

LANGUAGES = ("en", "es", "pt", "it", "ko")


@pytest.fixture(autouse=True)
def _english():
    yield
    text.set_language("en")


def locale(lang: str) -> dict:
    raw = resources.files("companion.words.locales").joinpath(f"{lang}.toml").read_bytes()
    return tomllib.loads(raw.decode("utf-8"))


# --- the sequence is data, and every hint has words --------------------------------------------

HAPPENING_KINDS = {c.kind for c in vars(hp).values()
                   if isinstance(c, type) and issubclass(c, hp.Happening) and c.kind}


def test_the_sequence_names_real_moments_and_every_hint_has_words_in_every_language():
    keys = [s.key for s in teaching.SEQUENCE]
    assert len(keys) == len(set(keys)), "a hint taught at two moments"
    for step in teaching.SEQUENCE:
        assert step.on == "turn_start" or step.on in HAPPENING_KINDS, step
        assert step.only is None or step.only in teaching.TESTS, step
        assert step.key in teaching.HINT_KEYS
    assert set(teaching.HINT_KEYS) == set(keys) | set(teaching.VARIANT_KEYS.values()) | {
        "order_surge_one"}
    controls = {"title", "ok", "next", "stop", "then_cake", "then_stalled", "then_draws",
                "stopped",
                "setting", "first_game", "first_game_hint", "seat_colours"}
    for lang in LANGUAGES:
        words = locale(lang)["teach"]
        assert set(words) == set(teaching.HINT_KEYS) | controls, lang
        for key in teaching.HINT_KEYS:
            assert len(words[key]) <= 140, f"{lang} {key}: too long to read from 1.5 m"


def test_the_new_sections_sit_right_after_the_languages():
    for lang in LANGUAGES:
        lines = resources.files("companion.words.locales").joinpath(f"{lang}.toml").read_text(
            encoding="utf-8").splitlines()
        sections = [ln for ln in lines if ln.startswith("[")]
        at = sections.index
        assert at("[language]") < at("[teach]") < at("[word]") <= 4, (lang, sections[:5])


# --- a first game, by touch ----------------------------------------------------------------

def start_by_touch(app, teach: bool, players: int, edition: str = "original",
                   expansion: str | None = None) -> None:
    """From "No game is running": the taught first game (or New game), the box, the
    players, "Play with seat colours", the first seat starts; every other step as offered."""
    touch(app, "nogame.teach" if teach else "nogame.new")
    touch(app, f"wz.edition.{expansion or edition}")
    touch(app, "wz.next")
    touch(app, f"wz.count.{players}")
    assert widget(app, "wz.teach").on is teach
    touch(app, "wz.next")
    touch(app, "wz.colour_names")
    assert widget(app, "wz.problem") if has_widget(app, "wz.problem") else True
    while has_widget(app, "wz.next"):
        if has_widget(app, "wz.start.0"):
            touch(app, "wz.start.0")
        touch(app, "wz.next")
    assert app.table.game is not None


def expected_at(step: teaching.Step, update) -> bool:
    """Whether ``update`` is a moment of ``step`` (worked out here from the happenings and
    the engine, not by the teacher)."""
    game = update.table.game
    kinds = [h.kind for h in update.happened]
    if step.on == "turn_start":
        if not ({"game_started", "turn_changed"} & set(kinds)) or game.game_over:
            return False
        me = game.active_player
        if step.only == "can_spend":
            return game.spendable_tokens(me) > 0
        return any(isinstance(apply(update.table, {"do": "activate_upgrade", "upgrade": u}),
                              Accepted) for u in me.tiles)
    if step.on == "cards_to_draw":
        return any(h.kind == "cards_to_draw" and h.reason == step.only and h.draws
                   for h in update.happened)
    return step.on in kinds


def forbidden(app) -> list[Widget]:
    """What a hint must never cover: whose turn it is and the active player's name,
    score, position 4 and counts, the top bar, END TURN, the panels of the other players
    it talks about (with Cake Time's question up too, and an order surge's hint that
    names the active player among them); the active player's positions 1-3 too unless it
    talks about another player (then it may lie over them:
    ``teaching_view._beside_its_players``); on the end screen, the winner."""
    app.screen.draw(app.surface)
    if isinstance(app.screen, EndScreen):
        return [w for w in app.screen._widgets if w.name in ("end.title", "end.winner")]
    hint = app.teaching.current
    values = hint.values if hint is not None else {}
    about = {values.get("player"), *(values.get("drawers") or ())}
    game = app.table.game
    seats = {i for i, p in enumerate(game.players) if p.name in about} if game else set()
    others = seats - {game.active if game else None}
    over_cards = bool(others)            # positions 1-3 may hold the card
    theirs = tuple(f"p{s}." for s in others)
    return [w for w in app.screen._widgets
            if (w.name.split(".")[0] in ("act", "hdr") or w.name == "ft.end"
                or isinstance(w, Stat) and w.name.startswith("act.")
                or theirs and w.name.startswith(theirs) and w.shows)
            and not (over_cards and w.name.startswith(("act.pos1", "act.pos2", "act.pos3",
                                                        "act.bg")))]


def read_every_hint(app, seen: list) -> None:
    """The table reads each hint up and taps it away; none covers the active player."""
    while app.teaching.current is not None:
        box = widget(app, "teach.box")
        assert isinstance(app.screen, (TableView, EndScreen))
        for w in forbidden(app):
            assert not box.rect.colliderect(w.rect), (app.teaching.current.key, w.name)
        assert widget(app, "teach.text").text == app.teaching.text(app.teaching.current)
        seen.append(app.teaching.current.key)
        touch(app, "teach.ok")


def play(app, updates: list, seed: int = 5, edition: str = "original", max_turns: int = 300):
    """The demo's bots play the game to its end; after each input the table reads the hints
    due. ``updates``: every update since before the setup (a subscriber's list). Returns
    (hints read, hints each update queued, the updates)."""
    loop = app.loop
    rng = random.Random(seed)
    tags = [t for t, c in app.catalog.cards.items() if c.edition == edition]
    rng.shuffle(tags)
    bots = demo.Bots(loop, rng, tags)
    seen: list[str] = []
    # the setup's own hints came with the updates so far
    queued: list[tuple[str, object]] = [(h.key, list(updates)) for h in app.teaching.queue]

    def settle():
        before = len(updates)
        known = set(app.teaching.queue)
        loop.drain()
        app.process_updates()
        for hint in app.teaching.queue:
            if hint not in known:
                queued.append((hint.key, updates[before:]))
        read_every_hint(app, seen)

    pending: list = []                          # the bots' inputs, one at a time
    bots.post = pending.append
    bots.press = lambda seat, hold, taps=1: pending.append(
        ev.SeatHold(seat) if hold else ev.SeatTap(seat, count=taps))

    def run(step) -> None:
        step()
        while pending:
            loop.post(pending.pop(0))
            settle()

    settle()                                   # the setup's own hints
    for _ in range(max_turns):
        if loop.table.game.game_over:
            break
        run(bots.scan_new_cards)
        run(bots.answer_cakes)
        run(bots.play_turn)
    assert loop.table.game.game_over
    return seen, queued, updates


GAMES = [("original", None, 3, 5), ("winter", None, 2, 2), ("original", "cake_time", 2, 3),
         ("winter", None, 4, 1), ("original", None, 2, 4)]


@pytest.mark.parametrize("lang,game", list(zip(LANGUAGES, GAMES, strict=True)))
def test_a_taught_first_game_teaches_each_rule_once_at_its_moment(lang, game):
    edition, expansion, players, seed = game
    loop, app = make_app(lang=lang)
    updates: list = []
    loop.subscribe(updates.append)
    start_by_touch(app, True, players, edition, expansion)
    assert settings_for(app).teaching
    seen, queued, updates = play(app, updates, seed, edition)
    counts = collections.Counter(seen)
    assert all(n == 1 for n in counts.values()), counts
    # each hint came with the update that was its moment (the first such update)
    by_key = {s.key: s for s in teaching.SEQUENCE}
    for key, brought in queued:
        step = by_key[{"order_surge_one": "order_surge", "turn_junior": "turn"}.get(key, key)]
        accepted = [u for u in brought if u.rejection is None and u.happened]
        assert any(expected_at(step, u) for u in accepted), key
        first = next(u for u in updates if u.rejection is None and expected_at(step, u))
        assert first in brought, f"{key} came later than its moment"
    # and every moment the game had was taught
    due = {s.key for s in teaching.SEQUENCE
           if any(u.rejection is None and expected_at(s, u) for u in updates)}
    read = {{"order_surge_one": "order_surge", "turn_junior": "turn"}.get(k, k) for k in seen}
    assert read == due
    assert {"goal", "turn", "button", "order_completed", "flow_of_time", "shop_closed",
            "scoring"} <= read
    if expansion:
        assert "cake" in read
    if players == 2:
        assert "two_player_draw" in read
    if edition == "winter":
        assert seen[3] == "spend"             # everyone starts with a cookie
    assert isinstance(app.screen, EndScreen)
    assert app.teaching.presented == seen


def test_teaching_off_shows_no_hint():
    loop, app = make_app()
    updates: list = []
    loop.subscribe(updates.append)
    start_by_touch(app, False, 3)
    assert not settings_for(app).teaching
    seen, queued, _ = play(app, updates, seed=5)
    assert seen == [] and app.teaching.presented == []
    assert not has_widget(app, "teach.box")


def test_every_hint_fits_its_card_in_every_language():
    """The longest words of each hint, at the smallest screen, in full (never cut)."""
    from companion.outputs.screen import widgets
    for lang in LANGUAGES:
        loop, app = make_app(lang=lang)
        start_by_touch(app, True, 4, "original")
        for key in teaching.HINT_KEYS:
            params = (("count", 3), ("drawers", ("Maximiliano", "Chloe")), ("edition", "original"),
                      ("like", 1), ("likes", 12), ("player", "Maximiliano"), ("upgrade", 2),
                      ("dislike", 1))
            app.teaching.queue = [teaching.Hint(key, params)]
            app.screen.invalidate()
            with widgets.record_text() as records:
                app.screen.draw(app.surface)
            shown = next(r for r in records if r.owner == "teach.text")
            assert shown.wanted == app.teaching.text(app.teaching.queue[0])
            assert shown.text.replace("\n", " ").split() == shown.wanted.split(), (lang, key)
            assert shown.size >= app.screen.m.body, (lang, key)


# --- dismissing, switching off, resuming -------------------------------------------------------

def test_a_tap_or_the_next_action_dismisses_but_scanning_the_deal_does_not():
    loop, app = make_app()
    start_by_touch(app, True, 3)
    assert [h.key for h in app.teaching.queue] == ["goal", "turn", "button"]
    touch(app, "teach.box")                       # a tap anywhere on the card
    assert app.teaching.current.key == "turn"
    assert widget(app, "teach.ok").text == "Next"
    loop.post(ev.CardScanned(next(iter(app.catalog.cards))))
    loop.drain()
    app.process_updates()
    assert app.teaching.current.key == "turn"     # the dealt cards are scanned: still up
    touch(app, "ft.end")                          # the game moves on: the intro goes
    assert app.teaching.current is None or app.teaching.current.key not in ("turn", "button")
    assert app.teaching.presented[:2] == ["goal", "turn"]


def test_stop_teaching_on_the_card_switches_it_off_at_once():
    loop, app = make_app()
    start_by_touch(app, True, 3)
    touch(app, "teach.stop")
    assert app.teaching.current is None and not settings_for(app).teaching
    assert not has_widget(app, "teach.box")
    assert "Teaching is off. Settings turns it back on." in app.screen.toasts
    touch(app, "act.pos1")                        # an order completed: nothing is taught
    assert app.teaching.current is None
    touch(app, "hdr.settings")
    assert widget(app, "set.teaching").text == "Teaching: Off"
    touch(app, "set.teaching")
    assert settings_for(app).teaching


def test_each_hint_is_spoken_as_it_comes_up():
    loop, app = make_app()
    said: list = []
    app.speak = lambda words, lang: said.append((words, lang))
    start_by_touch(app, True, 3)
    touch(app, "teach.ok")
    assert said == [(app.teaching.text(teaching.Hint("goal", (("edition", "original"),))), "en"),
                    (app.teaching.text(teaching.Hint("turn", (("edition", "original"),))), "en")]


def test_a_restarted_table_does_not_teach_again_what_the_game_has_passed(tmp_path):
    path = str(tmp_path / "journal.db")
    journal = Journal(path)
    loop = TableLoop(Session(journal, Catalog.example()))
    loop2 = app2 = None
    try:
        _, app = make_app()
        app = Outputs(loop).start(App(loop, language="en", clock=app.clock), main_thread=True)
        settings_for(app).teaching = True
        loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                                  "players": ["Ana", "Ben", "Chloe"], "start": "Ana"}))
        loop.drain()
        app.process_updates()
        while app.teaching.current is not None:
            app.teaching.next()
        for event in (ev.SeatTap(0), ev.SeatTap(0), ev.SeatHold(0), ev.SeatHold(1)):
            loop.post(event)
            loop.drain()
            app.process_updates()
            while app.teaching.current is not None:   # the table reads each hint (a hint
                app.teaching.next()                   # put away unread comes again)
        taught = set(app.teaching.teacher.taught)
        assert {"goal", "order_completed", "order_surge", "flow_of_time"} <= taught
        journal.close()
        # the power comes back: the same journal, a new session, a new screen
        journal = Journal(path)
        loop2 = TableLoop(Session(journal, Catalog.example()))
        app2 = Outputs(loop2).start(App(loop2, language="en", clock=app.clock), main_thread=True)
        settings_for(app2).teaching = True
        assert app2.teaching.teacher.taught == taught
        assert app2.teaching.current is None          # nothing is taught again at start
        loop2.post(ev.SeatTap(2))                     # Chloe completes her first order
        loop2.post(ev.SeatTap(2))
        loop2.post(ev.SeatHold(2))
        loop2.drain()
        app2.process_updates()
        assert not {h.key for h in app2.teaching.queue} & taught
    finally:
        journal.close()


def test_a_journal_replay_marks_the_same_hints_as_the_game_lived():
    """Undo does not bring a hint back: it was taught when its moment came."""
    t = teaching.Teacher()
    session = Session(None, Catalog.example())
    live: list[str] = []
    for action in ({"do": "setup", "edition": "winter", "players": ["Ana", "Ben"],
                    "start": "Ana"}, {"do": "complete"}, {"do": "undo"}, {"do": "end_turn"}):
        out = session.apply(action)
        assert isinstance(out, Accepted)
        live += [h.key for h in t.observe(out.happened, out.table)]
    again = teaching.Teacher.replay(session.lines, session.table.game.rules_version)
    assert again.taught == t.taught
    assert "order_completed" in again.taught and live.count("order_completed") == 1


# --- start at once -----------------------------------------------------------------------------

def test_no_game_screen_offers_the_taught_first_game_first():
    loop, app = make_app()
    first = widget(app, "nogame.teach")
    assert first.text == "First game: teach us"
    assert first.rect.y < widget(app, "nogame.new").rect.y
    touch(app, "nogame.teach")
    touch(app, "wz.next")
    assert widget(app, "wz.teach").on
    touch(app, "wz.back")
    touch(app, "wz.back")
    touch(app, "nogame.new")
    touch(app, "wz.next")
    assert not widget(app, "wz.teach").on
    touch(app, "wz.teach")                        # the choice is the table's, in the wizard
    assert widget(app, "wz.teach").on


@pytest.mark.parametrize("lang,names", [("en", ["Red", "Blue", "Green"]),
                                        ("ko", ["빨강", "파랑", "초록"])])
def test_play_with_seat_colours_names_every_seat_at_once(lang, names):
    loop, app = make_app(lang=lang)
    touch(app, "nogame.teach")
    touch(app, "wz.edition.original")
    touch(app, "wz.next")
    touch(app, "wz.count.3")
    touch(app, "wz.next")
    assert has_widget(app, "wz.problem")          # "every seat needs a name"
    touch(app, "wz.colour_names")
    assert not has_widget(app, "wz.problem")
    assert app.screen.model.players == names
    touch(app, "wz.next")                         # colours: the first seat takes yellow
    touch(app, "wz.colour.0.yellow")
    assert app.screen.model.colours[0] == "yellow"
    colours = app.screen.model.colours[:3]
    from companion.words.i18n import colour_name
    assert app.screen.model.players == [colour_name(lang, c) for c in colours]
    touch(app, "wz.back")                         # renamable: a seat by the keyboard
    touch(app, "wz.seat.1")
    touch(app, "wz.clear")
    assert app.screen.model.players[1] == ""


def test_demo_teach_in_the_terminal_says_each_hint_once():
    out = io.StringIO()
    demo.run("original", 2, seed=3, out=out, teach=True)
    hints = [ln for ln in out.getvalue().splitlines() if ln.startswith("  » ")]
    assert len(hints) == len(set(hints)) >= 10
    assert hints[0] == "  » " + teaching.hint_text("en", teaching.Hint("goal"))
    plain = io.StringIO()
    demo.run("original", 2, seed=3, out=plain)
    assert "»" not in plain.getvalue()
    assert [ln for ln in out.getvalue().splitlines() if not ln.startswith("  » ")] \
        == plain.getvalue().splitlines()


def test_the_app_builds_its_teaching_from_the_session_lines():
    loop, app = make_app(lines=['{"do": "setup", "edition": "original", "players": '
                                '["Ana", "Ben"], "start": "Ana"}', '{"do": "complete"}'])
    assert isinstance(app.teaching, Teaching)
    fresh = Teaching(app)                          # as a screen built after a restart would
    assert fresh.teacher.taught == app.teaching.teacher.taught
    assert "order_completed" in fresh.teacher.taught


@needs_dejavu
def test_the_screen_demo_teaches_while_the_bots_wait_for_each_hint(monkeypatch):
    """``demo --teach`` on the screen: the same game and hints as in the terminal, every
    hint up on the screen (moving on once read), the bots waiting meanwhile."""
    import os
    from companion.outputs.screen import teaching_view
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    shown_keys: list = []
    bots_waited: list = []
    present = teaching_view.Teaching._present

    def spy(self, **kw):
        present(self, **kw)
        if self.current is not None:
            shown_keys.append(self.current.key)
    monkeypatch.setattr(teaching_view.Teaching, "_present", spy)
    wait = demo.PacedBots._wait_reader

    def waiting(self):
        bots_waited.append(self.reading())
        wait(self)
    monkeypatch.setattr(demo.PacedBots, "_wait_reader", waiting)
    headless = io.StringIO()
    demo.run("original", 2, seed=5, out=headless, teach=True)
    shown, err = io.StringIO(), io.StringIO()
    rc = demo.run_screen("original", 2, seed=5, speed=100, out=shown, err=err,
                         stop_when_over=True, use_buttons=False, teach=True)
    assert rc == 0, err.getvalue()
    games = [[ln for ln in g.splitlines() if ln.startswith(("Turn", "  »", "Final"))]
             for g in (headless.getvalue(), shown.getvalue())]
    assert games[0] == games[1]
    hints = [ln[4:] for ln in games[0] if ln.startswith("  »")]
    # without seat buttons (use_buttons=False) the screen does not teach them
    assert "button" not in shown_keys
    assert len(shown_keys) == len(hints) - 1 == len(set(shown_keys))
    assert any(bots_waited), "the bots never waited for a hint to be read"


def _voiced_service(tmp_path):
    """A headless service with the voice on (espeak-ng), no buttons, strip or phone view."""
    import shutil

    from companion.appliance.config import defaults
    from companion.appliance.service import Service
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    cfg = defaults()
    cfg.values["journal"]["path"] = str(tmp_path / "journal.db")
    cfg.values["catalog"]["paths"] = []
    cfg.values["seats"]["driver"] = "none"
    cfg.values["pixels"]["driver"] = "none"
    cfg.values["web"]["enabled"] = False
    return Service(cfg, headless=True)


def test_the_service_gives_the_screen_its_voice(tmp_path):
    import pygame
    svc = _voiced_service(tmp_path)
    svc.start_outputs()
    try:
        assert svc.voice is not None
        app = svc.build_app(pygame.Surface((800, 480)))
        assert app.speak == svc.voice.say
        svc.voice.say("Serve the orders", "en")
        assert svc.voice.wait_spoken(1)
        assert svc.voice.spoken == ["Serve the orders"]
        svc.voice.enabled = False                 # Settings: the voice off, hints too
        svc.voice.say("not said")
        assert svc.voice._queue == []
    finally:
        svc.shutdown()


def test_the_screen_gets_its_voice_when_the_outputs_start_behind_the_first_frame(tmp_path):
    """The service's own order: the screen is built (and drawn) first, the outputs start
    after READY=1 on a thread of their own; the hints are said aloud from then on."""
    import pygame
    svc = _voiced_service(tmp_path)
    try:
        svc.app = app = svc.build_app(pygame.Surface((800, 480)))
        assert svc.voice is None and app.speak is None      # nothing to say it with yet
        svc.start_adapters()
        assert svc.voice is not None
        assert app.speak == svc.voice.say
    finally:
        svc.shutdown()


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 720), (1280, 800)])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_hint_card_keeps_off_the_active_player_at_every_size(size, players):
    """The table layout's own rectangles: the card is beside the active player's panel and
    under the top bar, whatever the screen and the number of players."""
    from companion.core.events import ScriptLine
    from companion.outputs.screen.table_layout import active_panel_layout, table_layout
    from companion.outputs.screen.teaching_view import area_for
    loop, app = make_app(size=size)
    app.teaching.set_enabled(True)
    names = ["Ana", "Ben", "Chloe", "Dae"][:players]
    loop.post(ScriptLine(json.dumps({"do": "setup", "edition": "original",
                                     "players": names}), 1))
    loop.drain()
    app.process_updates()
    assert app.teaching.current.key == "goal"
    area = area_for(app.screen)
    lay = table_layout(size, players)
    panel = active_panel_layout(app.screen.m, lay.active, prompt=False)
    for keep in (lay.header, lay.active, panel.banner, panel.stats, lay.footer):
        assert not area.colliderect(keep)
    assert widget(app, "teach.box").rect == area
    for name in ("teach.ok", "teach.stop"):
        r = widget(app, name).rect
        assert area.contains(r) and min(r.size) >= 48      # a finger's target


#: the hints that talk about one player (``teaching._values``), with the words they need
ABOUT_A_PLAYER = ("flow_of_time", "dislike", "two_player_draw", "shop_closed")


def hint_about(name: str, key: str) -> teaching.Hint:
    return teaching.Hint(key, (("count", 1), ("edition", "original"), ("player", name)))


def shown_hint(app):
    """The hint card, its words as drawn (a whole repaint) and every widget on the screen."""
    from companion.outputs.screen import widgets
    app.screen.changed()
    app.screen.invalidate()
    with widgets.record_text() as records:
        app.screen.draw(app.surface)
    ws = app.screen._widgets
    words = [r for r in records if r.owner == "teach.text"]
    return next(w for w in ws if w.name == "teach.box"), words, ws


def in_sight(app, seat: int) -> list[Widget]:
    """What a hint about the player of ``seat`` leaves in sight: that player's panel, whose
    turn it is (the top bar, the active banner), the active player's position 4 (the urgent
    card) and counts, the footer."""
    return [w for w in app.screen._widgets
            if w.name.startswith((f"p{seat}.", "hdr.", "ft.", "act.banner", "act.name",
                                  "act.seat", "act.score", "act.pos4"))
            or isinstance(w, Stat) and w.name.startswith("act.")]


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 720), (1280, 800)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_hint_about_another_player_leaves_their_panel_and_whose_turn_in_sight(size, players):
    """The flow of time, a dislike, the two-player draw, the last player: a hint about
    each other player, their panel in sight beside the card (the card once took the whole
    side column for the one other player of two and a middle panel of four, over the very
    panel it talked about), whose turn it is and position 4 too, the words whole at the
    body size or more."""
    from companion.core.events import ScriptLine
    from companion.outputs.screen.table_layout import table_layout
    loop, app = make_app(size=size)
    names = ["Ana", "Maximiliano", "Chloe", "Ben"][:players]
    loop.post(ScriptLine(json.dumps({"do": "setup", "edition": "original",
                                     "players": names}), 1))
    loop.drain()
    app.process_updates()
    app.teaching.set_enabled(True)
    game = app.table.game
    lay = table_layout(size, players)
    m = app.screen.m
    for k, panel in enumerate(lay.others):
        seat = (game.active + 1 + k) % players
        for key in ABOUT_A_PLAYER:
            app.teaching.queue = [hint_about(game.players[seat].name, key)]
            box, words, _ = shown_hint(app)
            where = (players, k, key)
            assert not box.rect.colliderect(panel), where
            for w in in_sight(app, seat):
                assert not box.rect.colliderect(w.rect), (where, w.name)
            assert words and min(r.size for r in words) >= m.body, (where, words)
            assert " ".join(r.text for r in words).split() == \
                app.teaching.text(app.teaching.current).split(), where


SIZES = [(800, 480), (1024, 600), (1280, 720), (1280, 800)]


def assert_whole_and_in_sight(app, seats: list[int], where) -> Widget:
    """The hint card leaves the panels of ``seats`` (other players), whose turn it is, the
    active player's position 4 and counts and the footer in sight, its words whole at the
    body size or more; the card."""
    box, words, _ = shown_hint(app)
    for seat in seats:
        for w in in_sight(app, seat):
            assert not box.rect.colliderect(w.rect), (where, w.name)
    assert words and min(r.size for r in words) >= app.screen.m.body, (where, words)
    assert " ".join(r.text for r in words).split() == \
        app.teaching.text(app.teaching.current).split(), where
    return box


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_hint_about_another_player_leaves_them_in_sight_while_cake_time_asks(size, players):
    """Cake Time's "Cake on the deck's back?" takes a band at the active panel's foot:
    positions 1-3 were then too short for a hint (362 x 98 px at 800x480), and a hint about
    the other player of two (or a middle panel of four) took the side column over the very
    panel it talked about. The card lies over positions 1-3 as tall as they are without the
    question, which waits under it and comes back once the hint is read; a card elsewhere
    leaves the question in sight."""
    from companion.outputs.screen.table_layout import table_layout
    names = ["Ana", "Maximiliano", "Chloe", "Ben"][:players]
    loop, app = make_app(size=size, lines=[json.dumps(
        {"do": "setup", "edition": "original", "players": names, "expansion": "cake_time"})])
    assert has_widget(app, "ban.cake.bg")           # the deal's question
    app.teaching.set_enabled(True)
    game = app.table.game
    spots = 0
    for k, panel in enumerate(table_layout(size, players).others):
        seat = (game.active + 1 + k) % players
        for key in ABOUT_A_PLAYER:
            app.teaching.queue = [hint_about(game.players[seat].name, key)]
            where = (players, k, key)
            box = assert_whole_and_in_sight(app, [seat], where)
            assert not box.rect.colliderect(panel), where
            question = [w for w in app.screen._widgets if w.name.startswith("ban.cake.")]
            if box.rect == app.screen.hint_spot:
                spots += 1
                assert question == [], where            # it waits under the card
            else:
                assert question and not any(box.rect.colliderect(w.rect) for w in question)
        app.teaching.next()                                       # "Got it"
        assert has_widget(app, "ban.cake.bg"), (players, k)     # asked again
    assert spots or players == 3, "the two-player (middle of four) hint lies over 1-3"


def card_buttons(app):
    """The hint card's "Stop teaching" and "Got it" as drawn (a whole repaint): each
    widget, and the words drawn in it (by owner)."""
    from companion.outputs.screen import widgets
    app.screen.changed()
    app.screen.invalidate()
    with widgets.record_text() as records:
        app.screen.draw(app.surface)
    by_name = {w.name: w for w in app.screen._widgets}
    words = collections.defaultdict(list)
    for r in records:
        words[r.owner].append(r)
    return by_name, words


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", [(800, 480), (1024, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_card_over_the_cake_question_says_the_question_waits(size, lang):
    """Two players, Cake Time: a hint about the other player lies over positions 1-3 and
    the deal's "Cake on the deck's back?" waits under it. Every card while it waits says
    so: its "Got it" in the question's pink with its cake, "Next" while another hint comes
    first, then "Next: cake?" (whose tap brings the question back), the words at the body
    size in every language, "Stop teaching" whole beside it; a card with nothing under it
    keeps its plain "Got it"."""
    from companion.outputs.screen import theme
    text.set_language(lang)
    loop, app = make_app(size=size, lang=lang, lines=[json.dumps(
        {"do": "setup", "edition": "original", "players": ["Ana", "Maximiliano"],
         "expansion": "cake_time"})])
    app.teaching.set_enabled(True)
    m = app.screen.m
    other = app.table.game.players[(app.table.game.active + 1) % 2].name
    app.teaching.queue = [hint_about(other, "flow_of_time"), hint_about(other, "dislike")]
    words = locale(lang)["teach"]
    for expected in (words["next"], words["then_cake"]):
        ws, drawn = card_buttons(app)
        assert ws["teach.box"].rect == app.screen.hint_spot
        assert app.screen.waiting_under_hint == "cake"
        assert not any(n.startswith("ban.cake.") for n in ws)         # it waits under it
        ok, stop = ws["teach.ok"], ws["teach.stop"]
        assert ok.color == theme.CAKE_PINK and "teach.waits.icon" in ws
        assert ok.rect.contains(ws["teach.waits.icon"].rect)
        assert ok.rect.contains(ws["teach.waits"].rect)
        said = drawn["teach.waits"]
        assert [r.text for r in said] == [expected] and said[0].size >= m.body, said
        assert ok.rect.contains(said[0].rect)
        assert min(stop.rect.size) >= 48 and ok.rect.w > stop.rect.w
        stop_words = drawn["teach.stop"]
        assert " ".join(r.text for r in stop_words).split() == words["stop"].split()
        assert min(r.size for r in stop_words) >= m.small
        assert all(stop.rect.contains(r.rect) for r in stop_words)
        touch(app, "teach.ok")
    assert app.teaching.current is None
    assert has_widget(app, "ban.cake.bg")                         # asked again
    assert app.screen.waiting_under_hint is None
    # a card with nothing under it (the question answered): its plain "Got it"
    touch(app, "ban.cake.done")
    app.teaching.queue = [hint_about(other, "flow_of_time")]
    ws, drawn = card_buttons(app)
    assert ws["teach.box"].rect == app.screen.hint_spot
    assert ws["teach.ok"].color == theme.PRIMARY and "teach.waits" not in ws
    assert [r.text for r in drawn["teach.ok"]] == [words["ok"]]


def two_player_draw_under_a_hint(size=(800, 480), lang="en"):
    """Two players, Ana ends her first turn: the 2-player draw ("Ana draws 1") waits, and
    teaching brings its hints about Ana, over Ben's positions 1-3 and the line under them
    (where the draw prompt is); the app and what it said."""
    text.set_language(lang)
    loop, app = make_app(size=size, lang=lang, lines=[json.dumps(
        {"do": "setup", "edition": "original", "players": ["Ana", "Ben"], "start": "Ana"})])
    said: list = []
    app.speak = lambda words, lang: said.append((words, lang))
    app.teaching.set_enabled(True)
    app.teaching.teacher.taught |= {"goal", "turn", "button", "upgrade", "spend"}
    touch(app, "ft.end")
    assert app.draws.pending is not None and app.screen.pending is not None
    return app, said


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", [(800, 480), (1024, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_card_over_the_draw_prompt_says_who_draws_waits(size, lang):
    """The draw prompt ("Ana draws 1" and its "+1") is the line under positions 1-3: a hint
    card lying there hid it without a sign. Every card while it waits says so as it does
    for the cake question: "Got it" in the prompt's yellow with a card to draw, "Next"
    while another hint comes first, then "Next: draws" at the body size, whose tap
    brings the prompt back; the card leaves Ana's panel (and her "+1") in sight."""
    from companion.outputs.screen import theme
    app, _ = two_player_draw_under_a_hint(size, lang)
    keys = [h.key for h in app.teaching.queue]
    assert keys[-1] == "two_player_draw" and len(keys) >= 2, keys
    words = locale(lang)["teach"]
    m = app.screen.m
    while app.teaching.current is not None:
        last = len(app.teaching.queue) == 1
        ws, drawn = card_buttons(app)
        assert ws["teach.box"].rect == app.screen.hint_spot
        assert app.screen.waiting_under_hint == "draws"
        assert "ban.draw.who" not in ws and "draw.act" not in ws     # under the card
        ok, stop = ws["teach.ok"], ws["teach.stop"]
        assert ok.color == theme.WARNING and ok.rect.contains(ws["teach.waits.icon"].rect)
        said = drawn["teach.waits"]
        assert [r.text for r in said] == [words["then_draws" if last else "next"]], said
        assert said[0].size >= m.body and ok.rect.contains(said[0].rect)
        assert min(stop.rect.size) >= 48 and ok.rect.w > stop.rect.w
        touch(app, "teach.ok")
    assert has_widget(app, "ban.draw.who")                          # the prompt is back
    assert app.screen.waiting_under_hint is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_voice_ends_the_last_hint_with_what_waits_under_it(lang):
    """The voice read only the hint: the card's button says the draw prompt (or the cake
    question) waits, so the last hint before it ends with the button's own words ("...
    Next: draws"), in the screen's language; the hints before it, whose button says
    "Next", and a card with nothing under it are said as they read."""
    app, said = two_player_draw_under_a_hint(lang=lang)
    words = locale(lang)["teach"]
    first = app.teaching.current
    assert said == [(app.teaching.text(first), lang)]     # another hint comes first
    while len(app.teaching.queue) > 1:
        touch(app, "teach.ok")
    last = app.teaching.current
    hint_words = app.teaching.text(last)
    spoken, spoken_lang = said[-1]
    assert spoken_lang == lang and spoken.startswith(hint_words.rstrip())
    assert spoken.endswith(" " + words["then_draws"]), spoken
    touch(app, "teach.ok")
    # Cake Time's question under the card: "... Next: cake?"
    loop, app = make_app(lang=lang, lines=[json.dumps(
        {"do": "setup", "edition": "original", "players": ["Ana", "Maximiliano"],
         "expansion": "cake_time"})])
    said.clear()
    app.speak = lambda words, lang: said.append((words, lang))
    app.teaching.set_enabled(True)
    other = app.table.game.players[(app.table.game.active + 1) % 2].name
    app.teaching.queue = [hint_about(other, "flow_of_time")]
    assert app.teaching.spoken(app.teaching.current).endswith(" " + words["then_cake"])
    touch(app, "teach.ok")
    touch(app, "ban.cake.done")                   # the question answered: nothing waits
    app.teaching.queue = [hint_about(other, "flow_of_time")]
    card_buttons(app)
    assert app.teaching.spoken(app.teaching.current) == app.teaching.text(
        app.teaching.current)


def test_the_voice_says_the_whole_sentence_with_espeak(tmp_path):
    """The same through the real voice (espeak-ng renders it, as the service wires it)."""
    import shutil
    from companion.outputs.voice import Voice
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    played: list = []
    voice = Voice(played.append, language="ko").start()
    try:
        app, _ = two_player_draw_under_a_hint(lang="ko")
        app.speak = voice.say
        while len(app.teaching.queue) > 1:
            touch(app, "teach.ok")
        assert voice.wait_spoken(1)
        assert voice.spoken[-1].endswith(" " + locale("ko")["teach"]["then_draws"])
        assert played and played[-1][:4] == b"RIFF"
    finally:
        voice.stop()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("cake", [False, True], ids=["original", "cake_time"])
def test_an_order_surge_hint_leaves_every_player_it_names_in_sight(size, players, cake):
    """"Ana completed 2, so Ben and Chloe each draw 2": the surge comes as the turn passes
    to Ben, the first who draws. The card once took the side column over Chloe's and Ana's
    panels. With three players every panel is named, with four the one left is a middle
    panel too short for the words (282 x 106 px at 800x480): the card lies over Ben's
    positions 1-3, every other named panel, whose turn it is, position 4, the counts and
    END TURN in sight. A surge that names one other player leaves the card beside them."""
    from companion.outputs.screen.table_layout import table_layout
    names = ["Ana", "Ben", "Chloe", "Dae"][:players]
    setup = {"do": "setup", "edition": "original", "players": names, "start": "Ana"}
    loop, app = make_app(size=size, lines=[json.dumps(
        setup | ({"expansion": "cake_time"} if cake else {}))])
    app.teaching.set_enabled(True)
    loop.post(ev.TouchAction({"do": "end_turn"}))   # Ben's turn: the surge names him
    loop.drain()                                      # among others
    app.process_updates()
    game = app.table.game
    assert game.players[game.active].name == "Ben"
    lay = table_layout(size, players)
    for drawers, count in ((("Ben", "Chloe"), 2), (("Ben",), 1)):
        app.teaching.queue = [teaching.Hint("order_surge", (
            ("count", count), ("drawers", drawers), ("edition", "original"),
            ("player", "Ana")))]
        named = [game.seat_of(n) for n in ("Ana", *drawers) if n != "Ben"]
        where = (players, drawers)
        box = assert_whole_and_in_sight(app, named, where)
        for seat in named:
            assert not box.rect.colliderect(lay.others[(seat - game.active - 1) % players])
        if len(drawers) == 2:
            assert box.rect == app.screen.hint_spot, where       # no room elsewhere
            assert not has_widget(app, "ban.cake.bg")
        else:
            assert box.rect != app.screen.hint_spot, where       # beside Ana's panel


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", [(800, 480), (1024, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_hint_about_another_player_is_whole_at_the_body_size_in_every_language(size, lang):
    """At 800x480 and 1024x600, for each player count and each other player (a long
    name): the words whole at the body size or more (22 px at 800x480), that player's
    panel in sight."""
    from companion.outputs.screen.table_layout import table_layout
    for players in (2, 3, 4):
        names = ["Ana", "Maximiliano", "Chloe", "Ben"][:players]
        loop, app = make_app(size=size, lang=lang, lines=[json.dumps(
            {"do": "setup", "edition": "original", "players": names})])
        app.teaching.set_enabled(True)
        game = app.table.game
        for k, panel in enumerate(table_layout(size, players).others):
            seat = (game.active + 1 + k) % players
            for key in ABOUT_A_PLAYER:
                app.teaching.queue = [hint_about(game.players[seat].name, key)]
                box, words, _ = shown_hint(app)
                where = (lang, players, k, key)
                assert not box.rect.colliderect(panel), where
                assert words and min(r.size for r in words) >= app.screen.m.body, where
                assert " ".join(r.text for r in words).split() == \
                    app.teaching.text(app.teaching.current).split(), where


def test_a_table_without_seat_buttons_is_not_taught_them(tmp_path):
    from companion.appliance.config import defaults
    loop, app = make_app()
    app.config = defaults()
    app.config.values["journal"]["path"] = str(tmp_path / "journal.db")
    app.config.values["seats"]["driver"] = "none"
    start_by_touch(app, True, 3)
    assert [h.key for h in app.teaching.queue] == ["goal", "turn"]
    assert "button" in app.teaching.teacher.taught     # its moment has passed all the same


def test_the_next_game_of_the_evening_teaches_only_what_the_table_has_not_read():
    """A taught rematch taught everything again from the goal (hints count once a game).
    The table's next game skips the hints it read in its earlier games ("Got it"), while
    those it never read still come at their moment (one put away unread by an action
    too); "First game: teach us" where no game runs (a new table) teaches afresh. It is
    the screen's memory: nothing is journaled, the game's lines are the same."""
    loop, app = make_app()
    start_by_touch(app, True, 3)
    first_lines = list(loop.session.lines)
    assert [h.key for h in app.teaching.queue] == ["goal", "turn", "button"]
    while app.teaching.current is not None:
        touch(app, "teach.ok")                     # read, each of them
    touch(app, "act.pos1")                         # an order completed: its hint comes...
    assert app.teaching.current.key == "order_completed"
    touch(app, "ft.end")                           # ...and goes unread with the turn
    assert app.teaching.read == {"goal", "turn", "button"}
    touch(app, "hdr.settings")                     # the next game of the evening
    touch(app, "set.new_game")
    touch(app, "dlg.ok")
    assert app.is_open("wizard") and widget(app, "wz.edition.original")
    while has_widget(app, "wz.next"):               # as the wizard offers it
        if has_widget(app, "wz.start.0"):
            touch(app, "wz.start.0")
        touch(app, "wz.next")
    assert app.table.game.turn == 1 and settings_for(app).teaching
    assert app.teaching.current is None            # no goal, turn, button again
    touch(app, "act.pos1")
    assert app.teaching.current.key == "order_completed"               # never read: comes
    lines = [json.loads(ln) for ln in loop.session.lines]     # journaled as ever
    assert [ln["do"] for ln in lines] == ["setup", "complete"]
    assert lines[0]["players"] == json.loads(first_lines[0])["players"]
    # a new table asks to be taught: "First game: teach us" where no game runs
    touch(app, "hdr.settings")
    touch(app, "set.end_game")
    touch(app, "dlg.ok")
    start_by_touch(app, True, 3)
    assert [h.key for h in app.teaching.queue] == ["goal", "turn", "button"]


def test_the_teacher_counts_what_was_read_before_as_taught_from_a_new_game_on():
    """Pure: ``Teacher.carried`` are taught from the next game's start, the rest comes;
    the journal's replay of a game knows nothing of it (the screen's memory)."""
    setup = {"do": "setup", "edition": "original", "players": ["Ana", "Ben"], "start": "Ana"}
    from companion.core.rules import Table
    outcome = apply(Table(), setup)
    assert isinstance(outcome, Accepted)
    teacher = teaching.Teacher(taught={"goal", "cake"}, carried=frozenset({"goal", "turn"}))
    hints = [h.key for h in teacher.observe(outcome.happened, outcome.table)]
    assert hints == ["button"] and teacher.taught == {"goal", "turn", "button"}
    replayed = teaching.Teacher.replay([json.dumps(setup)])
    assert {"goal", "turn", "button"} <= replayed.taught and not replayed.carried
