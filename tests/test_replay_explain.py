"""``coffee-companion replay --explain SCRIPT``: per accepted line the cause of each
automatic ruling it made, per refused line the reason; checked by hand on a short game."""
from __future__ import annotations

import pytest

from inprocess import cli

# Original game, 3 players, Ana starts. The deal gives Ana 3 cards (2 in position 1, 1 in
# position 2), Ben and Chloe 2 each; the deck is corrected to 3. Ana completes 2 orders, so
# Ben and Chloe must each draw 2: Ben takes 2, 1 card is left, Chloe takes it. The deck is
# empty: the shop closes. Ben cannot upgrade with 0 likes. Ben ends his turn: Chloe, who
# sits before Ana, plays the last turn. Chloe ends it: game over, Ana 2 points, Ben and
# Chloe 0 with 0 likes and 0 rush tokens each, so they share second place.
SCRIPT = """\
# hand-checked: Ana's surge with 3 cards left, a refused upgrade, the final round
{"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"], "start": "Ana"}
{"do": "correct", "deck": 3}
{"do": "complete"}
{"do": "complete"}
{"do": "end_turn"}
{"do": "activate_upgrade", "upgrade": "double_corners"}
{"do": "end_turn"}
{"do": "end_turn"}
{"do": "end_turn"
"""

EXPECTED = """\
line 6: Ana completed 2 orders, so Ben and Chloe each draw 2 (1 left in the deck: Chloe draws 1)
line 6: Ana's order surge took the last 3 cards of the order deck, so the shop is CLOSED
line 7: Nothing changed (upgrade): Ben needs 3 likes to upgrade (has 0)
line 8: Chloe plays the last turn: the shop is CLOSED and Chloe sits just before Ana, the \
starting player
line 9: Ben and Chloe have the same score (0), likes (0) and rush tokens (0): nothing breaks \
the tie, so they share place 2
line 10: Nothing changed: Not valid JSON at column 1: the `{` here is never closed
"""


def test_replay_explain_prints_each_ruling_and_refusal_of_a_hand_checked_game(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(SCRIPT, encoding="utf-8")
    r = cli("replay", "--explain", str(path))
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == EXPECTED


def test_replay_explain_speaks_the_language_asked_and_reads_standard_input():
    r = cli("replay", "--explain", "--language", "es", "-", stdin=SCRIPT.encode())
    assert r.returncode == 0
    first = r.stdout.splitlines()[0]
    assert first == ("line 6: Ana completó 2 pedidos, así que Ben y Chloe roban 2 cada uno "
                     "(solo 1 en el mazo: Chloe roba 1)")
    assert len(r.stdout.splitlines()) == len(EXPECTED.splitlines())


def test_replay_explain_refuses_an_unknown_language_and_json_at_once(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(SCRIPT, encoding="utf-8")
    r = cli("replay", "--explain", "--language", "xx", str(path))
    assert r.returncode == 2 and "en, es, pt, it, ko" in r.stderr and r.stdout == ""
    with pytest.raises(SystemExit) as stopped:          # argparse's own usage error
        cli("replay", "--explain", "--json", str(path))
    assert stopped.value.code == 2


def test_replay_without_explain_is_unchanged(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(SCRIPT, encoding="utf-8")
    r = cli("replay", str(path))
    assert r.returncode == 0 and "line 7: ben needs 3 likes" in r.stdout.lower()
    assert "Nothing changed" not in r.stdout
