"""A finished game on one page, PNG or PDF: who won and why, the score chart round by
round and the turning points (``companion.review.story``), in the players' language.

``coffee-companion history --export GAME --summary PATH.pdf|.png`` writes it, and the
phone view's finished-game page offers both as downloads.

The page is drawn with pygame, as the touchscreen is (the same chart painter,
``ui.story_chart``, in print colours), with the project's fonts (``ui.fonts``: DejaVu
for Latin letters, Nanum or Noto for Hangul), so a Korean page reads as the screen
does. It is an A4 page at 150 dots per inch (1240 x 1754). The PDF is that picture on
one A4 page, written directly as ``labels.py`` writes its sheets (no PDF library): one
image, compressed, filling the page; it prints at A4 from any viewer (on Letter paper,
"fit to page").

Its fonts are its own (a ``FontBook`` of this module), not the screen's: the phone view
draws a page on its own thread while the screen draws on the main thread; one lock
lets one page be drawn at a time.
"""
from __future__ import annotations

import io
import threading
import zlib
from dataclasses import dataclass

import pygame

from . import exports
from companion.core.journal import GameRecord, Journal
from .pdf import pdf_file
from companion.core.rules.engine import NO_SPECIALTIES
from companion.core.rules.scoring import ranking, tie_break, winners
from companion.core.rules.state import Game, Table
from companion.core.seat_colours import SCREEN_RGB, screen_rgb
from companion.core.session import rebuild
from .story import Story, story_of
from .story_words import point_text, round_text
from companion.words.fonts import ChainFont, FontBook
from companion.words.i18n import names_list, token_name, tr, tr_count
from companion.core.colour_vision import SEAT_SHAPES
from .story_chart import ChartLook, draw_shape, paint_chart

FORMATS = ("png", "pdf")
PAGE = (1240, 1754)                    # A4 at 150 dpi
A4_PT = (595.28, 841.89)
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


@dataclass
class _Pen:
    """Text on the page with this module's fonts: one line shrunk to fit its box, or a
    paragraph wrapped at spaces (and inside a word too long for a line)."""
    book: FontBook

    def font(self, size: int, bold: bool = False) -> ChainFont:
        return self.book.font(size, bold)

    def width(self, text: str, size: int, bold: bool = False) -> int:
        return self.font(size, bold).size(text)[0]

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

    def paragraph(self, surface, text: str, x: int, y: int, width: int, size: int,
                  color, bold: bool = False) -> int:
        """Draw ``text`` wrapped at ``width`` from (x, y); the height it took."""
        f = self.font(size, bold)
        step = f.get_linesize()
        lines = self.lines(text, size, width, bold)
        for n, line in enumerate(lines):
            surface.blit(f.render(line, True, color), (x, y + n * step))
        return step * max(1, len(lines))


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


def draw_page(record: GameRecord, table: Table, lang: str) -> pygame.Surface:
    """The whole page as a picture."""
    game = table.game
    story = story_of(table)
    if game is None or story is None:
        raise SummaryError(f"game {record.id} has no table to summarize")
    with _lock:
        if not pygame.font.get_init():
            pygame.font.init()
        return _Page(record, game, story, lang, _pen()).draw()


class _Page:
    def __init__(self, record: GameRecord, game: Game, story: Story, lang: str, pen: _Pen):
        self.record, self.game, self.story, self.lang, self.pen = record, game, story, lang, pen
        names = record.seat_colors or []
        rgb = screen_rgb(names) if names else []
        self.colours = list(rgb) + list(SCREEN_RGB[len(rgb):])
        self.surface = pygame.Surface(PAGE)
        self.width = PAGE[0] - 2 * MARGIN

    def draw(self) -> pygame.Surface:
        s, pen, lang = self.surface, self.pen, self.lang
        s.fill(PAPER)
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
        return s

    def _winner(self, y: int) -> int:
        ranked = ranking(self.game)
        won = winners(ranked)
        if len(won) == 1:
            seat = self.game.seat_of(won[0]) or 0
            colour = self.colours[seat % len(self.colours)]
            text = tr(self.lang, "end.winner", player=won[0])
        else:
            colour = FLAG
            text = tr(self.lang, "end.shared", players=names_list(self.lang, list(won)))
        band = pygame.Rect(MARGIN, y, self.width, 84)
        pygame.draw.rect(self.surface, colour, band, border_radius=16)
        ink = INK if sum(c * w for c, w in zip(colour, (0.299, 0.587, 0.114),
                                               strict=True)) > 150 else PAPER
        self.pen.write(self.surface, text, band.inflate(-32, -12), 52, ink, True)
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
            pygame.draw.rect(s, PANEL, row, border_radius=12)
            pygame.draw.rect(s, colour, row, 4, border_radius=12)
            pen.write(s, tr(lang, "end.place", place=entry.place),
                      pygame.Rect(row.x + 16, row.y, 84, row.h), 44, INK, True, "left")
            self._token(pygame.Rect(row.x + 106, row.y + 9, row.h - 18, row.h - 18), seat, colour)
            name_x = row.x + 106 + row.h
            pen.write(s, entry.name, pygame.Rect(name_x, row.y + 4, 420, 40), 36, INK, True,
                      "left")
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
            y += pen.paragraph(s, tr(lang, f"end.tie_{why}", better=better, worse=worse,
                                     tokens=tokens), MARGIN, y, self.width, 26, DIM)
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
        paint_chart(s, box, self.story, self.colours, look, pen,
                    [p.round for p in self.story.points])
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
        draw_shape(self.surface, shape, rect.center, round(side * (0.8 if shape in (
            "triangle", "diamond") else 0.95)), colour, INK, max(2, side // 14))
        ink = INK if sum(c * w for c, w in zip(colour, (0.299, 0.587, 0.114),
                                               strict=True)) > 150 else PAPER
        number = rect.inflate(-side // 3, -side // 3)
        if shape == "triangle":
            number = number.move(0, side // 10)
        self.pen.write(self.surface, str(seat + 1), number, max(8, number.h), ink, True)

    def _points_height(self) -> int:
        h = 52
        for p in self.story.points:
            h += max(44, len(self.pen.lines(point_text(self.lang, p), 28,
                                            self.width - 200)) * self.pen.font(28).get_linesize()
                     ) + 14
        return h

    def _points(self, y: int) -> None:
        s, pen, lang = self.surface, self.pen, self.lang
        pen.write(s, tr(lang, "story.summary_points"), pygame.Rect(MARGIN, y, self.width, 44),
                  36, INK, True, "left")
        y += 52
        for i, p in enumerate(self.story.points, 1):
            c = (MARGIN + 22, y + 22)
            pygame.draw.circle(s, FLAG, c, 21)
            flag = pygame.Rect(0, 0, 42, 42)
            flag.center = c
            pen.write(s, str(i), flag, 30, INK, True)
            pen.write(s, round_text(lang, p), pygame.Rect(MARGIN + 56, y + 4, 134, 36), 26,
                      ROUND_INK, True, "left")
            h = pen.paragraph(s, point_text(lang, p), MARGIN + 200, y + 2, self.width - 200,
                              28, INK)
            y += max(44, h) + 14


def _signed(n: int) -> str:
    return "−" + str(-n) if n < 0 else str(n)


# --- files -----------------------------------------------------------------------------

def png(surface: pygame.Surface) -> bytes:
    buf = io.BytesIO()
    pygame.image.save(surface, buf, "summary.png")
    return buf.getvalue()


def pdf(surface: pygame.Surface, title: str) -> bytes:
    """One A4 page holding the picture (PDF 1.4, the image Flate-compressed)."""
    w, h = surface.get_size()
    pixels = zlib.compress(pygame.image.tostring(surface, "RGB"))
    pw, ph = A4_PT
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw} {ph}] "
         f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode("ascii"),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceRGB "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n"
         ).encode("ascii") + pixels + b"\nendstream",
    ]
    content = f"q {pw} 0 0 {ph} 0 0 cm /Im0 Do Q\n".encode("ascii")
    objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objects.append(b"<< /Title " + _pdf_string(title) + b" /Producer (coffee-companion) >>")
    return pdf_file(objects, 1, len(objects))


def _pdf_string(text: str) -> bytes:
    """A PDF text string: UTF-16 with its byte order mark, as hex (any language)."""
    return b"<" + ("feff" + text.encode("utf-16-be").hex()).encode("ascii") + b">"


def render(journal: Journal, game_id: int, fmt: str, lang: str) -> bytes:
    """The summary of a finished game as PNG or PDF bytes (``SummaryError`` says why not)."""
    if fmt not in FORMATS:
        raise SummaryError(f"{fmt} is not a summary format ({', '.join(FORMATS)})")
    record, table = finished_table(journal, game_id)
    surface = draw_page(record, table, lang)
    if fmt == "png":
        return png(surface)
    return pdf(surface, tr(lang, "story.summary_title", game=record.id))


def format_of(path: str) -> str | None:
    """The summary format a file name asks for (by its ending), or None."""
    low = path.lower()
    return next((f for f in FORMATS if low.endswith("." + f)), None)
