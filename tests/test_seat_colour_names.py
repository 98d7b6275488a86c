"""Names "Play with seat colours" gave follow the language everywhere people see them
(issue 40), while the journal keeps them as they were given.

The rule (``companion.core.seat_colours.shown_name``): a player's name that is exactly
its own seat's colour in one of the five languages shows as that colour in the language
of the moment; any other name (a player's own, another seat's colour) stays as it is.
"""
from __future__ import annotations

import html
import json
import logging
import re
import shutil
import subprocess

import httpx
import pytest

from recorder import Recorder
from ui_touch import has_widget, line, make_app, touch, widget
from web_fixtures import new_game, service_with_web  # noqa: F401 - fixture

from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.journal import Journal
from companion.core.loop import LogSubscriber, TableLoop
from companion.core.rules import happenings as hp
from companion.core import seat_colours, teaching
from companion.core.seat_colours import colour_words, shown_happening, shown_name, shown_names
from companion.core.session import Session, rebuild
from companion.outputs.screen import screenshots
from companion.outputs.screen.screens.end import EndScreen
from companion.outputs.screen.screens.setup_wizard import WizardScreen
from companion.outputs.voice import phrases_for
from companion.outputs.web import pages
from companion.outputs.web.live import LiveTable
from companion.outputs.web.why import why_json
from companion.review import summary
from timing import scaled


def test_a_seat_colour_name_follows_the_language_and_any_other_name_stays():
    assert colour_words("blue") == {"Blue", "Azul", "Blu", "파랑"}
    for given in ("Blue", "Azul", "Blu", "파랑"):
        assert shown_name("ko", given, "blue") == "파랑"
        assert shown_name("it", given, "blue") == "Blu"
        assert shown_name("en", given, "blue") == "Blue"
    assert shown_name("ko", "Ana", "blue") == "Ana"           # a player's own name
    assert shown_name("ko", "Blue", "red") == "Blue"          # another seat's colour: typed
    assert shown_name("ko", "blue", "blue") == "blue"         # not as the setup gives it
    assert shown_name("ko", "Blue Team", "blue") == "Blue Team"


def test_a_game_s_names_never_come_to_look_alike():
    assert shown_names("ko", ["Red", "Blue", "Ana"]) == {"Red": "빨강", "Blue": "파랑",
                                                          "Ana": "Ana"}
    # the box's order unless the setup chose: here blue sits first, red second
    assert shown_names("ko", ["Blue", "Red"], ["blue", "red"]) == {"Blue": "파랑",
                                                                   "Red": "빨강"}
    assert shown_names("ko", ["Blue", "Red"]) == {"Blue": "Blue", "Red": "Red"}
    # a player typed "빨강" on the blue seat: the red seat's "Red" stays "Red" in Korean
    assert shown_names("ko", ["Red", "빨강"]) == {"Red": "Red", "빨강": "빨강"}


def test_a_happening_names_the_players_as_shown_and_stays_what_it_was():
    names = shown_names("ko", ["Red", "Blue", "Ana"])
    turn = hp.TurnChanged(player="Blue", previous="Red", turn=3)
    assert shown_happening(turn, names) == hp.TurnChanged(player="파랑", previous="빨강", turn=3)
    assert turn.player == "Blue"
    draws = hp.CardsToDraw(draws=(("Blue", 2), ("Ana", 1)), reason="order_surge")
    assert shown_happening(draws, names).draws == (("파랑", 2), ("Ana", 1))
    over = hp.GameOver(ranking=(hp.RankEntry("Red", 3, 3, 0, 1),), winners=("Red",))
    shown = shown_happening(over, names)
    assert shown.winners == ("빨강",) and shown.ranking[0].name == "빨강"
    assert shown_happening(turn, shown_names("en", ["Red", "Blue"])) is turn


# --- the touchscreen --------------------------------------------------------------------

def colour_game(players: int = 3):
    """A game set up by touch in English with "Play with seat colours"."""
    loop, app = make_app()
    touch(app, "nogame.new")
    touch(app, "wz.edition.original")
    touch(app, "wz.next")
    touch(app, f"wz.count.{players}")
    touch(app, "wz.next")
    touch(app, "wz.colour_names")
    while has_widget(app, "wz.next"):
        if has_widget(app, "wz.start.0"):
            touch(app, "wz.start.0")
        touch(app, "wz.next")
    return loop, app


def test_switching_to_korean_mid_game_names_the_seat_in_korean_on_the_screen():
    loop, app = colour_game()
    game = app.table.game
    assert [p.name for p in game.players] == ["Red", "Blue", "Green"]
    me = game.active_player.name
    assert widget(app, "act.name").text == f"{me}'s turn"
    app.set_language("ko")
    korean = {"Red": "빨강", "Blue": "파랑", "Green": "초록"}[me]
    assert korean in widget(app, "act.name").text and me not in widget(app, "act.name").text
    assert [p.name for p in app.table.game.players] == ["Red", "Blue", "Green"]   # recorded


def test_every_name_on_the_table_follows_and_a_typed_name_stays():
    loop, app = colour_game()
    app.set_language("ko")
    labels = {w.name: w.text for w in widgets(app) if w.name.endswith(".name")}
    assert labels and not {"Red", "Blue", "Green"} & set(labels.values()), labels
    assert {"빨강", "파랑", "초록"} >= {t for t in labels.values() if "차례" not in t}, labels


def test_a_player_s_own_name_stays_as_typed_in_every_language():
    loop, app = make_app(lines=[line(do="setup", edition="original", start="Ana",
                                     players=["Ana", "Red", "Green"])])
    app.set_language("ko")
    game = app.table.game
    names = {w.text for w in widgets(app) if w.name.endswith(".name")}
    assert any("Ana" in n for n in names), names
    # "Red" on the blue seat was typed: another seat's colour stays; "Green" is green's own
    assert any("Red" in n for n in names) and any("초록" in n for n in names), names
    assert [p.name for p in game.players] == ["Ana", "Red", "Green"]


def widgets(app):
    app.screen.draw(app.surface)
    return [w for w in app.screen._widgets if isinstance(getattr(w, "text", None), str)]


# --- the phone view, and the journal ------------------------------------------------------

def colour_table(journal=None):
    """A table loop with a phone view, set up in English with seat-colour names and the
    wizard's colours (as the touchscreen posts them)."""
    loop = TableLoop(Session(journal, Catalog.example()))
    live = LiveTable(loop)
    loop.subscribe(live.on_update)
    loop.post(ev.TouchAction({"do": "setup", "edition": "original", "start": "Blue",
                              "players": ["Blue", "Red", "Ana"]},
                             seat_colors=("blue", "red", "green")))
    loop.drain()
    return loop, live


def test_the_phone_names_the_seat_in_its_own_language_and_its_data_keep_the_record():
    loop, live = colour_table()
    korean = pages.live_fragment("ko", live.latest)
    assert "파랑 차례" in korean and ">빨강" in korean and ">Ana" in korean
    assert "Blue" not in korean and ">Red" not in korean
    english = pages.live_fragment("en", live.latest)
    assert "Blue&#x27;s turn" in english or "Blue's turn" in english
    italian = pages.live_page("it", live.latest)
    assert ">Blu" in italian and ">Rosso" in italian
    # the table's JSON (replay --json's) and its events keep the names as recorded
    event = live.latest.event()
    assert [p["name"] for p in event["table"]["players"]] == ["Blue", "Red", "Ana"]
    loop.post(ev.SeatTap(0))
    loop.post(ev.SeatHold(0))               # Blue completes and ends the turn: news, draws
    loop.drain()
    korean = pages.live_fragment("ko", live.latest)
    words = re.sub(r"<[^>]*>", " ", korean)     # what people read ("data-why" keeps Red)
    assert "Blue" not in words and "Red" not in words and "빨강 1장 → Ana 1장" in words
    assert 'title="빨강은(는) 왜 1장을 뽑나요?"' in korean and 'data-why="draw:Red"' in korean
    texts = [w["text"] for w in why_json(live.latest, "ko")["explanations"].values()]
    assert texts and not any("Red" in x or "Blue" in x for x in texts), texts


def test_the_journal_keeps_the_names_given_and_replays_the_same(tmp_path):
    with Journal(str(tmp_path / "journal.db"), durable=False) as journal:
        loop, live = colour_table(journal)
        loop.post(ev.SeatTap(0))
        loop.post(ev.SeatHold(0))
        loop.drain()
        assert "빨강" in pages.live_fragment("ko", live.latest)     # shown in Korean...
        game = journal.games()[0]
        lines = journal.lines(game.id)
    assert json.loads(lines[0])["players"] == ["Blue", "Red", "Ana"]   # ...recorded as given
    assert game.seat_colors == ["blue", "red", "green"]
    assert not any("파랑" in x or "빨강" in x for x in lines)
    with Journal(str(tmp_path / "journal.db"), durable=False) as journal:
        again = Session(journal, Catalog.example())
        assert [p.name for p in again.table.game.players] == ["Blue", "Red", "Ana"]
        assert again.lines == lines and again.seat_colors == ("blue", "red", "green")


def test_the_voice_says_the_seat_s_colour_in_its_language():
    loop, live = colour_table()
    updates = []
    loop.subscribe(updates.append)
    loop.post(ev.SeatTap(0))
    loop.post(ev.SeatHold(0))
    loop.drain()
    korean = [x for u in updates for x in phrases_for(u, "ko")]
    english = [x for u in updates for x in phrases_for(u, "en")]
    assert any("빨강" in x for x in korean) and not any("Red" in x for x in korean), korean
    assert any("Red" in x for x in english) and any("Ana" in x for x in korean), english


# --- a finished game: the end screen, the story, the history, the summary -------------------

COLOURED = {"Ana": "Red", "Ben": "Blue", "Chloe": "Green"}       # Dae keeps their own name


def coloured_finished_game() -> list[str]:
    """The screenshots' finished sample (Ana wins, Chloe starts), its first three seats
    called by their colours as "Play with seat colours" names them in English."""
    out = []
    for text_line in screenshots.sample_script(screenshots.FINISHED_SAMPLE):
        for name, colour in COLOURED.items():
            text_line = text_line.replace(f'"{name}"', f'"{colour}"')
        out.append(text_line)
    return out


@pytest.fixture(scope="module")
def finished_journal(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("coloured") / "journal.db")
    with Journal(path, durable=False) as journal:
        s = Session(journal)
        for text_line in coloured_finished_game():
            if text_line.startswith("{"):
                assert not hasattr(s.apply_line(text_line), "code"), text_line
    return path


def test_the_end_screen_and_its_story_name_the_colours_in_korean():
    loop, app = make_app(lines=coloured_finished_game())
    app.set_language("ko")
    assert isinstance(app.screen, EndScreen)
    shown = " ".join(w.text for w in widgets(app))
    assert "빨강" in shown and "Dae" in shown and "Red" not in shown, shown
    app.screen.open_story()
    story = " ".join(w.text for w in widgets(app))
    assert "빨강" in story and "Red" not in story and "Green" not in story, story


def test_the_phone_s_story_and_history_name_the_colours_in_the_page_s_language(
        finished_journal):
    with Journal(finished_journal, readonly=True) as journal:
        record = journal.games()[0]
        table = rebuild(journal.lines(record.id), rules=record.rules).table
        games = journal.games()
    page = pages.game_page("it", record, table)
    words = re.sub(r"<[^>]*>", " ", page)
    assert "Rosso" in words and "Verde" in words and "Dae" in words
    assert not re.search(r"\b(Red|Blue|Green)\b", words), words
    history = re.sub(r"<[^>]*>", " ", pages.history_page("ko", games, {}))
    assert "빨강" in history and "Red" not in history
    assert record.players == ["Red", "Blue", "Green", "Dae"]          # the record stays


def test_the_summary_names_the_colours_in_its_language(finished_journal, tmp_path):
    if shutil.which("pdftotext") is None:
        pytest.skip("poppler-utils (pdftotext) is not installed")
    with Journal(finished_journal, readonly=True) as journal:
        data = summary.render(journal, 1, "pdf", "es")
    pdf = tmp_path / "summary-es.pdf"
    pdf.write_bytes(data)
    words = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
                           capture_output=True, text=True, check=True).stdout
    assert "Rojo" in words and "Azul" in words and "Dae" in words
    assert not re.search(r"\b(Red|Blue|Green)\b", words), words


def test_a_refusal_names_the_seat_in_the_screen_s_language():
    loop, app = colour_game()
    app.set_language("es")
    app.post_action({"do": "activate_upgrade", "upgrade": "jump"})      # 3 likes needed
    loop.drain()
    app.process_updates()
    me = {"Red": "Rojo", "Blue": "Azul", "Green": "Verde"}[app.table.game.active_player.name]
    said = [w.text for w in widgets(app) if "«Me gusta»" in w.text]
    assert said and said[0].startswith(f"{me} necesita"), said


def test_the_phone_s_news_names_a_refused_seat_in_its_language():
    loop, live = colour_table()
    loop.post(ev.TouchAction({"do": "activate_upgrade", "upgrade": "jump"}))   # 3 likes
    loop.drain()
    assert live.latest.rejection is not None and live.latest.rejection.params["player"] == "Blue"
    news = pages.live_fragment("it", live.latest).split('class="news"')[1]
    assert "Blu " in news and "Blue" not in news, news


def test_the_log_tells_the_game_with_the_seat_s_colour_in_its_language(caplog):
    loop, live = colour_table()
    loop.subscribe(LogSubscriber(language="pt").on_update)
    with caplog.at_level(logging.INFO, logger="companion.core.loop"):
        loop.post(ev.SeatTap(0))
        loop.post(ev.SeatHold(0))
        loop.drain()
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "Vermelho" in said and "Red" not in said and "Blue" not in said, said


def test_a_new_game_gives_the_colour_names_of_the_language_of_the_moment():
    loop, app = colour_game()
    app.set_language("ko")
    wizard = WizardScreen(app)             # New game: the last game's players, prefilled
    assert wizard.model.players == ["빨강", "파랑", "초록"]
    app.last_setup = {"edition": "original", "players": ["Red", "Ana", "빨강"]}
    app.seat_colors = [seat_colours.SCREEN_BY_NAME[c] for c in ("red", "blue", "green")]
    # "빨강" typed on the green seat is a player's own: red's "Red" stays, so no two alike
    assert WizardScreen(app).model.players == ["Red", "Ana", "빨강"]


def test_a_teaching_hint_names_the_seat_in_the_language_of_the_moment():
    hint = teaching.Hint("order_surge", (("edition", "original"), ("player", "Red"),
                                         ("drawers", ("Blue", "Ana")), ("count", 1)))
    names = shown_names("ko", ["Red", "Blue", "Ana"])
    said = teaching.hint_text("ko", hint, names=names)
    assert "빨강" in said and "파랑" in said and "Ana" in said and "Red" not in said, said
    assert "Red" in teaching.hint_text("en", hint)          # the hint keeps the record


# --- a rematch, or a new game with the same players: the colour names of the moment --------

def test_names_again_gives_today_s_colour_names_and_keeps_a_player_s_own():
    assert seat_colours.names_again("ko", ["Red", "Ana", "Green"]) == ["빨강", "Ana", "초록"]
    # another seat's colour was typed; "빨강" on the green seat would look like red's
    assert seat_colours.names_again("ko", ["Blue", "Red", "빨강"]) == ["Blue", "Red", "빨강"]
    assert seat_colours.names_again("es", ["Blue", "Red"], ("blue", "red")) == ["Azul", "Rojo"]
    assert seat_colours.same_table(["파랑", "Ana"], ["Blue", "Ana"], ("blue", "red"))
    assert not seat_colours.same_table(["파랑", "Ana"], ["Blue", "Ana"])       # blue on red
    assert not seat_colours.same_table(["Ana", "Blue"], ["Blue", "Ana"], ("blue", "red"))
    assert not seat_colours.same_table(["Blue", "Ana", "Cy"], ["Blue", "Ana"])


def play_rematch(app) -> list[str]:
    """REMATCH on the end screen, then the wizard's steps (who starts: seat 1) to the
    game: the new game's players as recorded."""
    assert isinstance(app.screen, EndScreen)
    touch(app, "end.rematch")
    for _ in range(12):
        if not has_widget(app, "wz.next"):
            break
        if has_widget(app, "wz.start.0"):
            touch(app, "wz.start.0")
        touch(app, "wz.next")
    game = app.table.game
    assert game is not None and not game.game_over
    return [p.name for p in game.players]


def test_a_rematch_on_the_screen_records_the_colour_names_of_the_language_of_the_moment():
    loop, app = colour_game()                  # set up by touch in English
    loop.post(ev.TouchAction({"do": "correct", "player": "Red", "dislikes": 5}))
    for _ in range(3):
        loop.post(ev.TouchAction({"do": "end_turn"}))
    loop.drain()
    app.process_updates()
    app.set_language("ko")
    assert play_rematch(app) == ["빨강", "파랑", "초록"]


def test_a_rematch_of_a_game_played_from_a_script_starts_from_the_game_itself():
    loop, app = make_app(lines=coloured_finished_game())       # no setup the screen saw
    app.set_language("es")
    assert play_rematch(app) == ["Rojo", "Azul", "Verde", "Dae"]


def close_the_shop(svc) -> None:
    """The first player's fifth dislike closes the shop; the round is played out."""
    rec = Recorder()
    svc.loop.subscribe(rec)
    game = svc.session.table.game
    svc.loop.post(ev.TouchAction({"do": "correct", "player": game.players[0].name,
                                  "dislikes": 5}))
    for _ in game.players:
        svc.loop.post(ev.TouchAction({"do": "end_turn"}))
    rec.wait_for(lambda u: u.table.game is not None and u.table.game.game_over)
    svc.loop.subscribers.remove(rec)


def test_the_phone_s_rematch_records_its_page_s_colour_names_on_the_same_seats(
        service_with_web):
    svc = service_with_web
    new_game(svc, {"do": "setup", "edition": "original", "start": "Blue",
                   "players": ["Blue", "Red", "Ana"]}, seat_colors=("blue", "red", "green"))
    close_the_shop(svc)
    page = httpx.get(svc.web.url + "/?lang=ko", timeout=scaled(5)).text
    found = re.search(r'data-rematch="([^"]*)"', page)
    assert found, page
    again = json.loads(html.unescape(found.group(1)))
    # the New game form, filled from this line, asks who starts (the books choose anew):
    # the line names no starter; the page adds the one chosen (here the second seat)
    assert again["players"] == ["파랑", "빨강", "Ana"] and "start" not in again, again
    again["start"] = "빨강"
    token = httpx.post(svc.web.url + "/api/pair", json={"code": svc.web.pairing.code},
                       timeout=scaled(5)).json()["token"]
    r = httpx.post(svc.web.url + "/api/action", content=json.dumps(again).encode(),
                   headers={"Authorization": f"Bearer {token}"}, timeout=scaled(5))
    assert r.status_code == 200, r.text
    game = svc.session.table.game
    assert [p.name for p in game.players] == ["파랑", "빨강", "Ana"] and game.start == 1
    assert svc.session.seat_colors == ("blue", "red", "green")   # the seats keep their colours
    # a new game with other players takes the box's order, as before
    close_the_shop(svc)
    r = httpx.post(svc.web.url + "/api/action", headers={"Authorization": f"Bearer {token}"},
                   content=b'{"do": "setup", "edition": "original", "players": ["Ana", "Cy"]}',
                   timeout=scaled(5))
    assert r.status_code == 200, r.text
    assert svc.session.seat_colors == ()
