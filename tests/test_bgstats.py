"""The BG Stats link: fields, JSON types, escaping of accents and Hangul, UTC play
date, a stable play id, and a QR code that decodes back to the link."""
import io
import json
from urllib.parse import unquote, urlsplit, parse_qs

import pytest
from pyzbar import pyzbar

from companion.review import bgstats, history
from played_games import NAMES, finished_game


def export(db, fmt="bgstats", game=1):
    out, err = io.StringIO(), io.StringIO()
    code = history.run(db, game, fmt, out=out, err=err, location="Café Ñ 서울")
    return code, out.getvalue(), err.getvalue()


def decode_link(link: str) -> dict:
    assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    query = urlsplit(link).query
    assert set(query) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789%-_.!~*'():,=")      # plain ASCII, nothing raw
    (data,) = parse_qs(query)["data"]                        # as a browser would split it
    assert json.loads(unquote(query[len("data="):])) == json.loads(data)
    return json.loads(data)


def qr_text(code) -> str:
    """Decode a segno QR code with zbar (a real decoder), from its pixels."""
    rows = [bytes(0 if dark else 255 for dark in row) for row in code.matrix_iter(scale=3)]
    found = pyzbar.decode((b"".join(rows), len(rows[0]), len(rows)))
    assert len(found) == 1
    return found[0].data.decode("utf-8")


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return finished_game(tmp_path_factory.mktemp("bg") / "journal.db")


def test_the_play_has_every_field_typed(db):
    code, out, err = export(db)
    assert code == 0, err
    play = decode_link(out.strip())
    assert play["sourceName"] == "Coffee Rush Table Companion"
    assert play["playDate"] == "2026-11-23 15:00:00"
    assert play["durationMin"] == 37 and isinstance(play["durationMin"], int)
    assert play["location"] == "Café Ñ 서울"
    assert play["board"] == "Coffee Rush · Standard"
    game = play["game"]
    assert game == {"name": "Coffee Rush", "bggId": 377061, "sourceGameId": "coffee-rush",
                    "highestWins": True, "noPoints": False}
    assert type(game["bggId"]) is int and type(game["highestWins"]) is bool
    players = play["players"]
    assert [p["name"] for p in players] == NAMES            # accents, quotes, Hangul intact
    assert [p["rank"] for p in players] == [2, 3, 1]
    assert [p["score"] for p in players] == [5, 2, 7]
    assert [p["winner"] for p in players] == [False, False, True]
    assert [p["startPlayer"] for p in players] == [False, True, False]
    assert [p["role"] for p in players] == ["Red", "Blue", "Green"]
    for p in players:
        assert set(p) == {"name", "sourcePlayerId", "score", "rank", "winner", "startPlayer",
                          "role"}
        assert type(p["score"]) is int and type(p["rank"]) is int
        assert type(p["winner"]) is bool and type(p["startPlayer"]) is bool
    assert len({p["sourcePlayerId"] for p in players}) == 3


def test_play_id_is_stable_and_unique_per_game(db, tmp_path):
    first = decode_link(export(db)[1].strip())["sourcePlayId"]
    assert decode_link(export(db)[1].strip())["sourcePlayId"] == first
    other = finished_game(tmp_path / "other.db", start=1795446000.0 + 3600)
    assert decode_link(export(other)[1].strip())["sourcePlayId"] != first
    assert first.startswith("coffee-rush-" + bgstats.device_id() + "-1-")


def test_play_date_is_utc_whatever_the_offset():
    assert f"{bgstats.utc('2026-11-23T16:00:00+01:00'):%Y-%m-%d %H:%M:%S}" \
        == "2026-11-23 15:00:00"


def test_a_running_game_has_no_play_yet(tmp_path):
    from companion.core.journal import Journal
    from companion.core.session import Session
    db = str(tmp_path / "j.db")
    with Journal(db) as j:
        Session(j).apply_line('{"do": "setup", "edition": "winter", "players": ["A", "B"]}')
    code, out, err = export(db)
    assert code == 2 and out == "" and "not finished" in err


def test_the_qr_code_decodes_back_to_the_link(db):
    link = export(db)[1].strip()
    code = bgstats.qr(link)
    assert code.error == "L"
    assert qr_text(code) == link


def test_csv_export_keeps_names_and_rankings(db):
    import csv
    code, out, _ = export(db, "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["player"] for r in rows] == NAMES
    assert [r["place"] for r in rows] == ["2", "3", "1"]
    assert [r["winner"] for r in rows] == ["False", "False", "True"]


def test_the_history_command_prints_the_same_link(db, tmp_path):
    import subprocess
    import sys
    config = tmp_path / "config.toml"
    config.write_text('[bgstats]\nlocation = "Café Ñ 서울"\n', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "companion", "--config", str(config), "history",
                        "--db", db, "--export", "1", "--format", "bgstats"], capture_output=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.decode() == export(db)[1]


def test_board_names_edition_variant_expansion_and_options():
    state = {"edition": "original", "variant": "standard"}
    assert bgstats.board(state, {"do": "setup", "expansion": "cake_time", "longer_game": True,
                                 "ristretto_start": False}) \
        == "Coffee Rush · Standard · Cake Time · longer game"
    assert bgstats.board({"edition": "winter", "variant": "junior"}, {"do": "setup"}) \
        == "Coffee Rush: Winter · Junior Barista"
