"""The wizard, settings, keyboard and enroll screens in every language at both sizes
(PNGs under test-output/ to look at), with no text spilling out of its box; and what
the settings and enroll screens do when touched."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest
from ui_touch import has_widget, make_app, touch, type_on_keyboard, widget

from companion.appliance.config import LANGUAGES
from companion.appliance.config import defaults as config_defaults
from companion.core.events import EnrollRequest
from companion.words import fonts
from companion.outputs.screen import text, widgets
from companion.outputs.screen.screens.enroll import EnrollScreen
from companion.outputs.screen.screens.settings import SettingsScreen
from companion.outputs.screen.settings_store import (Settings, SettingsStore, path_beside,
                                                     settings_for)

OUT = Path(__file__).resolve().parent.parent / "test-output" / "ui-setup"
SIZES = [(800, 480), (1024, 600)]
SCREENS = ["wizard", "settings", "keyboard", "enroll"]


@pytest.fixture(autouse=True)
def _english():
    text.reset("en")
    yield
    text.reset("en")


def states(name: str) -> list[str]:
    _, app = make_app()
    kwargs = {"tag": "04A1B2C3D4"} if name == "enroll" else {}
    screen = app.open(name, **kwargs)
    return [suffix for suffix, _ in screen.screenshot_states()]


CASES = [(name, suffix) for name in SCREENS for suffix in states(name)]


def render(name: str, suffix: str, size, lang: str):
    _, app = make_app(size=size, lang=lang)
    kwargs = {"tag": "04A1B2C3D4"} if name == "enroll" else {}
    screen = app.open(name, **kwargs)
    dict(screen.screenshot_states())[suffix]()
    screen.invalidate()
    with widgets.record_text() as drawn:
        screen.draw(app.surface)
    return app, drawn


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_state_renders_and_no_text_overflows(size, lang):
    import pygame
    OUT.mkdir(parents=True, exist_ok=True)
    problems = []
    for name, suffix in CASES:
        app, drawn = render(name, suffix, size, lang)
        label = f"{name}{'-' + suffix if suffix else ''}-{lang}-{size[0]}x{size[1]}"
        pygame.image.save(app.surface, str(OUT / f"{label}.png"))
        assert drawn, label
        for rec in drawn:
            if not rec.box.contains(rec.rect):
                problems.append(f"{label}: {rec.owner} {rec.wanted!r} spills out of its box")
            if " ".join(rec.text.split()) != " ".join(rec.wanted.split()):
                problems.append(f"{label}: {rec.owner} {rec.wanted!r} was cut (or a word "
                                f"broken) to {rec.text!r}")
            if "{" in rec.text or rec.text.startswith(("wizard.", "settings.", "enroll.")):
                problems.append(f"{label}: {rec.owner} shows a raw key {rec.text!r}")
    assert problems == []


def test_touch_targets_are_at_least_48_pixels():
    small = []
    for name, suffix in CASES:
        app, _ = render(name, suffix, (800, 480), "en")
        for w in app.screen._widgets:
            if w.on_tap is not None and not w.name.startswith("toast") and (
                    w.rect.w < 48 or w.rect.h < 48):
                small.append(f"{name}-{suffix}: {w.name} {tuple(w.rect)}")
    assert small == []


# --- settings -----------------------------------------------------------------------------

def settings_app(tmp_path, size=(800, 480)):
    cfg = config_defaults()
    cfg.values["journal"]["path"] = str(tmp_path / "data" / "journal.db")
    loop, app = make_app(size=size)
    app.config = cfg
    return loop, app


def test_settings_change_by_touch_and_are_saved_beside_the_journal(tmp_path):
    loop, app = settings_app(tmp_path)
    heard = []
    settings_for(app).subscribe(lambda s, name: heard.append((name, getattr(s, name))))
    screen = app.open("settings")
    assert isinstance(screen, SettingsScreen)
    touch(app, "set.volume.minus")
    touch(app, "set.brightness.plus")
    touch(app, "set.turn_timer.plus")
    touch(app, "set.turn_timer.plus")
    touch(app, "set.lang.es")
    touch(app, "set.voice")                       # the voice off
    touch(app, "set.teaching")                    # teaching on
    assert app.settings.values() == {"language": "es", "volume": 0.6, "brightness": 0.4,
                                     "turn_timer": 45, "voice": False, "teaching": True}
    assert heard == [("volume", 0.6), ("brightness", 0.4), ("turn_timer", 30),
                     ("turn_timer", 45), ("language", "es"), ("voice", False),
                     ("teaching", True)]
    assert widget(app, "set.teaching").text == "Explicaciones: Sí"
    assert widget(app, "set.voice").text == "Voz: No"
    assert text.language() == "es"
    assert widget(app, "set.title").text == "Ajustes"
    assert widget(app, "set.turn_timer.value").text == "45 s"
    saved = path_beside(app.config["journal"]["path"])
    assert saved == str(tmp_path / "data" / "screen-settings.toml")
    again = SettingsStore(saved).load(Settings())
    assert again.values() == app.settings.values()
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["screen-settings.toml"]
    touch(app, "set.done")
    assert app.screen is not screen


def test_settings_stay_within_their_ranges(tmp_path):
    loop, app = settings_app(tmp_path)
    app.open("settings")
    for _ in range(12):
        if widget(app, "set.volume.plus").enabled:
            touch(app, "set.volume.plus")
    assert app.settings.volume == 1.0 and not widget(app, "set.volume.plus").enabled
    assert not widget(app, "set.turn_timer.minus").enabled   # already off


def test_a_damaged_settings_file_gives_the_config_values(tmp_path, caplog):
    path = tmp_path / "screen-settings.toml"
    path.write_text('language = "xx"\nvolume = 7\nturn_timer = [\n')
    with caplog.at_level(logging.WARNING, logger="companion.outputs.screen.settings"):
        s = SettingsStore(str(path)).load(Settings(volume=0.5))
    assert s.volume == 0.5 and "cannot read" in caplog.text
    path.write_text('language = "xx"\nvolume = 7\nturn_timer = "soon"\n')
    s = SettingsStore(str(path)).load(Settings())
    assert s.language == "en" and s.volume == 1.0 and s.turn_timer == 0


def test_settings_that_cannot_be_saved_say_so_and_still_apply(tmp_path):
    blocker = tmp_path / "data"
    blocker.write_text("a file where the folder should be")
    loop, app = settings_app(tmp_path)
    app.open("settings")
    touch(app, "set.volume.plus")
    assert app.settings.volume == 0.8
    assert any(t.startswith("The settings could not be saved") for t in app.screen.toasts)


def test_the_korean_font_hint_shows_when_no_hangul_font_is_installed():
    _, app = make_app()
    fonts.set_book(fonts.FontBook(fc_match="/nonexistent/fc-match",
                                  fc_list="/nonexistent/fc-list"))
    widgets.reset_fonts()
    try:
        app.open("settings")
        hint = widget(app, "set.font_hint").text
        assert "sudo apt install fonts-nanum" in hint
    finally:
        fonts.set_book(None)
        widgets.reset_fonts()
    app.screen.invalidate()
    if not fonts.hangul_missing():
        assert not has_widget(app, "set.font_hint")


# --- enroll --------------------------------------------------------------------------------

def enrolled(app) -> list[EnrollRequest]:
    return [e for e in app._own if isinstance(e, EnrollRequest)]


def test_enroll_a_card_by_touch():
    loop, app = make_app()
    screen = app.open("enroll", tag="04A1B2C3D4")
    assert isinstance(screen, EnrollScreen)
    touch(app, "en.drink")
    type_on_keyboard(app, "Café bombón")
    touch(app, "kb.ok")
    for ing in ("coffee", "coffee", "milk", "chocolate"):
        touch(app, f"en.ing.{ing}")
    assert not widget(app, "en.ing.tea").enabled          # four at most
    touch(app, "en.slot3")                                  # take chocolate back
    touch(app, "en.ing.caramel")
    touch(app, "en.specialty")
    touch(app, "en.save")
    assert enrolled(app) == [EnrollRequest("04A1B2C3D4", "Café bombón",
                                           ("coffee", "coffee", "milk", "caramel"), True)]
    assert app.screen is not screen
    assert loop.session.catalog.get("04A1B2C3D4").drink == "Café bombón"


def test_enroll_needs_a_drink_and_two_ingredients():
    loop, app = make_app()
    screen = app.open("enroll", tag="EXW999", edition="winter")
    assert [w.name for w in screen.build() if w.name.startswith("en.ing.")] == [
        f"en.ing.{i}" for i in ("coffee", "milk", "steam", "ice", "fruit", "chocolate", "tea",
                                "water")]
    touch(app, "en.save")
    assert "Type the drink's name first" in screen.toasts
    screen.drink = "Snow latte"
    touch(app, "en.ing.fruit")
    touch(app, "en.save")
    assert "Choose 2 to 4 ingredients" in screen.toasts
    assert enrolled(app) == [] and app.screen is screen
    touch(app, "en.later")
    assert app.screen is not screen and enrolled(app) == []
