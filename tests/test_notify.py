"""sd_notify: READY=1 once the journal is resumed, STATUS= in words, WATCHDOG=1 from the
table loop's own thread (a blocked loop stops the pings), against a real datagram socket."""
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time

from companion.core import events as ev
from companion.core.journal import Journal
from companion.appliance.notify import Notifier
from companion.appliance.service import status_line
from companion.core.session import Session
from companion.core.catalog import Catalog
from companion.core.loop import TableLoop
from recorder import Recorder
from service_helpers import table_config
from timing import scaled


def received(sock, until, within=30.0):
    """Datagrams until one satisfies ``until``, for at most ``within`` seconds (a hang
    guard, scaled). Not a count of datagrams: the watchdog pings every 50 ms meanwhile, so
    fifty of them were 2.5 s, which a start under emulation outlasts (the arm64 check)."""
    out: list[str] = []
    deadline = time.monotonic() + scaled(within)
    while time.monotonic() < deadline:
        msg = sock.recv(4096).decode()
        out.append(msg)
        if until(msg, out):
            return out
    raise AssertionError(f"not seen in {len(out)} datagrams, the last: {out[-10:]}")


def test_notifier_reads_systemds_environment(notify_socket):
    path, sock = notify_socket
    n = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "30000000",
                  "WATCHDOG_PID": str(os.getpid())})
    assert n.enabled and n.ping_every == 15.0
    n.ready("waiting for a new game")
    assert sock.recv(100) == b"READY=1\nSTATUS=waiting for a new game"
    n.status("waiting for a new game")          # unchanged: not sent again
    n.status("Ana's turn, round 1")
    assert sock.recv(100) == b"STATUS=Ana's turn, round 1"
    # a watchdog meant for another process, no socket: nothing to do
    assert Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000",
                     "WATCHDOG_PID": "1"}).ping_every is None
    quiet = Notifier({})
    assert not quiet.enabled and quiet.send("READY=1") is False


def test_abstract_socket_names_work():
    name = f"coffee-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(scaled(5))
    try:
        Notifier({"NOTIFY_SOCKET": "@" + name}).watchdog()
        assert sock.recv(100) == b"WATCHDOG=1"
    finally:
        sock.close()


def test_a_blocked_table_loop_stops_the_watchdog_pings(notify_socket, tmp_path):
    path, sock = notify_socket
    notifier = Notifier({"NOTIFY_SOCKET": path})
    loop = TableLoop(Session(Journal(str(tmp_path / "j.db")), Catalog()))
    loop.heartbeat, loop.heartbeat_every = notifier.watchdog, 0.02
    release, blocked = threading.Event(), threading.Event()

    def stuck(update):
        if isinstance(update.event, ev.DeviceStatus) and update.event.device == "stuck":
            blocked.set()
            release.wait(scaled(10))
    loop.subscribe(stuck)
    loop.start()
    try:
        received(sock, lambda m, out: len(out) >= 3)            # pings while free
        loop.post(ev.DeviceStatus("stuck", "hang"))
        assert blocked.wait(scaled(5))
        while True:                                             # drain pings sent before
            sock.settimeout(0.3)
            try:
                sock.recv(100)
            except TimeoutError:
                break                                           # 15 beats long: no ping
        release.set()
        sock.settimeout(scaled(5))
        assert sock.recv(100) == b"WATCHDOG=1"                   # free again: pings again
    finally:
        release.set()
        loop.stop()
        loop.session.journal.close()


def test_status_line_says_whose_turn_in_words(tmp_path):
    loop = TableLoop(Session(Journal(str(tmp_path / "j.db")), Catalog()))
    rec = Recorder()
    loop.subscribe(rec)
    assert status_line(loop.table) == "waiting for a new game (start one on the touchscreen)"
    loop.post(ev.TouchAction({"do": "setup", "edition": "winter", "players": ["Ana", "Ben"]}))
    loop.drain()
    assert status_line(loop.table) == "Ana's turn, round 1"
    loop.session.journal.close()


def test_the_service_sends_ready_then_regular_watchdog_pings(notify_socket, tmp_path):
    path, sock = notify_socket
    cfg = table_config(tmp_path)
    with Journal(str(tmp_path / "journal.db")) as j:          # a game to resume
        Session(j, Catalog()).apply({"do": "setup", "edition": "original",
                                     "players": ["Ana", "Ben"]})
    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="100000",
               SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--config", cfg, "run"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        msgs = received(sock, lambda m, out: m.startswith("READY=1"))
        assert "STATUS=Ana's turn, round 1" in msgs[-1]               # resumed first
        after = received(sock, lambda m, out: out.count("WATCHDOG=1") >= 3)
        assert after.count("WATCHDOG=1") >= 3
        assert proc.poll() is None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=scaled(10))
    assert proc.returncode == 0, err.decode()


def test_a_table_paused_for_the_journals_lock_keeps_the_watchdog_fed(notify_socket, tmp_path):
    from companion.appliance.service import JOURNAL_BUSY_SECONDS
    from companion.core.loop import TablePaused
    path, sock = notify_socket
    journal = Journal(str(tmp_path / "j.db"), busy_timeout=JOURNAL_BUSY_SECONDS)
    loop = TableLoop(Session(journal, Catalog()))
    loop.heartbeat, loop.heartbeat_every = Notifier({"NOTIFY_SOCKET": path}).watchdog, 0.05
    rec = Recorder()
    loop.subscribe(rec)
    loop.start()
    other = sqlite3.connect(str(tmp_path / "j.db"), isolation_level=None)   # another program
    try:
        loop.post(ev.TouchAction({"do": "setup", "edition": "winter", "players": ["Ana", "Ben"]}))
        other.execute("BEGIN IMMEDIATE")
        loop.post(ev.TouchAction({"do": "end_turn"}))
        rec.wait_for(lambda u: TablePaused in map(type, u.happened))
        sock.setblocking(False)                                 # drop what came before
        while True:
            try:
                sock.recv(100)
            except BlockingIOError:
                break
        sock.settimeout(scaled(5))
        assert loop.paused
        assert [sock.recv(100) for _ in range(2)] == [b"WATCHDOG=1"] * 2  # waiting on purpose
        assert loop.paused
    finally:
        other.execute("ROLLBACK")
        other.close()
        loop.stop()
        journal.close()
