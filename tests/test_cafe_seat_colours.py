"""The café's leaderboard and players called by their seat's colour ("Play with seat
colours"): one anonymous seat is one row whatever language named it, shown in the page's
language; the stored results keep the names as recorded."""
import json

from companion.cafe.hub import Hub
from companion.cafe.leaderboard import standings
from companion.cafe.store import Store, month_of
from companion.core.journal import Journal
from companion.core.seat_colours import called_by_colour
from companion.core.session import Session
from companion.outputs.mqtt import topics
from cafe_simulate import table_settings
from tests.cafe_fixtures import VENUE, broker, hub, pages, tables, wait_until  # noqa: F401
from test_seat_colour_names import coloured_finished_game

KOREAN = {'"Red"': '"빨강"', '"Blue"': '"파랑"', '"Green"': '"초록"'}


def results(tmp_path) -> list[dict]:
    """The same finished game (Red, Blue and Green called by their seats' colours, Dae by
    their own name) played in English, then set up in Korean: the tables' results."""
    korean = []
    for text_line in coloured_finished_game():
        for en, ko in KOREAN.items():
            text_line = text_line.replace(en, ko)
        korean.append(text_line)
    with Journal(str(tmp_path / "journal.db"), durable=False) as journal:
        s = Session(journal)
        for script in (coloured_finished_game(), korean):
            for text_line in script:
                if text_line.startswith("{"):
                    assert not hasattr(s.apply_line(text_line), "code"), text_line
        games = journal.games()
    return [topics.result_payload(g, venue=VENUE, name="t1", expansion=None) for g in games]


def test_a_result_marks_the_players_called_by_their_seat_s_colour(tmp_path):
    english, korean = results(tmp_path)
    assert english["players"][0] == {"name": "Red", "score": english["players"][0]["score"],
                                     "seat_colour": "red"}
    assert [p.get("seat_colour") for p in korean["players"]] == ["red", "blue", "green", None]
    assert [p["name"] for p in korean["players"]] == ["빨강", "파랑", "초록", "Dae"]   # as given


def test_a_colour_two_players_are_called_by_marks_neither():
    assert called_by_colour(["Red", "Ana", "Green"]) == ["red", None, "green"]
    assert called_by_colour(["Red", "Blue"], ("blue", "red")) == [None, None]   # typed
    # "빨강" typed on the blue seat: red's "Red" is not taken as the seat, as on the table
    assert called_by_colour(["Red", "빨강", "Green"]) == [None, None, "green"]


def test_one_seat_colour_is_one_row_in_the_page_s_language(tmp_path):
    games = results(tmp_path)
    korean = {r["name"]: r for r in standings(games, "ko")}
    assert set(korean) == {"빨강", "파랑", "초록", "Dae"}, korean
    assert all(r["games"] == 2 for r in korean.values())
    assert korean["빨강"]["seat_colour"] == "red" and korean["Dae"]["seat_colour"] is None
    assert {r["name"] for r in standings(games, "it")} == {"Rosso", "Blu", "Verde", "Dae"}
    # a player who typed another seat's colour ("Red" on the blue seat) is their own row
    swapped = json.loads(json.dumps(games[0]).replace('"Red"', '"X"')
                         .replace('"Blue"', '"Red"').replace('"X"', '"Blue"'))
    for p in swapped["players"][:2]:
        p.pop("seat_colour")
    rows = standings([swapped, games[1]], "en")
    assert [r["name"] for r in rows].count("Red") == 2, rows      # the seat, and the player


def test_the_leaderboard_asks_in_its_language_and_the_store_keeps_the_record(tmp_path,
                                                                             pages):  # noqa: F811
    store = Store(str(tmp_path / "cafe.db"))
    try:
        hub = Hub(table_settings("127.0.0.1", 1, VENUE, "-"), store)
        games = results(tmp_path)
        for r in games:
            assert hub.handle(f"coffee-rush/{VENUE}/t1/result", topics.dumps(r)) == "new"
        client = pages(hub)
        month = month_of(games[0]["ended_at"])
        data = client.get(f"/api/leaderboard?month={month}&lang=ko").json()
        assert {r["name"] for r in data["rows"]} == {"빨강", "파랑", "초록", "Dae"}
        page = client.get("/leaderboard?lang=ko").text
        assert 'fetch("api/leaderboard?lang=" + LANG' in page
        kept = store.results_of(VENUE, month)
        assert [p["name"] for p in kept[0]["players"]] == ["Red", "Blue", "Green", "Dae"]
    finally:
        store.close()


def test_through_the_broker_the_floor_and_the_board_name_the_seat_in_the_page_s_language(
        hub, tables, pages):  # noqa: F811
    t = tables("table-c", seed=3)
    t.names = ["Blue", "Red", "Ana"]             # the wizard's seat-colour names, in English,
    t.seat_colors = ("blue", "red", "green")     # on seats the table chose
    t.play_game()
    client = pages(hub)
    assert wait_until(lambda: hub.counts["results_new"] == 1)
    assert wait_until(lambda: [c["phase"] for c in client.get("/api/floor").json()["tables"]]
                      == ["over"])
    card = client.get("/api/floor?lang=ko").json()["tables"][0]
    assert sorted(p["name"] for p in card["players"]) == ["Ana", "빨강", "파랑"], card
    assert not {"Blue", "Red"} & set(card["winners"]), card
    rows = client.get("/api/leaderboard?lang=es").json()["rows"]
    assert {(r["name"], r["seat_colour"]) for r in rows} == {
        ("Azul", "blue"), ("Rojo", "red"), ("Ana", None)}, rows
    state = hub.store.floor(VENUE)[0]["state"]          # the hub keeps what the table said
    assert [p["name"] for p in state["players"]] == ["Blue", "Red", "Ana"]
