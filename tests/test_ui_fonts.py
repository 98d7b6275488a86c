"""Fonts: Hangul through fontconfig when installed, a clear fallback when not."""
from __future__ import annotations

import logging
import os
import stat
import subprocess

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from companion.words import fonts  # noqa: E402
from timing import scaled


@pytest.fixture(autouse=True)
def _pygame_fonts():
    pygame.font.init()
    yield


def korean_font_installed() -> bool:
    try:
        out = subprocess.run(["fc-list", ":lang=ko", "-f", "%{file}\\n"], capture_output=True,
                             text=True, timeout=scaled(10))
    except OSError:
        return False
    return bool(out.stdout.strip())


def pixels(surface: pygame.Surface) -> bytes:
    return pygame.image.tostring(surface, "RGBA")   # tobytes is 2.1.3+; Debian has 2.1.2


needs_korean = pytest.mark.skipif(not korean_font_installed(),
                                  reason="no Korean font installed (apt install fonts-nanum)")


@needs_korean
def test_a_korean_font_is_found_through_fontconfig():
    book = fonts.FontBook()
    files = book.files
    assert not book.hangul_missing()
    name = os.path.basename(files.hangul)
    assert name.startswith(("Nanum", "NotoSansCJK", "NotoSerifCJK")) or files.hangul
    assert files.hangul_bold is not None
    assert files.latin is not None and "DejaVu" in os.path.basename(files.latin)


@needs_korean
def test_hangul_is_drawn_with_real_glyphs_and_latin_with_the_latin_font():
    book = fonts.FontBook()
    f = book.font(28)
    # two different syllables look different (a missing glyph draws the same box twice)
    assert pixels(f.render("한", True, (255, 255, 255))) != \
        pixels(f.render("글", True, (255, 255, 255)))
    runs = f.runs("Ana 민수 ñé")
    assert runs == [(0, "Ana "), (1, "민수"), (0, " ñé")]
    w, h = f.size("Ana 민수 ñé")
    img = f.render("Ana 민수 ñé", True, (255, 255, 255))
    assert img.get_size() == (w, h) and w > 0 and h == f.get_height()
    assert f.get_linesize() >= f.get_height()


def test_fonts_are_cached_per_size_and_weight():
    book = fonts.FontBook()
    assert book.font(20) is book.font(20)
    assert book.font(20) is not book.font(20, bold=True)
    assert book.font(20) is not book.font(21)


def test_discovery_failing_falls_back_to_the_default_font_with_one_warning(caplog):
    book = fonts.FontBook(fc_match="/nonexistent/fc-match", fc_list="/nonexistent/fc-list")
    with caplog.at_level(logging.WARNING, logger="companion.words.fonts"):
        assert book.hangul_missing()
        assert book.files == fonts.FontFiles()
        f = book.font(24)
        for word in ("한국어", "설정", "게임 시작"):
            img = f.render(word, True, (255, 255, 255))
            assert img.get_width() > 0
        assert f.size("Ana ñ")[0] > 0
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert "fonts-nanum" in message and "fonts-noto-cjk" in message


def test_no_warning_when_only_latin_text_is_drawn(caplog):
    book = fonts.FontBook(fc_match="/nonexistent/fc-match", fc_list="/nonexistent/fc-list")
    with caplog.at_level(logging.WARNING, logger="companion.words.fonts"):
        book.font(24).render("Ñandú à la carte", True, (255, 255, 255))
    assert [r for r in caplog.records if r.levelno == logging.WARNING] == []


def _script(path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_fontconfig_without_any_korean_font(tmp_path):
    """fontconfig answers, but lists no Korean font: Latin from DejaVu, Hangul missing."""
    dejavu = subprocess.run(["fc-match", "-f", "%{file}", "DejaVu Sans"], capture_output=True,
                            text=True).stdout.strip() if os.path.exists("/usr/bin/fc-match") else ""
    if not dejavu:
        pytest.skip("fontconfig with DejaVu Sans is not installed here")
    fc_list = _script(tmp_path / "fc-list", "exit 0")
    fc_match = _script(tmp_path / "fc-match", f"printf '%s' '{dejavu}'")
    book = fonts.FontBook(fc_match=fc_match, fc_list=fc_list)
    assert book.hangul_missing()
    assert book.files.latin == dejavu
    assert len(book.font(20).faces) == 1


@pytest.mark.parametrize("korean", [False, True])
def test_a_text_is_drawn_as_high_as_it_was_measured_with_or_without_a_korean_font(korean):
    """A text is fitted to its box by ``size`` and ``get_height``; its drawing must be no
    higher. Found on a machine without a Korean font: the chain then had one face, drawn
    by pygame a pixel higher than measured (SDL_ttf adds the baseline's row), and the
    screens' numbers (a card's "×2", a story's token) stood a pixel out of their boxes."""
    found = fonts.find_font_files()
    if found.latin is None or (korean and found.hangul is None):
        pytest.skip("needs DejaVu and, for the Korean chain, a Korean font")
    files = found if korean else fonts.FontFiles(found.latin, found.latin_bold)
    book = fonts.FontBook(files=files)
    for size, bold in ((15, True), (29, True), (22, False)):
        chain = book.font(size, bold)
        assert len(chain.faces) == (2 if korean else 1)
        for text in ("×2", "3", "Caramel Macchiato", ""):
            drawn = chain.render(text, True, (0, 0, 0))
            assert drawn.get_height() == chain.size(text)[1] == chain.get_height(), \
                (size, bold, text, drawn.get_height(), chain.size(text))


def test_widgets_draw_with_these_fonts():
    from companion.outputs.screen import widgets
    widgets.reset_fonts()
    try:
        f = widgets.font(22)
        assert isinstance(f, fonts.ChainFont)
        surface = pygame.Surface((300, 60))
        with widgets.record_text() as drawn:
            widgets.draw_text(surface, "설정 · Ajustes", pygame.Rect(0, 0, 300, 60), 22)
        assert drawn and drawn[0].box.contains(drawn[0].rect)
    finally:
        widgets.reset_fonts()


def test_hangul_detection():
    assert fonts.has_hangul("Ana 민수")
    assert fonts.has_hangul("ㅎ")
    assert not fonts.has_hangul("Ñandú café")


def test_fonts_made_before_pygame_quit_are_never_used_after_it():
    book = fonts.FontBook()
    before = book.font(18)
    before.render("Ana", True, (255, 255, 255))
    pygame.quit()
    pygame.init()
    after = book.font(18)
    assert after is not before
    assert after.render("Ana 민수 é", True, (255, 255, 255)).get_width() > 0
    pygame.quit()               # twice: the quit hook is registered again each time
    pygame.init()
    assert book.font(18) is not after


def test_the_screens_fonts_made_before_pygame_quit_are_forgotten_after_init_again():
    """pygame.quit() then pygame.init() before the screen asks for a font again (tests,
    a restarted display): the screen's own cache must not hand out a freed font."""
    from companion.outputs.screen import widgets
    pygame.init()
    before = widgets.font(18)
    assert before.size("Ana")[0] > 0
    pygame.quit()
    pygame.init()
    after = widgets.font(18)
    assert after is not before and after.size("Ana 민수")[0] > 0


def test_a_face_not_used_since_the_last_look_is_closed_and_draws_the_same_when_asked_again():
    """Each type size holds a face of its own in C memory (about 0.2 MB): one not used
    between two looks (``close_idle``) is closed; the font keeps its metrics and widths, and
    the face opens again, drawing the same pixels, when a text needs it."""
    book = fonts.FontBook()
    used, idle = book.font(30, bold=True), book.font(31, bold=True)
    drawn = pixels(idle.render("Order 12 ñé", True, (255, 255, 255)))
    metrics = (idle.get_ascent(), idle.get_descent(), idle.get_linesize(), idle.size("Ana"))
    assert book.close_idle() == 0                 # both used since they were opened
    used.render("Ben", True, (255, 255, 255))
    assert book.close_idle() == 1                 # the 31 was not asked for since
    assert used.faces[0].is_open and not idle.faces[0].is_open
    assert (idle.get_ascent(), idle.get_descent(), idle.get_linesize(),
            idle.size("Ana")) == metrics           # without opening it
    assert not idle.faces[0].is_open
    assert pixels(idle.render("Order 12 ñé", True, (255, 255, 255))) == drawn
    assert idle.faces[0].is_open and book.font(31, bold=True) is idle


def test_the_screen_closes_the_sizes_no_text_needed_through_a_game_once_the_next_starts():
    """While the table is idle after a game started, the sizes not used since the game
    before started are closed; the screen draws on."""
    import json

    from benchmarks.games import finished_game
    from companion.core import events as ev
    from companion.outputs.screen import widgets
    from ui_touch import make_app

    loop, app = make_app((800, 480))
    app.pump()
    odd = widgets.font(77)                         # a size no screen asks for
    odd.size("Ana")

    def play(seed: int) -> None:
        for line in finished_game(seed, players=2):
            loop.post(ev.TouchAction(json.loads(line)))
        loop.drain()
        app.pump()
        while app.work_ahead():
            pass

    play(0)                        # used since the start: still open after game 1 starts
    assert odd.faces[0].is_open
    play(1)                        # not used through game 1: closed once game 2 started
    assert not odd.faces[0].is_open
    assert widgets.font(77) is odd
    assert any(face.is_open for chain in fonts.book()._cache.values() for face in chain.faces)


def test_the_heap_goes_back_once_the_table_is_quiet_and_once_until_the_next_frame():
    import json

    from benchmarks.games import finished_game
    from companion.core import events as ev
    from ui_touch import make_app

    loop, app = make_app((800, 480))
    given_back: list[int] = []
    app.give_back = lambda: given_back.append(app.frames)
    lines = iter(finished_game(0, players=2))
    app.pump()
    app.clock.now += app.quiet_after - 0.1
    assert not app.give_back_when_quiet() and given_back == []     # not quiet long enough
    app.clock.now += 0.1
    assert app.give_back_when_quiet() and given_back == [app.frames]
    assert not app.give_back_when_quiet()                  # once until the next frame
    app.clock.now += 60
    assert not app.give_back_when_quiet() and len(given_back) == 1
    loop.post(ev.TouchAction(json.loads(next(lines))))     # a game is set up: an update
    loop.drain()
    app.pump()
    assert not app.give_back_when_quiet()                  # it was just now
    app.clock.now += app.quiet_after
    assert app.give_back_when_quiet() and given_back[-1] == app.frames
    assert len(given_back) == 2


def test_closing_the_screen_makes_every_font_book_forget_its_fonts():
    """``App.close`` quits pygame.font, which runs no quit hook: every font book (the end
    summary keeps one of its own, used from the phone view's threads) must drop the fonts
    that died with it. One used after pygame.font was initialised again crashed the suite's
    process (2026-11-28, the summary PDF test, after another test closed its screen)."""
    from ui_touch import make_app
    own = fonts.FontBook()
    before = own.font(21)
    before.render("Ana", True, (0, 0, 0))
    quits = fonts.quits
    _loop, app = make_app()
    app.close()
    assert fonts.quits == quits + 1
    pygame.font.init()
    after = own.font(21)
    assert after is not before
    assert after.render("Ana", True, (0, 0, 0)).get_width() > 0


def test_faces_open_and_close_one_at_a_time():
    """SDL_ttf opens every face on one FreeType library, which wants faces made and done
    with one at a time: the screen and the summary's thread take the same lock."""
    import threading
    held: list[bool] = []
    real = pygame.font.Font

    def watching(*args):
        held.append(fonts._FACES._is_owned())
        return real(*args)
    pygame.font.Font = watching
    try:
        book = fonts.FontBook()
        threads = [threading.Thread(target=book.font, args=(size,)) for size in (31, 33, 35)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(scaled(10))
    finally:
        pygame.font.Font = real
    assert held and all(held)
