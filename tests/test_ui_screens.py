"""Every screen rendered at 800x480 and 1024x600 in every language, saved under
test-output/ui/, with proof that no text leaves its box, no two texts overlap,
names and scores are big enough to read from 1.5 m, and touch targets are at
least 48 px. Long names (Maximiliana-Josefina, Korean) included."""
import json
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from companion.appliance.config import LANGUAGES  # noqa: E402
from companion.outputs.screen import screenshots, widgets  # noqa: E402
from companion.outputs.screen.app import SCREENS  # noqa: E402
from companion.outputs.screen.layout import Metrics, cols, rows  # noqa: E402
from companion.outputs.screen.table_layout import table_layout  # noqa: E402
from companion.outputs.screen.theme import MIN_TARGET  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "test-output", "ui")
SIZES = [(800, 480), (1024, 600)]
MINE = [name for name in screenshots.SCENES]
OVERLAYS = ("dlg.", "toast.", "ban.", "draw.", "why.", "teach.")   # teach.: the hint card



@pytest.fixture(autouse=True)
def english_afterwards():
    """Screens set the language for the whole process: leave it as other tests expect."""
    yield
    from companion.outputs.screen import text
    text.set_language("en")

def long_names_script() -> list[str]:
    lines = screenshots.sample_script()
    names = {"Ana": "Maximiliana-Josefina", "Ben": "김민준서연", "Chloe": "Bartholomew",
             "Dae": "Zoë"}
    out = []
    for line in lines:
        if line.startswith("{"):
            a = json.loads(line)
            if a["do"] == "setup":
                a["players"] = [names[n] for n in a["players"]]
                a["start"] = names[a["start"]]
            line = json.dumps(a, ensure_ascii=False)
        out.append(line)
    return out


def render(scene: str, size, lang, script=None):
    fn, from_script = screenshots.SCENES[scene]
    lines = script if script is not None else screenshots.sample_script()
    _, app = screenshots.make_app(lines if from_script else [], size, lang)
    fn(app)
    app.screen.invalidate()
    with widgets.record_text() as texts:
        app.screen.draw(app.surface)
    return app, texts


def check_texts(texts, where):
    for r in texts:
        assert r.box.contains(r.rect), f"{where}: {r.wanted!r} overflows its box ({r.owner})"
    # no two texts of different, non-overlay widgets overlap
    plain = [r for r in texts if not r.owner.startswith(OVERLAYS) and r.rect.w and r.rect.h]
    dialog_open = any(r.owner.startswith("dlg.") for r in texts)
    for i, a in enumerate(plain):
        for b in plain[i + 1:]:
            if a.owner != b.owner and not dialog_open:
                assert not a.rect.colliderect(b.rect), \
                    f"{where}: {a.wanted!r} ({a.owner}) overlaps {b.wanted!r} ({b.owner})"


def check_targets(app, where):
    for w in app.screen.widgets():
        if w.tappable and not w.name.startswith("toast."):
            assert w.rect.w >= MIN_TARGET and w.rect.h >= MIN_TARGET, \
                f"{where}: {w.name} is {w.rect.size}, smaller than {MIN_TARGET} px"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_screen_renders_and_fits(size, lang):
    os.makedirs(OUT, exist_ok=True)
    for scene in MINE:
        app, texts = render(scene, size, lang)
        where = f"{scene}-{lang}-{size[0]}x{size[1]}"
        assert texts, f"{where}: nothing drawn"
        check_texts(texts, where)
        check_targets(app, where)
        pygame.image.save(app.surface, os.path.join(OUT, f"{where}.png"))


@pytest.mark.parametrize("size", SIZES + [(1280, 720), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", ["en", "ko"])
def test_long_names_fit_without_being_cut(size, lang):
    os.makedirs(OUT, exist_ok=True)
    script = long_names_script()
    for scene in ("table", "table-closed", "end-tie", "fix", "table-draws"):
        app, texts = render(scene, size, lang, script)
        where = f"long-{scene}-{lang}-{size[0]}x{size[1]}"
        check_texts(texts, where)
        pygame.image.save(app.surface, os.path.join(OUT, f"{where}.png"))
        names = [r for r in texts if "Maximiliana-Josefina" in r.wanted or "김민준서연" in r.wanted]
        assert names, f"{where}: the long names are not on screen"
        for r in names:
            assert "…" not in r.text, f"{where}: {r.wanted} was cut"


def test_names_and_scores_are_readable_from_across_the_table():
    app, texts = render("table", (800, 480), "en")
    by_owner = {r.owner: r for r in texts}
    for owner in ("act.score", "p0.name", "p2.score", "ft.end"):
        font_px = by_owner[owner].rect.h
        assert font_px >= 28, f"{owner} is {font_px} px tall"
    # whose turn is drawn tight (its ink is measured): 6 mm, see test_table_glance.py
    assert by_owner["act.name"].rect.h >= 31


def test_layout_scales_to_other_screens():
    for size in [(800, 480), (1024, 600), (1280, 720), (1280, 800)]:
        for players in (2, 3, 4):
            lay = table_layout(size, players)
            screen = pygame.Rect((0, 0), size)
            parts = [lay.header, lay.active, lay.footer, *lay.others]
            assert all(screen.contains(p) for p in parts)
            for i, a in enumerate(parts):
                for b in parts[i + 1:]:
                    assert not a.colliderect(b)
            assert len(lay.others) == players - 1
            assert lay.footer.h >= MIN_TARGET and lay.active.w > size[0] // 2


def test_rows_and_cols_split_exactly():
    r = pygame.Rect(10, 20, 333, 101)
    parts = cols(r, [40, 1.0, 2.0], 3)
    assert parts[0].w == 40 and parts[-1].right == r.right
    assert abs(parts[2].w - 2 * parts[1].w) <= 1
    parts = rows(r, [1.0, 1.0, 1.0], 0)
    assert sum(p.h for p in parts) == r.h and parts[-1].bottom == r.bottom
    assert Metrics.of((800, 480)).big >= 28


def test_text_is_shrunk_then_wrapped_then_cut_but_never_overflows():
    pygame.font.init()
    surface = pygame.Surface((400, 200))
    box = pygame.Rect(10, 10, 120, 30)
    with widgets.record_text() as texts:
        widgets.draw_text(surface, "Short", box, 28)
        widgets.draw_text(surface, "Maximiliana-Josefina", box, 28)
        widgets.draw_text(surface, "A very long sentence " * 10, box, 28)
        widgets.draw_text(surface, "카페 마감: 벌점 카드 다섯 장", pygame.Rect(0, 50, 150, 80), 28,
                          lines=3)
    assert texts[0].text == "Short"
    assert texts[1].text == "Maximiliana-Josefina" or texts[1].text.endswith("…")
    assert texts[2].text.endswith("…")
    assert all(t.box.contains(t.rect) for t in texts)


def test_the_setup_screens_are_rendered():
    """The screens of the setup wizard, settings, keyboard and enroll are rendered by the
    screenshots command."""
    present = ["wizard", "settings", "keyboard", "enroll"]
    _, app = screenshots.make_app(screenshots.sample_script(), (800, 480))
    names = [n for other in screenshots.OTHER_SCREENS
             for n, _ in screenshots._other_screen_states(app, other)]
    for name in present:
        assert any(n == name or n.startswith(name + "-") for n in names)
    assert set(SCREENS) >= {"table", "end", "fix", "wizard", "settings", "keyboard", "enroll"}


def test_screenshots_command_writes_named_pngs(tmp_path):
    from companion.commands import cli
    rc = cli.main(["screenshots", str(tmp_path), "--sizes", "800x480", "--languages", "en,ko",
                   "--screens", "table,end-tie"])
    assert rc == 0
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["end-tie-en-800x480.png", "end-tie-ko-800x480.png",
                     "table-en-800x480.png", "table-ko-800x480.png"]
    img = pygame.image.load(str(tmp_path / "table-en-800x480.png"))
    assert img.get_size() == (800, 480)


def test_screenshots_command_rejects_bad_input(tmp_path, capsys):
    from companion.commands import cli
    with pytest.raises(SystemExit):
        cli.main(["screenshots", str(tmp_path), "--sizes", "big"])
    assert "800x480" in capsys.readouterr().err
    rc = cli.main(["screenshots", str(tmp_path), "--script", str(tmp_path / "missing.jsonl")])
    assert rc == 2 and "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_final_round_words_are_never_cut(lang):
    for size in SIZES:
        app, texts = render("table-closed", size, lang, long_names_script())
        # "Shop closed: ..." has the top bar's room for its few seconds, then the final round
        assert app.screen.toasts and not [r for r in texts if r.owner == "hdr.final"]
        app.clock.now += 10
        app.tick()
        app.screen.invalidate()
        with widgets.record_text() as texts:
            app.screen.draw(app.surface)
        final = [r for r in texts if r.owner in ("hdr.final", "hdr.why")]
        assert final and final[0].owner == "hdr.final"
        assert all("…" not in r.text for r in final), [r.text for r in final]
