"""The one-page summary as a PDF (fpdf2): its words are text in every language, read back
by poppler's ``pdftotext`` (not only pixels), in fonts embedded in the file; the same game
gives the same file."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from companion.core.journal import Journal
from companion.core.session import Session, rebuild
from companion.outputs.screen import screenshots
from companion.review import summary
from companion.review.story import story_of
from companion.review.story_words import point_text
from companion.words.fonts import FontBook
from companion.words.i18n import tr
from timing import scaled

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None or shutil.which("pdffonts")
                                is None, reason="poppler-utils (pdftotext) is not installed")


@pytest.fixture(scope="module")
def journal_path(tmp_path_factory) -> str:
    """Game 1: the screenshots' finished sample (Ana wins)."""
    path = str(tmp_path_factory.mktemp("summary") / "journal.db")
    with Journal(path) as journal:
        s = Session(journal)
        for line in screenshots.sample_script(screenshots.FINISHED_SAMPLE):
            if line.startswith("{"):
                assert not hasattr(s.apply_line(line), "code"), line
    return path


def flat(text: str) -> str:
    """Text with every run of white space one space (pdftotext breaks lines as laid out)."""
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("lang", ["en", "es", "pt", "it", "ko"])
def test_the_summary_pdf_carries_its_words_as_text(journal_path, tmp_path, lang):
    if lang == "ko" and FontBook().hangul_missing():
        pytest.skip("no Korean font installed (fonts-nanum)")
    with Journal(journal_path, readonly=True) as journal:
        data = summary.render(journal, 1, "pdf", lang)
        game = journal.games()[0]
        table = rebuild(journal.lines(game.id), rules=game.rules).table
    pdf = tmp_path / f"summary-{lang}.pdf"
    pdf.write_bytes(data)
    text = flat(subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
                               capture_output=True, text=True, check=True).stdout)
    story = story_of(table)
    assert story is not None and story.points
    expected = [tr(lang, "story.summary_title", game=1), tr(lang, "end.winner", player="Ana"),
                tr(lang, "story.summary_chart"), tr(lang, "story.summary_points"),
                tr(lang, "story.summary_footer"),
                *(point_text(lang, p) for p in story.points), *story.players]
    for words in expected:
        assert flat(words) in text, f"{words!r} is not text in the {lang} PDF:\n{text}"
    if lang == "ko":
        assert re.search("[\uac00-\ud7a3]{2}", text)       # Hangul syllables, as text
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True,
                           check=True).stdout.splitlines()[2:]
    assert fonts and all(" yes yes yes " in f for f in fonts), fonts   # embedded, subset, Unicode
    if lang == "ko":
        assert any("DejaVu" not in f for f in fonts), fonts   # the Hangul face too


def test_the_same_game_gives_the_same_pdf(journal_path):
    with Journal(journal_path, readonly=True) as journal:
        first, again = (summary.render(journal, 1, "pdf", "it") for _ in range(2))
    assert first == again and first.startswith(b"%PDF-")


def test_a_summary_after_pygame_font_quit_uses_no_dead_font(journal_path):
    """The screen closing (or a test) quits pygame.font: the summary's kept fonts die with
    it, and one used again crashes the whole process. Run apart, so a crash is a failure
    here, not a lost test worker."""
    import sys
    code = (
        "import pygame, sys\n"
        "from companion.core.journal import Journal\n"
        "from companion.review import summary\n"
        "with Journal(sys.argv[1], readonly=True) as j:\n"
        "    summary.render(j, 1, 'png', 'en')\n"
        "    pygame.font.quit()\n"
        "    summary.render(j, 1, 'png', 'ko')\n"
        "    pygame.font.quit()\n"
        "    assert summary.render(j, 1, 'pdf', 'en').startswith(b'%PDF-')\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code, journal_path], capture_output=True,
                          text=True, timeout=scaled(120), env={**__import__("os").environ,
                                                       "SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
