"""Nothing outside the table loop writes game or table state (issue 21).

The game the engine hands out is frozen (every thread may share it); settings changes,
catalog reloads and the BG Stats link reach the table through the loop's one input
queue and are applied on the loop's thread; slow work runs on a worker.
"""
from __future__ import annotations

import dataclasses

import pytest

from companion.core.rules import apply, parse_action
from companion.core.rules.state import Card, Game, Player, Table
from tests.rules_helpers import play, setup
from timing import scaled


def test_a_game_and_its_players_refuse_assignment():
    table, _ = play(setup(players=["Ana", "Ben"]))
    game = table.game
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.deck = 0                                       # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.players[0].likes = 9                           # type: ignore[misc]
    assert isinstance(game.players, tuple)
    assert all(isinstance(pos, tuple) for pos in game.players[0].queue)
    with pytest.raises(AttributeError):                     # a tuple has no append
        game.players[0].queue[0].append(Card(99))           # type: ignore[attr-defined]


def test_lists_given_to_a_player_or_game_are_kept_as_tuples():
    p = Player("Ana", [[Card(1)], [], [], []], ["jump"])     # type: ignore[arg-type]
    g = Game("original", "standard", [p], 0, 0, 10, 0)        # type: ignore[arg-type]
    assert p.queue == ((Card(1),), (), (), ()) and p.tiles == ("jump",)
    assert g.players == (p,)


def test_the_engine_returns_a_new_game_and_leaves_the_old_one_as_it_was():
    table, _ = play(setup(players=["Ana", "Ben"]))
    before = table.game
    snapshot = dataclasses.astuple(before)
    after = apply(table, parse_action({"do": "complete"}))
    assert after.table.game is not before
    assert dataclasses.astuple(before) == snapshot           # the old state is untouched
    assert after.table.game.players[0].likes == 1 and before.players[0].likes == 0
    # the undo snapshot is the very state before: undo gives it back unchanged
    undone = apply(after.table, parse_action({"do": "undo"}))
    assert undone.table.game is before
    assert Table(before) == Table(undone.table.game)


# --- settings and catalog: inputs on the one queue, applied by the loop's thread --------

def _service(tmp_path):
    from companion.appliance.config import defaults
    from companion.appliance.service import Service
    cfg = defaults()
    cfg.values["journal"]["path"] = str(tmp_path / "journal.db")
    cfg.values["catalog"]["paths"] = []
    cfg.values["seats"]["driver"] = "none"
    cfg.values["pixels"]["driver"] = "none"
    cfg.values["sound"]["enabled"] = False
    return Service(cfg, headless=True)


def _on_loop_thread(svc, kind):
    """Record, when an update of input ``kind`` reaches the subscribers, which thread it
    is on and what the log's language is then."""
    import threading
    seen: dict = {}
    done = threading.Event()

    def watch(u) -> None:
        if isinstance(u.event, kind):
            seen.update(thread=threading.current_thread(), language=svc.log_words.language,
                        catalog=svc.session.catalog)
            done.set()
    svc.loop.subscribe(watch)
    return seen, done


def test_a_settings_change_from_the_screens_thread_is_applied_by_the_loops_thread(tmp_path):
    import threading
    from companion.core.events import SettingsChanged
    from companion.outputs.screen.settings_store import Settings
    svc = _service(tmp_path)
    seen, done = _on_loop_thread(svc, SettingsChanged)
    loop_thread = svc.loop.start()
    try:
        settings = Settings(language="ko")
        settings.subscribe(svc.apply_settings)
        screen = threading.Thread(target=settings.set, args=("language", "es"), name="screen")
        screen.start()
        screen.join(scaled(5))
        assert done.wait(scaled(5)), "the settings never reached the loop"
        assert seen["thread"] is loop_thread is not screen
        assert seen["language"] == "es" == svc.log_words.language   # set before outputs hear
        assert svc.loop.settings == SettingsChanged("es", True, 0.7, 0.3, 0, "language")
    finally:
        svc.shutdown()


def test_a_catalog_read_afresh_is_swapped_in_by_the_loops_thread(tmp_path):
    from companion.core.catalog import Catalog
    from companion.core.events import CatalogLoaded
    svc = _service(tmp_path)
    seen, done = _on_loop_thread(svc, CatalogLoaded)
    before = svc.session.catalog
    fresh = Catalog.example()
    loop_thread = svc.loop.start()
    try:
        svc.loop.post(CatalogLoaded(fresh))
        assert done.wait(scaled(5)), "the catalog never reached the loop"
        assert seen["thread"] is loop_thread and seen["catalog"] is fresh is not before
        assert svc.session.catalog is fresh
    finally:
        svc.shutdown()


# --- the BG Stats link: made on a worker, posted back, kept by the loop ------------------

FINISHED = ['{"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"]}',
            '{"do": "correct", "player": "Ana", "dislikes": 5}',
            '{"do": "end_turn"}', '{"do": "end_turn"}', '{"do": "end_turn"}']


def test_the_play_link_is_made_off_the_loop_and_the_loop_answers_meanwhile(tmp_path):
    import threading
    from companion.core import events as ev
    from companion.core.journal import Journal
    from companion.review.play_link import PlayLink
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    from recorder import Recorder
    made_on: list = []
    making, release = threading.Event(), threading.Event()

    def make(record, lines, location):          # the worker's part, held until released
        made_on.append(threading.current_thread())
        making.set()
        assert release.wait(scaled(5))
        return f"link of game {record.id} after {len(lines)} lines"

    with Journal(str(tmp_path / "journal.db")) as journal:
        loop = TableLoop(Session(journal))
        links = PlayLink(loop, make=make)
        loop.subscribe(links)
        recorder = Recorder()
        loop.subscribe(recorder)
        loop_thread = loop.start()
        try:
            for n, line in enumerate(FINISHED):
                loop.post(ev.ScriptLine(line, n + 1))
            assert making.wait(scaled(5)), "no link was asked for when the game ended"
            assert made_on == [made_on[0]] and made_on[0] is not loop_thread
            # the worker is busy: the loop still answers inputs, and shows no link yet
            asked = ev.DismissDraws()
            loop.post(asked)
            answered = recorder.wait_for(lambda u: u.event is asked)
            assert answered.event is asked and answered.snapshot.play_link is None
            release.set()
            found = recorder.wait_for(lambda u: isinstance(u.event, ev.PlayLinkFound))
            assert found.snapshot.play_link == "link of game 1 after 5 lines"
            assert found.event.made_for == loop.turn_now()
        finally:
            release.set()
            loop.stop()
            links.close()


def test_a_link_made_for_an_older_table_is_not_kept(tmp_path):
    import threading
    from companion.core import events as ev
    from companion.core.journal import Journal
    from companion.review.play_link import PlayLink
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    from recorder import Recorder
    release = threading.Event()
    asked: list = []

    def make(record, lines, location):
        asked.append(len(lines))
        assert release.wait(scaled(5))
        return f"after {len(lines)} lines"

    with Journal(str(tmp_path / "journal.db")) as journal:
        loop = TableLoop(Session(journal))
        links = PlayLink(loop, make=make)
        loop.subscribe(links)
        recorder = Recorder()
        loop.subscribe(recorder)
        kept: list = []                          # the link kept as each result arrives
        loop.subscribe(lambda u: kept.append(u.snapshot.play_link)
                       if isinstance(u.event, ev.PlayLinkFound) else None)
        loop.start()
        try:
            for n, line in enumerate(FINISHED + ['{"do": "correct", "player": "Ben", "likes": 9}']):
                loop.post(ev.ScriptLine(line, n + 1))
            recorder.wait_for(lambda u: any(h.kind == "ranking_changed" for h in u.happened))
            release.set()
            # the first link (the table before the correction) arrives first and is dropped
            recorder.wait_for(lambda u: isinstance(u.event, ev.PlayLinkFound)
                              and u.event.link == "after 6 lines")
            assert asked == [5, 6] and kept == [None, "after 6 lines"]
        finally:
            release.set()
            loop.stop()
            links.close()


def test_the_snapshot_carries_the_link_of_the_table_on_show_to_the_phones():
    """The loop keeps a worker's link only for the table it was made for; the phone
    view's live table takes it from the update's snapshot, and drops it with the table."""
    from companion.core import events as ev
    from companion.core.catalog import Catalog
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    from companion.outputs.web.live import LiveTable
    loop = TableLoop(Session(None, Catalog()))
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    loop.post(ev.ScriptLine(FINISHED[0], 1))
    loop.drain()
    made_for = loop.turn_now()
    loop.post(ev.ScriptLine(FINISHED[1], 2))            # the table changes meanwhile
    loop.post(ev.PlayLinkFound(made_for, "made for the setup"))
    [_, stale] = loop.drain()
    assert stale.snapshot.play_link is None and live.latest.bgstats is None
    loop.post(ev.PlayLinkFound(loop.turn_now(), "made for this table"))
    [found] = loop.drain()
    assert found.snapshot.play_link == "made for this table" == loop.snapshot.play_link
    assert live.latest.bgstats == "made for this table"
    loop.post(ev.DismissDraws())                         # the same table: the link stays
    assert loop.drain()[0].snapshot.play_link == "made for this table"
    loop.post(ev.ScriptLine(FINISHED[2], 3))             # a new table: no link for it yet
    [moved] = loop.drain()
    assert moved.accepted and moved.snapshot.play_link is None and live.latest.bgstats is None
