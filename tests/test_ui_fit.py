"""Fitting text to a box skips the type sizes that clearly cannot fit (each is a font to open
and the text to measure and wrap: the longest steps painted ahead, issue 38), and finds
exactly what trying every size finds, in every language."""
from __future__ import annotations

import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.outputs.screen import widgets  # noqa: E402
from companion.words.i18n import catalog  # noqa: E402

LANGS = ("en", "es", "pt", "it", "ko")


@pytest.fixture(autouse=True)
def _pygame_fonts():
    pygame.font.init()
    yield


def texts(lang: str, rng: random.Random, count: int) -> list[str]:
    """Real words of the screen: short labels and long sentences (templates as written)."""
    words = sorted(set(catalog(lang).values()))
    short = [w for w in words if len(w) <= 16]
    long = [w for w in words if len(w) > 40]
    return rng.sample(short, min(count, len(short))) + rng.sample(long, min(count, len(long)))


@pytest.mark.parametrize("lang", LANGS)
def test_skipping_sizes_finds_what_every_size_finds(lang):
    rng = random.Random(f"fit-{lang}")
    checked = 0
    for text in texts(lang, rng, 25):
        for _ in range(6):
            box = pygame.Rect(0, 0, rng.randint(40, 600), rng.randint(14, 160))
            size = rng.choice((17, 22, 30, 44, 56))
            lines = rng.choice((1, 1, 2, 3, 6))
            bold = rng.random() < 0.5
            tight = lines == 1 and rng.random() < 0.3
            min_size = rng.choice((None, 8, 12))
            args = (text, box, size, bold, lines, min_size, tight)
            assert widgets._fit(*args, skip=True) == widgets._fit(*args, skip=False), args
            checked += 1
    assert checked >= 250


def test_a_long_sentence_in_a_small_box_opens_few_sizes(monkeypatch):
    """A paragraph that fits only at its smallest size: the sizes between are not tried."""
    text = " ".join(["Ben draws two orders, then Chloe draws two"] * 3)
    box = pygame.Rect(0, 0, 260, 70)
    asked: list[int] = []
    real = widgets.font

    def font(size, bold=False):
        asked.append(int(size))
        return real(size, bold)
    monkeypatch.setattr(widgets, "font", font)
    every = widgets._fit(text, box, 44, False, 3, 12, skip=False)
    tried_every = sorted(set(asked))
    asked.clear()
    assert widgets._fit(text, box, 44, False, 3, 12) == every
    tried = sorted(set(asked))
    assert len(tried_every) >= 8
    assert len(tried) <= 4, (tried, tried_every)


def _cut_a_letter_at_a_time(text: str, size: int, width: int, bold: bool) -> str:
    """What ``_ellipsize`` finds, as it found it before it halved: a letter at a time."""
    f = widgets.font(size, bold)
    if f.size(text)[0] <= width:
        return text
    while text and f.size(text + "…")[0] > width:
        text = text[:-1]
    return text + "…" if text else ""


@pytest.mark.parametrize("lang", LANGS)
def test_a_text_cut_with_an_ellipsis_is_cut_where_a_letter_at_a_time_cuts_it(lang):
    rng = random.Random(f"cut-{lang}")
    cut = 0
    for text in texts(lang, rng, 20):
        for _ in range(5):
            size, bold = rng.choice((12, 16, 22, 30)), rng.random() < 0.5
            width = rng.randrange(0, widgets.font(size, bold).size(text)[0] + 20)
            got = widgets._ellipsize(text, size, width, bold)
            assert got == _cut_a_letter_at_a_time(text, size, width, bold), (text, size, width)
            cut += got != text
    assert cut >= 50                # (most widths are too narrow: the halving is what runs)
