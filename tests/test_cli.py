import io
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          input=stdin, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))


GAME = b"""{"do": "setup", "edition": "winter", "players": ["Ana", "Ben"]}
# a comment

{"do": "complete", "specialty": true}
{"do": "fly"}
\xff\xfe not utf-8
{"do": "end_turn"}
"""


def test_replay_json_from_stdin_reports_rejections_with_physical_line_numbers():
    r = cli("replay", "-", "--json", stdin=GAME)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["schema"] == 1 and out["active"] == "Ben" and out["turn"] == 2
    assert out["players"][0]["likes"] == 1 and out["players"][0]["cookies"] == 2
    assert out["players"][0]["score"] == 2
    assert [x["line"] for x in out["rejected"]] == [5, 6]
    assert out["rejected"][0]["reason"] == '"fly" is not an action the companion knows'


def test_replay_strict_stops_at_the_first_rejected_line(tmp_path):
    p = tmp_path / "g.jsonl"
    p.write_bytes(GAME)
    r = cli("replay", str(p), "--strict")
    assert r.returncode == 1
    assert r.stderr.decode().strip() == 'line 5: "fly" is not an action the companion knows'


def test_replay_of_an_unreadable_file_exits_2(tmp_path):
    r = cli("replay", str(tmp_path / "missing.jsonl"))
    assert r.returncode == 2 and b"cannot read" in r.stderr and b"Traceback" not in r.stderr


def test_replay_text_summary_and_db_then_history(tmp_path):
    db = str(tmp_path / "j.db")
    p = tmp_path / "g.jsonl"
    p.write_bytes(GAME)
    r = cli("replay", str(p), "--db", db)
    assert r.returncode == 0 and b"Ben to play" in r.stdout
    # the same journal continues the running game
    r = cli("replay", "-", "--db", db, "--json", stdin=b'{"do": "end_turn"}\n')
    assert json.loads(r.stdout)["turn"] == 3
    r = cli("history", "--db", db)
    assert r.returncode == 0 and b"Ana, Ben" in r.stdout and b"running" in r.stdout
    r = cli("history", "--db", db, "--export", "1")
    lines = [x for x in r.stdout.decode().splitlines() if not x.startswith("#")]
    assert [json.loads(x)["do"] for x in lines] == ["setup", "complete", "end_turn", "end_turn"]
    # the exported script replays to the same state
    again = cli("replay", "-", "--json", stdin=r.stdout)
    state = cli("history", "--db", db, "--export", "1", "--format", "json")
    assert json.loads(again.stdout) == json.loads(state.stdout)
    r = cli("history", "--db", db, "--export", "9")
    assert r.returncode == 2 and b"no game 9" in r.stderr


def test_history_of_a_damaged_journal_is_a_clear_error(tmp_path):
    bad = tmp_path / "j.db"
    bad.write_bytes(b"garbage" * 1000)
    r = cli("history", "--db", str(bad))
    assert r.returncode == 2 and str(bad).encode() in r.stderr and b"Traceback" not in r.stderr


def test_replay_does_not_import_pygame_or_hardware():
    code = ("import sys, io; from companion.commands import cli;"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(b''));"
            "cli.main(['replay', '-', '--json']);"
            "bad = [m for m in ('pygame', 'gpiozero', 'serial', 'neopixel', 'board')"
            " if m in sys.modules];"
            "sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr


def test_demo_plays_a_whole_game_to_a_ranking():
    for args in (["--seed", "5"], ["--edition", "winter", "--players", "2", "--seed", "2"],
                 ["--edition", "winter", "--variant", "junior", "--players", "Mia,Leo,Zoe,Kai"]):
        r = cli("demo", *args)
        assert r.returncode == 0, r.stderr
        out = r.stdout.decode()
        assert "Final ranking:" in out and "Game over." in out
        # in words: no ids (upgrade_name, five_dislikes) and no dict dumps
        assert "_" not in out and "{" not in out and "1 likes" not in out
        # each score as the end screen breaks it down; tokens only break ties
        ranked = [line for line in out.splitlines() if line.startswith("  1. ")]
        assert ranked and " likes × " in ranked[0] and "ties only" in ranked[0], ranked
        assert ("upgrade" in ranked[0]) == ("junior" not in args), ranked
    r = cli("demo", "--variant", "junior")
    assert r.returncode == 2 and b"Winter" in r.stderr


def test_demo_is_reproducible_by_seed():
    a, b = cli("demo", "--seed", "9"), cli("demo", "--seed", "9")
    assert a.stdout == b.stdout


def test_history_lists_a_cake_time_game_with_its_expansion(tmp_path):
    from companion.review import history
    db = str(tmp_path / "j.db")
    script = tmp_path / "cake.jsonl"
    script.write_text('{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
                      '"expansion": "cake_time"}\n',
                      encoding="utf-8")
    assert cli("replay", str(script), "--db", db).returncode == 0
    out = io.StringIO()
    assert history.run(db, None, "script", out=out) == 0
    first = out.getvalue().splitlines()[0]
    assert "original+cake_time" in first
