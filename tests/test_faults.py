"""Faults at a real table: another program holding the journal's lock, and stops.

The lock is held by a real second process (sqlite3 in a child Python), the
service is a real ``coffee-companion run --headless`` child stopped with real
signals. Every wait has a deadline; nothing sleeps.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from companion.core import events as ev
from companion.core.journal import Journal
from companion.outputs.lights.pixels import SimulatedStrip, contiguous_segments
from companion.outputs.lights.controller import LightsController
from companion.outputs.lights.patterns import AMBER, OFF, LightContext, Style, render
from companion.appliance.service import JOURNAL_BUSY_SECONDS
from companion.core.session import Session
from companion.core.loop import TableLoop, TablePaused, TableResumed
from recorder import Recorder
from companion.words import i18n
from timing import scaled

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, PYTHONPATH=ROOT)
SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"]}

# Another program: takes the journal's write lock, says so, lets go on a line from stdin.
HOLDER = r"""
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
db.execute("ROLLBACK")
db.close()
"""


def hold_lock(path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=ENV)
    assert holder.stdout.readline() == "locked\n"
    return holder


def release(holder):
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.communicate(timeout=scaled(5))


def journaled(path):
    with Journal(str(path), readonly=True) as j:
        return [json.loads(x)["do"] for x in j.latest_game()[1]]


def test_a_journal_locked_by_another_program_pauses_the_table_and_loses_nothing(tmp_path):
    path = tmp_path / "journal.db"
    journal = Journal(str(path), busy_timeout=JOURNAL_BUSY_SECONDS)   # as the service has it
    loop = TableLoop(Session(journal))
    rec = Recorder()
    loop.subscribe(rec)
    lights = LightsController(SimulatedStrip(12), contiguous_segments(3, 4)).attach(loop)
    loop.post(ev.TouchAction(SETUP))
    loop.start()
    try:
        rec.wait_for(lambda u: u.accepted)
        holder = hold_lock(path)
        try:
            posted = time.monotonic()
            inputs = [ev.SeatTap(0), ev.SeatTap(0), ev.SeatHold(0), ev.SeatTap(1)]
            for e in inputs:
                loop.post(e)
            paused = rec.wait_for(lambda u: TablePaused in map(type, u.happened), timeout=3)
            assert paused.applied_at - posted < scaled(1.0)    # detected within a second
            assert "locked by another program" in paused.happened[0].detail
            assert loop.paused and journaled(path) == ["setup"]
            assert loop.table.game.players[0].likes == 0        # nothing applied, ...
            assert not [u for u in rec.updates if u.rejection is not None]   # ... nothing refused
            assert i18n.happening_text("es", paused.happened[0]).startswith("En pausa")
            lights.tick(lights.clock())                        # takes in the pause
            assert lights.paused_since is not None
            lights.tick(lights.paused_since + 0.1)             # the first, amber half
            assert set(lights.last.seats[2]) == {AMBER}
        finally:
            release(holder)
        last = rec.wait_for(lambda u: u.event is inputs[-1], timeout=5)
        kinds = [type(h) for u in rec.updates for h in u.happened]
        assert kinds.count(TablePaused) == 1 and kinds.count(TableResumed) == 1
        assert all(u.accepted for u in rec.updates if u.event in inputs)
        assert last.accepted and not loop.paused
        lights.tick(lights.clock())
        assert lights.paused_since is None and AMBER not in lights.last.seats[2]
        assert journaled(path) == ["setup", "complete", "complete", "end_turn", "complete"]
    finally:
        loop.stop()
        journal.close()


def test_paused_lights_blink_amber_on_every_segment_then_stop():
    style = Style(4, (3, 3, 3, 3))
    paused = render(None, LightContext(paused_since=10.0), 10.2, style)
    assert paused.seats == ((AMBER,) * 3,) * 4 and paused.next_change == pytest.approx(11.0)
    assert render(None, LightContext(paused_since=10.0), 11.2, style).seats == ((OFF,) * 3,) * 4
    assert render(None, LightContext(), 10.2, style).seats == ((OFF,) * 3,) * 4


# ---------------------------------------------------------------- a clean stop, always

CONFIG = """
[journal]
path = "{dir}/journal.db"
[catalog]
paths = ["{dir}/cards.toml"]
[seats]
driver = "simulated"
[pixels]
driver = "simulated"
segment_length = 4
[sound]
enabled = false
[web]
bind = "127.0.0.1"
port = 0
mdns = false
"""

# The service in a child, as systemd runs it, plus a thread that fills its queue.
# At exit it prints what the LEDs show last, so the parent can see them dark, how many
# inputs the table loop applied in all, and how many it applied once asked to halt (at most
# the one in hand: a stop does not work through the queue).
SERVICE = r"""
import logging, sys, threading, time
from companion.appliance import config
from companion.core import events as ev
from companion.appliance.service import Service
cfg = config.load(sys.argv[1], required=True)
logging.basicConfig(level="INFO", format="%(levelname)s %(name)s: %(message)s")
svc = Service(cfg, headless=True)
queued, posted = int(sys.argv[2]), []
def fill():
    while not svc.inputs:          # after the buttons' "ready": the queue order is fixed
        time.sleep(0.005)
    if svc.session.table.game is None:
        posted.append(ev.TouchAction({"do": "setup", "edition": "original",
                                      "players": ["Ana", "Ben", "Chloe"]}))
    posted.extend(ev.UndoTap() if n % 2 else ev.SeatTap(0) for n in range(queued))
    for event in posted:          # complete, undo, complete, ...
        svc.loop.post(event)
    print("ready", flush=True)
applied = []
svc.loop.subscribe(lambda u: applied.append(u.event))
halt, after_halt = svc.loop.halt, []
def counted_halt(timeout):
    before = len(applied)
    ended = halt(timeout)
    after_halt.append(len(applied) - before)
    return ended
svc.loop.halt = counted_halt
threading.Thread(target=fill).start()
code = svc.run()
print("leds", max(max(c) for c in svc.lights.strip.current), flush=True)
ours = {id(event) for event in posted}
print("posted", len(posted), "applied", sum(id(e) in ours for e in applied),
      "after halt", after_halt, flush=True)
print("exit", code, flush=True)
"""


def service(tmp_path, queued):
    cfg = tmp_path / "config.toml"
    cfg.write_text(CONFIG.format(dir=tmp_path), encoding="utf-8")
    child = subprocess.Popen([sys.executable, "-c", SERVICE, str(cfg), str(queued)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    assert child.stdout.readline() == "ready\n"
    return child


def stop(child, sig):
    """Stop the child with ``sig``: its stdout and stderr. A hang guard only: how long a
    stop takes is the machine's (10-30 times as long under emulation); what makes it quick
    is that it puts down the queue instead of working through it (the tests below)."""
    child.send_signal(sig)
    return child.communicate(timeout=scaled(10))


def dropped(err):
    """How many inputs the stop logged as not applied."""
    found = re.search(r"stopped with (\d+) input\(s\) not applied", err)
    assert found, err
    return int(found[1])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGHUP, signal.SIGTERM])
def test_every_stop_signal_asks_for_the_same_clean_stop(tmp_path, sig):
    from companion.appliance import config
    from companion.appliance.service import Service
    cfg_path = tmp_path / "config.toml"
    cfg_path.write_text(CONFIG.format(dir=tmp_path), encoding="utf-8")
    svc = Service(config.load(str(cfg_path), required=True), headless=True)
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)}
    try:
        svc.on_stop_signal()
        os.kill(os.getpid(), sig)              # a real signal to this (main) thread
        assert svc.stopping.wait(scaled(2))
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
        svc.shutdown()


@pytest.mark.parametrize("sig", [signal.SIGTERM])
def test_a_stop_with_10000_queued_inputs_is_clean_and_quick(tmp_path, sig):
    child = service(tmp_path, 10_000)
    out, err = stop(child, sig)
    assert child.returncode == 0, err                  # no segfault (-11), no traceback
    assert "leds 0" in out.splitlines() and out.endswith("exit 0\n")   # the LEDs went dark
    assert f"{signal.Signals(sig).name}: stopping" in err
    assert "not applied (never acknowledged, dropped)" in err and "Traceback" not in err
    assert "did not stop within" not in err            # the loop put down the input in hand
    posted, applied, after_halt = map(int, re.search(
        r"posted (\d+) applied (\d+) after halt \[(\d+)\]", out).groups())
    # quick: once asked to halt, the loop finished at most the input in hand and dropped
    # the rest, every one accounted for (the setup and the 10,000: applied or dropped)
    assert after_halt <= 1
    assert posted == 1 + 10_000 and applied + dropped(err) == posted and dropped(err) > 0
    lines = journaled(tmp_path / "journal.db")         # what was applied is whole
    assert lines[0] == "setup" and len(lines) < 10_001


@pytest.mark.parametrize("sig", [signal.SIGHUP])
def test_a_stop_while_another_program_holds_the_journal_is_clean_and_quick(tmp_path, sig):
    path = tmp_path / "journal.db"
    with Journal(str(path)) as j:
        Session(j).apply(SETUP)
    holder = hold_lock(path)
    try:
        child = service(tmp_path, 50)
        paused = time.monotonic() + scaled(5)
        line = ""
        while "table paused" not in line and time.monotonic() < paused:
            line = child.stderr.readline()
        assert "table paused" in line
        out, err = stop(child, sig)
    finally:
        release(holder)
    assert child.returncode == 0, err
    assert "did not stop within" not in err            # the wait for the lock was cut short
    assert "leds 0" in out.splitlines() and out.endswith("exit 0\n")
    assert "posted 50 applied 0 after halt [0]" in out.splitlines()
    # the first tap waited for the lock: it and the 49 behind it were never applied
    assert "stopped with 50 input(s) not applied" in err
    assert journaled(path) == ["setup"]


# ---------------------------------------------------------------- messages that must not mislead

@pytest.fixture
def small_disk(tmp_path):
    """A real 256 KiB filesystem (tmpfs), to fill up or make read-only."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("mounting a small filesystem needs root")
    yield mnt
    subprocess.run(["umount", str(mnt)], check=True)


def game_on(path):
    with Journal(str(path)) as j:
        Session(j).apply(SETUP)


def test_a_full_disk_at_start_says_the_disk_is_full(small_disk):
    path = small_disk / "journal.db"
    game_on(path)
    with open(small_disk / "photos", "wb") as fh, pytest.raises(OSError):    # fill it up
        fh.write(b"\0" * (512 << 10))
        fh.flush()
    from companion.core.journal import JournalError
    with pytest.raises(JournalError) as exc:
        Journal(str(path))
    assert "is full" in str(exc.value) and "free some space" in str(exc.value)
    assert exc.value.fault == "full" and "failing" not in str(exc.value)
    assert "disk I/O error" not in str(exc.value)
    # the start-up fault page names it too, in the players' language
    from companion.appliance.faults import journal_fault
    from companion.words.i18n import tr
    fault = journal_fault(str(path), exc.value)
    assert fault.action is None and fault.title_key == "fault.journal_title_full"
    assert tr("ko", fault.title_key) == "SD 카드가 가득 찼습니다"
    assert "apt-get clean" in tr("es", fault.fix_key, path=str(path))


def test_a_full_card_during_a_game_is_said_on_the_screen_until_it_passes(small_disk):
    """The table screen over a journal on a real 256 KiB filesystem that fills up: the
    refusal is a dialog that names the fault and what to free (a toast was too small for
    the words and went before anyone read them); once there is room the next action is
    accepted and the dialog goes."""
    import pygame

    from companion.core.catalog import Catalog
    from companion.outputs.screen import screenshots
    from companion.outputs import Outputs
    from companion.outputs.screen.app import App
    screenshots._init_pygame()
    path = small_disk / "journal.db"
    journal = Journal(str(path))
    loop = TableLoop(Session(journal, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=pygame.Surface((800, 480)), language="en",
                                  clock=screenshots._FrozenClock()), main_thread=True)
    try:
        def act(action):
            app.post_action(action)
            loop.drain()
            app.process_updates()
            app.screen.invalidate()
            app.screen.draw(app.surface)
            return {w.name: getattr(w, "text", "") for w in app.screen._widgets}

        act(SETUP)
        with open(small_disk / "photos", "wb") as fh, pytest.raises(OSError):   # fill it up
            fh.write(b"\0" * (512 << 10))
            fh.flush()
        shown = {}
        for likes in range(1, 200):             # until a write needs a page it cannot have
            shown = act({"do": "correct", "player": "Ana", "likes": likes})
            if "dlg.title" in shown:
                break
        assert shown["dlg.title"] == "The SD card is full"
        assert "Free some space" in shown["dlg.body"] and "press again" in shown["dlg.body"]
        assert "failing" not in shown["dlg.body"]
        refused = likes
        assert app.table.game.players[0].likes == refused - 1        # nothing changed
        os.remove(small_disk / "photos")        # room again: the next press is taken
        shown = act({"do": "correct", "player": "Ana", "likes": refused})
        assert "dlg.title" not in shown and app.table.game.players[0].likes == refused
    finally:
        journal.close()
    with Journal(str(path), readonly=True) as j:
        lines = [json.loads(x) for g in j.games() for x in j.lines(g.id)]
    assert lines[-1] == {"do": "correct", "player": "Ana", "likes": refused}
    assert [x.get("likes") for x in lines[1:]] == list(range(1, refused + 1))


def test_history_and_replay_on_a_read_only_disk(small_disk, tmp_path, capsys):
    from companion.review import history, replay
    path = small_disk / "journal.db"
    game_on(path)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    assert history.run(str(path), None, "script") == 0            # reading needs no writing
    assert "Ana, Ben, Chloe" in capsys.readouterr().out
    script = tmp_path / "game.jsonl"
    script.write_text('{"do": "end_turn"}\n', encoding="utf-8")
    assert replay.run(str(script), False, False, str(path)) == 2  # not 0 with "could not be saved"
    err = capsys.readouterr().err
    assert "cannot be written (Read-only file system)" in err and "could not be saved" not in err
    # named read-only at start, on the fault page and by doctor (not "full", not "failing")
    from companion.appliance.doctor import check_storage
    from companion.appliance.faults import journal_fault
    from companion.core.journal import JournalError
    with pytest.raises(JournalError) as exc:
        Journal(str(path))
    assert exc.value.fault == "read_only"
    assert journal_fault(str(path), exc.value).title_key == "fault.journal_title_read_only"
    check = check_storage(str(small_disk), str(small_disk), "pt")
    assert check.status == "FAIL" and "somente leitura" in check.found


# A journal file the user may not write, in a folder they may (run as "nobody" under root).
READ_ONLY_FILE = r"""
import os, sys
from companion.review import replay      # imported first: "nobody" may not read this venv
if os.getuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
sys.exit(replay.run(sys.argv[2], False, False, sys.argv[1]))
"""


def test_replay_into_a_journal_file_without_write_permission_fails_clearly(tmp_path):
    import tempfile
    folder = tempfile.mkdtemp(prefix="coffee-ro-")
    try:
        os.chmod(folder, 0o777)
        path = os.path.join(folder, "journal.db")
        game_on(path)
        for name in os.listdir(folder):
            os.chmod(os.path.join(folder, name), 0o444 if name == "journal.db" else 0o666)
        script = os.path.join(folder, "game.jsonl")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write('{"do": "end_turn"}\n')
        os.chmod(script, 0o644)
        proc = subprocess.run([sys.executable, "-c", READ_ONLY_FILE, path, script], env=ENV,
                              capture_output=True, text=True, timeout=scaled(30), cwd=folder)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "cannot be written" in proc.stderr and "could not be saved" not in proc.stdout
        assert journaled(path) == ["setup"]
    finally:
        subprocess.run(["rm", "-rf", folder])
