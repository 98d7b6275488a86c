"""Each game plays, and always replays, under the table-script version it was recorded under.

``fixtures/journal-rules-1.1.db`` was written by the companion of table script 1.1 (commit
412be53) from ``fixtures/journal-rules-1.1.jsonl``: a Winter game whose cards were scanned in
1.1's deal order, a token won by this turn's order spent at once, and a fifth dislike put
right that (under 1.1) left the shop closed, so the game ended after Ana's turn.
``journal-rules-1.1.expected.json`` is what that companion's replay printed. Under 1.2 the
same lines would play differently; the recorded game must not.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from companion.core.journal import Journal
from companion.core.rules.editions import RULES
from companion.core.rules.view import table_json
from companion.core.session import Session
from inprocess import cli

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "journal-rules-1.1.expected.json").read_text("utf-8"))
SCRIPT = (FIXTURES / "journal-rules-1.1.jsonl").read_text("utf-8")


def copy(tmp_path) -> Path:
    path = tmp_path / "journal.db"
    shutil.copy(FIXTURES / "journal-rules-1.1.db", path)
    return path


def without_rejected(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "rejected"}


def test_a_1_1_journal_resumes_and_exports_as_its_table_showed(tmp_path):
    path = copy(tmp_path)
    with Journal(str(path)) as j:
        assert [g.rules for g in j.games()] == ["1.1"]
        assert without_rejected(table_json(Session(j).table)) == without_rejected(EXPECTED)
    out = cli("history", "--db", str(path), "--export", "1", "--format", "json")
    assert json.loads(out.stdout) == EXPECTED
    listing = cli("history", "--db", str(path)).stdout
    assert "winner: Ben" in listing and "(table script 1.1)" in listing
    # the exported script says its version, so a replay of it shows the same game
    script = cli("history", "--db", str(path), "--export", "1").stdout
    assert "# table-script 1.1" in script.splitlines()
    again = cli("replay", "-", "--json", "--strict", stdin=script.encode())
    assert json.loads(again.stdout) == EXPECTED, again.stderr


def test_the_same_lines_under_1_2_play_the_current_rules():
    now = cli("replay", "-", "--json", stdin=SCRIPT.encode())
    state = json.loads(now.stdout)
    assert state != EXPECTED
    # Ben's position 1 holds his first card and his extra card (W1 and, unscanned, the 7th)
    ben = next(p for p in state["players"] if p["name"] == "Ben")
    assert ben["likes"] == 1
    assert [r["line"] for r in state["rejected"]] == [8]       # this turn's token waits
    assert not state["game_over"] and state["token"] == "open"  # the correction re-opened
    old = cli("replay", "-", "--json", "--rules", "1.1", stdin=SCRIPT.encode())
    assert json.loads(old.stdout) == EXPECTED
    marked = cli("replay", "-", "--json", stdin=("# table-script 1.1\n" + SCRIPT).encode())
    assert without_rejected(json.loads(marked.stdout)) == without_rejected(EXPECTED)


def test_a_new_game_in_an_old_journal_is_recorded_under_the_current_version(tmp_path):
    path = copy(tmp_path)
    with Journal(str(path)) as j:
        session = Session(j)
        session.apply_line('{"do": "setup", "edition": "winter", "players": ["Ana", "Ben"]}')
        assert session.table.game.rules_version == RULES
        assert [g.rules for g in j.games()] == ["1.1", RULES]
    with Journal(str(path)) as j:                       # resumed: still the current rules
        assert Session(j).table.game.rules_version == RULES


def test_an_unknown_version_is_refused_in_words():
    out = cli("replay", "-", "--json", "--rules", "0.9", stdin=SCRIPT.encode())
    assert out.returncode == 2 and "0.9" in out.stderr and "1.2" in out.stderr
    out = cli("replay", "-", "--json", stdin=("# table-script 3.0\n" + SCRIPT).encode())
    assert out.returncode == 0 and "line 1: table script 3.0" in out.stderr


# --- table script 1.3: open tiles are counted per player ------------------------------------

FIVE_KINDS = "\n".join([
    '{"do": "setup", "edition": "winter", "players": ["Ana", "Ben"]}',
    '{"do": "correct", "player": "Ana", "likes": 15}',
    '{"do": "correct", "player": "Ben", "likes": 15}',
    *[f'{{"do": "activate_upgrade", "upgrade": "{u}"}}\n{{"do": "end_turn"}}\n{{"do": "end_turn"}}'
      for u in ("jump", "double_destination", "double_corners", "diagonal_movement")],
    '{"do": "end_turn"}',
    '{"do": "activate_upgrade", "upgrade": "double_meeples"}',    # Ben: a fifth kind
]) + "\n"


def test_a_fifth_kind_of_tile_is_ben_s_own_under_1_3_and_refused_under_1_2():
    now = json.loads(cli("replay", "-", "--json", stdin=FIVE_KINDS.encode()).stdout)
    assert now["rejected"] == [] and now["players"][1]["upgrades"] == ["double_meeples"]
    old = json.loads(cli("replay", "-", "--json", stdin=("# table-script 1.2\n" + FIVE_KINDS)
                         .encode()).stdout)
    assert [r["line"] for r in old["rejected"]] == [18]   # (after the mark)
    assert "fifth tile" in old["rejected"][0]["reason"] and old["players"][1]["upgrades"] == []


def test_a_game_recorded_under_1_2_keeps_its_rules_when_resumed(tmp_path):
    path = str(tmp_path / "journal.db")
    lines = FIVE_KINDS.splitlines()
    with Journal(path) as j:
        session = Session(j)
        session.rules = "1.2"                   # what the 1.2 companion recorded games under
        for text in lines[:-1]:
            session.apply_line(text)
        assert [g.rules for g in j.games()] == ["1.2"]
    with Journal(path) as j:                    # the 1.3 companion resumes it: still 1.2
        session = Session(j)
        assert session.table.game.rules_version == "1.2"
        refused = session.apply_line(lines[-1])
        assert getattr(refused, "code", None) == "upgrade_fifth_tile", refused
    out = cli("history", "--db", path, "--export", "1").stdout
    assert "# table-script 1.2" in out.splitlines()
