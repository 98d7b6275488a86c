"""Start-up faults: a page that says what is wrong and what to do (five languages), a safe
touch action, the process up, the lights blinking the fault, the journal untouched."""
import hashlib
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pygame
import pytest

from companion.appliance import config, faults
from companion.core.catalog import Catalog
from companion.appliance.config import LANGUAGES
from companion.core.journal import Journal
from companion.outputs.lights import patterns
from companion.appliance.notify import Notifier
from companion.appliance.service import Service, Startup
from companion.core.session import Session
from companion.words import i18n
from companion.outputs.screen import widgets
from companion.words.fonts import FontFiles
from companion.outputs.screen.screens.fault import FaultPage, FaultScreen
from service_helpers import table_config, wait_ready
from timing import scaled

JOURNAL = "/var/lib/coffee-companion/journal.db"
FAULTS = {
    "journal-damaged": faults.StartupFault(
        "journal", f"{JOURNAL} is damaged or not a journal (file is not a database)", JOURNAL,
        faults.MOVE_JOURNAL_ASIDE, {"path": JOURNAL}),
    "journal": faults.StartupFault(
        "journal", f"{JOURNAL}: cannot create the folder (Permission denied)", JOURNAL,
        params={"path": JOURNAL}),
    "catalog": faults.StartupFault(
        "catalog", "/var/lib/coffee-companion/cards.toml: card 3: 'recipe' must list 2 to 4 "
        "ingredients", "/var/lib/coffee-companion/cards.toml", faults.SKIP_CATALOG_FILE,
        {"path": "/var/lib/coffee-companion/cards.toml"}),
    "config": faults.StartupFault(
        "config", "/etc/coffee-companion/config.toml: [seats] pins must list whole numbers",
        "/etc/coffee-companion/config.toml", params={"path": "/etc/coffee-companion/config.toml"}),
    "font": faults.StartupFault("font", "no Korean font for the Korean screen",
                                action=faults.CONTINUE,
                                params={"command": "sudo apt install fonts-nanum"}),
}


def sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_fault_pages_in_five_languages(name, tmp_path):
    fault = FAULTS[name]
    for lang in LANGUAGES:
        surface = pygame.Surface((800, 480))
        with widgets.record_text() as texts:
            page = FaultPage(fault, surface, lang, on_display=False)
            page.draw()
        pygame.image.save(surface, str(tmp_path / f"fault-{name}-{lang}.png"))
        shown = {r.owner: r for r in texts}
        title = i18n.tr(lang, fault.title_key)
        assert shown["fault.title"].wanted == title and "…" not in shown["fault.title"].text
        fix = shown["fault.fix"]
        assert fix.wanted == i18n.tr(lang, fault.fix_key, **fault.params)
        assert "…" not in fix.text                                    # all of it fits
        assert shown["fault.retry"].wanted == i18n.tr(lang, "fault.try_again")
        if fault.action:
            assert "…" not in shown["fault.action"].text
        else:
            assert "fault.action" not in shown
        if lang != "en":                                              # really translated
            assert title != i18n.tr("en", fault.title_key)
        assert surface.get_at((5, 5))[:3] == (206, 52, 52)            # the danger band


def tap(name, fault, size=(800, 480)):
    """Post a tap on widget ``name`` of the fault page, as SDL would."""
    probe = FaultScreen(FaultPage(fault, pygame.Surface(size), "en", on_display=False), fault)
    probe.layout(size)
    pos = next(w.rect.center for w in probe.build() if w.name == name)
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        pygame.event.post(pygame.event.Event(kind, pos=pos, button=1, touch=False))


def with_a_person(run, person, stopping: threading.Event) -> int:
    """``run()`` the service here (the main thread, as pygame wants) while ``person()``
    watches and taps on another thread; then stop it."""
    def act():
        try:
            person()
        finally:
            stopping.set()
            if pygame.display.get_init():          # a headless start has no event queue
                pygame.event.post(pygame.event.Event(pygame.QUIT))
    helper = threading.Thread(target=act)
    helper.start()
    try:
        return run()
    finally:
        helper.join(scaled(10))


def test_a_tap_on_the_page_chooses_its_action():
    fault = FAULTS["catalog"]
    page = FaultPage(fault, pygame.Surface((800, 480)), "it", on_display=False)
    probe = {w.name: w for w in page.screen.build()}
    from companion.outputs.screen.screens.base import Pointer
    for kind in ("down", "up"):
        page.screen.handle(Pointer(kind, probe["fault.action"].rect.center))
    assert page.choice == faults.SKIP_CATALOG_FILE
    page.failed("Permission denied")                     # the action did not work: say so
    assert page.choice is None and "Permission denied" in page.screen.toasts[0]


def write_config(tmp_path, extra: str = "") -> str:
    return table_config(tmp_path, '[display]\ndriver = "offscreen"\n' + extra,
                        pixels="simulated")


def damaged_journal(tmp_path) -> str:
    path = tmp_path / "journal.db"
    path.write_bytes(b"SQLite format 3\0" + bytes(range(256)) * 16)
    return str(path)


@pytest.mark.parametrize("broken", ["journal", "config"])
def test_the_service_stays_up_on_its_fault_page(broken, tmp_path, notify_socket):
    sock_path, sock = notify_socket
    cfg = write_config(tmp_path, '[game]\nlanguage = "pt"\n' + (
        'edition = "deluxe"\n' if broken == "config" else ""))
    journal = damaged_journal(tmp_path)
    before = sha(journal)
    env = dict(os.environ, NOTIFY_SOCKET=sock_path, SDL_VIDEODRIVER="offscreen",
               SDL_AUDIODRIVER="dummy")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--config", cfg, "run"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        ready = wait_ready(sock)
        summary = faults.SUMMARY["journal" if broken == "journal" else "config"]
        assert f"STATUS=fault: {summary}" in ready
        assert ("edition must be one of" if broken == "config" else "journal.db") in ready
        assert proc.poll() is None                                 # no exit, no restart loop
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=scaled(10))
    assert proc.returncode == 0
    assert b"Traceback" not in err
    assert sha(journal) == before                                  # the journal untouched
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["config.toml", "journal.db", "notify"] + (["journal.db.lock"]
                                                   if broken == "journal" else []))


def test_start_a_new_journal_moves_the_damaged_one_aside_and_the_table_starts(
        tmp_path, notify_socket, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")
    sock_path, sock = notify_socket
    cfg_path = write_config(tmp_path)
    journal = damaged_journal(tmp_path)
    before = sha(journal)
    startup = Startup(lambda: config.load(cfg_path, required=True),
                      notifier=Notifier({"NOTIFY_SOCKET": sock_path}), config_path=cfg_path)
    seen: dict = {}

    def person():
        seen["fault"] = wait_ready(sock)
        seen["lights"] = startup.lights.fault
        tap("fault.action", faults.journal_fault(journal, OSError()))
        seen["table"] = wait_ready(sock)
    assert with_a_person(startup.run, person, startup.stopping) == 0
    assert "STATUS=fault: the game journal cannot be opened" in seen["fault"]
    assert seen["lights"] is True
    assert "STATUS=waiting for a new game" in seen["table"]
    aside = [f for f in os.listdir(tmp_path) if f.startswith("journal.db.damaged-")]
    assert len(aside) == 1 and sha(tmp_path / aside[0]) == before   # renamed, not changed
    with Journal(journal, readonly=True) as j:                      # and a new one started
        assert j.games() == []


def test_a_fault_with_no_screen_keeps_the_watchdog_fed_while_it_retries(tmp_path, notify_socket):
    """No display to show the fault on: the start retries now and then, and tells systemd's
    watchdog it is alive meanwhile (else the watchdog kills it every 30 s: a booted VM)."""
    sock_path, sock = notify_socket
    cfg_path = write_config(tmp_path)
    damaged_journal(tmp_path)
    startup = Startup(lambda: config.load(cfg_path, required=True), headless=True,
                      notifier=Notifier({"NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "30000000",
                                         "WATCHDOG_PID": str(os.getpid())}),
                      config_path=cfg_path)
    seen: list[str] = []

    def person():
        while "WATCHDOG=1" not in seen:          # the socket's 10 s timeout ends a wait
            seen.append(sock.recv(4096).decode())
    assert with_a_person(startup.run, person, startup.stopping) == 0
    assert any(x.startswith("READY=1\nSTATUS=fault: ") for x in seen)
    assert seen[-1] == "WATCHDOG=1"


def test_journal_damage_is_told_from_other_journal_problems(tmp_path):
    damaged = damaged_journal(tmp_path)
    assert faults.journal_damaged(damaged)
    assert faults.journal_fault(damaged, OSError()).action == faults.MOVE_JOURNAL_ASIDE
    good = str(tmp_path / "good.db")
    Journal(good).close()
    assert not faults.journal_damaged(good)
    assert not faults.journal_damaged(str(tmp_path / "missing.db"))
    with Journal(good) as j:                # games that do not replay are damage too
        Session(j, Catalog()).apply({"do": "setup", "edition": "winter",
                                     "players": ["Ana", "Ben"]})
        Session(j, Catalog()).apply({"do": "end_turn"})
    assert not faults.journal_damaged(good)
    db = sqlite3.connect(good)
    with db:
        db.execute("""UPDATE actions SET line = '{"do": "upgrade", "tile": "x"}' WHERE seq > 0""")
    db.close()
    assert faults.journal_damaged(good)
    with Journal(good):                     # a damaged file that another companion holds
        os.replace(damaged, good)
        assert not faults.journal_damaged(good)


def test_a_broken_catalog_file_is_shown_and_the_table_plays_without_it(tmp_path):
    good, broken = tmp_path / "good.toml", tmp_path / "broken.toml"
    Catalog.example().save(str(good))
    broken.write_text("[[card]]\ntag = 'X1'\n", encoding="utf-8")
    cfg = config.load(write_config(tmp_path), required=True)
    cfg["catalog"]["paths"] = [str(broken), str(good)]
    svc = Service(cfg, headless=True)
    try:
        assert len(svc.session.catalog) == len(Catalog.example())      # the good file's
        assert len(svc.catalog_problems) == 1
        fault = faults.catalog_fault(cfg, svc.catalog_problems[0])   # what the page shows
        assert fault.path == str(broken) and fault.action == faults.SKIP_CATALOG_FILE
        assert svc.loop.catalog_path == str(broken)    # enroll still writes to the first file
    finally:
        svc.shutdown()
    assert broken.read_text(encoding="utf-8") == "[[card]]\ntag = 'X1'\n"


def test_the_screen_shows_a_broken_catalog_first_then_plays_without_it(
        tmp_path, notify_socket, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "offscreen")
    sock_path, sock = notify_socket
    (tmp_path / "cards.toml").write_text("[[card]]\ntag = 'X1'\n", encoding="utf-8")
    cfg = config.load(write_config(tmp_path), required=True)
    svc = Service(cfg, notifier=Notifier({"NOTIFY_SOCKET": sock_path}))
    seen: dict = {}

    def person():
        seen["fault"] = wait_ready(sock)
        tap("fault.action", faults.catalog_fault(cfg, svc.catalog_problems[0]))
        seen["table"] = wait_ready(sock)
    assert with_a_person(svc.run, person, svc.stopping) == 0
    assert "STATUS=fault: a card catalog is broken" in seen["fault"]
    assert "STATUS=waiting for a new game" in seen["table"]


def test_a_missing_font_is_a_fault_only_where_the_screen_needs_it():
    assert faults.font_fault("en", FontFiles("dejavu.ttf", "dejavu-b.ttf")) is None
    korean = faults.font_fault("ko", FontFiles("dejavu.ttf", "dejavu-b.ttf"))
    assert korean.kind == "font" and "fonts-nanum" in korean.params["command"]
    latin = faults.font_fault("es", FontFiles(None, None, "nanum.ttf", "nanum-b.ttf"))
    assert latin.kind == "font" and "fonts-dejavu-core" in latin.params["command"]


def test_a_missing_display_is_a_fault_with_lights_and_status(tmp_path, notify_socket, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "kmsdrm")
    monkeypatch.setattr("companion.outputs.screen.app.display_available", lambda **_: False)
    sock_path, sock = notify_socket
    cfg = config.load(write_config(tmp_path), required=True)
    svc = Service(cfg, notifier=Notifier({"NOTIFY_SOCKET": sock_path}))
    svc.display_grace = 0                     # really missing: no wait for it to appear
    seen = {}

    def person():
        try:
            seen["ready"] = wait_ready(sock)
            pause, lights = threading.Event(), svc.lights
            for _ in range(500):                        # the fault frame, 5 s at most
                shown = lights.last
                if shown is not None and patterns.RED in shown.seats[0]:
                    seen["frame"] = sum(shown.seats, ())
                    seen["strip"] = lights.strip.frames[-1]
                    break
                pause.wait(0.01)
        finally:
            svc.stopping.set()
    helper = threading.Thread(target=person)
    helper.start()
    assert svc.run() == 0
    helper.join(scaled(10))
    assert "STATUS=fault: no display, but one is configured" in seen["ready"]
    assert "kmsdrm" in seen["ready"]
    assert set(seen["frame"]) == {patterns.RED}                   # every LED of every seat
    assert {(r > 0, g, b) for r, g, b in seen["strip"]} <= {(True, 0, 0), (False, 0, 0)}


def test_the_fault_pattern_blinks_every_led_red():
    style = patterns.Style(2, (3, 3))
    on, off = patterns.fault(0.2, style), patterns.fault(1.2, style)
    assert on.seats == ((patterns.RED,) * 3,) * 2 and on.next_change == 1.0
    assert off.seats == ((patterns.OFF,) * 3,) * 2 and off.next_change == 2.0


def test_move_aside_keeps_the_wal_with_its_journal(tmp_path):
    path = tmp_path / "journal.db"
    path.write_bytes(b"x" * 10)
    (tmp_path / "journal.db-wal").write_bytes(b"w" * 10)
    target = faults.move_journal_aside(str(path), now=0)
    assert target.endswith(".damaged-19700101-000000")
    assert Path(target).read_bytes() == b"x" * 10
    assert Path(target + "-wal").read_bytes() == b"w" * 10
    assert not path.exists() and not (tmp_path / "journal.db-wal").exists()


def test_the_language_comes_even_from_a_broken_config(tmp_path):
    bad = tmp_path / "c.toml"
    bad.write_text('[game]\nlanguage = "ko"\n[seats]\npins = "no"\n', encoding="utf-8")
    assert faults.screen_language(None, str(bad)) == "ko"
    bad.write_text("not toml [", encoding="utf-8")
    assert faults.screen_language(None, str(bad)) == "en"


def test_a_display_still_appearing_at_boot_is_waited_for_not_called_missing(tmp_path,
                                                                          monkeypatch):
    """Early in a boot the display's driver may still be loading (/dev/dri/card0 comes a
    moment after the service starts): within ``display_grace`` it is looked for again,
    and no fault is said, shown or blinked."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "kmsdrm")
    looks = []

    def available(**_):
        looks.append(1)
        return len(looks) > 3                   # there at the fourth look
    monkeypatch.setattr("companion.outputs.screen.app.display_available", available)
    opened = threading.Event()

    def open_display(display):
        opened.set()
        raise RuntimeError("kmsdrm not available here")   # (what happens next: not this test)
    monkeypatch.setattr("companion.outputs.screen.app.open_display", open_display)
    cfg = config.load(write_config(tmp_path), required=True)
    svc = Service(cfg)
    faults_shown = []
    monkeypatch.setattr(svc, "_show_fault", lambda fault: faults_shown.append(fault))
    monkeypatch.setattr("companion.appliance.service.DISPLAY_GRACE_POLL", 0.01)
    try:
        svc.display_grace = 10.0
        surface_thread = threading.Thread(target=lambda: svc._open_screen(cfg["display"]))
        surface_thread.start()
        assert opened.wait(scaled(5))                   # it opened once the display was there
        assert len(looks) >= 4 and faults_shown == []
    finally:
        svc.stopping.set()
        surface_thread.join(scaled(10))
        svc.shutdown()
