"""The scanner reader thread, fed real bytes through pty pairs and a local TCP socket.

The "scanner" here is the master end of a pty; the reader opens the slave end
through a symlink, as it opens the udev symlink /dev/coffee-scanner at the
table. Unplugging closes the pty and removes the symlink; plugging in makes a
new pty and points the symlink at it, so the reconnect path runs for real.
The end-to-end test at the bottom runs the Pico firmware's logic under CPython
(tests/fakes/micropython) and writes its lines into the pty.
"""
import contextlib
import logging
import os
import pty
import random
import queue
import select
import socket
import sys
import time
import tty
from pathlib import Path

import pytest
import serial
from hypothesis import given, settings, strategies as st

from companion.appliance import config
from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.devices import scanner_protocol as sp
from companion.devices.scanner import ScannerReader
from companion.devices.scanner_meaning import DropLog
from companion.devices.scanner_protocol import Error, Heartbeat, Hello, Scan, encode
from companion.core.session import Session
from companion.core.loop import TableLoop, UnknownCard
from recorder import Recorder
from companion.core.rules.happenings import CardIdentified
from timing import scaled

FIXED = settings(derandomize=True, database=None, deadline=None, max_examples=40)
HELLO = encode(Hello(0, 2, "0.2.0", "MFRC522", "ok"))


class FakeClock:
    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, dt):
        self.t += dt


class ScannerEnd:
    """The scanner's end of the cable: a pty master behind a stable symlink."""

    def __init__(self, link: Path):
        self.link = str(link)
        self.master = self.slave = None
        self.plug()

    def plug(self):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        tmp = self.link + ".new"
        os.symlink(os.ttyname(self.slave), tmp)
        os.replace(tmp, self.link)          # what udev does when the scanner appears

    def unplug(self):
        os.unlink(self.link)
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = None

    def write(self, data: bytes):
        os.write(self.master, data)

    def read_request(self, timeout=3.0) -> bytes:
        """What the host wrote, up to a line end."""
        got, deadline = b"", time.monotonic() + scaled(timeout)
        while not got.endswith(b"\n"):
            ready, _, _ = select.select([self.master], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError(f"host sent only {got!r}")
            got += os.read(self.master, 100)
        return got

    def close(self):
        if self.master is not None:
            self.unplug()


class Events:
    """A ``post`` target that tests can wait on."""

    def __init__(self):
        self.q = queue.Queue()
        self.seen = []

    def __call__(self, event):
        self.q.put(event)

    def next(self, predicate=lambda e: True, timeout=5.0):
        deadline = time.monotonic() + scaled(timeout)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"nothing matching arrived; saw {self.seen}")
            try:
                event = self.q.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(event)
            if predicate(event):
                return event

    def status(self, status, timeout=5.0):
        return self.next(lambda e: isinstance(e, ev.DeviceStatus) and e.status == status, timeout)

    def scan(self, timeout=5.0):
        return self.next(lambda e: isinstance(e, ev.CardScanned), timeout)

    def drain(self):
        while True:
            try:
                self.seen.append(self.q.get_nowait())
            except queue.Empty:
                return self.seen


def eventually(predicate, timeout=5.0):
    """Wait (with a deadline) until the reader thread has done something."""
    deadline = time.monotonic() + scaled(timeout)
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.002)


@pytest.fixture
def end(tmp_path):
    e = ScannerEnd(tmp_path / "coffee-scanner")
    yield e
    e.close()


@pytest.fixture
def events():
    return Events()


@pytest.fixture
def readers():
    made = []

    def make(url, post, **kw):
        kw.setdefault("read_timeout", 0.05)
        kw.setdefault("first_retry", 0.02)
        kw.setdefault("reconnect_max", 0.1)
        r = ScannerReader(url, post, **kw)
        made.append(r)
        return r.start()
    yield make
    for r in made:
        r.close()


def connected(end, events, readers, **kw):
    """A reader on ``end``, connected, that has said ?HELLO and heard the boot HELLO."""
    reader = readers(end.link, events, **kw)
    assert events.status("connected").detail == f"card scanner on {end.link}"
    assert end.read_request() == sp.HELLO_REQUEST
    end.write(HELLO)
    eventually(lambda: reader.firmware is not None)
    return reader


# ---------------------------------------------------------------- lines in, scans out


def test_hello_request_then_scans_from_protocol_lines(end, events, readers):
    reader = connected(end, events, readers)
    assert reader.firmware == Hello(0, 2, "0.2.0", "MFRC522", "ok")
    end.write(encode(Scan(1, "04A1B2C3D4E5F6")))
    scan = events.scan()
    assert (scan.tag, scan.source) == ("04A1B2C3D4E5F6", "nfc")
    assert abs(scan.at - time.monotonic()) < scaled(5)


def test_a_line_split_across_reads(end, events, readers):
    reader = connected(end, events, readers)
    line = encode(Scan(1, "04A1B2C3"))
    end.write(line[:7])
    eventually(lambda: reader.stream.framer.pending == 7)   # the reader has the first half
    end.write(line[7:12])
    eventually(lambda: reader.stream.framer.pending == 12)
    end.write(line[12:])
    assert events.scan().tag == "04A1B2C3"


def test_many_lines_merged_in_one_read_all_count_in_order(end, events, readers):
    reader = connected(end, events, readers)
    burst = (encode(Heartbeat(1, 2, "ok")) + encode(Scan(2, "04000001"))
             + encode(Scan(3, "04000002")).replace(b"\n", b"\r\n") + encode(Scan(4, "04000003")))
    end.write(burst)
    assert [events.scan().tag for _ in range(3)] == ["04000001", "04000002", "04000003"]
    assert reader.counts["missed"] == 0


def test_bad_checksum_is_dropped_and_the_gap_logged(end, events, readers, caplog):
    caplog.set_level(logging.INFO, "companion.scanner")
    reader = connected(end, events, readers)
    end.write(encode(Scan(1, "04A1B2C3")).replace(b"C3*", b"C2*"))   # damaged on the way
    end.write(encode(Scan(2, "04A1B2C3")))
    assert events.scan().tag == "04A1B2C3"
    assert reader.stream.counts["bad_checksum"] == 1 and reader.counts["missed"] == 1
    assert "missed 1 lines (1..1)" in caplog.text
    assert "checksum mismatch" in caplog.text


def test_over_long_lines_are_dropped_and_the_reader_gets_back_in_step(end, events, readers):
    reader = connected(end, events, readers, max_line=64)
    end.write(b"$SCAN,1," + b"04" * 200 + b"\n")
    end.write(encode(Scan(2, "04A1B2C3")))
    assert events.scan().tag == "04A1B2C3"
    assert reader.stream.counts["too_long"] == 1


def test_a_traceback_from_the_pico_is_not_a_card(end, events, readers):
    reader = connected(end, events, readers)
    end.write(b"Traceback (most recent call last):\r\n  File \"main.py\", line 3\r\n"
              b"ImportError: no module named 'scanapp'\r\n")
    end.write(encode(Scan(1, "04A1B2C3")))
    assert events.scan().tag == "04A1B2C3"
    assert reader.stream.counts["malformed"] == 3


_GARBAGE = {}


def garbage_reader(tmp_path_factory):
    """One reader for every garbage example (a pty and a thread each would be slow)."""
    if not _GARBAGE:
        end = ScannerEnd(tmp_path_factory.mktemp("garbage") / "scanner")
        events = Events()
        reader = ScannerReader(end.link, events, read_timeout=0.05, lost_after=3600).start()
        events.status("connected")
        end.read_request()
        end.write(HELLO)
        eventually(lambda: reader.firmware is not None)
        _GARBAGE.update(end=end, events=events, reader=reader, n=0)
    return _GARBAGE


@pytest.fixture(scope="module", autouse=True)
def close_garbage_reader():
    yield
    if _GARBAGE:
        _GARBAGE["reader"].close()
        _GARBAGE["end"].close()


@FIXED
@given(st.binary(max_size=600))
def test_random_garbage_never_stops_the_reader_nor_makes_a_scan(tmp_path_factory, junk):
    g = garbage_reader(tmp_path_factory)
    g["n"] += 1
    tag = "{:08X}".format(g["n"])
    g["end"].write(junk + b"\n" + encode(Scan(g["n"] % 65535 + 1, tag)))
    scan = g["events"].scan()
    assert scan.tag == tag                     # the good line after the junk, and nothing else
    assert g["reader"].running and g["reader"].status in ("connected", "back")


# ---------------------------------------------------------------- plain QR / barcode modules


@pytest.mark.parametrize("ending", [b"\r", b"\n", b"\r\n"])
def test_plain_barcode_lines(end, events, readers, ending):
    reader = readers(end.link, events, plain_pattern=r"CR[0-9]{4}|[0-9]{13}")
    events.status("connected")
    assert end.read_request() == sp.HELLO_REQUEST       # a QR module just ignores it
    end.write(b"CR0001" + ending + b"  4006381333931\t" + ending)
    assert [(s.tag, s.source) for s in (events.scan(), events.scan())] == [
        ("CR0001", "barcode"), ("4006381333931", "barcode")]
    assert reader.stream.counts["plain_scans"] == 2


def test_over_long_plain_code_is_dropped(end, events, readers):
    reader = readers(end.link, events, max_line=128, plain_pattern=sp.DEFAULT_PLAIN_PATTERN)
    events.status("connected")
    end.write(b"Q" * 300 + b"\r" + b"CR0002\r")
    assert events.scan().tag == "CR0002"
    assert reader.stream.counts["too_long"] == 1


def test_a_quiet_qr_module_is_never_called_lost(end, events, readers):
    reader = readers(end.link, events, lost_after=0.1, plain_pattern=sp.DEFAULT_PLAIN_PATTERN)
    events.status("connected")
    end.write(b"CR0003\r")
    assert events.scan().tag == "CR0003"
    idle = reader.counts["idle_reads"]
    eventually(lambda: reader.counts["idle_reads"] >= idle + 10)   # 0.5 s, 5 x lost_after
    assert reader.status == "connected" and reader.counts["lost"] == 0


# ---------------------------------------------------------------- the repeat window


def test_the_same_tag_within_the_repeat_window_is_one_scan(end, events, readers):
    clock = FakeClock()
    reader = connected(end, events, readers, clock=clock, lost_after=1e9, repeat_window=1.5)
    seen = lambda: reader.counts["scans"] + reader.counts["repeats"]   # noqa: E731

    def scan(seq, tag):
        before = seen()
        end.write(encode(Scan(seq, tag)))
        eventually(lambda: seen() == before + 1)

    scan(1, "04AAAAAA")
    assert events.scan() == ev.CardScanned("04AAAAAA", "nfc", 1000.0)
    clock.advance(1.0)
    scan(2, "04AAAAAA")                               # 1.0 s later: the same scan
    clock.advance(1.0)
    scan(3, "04AAAAAA")                               # 1.0 s after the last sighting: still
    assert reader.counts == {**reader.counts, "scans": 1, "repeats": 2}
    clock.advance(1.6)
    scan(4, "04AAAAAA")                               # gone for 1.6 s: a new scan
    assert events.scan() == ev.CardScanned("04AAAAAA", "nfc", 1003.6)
    scan(5, "04BBBBBB")                               # another card at once: counts
    clock.advance(0.1)
    scan(6, "04AAAAAA")                               # and the first one back after it
    assert [events.scan().tag for _ in range(2)] == ["04BBBBBB", "04AAAAAA"]
    assert reader.counts["scans"] == 4 and reader.counts["repeats"] == 2


# ---------------------------------------------------------------- cables and firmware


def test_unplug_and_replug(end, events, readers):
    reader = connected(end, events, readers)
    end.unplug()
    lost = events.status("lost")
    assert "retrying" in lost.detail and lost.params["port"] == end.link
    eventually(lambda: reader.counts["open_failures"] >= 3)   # several failed retries...
    assert [e.status for e in events.drain() if isinstance(e, ev.DeviceStatus)] == [
        "connected", "lost"]                          # ...said only once
    end.plug()
    assert end.read_request() == sp.HELLO_REQUEST     # the reader reopened and asks who we are
    end.write(encode(Hello(5, 2, "0.2.0", "MFRC522", "ok")))
    assert events.status("back").detail.endswith("works again")
    end.write(encode(Scan(6, "04A1B2C3")))
    assert events.scan().tag == "04A1B2C3"
    assert reader.counts["lost"] == 1


def test_reconnect_waits_grow_and_are_capped(tmp_path, events, readers):
    attempts = []

    def refuse(url, **kw):
        attempts.append(time.monotonic())
        raise serial.SerialException(2, f"could not open port {url}: [Errno 2] No such file")
    reader = readers(str(tmp_path / "nothing"), events, open_port=refuse,
                     first_retry=0.01, reconnect_max=0.08)
    assert "does not exist (scanner unplugged?)" in events.status("lost").detail
    eventually(lambda: len(attempts) >= 8)
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    for gap, wanted in zip(gaps, [0.01, 0.02, 0.04, 0.08, 0.08, 0.08, 0.08], strict=False):
        assert gap >= wanted * 0.95
    assert reader.status == "lost" and len([e for e in events.drain()
                                            if isinstance(e, ev.DeviceStatus)]) == 1


def test_a_vanished_port_is_lost_even_if_reads_just_time_out(end, events, readers):
    reader = connected(end, events, readers)
    os.unlink(end.link)                               # udev removed the symlink
    assert "vanished" in events.status("lost").params["reason"]
    os.symlink(os.ttyname(end.slave), end.link)
    end.read_request()
    end.write(HELLO)
    events.status("back")
    assert reader.counts["opens"] == 2


def test_a_silent_protocol_scanner_is_lost_and_comes_back(end, events, readers):
    reader = connected(end, events, readers, lost_after=0.3)
    end.write(encode(Heartbeat(1, 2, "ok")))
    lost = events.status("lost")
    assert "no heartbeat" in lost.params["reason"]
    assert end.read_request() == sp.HELLO_REQUEST     # it reopened and asked again
    end.write(encode(Hello(2, 2, "0.2.0", "MFRC522", "ok")))
    events.status("back")
    assert reader.counts["lost"] == 1


def test_socket_url_to_a_server_that_stops_and_restarts(events, readers):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    srv.listen(1)
    srv.settimeout(scaled(5))
    reader = readers(f"socket://127.0.0.1:{port}", events)
    conn, _ = srv.accept()
    events.status("connected")
    assert conn.recv(100) == sp.HELLO_REQUEST
    conn.sendall(HELLO + encode(Scan(1, "04A1B2C3")))
    assert events.scan().tag == "04A1B2C3"
    conn.close()                                      # the server goes away
    srv.close()
    assert "socket disconnected" in events.status("lost").params["reason"]
    eventually(lambda: reader.counts["opens"] == 1)
    srv = socket.socket()                             # and comes back on the same port
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(1)
    srv.settimeout(scaled(5))
    conn, _ = srv.accept()
    assert conn.recv(100) == sp.HELLO_REQUEST
    conn.sendall(encode(Hello(2, 2, "0.2.0", "MFRC522", "ok")) + encode(Scan(3, "04D4E5F6")))
    events.status("back")
    assert events.scan().tag == "04D4E5F6"
    conn.close()
    srv.close()


def test_unsupported_firmware_is_reported_and_its_scans_ignored(end, events, readers):
    reader = readers(end.link, events)
    events.status("connected")
    end.read_request()
    end.write(encode(Hello(0, 3, "3.0.0", "MFRC522", "ok")) + encode(Scan(1, "04A1B2C3")))
    status = events.status("unsupported_firmware")
    assert "protocol version 3" in status.detail and "versions 1 and 2" in status.detail
    assert "firmware/README.md" in status.detail
    eventually(lambda: reader.counts["ignored_unsupported"] == 1)
    end.write(encode(Hello(2, 2, "0.2.0", "MFRC522", "ok")) + encode(Scan(3, "04D4E5F6")))
    events.status("back")                             # reflashed
    assert events.scan().tag == "04D4E5F6"
    assert not [e for e in events.seen if isinstance(e, ev.CardScanned) and e.tag == "04A1B2C3"]


def test_the_nfc_chip_failing_inside_the_box_is_reported_on_change(end, events, readers):
    connected(end, events, readers)
    end.write(encode(Error(1, "reader_not_responding", "no_answer"))
              + encode(Heartbeat(2, 4, "not_responding"))
              + encode(Heartbeat(3, 6, "not_responding")))
    down = events.status("not_responding")
    assert "(no_answer)" in down.detail and "wiring" in down.detail
    end.write(encode(Error(4, "reader_reinitialised", "recovered")) + encode(Heartbeat(5, 8, "ok")))
    assert events.status("back").params["reader"] == "ok"
    end.write(encode(Scan(6, "04A1B2C3")))
    events.scan()
    statuses = [e.status for e in events.seen if isinstance(e, ev.DeviceStatus)]
    assert statuses == ["connected", "not_responding", "back"]


def test_permission_denied_says_what_to_do(events, readers):
    def denied(url, **kw):
        raise serial.SerialException(13, f"could not open port {url}: [Errno 13] Permission denied")
    readers("/dev/ttyACM0", events, open_port=denied)
    assert "dialout" in events.status("lost").detail


def test_a_port_setting_that_is_no_port_is_unavailable_and_stops(events, readers):
    reader = readers("nonsense://x", events)
    status = events.status("unavailable")
    assert "[scanner] port 'nonsense://x'" in status.detail
    eventually(lambda: not reader.running)


def test_no_port_configured_means_no_scanner(events):
    reader = ScannerReader.from_config(config.defaults(), events).start()
    assert not reader.enabled and not reader.running
    reader.close()
    assert events.drain() == []


def test_from_config_reads_the_scanner_section(tmp_path, events):
    path = tmp_path / "c.toml"
    path.write_text('[scanner]\nport = "loop://"\nrepeat_window = 0.5\nmax_line = 64\n'
                    'reconnect_max_seconds = 2.0\n')
    reader = ScannerReader.from_config(config.load(str(path)), events)
    assert (reader.url, reader.repeat_window, reader.stream.framer.max_line,
            reader.reconnect_max) == ("loop://", 0.5, 64, 2.0)


def test_loop_url_works_and_its_echo_of_the_hello_request_is_no_card(events, readers):
    # loop:// hands back what the host writes: "?HELLO" comes back as a plain line,
    # which must not become a card called "?HELLO".
    reader = readers("loop://", events, plain_pattern=sp.DEFAULT_PLAIN_PATTERN)
    events.status("connected")
    eventually(lambda: reader.counts["echoes"] == 1)
    reader._port.write(b"CR0042\r")
    assert events.scan() == ev.CardScanned("CR0042", "barcode", events.seen[-1].at)
    assert reader.counts["scans"] == 1


def test_close_is_prompt_even_mid_read(end, events):
    reader = ScannerReader(end.link, events, read_timeout=scaled(30)).start()
    events.status("connected")
    started = time.monotonic()
    reader.close()                  # does not wait out the read's 30 s
    assert not reader.running and time.monotonic() - started < scaled(2)


def test_drop_log_is_rate_limited(caplog):
    clock = FakeClock()
    drop = DropLog(burst=5, window=60)
    caplog.set_level(logging.WARNING, "companion.scanner")
    for n in range(8):
        drop(clock(), "bad line %d", n)
    assert [r.getMessage() for r in caplog.records] == [f"bad line {n}" for n in range(5)]
    clock.advance(61)
    drop(clock(), "bad line %d", 8)
    assert [r.getMessage() for r in caplog.records][5:] == [
        "scanner: 3 more bad lines dropped in the last 60 s", "bad line 8"]


# --------------------------------------------------------------- firmware -> pty -> reader -> table

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware" / "scanner"
FAKES = Path(__file__).resolve().parent / "fakes" / "micropython"
_NAMES = ("machine", "micropython", "utime", "sim_mfrc522", "scanproto", "mfrc522", "scanapp",
          "usbserial", "scanconf")


@contextlib.contextmanager
def micropython_env():
    """Import the firmware and the MicroPython fakes by their flat names, then hide them
    again (tests/test_firmware.py does the same with its own copies)."""
    saved_path, saved = list(sys.path), {n: sys.modules.pop(n) for n in _NAMES
                                         if n in sys.modules}
    sys.path[:0] = [str(FIRMWARE), str(FAKES)]
    try:
        yield
    finally:
        sys.path[:] = saved_path
        for name in _NAMES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


with micropython_env():
    import machine
    import mfrc522
    import scanapp
    import sim_mfrc522 as sim
    import utime


def test_firmware_to_pty_to_reader_to_table_loop(end):
    machine.reset_fakes()
    chip = sim.SimMFRC522().attach(bus=0, cs=17, rst=20)
    nfc = mfrc522.MFRC522(machine.SPI(0), machine.Pin(17, machine.Pin.OUT, value=1),
                          machine.Pin(20, machine.Pin.OUT, value=1))
    fw_clock = utime.FakeClock(0)
    app = scanapp.ScannerApp(nfc, lambda line: end.write(line.encode("ascii")), fw_clock)

    loop = TableLoop(Session(catalog=Catalog.example()))
    rec = Recorder()
    loop.subscribe(rec)
    loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                              "players": ["Ana", "Ben", "Chloe"]}))
    loop.start()
    reader = ScannerReader(end.link, loop.post, read_timeout=0.05).start()
    try:
        rec.wait_for(lambda u: getattr(u.event, "status", None) == "connected")
        app.start(fw_clock.ticks_ms())                # boots: HELLO seq 0
        app.handle_input(end.read_request().decode())   # answers the host's ?HELLO
        eventually(lambda: reader.firmware is not None)

        def put(uid):
            tag = chip.place(sim.Tag.from_hex(uid))
            for _ in range(30):                       # 300 ms of the firmware's main loop
                fw_clock.advance(10)
                app.step(fw_clock.ticks_ms())
            chip.remove(tag)

        put("04A1B2C3D4E5F6")                         # an NFC sticker no catalog knows
        u = rec.wait_for(lambda u: isinstance(u.event, ev.CardScanned))
        assert u.event.source == "nfc" and u.accepted
        assert u.happened == (CardIdentified("Ana", 1, "04A1B2C3D4E5F6"),
                              UnknownCard("04A1B2C3D4E5F6"))   # -> "enroll this card?"
        game = loop.table.game
        assert game.players[0].queue[0][0].tag == "04A1B2C3D4E5F6"   # card 1, Ana's first queue

        put("DEADBEEF")
        u = rec.wait_for(lambda u: isinstance(u.event, ev.CardScanned)
                         and u.event.tag == "DEADBEEF")
        assert u.happened[0] == CardIdentified("Ana", 1, "DEADBEEF")
        assert loop.table.game.players[0].queue[0][1].tag == "DEADBEEF"   # card 2

        put("04A1B2C3D4E5F6")                         # Ana's identified card again: completed
        u = rec.wait_for(lambda u: isinstance(u.event, ev.CardScanned) and u.happened
                         and u.happened[0].kind == "order_completed")
        assert u.happened[0].tag == "04A1B2C3D4E5F6" and loop.table.game.players[0].likes == 1
        assert reader.counts["missed"] == 0 and reader.stream.counts["bad_checksum"] == 0
    finally:
        reader.close()
        loop.stop()


def test_an_unexpected_error_in_the_reader_is_a_lost_scanner_not_a_dead_thread(end, events,
                                                                              readers):
    reader = connected(end, events, readers)
    original, calls = reader.protocol.data_received, []

    def broken(data, now):                           # a bug on the first scan only
        calls.append(data)
        if len(calls) == 1:
            raise RuntimeError("bug")
        return original(data, now)
    reader.protocol.data_received = broken
    end.write(encode(Scan(1, "04A1B2C3")))
    assert "internal error" in events.status("lost").params["reason"]
    assert end.read_request() == sp.HELLO_REQUEST   # it reopened the port
    end.write(encode(Hello(2, 2, "0.2.0", "MFRC522", "ok")) + encode(Scan(3, "04D4E5F6")))
    events.status("back")
    assert events.scan().tag == "04D4E5F6" and reader.running


def test_a_second_reader_on_the_same_port_is_told_it_is_busy(end, events, readers):
    connected(end, events, readers)
    second = Events()
    readers(end.link, second)
    assert "is busy: another program has it open (the companion service?" in \
        second.status("lost").detail
    end.write(encode(Scan(1, "04A1B2C3")))
    assert events.scan().tag == "04A1B2C3"          # the first reader still gets whole lines


# ---------------------------------------------------------------- a scanner talking nonsense

REPL = (b"MicroPython v1.22.0 on 2024-01-05; Raspberry Pi Pico with RP2040\r\n"
        b"Type \"help()\" for more information.\r\n>>> ?HELLO\r\n"
        b"Traceback (most recent call last):\r\n  File \"<stdin>\", line 1\r\n"
        b"SyntaxError: invalid syntax\r\n>>> \r\n")


def cards(events):
    return [e for e in events.drain() if isinstance(e, ev.CardScanned)]


@pytest.mark.parametrize("mode", [None, sp.DEFAULT_PLAIN_PATTERN], ids=["protocol", "plain"])
def test_a_crashed_pico_answering_from_its_repl_is_no_card_and_says_so(end, events, readers,
                                                                         mode):
    reader = readers(end.link, events, plain_pattern=mode)
    events.status("connected")
    assert end.read_request() == sp.HELLO_REQUEST
    end.write(REPL)                                   # a fresh port: the REPL answers
    garbled = events.status("garbled")
    assert "not responding properly" in garbled.detail and "REPL" in garbled.detail
    assert "re-flash the scanner: firmware/README.md" in garbled.detail
    end.write(HELLO + encode(Scan(1, "04A1B2C3")))     # re-flashed: valid lines again
    events.status("back")
    assert events.scan().tag == "04A1B2C3"
    end.unplug()                                      # re-plugged after speaking protocol
    events.status("lost")
    end.plug()
    assert end.read_request() == sp.HELLO_REQUEST
    end.write(REPL * 2 + HELLO + encode(Scan(2, "04D4E5F6")))
    assert events.scan().tag == "04D4E5F6"
    assert [c.tag for c in cards(events)] == ["04A1B2C3", "04D4E5F6"]   # nothing else
    assert reader.counts["scans"] == 2


def test_a_megabyte_of_noise_gives_no_card_and_valid_scans_still_work(end, events, readers):
    reader = connected(end, events, readers, lost_after=3600)
    end.write(encode(Scan(1, "04000001")))
    assert events.scan().tag == "04000001"
    noise = random.Random(9).randbytes(1 << 20)
    for at in range(0, len(noise), 1 << 16):          # the pty takes it in pieces
        end.write(noise[at:at + (1 << 16)])
    end.write(b"\n" + encode(Scan(2, "04000002")))
    assert events.scan(timeout=10).tag == "04000002"
    assert [c.tag for c in cards(events)] == ["04000001", "04000002"]    # nothing else
    assert [e.status for e in events.seen if isinstance(e, ev.DeviceStatus)] == [
        "connected", "garbled", "back"]
    assert reader.counts["scans"] == 2


def test_eight_megabytes_without_a_line_end_are_one_dropped_line(end, events, readers):
    reader = connected(end, events, readers, lost_after=3600)
    chunk = b"A" * (1 << 20)
    for _ in range(8):
        end.write(chunk)
    end.write(b"\n" + encode(Scan(1, "04000003")))
    assert events.scan(timeout=10).tag == "04000003"
    assert reader.stream.counts["too_long"] == 1 and reader.stream.framer.pending == 0


def test_a_line_split_at_every_boundary_is_one_scan(end, events, readers):
    connected(end, events, readers)
    for cut in range(1, len(encode(Scan(1, "04A1B2C3")))):
        line = encode(Scan(cut, f"{cut:08X}"))
        end.write(line[:cut])
        end.write(line[cut:])
        assert events.scan().tag == f"{cut:08X}"


def test_every_one_and_two_bit_flip_of_a_scan_line_is_no_card(end, events, readers):
    reader = connected(end, events, readers, lost_after=3600, repeat_window=0)
    line = encode(Scan(7, "04A1B2C3D4E5F6"))[:-1]
    bits = len(line) * 8
    damaged = bytearray()
    for i in range(bits):
        for j in range(i + 1, min(bits, i + 9)):      # single flips and nearby pairs
            flipped = bytearray(line)
            flipped[i // 8] ^= 1 << (i % 8)
            if j != i + 1 or i % 3 == 0:
                flipped[j // 8] ^= 1 << (j % 8)
            damaged += flipped + b"\n"
    end.write(bytes(damaged) + encode(Scan(8, "04000008")))
    assert events.scan(timeout=10).tag == "04000008"   # the only card
    assert reader.counts["scans"] == 1


# ---------------------------------------------------------------- what the table showed


def test_a_scan_read_in_anas_turn_never_completes_an_order_in_bens(end, events, readers):
    """Each scan carries the table's version as its line was read. Ben's card passed
    over the reader while Ana's hold was ending her turn: it would complete Ben's order
    in his new turn; the table loop refuses it instead ("Ben's turn had already begun").
    A new card is never stale."""
    loop = TableLoop(Session())
    loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                              "players": ["Ana", "Ben", "Chloe"], "start": "Ana"}))
    loop.drain()

    def post(event):
        events(event)
        loop.post(event)
    reader = readers(end.link, post, turn_now=loop.turn_now, repeat_window=0.0)
    events.status("connected")
    assert end.read_request() == sp.HELLO_REQUEST
    end.write(HELLO)
    eventually(lambda: reader.firmware is not None)
    for n, tag in enumerate(["04A00001", "04A00002", "04A00003", "04B00001"], 1):
        end.write(encode(Scan(n, tag)))      # Ana's three cards, then Ben's first
        assert events.scan().tag == tag
    scans = [u for u in loop.drain() if isinstance(u.event, ev.CardScanned)]
    assert len(scans) == 4 and all(u.accepted for u in scans)
    assert loop.table.game.players[1].find("04B00001") is not None
    loop.post(ev.SeatHold(0))                # Ana's hold, not yet applied...
    end.write(encode(Scan(5, "04B00001")))   # ...as Ben's card is read
    end.write(encode(Scan(6, "04C00001")))   # and Chloe's first, new card
    late, new = events.scan(), events.scan()
    assert (late.seen.turn, late.seen.active) == (new.seen.turn, new.seen.active) == (1, 0)
    hold, refused, named = [u for u in loop.drain() if not isinstance(u.event, ev.DeviceStatus)]
    assert hold.accepted and loop.table.game.active == 1
    assert refused.rejection.code == "stale_turn" and refused.rejection.params == {"player": "Ben"}
    assert loop.table.game.players[1].likes == 0          # Ben's order is still there
    assert named.accepted and named.happened[0].tag == "04C00001"
