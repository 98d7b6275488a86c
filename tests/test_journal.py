import json
import os
import sqlite3

import pytest

from companion.core.journal import Journal, JournalBusy, JournalError
from companion.core.rules import Rejection
from companion.core.session import Session

SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}


class Clock:
    def __init__(self, t=1_700_000_000.0):
        self.t = t

    def __call__(self):
        self.t += 1
        return self.t


def test_actions_are_stored_as_table_script_lines_and_games_listed(tmp_path):
    path = str(tmp_path / "j.db")
    with Journal(path, clock=Clock()) as j:
        s = Session(j)
        s.apply(SETUP)
        s.apply({"do": "complete"})
        s.apply({"do": "undo"})
        s.apply({"do": "redo"})
        s.apply({"do": "correct", "deck": 0})
        s.apply({"do": "end_turn"})
        s.apply({"do": "end_turn"})
        assert s.table.game.game_over
        games = j.games()
    assert len(games) == 1
    g = games[0]
    assert g.players == ["Ana", "Ben"] and g.ended_at is not None and g.actions == 7
    assert g.ranking[0]["place"] == 1 and g.started_at.startswith("2023-11-14")
    with Journal(path, readonly=True) as j:
        lines = j.lines(g.id)
    assert [json.loads(x)["do"] for x in lines] == ["setup", "complete", "undo", "redo",
                                                    "correct", "end_turn", "end_turn"]


def test_resume_rebuilds_the_running_game_with_its_undo_history(tmp_path):
    path = str(tmp_path / "j.db")
    with Journal(path) as j:
        s = Session(j)
        for a in (SETUP, {"do": "complete"}, {"do": "end_turn"}, {"do": "undo"}):
            s.apply(a)
        live = s.table
    with Journal(path) as j:
        s2 = Session(j)
        assert s2.table.game == live.game
        out = s2.apply({"do": "redo"})           # the redo stack survived the restart
        assert not isinstance(out, Rejection)
        s2.apply({"do": "complete"})
    with Journal(path) as j:
        ana, ben = Session(j).table.game.players
        assert (ana.likes, ben.likes) == (1, 1)


def test_an_undo_after_game_over_reopens_the_game_in_the_games_table(tmp_path):
    path = str(tmp_path / "j.db")
    with Journal(path) as j:
        s = Session(j)
        for a in (SETUP, {"do": "correct", "deck": 0}, {"do": "end_turn"}, {"do": "end_turn"}):
            s.apply(a)
        assert j.games()[0].ended_at is not None
        s.apply({"do": "undo"})
        assert j.games()[0].ended_at is None and j.games()[0].ranking is None
        s.apply({"do": "redo"})
        assert j.games()[0].ended_at is not None


def test_a_second_game_starts_a_new_row_and_resume_takes_the_last(tmp_path):
    path = str(tmp_path / "j.db")
    with Journal(path) as j:
        s = Session(j)
        for a in (SETUP, {"do": "correct", "deck": 0}, {"do": "end_turn"}, {"do": "end_turn"},
                  dict(SETUP, players=["Chloe", "Dae", "Eve"])):
            s.apply(a)
        assert [g.players[0] for g in j.games()] == ["Ana", "Chloe"]
    with Journal(path) as j:
        assert Session(j).table.game.players[0].name == "Chloe"
        assert j.recent_names()[:2] == ["Chloe", "Dae"]


def test_a_second_writer_is_refused_with_a_clear_message(tmp_path):
    path = str(tmp_path / "j.db")
    with Journal(path):
        with pytest.raises(JournalError, match="in use by another coffee-companion"):
            Journal(path)
        with Journal(path, readonly=True) as reader:     # history can still read it
            assert reader.games() == []


@pytest.mark.parametrize("content", [b"this is not a database at all" * 100, b"\x00" * 4096])
def test_a_damaged_file_is_reported_and_left_untouched(tmp_path, content):
    path = tmp_path / "j.db"
    path.write_bytes(content)
    with pytest.raises(JournalError) as err:
        Journal(str(path))
    assert str(path) in str(err.value)
    assert path.read_bytes() == content


def test_a_foreign_sqlite_file_is_not_taken_over(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos(id)")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(JournalError, match="not a coffee-companion journal"):
        Journal(str(path))
    assert path.read_bytes() == before


def test_a_locked_database_gets_a_clear_message(tmp_path):
    path = str(tmp_path / "j.db")
    with Journal(path) as j:
        Session(j).apply(SETUP)
    other = sqlite3.connect(path, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        j = Journal(path)
        j.db.execute("PRAGMA busy_timeout=50")
        s = Session(j)
        with pytest.raises(JournalBusy) as busy:          # the table loop pauses on this
            s.apply({"do": "complete"})
        assert "locked by another program" in str(busy.value) and path in str(busy.value)
        assert s.table.game.players[0].likes == 0          # nothing changed
        j.close()
    finally:
        other.rollback()
        other.close()


def test_a_full_disk_refuses_the_action_and_changes_nothing(tmp_path):
    path = str(tmp_path / "j.db")
    j = Journal(path)
    s = Session(j)
    s.apply(SETUP)
    # make the database unable to grow: the next insert fails like on a full disk
    page_count = j.db.execute("PRAGMA page_count").fetchone()[0]
    j.db.execute(f"PRAGMA max_page_count={page_count}")
    before = s.table
    out = None
    for _ in range(200):
        out = s.apply({"do": "correct", "player": "Ana", "likes": 1})
        if isinstance(out, Rejection):
            break
        before = s.table
    # named for what it is: a full card, with what to free, not "the card may be failing"
    assert isinstance(out, Rejection) and out.code == "storage_full"
    assert out.text.startswith("the SD card is full") and "apt-get clean" in out.text
    assert "failing" not in out.text
    assert s.table is before
    j.close()
    with Journal(path) as j2:                      # the file is intact and resumes
        assert Session(j2).table.game == before.game


def test_missing_folder_and_readonly_missing_file(tmp_path):
    with pytest.raises(JournalError, match="does not exist"):
        Journal(str(tmp_path / "nope" / "j.db"))
    with pytest.raises(JournalError, match="no such journal"):
        Journal(str(tmp_path / "none.db"), readonly=True)


def test_wal_and_full_sync_are_on(tmp_path):
    with Journal(str(tmp_path / "j.db")) as j:
        assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2   # FULL
    assert os.path.exists(str(tmp_path / "j.db"))


def test_the_session_knows_the_journal_number_of_its_game(tmp_path):
    with Journal(str(tmp_path / "j.db")) as j:
        s = Session(j)
        assert s.game_id is None
        s.apply(SETUP)
        assert s.game_id == 1
        for a in ({"do": "correct", "deck": 0}, {"do": "end_turn"}, {"do": "end_turn"},
                  SETUP):
            s.apply(a)
        assert s.game_id == 2
    with Journal(str(tmp_path / "j.db")) as j:
        assert Session(j).game_id == 2


def test_the_journal_keeps_a_small_page_cache_on_every_connection(tmp_path):
    """A day of games must not grow SQLite's page cache to its 2 MiB default (memory soak)."""
    from companion.core.journal import CACHE_KIB
    path = str(tmp_path / "j.db")
    j = Journal(path)
    assert j.db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB
    j.close()
    again = Journal(path)          # an existing journal: checked read-only, then reopened
    assert again.db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB
    again.close()
