"""QR sticker sheets: tags, layout, and the SVG and PDF drawn back into QR matrices."""
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
import segno
from pyzbar import pyzbar
from pyzbar.pyzbar import ZBarSymbol

from companion.commands import cli
from companion.commands import label_sheets as labels
from companion.devices.scanner_protocol import PlainScan, decode_line
from companion.commands.label_sheets import A4, LETTER, Grid, LabelError

SVG = "{http://www.w3.org/2000/svg}"
POPPLER = pytest.mark.skipif(shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None,
                             reason="poppler-utils is not installed")
CARD_W, CARD_H = 44.0, 68.0          # a Coffee Rush order card, mm


def segno_modules(tag):
    """Dark modules (row, col) of the reference QR code, quiet zone offset included."""
    m = segno.make(tag, error="m", micro=False).matrix
    q = labels.QUIET_ZONE
    dark = {(r + q, c + q) for r, row in enumerate(m) for c, v in enumerate(row) if v}
    return dark, len(m) + 2 * q


# ---------------------------------------------------------------- tags


def test_generated_tags_are_stable_unique_and_readable_by_the_scanner():
    tags = labels.generated_tags(120, "CR")
    assert tags[:2] == ["CR0001", "CR0002"] and tags[-1] == "CR0120"
    assert tags == labels.generated_tags(120, "CR")
    assert len(set(tags)) == 120
    assert labels.generated_tags(2, "W", start=9999) == ["W09999", "W10000"]
    for tag in tags:
        assert decode_line(tag.encode() + b"\r") == PlainScan(tag)


@pytest.mark.parametrize("tag, why", [
    ("", "1 to 24"), ("X" * 25, "1 to 24"), ("CR 1", "no spaces"), ("café", "ASCII"),
    ("$CR1", "would not be read"), ("SCAN,12,AB", "would not be read"),
])
def test_tags_a_scanner_would_misread_are_refused(tag, why):
    with pytest.raises(LabelError, match=why):
        labels.check_tag(tag)


def test_bad_counts_are_refused():
    with pytest.raises(LabelError, match="at least 1"):
        labels.generated_tags(0)
    with pytest.raises(LabelError, match="negative"):
        labels.generated_tags(3, start=-1)


def test_tags_file_with_comments(tmp_path):
    path = tmp_path / "tags.txt"
    path.write_text("# my deck\nAB1\n\n  AB2  \n#AB3\n")
    assert labels.read_tags(str(path)) == ["AB1", "AB2"]


@pytest.mark.parametrize("text, message", [
    ("AB1\nAB2\nAB1\n", "tags.txt:3: tag 'AB1' already on line 1"),
    ("AB1\n$X\n", "tags.txt:2: tag '$X'"),
    ("# nothing\n\n", "no tags in it"),
])
def test_bad_tags_files_name_the_line(tmp_path, text, message):
    path = tmp_path / "tags.txt"
    path.write_text(text)
    with pytest.raises(LabelError, match=re.escape(message)):
        labels.read_tags(str(path))


def test_a_missing_tags_file_is_a_clear_error(tmp_path):
    with pytest.raises(LabelError, match="cannot be read"):
        labels.read_tags(str(tmp_path / "none.txt"))


# ---------------------------------------------------------------- layout


@pytest.mark.parametrize("paper, cols, rows", [(A4, 5, 7), (LETTER, 6, 6)])
def test_grid_fits_the_paper_with_room_for_cut_marks(paper, cols, rows):
    g = Grid.for_paper(paper)
    assert (g.cols, g.rows, g.per_page) == (cols, rows, cols * rows)
    assert g.left >= labels.MARGIN_MM and g.top >= labels.MARGIN_MM
    for x1, y1, x2, y2 in g.cut_lines():
        for x, y in ((x1, y1), (x2, y2)):
            assert 5.0 <= x <= paper.width_mm - 5.0 and 5.0 <= y <= paper.height_mm - 5.0
    corners = {g.cell(i) for i in range(g.per_page)}
    assert len(corners) == g.per_page                       # no two stickers in one place


def test_a_sticker_fits_on_the_back_of_an_order_card():
    assert labels.CELL_W_MM <= CARD_W - 8 and labels.CELL_H_MM <= CARD_H - 8
    s = labels.place("CR0001", 0, 0)
    assert s.qr_x >= 0 and s.qr_x + labels.QR_MM <= labels.CELL_W_MM
    assert s.qr_y + labels.QR_MM < s.text_y <= labels.CELL_H_MM - 2
    size = segno_modules("CR0001")[1]
    assert s.module * size == pytest.approx(labels.QR_MM)
    assert s.module >= 0.5                                   # readable by cheap QR modules


def test_long_tags_get_smaller_text_that_still_fits():
    s = labels.place("X" * 24, 0, 0)
    assert labels.COURIER_ADVANCE * s.text_size * 24 <= labels.CELL_W_MM - 4 + 1e-9
    assert labels.place("CR1", 0, 0).text_size == labels.TEXT_MM


# ---------------------------------------------------------------- SVG


def svg_stickers(text):
    root = ET.fromstring(text)
    out = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "sticker":
            continue
        path = g.find(f"{SVG}path")
        m = re.match(r"translate\(([\d.]+) ([\d.]+)\) scale\(([\d.]+)\)", path.get("transform"))
        dark = set()
        for c, r, n in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\3z", path.get("d")):
            dark |= {(int(r), int(c) + k) for k in range(int(n))}
        assert re.sub(r"M(\d+) (\d+)h(\d+)v1h-\3z", "", path.get("d")) == ""
        out.append((g.get("data-tag"), g.find(f"{SVG}text").text, dark,
                    tuple(float(v) for v in m.groups())))
    return root, out


def test_svg_page_draws_each_qr_code_module_for_module():
    tags = labels.generated_tags(37)
    pages = labels.pages(tags, A4)
    assert [len(p) for p in pages] == [35, 2]
    root, stickers = svg_stickers(labels.sheet_svg(pages[0], A4))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (
        "210mm", "297mm", "0 0 210 297")
    assert [s[0] for s in stickers] == tags[:35] == [s[1] for s in stickers]
    for tag, _, dark, (_x, _y, module) in stickers:
        expected, size = segno_modules(tag)
        assert dark == expected
        assert module * size == pytest.approx(labels.QR_MM, abs=1e-3)
    lines = root.find(f"{SVG}g[@id='cut-marks']")
    assert len(lines) == len(Grid.for_paper(A4).cut_lines())


def test_svg_escapes_tags():
    _, stickers = svg_stickers(labels.sheet_svg([labels.place('A<&>"1', 0, 0)], A4))
    assert stickers[0][:2] == ('A<&>"1', 'A<&>"1')


# ---------------------------------------------------------------- PDF


def poppler(tool, pdf, *args):
    return subprocess.run([tool, *args, str(pdf)] + (["-"] if tool == "pdftotext" else []),
                          capture_output=True, text=True, check=True).stdout


def read_cells(pdf, folder, dpi, paper, count):
    """Each sticker cell of the rendered pages (poppler at ``dpi``), in order: the QR codes
    pyzbar finds in it."""
    import pygame
    subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(pdf), str(folder / "page")],
                   check=True, capture_output=True)
    grid, px = Grid.for_paper(paper), dpi / 25.4
    pages = [pygame.image.load(str(p)) for p in sorted(folder.glob("page-*.pgm"))]
    out = []
    for i in range(count):
        x, y = grid.cell(i)
        cell = pages[i // grid.per_page].subsurface(pygame.Rect(
            round(x * px), round(y * px), round(labels.CELL_W_MM * px),
            round(labels.CELL_H_MM * px)))
        w, h = cell.get_size()
        grey = pygame.image.tostring(cell, "RGB")[::3]
        out.append(pyzbar.decode((grey, w, h), symbols=[ZBarSymbol.QRCODE]))
    return pages, out


@POPPLER
def test_pdf_pages_draw_qr_codes_that_read_back_at_true_size(tmp_path):
    tags = labels.generated_tags(40)
    pdf = tmp_path / "sheets.pdf"
    pdf.write_bytes(labels.sheets_pdf(labels.pages(tags, LETTER), LETTER))
    info = poppler("pdfinfo", pdf)
    assert re.search(r"^Pages:\s+2$", info, re.M) and "612 x 792 pts (letter)" in info
    dpi = 200
    pages, found = read_cells(pdf, tmp_path, dpi, LETTER, len(tags))
    assert len(pages) == 2
    assert [[c.data.decode() for c in cell] for cell in found] == [[t] for t in tags]
    # true size: the code without its quiet zone, as printed at 100 %
    _, size = segno_modules(tags[0])
    code_mm = labels.QR_MM * (size - 2 * labels.QUIET_ZONE) / size
    for (code,) in found:
        assert code.rect.width == pytest.approx(code_mm / 25.4 * dpi, abs=3)
    # the tags are text (Courier), each under its code
    assert poppler("pdftotext", pdf, "-layout").split() == tags
    assert "Courier" in poppler("pdffonts", pdf)


@POPPLER
def test_pdf_tags_with_parentheses_and_backslashes_are_text(tmp_path):
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(labels.sheets_pdf([[labels.place("A(1)\\", 0, 0)]], A4))
    assert poppler("pdftotext", pdf).split() == ["A(1)\\"]
    assert "595.28 x 841.89 pts (A4)" in poppler("pdfinfo", pdf)


def test_the_same_tags_give_the_same_pdf():
    tags = labels.generated_tags(5)
    assert (labels.sheets_pdf(labels.pages(tags, A4), A4)
            == labels.sheets_pdf(labels.pages(tags, A4), A4))


# ---------------------------------------------------------------- files and the command


def test_write_sheets_and_read_the_tags_back(tmp_path):
    tags = labels.generated_tags(36, "QR")
    written = labels.write_sheets(str(tmp_path / "out"), tags)
    names = sorted(p.rsplit("/", 1)[1] for p in written)
    assert names == ["stickers-a4-1.svg", "stickers-a4-2.svg", "stickers-a4.pdf",
                     "stickers-letter-1.svg", "stickers-letter.pdf", "tags.txt"]
    assert labels.read_tags(str(tmp_path / "out" / "tags.txt")) == tags
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_duplicate_tags_are_refused_before_anything_is_written(tmp_path):
    with pytest.raises(LabelError, match="listed twice"):
        labels.write_sheets(str(tmp_path / "out"), ["A1", "A2", "A1"])
    assert not (tmp_path / "out").exists()


def test_labels_command(tmp_path, capsys):
    out = tmp_path / "sheets"
    assert cli.main(["labels", str(out), "--count", "3", "--prefix", "TB", "--paper", "a4"]) == 0
    printed = capsys.readouterr().out
    assert "3 stickers, TB0001 to TB0003" in printed and "100 %" in printed
    assert sorted(p.name for p in out.iterdir()) == ["stickers-a4-1.svg", "stickers-a4.pdf",
                                                     "tags.txt"]


def test_labels_command_with_a_bad_tags_file_says_why(tmp_path, capsys):
    bad = tmp_path / "tags.txt"
    bad.write_text("OK1\n$NO\n")
    assert cli.main(["labels", str(tmp_path / "o"), "--tags", str(bad)]) == 2
    assert "tags.txt:2" in capsys.readouterr().err


def test_labels_command_into_a_folder_it_cannot_create(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert cli.main(["labels", str(blocker / "sub"), "--count", "1"]) == 2
    assert "cannot write the sheets" in capsys.readouterr().err
