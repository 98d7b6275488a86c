"""Printable sheets of QR stickers for order cards (tables with a QR scanner).

A table without NFC stickers can give every order card a small QR sticker
instead; a cheap QR/barcode module then reads it and sends the text, which is
the card's tag (see "Plain QR / barcode modules" in firmware/PROTOCOL.md).
``coffee-companion labels OUTDIR`` writes the sheets; ``coffee-companion
enroll`` then tells the companion which drink each tag is.

A sticker is a 32 x 38 mm cell: a 24 mm QR code (its 4-module quiet zone
included) with the tag printed under it, small enough for the back of a
44 x 68 mm Coffee Rush order card. Cells are laid edge to edge in a grid
centred on the page (A4: 5 x 7 = 35, US Letter: 6 x 6 = 36), with cut marks
in the margin at every grid line and small crosses where inner lines meet.

Files, for each paper size:

* ``stickers-<paper>-<n>.svg``: one SVG per page, in millimetres;
* ``stickers-<paper>.pdf``: all pages in one PDF (fpdf2), vector squares and
  the tags as text in the standard Courier font (selectable, searchable): it
  prints at exact size from any viewer, where a PNG would be rescaled by the
  printer dialog;
* ``tags.txt``: the tags, one per line (``--tags`` reads this format back).

Print at 100 % / "actual size", not "fit to page".
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

import segno

from companion.devices.scanner_protocol import PlainScan, decode_line

CELL_W_MM = 32.0
CELL_H_MM = 38.0
QR_MM = 24.0          # the QR code with its quiet zone
QR_TOP_MM = 3.0       # from the cell's top edge
QUIET_ZONE = 4        # modules of white around the code (ISO 18004)
TEXT_MM = 3.5         # font size of the tag under the code
TEXT_BASELINE_MM = QR_TOP_MM + QR_MM + 5.0
MARGIN_MM = 10.0      # least room around the grid, for the printer and the cut marks
MARK_GAP_MM = 1.0     # cut marks start this far from the grid
MARK_MM = 4.0         # and are this long
CROSS_MM = 1.5        # arm of an inner cross
COURIER_ADVANCE = 0.6  # every Courier glyph is 600/1000 em wide
MAX_TAG = 24
PT_PER_MM = 72 / 25.4


class LabelError(Exception):
    """A tag that cannot be printed, or a bad tags file; the message says which."""


@dataclass(frozen=True)
class Paper:
    name: str
    width_mm: float
    height_mm: float


A4 = Paper("a4", 210.0, 297.0)
LETTER = Paper("letter", 215.9, 279.4)
PAPERS = {"a4": A4, "letter": LETTER}


# --------------------------------------------------------------------------
# Tags


def check_tag(tag: str) -> str:
    """The tag if a QR scanner's line with it reads back as exactly this card code."""
    if not 1 <= len(tag) <= MAX_TAG:
        raise LabelError(f"tag {tag!r}: use 1 to {MAX_TAG} characters")
    if not all(0x21 <= ord(ch) <= 0x7E for ch in tag):
        raise LabelError(f"tag {tag!r}: use letters, digits and punctuation (ASCII, no spaces)")
    read_back = decode_line(tag.encode("ascii"))
    if read_back != PlainScan(tag):
        reason = getattr(read_back, "reason", "it would be read differently")
        raise LabelError(f"tag {tag!r} would not be read as a card code: {reason}")
    return tag


def generated_tags(count: int, prefix: str = "CR", start: int = 1) -> list[str]:
    """``count`` tags ``<prefix><number>``: the same arguments always give the same tags."""
    if count < 1:
        raise LabelError("--count must be at least 1")
    if start < 0:
        raise LabelError("--start must not be negative")
    width = max(4, len(str(start + count - 1)))
    return [check_tag(f"{prefix}{n:0{width}d}") for n in range(start, start + count)]


def read_tags(path: str) -> list[str]:
    """Tags from a text file, one per line; blank lines and ``#`` comments are skipped."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise LabelError(f"{path}: cannot be read ({exc})") from None
    tags: list[str] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        tag = line.strip()
        if not tag or tag.startswith("#"):
            continue
        try:
            check_tag(tag)
        except LabelError as exc:
            raise LabelError(f"{path}:{n}: {exc}") from None
        if tag in seen:
            raise LabelError(f"{path}:{n}: tag {tag!r} already on line {seen[tag]}")
        seen[tag] = n
        tags.append(tag)
    if not tags:
        raise LabelError(f"{path}: no tags in it")
    return tags


# --------------------------------------------------------------------------
# Layout


@dataclass(frozen=True)
class Grid:
    """Where the sticker cells sit on one paper size."""
    paper: Paper
    cols: int
    rows: int
    left: float       # mm from the left edge to the grid
    top: float        # mm from the top edge to the grid

    @classmethod
    def for_paper(cls, paper: Paper) -> Grid:
        cols = int((paper.width_mm - 2 * MARGIN_MM) // CELL_W_MM)
        rows = int((paper.height_mm - 2 * MARGIN_MM) // CELL_H_MM)
        return cls(paper, cols, rows, (paper.width_mm - cols * CELL_W_MM) / 2,
                   (paper.height_mm - rows * CELL_H_MM) / 2)

    @property
    def per_page(self) -> int:
        return self.cols * self.rows

    def cell(self, index: int) -> tuple[float, float]:
        """Top-left corner (mm, from the page's top-left) of cell ``index`` on its page."""
        row, col = divmod(index % self.per_page, self.cols)
        return self.left + col * CELL_W_MM, self.top + row * CELL_H_MM

    def cut_lines(self) -> list[tuple[float, float, float, float]]:
        """Cut marks and inner crosses as (x1, y1, x2, y2) in mm from the top-left."""
        out = []
        right, bottom = self.left + self.cols * CELL_W_MM, self.top + self.rows * CELL_H_MM
        xs = [self.left + c * CELL_W_MM for c in range(self.cols + 1)]
        ys = [self.top + r * CELL_H_MM for r in range(self.rows + 1)]
        for x in xs:
            out.append((x, self.top - MARK_GAP_MM - MARK_MM, x, self.top - MARK_GAP_MM))
            out.append((x, bottom + MARK_GAP_MM, x, bottom + MARK_GAP_MM + MARK_MM))
        for y in ys:
            out.append((self.left - MARK_GAP_MM - MARK_MM, y, self.left - MARK_GAP_MM, y))
            out.append((right + MARK_GAP_MM, y, right + MARK_GAP_MM + MARK_MM, y))
        for x in xs[1:-1]:
            for y in ys[1:-1]:
                out.append((x - CROSS_MM, y, x + CROSS_MM, y))
                out.append((x, y - CROSS_MM, x, y + CROSS_MM))
        return out


def qr_runs(tag: str) -> tuple[int, list[tuple[int, int, int]]]:
    """The QR code of ``tag`` as (modules across incl. quiet zone, dark runs (row, col, length))."""
    matrix = segno.make(tag, error="m", micro=False).matrix
    size = len(matrix) + 2 * QUIET_ZONE
    runs = []
    for r, row in enumerate(matrix):
        c = 0
        while c < len(row):
            if row[c]:
                start = c
                while c < len(row) and row[c]:
                    c += 1
                runs.append((r + QUIET_ZONE, start + QUIET_ZONE, c - start))
            else:
                c += 1
    return size, runs


@dataclass(frozen=True)
class Sticker:
    """One sticker placed on a page; lengths in mm from the page's top-left."""
    tag: str
    x: float                                   # the cell's top-left corner
    y: float
    qr_x: float                                # the QR code's top-left corner (quiet zone incl.)
    qr_y: float
    module: float                              # mm per QR module
    runs: list[tuple[int, int, int]]           # dark runs (row, col, length) in modules
    text_x: float                              # centre of the text
    text_y: float                              # baseline
    text_size: float

    @property
    def squares(self) -> list[tuple[float, float, float, float]]:
        """The dark runs as (x, y, width, height) in mm."""
        m = self.module
        return [(self.qr_x + c * m, self.qr_y + r * m, n * m, m) for r, c, n in self.runs]


def place(tag: str, x: float, y: float) -> Sticker:
    size, runs = qr_runs(tag)
    text_size = min(TEXT_MM, (CELL_W_MM - 4) / (COURIER_ADVANCE * len(tag)))
    return Sticker(tag, x, y, x + (CELL_W_MM - QR_MM) / 2, y + QR_TOP_MM, QR_MM / size, runs,
                   x + CELL_W_MM / 2, y + TEXT_BASELINE_MM, text_size)


def pages(tags: Sequence[str], paper: Paper) -> list[list[Sticker]]:
    grid = Grid.for_paper(paper)
    out: list[list[Sticker]] = []
    for i, tag in enumerate(tags):
        if i % grid.per_page == 0:
            out.append([])
        out[-1].append(place(tag, *grid.cell(i)))
    return out


# --------------------------------------------------------------------------
# SVG


def _n(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".")


def sheet_svg(stickers: Iterable[Sticker], paper: Paper) -> str:
    """One page as SVG; user units are millimetres."""
    grid = Grid.for_paper(paper)
    w, h = _n(paper.width_mm), _n(paper.height_mm)
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
           f'viewBox="0 0 {w} {h}">',
           '<title>Coffee Rush order-card QR stickers - print at 100 %</title>',
           '<g id="cut-marks" stroke="#000" stroke-width="0.15" fill="none">']
    out += [f'<line x1="{_n(a)}" y1="{_n(b)}" x2="{_n(c)}" y2="{_n(d)}"/>'
            for a, b, c, d in grid.cut_lines()]
    out.append("</g>")
    for s in stickers:
        out.append(f'<g class="sticker" data-tag="{escape(s.tag, {chr(34): "&quot;"})}">')
        # One path in module units: no seams between neighbouring modules.
        d = "".join(f"M{c} {r}h{n}v1h-{n}z" for r, c, n in s.runs)
        out.append(f'<path transform="translate({_n(s.qr_x)} {_n(s.qr_y)}) '
                   f'scale({s.module:.6f})" fill="#000" d="{d}"/>')
        out.append(f'<text x="{_n(s.text_x)}" y="{_n(s.text_y)}" font-family="Courier New, '
                   f'Courier, monospace" font-size="{_n(s.text_size)}" text-anchor="middle" '
                   f'fill="#000">{escape(s.tag)}</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# PDF (fpdf2)

#: the files' date: the same tags give the same file
SHEETS_DATE = datetime(2024, 1, 1, tzinfo=UTC)


def sheets_pdf(page_list: Sequence[Sequence[Sticker]], paper: Paper) -> bytes:
    """All pages as one PDF, in millimetres: cut marks, each QR code's dark runs as filled
    rectangles, each tag as text in Courier (one of PDF's standard fonts: nothing to
    embed) centred under its code."""
    from fpdf import FPDF        # here: the service never prints sheets

    doc = FPDF(unit="mm", format=(paper.width_mm, paper.height_mm))
    doc.set_auto_page_break(False)
    doc.set_margin(0)
    doc.set_title("Coffee Rush order-card QR stickers")
    doc.set_producer("coffee-companion labels")
    doc.set_creation_date(SHEETS_DATE)
    grid = Grid.for_paper(paper)
    for stickers in page_list:
        doc.add_page()
        doc.set_draw_color(38)
        doc.set_line_width(0.15)
        for x1, y1, x2, y2 in grid.cut_lines():
            doc.line(x1, y1, x2, y2)
        doc.set_fill_color(0)
        doc.set_text_color(0)
        for s in stickers:
            for x, y, w, h in s.squares:
                doc.rect(x, y, w, h, style="F")
            doc.set_font("Courier", size=s.text_size * PT_PER_MM)
            doc.text(s.text_x - doc.get_string_width(s.tag) / 2, s.text_y, s.tag)
    return bytes(doc.output())


# --------------------------------------------------------------------------
# Files


def _write(path: str, data: bytes) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def write_sheets(outdir: str, tags: Sequence[str], papers: Sequence[str] = ("a4", "letter")
                 ) -> list[str]:
    """Write the SVG pages, the PDF and tags.txt for each paper; return the paths."""
    tags = [check_tag(t) for t in tags]
    dupes = sorted({t for t in tags if tags.count(t) > 1})
    if dupes:
        raise LabelError(f"tag {dupes[0]!r} is listed twice")
    try:
        os.makedirs(outdir, exist_ok=True)
        written = []
        for name in papers:
            paper = PAPERS[name]
            page_list = pages(tags, paper)
            for n, stickers in enumerate(page_list, 1):
                path = os.path.join(outdir, f"stickers-{name}-{n}.svg")
                _write(path, sheet_svg(stickers, paper).encode("utf-8"))
                written.append(path)
            path = os.path.join(outdir, f"stickers-{name}.pdf")
            _write(path, sheets_pdf(page_list, paper))
            written.append(path)
        path = os.path.join(outdir, "tags.txt")
        _write(path, ("\n".join(tags) + "\n").encode("ascii"))
        written.append(path)
    except OSError as exc:
        raise LabelError(f"cannot write the sheets to {outdir}: {exc}") from None
    return written


def page_count(count: int, paper: str) -> int:
    return math.ceil(count / Grid.for_paper(PAPERS[paper]).per_page)

