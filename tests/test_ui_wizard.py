"""The setup wizard driven by fingers, the board it shows, and the keyboard it types with."""
from __future__ import annotations

import random

import pytest
from ui_touch import has_widget, make_app, touch, type_on_keyboard, widget

from companion.core import board as boards
from companion.core import seat_colours
from companion.core.events import TouchAction
from companion.core.rules.editions import EDITIONS
from companion.outputs.screen import text
from companion.outputs.screen.keyboard import HangulComposer, Keyboard, KeyboardScreen
from companion.outputs.screen.screens.setup_wizard import WizardScreen

RGB = seat_colours.SCREEN_BY_NAME


@pytest.fixture(autouse=True)
def _english():
    text.reset("en")
    yield
    text.reset("en")


def open_wizard(app, **kwargs) -> WizardScreen:
    screen = app.open("wizard", **kwargs)
    assert isinstance(screen, WizardScreen)
    return screen


def posted_setups(app) -> list[dict]:
    """The setup actions the screen posted, as the table loop received them."""
    return [dict(e.action) for e in app._own if isinstance(e, TouchAction)
            and e.action.get("do") == "setup"]


def run_random_start(app, screen) -> None:
    touch(app, "wz.random")
    assert screen.anim, "the random pick shows an animation"
    seen = []
    for _ in range(200):
        deadline = screen.next_deadline()
        if deadline is None:
            break
        app.clock.now = deadline
        app.tick()
        if screen.lit is not None:
            seen.append(screen.lit)
    assert not screen.anim
    assert len(set(seen)) == screen.model.count        # every seat lit up on the way


# --- whole setups by touch -------------------------------------------------------------------

def test_two_player_original_with_ristretto_start():
    loop, app = make_app()
    screen = open_wizard(app, rng=random.Random(1), recent_names=["Ana", "Ben", "Chloe"])
    touch(app, "wz.edition.original")
    touch(app, "wz.next")
    touch(app, "wz.count.2")
    touch(app, "wz.next")
    # names: seat 1 typed on the on-screen keyboard, seat 2 from the recent players
    touch(app, "wz.type")
    type_on_keyboard(app, "José")
    touch(app, "kb.ok")
    assert app.screen is screen
    touch(app, "wz.recent.0")                 # Ana
    assert screen.model.players == ["José", "Ana"]
    touch(app, "wz.next")
    # colours: two players of the original game use red and blue only
    assert not widget(app, "wz.colour.0.green").enabled
    touch(app, "wz.colour.0.blue")            # José blue, Ana takes red
    assert screen.model.colours[:2] == ["blue", "red"]
    touch(app, "wz.next")
    assert not widget(app, "wz.next").enabled  # nobody starts yet
    touch(app, "wz.start.1")
    touch(app, "wz.next")
    assert screen.step == "options"
    touch(app, "wz.ristretto")
    touch(app, "wz.next")
    assert screen.step == "deal"
    # the deal guide comes from the engine: Ana (start) 2 in position 1 (a Ristretto or
    # Espresso card and her extra draw) and 1 in position 2; José 1 and 1
    assert widget(app, "wz.deal.1.0").text == "2 cards"
    assert widget(app, "wz.deal.1.1").text == "1 card"
    assert widget(app, "wz.deal.0.0").text == "1 card"
    assert widget(app, "wz.deal.0.2").text == "–"
    assert "Ristretto" in widget(app, "wz.dealnote.0").text
    assert widget(app, "wz.dealnote.1").text == "Deck after the deal: 73 cards"
    touch(app, "wz.next")
    # meeples, two each, alternating, the other player first
    assert [widget(app, f"wz.meeple.{k}").text for k in range(4)] == \
        ["1.  José", "2.  Ana", "3.  José", "4.  Ana"]
    assert widget(app, "wz.next").text == "Start the game"
    touch(app, "wz.next")

    assert posted_setups(app) == [{"do": "setup", "edition": "original",
                                   "players": ["José", "Ana"], "start": "Ana",
                                   "variant": "standard", "ristretto_start": True}]
    assert app.screen is not screen
    game = app.table.game
    assert game is not None and game.ristretto_start and game.players[game.start].name == "Ana"
    assert app.seat_colors[:2] == [RGB["blue"], RGB["red"]]
    assert sorted(map(tuple, app.seat_colors)) == sorted(seat_colours.SCREEN_RGB)
    # the colours are part of the recorded setup, by name, through the table loop
    setup = next(e for e in app._own if isinstance(e, TouchAction))
    assert setup.seat_colors == ("blue", "red") and app.loop.session.seat_colors == ("blue", "red")


def test_four_player_winter_with_each_players_upgrades_chaos_board_and_random_start():
    loop, app = make_app(size=(1024, 600))
    recent = ["Ana", "Ben", "Chloe", "Dae", "Emma"]
    screen = open_wizard(app, rng=random.Random(11), recent_names=recent)
    touch(app, "wz.edition.winter")
    touch(app, "wz.variant.standard")
    touch(app, "wz.next")
    touch(app, "wz.count.4")
    touch(app, "wz.next")
    for k in (3, 0, 1, 2):                    # Dae, Ana, Ben, Chloe clockwise
        touch(app, f"wz.recent.{k}")
    assert screen.model.players == ["Dae", "Ana", "Ben", "Chloe"]
    assert not widget(app, "wz.recent.0").enabled   # a name at the table is not offered twice
    touch(app, "wz.next")
    touch(app, "wz.colour.3.red")             # Chloe red; Dae takes Chloe's yellow
    touch(app, "wz.next")
    run_random_start(app, screen)
    expected = random.Random(11)
    start = expected.randrange(4)
    assert screen.model.start == start
    touch(app, "wz.next")
    assert screen.step == "upgrades"
    touch(app, "wz.tiles.each")
    chosen = {
        0: ["double_meeples", "diagonal_movement", "double_corners", "double_specialties"],
        1: ["double_meeples", "diagonal_movement", "double_corners", "jump"],
        2: ["diagonal_movement", "double_corners", "double_specialties", "double_destination"],
        3: ["double_meeples", "double_specialties", "double_destination", "jump"],
    }
    start_tiles = list(EDITIONS["original"].upgrades)
    for seat, tiles in chosen.items():
        touch(app, f"wz.tiletab.{seat}")
        for u in start_tiles:
            if u not in tiles:
                touch(app, f"wz.tile.{u}")
        assert not widget(app, "wz.next").enabled or seat == 0
        for u in tiles:
            if u not in start_tiles:
                touch(app, f"wz.tile.{u}")
        # a fifth tile cannot be chosen
        fifth = next(u for u in EDITIONS["winter"].upgrades if u not in tiles)
        assert not widget(app, f"wz.tile.{fifth}").enabled
    touch(app, "wz.next")
    assert screen.step == "board"
    touch(app, "wz.board.chaos")
    seed = expected.randint(boards.SEED_MIN, boards.SEED_MAX)
    assert widget(app, "wz.seed").text == f"Layout {seed}"
    assert screen.model.board() == boards.chaos_board(seed)
    touch(app, "wz.shuffle")
    seed = expected.randint(boards.SEED_MIN, boards.SEED_MAX)
    assert widget(app, "wz.seed").text == f"Layout {seed}"
    touch(app, "wz.next")
    assert "First return 0" not in widget(app, "wz.title").text
    assert not has_widget(app, "wz.deal_removed")  # 4 players: no cards leave the box
    touch(app, "wz.next")
    names = screen.model.players
    order = [(start - 1 - i) % 4 for i in range(4)]   # counterclockwise from start's right
    assert [widget(app, f"wz.meeple.{k}").text for k in range(4)] == \
        [f"{k + 1}.  {names[s]}" for k, s in enumerate(order)]
    touch(app, "wz.next")

    assert posted_setups(app) == [{
        "do": "setup", "edition": "winter", "players": ["Dae", "Ana", "Ben", "Chloe"],
        "start": names[start], "variant": "standard",
        "upgrades": {names[s]: chosen[s] for s in range(4)}}]
    game = app.table.game
    assert [p.tiles for p in game.players] == [tuple(chosen[s]) for s in range(4)]
    assert game.players[0].cookies == 1
    assert app.seat_colors == [RGB["yellow"], RGB["blue"], RGB["green"], RGB["red"]]


def test_winter_junior_with_a_korean_name_typed_on_the_keyboard():
    loop, app = make_app(lang="ko")
    screen = open_wizard(app, rng=random.Random(5), recent_names=["Ana", "Ben"])
    touch(app, "wz.edition.winter")
    touch(app, "wz.variant.junior")
    assert "upgrades" not in screen.steps and "board" in screen.steps
    touch(app, "wz.next")
    touch(app, "wz.count.3")
    touch(app, "wz.next")
    touch(app, "wz.type")
    assert screen is not app.screen and app.screen.keyboard.layout == "hangul"
    type_on_keyboard(app, "민수")
    touch(app, "kb.ok")
    touch(app, "wz.recent.1")
    touch(app, "wz.type")
    type_on_keyboard(app, "Zoë")
    touch(app, "kb.ok")
    assert screen.model.players == ["민수", "Ben", "Zoë"]
    touch(app, "wz.next")
    touch(app, "wz.next")                     # colours as in the box
    touch(app, "wz.start.2")
    touch(app, "wz.next")
    assert screen.step == "board"
    touch(app, "wz.next")
    # Junior: two cards in every position
    for seat in range(3):
        for pos in range(4):
            assert widget(app, f"wz.deal.{seat}.{pos}").text == "2장"
    assert widget(app, "wz.deal_removed").text.startswith("먼저 주문 카드 10장")
    touch(app, "wz.next")
    assert [widget(app, f"wz.meeple.{k}").text for k in range(3)] == \
        ["1.  Ben", "2.  민수", "3.  Zoë"]
    touch(app, "wz.next")
    assert posted_setups(app) == [{"do": "setup", "edition": "winter",
                                   "players": ["민수", "Ben", "Zoë"], "start": "Zoë",
                                   "variant": "junior"}]
    assert app.table.game.variant == "junior"


# --- what the wizard refuses ------------------------------------------------------------------

def test_names_must_be_given_and_different():
    loop, app = make_app()
    screen = open_wizard(app, recent_names=["Ana"])
    screen.go("names")
    screen.model.set_count(2)
    touch(app, "wz.recent.0")
    assert widget(app, "wz.problem").text == "Every seat needs a name"
    assert not widget(app, "wz.next").enabled
    touch(app, "wz.type")
    type_on_keyboard(app, "ana")
    touch(app, "kb.ok")
    assert screen.model.players == ["Ana", ""]
    assert "Ana is already at the table" in app.screen.toasts


def test_setup_refused_while_a_game_runs_stays_in_the_wizard():
    loop, app = make_app(lines=['{"do": "setup", "edition": "original", "players": ["X", "Y"]}'])
    screen = open_wizard(app, rng=random.Random(2))
    md = screen.model
    md.set_edition("original")
    md.set_count(2)
    md.names[:2] = ["Ana", "Ben"]
    md.start = 0
    screen.go("meeples")
    touch(app, "wz.next")
    assert app.screen is screen
    assert posted_setups(app) == []
    assert any("a game is already running" in t.lower() for t in screen.toasts)


def test_back_goes_one_step_back_and_cancel_leaves():
    loop, app = make_app()
    screen = open_wizard(app)
    touch(app, "wz.next")
    assert screen.step == "players"
    touch(app, "wz.back")
    assert screen.step == "edition"
    touch(app, "wz.back")
    assert app.screen is not screen and posted_setups(app) == []


def test_recent_names_come_from_the_journal(tmp_path):
    from companion.core.catalog import Catalog
    from companion.core.journal import Journal
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    from companion.outputs import Outputs
    from companion.outputs.screen.app import App
    import pygame
    journal = Journal(str(tmp_path / "j.db"))
    loop = TableLoop(Session(journal, Catalog()))
    loop.post(TouchAction({"do": "setup", "edition": "winter", "players": ["Ana", "Bé"]}))
    loop.drain()
    app = Outputs(loop).start(App(loop, surface=pygame.Surface((800, 480))), main_thread=True)
    screen = open_wizard(app)
    assert screen.recent[:2] == ["Ana", "Bé"]
    screen.go("names")
    assert widget(app, "wz.recent.1").text == "Bé"
    journal.close()


# --- the keyboard -------------------------------------------------------------------------------

def compose(jamo: str) -> str:
    h = HangulComposer()
    for j in jamo:
        h.type(j)
    return h.text


@pytest.mark.parametrize("jamo, text", [
    ("ㅁㅣㄴㅅㅜ", "민수"), ("ㅎㅏㄴㄱㅡㄹ", "한글"), ("ㄷㅏㄹㄱ", "닭"), ("ㄷㅏㄹㄱㅇㅣ", "닭이"),
    ("ㄷㅏㄹㄱㅣ", "달기"), ("ㄱㅗㅏㅈㅏ", "과자"), ("ㅇㅜㅓㄴ", "원"), ("ㅇㅡㅣㅅㅏ", "의사"),
    ("ㅋㅓㅍㅣ", "커피"), ("ㄹㅓㅅㅣ", "러시"), ("ㅏ", "ㅏ"), ("ㄱㄴ", "ㄱㄴ"), ("ㅃㅏㅇ", "빵"),
    ("ㅇㅏㄴㅈㅏ", "안자"), ("ㅇㅏㄴㅈ", "앉"),
])
def test_hangul_composition(jamo, text):
    assert compose(jamo) == text


def test_hangul_backspace_takes_back_one_jamo_at_a_time():
    h = HangulComposer()
    for j in "ㄷㅏㄹㄱ":
        h.type(j)
    seen = [h.text]
    while h.text:
        h.backspace()
        seen.append(h.text)
    assert seen == ["닭", "달", "다", "ㄷ", ""]


def test_keyboard_types_accents_capitals_and_stops_at_the_limit():
    kb = Keyboard(max_len=6)
    for key in "ñandu":
        kb.press(key)
    assert kb.value == "Ñandu"
    kb.press("⌫")
    kb.set_layout("accents")
    kb.press("ú")
    assert kb.value == "Ñandú"
    kb.press("é")
    kb.press("à")                 # the seventh letter does not fit
    assert kb.value == "Ñandúé" and kb.too_long


@pytest.mark.parametrize("name", ["José", "Ñandú", "João", "Nicolò", "Àngela", "René Müller",
                                  "민수", "한글", "서연", "Zoë"])
def test_the_keyboard_screen_types_names_by_touch(name):
    loop, app = make_app(size=(1024, 600))
    got = []
    app.push(KeyboardScreen(app, title="Name", on_done=got.append))
    type_on_keyboard(app, name)
    assert widget(app, "kb.field.text").text == name + "|"
    touch(app, "kb.ok")
    assert got == [name]
    assert not isinstance(app.screen, KeyboardScreen)


def test_keyboard_screen_takes_a_hardware_keyboard_too():
    import pygame
    loop, app = make_app()
    got = []
    app.push(KeyboardScreen(app, on_done=got.append))
    app.handle(pygame.event.Event(pygame.TEXTINPUT, text="Inés"))
    app.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKSPACE, mod=0, unicode=""))
    app.handle(pygame.event.Event(pygame.TEXTINPUT, text="s"))
    app.handle(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r"))
    assert got == ["Inés"]


def test_too_long_a_name_is_refused_with_a_message():
    loop, app = make_app()
    app.push(KeyboardScreen(app, max_len=3))
    type_on_keyboard(app, "Ana")
    touch(app, app.screen.keyboard.key_name("b"))
    assert app.screen.keyboard.value == "Ana"
    assert "At most 3 letters" in app.screen.toasts


def test_a_new_game_starts_from_the_last_tables_choices():
    loop, app = make_app()
    first = open_wizard(app, rng=random.Random(4))
    md = first.model
    md.set_edition("winter")
    md.variant = "junior"
    md.set_count(3)
    md.names[:3] = ["Ana", "Ben", "Chloe"]
    md.set_colour(0, "yellow")
    md.start = 2
    first.go("meeples")
    touch(app, "wz.next")
    assert app.last_setup["players"] == ["Ana", "Ben", "Chloe"]
    second = WizardScreen(app)
    assert second.model.edition == "winter" and second.model.variant == "junior"
    assert second.model.players == ["Ana", "Ben", "Chloe"]
    assert second.model.colours[:3] == ["yellow", "blue", "green"]
    assert second.model.start is None


def test_a_last_setup_that_does_not_fit_is_only_used_where_it_fits():
    loop, app = make_app()
    default = WizardScreen(app).model
    app.last_setup = {"edition": "winter", "variant": "no-such", "players": ["A"] * 5}
    app.seat_colors = [RGB["red"], RGB["red"]]              # the same colour twice
    md = WizardScreen(app).model
    assert md.edition == "winter" and md.variant == default.variant
    assert md.count == default.count and md.players == default.players
    assert md.colours == default.colours
    app.last_setup = {"edition": "original", "players": ["Ana", 7]}   # not all names
    app.seat_colors = [RGB["green"], (1, 2, 3)]                      # not a colour of ours
    md = WizardScreen(app).model
    assert md.players == default.players and md.colours == default.colours
    app.last_setup = {"edition": "original", "players": ["Ana", "B" * 40, "Cy"]}
    app.seat_colors = [RGB["green"], RGB["yellow"], RGB["red"]]
    md = WizardScreen(app).model
    assert md.players[0::2] == ["Ana", "Cy"] and 0 < len(md.players[1]) < 40
    assert md.colours[:3] == ["green", "yellow", "red"]
    app.last_setup = {"edition": "no-such-box", "players": ["Zed", "Yan"]}
    assert WizardScreen(app).model.players == default.players


OPTIONS = ("ristretto_start", "two_drinks_one_cake", "longer_game", "junior_cards")


def options_of(game) -> tuple:
    return tuple(getattr(game, o) for o in OPTIONS)


def test_a_rematch_on_the_screen_keeps_every_option_of_the_game():
    """REMATCH on the end screen opens the wizard at who starts with the game's options
    (the Ristretto start and Cake Time's two rules), and starts with them."""
    import json
    setup = {"do": "setup", "edition": "original", "expansion": "cake_time",
             "players": ["Ana", "Ben"], "start": "Ben", "ristretto_start": True,
             "two_drinks_one_cake": True, "longer_game": True}
    lines = [json.dumps(setup), json.dumps({"do": "correct", "player": "Ana", "dislikes": 5}),
             json.dumps({"do": "end_turn"}), json.dumps({"do": "end_turn"})]
    app, first, screen = rematch_after(lines)
    assert screen.model.ristretto and screen.model.options == {
        "two_drinks_one_cake": True, "longer_game": True}
    touch(app, "wz.start.0")
    next_until_started(app)
    game = app.table.game
    assert not game.game_over and game.players[game.start].name == "Ana"
    assert options_of(game) == options_of(first) == (True, True, True, 2)


def rematch_after(lines: list[str]):
    """The game of these table-script ``lines`` played to its end, then REMATCH on the end
    screen: the app, the game before, and the wizard at its first step."""
    from companion.outputs.screen.screens.end import EndScreen
    loop, app = make_app(lines=lines)
    first = app.table.game
    assert isinstance(app.screen, EndScreen) and first.game_over
    touch(app, "end.rematch")
    screen = app.screen
    assert isinstance(screen, WizardScreen) and screen.step == "start"
    return app, first, screen


def next_until_started(app) -> None:
    """NEXT until the wizard has started the game (at most eight steps)."""
    for _ in range(8):
        if not has_widget(app, "wz.next"):
            break
        touch(app, "wz.next")


TILES = ["double_meeples", "diagonal_movement", "double_destination", "jump"]


@pytest.mark.parametrize("upgrades, first_after_start", [
    (TILES, "board"),                                               # the same for everyone
    ({"Ana": TILES, "Ben": ["double_corners", "double_specialties", "double_destination",
                            "jump"], "Cy": TILES}, "board"),        # each player's own
    (None, "board"),                                                # decided at the table
    ({"Ana": TILES[:2] + ["break_time", "double_destination"],
      "Ben": ["double_corners", "double_specialties", "double_destination", "storage"],
      "Cy": TILES[:2] + ["break_time", "double_destination"]}, "deal"),   # Cake Time, each
], ids=["winter-shared", "winter-each", "winter-open", "cake-each"])
def test_a_rematch_on_the_screen_keeps_the_upgrade_tiles_and_asks_only_who_starts(
        upgrades, first_after_start):
    """REMATCH keeps the tiles the game was set up with, as the phone's REMATCH does: after
    who starts, NEXT goes past the tiles and the options to the board (Winter's is not
    recorded: asked), the deal and the meeples; BACK still shows the tiles kept. (Tiles
    the box's rule drew are drawn again: the next test.)"""
    import json
    cake = first_after_start == "deal"
    setup = {"do": "setup", "edition": "original" if cake else "winter",
             "players": ["Ana", "Ben", "Cy"], "start": "Cy"}
    if cake:
        setup["expansion"] = "cake_time"
    if upgrades is not None:
        setup["upgrades"] = upgrades
    lines = [json.dumps(setup), json.dumps({"do": "correct", "player": "Ana", "dislikes": 5})]
    lines += [json.dumps({"do": "end_turn"})] * 3
    app, first, screen = rematch_after(lines)
    assert screen.model.start is None                       # the books choose anew
    touch(app, "wz.start.1")
    touch(app, "wz.next")
    assert screen.step == first_after_start
    while screen.step != "upgrades":                        # BACK: the tiles, as kept
        touch(app, "wz.back")
    mode = "open" if upgrades is None else "each" if isinstance(upgrades, dict) \
        else "draw" if cake else "shared"
    assert widget(app, f"wz.tiles.{mode}").on
    if upgrades is not None:
        shown = [u for u in screen.model.box.upgrades if widget(app, f"wz.tile.{u}").on]
        assert shown == [u for u in screen.model.box.upgrades
                         if u in (upgrades["Ana"] if mode == "each" else upgrades)]
    next_until_started(app)
    game = app.table.game
    assert not game.game_over and game.players[game.start].name == "Ben"
    assert [p.tiles for p in game.players] == [p.tiles for p in first.players]
    assert game.open_tiles == first.open_tiles == (upgrades is None)


CAKE_DRAWN = ["double_meeples", "double_corners", "break_time", "storage"]


def cake_rematch(seed: int):
    """A Cake Time game of three whose tiles the box's rule drew (``CAKE_DRAWN``), played
    to its end, then REMATCH with the wizards' randomness seeded: Ben starts, NEXT. The
    app, the wizard and the four the box's rule draws with that seed."""
    import json

    from companion.core.setup_choices import draw_upgrades
    setup = {"do": "setup", "edition": "original", "expansion": "cake_time",
             "players": ["Ana", "Ben", "Cy"], "start": "Cy", "upgrades": CAKE_DRAWN}
    lines = [json.dumps(setup), json.dumps({"do": "correct", "player": "Ana", "dislikes": 5})]
    lines += [json.dumps({"do": "end_turn"})] * 3
    loop, app = make_app(lines=lines)
    app.rng = random.Random(seed)
    touch(app, "end.rematch")
    screen = app.screen
    assert isinstance(screen, WizardScreen) and screen.step == "start"
    touch(app, "wz.start.1")
    touch(app, "wz.next")
    return app, screen, draw_upgrades(screen.model.box.upgrades, random.Random(seed))


def shown_tiles(app, screen) -> list[str]:
    return [u for u in screen.model.box.upgrades if widget(app, f"wz.tile.{u}").on]


@pytest.mark.parametrize("keep", [False, True], ids=["drawn-again", "kept"])
def test_a_cake_time_rematch_draws_the_tiles_again_or_keeps_the_same_four(keep):
    """Cake Time's rule draws 4 of the 7 tiles at setup, so a new game by the books draws
    again: after who starts, the rematch shows the tiles the box's rule drew anew (for
    Ben, who starts now), with the choice of the last game's four instead; going back and
    forth shows the same new four (it draws once). The options are still kept."""
    app, screen, new = cake_rematch(seed=3)
    assert new != CAKE_DRAWN
    assert screen.step == "upgrades" and widget(app, "wz.tiles.draw").on
    assert widget(app, "wz.draw.new").on and not widget(app, "wz.draw.same").on
    assert shown_tiles(app, screen) == new
    assert "Ben" in widget(app, "wz.tiles_status").text
    touch(app, "wz.draw.same")
    assert widget(app, "wz.draw.same").on and shown_tiles(app, screen) == CAKE_DRAWN
    assert widget(app, "wz.tiles_status").text == text.t("cake.upgrades_kept")
    touch(app, "wz.draw.new")
    assert shown_tiles(app, screen) == new                     # the same new four
    if keep:
        touch(app, "wz.draw.same")
    touch(app, "wz.next")
    assert screen.step == "deal"                               # the options: kept
    next_until_started(app)
    game = app.table.game
    assert not game.game_over and game.players[game.start].name == "Ben"
    assert all(list(p.tiles) == (CAKE_DRAWN if keep else new) for p in game.players)
    assert posted_setups(app)[-1]["upgrades"] == (CAKE_DRAWN if keep else new)


def test_a_cake_time_rematch_draws_with_the_injected_randomness():
    """The draw is the wizard's (``setup_choices.draw_upgrades`` with the App's injected
    ``random.Random``): two seeds, two draws, each as that seed gives it."""
    draws = []
    for seed in (3, 8):
        app, screen, new = cake_rematch(seed)
        assert shown_tiles(app, screen) == new
        draws.append(new)
    assert draws[0] != draws[1]


def test_a_new_game_after_a_game_also_starts_from_its_tiles_and_asks_them():
    """NEW GAME (not a rematch) starts from the last game's tiles too, but walks every
    step: the tiles are shown, not passed."""
    loop, app = make_app()
    app.last_setup = {"do": "setup", "edition": "winter", "players": ["Ana", "Ben"],
                      "start": "Ben", "upgrades": TILES}
    screen = open_wizard(app)
    screen.go("start")
    touch(app, "wz.start.0")
    touch(app, "wz.next")
    assert screen.step == "upgrades" and screen.model.tiles_of(None) == TILES


def test_tiles_that_do_not_fit_the_box_are_not_kept():
    """A last setup whose tiles are not four of this box's (a damaged line, another box)
    leaves the wizard's own choice."""
    loop, app = make_app()
    default = WizardScreen(app).model
    for bad in (["jump"], TILES[:3] + ["storage"], {"Ana": TILES}, {"Ana": TILES, "Ben": 7},
                "jump"):
        app.last_setup = {"do": "setup", "edition": "winter", "players": ["Ana", "Ben"],
                          "upgrades": bad}
        md = WizardScreen(app).model
        assert (md.upgrade_mode, md.shared_tiles, md.player_tiles) == (
            default.upgrade_mode, default.shared_tiles, default.player_tiles), bad


def test_a_junior_game_s_cards_per_position_come_back_in_the_wizard():
    """A rematch (or New game) after a Junior game of 4 cards in each position: the
    wizard offers 4 again (``end.setup_of`` records them; the wizard's prefill reads them)."""
    import json
    from companion.outputs.screen.screens.end import setup_of
    setup = {"do": "setup", "edition": "winter", "variant": "junior", "junior_cards": 4,
             "players": ["Ana", "Ben", "Cy"], "start": "Cy"}
    loop, app = make_app(lines=[json.dumps(setup)])
    again = setup_of(app.table.game)
    assert again["junior_cards"] == 4
    app.last_setup = again
    screen = open_wizard(app)
    assert (screen.model.variant, screen.model.junior_cards) == ("junior", 4)
