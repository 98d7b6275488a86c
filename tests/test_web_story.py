"""The game's story on the phone and in the one-page summary: a whole demo game (the
screenshots' finished sample) in a real journal, served by the service's phone view.

The finished game's page has the chart as SVG (valid XML, one polyline per player whose
points are the story's scores), each seat's shape and name, every turning point in the
page's language and the summary downloads; the PDF is one A4 page that poppler reads
back and renders, the PNG an A4 picture at 150 dpi; ``history --export --summary``
writes both. A running game has no summary, and says so. In Chromium the page shows
the chart (one line per player) and is saved as a screenshot under test-output/web/."""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest

from companion.core.journal import Journal
from companion.appliance.service import Service
from companion.core.session import Session, rebuild
from companion.review.story import story_of
from companion.review.story_words import point_text
from companion.outputs.screen import screenshots
from inprocess import cli
from web_fixtures import web_config
from timing import scaled

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "test-output" / "web"
SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM = "/usr/bin/chromium"


def journal_with_games(path: Path) -> str:
    """Game 1: the finished sample (Ana wins); game 2: a running game."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with Journal(str(path)) as journal:
        s = Session(journal)
        for line in screenshots.sample_script(screenshots.FINISHED_SAMPLE):
            if line.startswith("{"):
                assert not hasattr(s.apply_line(line), "code"), line
        assert s.table.game.game_over
        s.apply_line('{"do": "setup", "edition": "winter", "players": ["Ana", "김민준"]}')
    return str(path)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("story-web")
    cfg = web_config(tmp)
    db = journal_with_games(Path(cfg["journal"]["path"]))
    svc = Service(cfg, headless=True)
    svc.start_web()
    svc.loop.start()
    yield svc, db
    svc.shutdown()


def the_story(db: str):
    with Journal(db, readonly=True) as journal:
        g = journal.games()[0]
        return story_of(rebuild(journal.lines(g.id), rules=g.rules).table)


def chart_of(html: str) -> ET.Element:
    svg = re.search(r"<svg [^>]*class=\"chart\".*?</svg>", html, re.S)
    assert svg is not None, "no chart on the page"
    return ET.fromstring(svg.group(0))          # valid XML, or this raises


@pytest.mark.parametrize("lang", ["en", "ko", "es"])
def test_the_finished_games_page_has_the_chart_and_the_turning_points(served, lang):
    svc, db = served
    story = the_story(db)
    r = httpx.get(f"{svc.web.url}/history/1?lang={lang}")
    assert r.status_code == 200
    html = r.text
    root = chart_of(html)
    lines = root.findall(f".//{SVG}polyline")
    assert len(lines) == len(story.players) == 4
    assert [x.get("data-player") for x in lines] == list(story.players)
    # the points are the scores: y falls as the score rises, equal scores at equal y
    ys_by_score: dict[int, set] = {}
    for seat, line in enumerate(lines):
        pts = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        assert len(pts) == story.round_count + 1
        xs = [x for x, _ in pts]
        assert xs == sorted(xs)
        for (_, y), score in zip(pts, story.scores_of(seat), strict=True):
            ys_by_score.setdefault(score, set()).add(round(y, 1))
    assert all(len(ys) == 1 for ys in ys_by_score.values())
    order = sorted(ys_by_score, key=lambda s: -next(iter(ys_by_score[s])))
    assert order == sorted(ys_by_score)
    # each seat's shape at every round, and a flag per turning point
    for seat, g in enumerate(root.findall(f"{SVG}g[@class='seat']")):
        assert len(list(g)) == 2 + story.round_count      # title, line, shapes
        assert g.get("data-shape") == ("circle", "square", "triangle", "diamond")[seat]
    assert len(root.findall(f"{SVG}g[@class='flag']")) == len(story.points)
    # the turning points in the page's language, numbered as the flags
    for p in story.points:
        assert point_text(lang, p).replace("'", "&#x27;") in html
    assert html.count('<li data-key="') == len(story.points)
    assert 'id="dl-pdf" href="/history/1/pdf?lang=' + lang in html
    assert 'id="dl-png"' in html


def test_the_history_and_the_live_page_link_the_story(served):
    svc, _ = served
    history = httpx.get(f"{svc.web.url}/history?lang=it").text
    assert 'href="/history/1?lang=it"' in history
    assert 'href="/history/2?lang=it"' not in history        # game 2 is running
    page = httpx.get(f"{svc.web.url}/history/2?lang=ko").text
    assert "<svg" not in page and "게임이 끝나면" in page and "dl-pdf" not in page
    r = httpx.get(f"{svc.web.url}/history/2/pdf")
    assert r.status_code == 404 and "not over yet" in r.text and "journal" not in r.text
    assert httpx.get(f"{svc.web.url}/history/9").status_code == 404


def test_the_live_page_of_a_game_just_finished_links_its_story(tmp_path):
    cfg = web_config(tmp_path)
    Path(cfg["journal"]["path"]).parent.mkdir(parents=True)
    with Journal(cfg["journal"]["path"]) as journal:
        s = Session(journal)
        for line in screenshots.sample_script(screenshots.FINISHED_SAMPLE):
            if line.startswith("{"):
                s.apply_line(line)
    svc = Service(cfg, headless=True)
    svc.start_web()
    svc.loop.start()
    try:
        page = httpx.get(svc.web.url + "/?lang=en").text
        assert 'id="story" href="/history/1?lang=en"' in page
    finally:
        svc.shutdown()


@pytest.mark.skipif(shutil.which("pdftoppm") is None or shutil.which("pdfinfo") is None,
                    reason="poppler-utils (pdfinfo, pdftoppm) is not installed")
def test_the_summary_pdf_is_one_a4_page_poppler_renders(served, tmp_path):
    import pygame
    import pygame.mask          # (not loaded by the companion's `import pygame`)
    svc, _ = served
    # (fpdf2 loads with the first PDF and parses the fonts it embeds: seconds, not 5 ms)
    r = httpx.get(f"{svc.web.url}/history/1/pdf?lang=ko", timeout=scaled(60))
    assert r.status_code == 200 and r.headers["content-type"] == "application/pdf"
    assert "coffee-rush-game-1-summary.pdf" in r.headers["content-disposition"]
    pdf = tmp_path / "summary.pdf"
    pdf.write_bytes(r.content)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert re.search(r"^Pages:\s+1$", info.stdout, re.M)
    assert "595.28 x 841.89 pts (A4)" in info.stdout
    assert "Coffee Rush · 1번째 게임" in info.stdout         # the title, in UTF-16
    subprocess.run(["pdftoppm", "-r", "50", "-png", str(pdf), str(tmp_path / "page")],
                   check=True, capture_output=True)
    page = pygame.image.load(str(tmp_path / "page-1.png"))
    assert abs(page.get_width() - 413) <= 1 and abs(page.get_height() - 585) <= 1  # A4, 50 dpi
    # not blank: the red winner's band and the chart are there
    reds = pygame.mask.from_threshold(page, (214, 48, 49), (40, 40, 40, 255)).count()
    assert reds > 500


def test_the_summarys_own_fonts_draw_hangul():
    """The summary's fonts (its own book, not the screen's) chain a Korean face."""
    from companion.review import summary
    pen = summary._pen()
    if pen.book.hangul_missing():
        pytest.skip("no Korean font installed (fonts-nanum)")
    runs = pen.font(28).runs("Ana 님 승리")
    assert [face for face, text in runs if "님" in text or "승리" in text] == [1, 1]


def test_the_summary_png_is_an_a4_picture(served):
    import pygame
    svc, _ = served
    r = httpx.get(f"{svc.web.url}/history/1/png?lang=en")
    assert r.status_code == 200 and r.headers["content-type"] == "image/png"
    img = pygame.image.load(io.BytesIO(r.content), "s.png")
    assert img.get_size() == (1240, 1754)
    assert img.get_at((5, 5))[:3] == (255, 255, 255)


def test_history_export_summary_writes_pdf_and_png(served, tmp_path):
    import pygame
    _, db = served
    for name in ("s.pdf", "s.png"):
        path = tmp_path / name
        r = cli("history", "--db", db, "--export", "1", "--summary", str(path), "--lang", "ko")
        code, out, err = r.returncode, r.stdout, r.stderr
        assert code == 0, err
        assert f"summary written to {path}" in out
        data = path.read_bytes()
        assert data.startswith(b"%PDF-1.4" if name.endswith("pdf") else b"\x89PNG")
    assert pygame.image.load(str(tmp_path / "s.png")).get_size() == (1240, 1754)
    for args, words in [(["--summary", "x.png"], "needs the game"),
                        (["--export", "1", "--summary", str(tmp_path / "x.txt")], ".pdf or a .png"),
                        (["--export", "2", "--summary", str(tmp_path / "x.pdf")], "not over yet"),
                        (["--export", "7", "--summary", str(tmp_path / "x.pdf")], "no game 7"),
                        (["--export", "1", "--summary", str(tmp_path / "no" / "x.pdf")],
                         "cannot write")]:
        r = cli("history", "--db", db, *args)
        code, err = r.returncode, r.stderr
        assert code == 2 and words in err and "Traceback" not in err, (args, err)


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed")
def test_the_story_page_in_chromium(served):
    from playwright.sync_api import sync_playwright
    svc, _ = served
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                              args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = b.new_page(viewport={"width": 390, "height": 844})
            for lang in ("en", "ko"):
                page.goto(f"{svc.web.url}/history/1?lang={lang}")
                box = page.locator("svg.chart").bounding_box()
                assert box is not None and box["width"] > 300 and box["height"] > 150
                assert page.locator("svg.chart polyline").count() == 4
                assert page.locator("ol.points li").count() >= 3
                page.screenshot(path=str(OUT / f"story-{lang}-390x844.png"), full_page=True)
        finally:
            b.close()


@pytest.mark.parametrize("rounds", [1, 10, 25, 40])
def test_the_svg_of_any_length_is_valid_with_the_last_round_labelled(rounds):
    from companion.review.story import Story, TurningPoint
    from companion.outputs.web.chart import story_svg
    st = Story("winter", ("Ana", 'Zoë "Z" & <Co>'), 0,
               tuple((2 * r, 3 - r) for r in range(rounds + 1)),
               (TurningPoint("lead_from", rounds, rounds * 2, (("player", "Ana"),)),), True)
    root = ET.fromstring(story_svg(st, [(214, 48, 49), (36, 113, 214)], "ko", [rounds]))
    assert [x.get("data-player") for x in root.iter(f"{SVG}polyline")] == list(st.players)
    bottom = [(float(t.get("x")), t.text) for t in root.findall(f"{SVG}text")
              if t.get("text-anchor") == "middle" and t.get("y") == "242"]
    assert bottom[-1][1] == str(rounds)
    assert all(b[0] - a[0] >= 18 for a, b in zip(bottom, bottom[1:], strict=False))
    negative = any((t.text or "").startswith("-") for t in root.findall(f"{SVG}text"))
    assert negative == (3 - rounds < 0)            # the grid goes below 0 when scores do
