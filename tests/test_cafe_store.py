"""The hub's store, the same code on SQLite and on a real PostgreSQL: each result
kept once per (table, game id), a correction replacing it, the floor and the
month's standings read back."""
import pytest

from companion.cafe.hub import Hub
from companion.cafe.leaderboard import standings
from cafe_simulate import SimulatedTable, table_settings
from companion.cafe.store import Store, StoreError, meta, month_of
from companion.core.journal import Journal
from companion.outputs.mqtt import topics
from tests.cafe_fixtures import VENUE, postgresql  # noqa: F401  (fixture)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = Store(str(tmp_path / "cafe.db"))
    else:
        s = Store(request.getfixturevalue("postgresql").url)
        meta.drop_all(s.engine)                   # one server for the module: start clean
        meta.create_all(s.engine)
    yield s
    s.close()


def test_results_are_kept_once_corrections_replace_them_and_the_floor_reads_back(store,
                                                                                 tmp_path):
    table = SimulatedTable(str(tmp_path / "t"), table_settings("-", 1, VENUE, "t1"),
                           seed=21, durable=False, publish=False)
    try:
        table.play_game()
        table.play_game()
        with Journal(table.journal_path, readonly=True) as j:
            games = j.games()
    finally:
        table.close()
    hub = Hub(table_settings("127.0.0.1", 1, VENUE, "-"), store)
    results = [topics.result_payload(g, venue=VENUE, name="t1", expansion=None) for g in games]
    for r in results:
        assert hub.handle(f"coffee-rush/{VENUE}/t1/result", topics.dumps(r)) == "new"
    assert hub.handle(f"coffee-rush/{VENUE}/t1/result", topics.dumps(results[0])) == "duplicate"
    # a correction after the end: the last player gains 30 points and wins
    fixed = dict(results[0], ranking=[dict(r, place=1 if r == results[0]["ranking"][-1]
                                           else r["place"] + 1,
                                           score=r["score"] + (30 if r == results[0]["ranking"][-1]
                                                               else 0))
                                      for r in results[0]["ranking"]])
    assert hub.handle(f"coffee-rush/{VENUE}/t1/result", topics.dumps(fixed)) == "corrected"
    month = month_of(results[0]["ended_at"])
    kept = store.results_of(VENUE, month)
    assert [r["game"] for r in kept] == [g.id for g in games]
    assert kept[0] == fixed
    assert standings(kept) == standings([fixed, results[1]])
    assert store.months(VENUE) == [month]
    # the table's journal was replaced: its new game 1 is another game
    again = dict(results[0], started_at="2031-01-02T20:00:00+00:00",
                 ended_at="2031-01-02T21:00:00+00:00")
    assert hub.handle(f"coffee-rush/{VENUE}/t1/result", topics.dumps(again)) == "new"
    assert store.results_of(VENUE, month) == kept
    assert store.results_of(VENUE, month_of(again["ended_at"])) == [again]

    state = {"players": [], "status": {"phase": "idle", "updated_at": 1.0}}
    assert hub.handle(f"coffee-rush/{VENUE}/t1/state", topics.dumps(state)) == "state"
    assert hub.handle(f"coffee-rush/{VENUE}/t1/status", b"offline") == "offline"
    assert store.floor(VENUE)[0]["status"] == "offline"
    assert store.floor(VENUE)[0]["state"] == state


def test_points_by_place_and_ties():
    games = [{"ranking": [{"name": "Ana", "score": 20, "place": 1},
                          {"name": "Ben", "score": 20, "place": 1},
                          {"name": "Chloe", "score": 5, "place": 3}]},
             {"ranking": [{"name": "Chloe", "score": 12, "place": 1},
                          {"name": "Ana", "score": 8, "place": 2}]}]
    rows = {r["name"]: r for r in standings(games)}
    assert rows["Ana"] == {"name": "Ana", "seat_colour": None, "games": 2, "wins": 1,
                           "points": 3 + 1, "average": 14.0, "rank": 1}
    assert rows["Ben"]["points"] == 3 and rows["Chloe"]["points"] == 1 + 2
    assert [r["name"] for r in standings(games)] == ["Ana", "Ben", "Chloe"]


def test_an_unreachable_database_is_one_clear_message():
    with pytest.raises(StoreError) as err:
        Store("postgresql+psycopg://hub:secret@127.0.0.1:1/cafe")
    assert "cannot be opened" in str(err.value) and "secret" not in str(err.value)


@pytest.mark.parametrize("name", ["floor", "leaderboard"])
def test_the_cafe_pages_hand_their_script_every_word_whole_and_warn_of_nothing(name, caplog):
    """The pages' JavaScript fills the {parameters}: the words go to it as templates (filling
    them here warned of a missing parameter for each), and every word exists."""
    import json
    import logging
    import re

    from companion.appliance.config import LANGUAGES
    from companion.cafe.view import render

    caplog.set_level(logging.WARNING)
    for lang in LANGUAGES:
        page = render(name, lang, "Café")
        words = json.loads(re.search(r"const W = (\{.*?\});\n", page)[1])
        assert not [k for k, v in words.items() if v == f"cafe.{k}"], lang   # none missing
        assert "{count}" in words["score_one"] and "{minutes}" in words["hours"], lang
    assert not caplog.records, [r.getMessage() for r in caplog.records]
