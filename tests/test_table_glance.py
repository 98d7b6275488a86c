"""The table at a glance, checked on rendered screens in five languages at every size:

* what each seat must read from 1.5 m has a cap height of at least 6 mm on a 7" panel
  (about 154 mm wide): 31 px at 800 x 480, 39 px at 1024 x 600, measured on the
  letters as drawn;
* toasts and the draw prompt never cover whose turn it is;
* long names are shortened, never cut with an ellipsis;
* seats stay apart for red-green colour-blind players: the seat colours sampled from
  the screenshot, run through the deuteranopia and protanopia simulations, differ by
  at least ``MIN_DELTA_E``; and every seat has its own number and shape.
"""
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pytest  # noqa: E402

from companion.appliance.config import LANGUAGES  # noqa: E402
from companion.outputs.screen import text  # noqa: E402
from companion.core.colour_vision import (MACHADO, MIN_DELTA_E, SEAT_SHAPES,  # noqa: E402
                                          closest_pair, difference, simulate)
from companion.words import i18n  # noqa: E402
from companion.words.fonts import has_hangul, is_hangul  # noqa: E402
from companion.outputs.screen.screenshots import (SIZES, act, finish_game, make_app,  # noqa: E402
                                                  sample_script)
from companion.outputs.screen.widgets import ink_rect, record_text  # noqa: E402

PANEL_MM = 154          # the 7" panel's visible width


def needed(size):
    return int(6 * size[0] / PANEL_MM)       # 31 px at 800 wide, 39 px at 1024


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    text.set_language("en")


def drawn(app):
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    return texts


def cap_height(record):
    """The height of a capital letter (or a Hangul syllable) at the size it was drawn."""
    glyph = next((c for c in record.text if is_hangul(c)), None) if has_hangul(record.text) \
        else "H"
    return ink_rect(glyph or "H", record.size, record.bold).h


def must_read(texts, owners):
    return [r for r in texts if r.owner.startswith(owners) or r.owner.endswith(owners)]


def check_caps(texts, owners, size, where):
    found = must_read(texts, owners)
    assert found, f"{where}: none of {owners} drawn"
    for r in found:
        assert cap_height(r) >= needed(size), (where, r.owner, r.text, cap_height(r))
        assert r.rect.h >= needed(size), (where, r.owner, r.text, r.rect.h)
        assert "…" not in r.text, (where, r.owner, r.text)


def end_turns_until_position_4(app):
    for _ in range(12):
        game = app.table.game
        if game.active_player.queue[3]:
            return
        act(app, {"do": "end_turn"})
    raise AssertionError("no cards reached position 4")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_must_read_items_are_6_mm_tall(lang, size):
    where = f"{lang}-{size[0]}x{size[1]}"
    # the sample's last turn made two players draw: whose turn, OPEN, who draws how many
    _, app = make_app(sample_script(), size, lang)
    texts = drawn(app)
    check_caps(texts, ("act.name", "hdr.sign", "draw."), size, where)
    # the shop closes: CLOSED and the final round
    game = app.table.game
    other = game.players[(game.active + 1) % len(game.players)].name
    act(app, {"do": "correct", "player": other, "dislikes": 5})
    app.screen._toasts.clear()
    check_caps(drawn(app), ("hdr.sign", "hdr.final"), size, where)
    # my cards in position 4
    _, app = make_app(sample_script(), size, lang)
    end_turns_until_position_4(app)
    texts = drawn(app)
    check_caps(texts, ("act.pos4.count",), size, where)
    check_caps(texts, (".pos4.count",), size, where)      # the other players' too
    # the active player's count sits above the card: its drink stays readable
    count = must_read(texts, ("act.pos4.count",))[0].rect
    drink = i18n.tr(lang, "card.example_order", number="").strip()   # "Ejemplo"
    card = [r for r in texts if r.owner == "act.pos4" and r.text.startswith(drink)]
    assert card and not any(r.rect.colliderect(count) for r in card), where


@pytest.mark.parametrize("lang", ["en", "ko"])
def test_toasts_and_the_draw_prompt_never_cover_whose_turn_it_is(lang):
    _, app = make_app(sample_script(), (800, 480), lang)
    game = app.table.game
    drawn(app)
    app.screen.toast("A long message that wants room", near=None)
    app.screen.toast("Another one, near the name", near=app.screen._name_banner.center)
    ws = {w.name: w for w in app.screen.widgets()}
    name = ws["act.name"].rect
    covering = [n for n, w in ws.items()
                if n.startswith(("toast.", "draw.", "ban.")) and w.rect.colliderect(name)]
    assert not covering and game is not None


def test_long_names_are_shortened_never_cut():
    from companion.core import events as ev
    names = ["Maximiliano Fernández", "Anne-Sophie Delacroix-Martin", "Bartholomew", "Lu"]
    setup = ('{{"do": "setup", "edition": "original", "start": "Maximiliano Fernández", '
             '"players": {}}}'.format(str(names).replace("'", '"')))
    loop, app = make_app([setup], (800, 480), "en")
    loop.post(ev.TouchAction({"do": "complete"}))
    loop.post(ev.TouchAction({"do": "end_turn"}))
    app.loop.drain()
    app.process_updates()
    texts = drawn(app)
    shown = {r.owner: r.text for r in texts}
    assert not [r for r in texts if "…" in r.text]
    assert shown["act.name"] in ("Anne-Sophie Delacroix-Martin's turn", "Anne-Sophie's turn",
                                 "Anne-Sophie", "AD")
    assert "Maximiliano" in shown["p0.name"]
    finish_game(app)                             # and the end screen
    assert type(app.screen).__name__ == "EndScreen"
    texts = drawn(app)
    assert not [r for r in texts if "…" in r.text]
    assert any(r.owner.startswith("end.name") and "Maximiliano" in r.text for r in texts)


def seat_colours_on_screen(app):
    """Each seat's colour as painted: the left border of its panel, read off the surface."""
    ws = {w.name: w for w in app.screen.widgets()}
    game = app.table.game
    out = {}
    for seat in range(len(game.players)):
        panel = ws["act.bg"] if seat == game.active else ws[f"p{seat}.bg"]
        r = panel.rect
        out[seat] = tuple(app.surface.get_at((r.x + 2, r.centery)))[:3]
    return out


@pytest.mark.parametrize("kind", sorted(MACHADO))
def test_colour_blind_players_still_tell_every_seat_apart(kind):
    _, app = make_app(sample_script(), (800, 480), "en")
    app.screen.invalidate()
    app.screen.draw(app.surface)
    colours = seat_colours_on_screen(app)
    assert len(colours) == 4 and len(set(colours.values())) == 4
    worst, i, j = closest_pair(list(colours.values()), kind)
    assert worst >= MIN_DELTA_E, f"{kind}: seats {i + 1} and {j + 1} look alike ({worst:.1f})"
    # and every seat has its own number and shape beside its name
    ws = {w.name: w for w in app.screen.widgets()}
    tokens = [w.data for n, w in ws.items() if n.endswith(".seat")]
    assert sorted(seat for _, seat, _ in tokens) == [0, 1, 2, 3]
    assert len({SEAT_SHAPES[seat] for _, seat, _ in tokens}) == 4


def test_the_simulation_is_the_published_one():
    """Machado et al. keep pure blue nearly blue and turn pure red dark olive."""
    assert difference(simulate((0, 0, 255), "deuteranopia"), (0, 0, 255)) < 25
    red = simulate((255, 0, 0), "protanopia")
    assert red[0] < 140 and abs(red[0] - red[1]) < 40 and red[2] < 60


# --- small things --------------------------------------------------------------------

def test_the_no_game_screen_leads_to_settings_before_the_wizard():
    _, app = make_app([], (800, 480), "en")
    names = {w.name: w for w in app.screen.widgets()}
    assert {"nogame.new", "nogame.settings"} <= set(names)
    names["nogame.settings"].on_tap()
    assert type(app.screen).__name__ == "SettingsScreen"


def test_who_starts_says_why_next_waits():
    _, app = make_app([], (800, 480), "en")
    wizard = app.open("wizard")
    wizard.step = "start"
    wizard.model.start = None
    ws = {w.name: w for w in wizard.widgets()}
    assert not ws["wz.next"].enabled
    assert ws["wz.problem"].text == "Tap who starts, or pick at random"


def test_the_players_word_stays_inside_the_chosen_tile():
    _, app = make_app([], (800, 480), "pt")
    wizard = app.open("wizard")
    wizard.step = "players"
    wizard.invalidate()
    with record_text() as texts:
        wizard.draw(app.surface)
    ws = {w.name: w for w in wizard.widgets()}
    n = wizard.model.count
    tile = ws[f"wz.count.{n}"].rect
    edge = max(2, tile.h // 18)
    word = next(r for r in texts if r.owner == f"wz.count.{n}.unit")
    assert tile.inflate(-2 * edge, -2 * edge).contains(word.rect)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_scores_are_as_big_in_every_language_as_in_english_and_never_cut(size):
    """"3 ptos." was shrunk and "2 pon…" cut on the side panels: a score reads the same
    from across the table whatever the language."""
    def scores(lang):
        _, app = make_app(sample_script(), size, lang)
        return {r.owner: r for r in drawn(app) if r.owner.endswith(".score")}

    english = scores("en")
    assert english
    for lang in LANGUAGES:
        for owner, r in scores(lang).items():
            assert "…" not in r.text, (lang, owner, r.text)
            assert r.size >= english[owner].size, (lang, owner, r.text, r.size)
