"""Test helpers: an App on an off-screen surface, and fingers that tap its widgets.

Taps go through the App exactly as a touchscreen's do: a pygame FINGERDOWN and
FINGERUP event at the widget's centre, in the normalised 0-1 coordinates SDL
uses, handed to ``App.handle``.
"""
from __future__ import annotations

import json
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.outputs.screen import screenshots, text  # noqa: E402


def _dejavu_missing() -> bool:
    from companion.words.fonts import find_font_files
    return find_font_files().latin is None


#: for the screen demo: without DejaVu Sans the service opens on its missing-font page (a
#: fault a table is told about) and the bots never play
needs_dejavu = pytest.mark.skipif(_dejavu_missing(), reason="no DejaVu Sans: the screen opens "
                                  "on the missing-font page (apt install fonts-dejavu-core)")


@pytest.fixture(autouse=True)
def english_words():
    """The screen's words in English for a test, and back to English after it (a module that
    imports this fixture gets it for each of its tests)."""
    text.reset("en")
    yield
    text.reset("en")


def line(**a) -> str:
    """One table-script line from its keys."""
    return json.dumps(a)


def make_app(size=(800, 480), lang="en", lines=()):
    """A table loop without a journal and an App drawing off-screen (clock frozen at 1000 s;
    move it with ``app.clock.now += seconds``)."""
    loop, app = screenshots.make_app(list(lines), size, lang)
    return loop, app


def widget(app, name: str):
    app.screen.draw(app.surface)
    for w in app.screen._widgets:
        if w.name == name:
            return w
    names = sorted(w.name for w in app.screen._widgets)
    raise AssertionError(f"no widget {name!r} on {type(app.screen).__name__}: {names}")


def has_widget(app, name: str) -> bool:
    app.screen.draw(app.surface)
    return any(w.name == name for w in app.screen._widgets)


def touch(app, name: str) -> None:
    """A finger taps the widget ``name`` of the top screen; the table loop then runs."""
    w = widget(app, name)
    assert getattr(w, "tappable", w.on_tap is not None), f"{name} cannot be tapped now"
    width, height = app.size
    x, y = w.rect.center
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        app.handle(pygame.event.Event(kind, x=(x + 0.25) / width, y=(y + 0.25) / height,
                                      touch_id=1, finger_id=1, dx=0.0, dy=0.0, pressure=1.0))
    app.loop.drain()
    app.process_updates()
    app.draw()


def _keystrokes(text: str) -> str:
    """Hangul syllables as the jamo a person types (닭 -> ㄷㅏㄹㄱ, 과 -> ㄱㅗㅏ)."""
    from companion.outputs.screen.keyboard import CHO, JONG, JUNG, SPLIT_FINAL, SPLIT_VOWEL
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00
        if not 0 <= code < 11172:
            out.append(ch)
            continue
        cho, jung, jong = CHO[code // 588], JUNG[(code % 588) // 28], JONG[code % 28]
        out.append(cho)
        out.extend(SPLIT_VOWEL.get(jung, (jung,)))
        if jong:
            out.extend(SPLIT_FINAL.get(jong, (jong,)))
    return "".join(out)


def type_on_keyboard(app, text: str) -> None:
    """Tap the keys of the on-screen keyboard (switching layers as a person would)."""
    from companion.outputs.screen.keyboard import (ACCENTS, HANGUL, HANGUL_SHIFT, LATIN,
                                                   KeyboardScreen)
    screen = app.screen
    assert isinstance(screen, KeyboardScreen), type(screen).__name__
    kb = screen.keyboard
    shifted_hangul = {v: k for k, v in HANGUL_SHIFT.items()}
    for ch in _keystrokes(text):
        if ch == " ":
            touch(app, "kb.space")
            continue
        if ch in shifted_hangul or any(ch in row for row in HANGUL[1:]):
            layout, base = "hangul", shifted_hangul.get(ch, ch)
        elif any(ch.lower() in row for row in LATIN):
            layout, base = "latin", ch.lower()
        elif any(ch.lower() in row for row in ACCENTS):
            layout, base = "accents", ch.lower()
        else:
            raise AssertionError(f"no key for {ch!r}")
        while kb.layout != layout:
            if layout == "hangul" or kb.layout == "hangul":
                touch(app, "kb.script")
            else:
                touch(app, "kb.accents")
        want_shift = (ch in shifted_hangul) if layout == "hangul" else ch != ch.lower()
        if kb.shifted != want_shift:
            touch(app, kb.key_name("⇧"))
        touch(app, kb.key_name(base))
