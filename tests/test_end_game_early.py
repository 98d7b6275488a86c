"""A table with no way out of a game is stuck: Settings' "End this game" and "New game"
end the running game (asked first), journaled beside its lines (not a table-script line:
the game's lines replay as played), undoable until the next game is set up."""
from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.journal import Journal
from companion.core.loop import TableLoop
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly
from companion.core.session import Session, rebuild
from companion.outputs.screen.screenshots import sample_script
from ui_touch import has_widget, make_app, touch

SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"]}


def _journal_loop(path):
    loop = TableLoop(Session(Journal(str(path)), Catalog()))
    return loop


def test_an_ended_game_is_marked_not_resumed_and_brought_back_by_undo(tmp_path):
    path = tmp_path / "journal.db"
    loop = _journal_loop(path)
    loop.post(ev.TouchAction(SETUP))
    loop.post(ev.TouchAction({"do": "complete"}))
    loop.post(ev.EndGame())
    ups = loop.drain()
    assert isinstance(ups[-1].happened[0], GameEndedEarly) and loop.table.game is None
    journal = loop.session.journal
    game_id = journal.current_game_id
    lines = journal.lines(game_id)
    assert [line for line in lines if "end" in line and "game" in line] == []  # no new line
    record = journal.game(game_id)
    assert record.ended_at is not None and record.ranking is None
    assert journal.ended_early(game_id) is not None
    # the game's lines replay as played: the end is not one of them
    assert rebuild(lines).table.game.players[0].likes == 1
    from companion.review.history import _listing
    assert "early (ended at the table, no result)" in _listing(record, journal, frozenset())
    journal.close()

    # a restart does not resume the ended game, and the UNDO button brings it back
    again = _journal_loop(path)
    assert again.table.game is None and again.session.ended is not None
    again.post(ev.UndoTap())
    up = again.drain()[0]
    assert isinstance(up.happened[0], GameBroughtBack)
    assert again.table.game.players[0].likes == 1
    assert again.session.journal.ended_early(game_id) is None
    assert again.session.journal.game(game_id).ended_at is None
    again.session.journal.close()

    # ... and it is resumed as any running game after the next restart
    third = _journal_loop(path)
    assert third.table.game is not None and third.table.game.players[0].likes == 1
    third.session.journal.close()


def test_a_new_game_makes_the_end_final():
    loop = TableLoop(Session(None, Catalog()))
    loop.post(ev.TouchAction(SETUP))
    loop.post(ev.EndGame())
    loop.post(ev.TouchAction({**SETUP, "players": ["Dae", "Eun"]}))
    loop.post(ev.BringBackGame())
    ups = loop.drain()
    assert ups[2].accepted and loop.session.ended is None
    assert ups[3].rejection.code == "nothing_to_undo"
    assert [p.name for p in loop.table.game.players] == ["Dae", "Eun"]


def test_only_a_running_game_can_be_ended():
    loop = TableLoop(Session(None, Catalog()))
    loop.post(ev.EndGame())
    assert loop.drain()[0].rejection.code == "no_game"


def test_settings_end_this_game_asks_first_and_the_table_offers_undo():
    loop, app = make_app(lines=sample_script())
    app.open("settings")
    touch(app, "set.end_game")
    assert has_widget(app, "dlg.ok") and app.table.game is not None    # asked, not done
    touch(app, "dlg.cancel")
    assert not has_widget(app, "dlg.ok") and app.table.game is not None
    touch(app, "set.end_game")
    touch(app, "dlg.ok")
    assert app.table.game is None and type(app.screen).__name__ == "TableView"
    touch(app, "nogame.undo")
    assert app.table.game is not None and not has_widget(app, "nogame.undo")


def test_settings_new_game_ends_the_game_and_opens_the_wizard():
    loop, app = make_app(lines=sample_script())
    app.open("settings")
    touch(app, "set.new_game")
    touch(app, "dlg.ok")
    assert app.table.game is None and app.is_open("wizard")


def test_no_end_buttons_without_a_running_game():
    loop, app = make_app()
    app.open("settings")
    assert not has_widget(app, "set.end_game") and not has_widget(app, "set.new_game")
