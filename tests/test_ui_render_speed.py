"""The shortcuts taken for issue 19 (tap -> frame on a Pi Zero 2 W) change no result.

Widget keys read their compared field names once per class, screen metrics divide once,
and ``i18n.tr`` fills templates with ``str.format_map``: each must give exactly what the
slower form gave, for every class, size and template.
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field, fields

import pygame
import pytest

from companion.words import i18n
from companion.outputs.screen import widgets
from companion.outputs.screen.layout import Metrics


def slow_key(w: widgets.Widget) -> tuple:
    return tuple(widgets._freeze(getattr(w, f.name)) for f in fields(w)
                 if f.compare and (f.name != "pressed" or w.shows_pressed))


@dataclass(eq=False)
class _Twin(widgets.Fill):
    """A subclass with one field that counts and one that does not."""
    shade: int = 0
    note: str = field(default="", compare=False)


def test_widget_keys_match_the_dataclass_fields_of_each_class():
    r = pygame.Rect(1, 2, 30, 40)
    fill = widgets.Fill("a", r, radius=3)
    twin = _Twin("b", r, radius=3, shade=5, note="x")
    label = widgets.Label("c", r, text="hi", size=20)
    for w in (fill, twin, label, fill, twin):      # a second call uses the cached names
        assert w.key() == slow_key(w)
    assert twin.key() != widgets.Fill("b", r, radius=3).key()      # its own field counts
    quiet = _Twin("b", r, radius=3, shade=5, note="y")
    assert quiet.key() == twin.key()                                 # compare=False does not
    twin.shade = 6
    assert twin.key() == slow_key(twin) and twin.key() != quiet.key()
    # a finger down counts only where it shows (a button's look, not a label's)
    button = widgets.Button("d", r, text="OK")
    up = button.key()
    button.pressed = label.pressed = True
    assert button.key() != up and button.key() == slow_key(button)
    assert label.key() == widgets.Label("c", r, text="hi", size=20).key()


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 720), (1280, 800),
                                  (480, 320), (1920, 1080)])
def test_metrics_px_is_the_same_formula(size):
    m = Metrics.of(size)
    for design in (0, 0.5, 1, 3, 6, 7.5, 13, 44, 200, 480):
        assert m.px(design) == max(1, round(design * min(size[1] / 480, size[0] / 800)))


def test_format_map_fills_every_template_as_string_formatter_did():
    for lang in i18n.LANGUAGES:
        for key, template in i18n.catalog(lang).items():
            names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
            params = {n: 7 for n in names}
            slow = string.Formatter().vformat(template, (), i18n._Params(params))
            assert i18n.tr(lang, key, **params) == slow, (lang, key)


def test_malformed_and_missing_still_fall_back(monkeypatch, caplog):
    monkeypatch.setitem(i18n.catalog("en"), "test.broken", "{0} and {")
    monkeypatch.setitem(i18n.catalog("en"), "test.named", "hello {who}")
    assert i18n.tr("en", "test.broken") == "{0} and {"
    assert i18n.tr("en", "test.named") == "hello {who}"
    assert i18n.tr("en", "test.named", who="Ana") == "hello Ana"


# --- partial repaints give the picture a whole repaint gives --------------------------------

def test_a_plain_panel_is_its_colour_inside_its_border_and_clear_of_its_corners():
    """``Fill.solid_over`` (a repaint starts from the panel there) against what
    pygame.draw.rect really paints, for many sizes, radii and borders."""
    import random
    rng = random.Random(19)
    surface = pygame.Surface((300, 300))
    colour = (200, 100, 50)
    for _ in range(3000):
        rect = pygame.Rect(rng.randint(0, 20), rng.randint(0, 20), rng.randint(1, 260),
                           rng.randint(1, 260))
        fill = widgets.Fill("p", rect, color=colour, radius=rng.choice([0, 4, 8, 12, 14, 40]),
                            border=rng.choice([0, 1, 2, 3, 4, 9]), border_color=(10, 220, 30))
        surface.fill((1, 2, 3))
        fill.paint(surface)
        area = pygame.Rect(rng.randint(0, 290), rng.randint(0, 290), rng.randint(1, 60),
                           rng.randint(1, 60)).clip(rect)
        if fill.solid_over(area) is not None:
            assert pygame.image.tostring(surface.subsurface(area), "RGB") == \
                bytes(colour) * (area.w * area.h), (fill, area)
    assert fill.solid_over(fill.rect.inflate(-60, -60)) == colour or min(fill.rect.size) < 80


def test_a_rounded_panel_is_its_colour_within_its_corners_circle():
    """``Fill.solid_over`` of an area reaching into a corner square (a widget a pixel into a
    big panel's rounded corner) against what pygame.draw.rect really paints there."""
    import random
    rng = random.Random(7)
    surface = pygame.Surface((400, 400))
    colour = (200, 100, 50)
    plain = 0
    for _ in range(6000):
        rect = pygame.Rect(rng.randint(0, 20), rng.randint(0, 20), rng.randint(1, 370),
                           rng.randint(1, 370))
        radius = rng.choice([0, 4, 8, 10, 12, 14, 16, 20, 40])
        fill = widgets.Fill("p", rect, color=colour, radius=radius,
                            border=rng.choice([0, 1, 2, 3, 4, 6, 8, 9, 13]),
                            border_color=(10, 220, 30))
        surface.fill((1, 2, 3))
        fill.paint(surface)
        x = rng.choice([rect.left, rect.right - radius]) + rng.randint(-3, radius)
        y = rng.choice([rect.top, rect.bottom - radius]) + rng.randint(-3, radius)
        area = pygame.Rect(x, y, rng.randint(1, 80), rng.randint(1, 80)).clip(rect)
        if area and fill.solid_over(area) is not None:
            plain += 1
            assert pygame.image.tostring(surface.subsurface(area), "RGB") == \
                bytes(colour) * (area.w * area.h), (fill, area)
    assert plain > 100
    panel = widgets.Fill("p", pygame.Rect(10, 119, 800, 562), radius=14, border=8)
    assert panel.solid_over(pygame.Rect(23, 598, 189, 70)) == panel.color   # (a pixel in)


def _same_as_a_whole_repaint(app) -> None:
    """What the screen shows is what a whole repaint draws, but for the odd pixel: pygame
    draws a rounded outline under a clip a pixel differently at the clip's edge (a
    repaint of changed rectangles clips), about a hundred pixels a frame at most."""
    shown = pygame.image.tostring(app.surface, "RGB")
    whole = pygame.Surface(app.size)
    app.screen.invalidate()
    app.screen.draw(whole)
    drawn = pygame.image.tostring(whole, "RGB")
    row = app.size[0] * 3
    differ = 0
    for start in range(0, len(drawn) if shown != drawn else 0, row):   # pixels of odd rows
        a, b = shown[start:start + row], drawn[start:start + row]
        if a != b:
            differ += sum(1 for i in range(0, row, 3) if a[i:i + 3] != b[i:i + 3])
    assert differ <= len(drawn) // 3 // 1000, (type(app.screen).__name__, differ)


@pytest.mark.parametrize("script,size", [("sample_game.jsonl", (800, 480)),
                                         ("sample_cake_game.jsonl", (1280, 720))])
def test_every_frame_of_many_taps_is_what_a_whole_repaint_draws(script, size):
    """Press, release, the table's answer: each frame, drawn from changed rectangles only
    (pressed looks without a rebuild, panels that hide what is behind them, a toast's
    shadow), is the frame a whole repaint draws."""
    import random

    from companion.outputs.screen.screenshots import sample_script
    from ui_touch import make_app
    loop, app = make_app(size, lines=sample_script(script))
    rng = random.Random(7)
    app.pump()
    for _ in range(60):
        choices = [w for w in app.screen._widgets if w.tappable and w.name != "hdr.settings"]
        if not choices:
            break
        w = rng.choice(choices)
        x, y = w.rect.center
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
            app.handle(pygame.event.Event(kind, x=x / size[0], y=y / size[1], dx=0.0, dy=0.0,
                                          touch_id=1, finger_id=0, pressure=1.0))
            app.pump()
            _same_as_a_whole_repaint(app)
        loop.drain()
        app.pump()
        _same_as_a_whole_repaint(app)


def test_a_copied_rounded_outline_is_what_pygame_draws():
    """``widgets.rounded`` of an outline alone (an order card's green frame, 13 pixels wide
    on a 186-pixel card at 1280 x 800), drawn, drawn again and copied, whole or cut by the
    clip, against the whole shape pygame.draw.rect draws (a whole repaint's pixels)."""
    import random
    rng = random.Random(29)
    pygame.display.init()
    screen = pygame.display.set_mode((400, 300))
    direct = pygame.Surface((400, 300), 0, screen)
    for _ in range(300):
        rect = pygame.Rect(rng.randint(0, 200), rng.randint(0, 100), rng.randint(30, 190),
                           rng.randint(30, 190)).clip(screen.get_rect())
        width = max(4, rect.w // 14)
        clip = None if rng.random() < 0.5 else rect.inflate(-rng.randint(0, 40),
                                                            -rng.randint(0, 40)).move(
            rng.randint(-20, 20), rng.randint(-20, 20))
        for _time in ("drawn", "drawn again, a copy owed", "copied"):
            screen.set_clip(None)
            screen.fill((30, 60, 90))
            screen.set_clip(clip)
            widgets.rounded(screen, rect, 8, ((46, 160, 67), width))
            screen.set_clip(None)
            while widgets.make_owed_copy(screen):      # (what the screen does while idle)
                pass
            # what the whole shape has where the clip lets it (a whole repaint's pixels)
            whole = direct.copy()
            whole.fill((30, 60, 90))
            pygame.draw.rect(whole, (46, 160, 67), rect, width, border_radius=8)
            direct.fill((30, 60, 90))
            area = whole.get_rect() if clip is None else clip
            direct.blit(whole, area, area)
            assert (pygame.image.tostring(screen, "RGB")
                    == pygame.image.tostring(direct, "RGB")), (_time, rect, width, clip)


def test_a_copied_rounded_rectangle_is_what_pygame_draws():
    """``widgets.rounded`` (a shape drawn once, then copied) against pygame.draw.rect
    at random places, sizes, radii and outlines, in the display's format."""
    import random
    rng = random.Random(23)
    pygame.display.init()
    screen = pygame.display.set_mode((400, 300))
    direct = pygame.Surface((400, 300), 0, screen)
    for _ in range(800):
        rect = pygame.Rect(rng.randint(-10, 300), rng.randint(-10, 200), rng.randint(1, 140),
                           rng.randint(1, 140))
        radius = rng.choice([0, 2, 6, 8, 10, 14, 16, 40])
        layers = [((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)), 0)]
        for _ in range(rng.randint(0, 2)):
            layers.append((rng.choice([(255, 0, 255), (0, 0, 0), (250, 246, 240)]),
                           rng.choice([1, 2, 3, 4, 9])))
        for _time in ("drawn", "drawn again, a copy owed", "copied"):
            for s in (screen, direct):
                s.fill((30, 60, 90))
            widgets.rounded(screen, rect, radius, *layers)
            while widgets.make_owed_copy(screen):      # (what the screen does while idle)
                pass
            for colour, width in layers:
                pygame.draw.rect(direct, colour, rect, width, border_radius=radius)
            # the shape and a margin around it (the rest is the fill on both, untouched)
            near = rect.inflate(16, 16).clip(screen.get_rect())
            assert (pygame.image.tostring(screen.subsurface(near), "RGB")
                    == pygame.image.tostring(direct.subsurface(near), "RGB")), \
                (_time, rect, radius, layers)


def test_a_hollow_copy_under_a_clip_is_what_pygame_draws():
    """A filled, outlined shape copied hollow (its fill's straight parts filled, then its
    corners and outlines copied: ``widgets._shape_copy``) under a clip that cuts it gives
    what pygame.draw.rect draws there and touches nothing outside the clip; its copy holds
    a fraction of its pixels."""
    import random
    rng = random.Random(31)
    pygame.display.init()
    screen = pygame.display.set_mode((400, 300))
    checked = 0
    while checked < 200:
        rect = pygame.Rect(rng.randint(0, 200), rng.randint(0, 150), rng.randint(20, 190),
                           rng.randint(20, 140))
        radius = rng.choice([2, 6, 8, 12, 16])
        layers = [((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)), 0)] + [
            (rng.choice([(0, 0, 0), (250, 246, 240)]), rng.choice([1, 2, 4, 9]))
            for _ in range(rng.randint(1, 2))]
        if not widgets._copied(screen, rect, radius, tuple(layers)):
            continue
        checked += 1
        for _ in range(2):
            widgets.rounded(screen, rect, radius, *layers)
        while widgets.make_owed_copy(screen):      # (what the screen does while idle)
            pass
        assert _copy_kept(screen, rect, radius, tuple(layers))
        clip = rect.inflate(rng.randint(-60, 20), rng.randint(-60, 20)).move(
            rng.randint(-30, 30), rng.randint(-30, 30))
        _assert_copied_as_drawn(screen, rect, radius, layers, clip)
    big = pygame.Rect(0, 0, 390, 160)
    layers = (((47, 49, 56), 0), ((36, 113, 214), 2))
    for _ in range(2):
        widgets.rounded(screen, big, 12, *layers)
    while widgets.make_owed_copy(screen):
        pass
    key = widgets._shape_key(screen, big, 12, layers)
    held = sum(widgets._shapes._items[k][1] for k in _copy_keys(key, big, 12, layers))
    assert held < big.w * big.h * screen.get_bytesize() // 8


def _assert_copied_as_drawn(screen: pygame.Surface, rect: pygame.Rect, radius: int,
                            layers, clip: pygame.Rect | None) -> None:
    """``widgets.rounded`` under ``clip`` (None: whole) on a cleared screen gives what
    pygame.draw.rect draws there, and nothing outside the clip."""
    direct = pygame.Surface(screen.get_size(), 0, screen)
    for s in (screen, direct):
        s.set_clip(None)
        s.fill((30, 60, 90))
    for colour, width in layers:
        pygame.draw.rect(direct, colour, rect, width, border_radius=radius)
    if clip is not None:
        whole = direct.copy()
        direct.fill((30, 60, 90))
        direct.blit(whole, clip, clip)
    screen.set_clip(clip)
    widgets.rounded(screen, rect, radius, *layers)
    screen.set_clip(None)
    assert pygame.image.tostring(screen, "RGB") == pygame.image.tostring(direct, "RGB"), \
        (rect, radius, layers, clip)


def _copy_keys(key: tuple, rect: pygame.Rect, radius: int, layers: tuple) -> list[tuple]:
    """The keys a shape's copy is kept under: its own, or one per piece."""
    pieces = widgets._pieces(rect, radius, layers)
    return [key + (i,) for i in range(len(pieces))] if pieces else [key]


def _copy_kept(screen: pygame.Surface, rect: pygame.Rect, radius: int, layers: tuple) -> bool:
    key = widgets._shape_key(screen, rect, radius, layers)
    return all(k in widgets._shapes for k in _copy_keys(key, rect, radius, layers))


def test_a_large_shape_copied_in_pieces_is_what_pygame_draws():
    """A shape larger than ``widgets._PIECES_OVER`` pixels (a table's panel, a dialog) is
    copied in four pieces, each made in a step of its own while idle (one piece per
    ``make_owed_copy``: the whole copy made at once was the largest step painted ahead,
    issue 38); copied from them, whole or under a clip that cuts it, it is what
    pygame.draw.rect draws, and the pieces hold a fraction of its pixels."""
    import random
    rng = random.Random(37)
    pygame.display.init()
    screen = pygame.display.set_mode((420, 320))
    checked = 0
    while checked < 60:
        rect = pygame.Rect(rng.randint(0, 40), rng.randint(0, 40), rng.randint(150, 380),
                           rng.randint(150, 280))
        radius = rng.choice([2, 6, 8, 12, 16, 40])
        first = ((rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)),
                 rng.choice([0, 0, 0, 3, 13]))
        layers = (first,) + tuple(
            (rng.choice([(0, 0, 0), (250, 246, 240), (255, 0, 255)]), rng.choice([1, 2, 4, 9]))
            for _ in range(rng.randint(0, 2)))
        if not widgets._copied(screen, rect, radius, layers) \
                or not widgets._pieces(rect, radius, layers):
            continue
        checked += 1
        widgets._shapes.clear()
        widgets._copies_owed.clear()
        for _ in range(2):
            widgets.rounded(screen, rect, radius, *layers)
        made = 0
        while widgets.make_owed_copy(screen):
            made += 1
        assert made == 4 and _copy_kept(screen, rect, radius, layers), (rect, radius, layers)
        clip = None if checked % 2 else rect.inflate(rng.randint(-120, 20),
                                                     rng.randint(-120, 20)).move(
            rng.randint(-40, 40), rng.randint(-40, 40))
        _assert_copied_as_drawn(screen, rect, radius, layers, clip)


@pytest.mark.parametrize("alpha", [160, 90])
def test_a_veil_copied_from_its_strip_is_the_whole_veil(alpha):
    """A shade veils with a strip of its veil copied down the part (``Shade.cover``): the
    pixels a whole screen's veil gives, over every colour, in every part."""
    import random
    rng = random.Random(alpha)
    pygame.display.init()
    screen = pygame.display.set_mode((400, 300))
    ground = pygame.Surface((400, 300), 0, screen)
    for y in range(300):                           # every value of every channel, and more
        for x in range(0, 400, 4):
            ground.fill(((x + y) % 256, (3 * x + y) % 256, (x * y) % 256), (x, y, 4, 1))
    shade = widgets.Shade("s", pygame.Rect(0, 0, 400, 300), alpha=alpha)
    whole = pygame.Surface((400, 300), pygame.SRCALPHA)
    whole.fill((0, 0, 0, alpha))
    for n in range(40):
        part = pygame.Rect(rng.randint(-20, 390), rng.randint(-20, 290), rng.randint(1, 420),
                           rng.randint(1, 320)) if n else shade.rect
        got, want = ground.copy(), ground.copy()
        shade.cover(got, part)
        inside = part.clip(shade.rect)
        want.blit(whole, inside, inside)
        assert pygame.image.tostring(got, "RGB") == pygame.image.tostring(want, "RGB"), part


def test_an_outline_cut_by_the_clip_is_drawn_as_the_whole_shape_is():
    """``widgets.rounded`` of an outlined shape that the clip cuts (not copied yet: drawn
    aside with a margin, then copied) gives the pixels the whole shape has there; pygame
    drawing it under the clip would not (an outline along a clip's edge)."""
    import random
    rng = random.Random(29)
    checked = 0
    while checked < 400:
        rect = pygame.Rect(rng.randint(0, 50), rng.randint(0, 50), rng.randint(8, 220),
                           rng.randint(8, 220))
        radius = rng.choice([2, 4, 6, 8, 12, 14, 16, 40])
        layers = [((200, 100, 50), 0)] + [      # one or two outlines (a pressed order card)
            (rng.choice([(10, 220, 30), (0, 0, 0)]), rng.choice([1, 2, 3, 4, 9]))
            for _ in range(rng.randint(1, 2))]
        if 2 * max(radius, *(w for _, w in layers)) > min(rect.w, rect.h):
            continue
        clip = pygame.Rect(rng.randint(0, 280), rng.randint(0, 280), rng.randint(1, 150),
                           rng.randint(1, 150))
        if rng.random() < 0.3:          # a band across the shape (its middle filled at once)
            clip = pygame.Rect(0, rng.randint(0, 280), 300, rng.randint(1, 60))
        if clip.contains(rect) or not clip.colliderect(rect):
            continue
        checked += 1
        whole, cut = pygame.Surface((300, 300)), pygame.Surface((300, 300))
        for s in (whole, cut):
            s.fill((1, 2, 3))
        for colour, width in layers:
            pygame.draw.rect(whole, colour, rect, width, border_radius=radius)
        widgets._shapes.clear()
        widgets._shapes_seen.clear()
        cut.set_clip(clip)
        widgets.rounded(cut, rect, radius, *layers)
        cut.set_clip(None)
        area = clip.clip(cut.get_rect())
        assert pygame.image.tostring(cut.subsurface(area), "RGB") == \
            pygame.image.tostring(whole.subsurface(area), "RGB"), (rect, radius, layers, clip)
        cut.fill((1, 2, 3), area)           # and nothing outside the clip was touched
        assert pygame.image.tostring(cut, "RGB") == bytes((1, 2, 3)) * (300 * 300)


def test_a_line_cut_by_the_clip_is_drawn_as_the_whole_line_is():
    """``widgets.draw_lines`` (an order card's tick, thick lines of icons) under a clip that
    cuts the lines gives the pixels the lines drawn with no clip have there, and touches
    nothing outside the clip; pygame drawing them under the clip does not always (it cuts a
    line's ends to the clip and steps its pixels from there)."""
    import random
    rng = random.Random(41)
    surfaces = [pygame.Surface((200, 200)), pygame.Surface((200, 200), 0, 16)]
    plain_differs = 0
    for n in range(1500):
        points = [(rng.uniform(-10, 210), rng.uniform(-10, 210))   # (some off its edges)
                  for _ in range(rng.randint(2, 4))]
        width, closed = rng.choice([1, 2, 3, 4, 7, 12]), rng.random() < 0.2
        clip = pygame.Rect(rng.randint(0, 180), rng.randint(0, 180), rng.randint(1, 120),
                           rng.randint(1, 120))
        whole, cut = surfaces[n % 2], surfaces[n % 2].copy()
        whole.fill((1, 2, 3))
        ground = pygame.image.tostring(whole, "RGB")
        pygame.draw.lines(whole, (250, 246, 240), closed, points, width)
        for draw in (widgets.draw_lines, pygame.draw.lines):
            cut.fill((1, 2, 3))
            cut.set_clip(clip)
            draw(cut, (250, 246, 240), closed, points, width)
            cut.set_clip(None)
            area = clip.clip(cut.get_rect())
            same = pygame.image.tostring(cut.subsurface(area), "RGB") == \
                pygame.image.tostring(whole.subsurface(area), "RGB")
            if draw is pygame.draw.lines:
                plain_differs += not same
                continue
            assert same, (points, width, closed, clip)
            cut.fill((1, 2, 3), area)       # and nothing outside the clip was touched
            assert pygame.image.tostring(cut, "RGB") == ground, (points, width, closed, clip)
    assert plain_differs > 20          # (what it guards against happens)


def _whole_repaint_of(app) -> bytes:
    """What a whole repaint of the top screen draws, on a surface of its own (the screen's
    own bookkeeping untouched)."""
    whole = pygame.Surface(app.size)
    whole.fill(app.screen.background)
    for w in app.screen.widgets():
        w.draw(whole)
    return pygame.image.tostring(whole, "RGB")


def _tap(app, loop, name: str) -> None:
    w = next(w for w in app.screen._widgets if w.name == name)
    x, y = w.rect.center
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        app.handle(pygame.event.Event(kind, x=x / app.size[0], y=y / app.size[1], dx=0.0,
                                      dy=0.0, touch_id=1, finger_id=0, pressure=1.0))
        app.pump()
    loop.drain()
    app.pump()


@pytest.mark.parametrize("size,idle", [((800, 480), False), ((1280, 720), False),
                                       ((1280, 800), True)])
def test_a_dialog_veils_the_table_as_drawn_and_gives_it_back_when_it_closes(size, idle,
                                                                            monkeypatch):
    """A dialog's shade veils the table already on the surface (not painted again), and
    closing it puts back the copy kept from under the shade: both frames are what a whole
    repaint draws, with a cancel (nothing changed) and with an upgrade (the table changed).
    ``idle``: the screen paints ahead first, the veiled copy and the copy under it too."""
    from companion.outputs.screen.screenshots import sample_script
    from ui_touch import make_app
    from companion.outputs.screen.screens.base import Screen
    put_back: list[bool] = []
    unveil = Screen._unveil
    monkeypatch.setattr(Screen, "_unveil", lambda s, surface: put_back.append(
        unveil(s, surface)) or put_back[-1])
    loop, app = make_app(size, lines=sample_script("sample_game.jsonl"))
    app.pump()
    for close in ("dlg.cancel", "dlg.up."):
        names = {w.name for w in app.screen._widgets if w.tappable}
        assert "ft.upgrade" in names, sorted(names)
        while idle and app.work_ahead():
            pass
        ahead = app.screen.under_from_ahead
        _tap(app, loop, "ft.upgrade")
        assert app.screen.under_from_ahead == ahead + idle
        assert app.screen._veiled and app.screen._under is not None    # veiled as it was
        assert pygame.image.tostring(app.surface, "RGB") == _whole_repaint_of(app)
        target = next(w.name for w in app.screen._widgets if w.name.startswith(close))
        _tap(app, loop, target)
        assert not app.screen._veiled and put_back.pop() is True        # the copy put back
        assert pygame.image.tostring(app.surface, "RGB") == _whole_repaint_of(app)


@pytest.mark.parametrize("script,size,idle", [("sample_game.jsonl", (800, 480), False),
                                              ("sample_cake_game.jsonl", (1024, 600), False),
                                              ("sample_game.jsonl", (800, 480), True),
                                              ("sample_game.jsonl", (1280, 800), True),
                                              ("sample_game.jsonl", (1024, 600), True)])
def test_widgets_copied_from_their_kept_looks_give_the_same_pixels(script, size, idle,
                                                                   monkeypatch):
    """Every frame of many taps drawn with widgets copied from ``widgets.Looks`` (painted
    once, on the same plain colour, maybe at another place) is the frame drawn with every
    widget painted, pixel for pixel; and copies were used. ``idle``: the screen paints
    ahead between taps, where it copies the looks a tap painted (``_keep_owed_looks``)."""
    import hashlib
    import random

    from companion.outputs.screen.screenshots import sample_script
    from companion.outputs.screen.screens import base
    from ui_touch import make_app

    def frames(kept: bool) -> list[str]:
        widgets._looks.clear()
        monkeypatch.setattr(base, "looks", lambda: widgets._looks if kept else None)
        loop, app = make_app(size, lines=sample_script(script))
        rng = random.Random(11)
        app.pump()
        out = []
        for _ in range(40):
            w = rng.choice([w for w in app.screen._widgets
                            if w.tappable and w.name != "hdr.settings"])
            x, y = w.rect.center
            for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
                app.handle(pygame.event.Event(kind, x=x / size[0], y=y / size[1], dx=0.0,
                                              dy=0.0, touch_id=1, finger_id=0, pressure=1.0))
                app.pump()
                out.append(hashlib.sha1(pygame.image.tostring(app.surface, "RGB")).hexdigest())
            loop.drain()
            app.pump()
            out.append(hashlib.sha1(pygame.image.tostring(app.surface, "RGB")).hexdigest())
            while idle and app.screen.work_ahead(app.surface):
                pass
        return out

    before = widgets._looks.copied
    copied = frames(True)
    assert widgets._looks.copied > before
    assert copied == frames(False)


def test_a_touch_target_that_paints_nothing_repaints_nothing():
    """The why? targets paint nothing over the widgets they explain: their coming (a
    dialog closing), going (one opening) or moving marks nothing to repaint; a target
    that paints (the "?" in a corner) does."""
    from companion.outputs.screen.screens import base
    r = pygame.Rect(10, 10, 50, 50)
    label = widgets.Label("a", r, text="7")
    target = widgets.Custom("a.why", r, data="likes")
    assert not target.shows and label.shows
    alone, both = base._placed([label]), base._placed([label, target])
    assert base._dirty(alone, [label, target], both) == []
    assert base._dirty(both, [label], alone) == []
    moved = widgets.Custom("a.why", r.move(30, 0), data="likes")
    assert base._dirty(both, [label, moved], base._placed([label, moved])) == []
    chip = widgets.Custom("a.why", r, data="likes", paint_fn=lambda surface, rect: None)
    assert base._dirty(alone, [label, chip], base._placed([label, chip])) == [r]
    with pytest.raises(ValueError):
        base._placed([label, target, widgets.Custom("a.why", r)])


def test_a_look_painted_aside_is_the_widget_painted_in_place():
    """``Looks.paint_aside`` (a widget a repaint shows only in part, painted whole on a
    surface of its own) gives the pixels the widget has painted where it is, at odd and
    even places (an order card rounds its ingredients' halves to even)."""
    import random
    rng = random.Random(37)
    pygame.display.init()
    screen = pygame.display.set_mode((400, 300))
    ground = (40, 44, 52)
    recipes = [("milk", "coffee"), ("milk", "coffee", "chocolate"), ("tea",),
               ("coffee", "milk", "vanilla", "ice")]
    for _ in range(60):
        rect = pygame.Rect(rng.randint(0, 40), rng.randint(0, 40), rng.randint(40, 190),
                           rng.randint(30, 220))
        cards = tuple((f"Drink {i}", rng.choice(recipes), rng.random() < 0.3)
                      for i in range(rng.randint(0, 3)))
        w = widgets.OrderCard("c", rect, position=rng.randint(1, 4), cards=cards,
                              compact=rng.random() < 0.5, size=rng.randint(12, 26),
                              pressed=rng.random() < 0.2)
        in_place = pygame.Surface((400, 300), 0, screen)
        in_place.fill(ground)
        w.draw(in_place)
        looks = widgets.Looks()
        form = (screen.get_bitsize(), screen.get_masks(), 0)
        look = looks.paint_aside(looks.key(w, ground, form), w, ground, screen)
        assert look is not None and len(looks) == 1
        assert pygame.image.tostring(look, "RGB") == \
            pygame.image.tostring(in_place.subsurface(rect), "RGB"), (rect, cards)


def test_the_looks_and_the_text_kept_grow_with_the_screen_they_paint():
    looks = widgets.Looks()
    for size, limit in (((800, 480), 768_000), ((1280, 800), 2_048_000), ((480, 320), 768_000),
                        ((800, 480), 768_000)):
        looks.room_for(size)
        assert looks.limit == limit
    try:
        for size, text in (((800, 480), 2 << 20), ((1024, 600), 3 << 20), ((1280, 800), 3 << 20),
                           ((480, 320), 2 << 20)):
            widgets.room_for(size)
            assert widgets._render_cache.max_bytes == text
            assert widgets._looks.limit == max(768_000, 2 * size[0] * size[1])
    finally:
        widgets.room_for((800, 480))


def test_rectangles_to_repaint_merge_only_when_their_union_is_no_bigger_than_both():
    from companion.outputs.screen.screens import base
    band, card = pygame.Rect(10, 350, 1260, 147), pygame.Rect(219, 233, 186, 314)
    assert base._merge([band, card]) == [band, card]       # (the union: the whole panel)
    a, b = pygame.Rect(0, 0, 100, 50), pygame.Rect(90, 0, 100, 50)
    assert base._merge([a, b]) == [pygame.Rect(0, 0, 190, 50)]
    assert base._merge([card, card.inflate(-10, -10), band]) == [card, band]
    assert base._merge([a, pygame.Rect(300, 300, 5, 5)]) == [a, pygame.Rect(300, 300, 5, 5)]


def test_merged_rectangles_cover_every_one_and_keep_none_given():
    """Merging passes over a rectangle inside one already placed: what is painted still
    covers every rectangle given, and the list given is left as it was (fresh Rects out)."""
    import random

    from companion.outputs.screen.screens import base
    rnd = random.Random(19)
    for _ in range(300):
        rects = [pygame.Rect(rnd.randrange(300), rnd.randrange(300), rnd.randrange(1, 120),
                             rnd.randrange(1, 120)) for _ in range(rnd.randrange(1, 30))]
        given = [pygame.Rect(r) for r in rects]
        out = base._merge(rects)
        assert rects == given and not any(o is r for o in out for r in rects)
        for r in rects:
            covered = pygame.Surface((420, 420))
            covered.fill((0, 0, 0))
            for o in out:
                covered.fill((255, 255, 255), o.clip(r))
            assert all(covered.get_at((x, y))[:3] == (255, 255, 255)
                       for x in range(r.x, r.right, 7) for y in range(r.y, r.bottom, 7))


def test_a_frame_painted_ahead_is_given_up_once_half_the_change_is_known_wrong():
    """``_dirty_within`` stops as soon as what is wrong adds up to half the change, with
    the same answer as working it all out (``_dirty``) and comparing."""
    import random

    from companion.outputs.screen.screens import base
    rnd = random.Random(7)
    for _ in range(300):
        names = [f"w{i}" for i in range(rnd.randrange(1, 20))]

        def frame(names: list[str] = names) -> dict:
            return {n: ((rnd.randrange(50), rnd.randrange(50), rnd.randrange(1, 30),
                         rnd.randrange(1, 30)), (rnd.randrange(2),)) for n in names
                    if rnd.random() < 0.9}
        drawn, now = frame(), frame()
        room = rnd.randrange(1, 4000)
        whole = base._dirty(drawn, [], now)
        got = base._dirty_within(drawn, now, room)
        if base._area(whole) * 2 >= room:
            assert got is None
        else:
            assert got == whole


def test_a_press_repaints_only_widgets_that_show_it_pressed():
    """A finger down on a toast (it shows no pressed look) repaints nothing: once it
    painted the toast and the order cards under it again, the same pixels (8.0 M
    instructions at 1280 x 800). A finger down on an order card still shows its look."""
    from companion.outputs.screen.screenshots import sample_script
    from ui_touch import make_app
    size = (1280, 800)
    loop, app = make_app(size, lines=sample_script("sample_game.jsonl"))
    app.pump()
    card = next(w for w in app.screen._widgets if w.name == "act.pos2")
    assert card.shows_pressed and card.tappable
    app.screen.toast("a note over the cards", near=card.rect.center)
    app.pump()
    toast = next(w for w in app.screen._widgets if w.name == "toast.0")
    assert not toast.shows_pressed and toast.tappable
    x, y = toast.rect.center
    assert app.screen.widget_at((x, y)) is toast

    def finger(kind, at):
        app.handle(pygame.event.Event(kind, x=at[0] / size[0], y=at[1] / size[1], dx=0.0,
                                      dy=0.0, touch_id=1, finger_id=0, pressure=1.0))

    before = pygame.image.tostring(app.surface, "RGB")
    finger(pygame.FINGERDOWN, (x, y))
    assert app.screen.needs_draw               # (the press is seen ...)
    assert app.screen.draw(app.surface) == []  # ... and repaints nothing
    assert pygame.image.tostring(app.surface, "RGB") == before
    finger(pygame.FINGERUP, (x, y))
    app.pump()
    assert app.screen.toasts == []           # the tap dismissed it
    _same_as_a_whole_repaint(app)

    at = card.rect.center
    finger(pygame.FINGERDOWN, at)
    painted = app.screen.draw(app.surface)
    assert painted and painted[0].contains(card.rect)      # its pressed look shows
    _same_as_a_whole_repaint(app)
    finger(pygame.FINGERUP, at)
    loop.drain()
    app.pump()
    _same_as_a_whole_repaint(app)


@pytest.mark.parametrize("flags", [0, pygame.SRCALPHA])
def test_text_blended_by_its_letters_only_is_the_whole_line_blended(flags):
    """``draw_text`` blends only the letters' box of each rendered line (the margins above,
    below and beside them are clear: blending them changed no pixel, and cost the dialogs'
    text half its instructions): the same pixels as the whole line blitted, in every
    language's letters, wrapped and tight, on an opaque and a transparent surface. A line's
    box is found only while painting ahead (the table idle), never on a tap's first draw of
    it (finding it reads the margins pixel by pixel); until then the line is blended whole."""
    pygame.display.init()
    widgets.reset_fonts()
    first = pygame.Surface((320, 150), flags)
    widgets.draw_text(first, "Spend tokens?", pygame.Rect(7, 5, 300, 130), 18, (250, 240, 230))
    assert ("Spend tokens?", 18, (250, 240, 230), False) not in widgets._ink_cache
    with widgets.painting_ahead(first):
        widgets.draw_text(first, "Spend tokens?", pygame.Rect(7, 5, 300, 130), 18,
                          (250, 240, 230))
    assert ("Spend tokens?", 18, (250, 240, 230), False) in widgets._ink_cache
    texts = ["Ana", "gjpqy ÁÉ", "×3", "7", "  ", "café 카페 커피", "Spend tokens?",
             "Chloe, end your turn to let Ben draw 2 cards"]
    for text in texts:
        for size, lines, tight in ((18, 1, False), (41, 2, False), (64, 1, True)):
            box = pygame.Rect(7, 5, 300, 130)
            drawn = pygame.Surface((320, 150), flags)
            whole = pygame.Surface((320, 150), flags)
            for s in (drawn, whole):
                s.fill((40, 90, 150, 200) if flags else (40, 90, 150))
            with widgets.painting_ahead(drawn):       # (the letters' boxes found)
                ink = widgets.draw_text(drawn, text, box, size, (250, 240, 230), True,
                                        lines=lines, tight=tight)
            # the whole lines, blitted as they were before: at the places draw_text chose
            got, lines_drawn = widgets.fit(text, box, size, True, 1 if tight else lines,
                                           None, tight)
            f = widgets.font(got, True)
            y = ink.y
            for line in lines_drawn:
                img = widgets.render(line, got, (250, 240, 230), True)
                x = box.x + (box.w - img.get_width()) // 2
                if tight:
                    letters = widgets._ink(line, got, (250, 240, 230), True)
                    whole.blit(img, (x, ink.y - letters.y))
                else:
                    whole.blit(img, (x, y))
                y += f.get_linesize()
            assert pygame.image.tostring(drawn, "RGBA") == \
                pygame.image.tostring(whole, "RGBA"), (text, size, flags)


@pytest.mark.parametrize("seed", range(3))
def test_the_pixel_a_shape_s_copy_leaves_out_is_left_out(seed):
    """A shape's copy names one pixel its colour key leaves out (copying it makes SDL encode
    the copy for the screen, changing nothing there). It is found at a corner or the middle
    before the clear part's outline is traced (0.77 M instructions for one pixel): whichever
    way, it is clear, and there is none only where the copy holds no clear pixel."""
    import random

    pygame.display.init()
    screen = pygame.display.set_mode((400, 300))
    rng = random.Random(seed)
    for _ in range(40):
        rect = pygame.Rect(rng.randint(0, 100), rng.randint(0, 60), rng.randint(20, 290),
                           rng.randint(20, 230))
        radius = rng.randint(1, min(rect.w, rect.h) // 2)
        layers = ((tuple(rng.randint(0, 255) for _ in range(3)), rng.choice((0, 0, 2))),
                  ((250, 250, 250), rng.randint(1, 4)))
        pieces = widgets._pieces(rect, radius, layers) or [None]
        for piece in pieces:
            shape, _, clear = widgets._shape_copy(screen, rect, radius, layers, piece)
            key = shape.get_colorkey()
            if clear is None:
                assert key is None
            else:
                assert shape.get_at(clear) == key, (rect, radius, layers, piece, clear)
