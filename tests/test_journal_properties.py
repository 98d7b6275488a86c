"""Hypothesis: for random games (random catalog, random inputs), what the journal holds
rebuilds exactly what the table showed: ``history --export`` (script and JSON) replays
strictly to the live state, and so does a resume, with any catalog, from the journal as
a SIGKILL at any moment would leave it (a snapshot of the committed transactions; the
real SIGKILL is tests/test_kill.py). Kept small: a few seconds in all."""
from __future__ import annotations

import io
import json
import os
import sqlite3
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.review import history, replay
from companion.core.catalog import CardInfo, Catalog
from companion.core.journal import Journal
from companion.core.rules import Rejection, parse_action
from companion.core.rules.view import table_json
from companion.core.session import Session

NAMES = ["Ana", "Ben", "Chloe", "Dae"]
TAGS = ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "T8"]

catalogs = st.sets(st.sampled_from(TAGS)).map(
    lambda special: Catalog([CardInfo(t, t, ("coffee", "milk"), t in special, "original")
                             for t in TAGS]))

setups = st.builds(
    lambda edition, n, variant: {"do": "setup", "edition": edition, "players": NAMES[:n],
                                 **({"variant": "junior"} if variant and edition == "winter"
                                    else {})},
    st.sampled_from(["original", "winter"]), st.integers(2, 4), st.booleans())

actions = st.one_of(
    st.just({"do": "complete"}), st.just({"do": "complete"}),
    st.builds(lambda t: {"do": "complete", "card": t}, st.sampled_from(TAGS)),
    st.builds(lambda t, f: {"do": "scan", "tag": t, **({"specialty": f} if f is not None else {})},
              st.sampled_from(TAGS), st.sampled_from([None, None, True, False])),
    st.just({"do": "end_turn"}), st.just({"do": "end_turn"}),
    st.builds(lambda c: {"do": "correct", "deck": c}, st.integers(0, 4)),
    st.builds(lambda n, v: {"do": "correct", "player": NAMES[n], "cookies": v},
              st.integers(0, 1), st.integers(0, 3)),
    st.builds(lambda c: {"do": "spend_cookies", "count": c}, st.integers(1, 2)),
    st.just({"do": "undo"}), st.just({"do": "redo"}),
    setups,
)

games = st.tuples(setups, st.lists(actions, max_size=40), catalogs, catalogs,
                  st.floats(0, 1))

FAST = settings(max_examples=15, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@FAST
@given(games)
def test_export_and_resume_rebuild_what_the_table_showed(game):
    setup, moves, catalog, later_catalog, kill_at = game
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "journal.db")
        snapshot = os.path.join(d, "killed.db")
        shown = []                                   # the state after each accepted action
        with Journal(path, durable=False) as journal:
            session = Session(journal, catalog)
            cut = int(kill_at * len(moves))
            for n, raw in enumerate([setup] + moves):
                out = session.apply(parse_action(raw))
                if not isinstance(out, Rejection):
                    shown.append(table_json(session.table))
                if n == cut:                          # what a SIGKILL here would leave
                    copy = sqlite3.connect(snapshot)
                    copy.execute("PRAGMA synchronous=OFF")
                    journal.db.backup(copy)
                    copy.close()
                    at_kill = shown[-1]
            live, game_id = table_json(session.table), session.game_id

        out = io.StringIO()
        assert history.run(path, game_id, "json", out=out) == 0
        assert json.loads(out.getvalue()) == live
        script = os.path.join(d, "export.jsonl")
        with open(script, "w", encoding="utf-8") as fh:
            assert history.run(path, game_id, "script", out=fh) == 0
        out, err = io.StringIO(), io.StringIO()
        assert replay.run(script, True, True, None, out=out, err=err) == 0, err.getvalue()
        assert json.loads(out.getvalue()) == live

        with Journal(path, readonly=True) as journal:    # resume, whatever the catalog says
            assert table_json(Session(journal, later_catalog).table) == live
        with Journal(snapshot, readonly=True) as journal:
            assert table_json(Session(journal, later_catalog).table) == at_kill
