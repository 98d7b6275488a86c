"""The journal is the whole truth about every game (issue 8).

A game is recorded once, with every fact that decided it; resume, ``history --export``
and ``replay --db`` rebuild it the same with no catalog, a changed catalog, a removed or
a broken one. A journal of the previous version (schema 1) is migrated, never silently
altered. A damaged journal is named with what to do and never written to. Everything
runs in this process (``tests/inprocess.py``) so coverage follows replay and history.
"""
from __future__ import annotations

import hashlib
import io
import json
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from companion.core import events as ev
from companion.review import replay as replay_mod
from companion.core.catalog import Catalog, CatalogError
from companion.commands.cli import load_catalog
from companion.appliance.config import ConfigError
from companion.appliance.config import load as load_config
from companion.core.journal import Journal, JournalError
from companion.core.rules import Rejection
from companion.core.rules.view import table_json
from companion.appliance.service import Service
from companion.core.session import Session
from companion.core.loop import TableLoop
from inprocess import cli
from timing import scaled

FIXTURES = Path(__file__).resolve().parent / "fixtures"

CARDS = [("T1", '"coffee", "milk"', True), ("T2", '"coffee", "ice"', False),
         ("T3", '"tea", "water"', True), ("T4", '"caramel", "milk"', True),
         ("T5", '"steam", "milk"', False)]


def catalog_text(flip: bool = False) -> str:
    return "".join(f'[[card]]\ntag = "{tag}"\nrecipe = [{recipe}]\n'
                   f'specialty = {"true" if special != flip else "false"}\n'
                   for tag, recipe, special in CARDS)


CATALOG = catalog_text()


def write_config(folder: Path, catalog_text: str | None) -> Path:
    """A config whose journal and (optional) catalog live in ``folder``."""
    cards = folder / "cards.toml"
    if catalog_text is None:
        cards.unlink(missing_ok=True)
    else:
        cards.write_text(catalog_text, encoding="utf-8")
    cfg = folder / "config.toml"
    cfg.write_text(f'[journal]\npath = "{folder / "journal.db"}"\n'
                   f'[catalog]\npaths = ["{cards}"]\n'
                   '[seats]\ndriver = "none"\n[pixels]\ndriver = "none"\n'
                   '[sound]\nenabled = false\n', encoding="utf-8")
    return cfg


def record_a_game(folder: Path) -> dict:
    """Play through the table loop (touch, buttons, scanner) with the catalog; the state
    the table showed, as the spec's JSON."""
    cfg = load_config(str(write_config(folder, CATALOG)))
    with Journal(cfg["journal"]["path"], durable=False) as journal:
        loop = TableLoop(Session(journal, load_catalog(cfg)))
        for event in [
            ev.TouchAction({"do": "setup", "edition": "original", "players": ["Ana", "Ben"]},
                           seat_colors=("blue", "red")),
            *[ev.CardScanned(t) for t in ("T1", "T2", "T3", "T4", "T5")],
            ev.SeatTap(0),                                   # T3 by a button: specialty
            ev.CardScanned("T1"),                            # T1 by the scanner: specialty
            ev.TouchAction({"do": "complete", "card": "T2"}),    # T2 by touch: none
            ev.SeatHold(0), ev.UndoTap(), ev.UndoHold(),     # end turn, undo, redo
            ev.SeatTap(1), ev.SeatTap(1),                    # Ben: T5 (none), T4 (specialty)
        ]:
            loop.post(event)
        updates = loop.drain()
        assert all(u.rejection is None for u in updates), [u.rejection for u in updates]
        live = table_json(loop.table)
    ana, ben = live["players"]
    assert (ana["likes"], ana["cookies"], ben["likes"], ben["cookies"]) == (3, 2, 2, 1)
    return live


CATALOG_CHANGES = {
    "no catalog": None,
    "every flag flipped": catalog_text(flip=True),
    "broken TOML": CATALOG + "\n[[card]\ntag = ",
    "an edition that is a list": CATALOG + '\n[[card]]\ntag = "T9"\nrecipe = ["tea", "milk"]\n'
                                           'edition = ["original"]\n',
    "an edition that is a table": CATALOG.replace('[[card]]\ntag = "T1"',
                                                  '[[card]]\ntag = "T1"\nedition = {x = 1}'),
}


@pytest.mark.parametrize("change", list(CATALOG_CHANGES))
def test_a_catalog_edit_removal_or_typo_never_changes_a_recorded_game(tmp_path, change):
    live = record_a_game(tmp_path)
    cfg_path = write_config(tmp_path, CATALOG_CHANGES[change])
    cfg = load_config(str(cfg_path))
    warnings = []
    catalog = load_catalog(cfg, warn=warnings.append)           # never raises
    if change in ("broken TOML", "an edition that is a list", "an edition that is a table"):
        assert len(warnings) == 1 and str(tmp_path / "cards.toml") in str(warnings[0])
    # resume
    with Journal(cfg["journal"]["path"]) as journal:
        session = Session(journal, catalog)
        assert table_json(session.table) == live
        assert session.seat_colors == ("blue", "red")
    # the service starts (a catalog problem is a warning) and resumes the same game
    service = Service(cfg, headless=True)
    try:
        assert table_json(service.session.table) == live
    finally:
        service.shutdown()
    # history --export, as JSON and as a script that replays strictly to the same state
    exported = cli("--config", str(cfg_path), "history", "--export", "1", "--format", "json")
    assert exported.returncode == 0 and json.loads(exported.stdout) == live
    script = cli("--config", str(cfg_path), "history", "--export", "1")
    assert script.returncode == 0 and "# seat colours: blue, red" in script.stdout
    again = cli("replay", "-", "--json", "--strict", stdin=script.stdout.encode())
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == live
    # replay --db resumes the game from the journal, whatever the catalog
    more = cli("--config", str(cfg_path), "replay", "-", "--json", "--db",
               cfg["journal"]["path"], stdin=b"# nothing more\n")
    assert more.returncode == 0, more.stderr
    assert json.loads(more.stdout) == live


def test_the_journal_stores_the_specialty_that_decided_each_completion(tmp_path):
    record_a_game(tmp_path)
    with Journal(str(tmp_path / "journal.db"), readonly=True) as j:
        lines = [json.loads(x) for x in j.lines(1)]
    specialties = [a for a in lines if a.get("specialty")]
    assert specialties == [{"do": "complete", "specialty": True},          # button
                           {"do": "scan", "tag": "T1", "specialty": True},   # scanner
                           {"do": "complete", "specialty": True}]           # Ben's button
    assert {"do": "complete", "card": "T2"} in lines                        # touch, none


def test_a_demo_game_exports_to_exactly_what_the_table_showed(tmp_path):
    # issue 8: after `demo --db`, `history --export 1 --format json` raised AttributeError
    # and the exported tokens differed from the live ones (the catalog was not consulted)
    db = str(tmp_path / "demo.db")
    demo = cli("demo", "--headless", "--seed", "3", "--db", db)
    assert demo.returncode == 0, demo.stderr
    state = json.loads(cli("history", "--db", db, "--export", "1", "--format", "json").stdout)
    assert state["game_over"] and state["winners"]
    for r in state["ranking"]:                       # the final ranking the demo printed
        assert f"{r['name']}" in demo.stdout and f"{r['score']} points" in demo.stdout
    script = cli("history", "--db", db, "--export", "1").stdout
    again = cli("replay", "-", "--json", "--strict", stdin=script.encode())
    assert again.returncode == 0 and json.loads(again.stdout) == state


# --- the previous version's journal ---------------------------------------------------

def schema1_copy(tmp_path) -> Path:
    path = tmp_path / "journal.db"
    shutil.copy(FIXTURES / "journal-schema1.db", path)
    return path


def test_a_schema1_journal_is_migrated_once_with_the_catalog_and_a_copy_kept(tmp_path):
    path = schema1_copy(tmp_path)
    original = hashlib.sha256(path.read_bytes()).hexdigest()
    expected = json.loads((FIXTURES / "journal-schema1.expected.json").read_text("utf-8"))
    with Journal(str(path)) as j:
        assert j.needs_migration
        session = Session(j, Catalog.example())      # the catalog the old version used
        assert table_json(session.table) == expected["3"]     # the running game resumes
        assert session.seat_colors == ("green", "red", "yellow")
        games = j.games()
    assert [g.rules for g in games] == ["1.1", "1", "1.1"]
    assert games[0].seat_colors == ["red", "blue"] and "4" not in (games[1].problem or "x")
    assert "recorded under table script 1" in games[1].problem
    # the old file is kept, as it was
    copy = tmp_path / "journal.db.schema1"
    with Journal(str(copy), readonly=True) as old:
        assert old.schema == 1 and len(old.games()) == 3
    assert hashlib.sha256((FIXTURES / "journal-schema1.db").read_bytes()).hexdigest() == original
    # from now on the catalog plays no part: no catalog, same games
    with Journal(str(path)) as j:
        assert not j.needs_migration
        assert table_json(Session(j).table) == expected["3"]
    for game in ("1", "3"):
        out = cli("history", "--db", str(path), "--export", game, "--format", "json")
        assert json.loads(out.stdout) == expected[game]
        script = cli("history", "--db", str(path), "--export", game)
        again = cli("replay", "-", "--json", "--strict", stdin=script.stdout.encode())
        assert json.loads(again.stdout) == expected[game], again.stderr


def test_replay_into_a_schema1_db_migrates_it_with_the_installations_catalog(tmp_path):
    path = schema1_copy(tmp_path)
    cfg = tmp_path / "config.toml"
    cfg.write_text("[catalog]\npaths = []\nexample = true\n", encoding="utf-8")
    expected = json.loads((FIXTURES / "journal-schema1.expected.json").read_text("utf-8"))
    out = replay_mod.run("-", True, True, str(path), stdin=io.BytesIO(b"# nothing\n"),
                         out=io.StringIO(), err=io.StringIO(),     # the script: no catalog
                         migration_catalog=lambda: load_catalog(load_config(str(cfg))))
    assert out == 0
    with Journal(str(path), readonly=True) as j:
        assert j.schema == 2 and [g.rules for g in j.games()] == ["1.1", "1", "1.1"]
        assert table_json(Session(j).table) == expected["3"]


def test_a_migrated_game_that_no_longer_replays_is_kept_as_recorded(tmp_path):
    path = schema1_copy(tmp_path)
    with Journal(str(path)) as j:
        before = j.lines(2)
        Session(j, Catalog.example())
        assert j.lines(2) == before                    # never altered
    listing = cli("history", "--db", str(path))
    assert "winner: Ana" in listing.stdout and "table script 1" in listing.stdout
    script = cli("history", "--db", str(path), "--export", "2")
    assert script.returncode == 0
    assert "does not replay under table script 1.1" in script.stdout
    assert script.stdout.splitlines()[-len(before):] == before      # the lines, as recorded
    state = cli("history", "--db", str(path), "--export", "2", "--format", "json")
    assert state.returncode == 2 and "cannot be replayed" in state.stderr


def test_a_schema1_journal_read_only_is_read_with_the_catalog(tmp_path):
    path = schema1_copy(tmp_path)
    cfg = tmp_path / "config.toml"
    cfg.write_text("[catalog]\npaths = []\nexample = true\n", encoding="utf-8")
    expected = json.loads((FIXTURES / "journal-schema1.expected.json").read_text("utf-8"))
    out = cli("--config", str(cfg), "history", "--db", str(path), "--export", "1",
              "--format", "json")
    assert json.loads(out.stdout) == expected["1"]
    with Journal(str(path), readonly=True) as j:
        assert j.schema == 1                           # history never migrates


def test_a_running_legacy_game_that_does_not_replay_is_not_resumed_and_stays(tmp_path):
    path = schema1_copy(tmp_path)
    db = sqlite3.connect(path)                       # make game 2 the last one, running
    db.execute("DELETE FROM actions WHERE game_id = 3")
    db.execute("DELETE FROM games WHERE id = 3")
    db.execute("UPDATE games SET ended_at = NULL, ranking = NULL WHERE id = 2")
    db.commit()
    db.close()
    with Journal(str(path)) as j:
        session = Session(j, Catalog.example())
        assert session.table.game is None             # a new game can be set up
        session.apply({"do": "setup", "edition": "original", "players": ["Ana", "Ben"]})
        assert [g.id for g in j.games()] == [1, 2, 3] and len(j.lines(2)) == 10


# --- a damaged journal: named, with the fix, never written --------------------------

def recorded_journal(tmp_path, games: int = 3) -> Path:
    path = tmp_path / "journal.db"
    with Journal(str(path), durable=False) as j:
        s = Session(j)
        for _ in range(games):
            s.apply({"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Cy"]})
            for _ in range(30):
                s.apply({"do": "correct", "player": "Ana", "likes": 1})
            s.apply({"do": "correct", "deck": 0})
            for _ in range(3):
                s.apply({"do": "end_turn"})
    return path


def files_of(path: Path) -> dict:
    return {p.name: p.read_bytes() for p in path.parent.glob(path.name + "*")
            if not p.name.endswith((".lock", "-shm"))}


def assert_refused(path: Path, *words: str):
    before = files_of(path)
    for readonly in (False, True):
        with pytest.raises(JournalError) as err:
            Journal(str(path), readonly=readonly)
        text = str(err.value)
        assert str(path) in text and f"mv {path} {path}.damaged" in text, text
        for w in words:
            assert w in text, text
    assert files_of(path) == before                   # nothing was written
    r = cli("replay", "-", "--db", str(path),
            stdin=b'{"do": "setup", "edition": "original", "players": ["A", "B"]}\n')
    assert r.returncode == 2 and "mv " in r.stderr
    assert cli("history", "--db", str(path)).returncode == 2
    assert files_of(path) == before


def test_a_truncated_journal_is_refused_not_read_as_empty(tmp_path):
    path = recorded_journal(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert_refused(path, "truncated")


def test_a_journal_failing_quick_check_is_refused(tmp_path):
    path = recorded_journal(tmp_path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    for offset in range(2 * page + 8, 3 * page, 97):     # scribble over a b-tree page
        data[offset] ^= 0x5A
    path.write_bytes(bytes(data))
    assert_refused(path, "damaged")


def test_a_journal_from_a_newer_companion_is_refused(tmp_path):
    path = recorded_journal(tmp_path, games=1)
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    db.commit()
    db.close()
    assert_refused(path, "newer coffee-companion", "schema 3")


def test_a_journal_whose_last_game_cannot_be_replayed_is_named_and_left_alone(tmp_path):
    path = recorded_journal(tmp_path, games=1)
    db = sqlite3.connect(path)
    db.execute("""UPDATE actions SET line = '{"do": "spend_cookies", "count": 3}'
                  WHERE game_id = 1 AND seq = 5""")
    db.commit()
    db.close()
    before = files_of(path)
    with Journal(str(path)) as j, pytest.raises(JournalError) as err:
        Session(j)
    assert "game 1 action 5 cannot be replayed" in str(err.value)
    assert f"mv {path} {path}.damaged" in str(err.value)
    assert files_of(path) == before


def test_an_empty_journal_path_is_a_config_error(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text('[journal]\npath = ""\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\[journal\] path"):
        load_config(str(cfg))
    r = cli("--config", str(cfg), "config", "check")
    assert r.returncode == 2 and "[journal] path" in r.stderr


# --- hostile input: a clear message, never a traceback ------------------------------

SETUP = '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}\n'


@pytest.mark.parametrize("line,reason", [
    ('{"do": "scan", "tag": "\\ud800"}',
     '"tag" holds \\ud800, which is not a character (a lone surrogate)'),
    ('{"do": "correct", "player": "Ana\\udfff", "likes": 1}',
     '"player" holds \\udfff, which is not a character (a lone surrogate)'),
    ('{"do": "correct", "deck": ' + "9" * 4300 + "}", '"deck" must be at most 10000'),
    ('{"do": "correct", "deck": ' + "9" * 4301 + "}",
     "not valid JSON at column 27: a whole number of more than 4300 digits"),
    ('{"do": "spend_cookies", "count": ' + "1" * 20 + "}", '"count" must be at most 10000'),
    ('{"do": "scan", "tag": "' + "A" * 129 + '"}', '"tag" is longer than 128 characters'),
    ("[" * 5000 + "]" * 5000, "not valid JSON at column 33: brackets nested more than 32 deep"),
])
def test_hostile_script_lines_are_rejected_with_their_line_number(line, reason):
    r = cli("replay", "-", "--json", stdin=(SETUP + line + "\n").encode())
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["rejected"] == [{"line": 2, "reason": reason}]


def test_a_lone_surrogate_in_a_setup_name_is_rejected():
    r = cli("replay", "-", "--strict",
            stdin=b'{"do": "setup", "edition": "original", "players": ["\\ud800", "Ben"]}\n')
    assert r.returncode == 1
    assert r.stderr == 'line 1: "players" holds \\ud800, which is not a character ' \
                       '(a lone surrogate)\n'


def test_a_huge_line_is_rejected_without_being_kept_whole(tmp_path):
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as fh:
        fh.write(SETUP.encode())
        fh.write(b'{"do": "scan", "tag": "' + b"x" * (3 * replay_mod.MAX_LINE) + b'"}\n')
        fh.write(b'{"do": "complete"}\n')
    with open(path, "rb") as fh:
        read = [(n, len(t) if isinstance(t, str) else t.code)
                for n, t in replay_mod.read_lines(fh)]
    assert read == [(1, len(SETUP) - 1), (2, "line_too_long"), (3, 18)]
    state = json.loads(cli("replay", str(path), "--json").stdout)
    assert state["rejected"] == [{"line": 2, "reason": "this line is longer than 65536 bytes: "
                                                       "not a table-script line"}]
    assert state["players"][0]["likes"] == 1


def test_a_config_nested_5000_deep_is_a_config_error(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("[game]\nlanguage = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    r = cli("--config", str(cfg), "config", "check")
    assert r.returncode == 2 and str(cfg) in r.stderr and "nested too deeply" in r.stderr
    cfg.write_text("[game]\nlanguage = " + "[" * 200 + "]" * 200 + "\n", encoding="utf-8")
    r = cli("--config", str(cfg), "config", "check")
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr) < 300


@pytest.mark.parametrize("edition", ['["original"]', "{x = 1}"])
def test_a_catalog_card_whose_edition_is_not_a_name(tmp_path, edition):
    cards = tmp_path / "cards.toml"
    cards.write_text(f'[[card]]\ntag = "T1"\nrecipe = ["tea", "milk"]\nedition = {edition}\n',
                     encoding="utf-8")
    with pytest.raises(CatalogError, match=r"cards.toml: card 'T1': edition must be one of"):
        Catalog.load(str(cards))


def test_a_catalog_nested_too_deeply(tmp_path):
    cards = tmp_path / "cards.toml"
    cards.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(CatalogError, match="nested too deeply"):
        Catalog.load(str(cards))


def test_a_flipped_byte_in_a_stored_ranking_is_named_and_replayed(tmp_path):
    path = recorded_journal(tmp_path, games=2)
    db = sqlite3.connect(path)
    ranking = db.execute("SELECT ranking FROM games WHERE id = 1").fetchone()[0]
    db.execute("UPDATE games SET ranking = ? WHERE id = 1",
               (ranking[:10] + chr(ord(ranking[10]) ^ 0x04) + ranking[11:],))
    db.commit()
    db.close()
    r = cli("history", "--db", str(path))
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert "stored ranking is damaged" in first and "ranking replayed from its lines" in first
    assert "winner: Ana" in first


# --- replay --db after an interruption ---------------------------------------------

def test_replay_into_a_db_continues_after_an_interruption(tmp_path, monkeypatch):
    script = Path(__file__).parent / "scripts" / "multi_game.jsonl"
    whole = cli("replay", str(script), "--json")
    db = str(tmp_path / "journal.db")
    real = Session.apply_line
    calls = {"n": 0}

    def interrupted(self, text, progress=None):
        calls["n"] += 1
        if calls["n"] == 9:
            raise KeyboardInterrupt                # the power went, the user pressed Ctrl-C
        return real(self, text, progress)
    monkeypatch.setattr(Session, "apply_line", interrupted)
    assert cli("replay", str(script), "--json", "--db", db).returncode == 130
    monkeypatch.setattr(Session, "apply_line", real)
    again = cli("replay", str(script), "--json", "--db", db)
    assert again.returncode == 0 and "continuing an interrupted replay" in again.stderr
    assert json.loads(again.stdout) == json.loads(whole.stdout)
    setups = sum('"setup"' in line for line in script.read_text("utf-8").splitlines()
                 if not line.startswith("#"))
    with Journal(db, readonly=True) as j:
        assert len(j.games()) <= setups              # not one game more than the script has
        stored = [line for g in j.games() for line in j.lines(g.id)]
    third = cli("replay", str(script), "--json", "--db", db)
    assert "already replayed" in third.stderr
    assert json.loads(third.stdout) == json.loads(whole.stdout)
    with Journal(db, readonly=True) as j:
        assert [line for g in j.games() for line in j.lines(g.id)] == stored


# --- one owner of the journal --------------------------------------------------------

def test_only_the_table_loops_thread_uses_the_journal_once_it_runs(tmp_path):
    with Journal(str(tmp_path / "journal.db")) as journal:
        session = Session(journal)
        loop = TableLoop(session)
        loop.start()
        try:
            loop.post(ev.TouchAction({"do": "setup", "edition": "winter",
                                      "players": ["Ana", "Ben"]}, seat_colors=("red", "blue")))
            done = threading.Event()
            loop.subscribe(lambda u: done.set())
            loop.post(ev.SeatTap(0))
            assert done.wait(scaled(5))
            with pytest.raises(RuntimeError, match="table loop"):
                journal.games()                      # another thread: refused
            assert session.recent_names == ("Ana", "Ben")   # what the wizard reads
        finally:
            loop.stop()
        assert journal.games()[0].seat_colors == ["red", "blue"]   # released after stop


def test_a_bad_seat_colour_is_not_recorded(tmp_path):
    with Journal(str(tmp_path / "journal.db")) as journal:
        s = Session(journal)
        out = s.apply({"do": "setup", "edition": "original", "players": ["Ana", "Ben"]},
                      seat_colors=("red", "purple"))
        assert not isinstance(out, Rejection) and s.seat_colors == ()
        assert journal.games()[0].seat_colors is None
