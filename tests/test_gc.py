"""Python's garbage collector while the table plays (issue 38).

The service turns the automatic collection off once started (``freeze_start_up``) and
collects when the table is quiet (``collect_when_quiet``): the younger generations after
five seconds, every object after a minute. That keeps the idle steps small only while a
game makes no cyclic garbage: objects without a reference cycle are freed by their counts
at once, a cycle only by the collector. These tests keep it so: a whole game played on the
real App (SDL's dummy driver, the table loop, its journal in SQLite, the demo's bots)
leaves no garbage only the collector could free."""
from __future__ import annotations

import gc
from contextlib import contextmanager

import pygame
from ui_touch import make_app

from companion.appliance import demo
from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.journal import Journal
from companion.core.loop import TableLoop
from companion.core.session import Session
from companion.outputs import Outputs
from companion.outputs.screen import app as app_module
from companion.outputs.screen.app import App
from companion.outputs.screen.screens.end import EndScreen


def _garbage_of_whole_games(tmp_path, expansion=None, players=4, seed=3, games=1) -> list:
    """Play whole games through the App, one after the other (the next one set up over the
    end screen, as "New game" does), and return what a collection then finds."""
    pygame.display.init()
    surface = pygame.display.set_mode((800, 480))
    journal = Journal(str(tmp_path / "journal.db"))
    loop = TableLoop(Session(journal, Catalog.example()), clock=lambda: 1000.0)
    app = Outputs(loop).start(App(loop, surface=surface, clock=lambda: 1000.0),
                              main_thread=True)
    pending: list = []
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)        # what a collection finds is kept in gc.garbage
    gc.disable()
    try:
        for n in range(games):
            rng, names, _scratch, _db, _catalog, tags = demo._prepare(
                "original", players, seed + n, None)
            bots = demo.Bots(loop, rng, tags, post=pending.append)
            pending.append(ev.TouchAction(demo._setup("original", names, "standard", rng,
                                                      expansion)))
            for _ in range(400):
                while pending:
                    loop.post(pending.pop(0))
                    loop.drain()
                    app.pump()
                    while app.work_ahead():       # the steps painted ahead, as when idle
                        pass
                if loop.table.game.game_over:
                    break
                bots.scan_new_cards()
                bots.answer_cakes()
                bots.play_turn()
            assert loop.table.game.game_over and isinstance(app.screen, EndScreen)
            del bots
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
        journal.close()
        app.close()
    return found


def _described(found: list) -> list[str]:
    return sorted({f"{type(o).__module__}.{type(o).__qualname__}"
                   + (f" {o.__qualname__}" if callable(o) and hasattr(o, "__qualname__")
                      else "") for o in found})


def test_whole_games_on_the_screen_make_no_cyclic_garbage(tmp_path):
    """Two games back to back: the first one's end screen, table view and painting ahead
    are let go when the second is set up."""
    found = _garbage_of_whole_games(tmp_path, games=2)
    assert found == [], (
        "the table made garbage in reference cycles, which only the collector frees, and "
        "the service runs it only when the table is quiet (freeze_start_up): break the "
        f"cycle (a lambda or bound method kept on the object it calls?): {_described(found)}")


def test_a_whole_cake_time_game_makes_no_cyclic_garbage(tmp_path):
    found = _garbage_of_whole_games(tmp_path, expansion="cake_time", players=3, seed=4)
    assert found == [], _described(found)


def test_the_service_collects_when_the_table_is_quiet_then_gives_the_heap_back():
    """Off once started; the quiet table's first step collects the younger generations,
    the next gives the C heap back, then nothing until something is drawn again; after a
    minute of quiet one more step looks at every object (a closed screen's cycle)."""
    _loop, app = make_app()
    given_back: list[int] = []
    app.give_back = lambda: given_back.append(app.frames)
    gc.unfreeze()
    try:
        app_module.freeze_start_up()
        assert not gc.isenabled() and gc.get_freeze_count() > 0
        made = [[n] for n in range(1000)]           # objects made since, alive
        assert gc.get_count()[0] >= 1000
        app._active_at = app.clock()
        assert not app.give_back_when_quiet()       # not quiet long enough
        app.clock.now += app.quiet_after
        assert app.give_back_when_quiet() and given_back == []      # the collection
        assert gc.get_count()[0] < 50 and gc.get_count()[2] >= 1    # (survivors moved on)
        assert app.give_back_when_quiet() and given_back == [app.frames]   # the heap
        assert not app.give_back_when_quiet()       # once each until the next frame
        cycle: list = []
        cycle.append(cycle)                         # garbage in the oldest generation
        gc.collect(1)
        del cycle
        found = []
        gc.callbacks.append(lambda phase, info: phase == "stop" and found.append(info))
        try:
            app.clock.now += app.long_quiet_after
            assert app.give_back_when_quiet()       # a minute: every object looked at
            assert found[-1]["generation"] == 2 and found[-1]["collected"] >= 1
            assert not app.give_back_when_quiet()
        finally:
            gc.callbacks.pop()
        del made
    finally:
        gc.unfreeze()
        gc.enable()


def test_a_busy_table_collects_while_idle_once_enough_has_piled_up(monkeypatch):
    _loop, app = make_app()
    monkeypatch.setattr(app_module, "BUSY_COLLECTION", 500)
    gc.unfreeze()
    try:
        app_module.freeze_start_up()
        while app.work_ahead():
            pass
        made = [[n] for n in range(600)]
        assert gc.get_count()[0] >= 500
        assert app.work_ahead()                     # one step: the collection
        assert gc.get_count()[0] < 50 and not app.work_ahead()
        del made
    finally:
        gc.unfreeze()
        gc.enable()


@contextmanager
def _collector_as_the_service_sets_it(phase: str, seen: list):
    """An app with Python's collector as the service runs it (the start-up frozen, the
    automatic collection off), each collection's ``phase`` ("start" or "stop") info put in
    ``seen``; the collector as it was after."""
    _loop, app = make_app()
    gc.unfreeze()
    gc.callbacks.append(lambda p, info: p == phase and seen.append(info))
    try:
        app_module.freeze_start_up()
        yield app
    finally:
        gc.callbacks.pop()
        gc.unfreeze()
        gc.enable()


def test_the_young_garbage_is_collected_once_per_frame_when_the_painting_ahead_is_done():
    """Each frame's objects are looked at once, in a step of their own after its painting
    ahead (a few hundred objects), not five inputs' worth at once when the table is quiet."""
    found: list = []
    with _collector_as_the_service_sets_it("stop", found) as app:
        app.pump()                                  # a frame
        steps = 0
        while app.work_ahead():
            steps += 1
        assert [f["generation"] for f in found[1:]] == [1], found   # (after the start-up's)
        assert gc.get_count()[0] < 50 and steps >= 1
        made = [[n] for n in range(300)]            # made since: the next frame's to collect
        assert not app.work_ahead()                 # (not twice for one frame)
        assert len(found) == 2
        app.screen.invalidate()
        app.pump()
        while app.work_ahead():
            pass
        assert [f["generation"] for f in found[1:]] == [1, 1] and gc.get_count()[0] < 50
        del made


def test_the_young_garbage_is_collected_in_a_step_of_its_own_after_the_painting_ahead():
    """The step that finishes the painting ahead does not collect too: a tap arriving as it
    begins waits for one of them, not both (the two in one step were among the longest
    steps ahead in Cake Time, issue 38)."""
    from companion.outputs.screen.screens import base
    collected: list = []
    with _collector_as_the_service_sets_it("start", collected) as app:
        app.pump()                                  # a frame, then its painting ahead
        steps, over = 0, False
        collected.clear()                           # (the start-up's own collection)
        while not collected:
            over = app.screen._ahead_steps is base._DONE    # (before this step)
            assert app.work_ahead(), "no collection after the painting ahead"
            steps += 1
        assert over, "the collection came in the step that ended the painting ahead"
        assert steps >= 2
