"""The game's story (companion/review/story.py): scores round by round and the turning points.

Checked three ways: against the hand-computed numbers in the comments of
``tests/scripts/story_3p.jsonl`` and ``five_dislikes_winter.jsonl``; against an
independent reading of every script in ``tests/scripts`` (each line applied through a
session, the scores noted whenever a round ends and forgotten when an undo takes the
round back); and on whole demo games played by the bots."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from companion.appliance import demo
from companion.appliance.config import LANGUAGES
from companion.core.journal import Journal
from companion.review.replay import rules_mark
from companion.core.rules import Rejection
from companion.core.rules.scoring import ranking, score
from companion.core.session import Session, rebuild
from companion.review.story import Story, story_of
from companion.review.story_words import point_text, round_text
from played_games import finished_game

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def played(name: str) -> Session:
    """A script played as ``replay`` plays it: refused lines change nothing."""
    session = Session(None)
    for text in (SCRIPTS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        version = rules_mark(text)
        if version is not None:
            session.rules = version
            continue
        session.apply_line(text)
    return session


def story(name: str) -> Story:
    s = story_of(played(name).table)
    assert s is not None
    return s


def test_story_3p_as_computed_by_hand():
    s = story("story_3p")
    assert s.players == ("Ana", "Ben", "Cy") and s.start == 1 and s.finished
    # Ana, Ben, Cy after the setup and at the end of rounds 1, 2 and 3 (the script's
    # comments): Cy's undone triple completion in round 1 never counts
    assert s.rounds == ((0, 0, 0), (0, 2, 2), (0, 3, 5), (-1, 4, 6))
    assert s.scores_of(2) == [0, 2, 5, 6]
    assert [(p.key, p.round, p.turn, p.kwargs) for p in s.points] == [
        ("surge", 2, 5, {"player": "Cy", "count": 3, "draws": (("Ana", 3), ("Ben", 3))}),
        ("lead_from", 2, 6, {"player": "Cy"}),
        ("upgrade", 3, 7, {"player": "Ben", "upgrade": "double_meeples"}),
        ("last_card", 3, 7, {"player": "Ana"}),
    ]
    assert [p.key for p in s.highlights()] == ["surge", "lead_from", "last_card"]
    assert [p.key for p in s.highlights(2)] == ["lead_from", "last_card"]


def test_five_dislikes_winter_as_its_comments_say():
    """Ana takes dislikes at turns 5, 7 (two), 9 and 11; Ben his fourth at turn 12;
    nothing else scores (Winter: -1 a dislike). The closing undo + redo count once."""
    s = story("five_dislikes_winter")
    assert [r[0] for r in s.rounds] == [0, 0, 0, -1, -3, -4, -5]
    assert s.rounds[-1] == (-5, -4)
    fifth = [p for p in s.points if p.key == "fifth_dislike"]
    assert [(p.round, p.turn, p.kwargs) for p in fifth] == [
        (6, 11, {"player": "Ana", "fixed": False})]
    assert point_text("en", fifth[0]) == "Ana took a fifth dislike and the shop closed"
    # a tie in round 3 (-1 each), then Ben ahead from round 4 to the end
    lead = [p for p in s.points if p.key.startswith("lead")]
    assert [(p.key, p.round, p["player"]) for p in lead] == [("lead_from", 4, "Ben")]


def independent_rounds(lines: list[str]) -> tuple[list, list]:
    """Each round's end scores, read line by line without the story's method: the turn
    counter says how many rounds are over; an undo that takes a round back forgets it.
    Also the scores after the whole script (a correction after the game counts)."""
    session = Session(None)
    ends: dict[int, tuple] = {}
    for text in lines:
        version = rules_mark(text)
        if version is not None:
            session.rules = version
            continue
        outcome = session.apply_line(text)
        if outcome is None or isinstance(outcome, Rejection):
            continue
        game = session.table.game
        if game is None:
            continue
        if json.loads(text)["do"] == "setup":
            ends = {}
        n = len(game.players)
        done = (game.turn - 1) // n + (1 if game.game_over else 0)
        ends = {r: v for r, v in ends.items() if r <= done}
        if done and done not in ends:
            ends[done] = tuple(score(game.edition, p) for p in game.players)
    game = session.table.game
    final = [] if game is None else [score(game.edition, p) for p in game.players]
    return [ends[r] for r in sorted(ends)], final


SCRIPT_NAMES = sorted(p.name[:-len(".jsonl")] for p in SCRIPTS.glob("*.jsonl"))


@pytest.mark.parametrize("name", SCRIPT_NAMES)
def test_every_scripts_rounds_equal_the_engines_scores_at_each_round_end(name):
    rounds, final = independent_rounds(
        (SCRIPTS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines())
    s = story_of(played(name).table)
    if s is None:
        assert final == []
        return
    got = list(s.rounds[1:])
    if s.finished and got:
        assert got[-1] == tuple(final)        # the final ranking's scores
        got, rounds = got[:-1], rounds[:-1]
    assert got == rounds
    for p in s.points:
        assert 1 <= p.round <= max(1, s.round_count + 1)


@pytest.mark.parametrize("seed,edition,players", [(2, "original", 4), (4, "winter", 2)])
def test_a_whole_demo_game(tmp_path, seed, edition, players):
    db = str(tmp_path / "demo.db")
    demo.run(edition=edition, players=players, seed=seed, db=db, out=io.StringIO())
    with Journal(db, readonly=True) as journal:
        g = journal.games()[-1]
        lines = journal.lines(g.id)
    table = rebuild(lines, rules=g.rules).table
    s = story_of(table)
    assert s is not None and s.finished
    # every round ends where the turn counter says, line by line through a session
    rounds, final = independent_rounds(lines)
    assert list(s.rounds[1:]) == rounds and list(s.rounds[-1]) == final
    assert s.rounds[-1] == tuple(r.score for r in sorted(
        ranking(table.game), key=lambda r: s.players.index(r.name)))
    closing = [p for p in s.points if p.key in ("last_card", "fifth_dislike")]
    assert len(closing) == 1 and closing[0].round == s.round_count
    assert 1 <= len(s.highlights()) <= 3
    sole = [r.index(max(r)) if r.count(max(r)) == 1 else None for r in s.rounds[1:]]
    lead = [p for p in s.points if p.key in ("lead", "lead_from")]
    if sole[-1] is None:
        assert lead == []                      # a tie at the end: nobody kept the lead
    else:
        (p,) = lead
        assert p["player"] == s.players[sole[-1]] and sole[p.round - 1] == sole[-1]
        assert all(x in (None, sole[-1]) for x in sole[p.round - 1:])
        earlier = [x for x in sole[:p.round - 1] if x is not None]
        if p.key == "lead":
            assert earlier and s.players[earlier[-1]] == p["previous"] != p["player"]
        else:
            assert earlier == []


def test_a_correction_after_the_game_counts_in_its_last_round(tmp_path):
    path = finished_game(tmp_path / "j.db")
    with Journal(path, readonly=True) as journal:
        g = journal.games()[-1]
        table = rebuild(journal.lines(g.id), rules=g.rules).table
    s = story_of(table)
    assert s.finished and s.round_count == 1
    assert s.rounds[-1] == (6 - 1, 2, 7)                 # names[0] has 1 dislike
    assert [p.key for p in s.points] == ["fifth_dislike", "lead_from"]


def test_a_shop_reopened_by_a_correction_never_closed_in_the_story():
    """reopen_by_correction_3p: a mistaken fifth dislike, then a deck miscounted to 0,
    close the shop; each is put right and the shop opens again (1.2): the story keeps
    none of those closings. Stopped before the last correction, the deck's is kept."""
    s = played("reopen_by_correction_3p")
    assert s.table.game.token == "open"
    assert story_of(s.table).points == ()
    lines = (SCRIPTS / "reopen_by_correction_3p.jsonl").read_text(encoding="utf-8")
    before = [x for x in lines.splitlines()[:17] if x.startswith("{")]   # up to line 16
    st = story_of(rebuild(before).table)
    assert [(p.key, p["player"], p.round) for p in st.points] == [("last_card", None, 2)]


def test_no_game_no_story_and_a_game_without_a_round():
    assert story_of(Session(None).table) is None
    s = Session(None)
    s.apply_line('{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}')
    st = story_of(s.table)
    assert st.rounds == ((0, 0),) and st.round_count == 0 and st.points == ()
    assert not st.finished


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_turning_point_reads_in_every_language(lang):
    points = [p for name in ("story_3p", "five_dislikes_winter", "deck_exact_zero_4p",
                             "ranking_tie_breaks", "junior_game", "three_orders_every_count",
                             "deck_exact_zero_every_count") for p in story(name).points]
    keys = {p.key for p in points}
    assert keys == {"surge", "upgrade", "last_card", "fifth_dislike", "orders_done", "lead",
                    "lead_from"}
    assert any(p.key == "last_card" and p["player"] is None for p in points)   # corrected
    for p in points:
        text = point_text(lang, p)
        assert text and "{" not in text and "story." not in text, (p, text)
        for name in ("player", "previous"):
            if p.kwargs.get(name):
                assert p[name] in text
        assert str(p.round) in round_text(lang, p)
    surge = next(p for p in points if p.key == "surge")
    assert "3" in point_text(lang, surge)


def test_a_fifth_dislike_set_by_fix_is_told_as_a_correction():
    """Fix setting a count to 5 is no dislike taken: the story says the count was
    corrected, in every language."""
    session = Session(None)
    session.apply_line('{"do": "setup", "edition": "original", "players": ["Ana", "Ben"]}')
    session.apply_line('{"do": "correct", "player": "Ben", "dislikes": 5}')
    session.apply_line('{"do": "end_turn"}')
    s = story_of(session.table)
    fifth = [p for p in s.points if p.key == "fifth_dislike"]
    assert [p.kwargs for p in fifth] == [{"player": "Ben", "fixed": True}]
    assert point_text("en", fifth[0]) == "Ben's dislikes were corrected to 5 and the shop closed"
    for lang in LANGUAGES:
        assert "Ben" in point_text(lang, fifth[0])
