"""A widget painted ahead in parts (``Widget.paint_steps``: an idle step each, so that an input
arriving meanwhile waits for one part, not a whole first paint, issue 38) ends as the same
pixels as the widget painted in one go, whatever is done to the surface's clip between two
parts; and the parts really are several where the first paint was long (an order card's
fan, a long text tried at several sizes)."""
from __future__ import annotations

import os
import random

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.outputs.screen import widgets  # noqa: E402

GROUND = (40, 44, 52)
RECIPES = [("milk", "coffee"), ("milk", "coffee", "chocolate"), ("tea",),
           ("coffee", "milk", "vanilla", "ice")]


@pytest.fixture(autouse=True)
def _fresh_caches():
    pygame.display.init()
    pygame.font.init()
    widgets._fit_cache.clear()
    yield
    widgets._fit_cache.clear()


def in_one_go(w: widgets.Widget, screen: pygame.Surface) -> bytes:
    surface = pygame.Surface(screen.get_size(), 0, screen)
    surface.fill(GROUND)
    w.draw(surface)
    return pygame.image.tostring(surface, "RGB")


def in_parts(w: widgets.Widget, screen: pygame.Surface, rng: random.Random) -> tuple[bytes, int]:
    """Painted as the painter ahead does (``_Painter._parts``): the clip put back after each
    part, whatever happened to it between two idle steps."""
    surface = pygame.Surface(screen.get_size(), 0, screen)
    surface.fill(GROUND)
    parts = 1
    clip = surface.get_clip()
    for _ in w.draw_steps(surface):
        parts += 1
        surface.set_clip(pygame.Rect(rng.randint(0, 50), rng.randint(0, 50), 30, 30))
        surface.set_clip(clip)
    return pygame.image.tostring(surface, "RGB"), parts


def order_cards(rng: random.Random, count: int):
    for i in range(count):
        rect = pygame.Rect(rng.randint(0, 40), rng.randint(0, 40), rng.randint(40, 190),
                           rng.randint(30, 220))
        cards = tuple((f"Drink number {n}", rng.choice(RECIPES), rng.random() < 0.3)
                      if rng.random() < 0.9 else None for n in range(rng.randint(0, 3)))
        yield widgets.OrderCard(f"c{i}", rect, position=rng.randint(1, 4), cards=cards,
                                compact=rng.random() < 0.4, size=rng.randint(12, 26),
                                pressed=rng.random() < 0.2, highlight=rng.random() < 0.2,
                                urgent_size=rng.choice((0, 0, 30)))


def test_an_order_card_in_parts_is_the_card_in_one_go():
    rng = random.Random(38)
    screen = pygame.display.set_mode((400, 300))
    several = 0
    for w in order_cards(rng, 80):
        widgets._fit_cache.clear()
        whole = in_one_go(w, screen)
        widgets._fit_cache.clear()
        got, parts = in_parts(w, screen, rng)
        assert got == whole, w
        several += parts > 1
    assert several >= 20           # (a card with a fan is painted in several parts)


def test_a_full_card_paints_its_fan_and_its_name_apart():
    screen = pygame.display.set_mode((400, 300))
    w = widgets.OrderCard("act.pos1", pygame.Rect(10, 10, 150, 200), position=1,
                          cards=(("Caramel latte", RECIPES[3], True),
                                 ("Mocha", RECIPES[1], False)))
    _, parts = in_parts(w, screen, random.Random(1))
    assert parts >= 3              # the slot and its numbers; the fan; the top card's name


def test_a_long_text_tries_its_sizes_in_parts_and_ends_the_same():
    screen = pygame.display.set_mode((400, 300))
    text = " ".join(["Ben draws two orders, then Chloe draws two"] * 3)
    w = widgets.Label("dlg.hint", pygame.Rect(10, 10, 260, 70), text=text, size=44, lines=3,
                      min_size=12, background=(90, 90, 120), radius=8, pad=4)
    whole = in_one_go(w, screen)
    widgets._fit_cache.clear()
    widgets._glyphs_loaded.clear()
    got, parts = in_parts(w, screen, random.Random(2))
    assert got == whole
    assert parts >= 2
    widgets._fit_cache.clear()
    widgets._glyphs_loaded.clear()
    sizes = list(widgets.fit_steps(text, pygame.Rect(0, 0, 252, 62), 44, False, 3, 12))
    _, lines = widgets.fit(text, pygame.Rect(0, 0, 252, 62), 44, False, 3, 12)
    # a part per size tried that did not fit and per few letters first measured at a size,
    # a part per line rendered, then the paint
    assert len(lines) == 3 and len(sizes) >= 1
    assert parts == len(sizes) + len(lines) + 2


@pytest.mark.parametrize("seed", range(4))
def test_fit_in_steps_remembers_what_fit_finds(seed):
    rng = random.Random(seed)
    for _ in range(40):
        text = " ".join(rng.choice(("tea", "a long word", "밀크 커피", "café au lait"))
                        for _ in range(rng.randint(1, 12)))
        box = pygame.Rect(0, 0, rng.randint(20, 400), rng.randint(10, 120))
        args = (text, box, rng.choice((14, 22, 44)), rng.random() < 0.5,
                rng.choice((1, 2, 3)), rng.choice((None, 9)), False)
        widgets._fit_cache.clear()
        for _ in widgets.fit_steps(*args):
            pass
        assert widgets._fit_cache[(text, box.w, box.h) + args[2:]] == widgets._fit(*args)


@pytest.mark.parametrize("enabled", (True, False))
def test_a_button_with_a_long_label_in_parts_is_the_button_in_one_go(enabled):
    screen = pygame.display.set_mode((400, 300))
    w = widgets.Button("act.specialty", pygame.Rect(20, 20, 180, 60), size=30, lines=2,
                       text="Specialty order: two tokens for a like", enabled=enabled)
    whole = in_one_go(w, screen)
    widgets._fit_cache.clear()
    got, parts = in_parts(w, screen, random.Random(3))
    assert got == whole
    assert parts >= 2


def test_a_long_labels_lines_are_rendered_a_part_each_and_the_paint_renders_none(monkeypatch):
    """A button's long label painted ahead: each line it breaks into is rendered (its
    letters rasterised) in a part of its own, and the part that paints the button renders
    nothing (the specialty button's 40 letters rendered at once were the longest step
    painted ahead, 3.2 M: issue 38)."""
    screen = pygame.display.set_mode((400, 300))
    surface = pygame.Surface(screen.get_size(), 0, screen)
    w = widgets.Button("act.specialty", pygame.Rect(20, 20, 180, 60), size=30, lines=2,
                       text="Specialty order: two tokens for a like")
    widgets._render_cache.clear()
    renders: list[int] = []             # the part of each line rasterised (not yet kept)
    real = widgets.render

    def render(text, size, color, bold=False):
        if (text, size, color, bold) not in widgets._render_cache:
            renders.append(part[0])
        return real(text, size, color, bold)

    monkeypatch.setattr(widgets, "render", render)
    part = [1]
    with widgets.painting_ahead(surface):
        for _ in w.draw_steps(surface):
            part[0] += 1                        # (the last part: after the last yield)
    size, broken = widgets.fit(w.text, w._box(), w.size, w.bold, w.lines)
    assert len(broken) == 2
    assert len(set(renders)) == len(renders) == 2, renders     # a line a part, once each
    assert part[0] not in renders               # the paint copies them


def test_a_seat_token_in_parts_is_the_token_in_one_go():
    """A seat token (``table_panels.seat_token``: its shape and its number) fits its number
    ahead, a part per type size tried (each size's first use opens a font: a token's first
    paint was one 5.8 M step painted ahead), and ends as the same pixels as in one go."""
    from companion.outputs.screen.screens.table_panels import seat_token
    rng = random.Random(41)
    screen = pygame.display.set_mode((400, 300))
    several = 0
    for seat in range(4):
        for _ in range(6):
            rect = pygame.Rect(rng.randint(0, 60), rng.randint(0, 60), rng.randint(14, 90),
                               rng.randint(14, 90))
            w = seat_token(f"s{seat}", rect, seat, (rng.randint(0, 255), 90, 200))
            widgets._fit_cache.clear()
            whole = in_one_go(w, screen)
            widgets._fit_cache.clear()
            got, parts = in_parts(w, screen, rng)
            assert got == whole, (seat, rect)
            several += parts > 2
    assert several >= 4            # (a number tried at more than one size: parts of its own)


def test_a_type_size_is_opened_in_a_part_of_its_own():
    """Opening a type size (a face's tables read, its hinting set up) costs as much as the
    text measured or drawn with it: painted ahead, no part does both (an order card's count
    fitted at two new sizes and drawn was one 4.3 M step, the end screen's winner 3.3 M).
    Checked on order cards (the count in big type, the "?" of a card not known yet), a
    label and a button, each from fonts just forgotten."""
    screen = pygame.display.set_mode((400, 300))
    surface = pygame.Surface(screen.get_size(), 0, screen)
    unknown = (None,)
    several = [("Mocha", RECIPES[1], False)] * 3
    ws = [widgets.OrderCard("p0.pos4", pygame.Rect(10, 10, 61, 39), position=4, cards=several,
                            compact=True, urgent_size=41),
          widgets.OrderCard("act.pos4", pygame.Rect(10, 10, 150, 200), position=4,
                            cards=several, urgent_size=41),
          widgets.OrderCard("act.pos1", pygame.Rect(10, 10, 116, 147), position=1,
                            cards=unknown),
          widgets.Label("end.winner", pygame.Rect(10, 10, 300, 50), text="Ben wins!", size=34,
                        bold=True),
          widgets.Button("act.specialty", pygame.Rect(20, 20, 300, 40), size=17,
                         text="★ A specialty order? Tap: +1 rush token")]
    opened: list[int] = []
    used: list[int] = []
    real_font = widgets.font

    def font(size, bold=False):
        if (max(6, int(size)), bold) not in widgets._font_cache:
            opened.append((part, size))
        f = real_font(size, bold)
        if not hasattr(f, "faces"):
            return f
        return _Spy(f)

    class _Spy:
        def __init__(self, f):
            self._f = f

        def __getattr__(self, name):
            got = getattr(self._f, name)
            if name in ("size", "render"):
                def use(*a, **k):
                    used.append(part)
                    return got(*a, **k)
                return use
            return got

    widgets.font = font
    try:
        for w in ws:
            widgets.reset_fonts()
            part = 0
            for _ in w.draw_steps(surface):
                part += 1
            assert opened, w.name
            assert not {p for p, _ in opened} & set(used), f"{w.name} {opened} {used} {part}"
            opened.clear()
            used.clear()
    finally:
        widgets.font = real_font
        widgets.reset_fonts()


def test_a_widget_shown_in_part_is_made_aside_in_parts_and_shows_as_painted_whole():
    """Painting ahead a band that cuts across a widget, the widget's look is made aside a
    part per step, as it is painted in place (it was made in one step: a long label's fit
    and lines, among the longest steps ahead, issue 38), and the band shows it as the
    widget painted whole does."""
    from companion.outputs.screen.screens.base import _Painter
    screen = pygame.display.set_mode((400, 300))
    text = " ".join(["Ben draws two orders, then Chloe draws two"] * 3)
    w = widgets.Label("dlg.hint", pygame.Rect(10, 10, 260, 70), text=text, size=44, lines=3,
                      min_size=12, background=(90, 90, 120), radius=8, pad=4)
    band = pygame.Rect(0, 0, 400, 40)               # (the label's top only)
    whole = pygame.Surface(screen.get_size(), 0, screen)
    whole.fill(GROUND)
    w.draw(whole)
    widgets._fit_cache.clear()
    widgets.looks().clear()
    surface = pygame.Surface(screen.get_size(), 0, screen)
    surface.fill(GROUND)
    surface.set_clip(band)
    painter = _Painter(surface, [w], [w.extent], GROUND)
    parts = sum(1 for _ in painter.steps(0, band))
    surface.set_clip(None)
    assert parts >= 4               # the sizes tried, each line, the paint: a part each
    assert widgets.looks().get(painter.kept.key(w, GROUND, painter.form)) is not None
    for y in range(band.h):
        for x in range(w.rect.left, w.rect.right):
            assert surface.get_at((x, y)) == whole.get_at((x, y)), (x, y)
    assert surface.get_at((100, 60)) == GROUND      # (nothing painted below the band)


def test_a_text_s_new_letters_are_loaded_a_few_a_step_before_it_is_measured():
    """The first measure of a text at a type size loads and hints each letter's glyph: many
    new letters were the longest steps painted ahead (issue 38). Fitted ahead, a size's new
    letters are measured a few a step first; letters loaded once are not again."""
    text = "Chloe draws two orders"
    size = 37
    letters = set(text) - {" "}
    widgets._glyphs_loaded.clear()
    steps = list(widgets.glyph_steps(text, size, True))
    assert len(steps) == -(-len(letters) // widgets.GLYPHS_PER_STEP) >= 2
    assert widgets._glyphs_loaded[(size, True)] == letters
    assert list(widgets.glyph_steps(text.upper() + text, size, True)) != []   # (capitals)
    assert list(widgets.glyph_steps(text, size, True)) == []
    assert list(widgets.glyph_steps("Ben draws", size, True)) == []            # (B, n: few)
    assert {"B", "n"} <= widgets._glyphs_loaded[(size, True)]
    widgets._glyphs_loaded.clear()
    fitted = list(widgets.fit_steps(text, pygame.Rect(0, 0, 900, 90), size, True))
    assert len(fitted) >= len(steps)    # (and the size opened, if it was not)
    assert widgets.fit(text, pygame.Rect(0, 0, 900, 90), size, True) == (size, [text])


def test_an_unknown_card_s_question_mark_is_rendered_in_a_part_after_its_fit(monkeypatch):
    """A card not identified yet shows a big "?": its fit (a new type size's first measure)
    and its render were one part, 3.4 M instructions at 1280 x 800 (issue 38)."""
    screen = pygame.display.set_mode((400, 300))
    w = widgets.OrderCard("act.pos1", pygame.Rect(10, 10, 150, 200), position=1, cards=(None,))
    widgets._render_cache.clear()
    part, fitted, rendered = [0], [], []
    render = widgets.render

    def noted(text, size, color, bold=False):
        if text == "?" and (text, size, color, bold) not in widgets._render_cache:
            rendered.append(part[0])
        return render(text, size, color, bold)
    monkeypatch.setattr(widgets, "render", noted)
    surface = pygame.Surface(screen.get_size(), 0, screen)
    for _ in w.draw_steps(surface):
        if not fitted and any(key[0] == "?" for key in widgets._fit_cache):
            fitted.append(part[0])
        part[0] += 1
    fitted.append(part[0])              # (the last part: after it, nothing is left to yield)
    assert rendered and rendered[0] > fitted[0], (fitted, rendered)
