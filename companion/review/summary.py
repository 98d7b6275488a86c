"""A finished game on one page, PNG or PDF: who won and why, the score chart round by
round and the turning points (``companion.review.story``), in the players' language.

``coffee-companion history --export GAME --summary PATH.pdf|.png`` writes it, and the
phone view's finished-game page offers both as downloads.

One layout (``_Page``) draws on either of two canvases. The PNG is drawn with pygame, as
the touchscreen is (the same chart painter, ``story_chart``, in print colours): an A4
page at 150 dots per inch (1240 x 1754). The PDF is written by fpdf2 on one A4 page in
the same places (a picture dot is 72/150 of a point): its words are text, in the
project's fonts embedded as TrueType (``words.fonts``: DejaVu for Latin letters, Nanum
or Noto for Hangul, chained as fpdf2's fallback fonts), so a Korean page can be
selected, searched and read aloud; only the chart's plot and the seats' shapes are
pictures (pygame's, the screen's painter).

Its fonts are its own (a ``FontBook`` of this module), not the screen's: the phone view
draws a page on its own thread while the screen draws on the main thread; one lock
lets one page be drawn at a time.
"""
from __future__ import annotations

import io
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pygame

from . import exports
from companion.core.journal import GameRecord, Journal
from companion.core.rules.engine import NO_SPECIALTIES
from companion.core.rules.scoring import ranking, tie_break, winners
from companion.core.rules.state import Game, Table
from companion.core.seat_colours import SCREEN_RGB, screen_rgb, shown_names
from companion.core.session import rebuild
from .story import Story, story_of
from .story_words import point_text, round_text
from companion.words.fonts import ChainFont, FontBook, has_hangul
from companion.words.i18n import names_list, token_name, tr, tr_count
from companion.core.colour_vision import SEAT_SHAPES
from .story_chart import ChartLook, draw_shape, paint_chart

if TYPE_CHECKING:         # fpdf2 loads with the first PDF, not with the service's start
    from fpdf import FPDF

FORMATS = ("png", "pdf")
PAGE = (1240, 1754)                    # A4 at 150 dpi
A4_PT = (595.28, 841.89)
PT = A4_PT[0] / PAGE[0]                # points per picture dot (72 / 150)
MARGIN = 80

PAPER = (255, 255, 255)
INK = (30, 26, 24)
DIM = (96, 88, 82)
GRID = (214, 208, 200)
PANEL = (246, 242, 236)
FLAG = (236, 170, 20)
ROUND_INK = (150, 96, 0)

_lock = threading.Lock()
_book: FontBook | None = None


class SummaryError(exports.ExportError):
    """The game has no summary (still running, or its lines do not replay)."""


class _Wrapping:
    """Lines of a paragraph, broken at spaces (and inside a word too long for a line)."""

    def width(self, text: str, size: int, bold: bool = False) -> int:
        raise NotImplementedError

    def lines(self, text: str, size: int, width: int, bold: bool = False) -> list[str]:
        out: list[str] = []
        line = ""
        for word in text.split(" "):
            trial = word if not line else line + " " + word
            if self.width(trial, size, bold) <= width:
                line = trial
                continue
            if line:
                out.append(line)
            line = ""
            for ch in word:
                if self.width(line + ch, size, bold) <= width or not line:
                    line += ch
                else:
                    out.append(line)
                    line = ch
        if line:
            out.append(line)
        return out


@dataclass
class _Pen(_Wrapping):
    """Text on the page with this module's fonts: one line shrunk to fit its box, or a
    paragraph wrapped at spaces (and inside a word too long for a line)."""
    book: FontBook

    def font(self, size: int, bold: bool = False) -> ChainFont:
        return self.book.font(size, bold)

    def width(self, text: str, size: int, bold: bool = False) -> int:
        return self.font(size, bold).size(text)[0]

    def linesize(self, size: int) -> int:
        return self.font(size).get_linesize()

    def write(self, surface, text, box, size, color, bold=False, align="center"):
        box = pygame.Rect(box)
        s = size
        while s > 8 and (self.width(text, s, bold) > box.w
                         or self.font(s, bold).get_height() > box.h):
            s -= 1
        img = self.font(s, bold).render(text, True, color)
        r = img.get_rect()
        r.centery = box.centery
        if align == "left":
            r.x = box.x
        elif align == "right":
            r.right = box.right
        else:
            r.centerx = box.centerx
        surface.blit(img, r)
        return r

    def paragraph(self, surface, text: str, x: int, y: int, width: int, size: int,
                  color, bold: bool = False) -> int:
        """Draw ``text`` wrapped at ``width`` from (x, y); the height it took."""
        f = self.font(size, bold)
        step = f.get_linesize()
        lines = self.lines(text, size, width, bold)
        for n, line in enumerate(lines):
            surface.blit(f.render(line, True, color), (x, y + n * step))
        return step * max(1, len(lines))


class _PdfPen(_Wrapping):
    """``_Pen`` on a PDF page (fpdf2): the same boxes in picture dots, the words as text
    in the page's embedded fonts (Latin first, the Hangul face as fpdf2's fallback)."""

    def __init__(self, doc: FPDF):
        self.doc = doc

    def _set(self, size: int, bold: bool) -> None:
        self.doc.set_font("latin", "B" if bold else "", size * PT)

    def width(self, text: str, size: int, bold: bool = False) -> int:
        self._set(size, bold)
        return round(self.doc.get_string_width(text) / PT)

    def linesize(self, size: int) -> int:
        return round(size * 1.17)      # DejaVu's line (as pygame's get_linesize says)

    def _cell(self, text: str, x: float, y: float, w: float, size: int, color,
              bold: bool, align: str) -> None:
        self._set(size, bold)
        self.doc.set_text_color(*color[:3])
        self.doc.set_xy(x * PT, y * PT)
        self.doc.cell(w * PT, self.linesize(size) * PT, text,
                      align={"left": "L", "right": "R"}.get(align, "C"))

    def write(self, surface, text, box, size, color, bold=False, align="center"):
        box = pygame.Rect(box)
        s = size
        while s > 8 and (self.width(text, s, bold) > box.w or self.linesize(s) > box.h):
            s -= 1
        h = self.linesize(s)
        self._cell(text, box.x, box.centery - h / 2, box.w, s, color, bold, align)
        return pygame.Rect(box.x, box.centery - h // 2, box.w, h)

    def paragraph(self, surface, text: str, x: int, y: int, width: int, size: int,
                  color, bold: bool = False) -> int:
        step = self.linesize(size)
        lines = self.lines(text, size, width, bold)
        for n, line in enumerate(lines):
            self._cell(line, x, y + n * step, width, size, color, bold, "left")
        return step * max(1, len(lines))


class _Canvas:
    """Where ``_Page`` draws: a pygame surface (the PNG)."""

    def __init__(self, surface: pygame.Surface, pen: _Pen | _PdfPen):
        self.surface, self.pen = surface, pen

    def box(self, rect: pygame.Rect, colour, radius: int, edge: int = 0) -> None:
        pygame.draw.rect(self.surface, colour, rect, edge, border_radius=radius)

    def dot(self, center: tuple[int, int], radius: int, colour) -> None:
        pygame.draw.circle(self.surface, colour, center, radius)

    def picture(self, rect: pygame.Rect,
                paint: Callable[[pygame.Surface, pygame.Rect], None]) -> None:
        """What pygame paints in ``rect`` (the chart's plot, a seat's shape)."""
        paint(self.surface, rect)


class _PdfCanvas(_Canvas):
    """``_Canvas`` on a PDF page: boxes and dots as vector shapes, pictures as PNG images."""

    def __init__(self, doc: FPDF, pen: _PdfPen):
        super().__init__(pygame.Surface((1, 1)), pen)
        self.doc = doc

    def box(self, rect: pygame.Rect, colour, radius: int, edge: int = 0) -> None:
        d = self.doc
        if edge:
            d.set_draw_color(*colour[:3])
            d.set_line_width(edge * PT)
            half = edge / 2                 # pygame draws the edge inside the rect
            x, y, w, h = rect.x + half, rect.y + half, rect.w - edge, rect.h - edge
        else:
            d.set_fill_color(*colour[:3])
            x, y, w, h = rect
        d.rect(x * PT, y * PT, w * PT, h * PT, style="D" if edge else "F",
               round_corners=radius > 0, corner_radius=radius * PT)

    def dot(self, center: tuple[int, int], radius: int, colour) -> None:
        self.doc.set_fill_color(*colour[:3])
        self.doc.circle(center[0] * PT, center[1] * PT, radius * PT, style="F")

    def picture(self, rect: pygame.Rect,
                paint: Callable[[pygame.Surface, pygame.Rect], None]) -> None:
        layer = pygame.Surface(rect.size, pygame.SRCALPHA)
        paint(layer, pygame.Rect((0, 0), rect.size))
        self.doc.image(io.BytesIO(png(layer)), rect.x * PT, rect.y * PT, rect.w * PT,
                       rect.h * PT)


def _fonts_alive() -> None:
    """pygame.font ready, and no font kept from before a ``pygame.font.quit()`` (one used
    again crashes the process): the screen closing, or a test, may have quit it."""
    if not pygame.font.get_init():
        pygame.font.init()
        if _book is not None:
            _book.clear()


def _pen() -> _Pen:
    global _book
    if _book is None:
        _book = FontBook()
    return _Pen(_book)


# --- the page --------------------------------------------------------------------------

def finished_table(journal: Journal, game_id: int) -> tuple[GameRecord, Table]:
    """The game's record and its table as its lines rebuild it (over, or SummaryError)."""
    game = exports.record(journal, game_id)
    rebuilt = rebuild(journal.lines(game_id), NO_SPECIALTIES, game.rules)
    if rebuilt.failed_at is not None:
        raise SummaryError(f"game {game_id}'s {rebuilt.problem}")
    if rebuilt.table.game is None or not rebuilt.table.game.game_over:
        raise SummaryError(f"game {game_id} is not over yet: its summary is made once it ends")
    return game, rebuilt.table


def _story(record: GameRecord, table: Table) -> tuple[Game, Story]:
    game = table.game
    story = story_of(table)
    if game is None or story is None:
        raise SummaryError(f"game {record.id} has no table to summarize")
    return game, story


def draw_page(record: GameRecord, table: Table, lang: str) -> pygame.Surface:
    """The whole page as a picture."""
    game, story = _story(record, table)
    with _lock:
        _fonts_alive()
        pen = _pen()
        surface = pygame.Surface(PAGE)
        _Page(record, game, story, lang, _Canvas(surface, pen), pen).draw()
        return surface


def pdf_page(record: GameRecord, table: Table, lang: str) -> bytes:
    """The whole page as a PDF with its words as text (fpdf2, the fonts embedded)."""
    from fpdf import FPDF

    game, story = _story(record, table)
    with _lock:
        _fonts_alive()
        pen = _pen()
        files = pen.book.files
        doc = FPDF(unit="pt", format="A4")
        doc.set_auto_page_break(False)
        doc.set_margin(0)
        doc.set_title(tr(lang, "story.summary_title", game=record.id))
        doc.set_producer("coffee-companion")
        doc.set_creation_date(_created(record))
        if files.latin is None:
            raise SummaryError("no DejaVu Sans font to write the PDF with "
                               "(Debian: sudo apt install fonts-dejavu-core)")
        doc.add_font("latin", "", files.latin)
        doc.add_font("latin", "B", files.latin_bold or files.latin)
        # the Hangul faces (4 MB each, parsed whole by fontTools) only for a page with Hangul
        if files.hangul is not None and (lang == "ko" or any(has_hangul(name) for name in
                                                             story.players)):
            doc.add_font("hangul", "", files.hangul)
            doc.add_font("hangul", "B", files.hangul_bold or files.hangul)
            doc.set_fallback_fonts(["hangul"], exact_match=False)
        doc.add_page()
        text = _PdfPen(doc)
        _Page(record, game, story, lang, _PdfCanvas(doc, text), pen).draw()
        return bytes(doc.output())


def _created(record: GameRecord):
    """The game's start as the PDF's date (the same game, the same file)."""
    from datetime import UTC, datetime
    try:
        when = datetime.fromisoformat(record.started_at.replace("Z", "+00:00"))
    except ValueError:
        return datetime(2000, 1, 1, tzinfo=UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


class _Page:
    """The layout, in picture dots (1240 x 1754), on a canvas (``_Canvas``: the PNG's
    surface or the PDF's page); ``paint`` is the pygame pen of the pictures in it."""

    def __init__(self, record: GameRecord, game: Game, story: Story, lang: str,
                 canvas: _Canvas, paint: _Pen):
        names = record.seat_colors or []
        #: the players as people read them in ``lang`` (a seat colour's name follows it)
        self.names = shown_names(lang, [p.name for p in game.players], names)
        self.record, self.game, self.lang = record, game, lang
        self.story = story.named(self.names)
        self.canvas, self.pen, self.paint = canvas, canvas.pen, paint
        rgb = screen_rgb(names) if names else []
        self.colours = list(rgb) + list(SCREEN_RGB[len(rgb):])
        self.surface = canvas.surface
        self.width = PAGE[0] - 2 * MARGIN

    def shown(self, name: str) -> str:
        """A player's name as the page shows it."""
        return self.names.get(name, name)

    def draw(self) -> None:
        s, pen, lang = self.surface, self.pen, self.lang
        self.canvas.box(pygame.Rect((0, 0), PAGE), PAPER, 0)
        y = MARGIN
        pen.write(s, tr(lang, "story.summary_title", game=self.record.id),
                  pygame.Rect(MARGIN, y, self.width, 70), 56, INK, True, "left")
        y += 74
        box = tr(lang, f"edition.{self.record.expansion or self.game.edition}")
        when = self.record.started_at.replace("T", " ")[:16] + " UTC"
        sub = f"{box} · {tr(lang, 'variant.' + self.game.variant)} · {when}"
        pen.write(s, sub, pygame.Rect(MARGIN, y, self.width, 40), 30, DIM, False, "left")
        y += 60
        y = self._winner(y) + 24
        y = self._ranking(y) + 20
        bottom = PAGE[1] - MARGIN - 36
        pen.write(s, tr(lang, "story.summary_footer"), pygame.Rect(MARGIN, bottom, self.width,
                                                                 36), 22, DIM, False, "left")
        points_h = self._points_height()
        chart_bottom = bottom - 24 - points_h
        self._chart(y, chart_bottom)
        self._points(chart_bottom + 24)

    def _winner(self, y: int) -> int:
        ranked = ranking(self.game)
        won = winners(ranked)
        if len(won) == 1:
            seat = self.game.seat_of(won[0]) or 0
            colour = self.colours[seat % len(self.colours)]
            text = tr(self.lang, "end.winner", player=self.shown(won[0]))
        else:
            colour = FLAG
            text = tr(self.lang, "end.shared",
                      players=names_list(self.lang, [self.shown(n) for n in won]))
        band = pygame.Rect(MARGIN, y, self.width, 84)
        self.canvas.box(band, colour, 16)
        self.pen.write(self.surface, text, band.inflate(-32, -12), 52, _ink_on(colour), True)
        return band.bottom

    def _ranking(self, y: int) -> int:
        s, pen, lang, g = self.surface, self.pen, self.lang, self.game
        ranked = ranking(g)
        row_h = 84
        e = g.rules
        for entry in ranked:
            seat = g.seat_of(entry.name) or 0
            p = g.players[seat]
            colour = self.colours[seat % len(self.colours)]
            row = pygame.Rect(MARGIN, y, self.width, row_h - 10)
            self.canvas.box(row, PANEL, 12)
            self.canvas.box(row, colour, 12, 4)
            pen.write(s, tr(lang, "end.place", place=entry.place),
                      pygame.Rect(row.x + 16, row.y, 84, row.h), 44, INK, True, "left")
            self._token(pygame.Rect(row.x + 106, row.y + 9, row.h - 18, row.h - 18), seat, colour)
            name_x = row.x + 106 + row.h
            pen.write(s, self.shown(entry.name), pygame.Rect(name_x, row.y + 4, 420, 40), 36,
                      INK, True, "left")
            parts = [("likes", p.likes, e.like_points),
                     ("upgrades", len(p.upgrades), e.upgrade_points),
                     ("dislikes", p.dislikes, e.dislike_points)]
            detail = "   ".join(
                tr_count(lang, f"end.{part}_part", n, weight=_signed(w), points=_signed(n * w))
                for part, n, w in parts if not (part == "upgrades" and g.variant == "junior"))
            pen.write(s, detail, pygame.Rect(name_x, row.y + 42, row.right - name_x - 240, 28),
                      24, DIM, False, "left")
            pen.write(s, tr_count(lang, "end.points", entry.score),
                      pygame.Rect(row.right - 250, row.y, 234, row.h), 40, INK, True, "right")
            y += row_h
        tokens = token_name(lang, g.edition)
        for better, worse, why in tie_break(ranked):
            y += pen.paragraph(s, tr(lang, f"end.tie_{why}", better=self.shown(better),
                                     worse=self.shown(worse), tokens=tokens),
                               MARGIN, y, self.width, 26, DIM)
        return y

    def _chart(self, top: int, bottom: int) -> None:
        s, pen = self.surface, self.pen
        pen.write(s, tr(self.lang, "story.summary_chart"), pygame.Rect(MARGIN, top, self.width,
                                                                     44), 36, INK, True, "left")
        box = pygame.Rect(MARGIN, top + 52, self.width, bottom - top - 52 - 44)
        if self.story.round_count == 0:
            pen.paragraph(s, tr(self.lang, "story.too_short"), box.x, box.y, box.w, 28, DIM)
            return
        look = ChartLook(text=26, line=6, marker=26, flag=38, background=PANEL, grid=GRID,
                         ink=INK, dim=DIM, outline=INK, flag_color=FLAG)

        def chart(surface: pygame.Surface, rect: pygame.Rect) -> None:
            paint_chart(surface, rect, self.story, self.colours, look, self.paint,
                        [p.round for p in self.story.points])
        self.canvas.picture(box, chart)
        # the key under the chart: each seat's shape, number and name
        x, y = MARGIN, box.bottom + 8
        for seat, name in enumerate(self.story.players):
            colour = self.colours[seat % len(self.colours)]
            self._token(pygame.Rect(x, y, 34, 34), seat, colour)
            w = min(pen.width(name, 26, True), self.width // len(self.story.players) - 60)
            pen.write(s, name, pygame.Rect(x + 42, y, w, 34), 26, INK, True, "left")
            x += 42 + w + 40

    def _token(self, rect: pygame.Rect, seat: int, colour) -> None:
        """A seat's shape in its colour with its number (as the screen's seat token)."""
        side = min(rect.w, rect.h)
        shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]

        def token(surface: pygame.Surface, at: pygame.Rect) -> None:
            draw_shape(surface, shape, at.center, round(side * (0.8 if shape in (
                "triangle", "diamond") else 0.95)), colour, INK, max(2, side // 14))
        self.canvas.picture(rect, token)
        number = rect.inflate(-side // 3, -side // 3)
        if shape == "triangle":
            number = number.move(0, side // 10)
        self.pen.write(self.surface, str(seat + 1), number, max(8, number.h), _ink_on(colour),
                       True)

    def _points_height(self) -> int:
        h = 52
        for p in self.story.points:
            h += max(44, len(self.pen.lines(point_text(self.lang, p), 28,
                                            self.width - 200)) * self.pen.linesize(28)) + 14
        return h

    def _points(self, y: int) -> None:
        s, pen, lang = self.surface, self.pen, self.lang
        pen.write(s, tr(lang, "story.summary_points"), pygame.Rect(MARGIN, y, self.width, 44),
                  36, INK, True, "left")
        y += 52
        for i, p in enumerate(self.story.points, 1):
            c = (MARGIN + 22, y + 22)
            self.canvas.dot(c, 21, FLAG)
            flag = pygame.Rect(0, 0, 42, 42)
            flag.center = c
            pen.write(s, str(i), flag, 30, INK, True)
            pen.write(s, round_text(lang, p), pygame.Rect(MARGIN + 56, y + 4, 134, 36), 26,
                      ROUND_INK, True, "left")
            h = pen.paragraph(s, point_text(lang, p), MARGIN + 200, y + 2, self.width - 200,
                              28, INK)
            y += max(44, h) + 14


def _ink_on(colour) -> tuple[int, int, int]:
    """Ink that reads on ``colour``: dark on a light colour, paper on a dark one."""
    light = sum(c * w for c, w in zip(colour[:3], (0.299, 0.587, 0.114), strict=True)) > 150
    return INK if light else PAPER


def _signed(n: int) -> str:
    return "−" + str(-n) if n < 0 else str(n)


# --- files -----------------------------------------------------------------------------

def png(surface: pygame.Surface) -> bytes:
    buf = io.BytesIO()
    pygame.image.save(surface, buf, "summary.png")
    return buf.getvalue()


def render(journal: Journal, game_id: int, fmt: str, lang: str) -> bytes:
    """The summary of a finished game as PNG or PDF bytes (``SummaryError`` says why not)."""
    if fmt not in FORMATS:
        raise SummaryError(f"{fmt} is not a summary format ({', '.join(FORMATS)})")
    record, table = finished_table(journal, game_id)
    if fmt == "png":
        return png(draw_page(record, table, lang))
    return pdf_page(record, table, lang)


def format_of(path: str) -> str | None:
    """The summary format a file name asks for (by its ending), or None."""
    low = path.lower()
    return next((f for f in FORMATS if low.endswith("." + f)), None)
