"""The drawing kit every screen uses.

A screen describes what it shows as a list of **widgets**, back to front. A
widget is a small record: a unique ``name``, a ``rect``, the data it shows and
optionally ``on_tap``. The screen base class (``screens/base.py``) compares the
list with the one drawn last time and repaints only widgets whose data or
place changed (and whatever overlaps them), so a widget must be a pure
function of its fields: ``key()`` returns those fields.

Text always fits its box: ``draw_text`` shrinks the type (down to a minimum),
wraps when allowed, and only as a last resort cuts the text with an ellipsis.
Inside ``record_text()`` every drawn text is recorded with its box, so tests
can prove that nothing overflows.

Widgets here:
    Fill, Panel, Label, Button, Stepper (- n +), Shade (dims what is behind a
    dialog and blocks taps), Toast, OpenSign (the starting player token),
    OrderCard (a card in an order position), Stat (icon + number), and the
    helpers ``draw_ingredient``, ``draw_token_icon``, ``font``.
"""
from __future__ import annotations

import contextlib
import operator
from collections import OrderedDict
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple
from collections.abc import Callable, Generator, Iterable, Iterator

import pygame

from . import theme
from companion.words.fonts import ChainFont, get_font, set_book
from companion.words import fonts
from .surface_cache import SurfaceCache
from .text import ingredient_letters

Color = tuple

# --- fonts ---------------------------------------------------------------------------

#: a font of the screen: a chain of faces (``ui.fonts``), or pygame's default font
Font = ChainFont | pygame.font.Font

_font_cache: dict[tuple[int, bool], Font] = {}
_fonts_quits = 0                     # fonts.quits when _font_cache was filled


def font(size: int, bold: bool = False) -> Font:
    """A font of ``size`` px covering every screen language (from ``ui.fonts``)."""
    size = max(6, int(size))
    global _fonts_quits
    # fonts made before a pygame.quit() are dead: forget them (pygame may be initialised
    # again already: the font book counts the quits)
    if not pygame.font.get_init() or _fonts_quits != fonts.quits:
        _fonts_quits = fonts.quits
        pygame.font.init()
        reset_fonts()
        _shapes.clear()                 # (made for a display that may be gone too)
        _stamps.clear()
        _copies_owed.clear()
        set_book(None)                  # the font book's fonts died with pygame.font too
    key = (size, bold)
    cached = _font_cache.get(key)
    if cached is not None:
        return cached
    f: Font | None
    try:
        f = get_font(size, bold=bold)
    except Exception:          # a broken font file must not take the screen down
        f = None
    if f is None:
        f = pygame.font.Font(None, round(size * 1.3))   # the default font runs small
        f.set_bold(bold)
    _font_cache[key] = f
    return f


def font_steps(size: int, bold: bool = False) -> Iterator[None]:
    """``font(size, bold)`` opened ahead, a step of its own, if it is not open yet (a face's
    tables read and its hinting set up: 0.5-1 M instructions, as much as the text measured
    or drawn with it after)."""
    if (max(6, int(size)), bold) not in _font_cache:
        font(size, bold)
        yield


#: letters whose glyphs one step loads ahead (``glyph_steps``)
GLYPHS_PER_STEP = 6
#: (type size, bold) -> the letters measured at it (their glyphs loaded and hinted)
_glyphs_loaded: dict[tuple[int, bool], set[str]] = {}


def glyph_steps(text: str, size: int, bold: bool = False) -> Iterator[None]:
    """The glyphs of ``text``'s letters loaded at ``size`` ahead, ``GLYPHS_PER_STEP`` new
    letters a step, when it has more new ones than that. The first measure of a text at a
    size loads and hints each of its letters' glyphs (FreeType runs the font's hinting
    program for each) and makes HarfBuzz's plan for the size: 1.4-2.0 M instructions for a
    card's name or a button's words at 800 x 480, the longest steps painted ahead (issue
    38). The measure after these steps finds them loaded."""
    key = (max(6, int(size)), bold)
    loaded = _glyphs_loaded.get(key)
    if loaded is None:
        if len(_glyphs_loaded) > 200:
            _glyphs_loaded.clear()
        loaded = _glyphs_loaded[key] = set()
    new = [c for c in dict.fromkeys(text) if c not in loaded and not c.isspace()]
    if len(new) > GLYPHS_PER_STEP:
        f = font(size, bold)
        for start in range(0, len(new), GLYPHS_PER_STEP):
            f.size("".join(new[start:start + GLYPHS_PER_STEP]))
            yield
    loaded.update(new)          # (a few: the measure after this loads them)


#: how many times the fonts were forgotten: pixels painted with older fonts are stale
_font_generation = 0


def font_generation() -> int:
    return _font_generation


def reset_fonts() -> None:
    """Forget cached fonts (after a language or font change)."""
    global _font_generation
    _font_generation += 1
    _looks.clear()
    _font_cache.clear()
    _glyphs_loaded.clear()
    _render_cache.clear()
    _fit_cache.clear()
    _width_cache.clear()
    _common_sizes.clear()
    _ink_cache.clear()


# --- text ------------------------------------------------------------------------------

class TextRecord(NamedTuple):
    text: str            # what was drawn (after any ellipsis)
    wanted: str          # what the screen asked for
    rect: pygame.Rect    # the ink's bounding box
    box: pygame.Rect     # the box it had to fit
    owner: str           # the widget's name
    size: int = 0        # the type size it was drawn at
    bold: bool = False


_records: list[TextRecord] | None = None
_owner = ""
#: the end of a widget's parts (``Widget.draw_steps``)
_END = object()


@contextlib.contextmanager
def record_text() -> Iterator[list[TextRecord]]:
    """Record every text drawn inside the block (for overflow tests)."""
    global _records
    before, _records = _records, []
    try:
        yield _records
    finally:
        _records = before


#: the text kept on a screen of at most 800 x 480 pixels (a Zero 2 W's screen): 2 MiB (a whole
#: game there draws about 3.3 MB of text, a third of it each game's own score lines, drawn
#: once; 3 MiB held about 1 MB more of the service's memory for 0.01 M of the p99 tap,
#: counted: issue 19). 1 MiB was too little once a card waiting for the scanner has its
#: frame and END TURN's painted ahead and every card it may name rendered ahead: that round
#: of work ahead drew more than 1 MiB of text, and forgot the first cards' names before
#: their scan (issue 38). A bigger screen draws bigger text and keeps 3 MiB (its taps were
#: counted with it: at 1280 x 800 the p99 tap is within 0.2 M of its budget)
TEXT_BYTES_SMALL_SCREEN = 2 << 20
TEXT_BYTES = 3 << 20
#: rendered text by (text, size, colour, bold), least recently drawn forgotten first
_render_cache = SurfaceCache(max_bytes=TEXT_BYTES_SMALL_SCREEN)


def room_for(size: tuple[int, int]) -> None:
    """A screen of ``size`` paints: the kept text and looks may hold as much as its size
    calls for (its text and widgets are bigger on a bigger screen)."""
    small = size[0] * size[1] <= 800 * 480
    _render_cache.max_bytes = TEXT_BYTES_SMALL_SCREEN if small else TEXT_BYTES
    _looks.room_for(size)


def render(text: str, size: int, color: Color, bold: bool = False) -> pygame.Surface:
    key = (text, size, color, bold)
    s = _render_cache.get(key)
    if s is None:
        s = _render_cache.put(key, font(size, bold).render(text, True, color))
    return s


_width_cache: dict[tuple, int] = {}


def text_width(text: str, size: int, bold: bool = False) -> int:
    key = (text, size, bold)
    w = _width_cache.get(key)
    if w is None:
        if len(_width_cache) > 4000:
            _width_cache.clear()
        w = _width_cache[key] = font(size, bold).size(text)[0]
    return w


def wrap(text: str, size: int, width: int, bold: bool = False) -> list[str]:
    """Break ``text`` into lines no wider than ``width`` (words, then characters)."""
    f = font(size, bold)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = word if not line else line + " " + word
            if f.size(trial)[0] <= width:
                line = trial
                continue
            if line:
                lines.append(line)
            line = ""
            # a word wider than the line is broken between characters
            for ch in word:
                if f.size(line + ch)[0] <= width or not line:
                    line += ch
                else:
                    lines.append(line)
                    line = ch
        lines.append(line)
    return lines


def _ellipsize(text: str, size: int, width: int, bold: bool) -> str:
    """``text`` if it fits ``width``, else its longest start that fits with "…" after it
    ("" if none does). Found by halving (a start's width grows with its length): cut a
    letter at a time, a long text was measured once per letter, up to 25 k bytecodes in
    one step painted ahead (Cake Time's question, issue 38)."""
    f = font(size, bold)
    if f.size(text)[0] <= width:
        return text
    fits, over = 0, len(text)       # (the empty start is taken to fit; the whole does not)
    while over - fits > 1:
        mid = (fits + over) // 2
        if f.size(text[:mid] + "…")[0] <= width:
            fits = mid
        else:
            over = mid
    return text[:fits] + "…" if fits else ""


_fit_cache: dict[tuple, tuple[int, list[str]]] = {}


def fit(text: str, box: pygame.Rect, size: int, bold: bool = False, lines: int = 1,
        min_size: int | None = None, tight: bool = False) -> tuple[int, list[str]]:
    """The largest type size <= ``size`` (and >= ``min_size``) at which ``text``
    fits ``box`` in at most ``lines`` lines; the lines to draw (remembered).
    ``tight``: one line whose ink (not the font's line box) must fit the height."""
    key = (text, box.w, box.h, size, bold, lines, min_size, tight)
    hit = _fit_cache.get(key)
    if hit is None:
        if len(_fit_cache) > 4000:
            _fit_cache.clear()
        hit = _fit_cache[key] = _fit(text, box, size, bold, lines, min_size, tight)
    return hit


def text_steps(text: str, box: pygame.Rect, size: int, bold: bool = False, lines: int = 1,
               min_size: int | None = None, tight: bool = False) -> Iterator[None]:
    """The fit ``draw_text`` with these arguments asks for, worked out ahead in steps
    (``fit_steps``)."""
    return fit_steps(text, pygame.Rect(box), size, bold, 1 if tight else lines, min_size, tight)


def draw_text_steps(text: str, box: pygame.Rect, size: int, color: Color = theme.TEXT,
                    bold: bool = False, lines: int = 1, min_size: int | None = None,
                    tight: bool = False) -> Iterator[None]:
    """What ``draw_text`` with these arguments needs, made ahead in steps: the fit
    (``text_steps``), then each line it breaks into rendered and its letters found, a line
    per step (a long label's letters rasterised at once, a button's 40 letters, were the
    longest step painted ahead: issue 38). The draw after it copies them."""
    box = pygame.Rect(box)
    if not text or box.w <= 0 or box.h <= 0:
        return
    yield from text_steps(text, box, size, bold, lines, min_size, tight)
    s, broken = fit(text, box, size, bold, 1 if tight else lines, min_size, tight)
    for line in broken[:1] if tight else broken:
        if (line, s, color, bold) in _render_cache and _letters(line, s, color, bold, False):
            continue
        yield
        render(line, s, color, bold)
        _letters(line, s, color, bold, find=True)


def fit_steps(text: str, box: pygame.Rect, size: int, bold: bool = False, lines: int = 1,
              min_size: int | None = None, tight: bool = False) -> Iterator[None]:
    """``fit`` worked out ahead in steps (one per type size tried: ``_fit_steps``) and
    remembered, so that the paint after it finds it; nothing to do if it is known."""
    key = (text, box.w, box.h, size, bold, lines, min_size, tight)
    if key in _fit_cache or not text or box.w <= 0 or box.h <= 0:
        return
    got = yield from _fit_steps(text, box, size, bold, lines, min_size, tight)
    if len(_fit_cache) > 4000:
        _fit_cache.clear()
    _fit_cache[key] = got


#: the letters' boxes of the texts drawn, least recently drawn forgotten first (every line
#: drawn asks: forgetting them all at once cost one tap every few games a pass over each
#: text it drew). A whole game draws 320-470 texts (2-4 players, Cake Time, 800 x 480 to
#: 1280 x 800) while the rendered text kept holds 70-150 of them: 600 hold a game's
INK_KEPT = 600
_ink_cache: OrderedDict[tuple, pygame.Rect] = OrderedDict()


def _ink(text: str, size: int, color: Color, bold: bool) -> pygame.Rect:
    """The bounding box of the letters in ``render(text, size, color, bold)`` (remembered:
    finding it reads every pixel). The caller must not change it."""
    r = _letters(text, size, color, bold, find=True)
    assert r is not None
    return r


def _letters(text: str, size: int, color: Color, bold: bool, find: bool) -> pygame.Rect | None:
    """``_ink``, found only with ``find``; else None unless remembered. A tap drawing a line
    for the first time does not find it (it reads the line's clear margins pixel by pixel):
    it blends the line whole, as it always did; painting ahead (the table idle) finds it."""
    key = (text, size, color, bold)
    r = _ink_cache.get(key)
    if r is not None:
        _ink_cache.move_to_end(key)
    elif find:
        if len(_ink_cache) >= INK_KEPT:
            _ink_cache.popitem(last=False)
        r = _ink_cache[key] = render(text, size, color, bold).get_bounding_rect()
    return r


def ink_rect(text: str, size: int, bold: bool = False) -> pygame.Rect:
    """Where the letters of ``text`` actually are in its rendering (no line spacing)."""
    return pygame.Rect(_ink(text, size, theme.TEXT, bold))


#: how far a text's width at one type size may be from its width at another, scaled: the
#: glyphs' advances are rounded to whole pixels at each size (a size skipped by that estimate
#: is too big by more than this: ``tests/test_ui_fit.py`` checks that skipping never changes
#: what fits)
_SCALE_SLACK = 1.15


def _too_big(probe: tuple[int, int, int, int], s: int, box: pygame.Rect, lines: int,
             tight: bool) -> bool:
    """True when ``s`` cannot fit, from the text measured at the first size tried (``probe``:
    that size, the width of its letters without spaces, the font's height and line
    spacing), scaled, with
    ``_SCALE_SLACK`` to spare: the sizes between, each its own font to open and its text to
    measure and wrap, need not be tried. The letters' width is a lower bound of the text's
    width on any number of lines (wrapping only removes spaces)."""
    at, letters, tall, line = probe
    scale = s / at
    if lines <= 1:
        return letters * scale > box.w * _SCALE_SLACK or \
            (not tight and tall * scale > box.h * _SCALE_SLACK)
    room = min(lines, max(1, box.h * _SCALE_SLACK // max(1, line * scale)))
    return letters * scale > room * box.w * _SCALE_SLACK


def _fits_at(f: Font, text: str, box: pygame.Rect, s: int, bold: bool, lines: int,
             tight: bool) -> list[str] | None:
    """The lines of ``text`` at size ``s`` (font ``f``) if it fits ``box`` so, else None."""
    if lines <= 1:
        tall = _ink(text, s, theme.TEXT, bold).h if tight else f.get_height()
        return [text] if f.size(text)[0] <= box.w and tall <= box.h else None
    broken = wrap(text, s, box.w, bold)
    fits_lines = min(lines, max(1, box.h // max(1, f.get_linesize())))
    if len(broken) <= fits_lines and all(f.size(x)[0] <= box.w for x in broken):
        return broken
    return None


def _fit(text: str, box: pygame.Rect, size: int, bold: bool, lines: int,
         min_size: int | None, tight: bool = False, skip: bool = True) -> tuple[int, list[str]]:
    return finished(_fit_steps(text, box, size, bold, lines, min_size, tight, skip,
                               ahead=False))


def finished(steps: Generator[None, None, Any]) -> Any:
    """What a generator of steps returns, its steps all taken at once."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _fit_steps(text: str, box: pygame.Rect, size: int, bold: bool, lines: int,
               min_size: int | None, tight: bool = False, skip: bool = True,
               ahead: bool = True) -> Generator[None, None, tuple[int, list[str]]]:
    """``_fit``, a yield after each type size tried that did not fit (a long text tries
    several, each wrapped: painting ahead takes one per step) and after each type size
    opened (a face's tables read and its hinting set up: 0.5-1 M instructions, as much as
    measuring the text after it); ``ahead``: and, before a size is first measured, its
    letters' glyphs a few a step (``glyph_steps``; not for a fit all at once, which would
    measure them twice). Returns what ``_fit`` does."""
    min_size = max(8, min_size if min_size is not None else round(size * 0.6))
    s = size
    probe: tuple[int, int, int, int] | None = None
    while True:
        if probe is not None and s > min_size and _too_big(probe, s, box, lines, tight):
            s = max(min_size, s - max(1, s // 12))
            continue
        yield from font_steps(s, bold)  # (a type size opened: a step; its text measured next)
        if ahead:                       # (its letters' glyphs: steps, a few a step)
            yield from glyph_steps(text, s, bold)
        f = font(s, bold)
        if probe is None and skip:
            probe = (s, f.size("".join(text.split()))[0], f.get_height(), f.get_linesize())
        got = _fits_at(f, text, box, s, bold, lines, tight)
        if got is not None:
            return s, got
        if s <= min_size:
            break
        s = max(min_size, s - max(1, s // 12))
        yield
    # last resort: the smallest size, cut with an ellipsis
    f = font(s, bold)
    if lines <= 1:
        return s, [_ellipsize(text, s, box.w, bold)]
    room = max(1, min(lines, box.h // max(1, f.get_linesize())))
    broken = wrap(text, s, box.w, bold)
    kept = broken[:room]
    if len(broken) > room:
        kept[-1] = _ellipsize(kept[-1] + " " + " ".join(broken[room:]), s, box.w, bold)
    return s, kept


def common_size(texts: list[str], width: int, size: int, bold: bool = False,
                min_size: int = 10) -> int:
    """One type size at which every text of a row fits ``width`` (buttons of a bar look alike;
    remembered: the footer asks it on every update)."""
    key = (tuple(texts), width, size, bold, min_size)
    s = _common_sizes.get(key)
    if s is None:
        if len(_common_sizes) > 500:
            _common_sizes.clear()
        s = size
        while s > min_size and any(text_width(x, s, bold) > width for x in texts):
            s -= 1
        _common_sizes[key] = s
    return s


_common_sizes: dict[tuple, int] = {}


def draw_text(surface: pygame.Surface, text: str, box: pygame.Rect, size: int,
              color: Color = theme.TEXT, bold: bool = False, align: str = "center",
              valign: str = "center", lines: int = 1, min_size: int | None = None,
              tight: bool = False) -> pygame.Rect:
    """Draw ``text`` inside ``box`` (shrunk, wrapped or cut to fit); return the ink rect.

    ``tight``: one line, placed by its ink rather than the font's line box, so big
    type for words read from afar fits a bar (its letters, not its line spacing)."""
    box = pygame.Rect(box)
    if not text or box.w <= 0 or box.h <= 0:
        return pygame.Rect(box.x, box.y, 0, 0)
    s, broken = fit(text, box, size, bold, 1 if tight else lines, min_size, tight)
    if tight:
        img = render(broken[0], s, color, bold)
        letters = _ink(broken[0], s, color, bold)
        w = img.get_width()
        x = {"left": box.x, "right": box.right - w}.get(align, box.x + (box.w - w) // 2)
        y = box.y + (box.h - letters.h) // 2 - letters.y
        drawn = letters.move(x, y)
        surface.blit(img, drawn, letters)
        if _records is not None:
            _records.append(TextRecord(broken[0], text, drawn, box, _owner, s, bold))
        return drawn
    f = font(s, bold)
    line_h = f.get_linesize() if len(broken) > 1 else f.get_height()
    total = line_h * (len(broken) - 1) + f.get_height()
    y = {"top": box.y, "bottom": box.bottom - total}.get(valign, box.y + (box.h - total) // 2)
    y = max(box.y, y)
    ink: pygame.Rect | None = None
    for line in broken:
        img = render(line, s, color, bold)
        w = img.get_width()
        x = {"left": box.x, "right": box.right - w}.get(align, box.x + (box.w - w) // 2)
        r = pygame.Rect(x, y, w, img.get_height())
        known = _letters(line, s, color, bold, find=_painting_ahead is not None)
        if known is not None:         # (only the letters blended: the margins are clear)
            surface.blit(img, known.move(x, y), known)
        else:
            surface.blit(img, r)
        ink = r if ink is None else ink.union(r)
        y += line_h
    if ink is None:                 # nothing fitted: no ink, as for an empty text
        ink = pygame.Rect(box.x, box.y, 0, 0)
    if _records is not None:
        _records.append(TextRecord("\n".join(broken), text, ink, box, _owner, s, bold))
    return ink


# --- rounded rectangles, drawn once and then copied ----------------------------------------

def fill_round_rect(surface: pygame.Surface, colour: Color, rect: pygame.Rect | tuple,
                    radius: int) -> None:
    """``pygame.draw.rect(surface, colour, rect, border_radius=radius)``, pixel for pixel,
    for a fraction of its cost on every pygame (issue 19: a filled 300x120 rounded rectangle
    costs Debian's pygame 2.1.2, the Pi's, 2.6 M instructions, PyPI's 2.6.1 0.15 M, this
    0.075-0.079 M; benchmarks/arm/pygame_ops.py): the straight parts are
    filled, and the four corners copied from a stamp, the (2 radius)-square rounded
    rectangle of that colour drawn once in the surface's format (pygame 2.1.2 fills even a
    corner's polygon pixel by pixel: 42,000 instructions a corner drawn clipped). Each
    corner of the stamp is copied to its radius x radius quadrant of ``rect``, within the
    surface's clip (as the plain call draws). tests/test_ui_round_rects.py compares it with
    the plain call over sizes, radii, positions, colours and clips on both pygame versions,
    shapes cut by the surface's edges too (a panel's part drawn aside, ``_shape_part``: a
    500x332 panel's fill on a 132x20 strip cost the plain call 6.6 M, every pixel of the
    whole checked against the clip). The plain call where that is not proven: a rectangle
    narrower than twice its radius; on a surface with per-pixel alpha (a copy would blend)
    or a palette, one not wholly on the surface, else each corner drawn as the stamp would
    be, clipped to its quadrant."""
    rect = pygame.Rect(rect)
    x, y, w, h = rect
    r = radius
    stamp = _corner_stamp(surface, colour, r) if 0 < 2 * r <= min(w, h) else None
    if stamp is None and (r <= 0 or 2 * r > min(w, h)
                          or not surface.get_rect().contains(rect)):
        pygame.draw.rect(surface, colour, rect, border_radius=r)
        return
    bands: tuple[pygame.Rect | tuple[int, int, int, int], ...] = _cross(rect, r)
    bounds = surface.get_rect()
    if not bounds.contains(rect):     # (pygame's fill moves a band off the left or top edge
        bands = tuple(bounds.clip(band) for band in bands)   # onto the surface whole)
    for band in bands:
        surface.fill(colour, band)
    if stamp is not None:
        surface.blits(((stamp, (x, y), (0, 0, r, r)), (stamp, (x + w - r, y), (r, 0, r, r)),
                       (stamp, (x, y + h - r), (0, r, r, r)),
                       (stamp, (x + w - r, y + h - r), (r, r, r, r))), doreturn=False)
        return
    clip = surface.get_clip()
    side = 2 * r
    try:
        for qx, qy, sx, sy in ((x, y, x, y), (x + w - r, y, x + w - side, y),
                               (x, y + h - r, x, y + h - side),
                               (x + w - r, y + h - r, x + w - side, y + h - side)):
            quadrant = clip.clip((qx, qy, r, r))
            if quadrant.w and quadrant.h:
                surface.set_clip(quadrant)
                pygame.draw.rect(surface, colour, (sx, sy, side, side), border_radius=r)
    finally:
        surface.set_clip(clip)


#: the corners of filled rounded rectangles (``fill_round_rect``) by radius, colour and
#: format: a (2 radius)-square with a colour key, 3 KB at radius 14; a game uses a few dozen
_stamps = SurfaceCache(max_bytes=1 << 20, max_items=300)


def _corner_stamp(surface: pygame.Surface, colour: Color, r: int) -> pygame.Surface | None:
    """The (2 r)-square rounded rectangle of ``colour`` drawn in ``surface``'s format, the
    rest of it transparent by a colour key; None where a copy would not give the drawn
    pixels (per-pixel alpha blends, a palette maps)."""
    if surface.get_flags() & pygame.SRCALPHA or surface.get_bytesize() < 2:
        return None
    pixel = surface.map_rgb(colour)
    key = (r, pixel, surface.get_bitsize(), surface.get_masks())
    stamp = _stamps.get(key)
    if stamp is None:
        stamp = pygame.Surface((2 * r, 2 * r), 0, surface)
        clear = stamp.unmap_rgb(pixel ^ 1)     # another pixel of this format: the key
        stamp.fill(clear)
        pygame.draw.rect(stamp, colour, (0, 0, 2 * r, 2 * r), border_radius=r)
        stamp.set_colorkey(clear)
        _stamps.put(key, stamp)
    return stamp


def draw_lines(surface: pygame.Surface, colour: Color, closed: bool,
               points: list[tuple[float, float]], width: int = 1) -> None:
    """``pygame.draw.lines(surface, colour, closed, points, width)`` as drawn with no clip,
    whatever clip is set: pygame cuts a line's ends to the clip and steps its pixels from
    there, so a line a clip crosses (a repaint of a changed area across it) comes out a pixel
    off from the same line drawn whole (an order card's tick: 26 pixels at 1280 x 800).
    Such a line is drawn whole on a small colour-keyed surface of its own and copied (cut
    where the surface's edges cut it, as pygame cuts the whole line there)."""
    pts = [(int(x), int(y)) for x, y in points]      # (pygame truncates them so)
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    box = pygame.Rect(min(xs) - width, min(ys) - width, max(xs) - min(xs) + 2 * width + 1,
                      max(ys) - min(ys) + 2 * width + 1).clip(surface.get_rect())
    clip = surface.get_clip()
    if not clip.colliderect(box):
        return                                       # (nothing of it in view)
    if clip.contains(box) or surface.get_flags() & pygame.SRCALPHA \
            or surface.get_bytesize() < 2:
        pygame.draw.lines(surface, colour, closed, pts, width)
        return
    aside = pygame.Surface(box.size, 0, surface)
    clear = aside.unmap_rgb(surface.map_rgb(colour) ^ 1)    # another pixel: the key
    aside.fill(clear)
    pygame.draw.lines(aside, colour, closed, [(x - box.x, y - box.y) for x, y in pts], width)
    aside.set_colorkey(clear)
    surface.blit(aside, box)


#: copies of rounded shapes by size, radius, layers and format, counted by the bytes SDL
#: holds for them (their run-length encoding: a filled shape's copy is hollow, its corners
#: and outlines, ``_shape_copy``). Whole copies of a game's shapes at 800x480 held about
#: 10 MB and a 6 MB cap dropped a few dozen a game; hollow, a 50-game soak holds 0.2 MB
_shapes = SurfaceCache(max_bytes=2 << 20, max_items=600)
_shapes_seen: set[tuple] = set()       # shapes drawn once (a copy is made the second time)
_KEYS = ((255, 0, 255), (1, 254, 3), (0, 0, 1))      # transparent colours of a shape copy


def rounded(surface: pygame.Surface, rect: pygame.Rect, radius: int,
            *layers: tuple[Color, int]) -> None:
    """``pygame.draw.rect(surface, colour, rect, width, border_radius=radius)`` for each
    (colour, width) of ``layers`` in turn (width 0 fills), pixel for pixel: drawn until a
    copy is made, then copied (a colour-keyed, run-length encoded surface in the target's
    format, which SDL copies about ten times faster than pygame draws rounded corners).
    The copy of a shape drawn twice is made while the table is idle (``make_owed_copy``,
    which a screen painting ahead calls): making and encoding it costs a tap more than
    drawing the shape does. A shape filled first (a fill alone too) is copied hollow
    (``_shape_copy``): its fill's straight parts are filled, the rest copied.

    Drawn directly (as the copy would be) while painting ahead (``painting_ahead``), and
    where a copy could differ: on a surface with per-pixel alpha, a
    rectangle not wholly on the surface (pygame draws a shape cut by an edge a pixel
    differently), or a rectangle narrower than twice its radius or an outline (pygame
    draws those a pixel differently at different places)."""
    rect = pygame.Rect(rect)
    if not _copied(surface, rect, radius, layers):
        _draw_layers(surface, rect, radius, layers)
        return
    if _painting_ahead is not None:
        _ready_copy(_painting_ahead, rect, radius, layers)
        _draw_as_copied(surface, rect, radius, layers)
        return
    key = _shape_key(surface, rect, radius, layers)
    if _copy_shape(surface, key, rect, radius, layers):
        return
    if key not in _shapes_seen:         # the first time, drawn: a copy is owed the second
        if len(_shapes_seen) > 2000:    # (made while the table is idle: making and
            _shapes_seen.clear()        # encoding it costs more than drawing)
        _shapes_seen.add(key)
    else:
        _owe(key, surface, rect, radius, layers)
    _draw_as_copied(surface, rect, radius, layers)


def _draw_layers(surface: pygame.Surface, rect: pygame.Rect, radius: int,
                 layers: tuple[tuple[Color, int], ...]) -> None:
    for colour, width in layers:
        if width:
            pygame.draw.rect(surface, colour, rect, width, border_radius=radius)
        else:
            fill_round_rect(surface, colour, rect, radius)


def _shape_key(surface: pygame.Surface, rect: pygame.Rect, radius: int,
               layers: tuple[tuple[Color, int], ...]) -> tuple:
    return (rect.w, rect.h, radius, layers, surface.get_bitsize(), surface.get_masks())


#: a shape larger than this (pixels) is copied in four pieces, its top and bottom bands and
#: its two sides, each made while idle in a step of its own (``make_owed_copy``): a 500 x 332
#: panel's copy made whole (drawn, hollowed, counted and encoded) was the largest step
#: painted ahead, 9-11 M instructions at 800 x 480 (issue 38); its pieces are under 1 M each
_PIECES_OVER = 24_000


def _pieces(rect: pygame.Rect, radius: int,
            layers: tuple[tuple[Color, int], ...]) -> tuple[pygame.Rect, ...]:
    """The pieces (relative to the shape) a large shape's copy is kept in: bands as deep as
    its corners and outlines (``edge``) along its top and bottom, and its two sides between
    them; what they leave, its middle, is its fill (filled, ``_fill_cross``) or clear.
    None (``()``): one whole copy (a shape this small, or a fill over an outline, whose
    middle is not one colour)."""
    w, h = rect.size
    if w * h <= _PIECES_OVER or any(not width for _, width in layers[1:]):
        return ()
    edge = max(radius, *(width for _, width in layers))
    if w <= 2 * edge or h <= 2 * edge:
        return ()
    side = h - 2 * edge
    return (pygame.Rect(0, 0, w, edge), pygame.Rect(0, h - edge, w, edge),
            pygame.Rect(0, edge, edge, side), pygame.Rect(w - edge, edge, edge, side))


def _copy_shape(surface: pygame.Surface, key: tuple, rect: pygame.Rect, radius: int,
                layers: tuple[tuple[Color, int], ...]) -> bool:
    """Copy the shape from its copy (or its pieces' copies) where ``rounded`` draws it;
    False: no copy (or a piece of it) is kept."""
    pieces = _pieces(rect, radius, layers)
    if pieces:
        got = [_shapes.get(key + (i,)) for i in range(len(pieces))]
        at = [piece.move(rect.topleft) for piece in pieces]
    else:
        got, at = [_shapes.get(key)], [rect]
    shapes = [shape for shape in got if shape is not None]
    if len(shapes) < len(got):
        return False
    if not layers[0][1]:                # its fill's straight parts, then the rest copied
        _fill_cross(surface, layers[0][0], rect, radius)
    for shape, where in zip(shapes, at, strict=True):
        surface.blit(shape, where)
    return True


def _draw_as_copied(surface: pygame.Surface, rect: pygame.Rect, radius: int,
                    layers: tuple[tuple[Color, int], ...]) -> None:
    """Draw a shape not copied yet: the pixels its copy gives, whatever clip is set."""
    clip = surface.get_clip()
    if clip.contains(rect):
        surface.set_clip(None)
        try:
            _draw_layers(surface, rect, radius, layers)
        finally:
            surface.set_clip(clip)
    elif any(width for _, width in layers):
        # an outline cut by the clip: pygame draws an outline along a clip's edge a pixel
        # differently, so the part in view is drawn aside with a margin and copied from
        # there (tests/test_ui_render_speed.py checks it against the whole)
        _cut_shape(surface, rect, radius, layers, clip.clip(rect))
    else:                               # (a fill is the same pixels however it is cut)
        _draw_layers(surface, rect, radius, layers)


def _cut_shape(surface: pygame.Surface, rect: pygame.Rect, radius: int,
               layers: tuple[tuple[Color, int], ...], area: pygame.Rect) -> None:
    """The part ``area`` of a filled shape with outlines over it: its middle, clear of the
    outlines and the rounded corners, is the fill's colour (filled at once); only the edges
    are drawn aside (``_shape_part``). A panel cut by a band that crosses it is then two
    narrow strips drawn aside, not the whole band (a surface made, drawn and copied with a
    colour key: about twelve instructions a pixel)."""
    (fill, width), outlines = layers[0], layers[1:]
    edge = max(radius, *(w for _, w in outlines)) if outlines else radius
    if width or any(w == 0 for _, w in outlines) or not area:
        _shape_part(surface, rect, radius, layers, area)
        return
    middle = rect.inflate(-2 * edge, -2 * edge)
    if middle.w <= 0 or middle.h <= 0:
        _shape_part(surface, rect, radius, layers, area)
        return
    surface.fill(fill, middle.clip(area))
    for side in (pygame.Rect(rect.x, rect.y, rect.w, edge),                  # top
                 pygame.Rect(rect.x, middle.bottom, rect.w, edge),           # bottom
                 pygame.Rect(rect.x, middle.y, edge, middle.h),              # left
                 pygame.Rect(middle.right, middle.y, edge, middle.h)):       # right
        part = side.clip(area)
        if part:
            _shape_part(surface, rect, radius, layers, part)


def _copied(surface: pygame.Surface, rect: pygame.Rect, radius: int,
            layers: tuple[tuple[Color, int], ...]) -> bool:
    """Whether ``rounded`` may copy this shape on ``surface`` (see its docstring)."""
    return radius > 0 and 2 * max(radius, *(w for _, w in layers)) <= min(rect.w, rect.h) \
        and not surface.get_flags() & pygame.SRCALPHA and surface.get_rect().contains(rect)


#: while painting ahead: the surface the screen shows on (see ``painting_ahead``)
_painting_ahead: pygame.Surface | None = None


@contextlib.contextmanager
def painting_ahead(shown_on: pygame.Surface) -> Iterator[None]:
    """Inside the block a screen paints ahead, off the surface it shows on (``shown_on``):
    ``rounded`` draws every shape there, and owes the copy the screen will use later,
    ready for ``shown_on`` (``make_owed_copy``). SDL encodes a copy for the surface it was
    last copied to (pixel by pixel, about ten instructions a pixel) and again whenever it
    is copied to another one: the copies stay ``shown_on``'s, and a tap pays for neither."""
    global _painting_ahead
    before, _painting_ahead = _painting_ahead, shown_on
    try:
        yield
    finally:
        _painting_ahead = before


#: copies of shapes painted ahead, still to make for the surface shown on: key -> arguments
_copies_owed: dict[tuple, tuple] = {}


def _ready_copy(shown_on: pygame.Surface, rect: pygame.Rect, radius: int,
                layers: tuple[tuple[Color, int], ...]) -> None:
    """Owe the copy of a shape ``rounded`` will draw on ``shown_on`` (``make_owed_copy``
    makes it, a step of its own)."""
    if not _copied(shown_on, rect, radius, layers):
        return
    _owe(_shape_key(shown_on, rect, radius, layers), shown_on, rect, radius, layers)


def _owe(key: tuple, shown_on: pygame.Surface, rect: pygame.Rect, radius: int,
         layers: tuple[tuple[Color, int], ...]) -> None:
    """Owe the copy of a shape for ``shown_on``, or of each of its pieces not kept
    (``_pieces``), each a copy of its own (at most 64 owed: the oldest go first)."""
    pieces = _pieces(rect, radius, layers)
    owed = [(key + (i,), piece) for i, piece in enumerate(pieces)] if pieces else [(key, None)]
    for k, piece in owed:
        if k in _shapes:
            continue
        _copies_owed.pop(k, None)
        if len(_copies_owed) >= 64:
            _copies_owed.pop(next(iter(_copies_owed)))
        _copies_owed[k] = (shown_on, pygame.Rect(rect), radius, layers, piece)


def make_owed_copy(shown_on: pygame.Surface) -> bool:
    """Make one copy owed for ``shown_on`` (the surface a screen shows on), encoded for it:
    one pixel of it that its colour key leaves out (its rounded corner) is copied there,
    which changes nothing there but makes SDL encode it. Copies owed for another surface
    (a window closed since) are forgotten. False: none was owed."""
    while _copies_owed:
        key = next(iter(_copies_owed))
        target, rect, radius, layers, piece = _copies_owed.pop(key)
        if target is shown_on and key not in _shapes:
            break
    else:
        return False
    shape, held, clear = _shape_copy(shown_on, rect, radius, layers, piece)
    _shapes.put(key, shape, held)
    _shapes_seen.add(key if piece is None else key[:-1])
    clip = shown_on.get_clip()
    if clip.w > 0 and clip.h > 0 and clear is not None:
        shown_on.blit(shape, clip.topleft, pygame.Rect(clear, (1, 1)))
    return True


def _shape_part(surface: pygame.Surface, rect: pygame.Rect, radius: int,
                layers: tuple[tuple[Color, int], ...], area: pygame.Rect) -> None:
    """The part ``area`` of a shape, exactly as it is when the whole is drawn: drawn on a
    small surface of its own a few pixels wider than ``area`` (where pygame draws an
    outline cut by an edge differently), then copied."""
    if not area:
        return
    margin = max(width for _, width in layers) + 2
    aside = area.inflate(2 * margin, 2 * margin).clip(rect)
    part = _keyed(surface, aside.size, rect.move(-aside.x, -aside.y), radius, layers, 0)
    surface.blit(part, area, area.move(-aside.x, -aside.y))


def _cross(rect: pygame.Rect, r: int) -> tuple[tuple[int, int, int, int], ...]:
    """The straight parts of a rounded rectangle: all of ``rect`` but its four
    ``r``-square corners, as three bands."""
    x, y, w, h = rect
    return (x, y + r, w, h - 2 * r), (x + r, y, w - 2 * r, r), (x + r, y + h - r, w - 2 * r, r)


def _fill_cross(surface: pygame.Surface, colour: Color, rect: pygame.Rect,
                radius: int) -> None:
    """The straight parts of a rounded fill, filled: what a hollow copy (``_shape_copy``)
    leaves out."""
    for band in _cross(rect, radius):
        surface.fill(colour, band)


def _shape_copy(surface: pygame.Surface, rect: pygame.Rect, radius: int,
                layers: tuple[tuple[Color, int], ...], piece: pygame.Rect | None = None
                ) -> tuple[pygame.Surface, int, tuple[int, int] | None]:
    """``rounded``'s copy (or of its ``piece``, relative to the shape: ``_pieces``): the
    layers drawn on a colour key none of them uses, RLE-encoded; the bytes it holds; and a
    pixel of it the colour key leaves out (None: none; it is then copied whole, not keyed).
    A shape filled first is hollow: where it is its fill's colour outside the four corners,
    the copy has its colour key (``rounded`` fills those straight parts first,
    ``_fill_cross``), so it holds its corners and outlines only (SDL keeps only the
    run-length encoded pixels it copies: a 788 x 163 panel with a 2-pixel outline 18 KB
    instead of 500). A piece is drawn with a margin around it, as ``_shape_part`` draws a
    part, and cut from there."""
    whole = pygame.Rect((0, 0), rect.size)
    if piece is None:
        out = _keyed(surface, rect.size, whole, radius, layers, 0)
        area = whole
    else:
        margin = max(width for _, width in layers) + 2
        aside = piece.inflate(2 * margin, 2 * margin).clip(whole)
        drawn = _keyed(surface, aside.size, whole.move(-aside.x, -aside.y), radius, layers, 0)
        out = drawn.subsurface(piece.move(-aside.x, -aside.y)).copy()
        area = piece
    clear = out.get_colorkey()
    assert clear is not None
    if not layers[0][1]:
        _hollow(out, area, rect.size, radius, out.map_rgb(layers[0][0]), out.map_rgb(clear))
    shown = pygame.mask.from_surface(out)           # (the pixels not the colour key)
    held = shown.count() * out.get_bytesize() + 16 * out.get_height()
    if shown.count() == out.get_width() * out.get_height():
        out.set_colorkey(None)                      # (a piece all outline: nothing clear)
        return out, held, None
    out.set_colorkey(clear, pygame.RLEACCEL)
    return out, held, _left_out(shown)


def _left_out(shown: pygame.mask.Mask) -> tuple[int, int] | None:
    """A pixel the mask ``shown`` leaves out, if one is: a corner or the middle (a rounded
    shape's corner is clear, and a hollow one's middle), else the first point of its
    clear part's outline (tracing that outline, for one pixel, was 0.77 M instructions of a
    dialog's shape copied ahead: issue 38)."""
    w, h = shown.get_size()
    for at in ((0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (w // 2, h // 2)):
        if not shown.get_at(at):
            return at
    clear = shown.copy()
    clear.invert()
    edge = clear.outline()                          # (points of the clear part)
    return edge[0] if edge else None


def _hollow(out: pygame.Surface, area: pygame.Rect, size: tuple[int, int], radius: int,
            fill: int, clear: int) -> None:
    """Where ``out`` (the part ``area`` of a shape of ``size``) is its ``fill`` in the
    shape's straight parts (all but its four corners), ``clear``."""
    w, h, r = *size, radius
    pixels: Any = pygame.PixelArray(out)        # (its stubs lack slicing)
    try:
        for band in (pygame.Rect(r, 0, w - 2 * r, h) if w > 2 * r else None,
                     pygame.Rect(0, r, w, h - 2 * r) if h > 2 * r else None):
            part = band.clip(area) if band is not None else None
            if part:                            # (None: no straight part that way)
                part.move_ip(-area.x, -area.y)
                pixels[part.x:part.right, part.y:part.bottom].replace(fill, clear)
    finally:
        pixels.close()


def _keyed(like: pygame.Surface, size: tuple[int, int], rect: pygame.Rect, radius: int,
           layers: tuple[tuple[Color, int], ...], flags: int) -> pygame.Surface:
    """A surface of ``size`` in ``like``'s format: ``layers`` drawn at ``rect`` on a colour
    key none of them uses (``flags``: pygame.RLEACCEL or 0)."""
    out = pygame.Surface(size, 0, like)
    used = {out.map_rgb(colour) for colour, _ in layers}
    clear = next(k for k in _KEYS if out.map_rgb(k) not in used)
    out.fill(clear)
    _draw_layers(out, rect, radius, layers)
    out.set_colorkey(clear, flags)
    return out


# --- widgets ---------------------------------------------------------------------------

@dataclass(eq=False)
class Widget:
    """Base: a named rectangle. Subclasses add data fields and ``paint``.

    ``on_tap``: called (on the main thread) when a finger lifts inside the widget
    after touching down inside it. ``blocks``: taps on this widget never reach
    the widgets behind it (dialogs). Fields marked ``compare=False`` do not
    affect the look and do not cause a repaint.
    """
    name: str
    rect: pygame.Rect
    on_tap: Callable[[], None] | None = field(default=None, compare=False, repr=False)
    blocks: bool = field(default=False, compare=False)
    pressed: bool = False

    #: whether ``paint`` draws ``pressed`` (a finger down shows): of the others a press
    #: changes nothing, so it repaints nothing (a press on a toast painted the toast and
    #: the three order cards under it again, the same: 8.0 M instructions, issue 19)
    shows_pressed = False

    def keep_key(self) -> None:
        """Nothing of this widget will change any more but its pressed look (a screen uses
        it again in later builds): ``key`` and ``placed`` are then worked out once per look."""
        self.__dict__["_kept_key"] = {}
        self.__dict__["_kept_placed"] = {}

    def placed(self) -> tuple:
        """(where it paints, what it shows): what a screen compares from frame to frame."""
        kept = self.__dict__.get("_kept_placed")
        if kept is not None:
            hit = kept.get(self.pressed)
            if hit is None:
                hit = kept[self.pressed] = (tuple(self.extent), self.key())
            return hit
        return (tuple(self.extent), self.key())

    def key(self) -> tuple:
        kept = self.__dict__.get("_kept_key")
        if kept is not None:
            hit = kept.get(self.pressed)
            if hit is None:
                hit = kept[self.pressed] = self._key()
            return hit
        return self._key()

    def _key(self) -> tuple:
        got = _compared.get(type(self))
        if got is None:        # once per widget class: dataclasses.fields() is slow per call
            names = tuple(f.name for f in fields(self)
                          if f.compare and (f.name != "pressed" or self.shows_pressed))
            got = _compared[type(self)] = (operator.attrgetter(*names, names[0]),
                                           names.index("rect"))
        get, rect = got
        values = list(get(self))[:-1]      # (a second name: attrgetter always gives a tuple)
        values[rect] = tuple(values[rect])
        if not _MUTABLE.isdisjoint(map(type, values)):
            return tuple([_freeze(v) for v in values])
        return tuple(values)

    @property
    def tappable(self) -> bool:
        return self.on_tap is not None

    @property
    def extent(self) -> pygame.Rect:
        """Every pixel the widget paints (its rect, unless it casts a shadow)."""
        return self.rect

    @property
    def shows(self) -> bool:
        """Whether it paints anything (a touch target over other widgets does not: its
        coming, going or changing repaints nothing)."""
        return True

    def draw(self, surface: pygame.Surface) -> None:
        global _owner
        _owner = self.name
        try:
            self.paint(surface)
        finally:
            _owner = ""

    def draw_steps(self, surface: pygame.Surface) -> Iterator[None]:
        """``draw`` in the parts of ``paint_steps``, a yield between two parts."""
        global _owner
        parts = self.paint_steps(surface)
        while True:
            _owner = self.name
            try:
                part = next(parts, _END)
            finally:
                _owner = ""
            if part is _END:
                return
            yield

    def paint(self, surface: pygame.Surface) -> None:   # pragma: no cover - abstract
        raise NotImplementedError

    def paint_steps(self, surface: pygame.Surface) -> Iterator[None]:
        """``paint`` in parts, a yield between two: painting ahead, while the table is idle,
        takes one part per step, so an input arriving meanwhile waits for one part, not for
        a whole widget's first paint (an order card's fan, a long text tried at several
        sizes). By default one part."""
        self.paint(surface)
        yield from ()

    def solid_over(self, area: pygame.Rect) -> Color | None:
        """The one colour this widget paints over all of ``area`` (hiding what is behind
        it there), or None. A repaint of ``area`` then starts from this widget."""
        return None


# --- looks: a widget painted once on a plain colour, then copied ------------------------------

class Looks:
    """Copies of widgets as painted on a plain background colour, keyed by what they show
    (``Widget.key()`` with the rect's size, not its place), the colour and the surface's
    format. A screen repainting a changed area copies a widget it has painted before (the
    same card in another seat's panel after a turn change) instead of painting it again:
    pygame's drawing is the same at any place on the surface, so the copy is the same pixels.
    At most ``limit`` pixels are kept (the least recently used go first)."""

    def __init__(self, limit: int = 800 * 480 * 2):
        self.limit = self._least = limit
        self._got: dict[tuple, pygame.Surface] = {}
        self._pixels = 0
        self.copied = 0                  # widgets copied instead of painted (tests, benchmarks)

    @staticmethod
    def key(w: Widget, ground: Color, form: tuple) -> tuple | None:
        """What the look of ``w`` painted on ``ground`` depends on (None: not kept: only
        the kinds in ``_KEPT``, which paint inside their rect and nothing but their fields).
        Its place counts only odd or even: a widget placing a pixel by rounding a half (an
        order card's ingredients) rounds it to even, so one at an odd place can differ."""
        if type(w) not in _KEPT or w.extent is not w.rect:
            return None
        k = w.key()
        at = _compared[type(w)][1]
        return (type(w), k[:at], k[at + 1:], w.rect.size, w.rect.x % 2, w.rect.y % 2, ground,
                form)

    def room_for(self, size: tuple[int, int]) -> None:
        """A screen of ``size`` paints with these looks: they may hold twice its pixels
        (the widgets of a bigger screen are bigger: at 1280 x 800 the 800 x 480 limit held
        less than one screen's worth), never less than the limit they were made with.
        (Once its pixels cost 1.3-2.3 M instructions of the p99 tap at 1280 x 720 and
        1280 x 800, counted: issue 19.)"""
        self.limit = max(self._least, 2 * size[0] * size[1])

    def __contains__(self, key: tuple) -> bool:
        return key in self._got

    def get(self, key: tuple) -> pygame.Surface | None:
        got = self._used(key)
        if got is not None:
            self.copied += 1
        return got

    def touch(self, key: tuple) -> bool:
        """Make the look of ``key`` the most recently used (not counted as copied);
        False: not kept."""
        return self._used(key) is not None

    def _used(self, key: tuple) -> pygame.Surface | None:
        got = self._got.pop(key, None)
        if got is not None:
            self._got[key] = got           # (the most recently used last)
        return got

    def keep(self, key: tuple, surface: pygame.Surface, rect: pygame.Rect) -> None:
        if rect.w * rect.h > self.limit // 4 or not surface.get_rect().contains(rect):
            return
        self._put(key, surface.subsurface(rect).copy())

    def paint_aside(self, key: tuple, w: Widget, ground: Any,
                    like: pygame.Surface) -> pygame.Surface | None:
        """``w``'s look made on a surface of its own (in ``like``'s format, filled with
        ``ground``) and kept, for a repaint that shows only part of it (a band the clip cuts
        across a panel): painted whole, its shapes are drawn, not cut and drawn aside part by
        part. None: too big to keep. It is painted an even number of pixels from where it is
        on the screen (pixels placed by rounding a half then fall the same way)."""
        return finished(self.paint_aside_steps(key, w, ground, like))

    def paint_aside_steps(self, key: tuple, w: Widget, ground: Any, like: pygame.Surface
                          ) -> Generator[None, None, pygame.Surface | None]:
        """``paint_aside`` painting ahead: a yield between two parts of the widget
        (``Widget.paint_steps``)."""
        if w.rect.w * w.rect.h > self.limit // 4:
            return None
        dx, dy = w.rect.x % 2, w.rect.y % 2
        aside = pygame.Surface((w.rect.w + dx, w.rect.h + dy), 0, like)
        aside.fill(ground)
        parts = _moved(w, pygame.Rect(dx, dy, w.rect.w, w.rect.h)).draw_steps(aside)
        while True:
            with painting_ahead(_painting_ahead or like):   # (shapes drawn, copies owed)
                if next(parts, _END) is _END:
                    break
            yield
        look = aside.subsurface((dx, dy, w.rect.w, w.rect.h)) if dx or dy else aside
        self._put(key, look)
        return look

    def _put(self, key: tuple, look: pygame.Surface) -> None:
        old = self._got.pop(key, None)
        if old is not None:
            self._pixels -= old.get_width() * old.get_height()
        self._got[key] = look
        self._pixels += look.get_width() * look.get_height()
        while self._pixels > self.limit:
            old = self._got.pop(next(iter(self._got)))
            self._pixels -= old.get_width() * old.get_height()

    def clear(self) -> None:
        self._got.clear()
        self._pixels = 0

    def __len__(self) -> int:
        return len(self._got)


def _moved(w: Widget, rect: pygame.Rect) -> Widget:
    """``w`` at ``rect``: ``dataclasses.replace`` without its cost (it walks the fields and
    calls ``__init__``; the kinds kept as looks set nothing up there), and without the
    keys ``w`` worked out for where it is."""
    twin = object.__new__(type(w))
    twin.__dict__.update(w.__dict__)
    twin.__dict__.pop("_kept_key", None)
    twin.__dict__.pop("_kept_placed", None)
    twin.rect = rect
    return twin


_looks = Looks()


def looks() -> Looks | None:
    """The kept looks, or None while texts are being recorded (every text must be drawn)."""
    return _looks if _records is None else None


#: widget class -> a getter of the fields that count (and where its rect is among them)
_compared: dict[type, tuple[Callable[[Any], tuple], int]] = {}
_MUTABLE = {pygame.Rect, list}          # field values a key holds as tuples


def _freeze(v: Any) -> Any:
    if isinstance(v, pygame.Rect):
        return tuple(v)
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    return v


@dataclass(eq=False)
class Fill(Widget):
    """A plain rectangle (optionally rounded, optionally outlined)."""
    color: Color = theme.PANEL
    radius: int = 0
    border: int = 0
    border_color: Color = theme.PANEL_LINE

    def paint(self, surface):
        if self.border:
            rounded(surface, self.rect, self.radius, (tuple(self.color), 0),
                    (tuple(self.border_color), self.border))
        else:
            rounded(surface, self.rect, self.radius, (tuple(self.color), 0))

    def solid_over(self, area: pygame.Rect) -> Color | None:
        # inside the border, and clear of the rounded corners along one axis, it is all
        # ``color`` (tests/test_ui_render_speed.py checks this against pygame.draw.rect)
        if type(self) is not Fill or len(self.color) != 3:
            return None
        r, b = self.rect, self.border
        corner = max(self.radius, b)
        if r.inflate(-2 * corner, -2 * b).contains(area) \
                or r.inflate(-2 * b, -2 * corner).contains(area) \
                or _in_rounded_middle(r, self.radius, b, area):
            return self.color
        return None


def _in_rounded_middle(rect: pygame.Rect, radius: int, border: int, area: pygame.Rect) -> bool:
    """Whether ``area`` lies where a rounded rectangle filled and outlined ``border`` wide is
    all its fill: inside the border, and in each corner square within the disc of the
    corner's circle clear of the border by two pixels more (a repaint of a widget that
    reaches a pixel into a big panel's corner square then starts from the panel's colour
    instead of drawing the panel's edges aside: 0.8 M instructions for an 800 x 562 panel)."""
    safe = radius - border - 2
    if safe <= 0 or not rect.inflate(-2 * border, -2 * border).contains(area):
        return False
    for cx, cy, square in ((rect.left + radius, rect.top + radius,
                            (rect.left, rect.top, radius, radius)),
                           (rect.right - radius, rect.top + radius,
                            (rect.right - radius, rect.top, radius, radius)),
                           (rect.left + radius, rect.bottom - radius,
                            (rect.left, rect.bottom - radius, radius, radius)),
                           (rect.right - radius, rect.bottom - radius,
                            (rect.right - radius, rect.bottom - radius, radius, radius))):
        part = area.clip(square)
        if part.w and part.h:
            far_x = max(abs(part.left - cx), abs(part.right - cx))   # (the part's corner
            far_y = max(abs(part.top - cy), abs(part.bottom - cy))   # farthest from the centre)
            if far_x * far_x + far_y * far_y > safe * safe:
                return False
    return True


Panel = Fill


@dataclass(eq=False)
class Label(Widget):
    """Text in a box, with an optional background."""
    text: str = ""
    size: int = 20
    color: Color = theme.TEXT
    bold: bool = False
    align: str = "center"
    valign: str = "center"
    lines: int = 1
    background: Color | None = None
    radius: int = 0
    pad: int = 0
    min_size: int | None = None
    tight: bool = False          # one line placed by its ink (big words in a bar)

    def paint(self, surface):
        if self.background is not None:
            rounded(surface, self.rect, self.radius, (tuple(self.background), 0))
        draw_text(surface, self.text, self._box(), self.size, self.color, self.bold,
                  self.align, self.valign, self.lines, self.min_size, self.tight)

    def paint_steps(self, surface):
        """The type size that fits first (a long text tries several, one per part), each
        of its lines rendered (a part each), then the paint. (The fit and the paint in one
        part rendered a big or long text twice in it, for its letters' box and in its
        colour: up to 4.2 M instructions, the longest step painted ahead in Cake Time at
        800 x 480, issue 38.)"""
        yield from draw_text_steps(self.text, self._box(), self.size, self.color, self.bold,
                                   self.lines, self.min_size, self.tight)
        yield
        self.paint(surface)

    def _box(self) -> pygame.Rect:
        return self.rect.inflate(-2 * self.pad, -2 * min(self.pad, self.rect.h // 4))


@dataclass(eq=False)
class Button(Widget):
    """A touch button: a rounded rectangle with a label; greyed when disabled.

    ``color`` is the face; ``text_color`` defaults to whatever reads on it.
    A disabled button draws greyed and ignores taps (``on_tap`` is not called).
    """
    text: str = ""
    size: int = 22
    color: Color = theme.BUTTON
    text_color: Color | None = None
    enabled: bool = True
    bold: bool = True
    radius: int = 12
    outline: Color | None = None
    lines: int = 1
    pad: int | None = None       # around the label (None: a sixth of the height, 6 at least)
    tight: bool = False          # one line placed by its ink (big words in a bar: END TURN)

    shows_pressed = True

    @property
    def tappable(self) -> bool:
        return self.enabled and self.on_tap is not None

    def paint(self, surface):
        face = self._face()
        if self.outline is not None:
            rounded(surface, self.rect, self.radius, (tuple(face), 0),
                    (tuple(self.outline), max(2, self.rect.h // 20)))
        else:
            rounded(surface, self.rect, self.radius, (tuple(face), 0))
        draw_text(surface, self.text, self._box(), self.size, self._text_color(), self.bold,
                  lines=self.lines, tight=self.tight)

    def _face(self) -> Color:
        face = self.color if self.enabled else theme.BUTTON_DISABLED
        if self.pressed and self.enabled:
            face = theme.mix(face, theme.WHITE, 0.3)
        return face

    def _text_color(self) -> Color:
        face = self._face()
        fg = self.text_color or theme.readable_on(face)
        return theme.mix(fg, face, 0.5) if not self.enabled else fg

    def paint_steps(self, surface):
        """The type size its label fits at first (one part per size tried), each of its
        lines rendered (a part each), then the paint."""
        yield from draw_text_steps(self.text, self._box(), self.size, self._text_color(),
                                   self.bold, self.lines, None, self.tight)
        yield
        self.paint(surface)

    def _box(self) -> pygame.Rect:
        pad = max(6, self.rect.h // 6) if self.pad is None else self.pad
        return self.rect.inflate(-2 * pad, -max(6, self.rect.h // 6))


@dataclass(eq=False)
class Shade(Widget):
    """Dims everything behind a dialog and keeps taps from reaching it."""
    alpha: int = 160

    def __post_init__(self):
        self.blocks = True

    def paint(self, surface):
        self.cover(surface, self.rect)

    def veil(self) -> pygame.Surface:
        """A strip of the veil: ``_VEIL_ROWS`` rows as wide as the shade (made once per width:
        the veil is one colour, so a whole screen's worth, 1.5 MB at 800 x 480 with its
        alpha, would hold the same pixel over and over)."""
        key = (self.rect.w, self.alpha)
        veil = _veils.get(key)
        if veil is None:
            if len(_veils) > 8:
                _veils.clear()
            veil = _veils[key] = pygame.Surface((self.rect.w, _VEIL_ROWS), pygame.SRCALPHA)
            veil.fill((*theme.BLACK, self.alpha))
        return veil

    def cover(self, surface: pygame.Surface, part: pygame.Rect) -> None:
        """Veil ``part`` of ``surface`` (where the shade covers it): the strip copied down it
        band by band, every row from the same columns as the whole veil copied at once (the
        same pixels blended as the same pixels: tests/test_ui_render_speed.py)."""
        part = self.rect.clip(part)
        veil, rows = self.veil(), _VEIL_ROWS
        x, w = part.x - self.rect.x, part.w
        surface.blits([(veil, (part.x, y), (x, 0, w, min(rows, part.bottom - y)))
                       for y in range(part.y, part.bottom, rows)], doreturn=False)

    def paint_around(self, surface: pygame.Surface, hole: pygame.Rect) -> None:
        """``paint`` but for ``hole``, which the caller then covers with opaque pixels (a
        dialog's box): the veil's pixels there would be painted over at once."""
        hole = hole.clip(self.rect)
        if not hole:
            self.paint(surface)
            return
        r = self.rect
        for part in (pygame.Rect(r.x, r.y, r.w, hole.top - r.y),
                     pygame.Rect(r.x, hole.bottom, r.w, r.bottom - hole.bottom),
                     pygame.Rect(r.x, hole.top, hole.left - r.x, hole.h),
                     pygame.Rect(hole.right, hole.top, r.right - hole.right, hole.h)):
            if part.w > 0 and part.h > 0:
                self.cover(surface, part)

    def prepare(self, surface: pygame.Surface) -> None:
        """Make the veil now (on a whole repaint), not on the tap that opens a dialog."""
        self.veil()


#: (width, alpha) -> a strip of a shade's veil, ``_VEIL_ROWS`` rows high
_veils: dict[tuple, pygame.Surface] = {}
_VEIL_ROWS = 60


@dataclass(eq=False)
class Toast(Widget):
    """A short message over the screen (a rejection, a hint); ``kind`` sets the colour.
    ``flat``: in a bar of its own height (the table's top bar), without the shadow and
    with a thinner edge, so that its words take two lines of the body type there (the
    shadow and the wider margins left them 17-18 px)."""
    text: str = ""
    size: int = 20
    kind: str = "error"          # "error", "info" or "warning"
    min_size: int | None = None
    flat: bool = False

    LINES = 3                    # at most, in ``text_box``
    FLAT_EDGE = 3                # the edge of a ``flat`` message

    @property
    def extent(self) -> pygame.Rect:
        if self.flat:
            return self.rect
        return self.rect.union(self.rect.move(3, 4))      # and its shadow

    @staticmethod
    def text_box(rect: pygame.Rect, flat: bool = False) -> pygame.Rect:
        """Where a toast in ``rect`` puts its words."""
        pad = max(8, rect.h // 8)
        if flat:
            edge = Toast.FLAT_EDGE
            return rect.inflate(-2 * (edge + pad), -2 * edge)
        card = pygame.Rect(rect.x, rect.y, rect.w - 3, rect.h - 4)
        return card.inflate(-2 * pad - 8, -pad)

    def paint(self, surface):
        face = {"error": theme.TOAST, "info": theme.TOAST, "warning": theme.WARNING}[self.kind]
        edge = {"error": theme.DANGER, "info": theme.OK, "warning": theme.TEXT_DARK}[self.kind]
        if self.flat:
            fill_round_rect(surface, face, self.rect, 10)
            pygame.draw.rect(surface, edge, self.rect, self.FLAT_EDGE, border_radius=10)
        else:
            # the shadow stays inside the rectangle: a toast that goes leaves no trace of it
            card = pygame.Rect(self.rect.x, self.rect.y, self.rect.w - 3, self.rect.h - 4)
            fill_round_rect(surface, theme.BLACK, card.move(3, 4), 14)
            fill_round_rect(surface, face, card, 14)
            pygame.draw.rect(surface, edge, card, 4, border_radius=14)
        draw_text(surface, self.text, self.text_box(self.rect, self.flat), self.size,
                  theme.TEXT_DARK, True, lines=self.LINES, min_size=self.min_size)


@dataclass(eq=False)
class OpenSign(Widget):
    """The starting player token, as a café door sign: OPEN (green) or CLOSED (red)."""
    is_open: bool = True
    text: str = "OPEN"
    size: int = 24

    def paint(self, surface):
        r = self.rect
        face = theme.OPEN_GREEN if self.is_open else theme.CLOSED_RED
        # the sign hangs from a string, like a shop door sign
        hook = (r.centerx, r.y + 2)
        board = pygame.Rect(r.x, r.y + r.h // 5, r.w, r.h - r.h // 5)
        draw_lines(surface, theme.TEXT_DIM, False, [hook, (board.x + board.w // 4, board.y)], 3)
        draw_lines(surface, theme.TEXT_DIM, False, [hook, (board.right - board.w // 4, board.y)],
                   3)
        pygame.draw.circle(surface, theme.TEXT_DIM, hook, 3)
        fill_round_rect(surface, face, board, board.h // 4)
        pygame.draw.rect(surface, theme.TEXT, board.inflate(-6, -6), 2,
                         border_radius=board.h // 4)
        draw_text(surface, self.text, board.inflate(-board.h // 2, -8), self.size, theme.TEXT,
                  True, tight=True)


def draw_ingredient(surface: pygame.Surface, ingredient: str, center: tuple[int, int],
                    radius: int, letters: str | None = None) -> None:
    """An ingredient token: a coloured disc with the ingredient's initials."""
    color, _ = theme.INGREDIENTS.get(ingredient, (theme.UNKNOWN_INGREDIENT, "?"))
    pygame.draw.circle(surface, color, center, radius)
    pygame.draw.circle(surface, theme.TEXT_DARK, center, radius, max(1, radius // 8))
    if radius >= 9:
        box = pygame.Rect(0, 0, round(radius * 1.5), round(radius * 1.3))
        box.center = center
        draw_text(surface, letters or ingredient_letters(ingredient), box, round(radius * 1.05),
                  theme.readable_on(color), True, min_size=6)


def draw_token_icon(surface: pygame.Surface, token: str, rect: pygame.Rect) -> None:
    """A rush token (a lightning disc) or a cookie (a dotted biscuit)."""
    c = rect.center
    r = max(4, min(rect.w, rect.h) // 2 - 1)
    if token == "cookie":
        pygame.draw.circle(surface, theme.COOKIE, c, r)
        pygame.draw.circle(surface, theme.COOKIE_EDGE, c, r, max(1, r // 6))
        for dx, dy in ((-0.35, -0.3), (0.3, -0.2), (-0.1, 0.35), (0.35, 0.3), (-0.4, 0.15)):
            pygame.draw.circle(surface, theme.COOKIE_CHIP,
                               (c[0] + round(dx * r), c[1] + round(dy * r)), max(1, r // 6))
    else:
        pygame.draw.circle(surface, theme.RUSH_TOKEN, c, r)
        pygame.draw.circle(surface, theme.RUSH_TOKEN_EDGE, c, r, max(1, r // 6))
        bolt = [(0.15, -0.75), (-0.35, 0.1), (0.0, 0.1), (-0.15, 0.75), (0.35, -0.1), (0.0, -0.1)]
        pygame.draw.polygon(surface, theme.RUSH_TOKEN_BOLT,
                            [(c[0] + round(x * r), c[1] + round(y * r)) for x, y in bolt])


def draw_like(surface, rect: pygame.Rect, like: bool = True) -> None:
    """A like card (green, with a heart) or a dislike card (red, with a cross)."""
    c = rect.center
    r = max(4, min(rect.w, rect.h) // 2 - 1)
    color = theme.OK if like else theme.DANGER
    card = pygame.Rect(0, 0, round(r * 1.5), round(r * 2))
    card.center = c
    fill_round_rect(surface, color, card, max(2, r // 4))
    pygame.draw.rect(surface, theme.TEXT, card, max(1, r // 7), border_radius=max(2, r // 4))
    k = max(2, card.w // 5)
    cx, cy = card.center
    if like:
        lobe = max(2, round(k * 0.95))
        pygame.draw.circle(surface, theme.TEXT, (cx - lobe + 1, cy - k // 2), lobe)
        pygame.draw.circle(surface, theme.TEXT, (cx + lobe - 1, cy - k // 2), lobe)
        pygame.draw.polygon(surface, theme.TEXT, [(cx - 2 * lobe + 1, cy - k // 3),
                                                  (cx + 2 * lobe - 1, cy - k // 3),
                                                  (cx, cy + round(k * 1.6))])
    else:
        w = max(2, r // 4)
        draw_lines(surface, theme.TEXT, False, [(cx - k, cy - k), (cx + k, cy + k)], w)
        draw_lines(surface, theme.TEXT, False, [(cx - k, cy + k), (cx + k, cy - k)], w)


def draw_upgrade_icon(surface, rect: pygame.Rect, active: bool = True) -> None:
    """An upgrade tile: a square with an up arrow, filled when activated."""
    r = pygame.Rect(0, 0, min(rect.w, rect.h) - 2, min(rect.w, rect.h) - 2)
    r.center = rect.center
    color = theme.UPGRADE_ICON
    if active:
        fill_round_rect(surface, color, r, max(2, r.w // 6))
    pygame.draw.rect(surface, theme.TEXT, r, max(1, r.w // 10), border_radius=max(2, r.w // 6))
    cx, top, bottom = r.centerx, r.y + r.h // 5, r.bottom - r.h // 5
    w = r.w // 4
    pygame.draw.polygon(surface, theme.TEXT, [(cx, top), (cx - w, top + w), (cx + w, top + w)])
    draw_lines(surface, theme.TEXT, False, [(cx, top + w), (cx, bottom)], max(2, r.w // 8))


@dataclass(eq=False)
class Stat(Widget):
    """An icon and a number side by side: likes, dislikes, tokens, upgrades."""
    icon: str = "like"           # "like", "dislike", "rush_token", "cookie", "upgrade",
    #                              "cake_card"
    value: str = "0"
    size: int = 26
    color: Color = theme.TEXT
    tight: bool = False          # the number placed by its ink (big type in a short row)

    def paint(self, surface):
        r = self.rect
        icon = pygame.Rect(r.x, r.y, min(r.h, r.w // 2), r.h)
        if self.icon in ("like", "dislike"):
            draw_like(surface, icon.inflate(-2, -4), self.icon == "like")
        elif self.icon == "upgrade":
            draw_upgrade_icon(surface, icon.inflate(-4, -6))
        elif self.icon == "cake_card":
            from .cakes import draw_cake_card      # cakes.py builds on this module
            draw_cake_card(surface, icon.inflate(-2, -2))
        else:
            draw_token_icon(surface, self.icon, icon.inflate(-4, -4))
        box = pygame.Rect(icon.right + 2, r.y, r.right - icon.right - 2, r.h)
        draw_text(surface, self.value, box, self.size, self.color, True, align="left",
                  tight=self.tight)


@dataclass(eq=False)
class OrderCard(Widget):
    """One order position of a player's queue with the cards in it.

    ``cards``: one entry per card, oldest first: ``(drink, recipe, specialty)``
    for a card the catalog knows, or None for a card not identified yet ("?").
    ``position`` is 1..4; position 4 is drawn urgent (red edge and number).
    ``compact``: the small version for the other players' panels.
    """
    position: int = 1
    cards: tuple = ()
    compact: bool = False
    size: int = 18
    seat_color: Color = theme.PANEL_LINE
    highlight: bool = False     # an order was just completed here: a green frame and a tick
    urgent_size: int = 0        # position 4: how many cards, in this big type (0 = no)

    shows_pressed = True

    def paint(self, surface):
        for _ in self.paint_steps(surface):
            pass

    def paint_steps(self, surface):
        """The slot, its numbers (position 4's count in big type apart), the top card's
        pictures, its name, the count over a small card: parts (an order card's first paint
        was the longest step painted ahead)."""
        yield from self._paint(surface)
        if self.highlight:
            r = self.rect
            rounded(surface, r, 8, (theme.OK, max(4, r.w // 14)))    # (copied once drawn twice)
            side = max(12, min(r.w, r.h) // 2)
            tick = pygame.Rect(0, 0, side, side)
            tick.center = r.center
            pygame.draw.circle(surface, theme.OK, tick.center, side // 2)
            draw_lines(surface, theme.TEXT, False,
                       [(tick.x + side * 0.25, tick.y + side * 0.52),
                        (tick.x + side * 0.43, tick.y + side * 0.7),
                        (tick.x + side * 0.75, tick.y + side * 0.32)], max(3, side // 8))
        if self._big_count() and self.compact:
            # what is about to be missed, readable from every seat: over the small card
            yield
            r = self.rect
            side = min(r.h, max(self.urgent_size, r.w * 2 // 3))
            badge = pygame.Rect(0, 0, min(r.w, side), side)
            badge.center = r.center
            yield from text_steps(*self._count_text(badge), self.urgent_size, True, tight=True)
            self._count(surface, badge)

    def _big_count(self) -> bool:
        return self.position == 4 and bool(self.cards) and self.urgent_size > 0

    def _count(self, surface, badge: pygame.Rect) -> None:
        """How many cards are in position 4, in must-read type: red digits on a light
        badge with a red edge (white on red read as the dislike icon, a red card with a
        white cross)."""
        global _owner
        _owner = f"{self.name}.count"
        rounded(surface, badge, 8, (theme.TOAST, 0), (theme.URGENT, 3))
        draw_text(surface, *self._count_text(badge), self.urgent_size, theme.URGENT, True,
                  tight=True)
        _owner = self.name

    def _count_text(self, badge: pygame.Rect) -> tuple[str, pygame.Rect]:
        """The count ``_count`` draws in ``badge``, and the box it fits."""
        return (f"×{len(self.cards)}" if badge.w > badge.h * 3 // 2 else str(len(self.cards)),
                badge.inflate(-2, -2))

    def _paint(self, surface) -> Iterator[None]:
        r = self.rect
        urgent = self.position == 4
        self._slot(surface, r, urgent)
        num_color = theme.URGENT if urgent and not self.cards else (
            theme.TEXT if urgent else theme.TEXT_DIM)
        if self.compact:
            yield from self._paint_compact(surface, r, num_color)
            return
        if self._big_count():
            yield                       # (its count in big type: a part of its own)
        yield from self._badge_steps(r)
        badge = self._badge(surface, r, num_color)
        if self.cards:
            yield
            yield from self._fan(surface, r, badge)

    def _slot(self, surface, r: pygame.Rect, urgent: bool) -> None:
        """The slot itself: position 4 (the next to fall) tinted urgent, more if it holds cards."""
        if urgent and self.cards:
            slot_color = theme.mix(theme.PANEL, theme.URGENT, 0.55)
        elif urgent:
            slot_color = theme.mix(theme.PANEL_DIM, theme.URGENT, 0.15)
        else:
            slot_color = theme.PANEL_DIM
        edge = theme.URGENT if urgent else theme.PANEL_LINE
        layers: tuple[tuple[Color, int], ...] = (
            (tuple(slot_color), 0), (edge, 3 if urgent and self.cards else 2))
        if self.pressed:
            layers += ((theme.TEXT, 4),)
        rounded(surface, r, 8, *layers)

    def _badge(self, surface, r: pygame.Rect, num_color) -> pygame.Rect:
        """The position number and the card count along the top; returns where they are."""
        badge, number, count = self._badge_boxes(r)
        badge_h = badge.h
        if self._big_count():
            draw_text(surface, str(self.position), number, badge_h // 2, num_color, True)
            self._count(surface, count)
        else:
            draw_text(surface, str(self.position), badge, badge_h, num_color, True,
                      align="left" if self.cards else "center")
        if len(self.cards) > 1 and not self._big_count():
            draw_text(surface, f"×{len(self.cards)}", self._count_box(badge), badge_h,
                      theme.TEXT, True, align="right")
        return badge

    def _badge_steps(self, r: pygame.Rect) -> Iterator[None]:
        """What ``_badge`` draws, fitted ahead (a type size opened or tried per step)."""
        if self._big_count():
            yield from font_steps(self.urgent_size, True)     # (its ink sets the band)
        badge, number, count = self._badge_boxes(r)
        if self._big_count():
            yield                       # (the band's height measured: the count's ink)
            yield from text_steps(str(self.position), number, badge.h // 2, True)
            yield from text_steps(*self._count_text(count), self.urgent_size, True, tight=True)
            return
        yield from text_steps(str(self.position), badge, badge.h, True)
        if len(self.cards) > 1:
            yield from text_steps(f"×{len(self.cards)}", self._count_box(badge), badge.h, True)

    @staticmethod
    def _count_box(badge: pygame.Rect) -> pygame.Rect:
        return pygame.Rect(badge.right - badge.w // 2, badge.y, badge.w // 2, badge.h)

    def _badge_boxes(self, r: pygame.Rect) -> tuple[pygame.Rect, pygame.Rect, pygame.Rect]:
        """Where ``_badge`` draws: the band along the top, and with a big count its two
        columns (the position number, the count; else the band twice)."""
        badge_h = max(14, r.h // 6)
        if self._big_count():     # the count on top, big; the card stays readable below
            badge_h = max(badge_h, ink_rect("×0", self.urgent_size, True).h + 8)
        badge = pygame.Rect(r.x + 5, r.y + 3, r.w - 10, badge_h)
        if self._big_count():
            return (badge, *cols_of(badge, min(badge.w // 3, badge_h)))
        return badge, badge, badge

    def _fan(self, surface, r: pygame.Rect, badge: pygame.Rect) -> Iterator[None]:
        """The cards fan out: earlier cards peek out above the newest one."""
        shown = self.cards[-3:]
        for i, card in enumerate(shown):
            c = self._fanned(r, badge, i, len(shown))
            yield from self._card(surface, c, card, top=(i == len(shown) - 1))

    @staticmethod
    def _fanned(r: pygame.Rect, badge: pygame.Rect, i: int, shown: int) -> pygame.Rect:
        """Where card ``i`` of the ``shown`` fanned out (the newest last, in front) is."""
        area = pygame.Rect(r.x + 4, badge.bottom + 2, r.w - 8, r.bottom - badge.bottom - 6)
        peek = max(4, area.h // 14)
        depth = shown - 1 - i
        c = pygame.Rect(area.x + depth * 2, area.y, area.w - depth * 2,
                        area.h - (shown - 1) * peek)
        c.y = area.y + i * peek
        return c

    def card_ahead(self, card: tuple) -> Iterator[None]:
        """The text painting ``card`` (``(drink, recipe, specialty)``) as this slot's newest
        card would draw, fitted and rendered ahead in steps, nothing painted: a card the
        scanner may name next (``TableView``'s cards ahead). A scanned card's first paint
        tried its name at several type sizes, measuring it at each (the glyphs loaded and
        hinted at each size), and rendered it and its ingredients' initials: 1.5-2.6 M
        instructions of a scan's 4-5.3 M at 800 x 480 (issue 38)."""
        if not self.cards:
            return
        if self.compact:
            c = self.rect.inflate(-6, -6)
        else:
            c = self._fanned(self.rect, self._badge_boxes(self.rect)[0],
                             min(len(self.cards), 3) - 1, min(len(self.cards), 3))
        face = self._face(c, card)
        if face.radius >= 9:
            for ing in card[1]:
                color, _ = theme.INGREDIENTS.get(ing, (theme.UNKNOWN_INGREDIENT, "?"))
                yield from draw_text_steps(ingredient_letters(ing), face.letters_box,
                                           round(face.radius * 1.05), theme.readable_on(color),
                                           True, min_size=6)
        if face.name_box is not None:
            yield from draw_text_steps(card[0], face.name_box, face.name_box.h,
                                       theme.TEXT_DARK, True, min_size=9)

    def _face(self, c: pygame.Rect, card: tuple) -> _CardFace:
        """Where the top card ``c`` shows ``card``'s parts (as ``_card`` draws them)."""
        drink, recipe, specialty = card
        ribbon = None
        if specialty:
            ribbon = pygame.Rect(c.right - max(8, c.w // 7), c.y, max(8, c.w // 7), c.h)
            c = pygame.Rect(c.x, c.y, c.w - ribbon.w, c.h)
        n = len(recipe)
        if self.compact:
            icons = pygame.Rect(c.x + 2, c.y + 2, c.w - 4, c.h - 4)
            name_box = None
        else:
            name_h = max(12, c.h // 4)
            name_box = pygame.Rect(c.x + 4, c.y + 2, c.w - 8, name_h)
            icons = pygame.Rect(c.x + 2, name_box.bottom, c.w - 4, c.bottom - name_box.bottom - 2)
        per_row = 2 if n > 2 or icons.h > icons.w else n
        rows_n = (n + per_row - 1) // per_row
        cell_w = icons.w / max(1, per_row)
        cell_h = icons.h / max(1, rows_n)
        radius = max(3, int(min(cell_w, cell_h) / 2) - 2)
        centers = []
        for i in range(n):
            row, col = divmod(i, per_row)
            in_row = min(per_row, n - row * per_row)
            x = icons.x + (icons.w - in_row * cell_w) / 2 + (col + 0.5) * cell_w
            y = icons.y + (row + 0.5) * cell_h
            centers.append((round(x), round(y)))
        return _CardFace(ribbon, name_box, radius, centers,
                         pygame.Rect(0, 0, round(radius * 1.5), round(radius * 1.3)))

    def _paint_compact(self, surface, r: pygame.Rect, num_color) -> Iterator[None]:
        """Small slot: the newest card fills it; position number and count in the corners."""
        if not self.cards:
            draw_text(surface, str(self.position), r.inflate(-6, -6), min(r.h - 8, self.size),
                      num_color, True)
            return
        c = r.inflate(-6, -6)
        yield from self._card(surface, c, self.cards[-1], top=True)
        tag_h = max(12, min(r.h // 2, self.size))
        if len(self.cards) > 1:
            badge = pygame.Rect(0, 0, tag_h * 2, tag_h)
            badge.bottomright = (r.right - 1, r.bottom - 1)
            yield from text_steps(f"×{len(self.cards)}", badge.inflate(-2, 0), tag_h - 2, True,
                                  min_size=7)
            fill_round_rect(surface, theme.TEXT_DARK, badge, tag_h // 2)
            draw_text(surface, f"×{len(self.cards)}", badge.inflate(-2, 0), tag_h - 2,
                      theme.TEXT, True, min_size=7)

    def _card(self, surface, c: pygame.Rect, card, top: bool) -> Iterator[None]:
        """One card of the fan; the top one shows its recipe, then (parts of their own: the
        sizes its name is tried at) its name."""
        paper = theme.CARD if card is not None else theme.CARD_UNKNOWN
        rounded(surface, c, 6, (paper, 0), (theme.CARD_EDGE, 2))
        if not top:
            return
        if card is None:
            # its big "?" fitted, then rendered, each a part of its own (both in one part
            # were 3.4 M at 1280 x 800, issue 38)
            yield from draw_text_steps("?", c.inflate(-4, -4), round(c.h * 0.7),
                                       theme.TEXT_DARK, True, min_size=8)
            draw_text(surface, "?", c.inflate(-4, -4), round(c.h * 0.7), theme.TEXT_DARK, True,
                      min_size=8)
            return
        face = self._face(c, card)
        drink, recipe, _ = card
        if face.ribbon is not None:
            pygame.draw.rect(surface, theme.SPECIALTY, face.ribbon, border_top_right_radius=6,
                             border_bottom_right_radius=6)
        radius = face.radius
        if radius >= 9:                 # (the initials draw_ingredient writes, fitted ahead)
            for ing in recipe:
                yield from text_steps(ingredient_letters(ing), face.letters_box,
                                      round(radius * 1.05), True, min_size=6)
        for ing, center in zip(recipe, face.centers, strict=True):
            draw_ingredient(surface, ing, center, radius)
        if face.name_box is not None:
            yield
            yield from text_steps(drink, face.name_box, face.name_box.h, True, min_size=9)
            draw_text(surface, drink, face.name_box, face.name_box.h, theme.TEXT_DARK, True,
                      min_size=9)


class _CardFace(NamedTuple):
    """Where an order card's parts go (``OrderCard._face``)."""
    ribbon: pygame.Rect | None          # the specialty's ribbon, if it is one
    name_box: pygame.Rect | None        # the drink's name (None: a small card has none)
    radius: int                         # each ingredient's disc
    centers: list[tuple[int, int]]      # the discs' centres, in the recipe's order
    letters_box: pygame.Rect            # the box an ingredient's initials fit


def draw_seat_token(surface: pygame.Surface, rect: pygame.Rect, seat: int, color: Color) -> None:
    """Seat ``seat`` (0-based) as its shape in its colour with its number inside: seats
    are told apart by number and shape, not by colour alone (colour_vision.SEAT_SHAPES)."""
    box, shape, inner = _seat_token_parts(rect, seat)
    side = box.w
    edge = max(2, side // 14)
    if shape == "circle":
        pygame.draw.circle(surface, color, box.center, side // 2)
        pygame.draw.circle(surface, theme.TEXT, box.center, side // 2, edge)
    elif shape == "square":
        sq = box.inflate(-side // 10, -side // 10)
        fill_round_rect(surface, color, sq, side // 10)
        pygame.draw.rect(surface, theme.TEXT, sq, edge, border_radius=side // 10)
    else:
        if shape == "triangle":
            pts = [(box.centerx, box.y), (box.right, box.bottom), (box.x, box.bottom)]
        else:
            pts = [(box.centerx, box.y), (box.right, box.centery), (box.centerx, box.bottom),
                   (box.x, box.centery)]
        pygame.draw.polygon(surface, color, pts)
        pygame.draw.polygon(surface, theme.TEXT, pts, edge)
    draw_text(surface, str(seat + 1), inner, max(8, inner.h), theme.readable_on(color), True,
              min_size=6)


def seat_token_steps(rect: pygame.Rect, seat: int) -> Iterator[None]:
    """The fit of a seat token's number worked out ahead, a step per type size tried
    (``text_steps``): each size's first use opens its font, about 1.8 M instructions, and
    a token's first paint, tried at two or three, was a 5.8 M step painted ahead."""
    inner = _seat_token_parts(rect, seat)[2]
    return text_steps(str(seat + 1), inner, max(8, inner.h), True, min_size=6)


def _seat_token_parts(rect: pygame.Rect, seat: int) -> tuple[pygame.Rect, str, pygame.Rect]:
    """A seat token's square (centred in ``rect``), its shape, and the box of its number."""
    from companion.core.colour_vision import SEAT_SHAPES
    side = min(rect.w, rect.h)
    box = pygame.Rect(0, 0, side, side)
    box.center = rect.center
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    if shape == "circle":
        inner = box.inflate(-side // 4, -side // 4)
    elif shape == "square":
        inner = box.inflate(-side // 10, -side // 10).inflate(-side // 5, -side // 5)
    elif shape == "triangle":
        inner = pygame.Rect(box.x + side // 4, box.y + side * 2 // 5, side // 2, side // 2)
    else:
        inner = box.inflate(-side // 3, -side // 3)
    return box, shape, inner


def cols_of(rect: pygame.Rect, first: int) -> tuple[pygame.Rect, pygame.Rect]:
    """``rect`` cut in two side by side: ``first`` pixels, then the rest."""
    return (pygame.Rect(rect.x, rect.y, first, rect.h),
            pygame.Rect(rect.x + first, rect.y, rect.w - first, rect.h))


@dataclass(eq=False)
class Custom(Widget):
    """A widget painted by a function ``paint_fn(surface, rect)``; ``data`` is its key.
    ``steps_fn(rect)``: what its paint can work out ahead, in steps (``paint_steps``)."""
    data: Any = None
    paint_fn: Callable[[pygame.Surface, pygame.Rect], None] | None = field(
        default=None, compare=False, repr=False)
    steps_fn: Callable[[pygame.Rect], Iterable[None]] | None = field(
        default=None, compare=False, repr=False)

    @property
    def shows(self) -> bool:
        return self.paint_fn is not None

    def paint(self, surface):
        if self.paint_fn is not None:
            self.paint_fn(surface, self.rect)

    def paint_steps(self, surface):
        if self.steps_fn is not None and self.paint_fn is not None:
            yield from self.steps_fn(self.rect)
        self.paint(surface)


#: widgets kept as copies (``Looks``): each paints only inside its rect, from its fields
#: (a Fill is copied already by ``rounded``; the OPEN sign's string reaches above its rect)
_KEPT: set[type] = {Label, Button, Stat, OrderCard}


def keep_looks(kind: type) -> type:
    """A class decorator: widgets of ``kind`` are kept as copies too (see ``_KEPT``)."""
    _KEPT.add(kind)
    return kind


@dataclass(eq=False)
class Stepper(Widget):
    """``-  value  +`` for counts (tokens to spend, corrections). Taps call on_change(delta)."""
    value: int = 0
    size: int = 28
    low: int = 0
    high: int = 99
    label: str = ""

    def paint(self, surface):
        r = self.rect
        fill_round_rect(surface, theme.PANEL_DIM, r, 10)
        value_box = pygame.Rect(r.x + r.h, r.y, r.w - 2 * r.h, r.h)
        draw_text(surface, str(self.value), value_box, self.size, theme.TEXT, True)


def stepper_buttons(name: str, rect: pygame.Rect, value: int, low: int, high: int,
                    on_change: Callable[[int], None], size: int) -> list[Widget]:
    """A Stepper with its two buttons: ``[-]`` at the left end, ``[+]`` at the right end."""
    side = rect.h
    minus = pygame.Rect(rect.x, rect.y, side, rect.h)
    plus = pygame.Rect(rect.right - side, rect.y, side, rect.h)
    return [
        Stepper(name, rect, value=value, size=size, low=low, high=high),
        Button(name + ".minus", minus, text="−", size=size, enabled=value > low,
               on_tap=lambda: on_change(-1)),
        Button(name + ".plus", plus, text="+", size=size, enabled=value < high,
               on_tap=lambda: on_change(+1)),
    ]
