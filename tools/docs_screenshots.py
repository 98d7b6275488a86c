"""Every picture in the docs, made again from the code as it is: one command.

    python tools/docs_screenshots.py            # writes docs/screenshots/*.png
    python tools/docs_screenshots.py --check    # which pictures the docs use, and who makes each

The pictures the docs show (every ``screenshots/NAME.png`` a page or the README links to)
come from four makers:

- the touchscreen's screens: ``coffee-companion screenshots`` (NAME is
  ``{screen}-{lang}-{w}x{h}``, the file name that command writes);
- the demo's window, the table above its simulated LED strip (``demo-with-strip``): the
  screenshots' table after a completed order, with the strip the lights controller draws
  for it, as ``coffee-companion demo`` shows it;
- a finished game's one-page summary (``summary-LANG``): ``coffee-companion history
  --export 1 --summary`` on a journal the sample finished game was replayed into;
- pages in a browser (``phone-*``, ``cafe-floor``): Playwright driving Debian's Chromium
  (``/usr/bin/chromium``) against the real phone view and the real café hub with a real
  Mosquitto, as the browser tests do.

A picture the docs use that no maker makes is an error, so the docs never show an old
screen; ``tests/test_docs.py`` checks that every picture has a maker and alt text.
Needs the test extra (``pip install -e '.[test]'``: Playwright), Chromium and Mosquitto.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOTS = os.path.join(ROOT, "docs", "screenshots")
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]
SCREEN_NAME = re.compile(r"^(?P<screen>[a-z0-9-]+)-(?P<lang>[a-z]{2})-(?P<w>\d+)x(?P<h>\d+)$")
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]*screenshots/([^)/\s]+)\.png)\)", re.S)


def doc_files() -> list[str]:
    """The README and every Markdown page of the site (docs/, with hardware/ and firmware/
    reached through its links)."""
    files = [os.path.join(ROOT, "README.md")]
    for folder, _dirs, names in os.walk(os.path.join(ROOT, "docs"), followlinks=True):
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    return files


def pictures_used() -> set[str]:
    """NAME of every docs/screenshots/NAME.png the docs show."""
    used = set()
    for path in doc_files():
        with open(path, encoding="utf-8") as fh:
            used.update(m.group(2) for m in PICTURE.finditer(fh.read()))
    return used


def coffee(*args: str, cwd: str | None = None) -> None:
    """Run the real ``coffee-companion`` command (the one this interpreter installed)."""
    cmd = [sys.executable, "-m", "companion.commands.cli", *args]
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    subprocess.run(cmd, check=True, cwd=cwd or ROOT, env=env, stdout=subprocess.DEVNULL)


# --- the touchscreen: coffee-companion screenshots ------------------------------------

def make_screens(names: list[str], out: str) -> None:
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name in names:
        m = SCREEN_NAME.match(name)
        assert m is not None, name
        groups[(f"{m['w']}x{m['h']}", m["lang"])].add(m["screen"])
    with tempfile.TemporaryDirectory() as tmp:
        for (size, lang), screens in sorted(groups.items()):
            coffee("screenshots", tmp, "--sizes", size, "--languages", lang,
                   "--screens", ",".join(sorted(screens)))
        for name in names:
            shutil.copyfile(os.path.join(tmp, name + ".png"), os.path.join(out, name + ".png"))


# --- the demo's window: the table above its LED strip ---------------------------------

def make_demo_with_strip(out: str) -> None:
    """The demo's window just after Ana completed the order in position 1: the screen as
    the App draws it, and below it the strip as the lights controller lights it for that
    completion (her segment's first quarter white), drawn by the demo's ``StripView``."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame

    from companion.appliance.strip_view import BAND, StripView
    from companion.core import seat_colours
    from companion.outputs import Outputs
    from companion.outputs.lights.controller import LightsController
    from companion.outputs.lights.pixels import SimulatedStrip, contiguous_segments
    from companion.outputs.screen import screenshots as shots

    loop, app = shots.make_app(shots.sample_script(), (800, 480), "en")
    now = app.clock()
    strip = SimulatedStrip(4 * 16, brightness=1.0)
    lights = LightsController(strip, contiguous_segments(4, 16), clock=lambda: now)
    Outputs(loop).start(lights)
    try:
        shots.act(app, {"do": "complete"})          # the oldest order: position 1's quarter
        lights.tick(now)
        app.screen.draw(app.surface)
        window = pygame.Surface((800, 480 + BAND))
        window.blit(app.surface, (0, 0))
        StripView(strip, contiguous_segments(4, 16), pygame.Rect(0, 480, 800, BAND),
                  list(seat_colours.LED_RGB)).draw(window)
        pygame.image.save(window, os.path.join(out, "demo-with-strip.png"))
    finally:
        lights.close()


# --- a finished game's one-page summary ------------------------------------------------

def make_summary(name: str, out: str) -> None:
    lang = name.split("-", 1)[1]
    from importlib import resources
    sample = resources.files("companion.outputs.screen").joinpath("sample_finished_game.jsonl")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "journal.db")
        cfg = os.path.join(tmp, "config.toml")
        with open(cfg, "w", encoding="utf-8") as fh:
            fh.write(f'[journal]\npath = "{db}"\n')
        script = os.path.join(tmp, "game.jsonl")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(sample.read_text(encoding="utf-8"))
        coffee("--config", cfg, "replay", script, "--db", db)
        coffee("--config", cfg, "history", "--export", "1", "--summary",
               os.path.join(out, name + ".png"), "--lang", lang)


# --- pages in a browser ------------------------------------------------------------------

def _browser():
    from playwright.sync_api import sync_playwright
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    pw = sync_playwright().start()
    return pw, pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)


def make_phone_pages(names: list[str], out: str) -> None:
    """The phone view of a service on simulated hardware: the demo's finished sample game
    in its history, a new game in its third turn, and the setup steps after a phone's
    rematch of a Cake Time game."""
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
    from companion.appliance.service import Service
    from companion.core import events as ev
    from tests.web_fixtures import new_game, web_config
    with tempfile.TemporaryDirectory() as tmp:
        from pathlib import Path
        svc = Service(web_config(Path(tmp)), headless=True)
        svc.start_outputs()
        svc.start_web()
        svc.loop.start()
        svc.start_inputs()
        pw, browser = _browser()
        try:
            from companion.outputs.screen.screenshots import FINISHED_SAMPLE, sample_script
            from recorder import Recorder
            rec = Recorder()
            svc.loop.subscribe(rec)
            for n, line in enumerate(sample_script(FINISHED_SAMPLE), 1):   # a finished game
                svc.loop.post(ev.ScriptLine(line, n))
            rec.wait_for(lambda u: any(type(h).__name__ == "GameOver" for h in u.happened))
            new_game(svc, {"do": "setup", "edition": "original",          # and one running
                           "players": ["Ana", "Ben", "Chloe"], "start": "Ana"})
            ended = len([u for u in rec.updates if u.accepted])
            for _ in range(2):
                svc.loop.post(ev.TouchAction({"do": "end_turn"}))
            rec.wait_for(lambda u: len([u for u in rec.updates if u.accepted]) >= ended + 2)
            url = svc.web.url
            assert url is not None, "the phone view did not start"
            pages = {"phone-table": "/?lang=en", "phone-history": "/history?lang=en"}
            page = browser.new_page(viewport={"width": 390, "height": 844},
                                    device_scale_factor=1)
            for name in (n for n in names if n in pages):
                page.goto(url + pages[name])
                page.wait_for_load_state("networkidle")
                page.screenshot(path=os.path.join(out, name + ".png"), full_page=False)
            if "phone-setup-steps" in names:
                _setup_steps(svc, page, os.path.join(out, "phone-setup-steps.png"))
            if "phone-rematch-tiles" in names:
                _rematch_tiles(svc, page, os.path.join(out, "phone-rematch-tiles.png"))
        finally:
            browser.close()
            pw.stop()
            svc.shutdown()


def make_cafe_floor(out: str) -> None:
    """The café's floor page: a finished table, one that needs help, one in its final
    round (the scene of tests/test_cafe_browser.py), with a real Mosquitto and hub."""
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
    from cafe_simulate import SimulatedTable, table_settings
    from companion.cafe.hub import Hub
    from companion.cafe.store import Store
    from companion.cafe.web import build_app
    from companion.core import events as ev
    from companion.outputs.web.server import BackgroundServer
    from tests.cafe_fixtures import Mosquitto, wait_until
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(tmp).start()
        store = Store(os.path.join(tmp, "cafe.db"))
        hub = Hub(table_settings("127.0.0.1", broker.port, "cafe", "-"), store,
                  reconnect_min=0.1).start()
        tables: list = []
        pw = browser = server = None
        try:
            assert hub.connected.wait(5)

            def table(name: str, seed: int, **kw) -> SimulatedTable:
                t = SimulatedTable(os.path.join(tmp, "tables"), table_settings(
                    "127.0.0.1", broker.port, "cafe", name), seed=seed, durable=False,
                    reconnect_min=0.1, **kw).start()
                tables.append(t)
                assert t.publisher.connected.wait(5)
                return t
            table("table-1", 3).play_game()
            help_me = table("table-2", 4, players=4)
            help_me.play_game(until=lambda g: g.turn >= 3)
            help_me.loop.post(ev.DeviceStatus("scanner", "lost", "USB cable unplugged"))
            help_me.loop.drain()
            table("table-3", 5, edition="winter").play_game(until=lambda g: g.token == "closed")

            def caught_up() -> bool:
                rows = {r["table"]: r["state"] for r in store.floor(hub.venue)}
                return all(rows.get(t.name) and rows[t.name]["status"]["seq"]
                           == t.journal.current_seq for t in tables)
            assert wait_until(caught_up, timeout=15), "the hub did not catch up"
            app = build_app(hub)
            server = BackgroundServer(app, "127.0.0.1", 0, name="café floor page")
            server.on_stop(app.close)
            assert server.start()
            pw, browser = _browser()
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(server.url + "/")
            page.wait_for_selector("article[data-table='table-3']")
            page.screenshot(path=os.path.join(out, "cafe-floor.png"))
        finally:
            if browser is not None:
                browser.close()
                pw.stop()
            if server is not None:
                server.stop()
            for t in tables:
                t.close()
            hub.close()
            store.close()
            broker.stop()


def _setup_steps(svc, page, path: str) -> None:
    """A Cake Time game over, REMATCH on the paired phone, Ben to start: the setup steps
    the page then shows (the scene of tests/test_web_a11y.py's Cake Time rematch)."""
    from tests.web_fixtures import new_game
    from companion.core import events as ev
    new_game(svc, {"do": "setup", "edition": "original", "expansion": "cake_time",
                   "players": ["Ana", "Ben", "Chloe"], "start": "Ana",
                   "two_drinks_one_cake": True})
    page.goto(svc.web.url + "/?lang=en")
    page.click("#ctl > summary")
    page.fill("#code", svc.web.pairing.shown())
    page.click("#pairbtn")
    page.wait_for_function("document.getElementById('msg').dataset.status === '200'")
    svc.loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "dislikes": 5}))
    for _ in range(3):
        svc.loop.post(ev.TouchAction({"do": "end_turn"}))
    page.wait_for_selector("h1[data-phase='over']")
    page.click("#rematch")
    page.select_option("#starter", label="Ben")
    page.click("#newgame button[type=submit]")
    page.wait_for_selector("#setup")
    page.wait_for_selector("h1[data-phase='playing']")
    page.evaluate("document.getElementById('setup').scrollIntoView()")
    page.screenshot(path=path, full_page=False)


def _rematch_tiles(svc, page, path: str) -> None:
    """A Cake Time game whose tiles were drawn, over; REMATCH on the phone (paired, on the
    table page): the form's upgrade tiles, four drawn anew (the page's draw made
    repeatable: the box's last four) or the same four kept."""
    from tests.web_fixtures import new_game
    from companion.core import events as ev
    new_game(svc, {"do": "setup", "edition": "original", "expansion": "cake_time",
                   "players": ["Ana", "Ben", "Chloe"], "start": "Ana",
                   "upgrades": ["double_meeples", "diagonal_movement", "break_time",
                                "storage"]})
    page.goto(svc.web.url + "/?lang=en")
    svc.loop.post(ev.TouchAction({"do": "correct", "player": "Ana", "dislikes": 5}))
    for _ in range(3):
        svc.loop.post(ev.TouchAction({"do": "end_turn"}))
    page.wait_for_selector("h1[data-phase='over']")
    page.evaluate("""() => { let i = 0; crypto.getRandomValues = a => {
        a[0] = [2, 3, 5, 6][i++ % 4]; return a; }; }""")
    if not page.is_visible("#rematch"):
        page.click("#ctl > summary")
    page.click("#rematch")
    page.evaluate("""() => new Promise(done => requestAnimationFrame(() =>
        requestAnimationFrame(() => { document.getElementById('tiles').scrollIntoView();
                                      done(); })))""")    # (after the dock's own scroll)
    page.screenshot(path=path, full_page=False)


# --- who makes what ------------------------------------------------------------------------

def maker_of(name: str) -> str | None:
    """Which maker makes docs/screenshots/NAME.png (None: nobody, an old picture)."""
    if name == "demo-with-strip":
        return "demo"
    if re.fullmatch(r"summary-[a-z]{2}", name):
        return "summary"
    if name in ("phone-table", "phone-history", "phone-setup-steps", "phone-rematch-tiles"):
        return "phone"
    if name == "cafe-floor":
        return "cafe"
    if SCREEN_NAME.match(name):
        return "screens"
    return None


MAKERS: dict[str, Callable[[list[str], str], None]] = {
    "screens": make_screens,
    "demo": lambda names, out: make_demo_with_strip(out),
    "summary": lambda names, out: [make_summary(n, out) for n in names] and None,
    "phone": make_phone_pages,
    "cafe": lambda names, out: make_cafe_floor(out),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true",
                   help="only list the pictures the docs use and their makers")
    p.add_argument("--only", help="only these makers, separated by commas: "
                   + ",".join(MAKERS))
    p.add_argument("--out", default=SHOTS, help="folder to write to (default: docs/screenshots)")
    args = p.parse_args(argv)
    by_maker: dict[str, list[str]] = defaultdict(list)
    orphans = []
    for name in sorted(pictures_used()):
        maker = maker_of(name)
        (by_maker[maker].append(name) if maker else orphans.append(name))
    if orphans:
        print("no maker for: " + ", ".join(orphans), file=sys.stderr)
        return 1
    wanted = args.only.split(",") if args.only else list(MAKERS)
    for maker, names in sorted(by_maker.items()):
        print(f"{maker}: {', '.join(names)}")
        if not args.check and maker in wanted:
            os.makedirs(args.out, exist_ok=True)
            MAKERS[maker](names, args.out)
    unused = sorted(f[:-4] for f in os.listdir(SHOTS)
                    if f.endswith(".png") and f[:-4] not in pictures_used())
    if unused:
        print("in docs/screenshots but shown nowhere: " + ", ".join(unused), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
