"""The screen's caches stay within their caps however many different things are drawn
(issue 19: a service that draws new names and scores every game must not grow)."""
from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.words import fonts  # noqa: E402
from companion.outputs.screen import widgets  # noqa: E402
from companion.outputs.screen.surface_cache import SurfaceCache, surface_bytes  # noqa: E402


@pytest.fixture(autouse=True)
def _pygame_fonts():
    pygame.font.init()
    yield


def test_ten_thousand_texts_stay_within_the_render_cache_cap():
    widgets.reset_fonts()
    cache = widgets._render_cache
    for n in range(10_000):
        widgets.render(f"Player {n} served {n * 7} cups", 18, (20, 20, 20))
        assert cache.bytes <= cache.max_bytes
    assert 0 < len(cache) <= cache.max_items
    assert cache.bytes > cache.max_bytes // 2     # full, not emptied
    assert cache.bytes == sum(surface_bytes(s) for s in cache.values())
    # the texts of the screen on show stay: the newest is still there, the first is gone
    assert ("Player 9999 served 69993 cups", 18, (20, 20, 20), False) in cache
    assert ("Player 0 served 0 cups", 18, (20, 20, 20), False) not in cache


def test_rounded_shapes_of_every_size_stay_within_the_shape_cache_cap():
    target = pygame.Surface((800, 480))
    cache = widgets._shapes
    cache.clear()
    for n in range(300):                         # about 130 MB of shapes, all different
        rect = pygame.Rect(0, 0, 100 + 2 * n, 40 + n)
        for _ in range(2):                       # a copy is owed the second time
            widgets.rounded(target, rect, 12, ((n % 256, 40, 40), 0), ((250, 246, 240), 2))
        while widgets.make_owed_copy(target):          # (made while the table is idle)
            pass
        assert cache.bytes <= cache.max_bytes
    assert 0 < len(cache) <= cache.max_items
    assert cache.bytes > cache.max_bytes // 2     # full, not emptied


def test_the_least_recently_used_surface_goes_first():
    one = pygame.Surface((10, 10), pygame.SRCALPHA)
    cache = SurfaceCache(max_bytes=3 * surface_bytes(one))
    for key in "abc":
        cache.put(key, one.copy())
    assert cache.get("a") is not None            # a used again: b is now the oldest
    cache.put("d", one.copy())
    assert list(cache) == ["c", "a", "d"]
    assert cache.bytes == 3 * surface_bytes(one)
    cache.put("huge", pygame.Surface((100, 100), pygame.SRCALPHA))   # above the cap: not kept
    assert "huge" not in cache and cache.bytes <= cache.max_bytes


def test_the_korean_face_is_opened_only_when_a_korean_character_is_drawn():
    files = fonts.find_font_files()
    if files.hangul is None or files.latin is None:
        pytest.skip("needs DejaVu and a Korean font (apt install fonts-dejavu fonts-nanum)")
    book = fonts.FontBook(files=files)
    chain = book.font(22)
    latin, korean = chain.faces
    assert latin._font is not None and korean._font is None     # metrics only, then closed
    chain.render("Queue 3", True, (0, 0, 0))
    assert korean._font is None
    chain.render("주문 3", True, (0, 0, 0))
    assert korean._font is not None
    # the chain's metrics are those of both faces, as when both stayed open
    opened = pygame.font.Font(files.hangul, 22)
    assert chain.get_ascent() == max(latin.font.get_ascent(), opened.get_ascent())
    assert chain.get_descent() == min(latin.font.get_descent(), opened.get_descent())


def test_the_letters_boxes_forget_the_least_recently_drawn_first():
    """Every line drawn asks for its letters' box: past the cap the oldest is forgotten, not
    all of them at once (the texts on show keep theirs)."""
    widgets.reset_fonts()
    on_show = ("OPEN", 24, (250, 246, 240), True)
    first = widgets._ink(*on_show)
    for n in range(widgets.INK_KEPT + 50):
        widgets._ink(f"Player {n}", 18, (20, 20, 20), False)
        widgets._ink(*on_show)                        # drawn every frame
    assert len(widgets._ink_cache) == widgets.INK_KEPT
    assert widgets._ink_cache[on_show] is first      # kept, not found again
    assert ("Player 0", 18, (20, 20, 20), False) not in widgets._ink_cache
    assert (f"Player {widgets.INK_KEPT + 49}", 18, (20, 20, 20), False) in widgets._ink_cache
