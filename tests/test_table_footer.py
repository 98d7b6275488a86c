"""The table's footer read from 1.5 m (issue 40), measured on rendered screens in all five
languages at 800 x 480 and 1024 x 600:

* each small button (UNDO, REDO, UPGRADE, SPEND, FIX, Cake Time's cake card) shows a
  picture whose ink is 6 mm tall (31 px at 800 wide, 39 px at 1024), found on the surface
  as the pixels that differ from the button's face, above its word and inside its button
  (the table's ground shows all round it);
* the small buttons' words take one type size in every language, the small type (17 px at
  800 x 480), with Cake Time's sixth button too, whole, never cut, inside their button and
  clear of the picture;
* END TURN's words are 6 mm tall (a capital's height at the size drawn, and their ink);
* a disabled button (REDO with nothing to redo) is hollow, not only greyer;
* each picture is drawn once, then copied: a repaint of the footer draws none again.
"""
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.appliance.config import LANGUAGES  # noqa: E402
from companion.outputs.screen import text, theme  # noqa: E402
from companion.outputs.screen.layout import Metrics  # noqa: E402
from companion.outputs.screen.screenshots import SIZES, make_app, sample_script  # noqa: E402
from companion.outputs.screen.widgets import record_text  # noqa: E402
from companion.words import i18n  # noqa: E402
from test_table_glance import cap_height, needed  # noqa: E402

SCRIPTS = ("sample_game.jsonl", "sample_cake_game.jsonl")
WORDS = {"ft.undo": "button.undo", "ft.redo": "button.redo", "ft.upgrade": "button.upgrade",
         "ft.spend": "button.spend", "ft.fix": "button.fix", "ft.cake_card": "cake.play"}


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    text.set_language("en")


def rendered(lang, size, script):
    _, app = make_app(sample_script(script), size, lang)
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    buttons = {w.name: w for w in app.screen.widgets() if w.name.startswith("ft.")}
    return app, buttons, {r.owner: r for r in texts if r.owner.startswith("ft.")}


def ink(surface, area, face):
    """The bounding box of the pixels of ``area`` that are not ``face`` (None: none)."""
    sub = surface.subsurface(area)
    same = pygame.mask.from_threshold(sub, face, (1, 1, 1, 255))
    same.invert()
    boxes = same.get_bounding_rects()
    if not boxes:
        return None
    return boxes[0].unionall(boxes[1:]).move(area.x, area.y)


def picture_and_word(surface, button, word):
    """The ink of the button's picture (above its word's line) and of anything in the
    word's rows outside the word's line box, looked for inside the button's outline and
    clear of its rounded corners."""
    r = button.rect
    edge = 3                        # (a disabled button's outline is 2 px)
    face = surface.get_at((r.x + edge + 1, r.y + r.h // 3))
    inner = pygame.Rect(r.x + button.radius, r.y + edge, r.w - 2 * button.radius,
                        r.h - 2 * edge)
    above = pygame.Rect(inner.x, inner.y, inner.w, word.rect.top - inner.y)
    beside = [pygame.Rect(inner.x, word.rect.top, word.rect.left - inner.x, word.rect.h),
              pygame.Rect(word.rect.right, word.rect.top, inner.right - word.rect.right,
                          word.rect.h)]
    stray = [ink(surface, b, face) for b in beside if b.w > 0 and b.h > 0]
    return face, (ink(surface, above, face) if above.h > 0 else None), \
        [s for s in stray if s is not None]


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_each_footer_button_reads_from_1_5_m_in_every_language(size, script):
    m = Metrics.of(size)
    word_sizes = set()
    for lang in LANGUAGES:
        where = (lang, size, script)
        app, buttons, words = rendered(lang, size, script)
        small = [n for n in buttons if n != "ft.end"]
        assert {"ft.undo", "ft.redo", "ft.fix"} <= set(small) and "ft.end" in buttons, where
        for name in small:
            button, word = buttons[name], words[name]
            assert button.rect.h >= m.target and button.rect.w >= m.target, (where, name)
            # the word: whole, one line, inside the button
            assert word.text == i18n.tr(lang, WORDS[name]) and "…" not in word.text, \
                (where, name, word.text)
            assert button.rect.contains(word.rect), (where, name, word.rect, button.rect)
            word_sizes.add(word.size)
            # the picture: 6 mm tall, above the word, nothing else in the word's rows
            _, picture, stray = picture_and_word(app.surface, button, word)
            assert picture is not None, (where, name, "no picture above the word")
            assert picture.h >= needed(size), (where, name, picture.h)
            assert not stray, (where, name, stray)
            # and nothing of it outside: the ground shows all round it
            r = button.rect
            around = [pygame.Rect(r.x - 1, r.y, 1, r.h), pygame.Rect(r.right, r.y, 1, r.h),
                      pygame.Rect(r.x, r.y - 1, r.w, 1)]
            assert not [a for a in around if ink(app.surface, a, theme.BACKGROUND)], \
                (where, name)
        # END TURN: its words at the must-read size, whole, inside the button
        end = words["ft.end"]
        assert end.text == i18n.tr(lang, "button.end_turn"), (where, end.text)
        assert cap_height(end) >= needed(size) and end.rect.h >= needed(size), \
            (where, end.text, cap_height(end), end.rect.h)
        assert buttons["ft.end"].rect.contains(end.rect), where
    assert len(word_sizes) == 1, (size, script, word_sizes)     # one size, every language
    # the small type (17 px at 800 x 480), Cake Time's six buttons too (they were 14 px)
    assert word_sizes.pop() == m.small, (size, script)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_disabled_footer_button_is_hollow_not_only_greyer(size):
    app, buttons, words = rendered("en", size, "sample_game.jsonl")
    undo, redo = buttons["ft.undo"], buttons["ft.redo"]
    assert undo.tappable and not redo.tappable
    undo_face, _, _ = picture_and_word(app.surface, undo, words["ft.undo"])
    redo_face, picture, _ = picture_and_word(app.surface, redo, words["ft.redo"])
    assert tuple(undo_face)[:3] == theme.BUTTON
    assert tuple(redo_face)[:3] == theme.BACKGROUND             # the ground shows through
    r = redo.rect                                               # inside an outline
    assert tuple(app.surface.get_at((r.x, r.centery)))[:3] == theme.BUTTON
    assert picture is not None and picture.h >= needed(size)    # and still says what it is


def test_each_picture_is_drawn_once_then_copied(monkeypatch):
    from companion.outputs.screen import footer_buttons
    app, buttons, _ = rendered("ko", (800, 480), "sample_cake_game.jsonl")
    assert {"ft.undo", "ft.fix", "ft.cake_card"} <= set(buttons)

    def drawn_again(*args):
        raise AssertionError(f"a footer picture drawn again: {args[1]}")

    monkeypatch.setattr(footer_buttons, "_paint_icon", drawn_again)
    app.screen.invalidate()
    app.screen.draw(app.surface)
    text.set_language("en")                        # another language: the same pictures
    app.screen.invalidate()
    app.screen.draw(app.surface)
    from companion.outputs.screen.screens.base import Pointer
    fix = next(w for w in app.screen.widgets() if w.name == "ft.fix")
    app.screen.handle(Pointer("down", fix.rect.center))     # a finger on FIX: its face
    app.screen.draw(app.surface)                            # lighter, the same picture
    assert next(w for w in app.screen.widgets() if w.name == "ft.fix").pressed
