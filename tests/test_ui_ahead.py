"""Painting ahead while the table is idle (issue 19: tap -> frame on a Pi Zero 2 W).

Between inputs the screen paints the frame END TURN would show (the engine's answer, nothing
applied) and keeps a veiled copy of itself for a dialog. A tap whose frame was painted ahead
copies those pixels and paints again only what the prediction got wrong; a dialog opens on
the veiled copy. Every frame must still be the frame a whole repaint draws, however much of
the work ahead was done when the tap came, and the App must look for input between steps.
"""
from __future__ import annotations

import random
from types import SimpleNamespace

import pygame
import pytest

from companion.outputs.screen.screenshots import sample_script
from ui_touch import make_app


def _whole_repaint(app) -> bytes:
    whole = pygame.Surface(app.size)
    whole.fill(app.screen.background)
    for w in app.screen.widgets():
        w.draw(whole)
    return pygame.image.tostring(whole, "RGB")


def _same_as_a_whole_repaint(app) -> None:
    """Pixel for pixel but for the odd one: pygame draws a rounded outline under a clip a
    pixel differently at the clip's edge (at most one pixel in a thousand)."""
    shown, drawn = pygame.image.tostring(app.surface, "RGB"), _whole_repaint(app)
    row, differ = app.size[0] * 3, 0
    for start in range(0, len(drawn) if shown != drawn else 0, row):     # odd rows only
        a, b = shown[start:start + row], drawn[start:start + row]
        if a != b:
            differ += sum(1 for i in range(0, row, 3) if a[i:i + 3] != b[i:i + 3])
    assert differ <= len(drawn) // 3 // 1000, (type(app.screen).__name__, differ)


def _finger(app, w, kind) -> None:
    x, y = w.rect.center
    app.handle(pygame.event.Event(kind, x=x / app.size[0], y=y / app.size[1], dx=0.0, dy=0.0,
                                  touch_id=1, finger_id=0, pressure=1.0))


def _app_with_no_events():
    """A game on screen, drawn, and pygame's event queue empty (the App waits on it)."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    pygame.display.init()
    pygame.event.clear()
    return loop, app


def _work_ahead(app, rng) -> int:
    """Some or all of the work ahead (a tap may come at any step)."""
    steps = 0
    limit = rng.choice([0, 1, 3, 10, 10_000, 10_000])
    while steps < limit and app.work_ahead():
        steps += 1
    return steps


@pytest.mark.parametrize("script,size", [("sample_game.jsonl", (800, 480)),
                                         ("sample_cake_game.jsonl", (1280, 720))])
def test_frames_drawn_from_what_was_painted_ahead_are_whole_repaints(script, size):
    loop, app = make_app(size, lines=sample_script(script))
    rng = random.Random(19)
    app.pump()
    steps = 0
    for _ in range(40):
        steps += _work_ahead(app, rng)
        assert not app.screen._ahead_failed    # (it is said in the log and given up)
        _same_as_a_whole_repaint(app)          # painting ahead never touches the screen
        choices = [w for w in app.screen._widgets if w.tappable and w.name != "hdr.settings"]
        ends = [w for w in choices if w.name == "ft.end"]
        if not choices:
            break
        w = ends[0] if ends and rng.random() < 0.3 else rng.choice(choices)
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
            _finger(app, w, kind)
            app.pump()
            _same_as_a_whole_repaint(app)
        loop.drain()
        app.pump()
        _same_as_a_whole_repaint(app)
    screen = app.stack[0]
    assert steps > 0 and screen.drawn_from_ahead > 0, (steps, screen.drawn_from_ahead)


def test_end_turn_is_drawn_from_the_frame_painted_ahead():
    """The predicted frame is the frame END TURN shows: copied, with nothing to paint
    again (the engine's answer, taken in as the loop's update is)."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    app.screen._dismiss_draws()
    loop.drain()
    app.pump()
    while app.work_ahead():
        pass
    _end_turn_copied_from_ahead(loop, app)


def _end_turn_copied_from_ahead(loop, app) -> None:
    """A tap on END TURN: its frame is drawn from the one painted ahead, nothing painted
    again, and it is the frame a whole repaint draws."""
    screen = app.screen
    repaints: list = []
    repaint = screen._repaint
    screen._repaint = lambda surface, ws, dirty: repaints.append(dirty) or repaint(
        surface, ws, dirty)
    end = next(w for w in screen._widgets if w.name == "ft.end")
    turn, drawn = app.table.game.turn, screen.drawn_from_ahead
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, end, kind)
        app.pump()
    repaints.clear()
    loop.drain()
    app.pump()
    assert app.table.game.turn == turn + 1
    assert screen.drawn_from_ahead == drawn + 1
    assert repaints == [], repaints              # nothing predicted wrong
    _same_as_a_whole_repaint(app)


def test_a_dialog_opens_on_the_veiled_copy_and_closes_as_it_was():
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    screen = app.screen
    for close in ("dlg.cancel", "dlg.up."):
        while app.work_ahead():
            pass
        upgrade = next(w for w in screen._widgets if w.name == "ft.upgrade")
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):   # (the pressed look is veiled
            _finger(app, upgrade, kind)                    #  again from the copy unveiled)
            app.pump()
        loop.drain()
        app.pump()
        assert screen.dialog == "upgrade" and screen.veiled_from_ahead >= 1
        _same_as_a_whole_repaint(app)
        while app.work_ahead():                # (nothing to veil while veiled)
            pass
        target = next(w for w in screen._widgets if w.name.startswith(close))
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
            _finger(app, target, kind)
            app.pump()
        loop.drain()
        app.pump()
        assert screen.dialog is None
        _same_as_a_whole_repaint(app)
    assert screen.veiled_from_ahead == 2


def _tap(app, loop, w, answered=None) -> None:
    """A tap on ``w`` and the loop's answer (``answered`` called between them)."""
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, w, kind)
        app.pump()
    if answered is not None:
        answered()
    loop.drain()
    app.pump()


def test_an_upgrade_chosen_in_its_dialog_is_drawn_from_the_frame_painted_ahead():
    """While UPGRADE's dialog is open, the frame each offered upgrade shows is painted
    ahead: the tap on a tile copies it whole as the dialog goes, nothing predicted wrong
    is painted again, and it is the frame a whole repaint draws. Closed without an
    answer, the dialog leaves the screen as it was (the copy kept under it)."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    screen = app.screen
    repaints: list = []
    repaint = screen._repaint
    screen._repaint = lambda surface, ws, dirty: repaints.append(dirty) or repaint(
        surface, ws, dirty)
    for answer in (False, True):
        while app.work_ahead():
            pass
        _tap(app, loop, next(w for w in screen._widgets if w.name == "ft.upgrade"))
        assert screen.dialog == "upgrade"
        while app.work_ahead():
            pass
        target = next(w for w in screen._widgets
                      if w.name.startswith("dlg.up." if answer else "dlg.cancel"))
        table, drawn = app.table, screen.drawn_from_ahead
        _tap(app, loop, target, repaints.clear)     # (what the dialog's answer repaints)
        assert screen.dialog is None and (app.table is not table) == answer
        assert screen.drawn_from_ahead == drawn + answer
        assert all(not dirty for dirty in repaints), repaints     # nothing predicted wrong
        _same_as_a_whole_repaint(app)


def _final_round(app) -> None:
    """The shop closes (a player's fifth dislike) and its message goes: the final round's
    two lines take turns in the top bar."""
    from companion.core.events import TouchAction
    game = app.table.game
    other = game.players[(game.active + 1) % len(game.players)].name
    app.loop.post(TouchAction({"do": "correct", "player": other, "dislikes": 5}))
    app.loop.drain()
    app.pump()
    app.clock.now += 10
    app.tick()
    app.pump()
    assert app.table.game.token == "closed"


def _final_words(app) -> str:
    return next(w.text for w in app.screen._widgets if w.name == "hdr.final")


def test_the_final_round_s_lines_hold_still_under_a_dialog():
    """Nothing moves under a dialog's shade: the final round's two lines stop taking turns
    while UPGRADE's dialog is open (no deadline for it), and take turns again once it
    closes."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    screen = app.screen
    _final_round(app)
    first = _final_words(app)
    app.clock.now += 3
    app.tick()
    app.pump()
    assert _final_words(app) != first                     # (they take turns)
    shown = _final_words(app)
    _tap(app, loop, next(w for w in screen._widgets if w.name == "ft.upgrade"))
    assert screen.dialog == "upgrade" and screen.next_deadline() is None
    for _ in range(3):
        app.clock.now += 3
        app.tick()
        app.pump()
        assert _final_words(app) == shown
    _tap(app, loop, next(w for w in screen._widgets if w.name == "dlg.cancel"))
    assert screen.dialog is None and screen.next_deadline() is not None
    shown = _final_words(app)
    app.clock.now += 3
    app.tick()
    app.pump()
    assert _final_words(app) != shown
    _same_as_a_whole_repaint(app)


def test_the_frame_once_the_deadlines_pass_is_painted_ahead(monkeypatch):
    """While idle, the frame the table shows once its deadlines pass is built and what it
    changes painted aside: the other final-round line's text is rendered ahead, and a
    completed order's card without its mark too; the deadlines' frames then render no text
    and paint no order card, and are what a whole repaint draws."""
    from companion.outputs.screen import widgets
    widgets.reset_fonts()               # (no text or look left by another test)
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    screen = app.screen
    _final_round(app)
    slot = next(w for w in screen._widgets if w.name.startswith("act.pos") and w.tappable)
    _tap(app, loop, slot)
    assert any(getattr(w, "highlight", False) for w in screen._widgets)
    while app.work_ahead():
        pass
    rendered: list[str] = []
    font = widgets.font
    monkeypatch.setattr(widgets, "font", lambda *a, **k: rendered.append(a) or font(*a, **k))
    painted: list[str] = []
    draw = type(slot).draw
    monkeypatch.setattr(type(slot), "draw",
                        lambda w, surface: painted.append(w.name) or draw(w, surface))
    shown = _final_words(app)
    app.clock.now = max(screen.TAKEN_SECONDS, 3.0) + app.clock.now   # (both deadlines)
    app.tick()
    app.pump()
    assert _final_words(app) != shown
    assert not any(getattr(w, "highlight", False) for w in screen._widgets)
    assert rendered == [] and painted == [], (rendered, painted)
    _same_as_a_whole_repaint(app)


def test_the_app_looks_for_input_between_steps_painted_ahead(monkeypatch):
    """``wait_events`` paints ahead only while nothing waits: an input that comes during
    the work is taken after the step in hand, not after all of it."""
    loop, app = _app_with_no_events()
    steps: list[int] = []
    work = app.screen.work_ahead
    landed: list[bool] = []

    def step(surface) -> bool:
        steps.append(1)
        if len(steps) == 3 and not landed:     # a finger lands during the third step
            landed.append(True)
            pygame.event.post(pygame.event.Event(pygame.FINGERDOWN, x=0.5, y=0.5, dx=0.0,
                                                 dy=0.0, touch_id=1, finger_id=0,
                                                 pressure=1.0))
        more = work(surface)
        if not more:                # all done: something to wake the wait at once
            pygame.event.post(pygame.event.Event(pygame.USEREVENT))
        return more

    monkeypatch.setattr(app.screen, "work_ahead", step)
    events = app.wait_events(timeout_ms=5000)
    assert [e.type for e in events] == [pygame.FINGERDOWN] and len(steps) == 3
    steps.clear()
    events = app.wait_events(timeout_ms=5000)    # nothing comes: all the work, then the wait
    assert [e.type for e in events] == [pygame.USEREVENT] and len(steps) > 3
    assert not work(app.surface)                 # nothing left until the next draw


def test_the_end_screen_is_painted_ahead_before_the_end_turn_that_ends_the_game():
    """When END TURN would end the game, the end screen is built and painted ahead: the
    App opens that one, drawn by copying."""
    lines = sample_script("sample_finished_game.jsonl")[:-1]     # before the last END TURN
    loop, app = make_app((800, 480), lines=lines)
    app.pump()
    while app.work_ahead():
        pass
    end = app.ahead_screens["end"]
    table_view = app.screen
    w = next(w for w in table_view._widgets if w.name == "ft.end")
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, w, kind)
        app.pump()
    loop.drain()
    app.pump()
    assert app.table.game.game_over and app.screen is end and end.drawn_from_ahead == 1
    assert app.ahead_screens == {}
    _same_as_a_whole_repaint(app)


def test_painting_ahead_that_fails_never_costs_the_screen(monkeypatch, caplog):
    """A failure while painting ahead (here: the prediction) is said once in the log; the
    screen then draws every frame itself, as a whole repaint would."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    screen = app.screen

    def broken():
        raise RuntimeError("a prediction that fails")
        yield

    monkeypatch.setattr(screen, "predictions", broken)
    rng = random.Random(3)
    with caplog.at_level("ERROR", logger="companion.outputs.screen"):
        for _ in range(6):
            while app.work_ahead():
                pass
            w = next(w for w in screen._widgets if w.name == "ft.end") if rng.random() < 0.5 \
                else rng.choice([w for w in screen._widgets if w.tappable
                                 and w.name not in ("hdr.settings", "ft.fix")])
            for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
                _finger(app, w, kind)
                app.pump()
            loop.drain()
            app.pump()
            _same_as_a_whole_repaint(app)
    said = [r for r in caplog.records if "painting ahead failed" in r.getMessage()]
    assert len(said) == 1 and screen.drawn_from_ahead == 0


def test_a_tap_on_an_order_copies_the_looks_painted_ahead_for_it():
    """While idle the frame completing each of the active player's orders is built and
    what it changes painted aside: the tap copies those widgets (nothing of the active
    panel painted again), and its frame is what a whole repaint draws."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    app.screen._dismiss_draws()
    loop.drain()
    app.pump()
    screen = app.screen
    slot = next(w for w in screen._widgets if w.name.startswith("act.pos") and w.tappable)
    while app.work_ahead():
        pass
    painted: list[str] = []
    draw = type(slot).draw
    try:
        type(slot).draw = lambda w, surface: painted.append(w.name) or draw(w, surface)
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
            _finger(app, slot, kind)
            app.pump()
        painted.clear()
        before = app.table
        loop.drain()
        app.pump()
    finally:
        type(slot).draw = draw
    assert app.table is not before and slot.name not in painted, painted
    _same_as_a_whole_repaint(app)


def test_the_mark_on_a_completed_order_goes_without_a_rebuild():
    """Two seconds after a completion its card's mark goes: that card alone is drawn
    again (the screen is not built again), and the frame is what a whole repaint draws."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    screen = app.screen
    slot = next(w for w in screen._widgets if w.name.startswith("act.pos") and w.tappable)
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, slot, kind)
        app.pump()
    loop.drain()
    app.pump()
    marked = next(w for w in screen._widgets if getattr(w, "highlight", False))
    _same_as_a_whole_repaint(app)
    builds = []
    build = screen.build
    screen.build = lambda: builds.append(1) or build()
    app.clock.now += screen.TAKEN_SECONDS
    app.tick()
    rects = app.draw()
    assert builds == [] and rects == [marked.rect]
    assert not any(getattr(w, "highlight", False) for w in screen._widgets)
    _same_as_a_whole_repaint(app)


def test_nothing_is_painted_ahead_while_the_loop_answers_a_tap(monkeypatch):
    """A tap posts to the table loop: until its update comes the App paints nothing ahead
    (the loop's thread needs the interpreter to answer; a step ahead would hold it), then
    it paints ahead again."""
    loop, app = _app_with_no_events()
    steps: list[int] = []
    work = app.screen.work_ahead
    monkeypatch.setattr(app.screen, "work_ahead", lambda surface: steps.append(1) or work(surface))
    waits: list[int] = []

    def wait(timeout=None) -> bool:       # the App sleeps: something comes at once instead
        waits.append(1)
        pygame.event.post(pygame.event.Event(pygame.USEREVENT))
        return True

    monkeypatch.setattr(app._wake, "wait", wait)
    end = next(w for w in app.screen._widgets if w.name == "ft.end")
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, end, kind)
    app.draw()
    assert app.awaiting_answer
    app.wait_events(timeout_ms=60_000)
    assert steps == [] and waits == [1]
    loop.drain()
    app.process_updates()
    assert not app.awaiting_answer
    app.draw()
    pygame.event.clear()                  # (the update's wake-up, taken)
    app.wait_events(timeout_ms=60_000)
    assert steps and waits == [1, 1]


def test_the_cake_question_of_a_position_is_painted_ahead():
    """Cake Time: a touch on a position holding orders with and without a cake asks which
    one; that question is painted ahead with UPGRADE's and SPEND's dialogs, so opening it
    copies its looks, and the frame is still a whole repaint's."""
    from companion.outputs.screen import widgets
    lines = sample_script("sample_cake_game.jsonl") + ['{"do": "cake", "player": "Ben"}']
    loop, app = make_app((1280, 720), lines=lines)
    app.pump()
    screen = app.screen
    done = next(w for w in screen._widgets if w.name == "ban.cake.done")   # (over position 1)
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, done, kind)
        app.pump()
    widgets._looks.clear()
    while app.work_ahead():
        pass
    copied = widgets._looks.copied
    position = next(w for w in screen._widgets if w.name == "act.pos1")
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        _finger(app, position, kind)
        app.pump()
    assert screen.dialog == "cake_choice" and screen.veiled_from_ahead == 1
    assert widgets._looks.copied - copied >= 5      # its title, words and three buttons
    _same_as_a_whole_repaint(app)


def _idle_then_record_repaints(app) -> list:
    """The table idle until nothing is left to paint ahead; then every rectangle list the
    screen repaints is recorded (the list returned)."""
    while app.work_ahead():
        pass
    repaints: list = []
    screen, repaint = app.screen, app.screen._repaint
    screen._repaint = lambda surface, ws, dirty: repaints.append(dirty) or repaint(
        surface, ws, dirty)
    return repaints


def test_the_band_under_the_cake_question_is_painted_ahead_and_copied_when_it_goes():
    """Cake Time: the cake question takes a band at the active panel's foot (it once covered
    a band across the panels: the draw prompt, the counts, the lowest side panel); the band
    as the table shows it once the question goes is painted ahead and copied in the frame it
    goes in. The active panel's cards take their room back then: they are painted again."""
    lines = sample_script("sample_cake_game.jsonl") + ['{"do": "cake", "player": "Ben"}']
    loop, app = make_app((1280, 720), lines=lines)
    app.pump()
    screen = app.screen
    done = next(w for w in screen._widgets if w.name == "ban.cake.done")
    band = next(w.rect for w in screen._widgets if w.name == "ban.cake.bg")
    repaints = _idle_then_record_repaints(app)
    _finger(app, done, pygame.FINGERDOWN)
    app.pump()
    repaints.clear()
    _finger(app, done, pygame.FINGERUP)
    app.pump()
    assert not any(w.name.startswith("ban.cake") for w in screen._widgets)
    assert screen.uncovered_from_ahead == 1
    active = next(w.rect for w in screen._widgets if w.name == "act.bg")
    assert active.contains(band) and repaints
    _same_as_a_whole_repaint(app)


def test_a_finger_lifting_copies_back_the_look_it_pressed_away():
    """A finger going down keeps the look the widget shows (when the kept looks lack it):
    lifting copies it back instead of painting it, and the screen is a whole repaint."""
    from companion.outputs.screen import widgets
    loop, app = make_app((1280, 800), lines=sample_script("sample_game.jsonl"))
    app.pump()
    app.screen._dismiss_draws()
    loop.drain()
    app.pump()
    widgets.looks().clear()                   # (the looks painted so far pushed out)
    end = next(w for w in app.screen._widgets if w.name == "ft.end")
    end.on_tap = lambda: None                 # (the released look alone: no END TURN)
    painted: list[tuple[str, bool]] = []
    draw = type(end).draw
    try:
        type(end).draw = lambda w, surface: (surface is app.surface and painted.append(
            (w.name, w.pressed))) or draw(w, surface)
        _finger(app, end, pygame.FINGERDOWN)
        app.pump()
        _same_as_a_whole_repaint(app)
        _finger(app, end, pygame.FINGERUP)
        app.pump()
    finally:
        type(end).draw = draw
    assert painted == [("ft.end", True)], painted
    _same_as_a_whole_repaint(app)


def test_a_finger_lifting_copies_back_every_look_a_finger_may_press(monkeypatch):
    """The table idle keeps the looks of the widgets a finger may press, as they show (and
    leaves them the most recently used): a finger lifting copies the look back instead of
    painting it. Cake Time: an order card with a cake on its position has the cake's mark
    over it, so its look cannot be copied off the screen when the finger goes down: it is
    painted aside while the table is idle."""
    from companion.outputs.screen import widgets
    loop, app = make_app((1280, 800), lines=sample_script("sample_cake_game.jsonl"))
    app.pump()
    screen = app.screen
    monkeypatch.setattr(screen, "uncovered_ahead", lambda: None)   # (no other work ahead
    for no_frames in ("predictions", "frames_warmed", "dialogs_ahead"):    # keeps a look
        monkeypatch.setattr(screen, no_frames, lambda: iter(()))           # by chance)
    monkeypatch.setattr(screen, "veils_ahead", False)
    widgets.looks().clear()
    screen.changed()
    app.pump()
    while app.work_ahead():
        pass
    pressable = [w.name for w in screen._widgets if w.shows_pressed and w.tappable]
    card = next(w for w in screen._widgets if w.name == "act.pos2")
    mark = next(w for w in screen._widgets if w.name == "act.pos2.cake")
    assert mark.extent.colliderect(card.rect)
    painted: list[str] = []
    draw = {type(w): type(w).draw for w in screen._widgets if w.name in pressable}
    tried = []
    try:
        for kind, was in draw.items():
            monkeypatch.setattr(kind, "draw", lambda w, surface, was=was: (
                surface is app.surface and painted.append(w.name)) or was(w, surface))
        for name in pressable:
            w = next(w for w in screen._widgets if w.name == name)     # (as built now)
            w.on_tap = lambda: None          # (the released look alone: nothing happens)
            # a point of it no widget over it takes (the cake question's band crosses cards)
            at = next((p for p in (w.rect.center, (w.rect.centerx, w.rect.y + 4))
                       if screen.widget_at(p) is w), None)
            if at is None:
                continue
            finger = SimpleNamespace(rect=pygame.Rect(at, (1, 1)))
            _finger(app, finger, pygame.FINGERDOWN)
            app.pump()
            assert screen._pressed == name
            painted.clear()
            _finger(app, finger, pygame.FINGERUP)
            app.pump()
            assert painted == [], (name, painted)
            tried.append(name)
    finally:
        for kind, was in draw.items():
            monkeypatch.setattr(kind, "draw", was)
    assert {"act.pos2", "ft.end", "ban.cake.done"} <= set(tried), tried
    _same_as_a_whole_repaint(app)


def test_undo_s_frame_is_painted_ahead_while_undo_is_offered():
    """While UNDO is offered, the frame it shows is among those painted ahead: the tap
    paints none of the active panel's cards again, and its frame is a whole repaint."""
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    app.screen._dismiss_draws()
    loop.drain()
    app.pump()
    assert app.table.undo is not None
    assert {"do": "undo"} in list(app.screen._likely_actions())
    while app.work_ahead():
        pass
    undo = next(w for w in app.screen._widgets if w.name == "ft.undo")
    painted: list[str] = []
    draw = widgets_draw = type(next(w for w in app.screen._widgets
                                    if w.name.startswith("act.pos"))).draw
    try:
        type(next(w for w in app.screen._widgets if w.name.startswith("act.pos"))).draw = \
            lambda w, surface: (surface is app.surface and painted.append(w.name)) \
            or widgets_draw(w, surface)
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
            _finger(app, undo, kind)
            app.pump()
        before = app.table
        loop.drain()
        app.pump()
    finally:
        type(next(w for w in app.screen._widgets if w.name.startswith("act.pos"))).draw = draw
    assert app.table is not before and painted == [], painted
    _same_as_a_whole_repaint(app)


@pytest.mark.parametrize("goes", ["tapped", "timed out"])
@pytest.mark.parametrize("over", ["order cards", "cake question"])
def test_the_band_under_a_toast_is_painted_ahead_and_copied_when_it_goes(over, goes):
    """A toast over the order cards: the band under it, as the table shows it once the toast
    goes, is painted ahead, so the frame the toast goes in (a finger on it, or its time up)
    copies the band and paints nothing there again. Cake Time: the toast keeps off the cake
    question too, so the band painted ahead is the toast's, as the table shows it with the
    question."""
    # asked near the active player's cards (or the cake question), a toast keeps off every
    # card, count and question: it lands in the top bar's room for a message
    name = "hdr.room"
    if over == "order cards":
        lines, near = sample_script("sample_game.jsonl"), "act.pos3"
    else:
        lines = sample_script("sample_cake_game.jsonl") + ['{"do": "cake", "player": "Ben"}']
        near = "ban.cake.bg"
    loop, app = make_app((1280, 800), lines=lines)
    app.pump()
    screen = app.screen
    anchor = next(w for w in screen._widgets if w.name == near)
    below = next(w for w in screen._widgets if w.name == name)
    screen.toast("a note", near=(anchor.rect.centerx, anchor.rect.top + 40))
    app.pump()
    toast = next(w for w in screen._widgets if w.name == "toast.0")
    band = toast.extent
    assert band.colliderect(below.rect)
    repaints = _idle_then_record_repaints(app)
    if goes == "tapped":
        _finger(app, toast, pygame.FINGERDOWN)
        app.pump()
        _finger(app, toast, pygame.FINGERUP)
    else:
        app.clock.now += 60
    app.pump()
    assert screen.toasts == [] and any(w.name == name for w in screen._widgets)
    assert screen.uncovered_from_ahead == 1
    assert [r for dirty in repaints for r in dirty if r.colliderect(band)] == [], repaints
    _same_as_a_whole_repaint(app)


def test_the_first_frame_makes_the_surfaces_the_work_ahead_paints_on():
    """The copy under a dialog, the veiled copy and the frames painted ahead are whole-screen
    surfaces, made once per size: by the first frame (the start-up), not in a step painted
    ahead, where clearing a whole screen's pixels took a step of its own over the budget at
    1280 x 800 (issue 38). The work ahead of a game's inputs makes none."""
    from companion.outputs.screen.screens import base

    stores = (base._UNDER, base._VEILED, *base._AHEAD)
    for store in stores:
        store.clear()
    loop, app = make_app((800, 480), lines=sample_script("sample_game.jsonl"))
    app.pump()
    made = [store.get(app.size) for store in stores]
    assert all(got is not None for got in made)
    surfaces = [got[0] for got in made]
    rng = random.Random(5)
    for _ in range(12):
        while app.work_ahead():
            pass
        choices = [w for w in app.screen._widgets if w.tappable and w.name != "hdr.settings"]
        if not choices:
            break
        w = rng.choice(choices)
        _finger(app, w, pygame.FINGERDOWN)
        _finger(app, w, pygame.FINGERUP)
        loop.drain()
        app.pump()
        assert [store[app.size][0] for store in stores] == surfaces


def test_a_scan_copies_the_order_slots_painted_ahead_for_it():
    """While a card waits for the scanner, the frame the next scan shows is painted ahead
    with a stand-in card of the catalog (issue 38). A scan that names a panel's last
    unknown card ends its scan prompt or draw badge, and the panel's order slots change
    size: its frame copies their looks and paints only the slot whose card became known.
    A whole game of the demo's bots, every step painted ahead before each input."""
    from companion.core import events as ev
    from companion.outputs.screen.widgets import OrderCard

    loop, app = make_app((800, 480))
    painted: list[str] = []
    per_scan: list[list[str]] = []

    def scanned(event) -> None:
        if isinstance(event, ev.CardScanned):
            per_scan.append(list(painted))
    draw = OrderCard.draw
    OrderCard.draw = lambda w, surface: painted.append(w.name) or draw(w, surface)
    try:                                  # (on the screen, or aside for a band of it)
        _bots_game_painted_ahead(loop, app, 1, painted.clear, scanned)
    finally:
        OrderCard.draw = draw
    assert len(per_scan) >= 10
    assert all(len(names) <= 1 for names in per_scan), [n for n in per_scan if len(n) > 1]


def test_a_scan_the_draw_prompt_asks_for_is_drawn_from_the_frame_painted_ahead(monkeypatch):
    """While the draw prompt asks for the dealt cards to be scanned, the scan comes next: the
    frame painted ahead whole is the scan's, with a stand-in card, not END TURN's (issue 38).
    The scan that names a panel's last awaited card (its badge and the banner go, two panels'
    positions change size: the costliest scan) copies that frame and paints again only its
    own card. A whole game of the demo's bots, every step painted ahead before each input;
    a check that it can fail: with END TURN's frame always predicted, no such scan is drawn
    from the frame painted ahead."""
    from companion.core import events as ev
    from companion.outputs.screen.screens.base import Screen
    from companion.outputs.screen.screens.table_view import TableView

    def prompt_ending_scans(predict_scans: bool) -> list[tuple[bool, list[str]]]:
        if not predict_scans:
            monkeypatch.setattr(TableView, "_predicted_actions",
                                lambda self: [{"do": "end_turn"}])
        loop, app = make_app((800, 480))
        repainted: list[str] = []
        repaint = Screen._repaint
        monkeypatch.setattr(Screen, "_repaint", lambda screen, surface, ws, dirty: (
            repainted.extend(w.name for w in ws if w.extent.collidelist(dirty) >= 0),
            repaint(screen, surface, ws, dirty))[1])
        seen: dict = {"waiting": set(), "from_ahead": 0}
        ending: list[tuple[bool, list[str]]] = []

        def waiting() -> set[str]:      # the players whose prompt still asks for a card
            pending = app.table.game and app.draws.pending
            return {p.name for p in app.table.game.players
                    if pending.left_for(p)} if pending else set()

        def before() -> None:
            repainted.clear()
            seen["waiting"] = waiting()
            seen["from_ahead"] = app.screen.drawn_from_ahead

        def after(event) -> None:
            if isinstance(event, ev.CardScanned) and waiting() < seen["waiting"]:
                ending.append((app.screen.drawn_from_ahead > seen["from_ahead"],
                               [n for n in repainted if not n.endswith(".bg")]))
        _bots_game_painted_ahead(loop, app, 1, before, after)
        monkeypatch.undo()
        return ending

    ending = prompt_ending_scans(predict_scans=True)
    assert len(ending) >= 4
    assert all(from_ahead for from_ahead, _ in ending), ending
    # (its own card at most, over the panel's background)
    assert all(len(names) <= 1 for _, names in ending), ending
    ending = prompt_ending_scans(predict_scans=False)
    assert not any(from_ahead for from_ahead, _ in ending), \
        "with END TURN's frame predicted, these scans were drawn from it: the check is blind"


def test_end_turn_is_still_drawn_from_a_frame_painted_ahead_while_a_scan_is_asked_for():
    """While the draw prompt asks for a scan, END TURN's frame is painted ahead too, beside
    the scan's (``AHEAD_FRAMES``): a player who ends the turn before the others scanned
    their cards, or a table that leaves the prompt to the next turn, finds it copied with
    nothing painted again."""
    from companion.core import events as ev

    loop, app = make_app((800, 480))

    def a_scan_asked_for(event) -> bool:
        pending = app.table.game and app.draws.pending
        return isinstance(event, ev.CardScanned) and bool(pending and pending.serials) \
            and app.table.game.turn > 1
    _bots_game_painted_ahead(loop, app, 1, lambda: None, lambda event: None,
                             until=a_scan_asked_for)
    assert app.draws.pending is not None and app.draws.pending.serials
    _end_turn_copied_from_ahead(loop, app)


def test_a_finger_on_the_glass_holds_the_screens_own_work_until_it_lifts(monkeypatch):
    """While a finger is down (for at most ``HELD_STILL_S``) the App takes no step of its
    own: nothing painted ahead, no quiet step, no deadline's change (a toast stays, the main
    loop sleeps until the finger no longer holds it back). So the answer, when the finger
    lifts, waits for no step in progress (issue 38), and nothing moves under the finger.
    A finger left on the glass longer holds nothing back."""
    from companion.outputs.screen.app import HELD_STILL_S
    loop, app = _app_with_no_events()
    steps: list[int] = []
    work = app.screen.work_ahead
    monkeypatch.setattr(app.screen, "work_ahead", lambda surface: steps.append(1) or work(surface))
    app.screen.toast("a passing word", kind="info", seconds=1.0)
    app.draw()
    end = next(w for w in app.screen._widgets if w.name == "ft.end")
    _finger(app, end, pygame.FINGERDOWN)
    app.draw()                                      # the pressed look
    assert app.finger_held and not app.awaiting_answer
    assert app.idle_step() is None and steps == []
    app.clock.now += 0.9 * HELD_STILL_S             # the toast's time is up meanwhile ...
    app.tick()
    assert app.idle_step() is None and steps == []
    assert [n.text for n in app.screen._toasts] == ["a passing word"]     # ... it stays
    assert app.wait_timeout_ms() >= 0.1 * HELD_STILL_S * 1000 - 1         # (no busy loop)
    app.clock.now += 0.1 * HELD_STILL_S             # a finger resting on the glass
    assert not app.finger_held
    app.tick()
    assert app.screen._toasts == []
    assert app.idle_step() == "ahead" and steps == [1]


def test_the_lift_finds_nothing_in_progress_and_the_steps_go_on_after_the_answer():
    """A tap: the finger down, the App's own steps (none while it is held), the lift: the
    table loop answers, and only then does the App paint ahead again."""
    loop, app = _app_with_no_events()
    while app.idle_step() is not None:             # all painted ahead before the tap
        pass
    end = next(w for w in app.screen._widgets if w.name == "ft.end")
    _finger(app, end, pygame.FINGERDOWN)
    app.draw()
    assert app.idle_step() is None                  # the pressed look's frame: held
    _finger(app, end, pygame.FINGERUP)
    assert not app.finger_held and app.awaiting_answer
    assert app.idle_step() is None
    loop.drain()
    app.process_updates()
    app.draw()
    assert app.idle_step() == "ahead"


def test_a_scanned_card_s_name_and_initials_were_fitted_and_rendered_ahead(monkeypatch):
    """While a card waits for the scanner, the text of every card of the catalog the scan may
    name (the game's edition, not in play) is fitted and rendered ahead where the stand-in's
    card shows (issue 38): the scan's own frame tries no type size for the card's name or
    initials and renders neither. A whole game of the demo's bots, every step painted ahead
    before each input; a check that it can fail: without the work ahead (``_cards_ahead``
    doing nothing) the same game fits names during its scans."""
    from companion.core import events as ev
    from companion.outputs.screen import widgets
    from companion.outputs.screen.screens.table_view import TableView
    from companion.outputs.screen.surface_cache import SurfaceCache
    from companion.outputs.screen.text import drink_name

    def scans_fitting(ahead: bool) -> tuple[int, list[tuple[str, list]]]:
        widgets._fit_cache.clear()
        widgets._render_cache.clear()
        if not ahead:
            monkeypatch.setattr(TableView, "_cards_ahead", lambda self, ws, tag: iter(()))
        loop, app = make_app((800, 480))
        made: list = []                 # (text) fitted, or rendered, while a scan is drawn
        fit_steps, put = widgets._fit_steps, SurfaceCache.put

        def rendered(cache, key, *a, **k):
            if cache is widgets._render_cache:
                made.append(key[0])
            return put(cache, key, *a, **k)
        monkeypatch.setattr(widgets, "_fit_steps",
                            lambda text, *a, **k: made.append(text) or fit_steps(text, *a, **k))
        monkeypatch.setattr(SurfaceCache, "put", rendered)
        scans: list[str] = []
        wrong: list[tuple[str, list]] = []

        def scanned(event) -> None:
            if isinstance(event, ev.CardScanned):
                scans.append(event.tag)
                card = app.catalog.get(event.tag)
                own = {drink_name(card.drink)} | {widgets.ingredient_letters(i)
                                                  for i in card.recipe}
                if own & set(made):
                    wrong.append((event.tag, sorted(own & set(made))))
        _bots_game_painted_ahead(loop, app, 2, made.clear, scanned)
        monkeypatch.undo()
        return len(scans), wrong

    scans, wrong = scans_fitting(ahead=True)
    assert scans >= 10
    assert wrong == []
    scans, wrong = scans_fitting(ahead=False)
    assert wrong, "without the cards ahead, no scan fitted its card's text: the check is blind"


def _bots_game_painted_ahead(loop, app, seed: int, before, after, until=None) -> None:
    """A whole 4-player game of the demo's bots on ``app``, every step painted ahead before
    each input: ``before()`` just before each input is posted, ``after(event)`` once its
    frame is drawn; with ``until``, only until ``until(event)`` says so of the next input
    (not posted)."""
    import random as _random

    from companion.appliance import demo
    from companion.core import events as ev

    rng = _random.Random(seed)
    tags = [t for t, c in app.catalog.cards.items() if c.edition == "original"]
    rng.shuffle(tags)
    pending: list = []
    bots = demo.Bots(loop, rng, tags, post=pending.append)
    pending.append(ev.TouchAction(demo._setup("original", ["Ana", "Ben", "Chloe", "Dae"],
                                              "standard", rng)))
    for _ in range(400):
        while pending:
            while app.work_ahead():
                pass
            if until is not None and until(pending[0]):
                return
            event = pending.pop(0)
            before()
            loop.post(event)
            loop.drain()
            app.pump()
            after(event)
        if app.table.game.game_over:
            break
        bots.scan_new_cards()
        bots.answer_cakes()
        bots.play_turn()
