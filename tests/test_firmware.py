"""The scanner firmware's logic under CPython: fake machine, fake clock, simulated MFRC522.

The firmware modules are imported exactly as on the Pico (flat names from
firmware/scanner), with tests/fakes/micropython standing in for the
MicroPython runtime. Every line the firmware writes is decoded with the
host codec, so the two halves of protocol v1 are checked against each other.
"""
import contextlib
import importlib
import importlib.util
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.devices import scanner_protocol as host
from companion.devices.scanner_protocol import Error, Heartbeat, Hello, Scan

# Fixed examples: the same run every time (no flaky CI, no .hypothesis folder).
FIXED = settings(derandomize=True, database=None, deadline=None)

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware" / "scanner"
FAKES = Path(__file__).resolve().parent / "fakes" / "micropython"
_NAMES = ("machine", "micropython", "utime", "sim_mfrc522",
          "scanproto", "mfrc522", "scanapp", "usbserial", "scanconf")
_LOADED = {}


@contextlib.contextmanager
def micropython_env():
    """Firmware + fakes importable by their flat names, only inside the block."""
    saved_path = list(sys.path)
    sys.path[:0] = [str(FIRMWARE), str(FAKES)]
    sys.modules.update(_LOADED)
    try:
        yield
    finally:
        sys.path[:] = saved_path
        for name in _NAMES:
            module = sys.modules.pop(name, None)
            if module is not None:
                _LOADED[name] = module


with micropython_env():
    for _name in _NAMES:
        sys.modules.pop(_name, None)
    import machine
    import mfrc522
    import scanapp
    import scanconf
    import scanproto
    import sim_mfrc522 as sim
    import usbserial
    import utime


@pytest.fixture(autouse=True)
def fresh_hardware():
    machine.reset_fakes()
    utime.reset()
    yield


@pytest.fixture
def chip():
    return sim.SimMFRC522().attach(bus=0, cs=17, rst=20)


def make_reader(wait_loops=50):
    spi = machine.SPI(0)
    cs = machine.Pin(17, machine.Pin.OUT, value=1)
    rst = machine.Pin(20, machine.Pin.OUT, value=1)
    return mfrc522.MFRC522(spi, cs, rst, wait_loops=wait_loops)


class Table:
    """A scanner app on a fake clock, with everything it wrote decoded by the host."""

    def __init__(self, reader, start_ms=0, **timing):
        self.clock = utime.FakeClock(start_ms)
        self.raw = []
        self.led = machine.Pin("LED", machine.Pin.OUT)
        self.app = scanapp.ScannerApp(reader, self.raw.append, self.clock, led=self.led, **timing)
        self.app.start(self.clock.ticks_ms())

    def run(self, ms, step=10):
        """Let ``ms`` milliseconds pass, stepping the main loop every ``step`` ms."""
        for _ in range(ms // step):
            self.clock.advance(step)
            self.app.step(self.clock.ticks_ms())

    def messages(self):
        out = []
        for line in self.raw:
            assert line.endswith("\n") and len(line) - 1 <= host.MAX_LINE
            message = host.decode_line(line.encode("ascii"))
            assert not isinstance(message, host.DecodeFailure), (line, message)
            out.append(message)
        return out

    def of(self, kind):
        return [m for m in self.messages() if isinstance(m, kind)]

    def take(self):
        """Messages since the last take()."""
        out = self.messages()
        self.raw.clear()
        return out


# ---------------------------------------------------------------- scanproto


@FIXED
@given(st.binary(max_size=100))
def test_firmware_crc16_matches_host(data):
    assert scanproto.crc16(data) == host.crc16(data)


@FIXED
@given(st.integers(0, 65535), st.lists(st.text(max_size=30), max_size=4))
def test_any_frame_decodes_on_the_host(seq, fields):
    clean = [scanproto.clean_field(f) or "x" for f in fields]
    line = scanproto.frame("ERROR", seq, ["some_code"] + clean)
    assert line.endswith("\n") and len(line) - 1 <= scanproto.MAX_LINE
    message = host.decode_line(line.encode())
    assert isinstance(message, Error) and message.seq == seq and message.code == "some_code"


def test_frame_matches_the_worked_example():
    assert scanproto.frame("SCAN", 42, ["04A1B2C3"]) == "$SCAN,42,04A1B2C3*FC51\n"
    assert scanproto.hex_uid(b"\x04\xa1\xb2\xc3") == "04A1B2C3"


def test_frame_shortens_an_over_long_detail_instead_of_failing():
    line = scanproto.frame("ERROR", 65535, ["reader_not_responding", "z" * 200])
    assert len(line) == scanproto.MAX_LINE + 1
    detail = "z" * (80 - len("$ERROR,65535,reader_not_responding,*CCCC"))
    assert host.decode_line(line.encode()) == Error(65535, "reader_not_responding", detail)


def test_clean_field_removes_protocol_characters():
    assert scanproto.clean_field("a,b*c$d\ne\xe9") == "a_b_c_d_e_"
    assert scanproto.clean_field("x" * 50) == "x" * 24


def test_sequence_starts_at_zero_once_and_wraps_to_one():
    seq = scanproto.Sequence()
    assert [seq.take() for _ in range(3)] == [0, 1, 2]
    seq._next = 65534
    assert [seq.take() for _ in range(4)] == [65534, 65535, 1, 2]


def test_request_reader_lines_and_overflow():
    reader = scanproto.RequestReader()
    assert reader.feed("?HEL") == []
    assert reader.feed("LO\r\n  ?hello \n\n") == ["?HELLO", "?hello"]
    assert reader.feed("x" * 40) == []
    assert reader.overflows == 1
    assert reader.feed("more\r?HELLO\n") == ["?HELLO"]


def test_host_and_firmware_agree_on_the_request_and_limits():
    assert (scanproto.HELLO_REQUEST + "\n").encode() == host.HELLO_REQUEST
    assert host.MAX_LINE == scanproto.MAX_LINE
    assert host.SEQ_MAX == scanproto.SEQ_MAX
    assert host.PROTOCOL_VERSION == scanproto.PROTOCOL_VERSION
    assert host.HEARTBEAT_PERIOD_S * 1000 == scanconf.HEARTBEAT_MS
    assert (host.ERROR_READER_NOT_RESPONDING, host.ERROR_READER_REINITIALISED,
            host.ERROR_UNKNOWN_REQUEST, host.ERROR_REQUEST_TOO_LONG) == (
        scanapp.ERR_NOT_RESPONDING, scanapp.ERR_REINITIALISED,
        scanapp.ERR_UNKNOWN_REQUEST, scanapp.ERR_REQUEST_TOO_LONG)
    assert (scanapp.STATUS_OK, scanapp.STATUS_DOWN) == host.READER_STATUSES


# ---------------------------------------------------------------- MFRC522 driver


def test_crc_a_known_value_and_matches_bitwise_reference():
    assert mfrc522.crc_a(b"\x50\x00") == b"\x57\xcd"            # HLTA 50 00 57 CD


@FIXED
@given(st.binary(max_size=20))
def test_crc_a_matches_the_simulator(data):
    assert mfrc522.crc_a(data) == sim.iso_crc_a(data)


def test_init_configures_the_chip(chip):
    reader = make_reader()
    assert reader.init()
    assert reader.version == 0x92
    assert chip.antenna_on
    assert chip.regs[0x2A] == 0x80 and chip.regs[0x26] == 0x70
    assert reader.check() is None


@pytest.mark.parametrize("uid", ["DEADBEEF", "04A1B2C3D4E5F6", "0102030405060708090A"])
def test_reads_4_7_and_10_byte_uids(chip, uid):
    reader = make_reader()
    reader.init()
    tag = chip.place(sim.Tag.from_hex(uid))
    assert reader.read_uid() == bytes.fromhex(uid)
    assert tag.state == "HALT"                     # halted after the read...
    assert reader.read_uid() == bytes.fromhex(uid)  # ...and woken again by WUPA
    assert tag.selects == 2


def test_no_card_means_none(chip):
    reader = make_reader()
    reader.init()
    assert reader.read_uid() is None
    assert not reader.stalled


def test_two_cards_at_once_read_nothing_rather_than_a_mix(chip):
    reader = make_reader()
    reader.init()
    chip.place(sim.Tag.from_hex("04A1B2C3D4E5F6"))
    chip.place(sim.Tag.from_hex("04112233445566"))
    assert reader.read_uid() is None


def test_damaged_anticollision_answer_is_rejected(chip):
    class BadBcc(sim.Tag):
        def receive(self, data, tx_bits):
            answer = super().receive(data, tx_bits)
            if answer is not None and len(answer) == 5:
                answer = answer[:4] + bytes([answer[4] ^ 0x01])
            return answer
    reader = make_reader()
    reader.init()
    chip.place(BadBcc.from_hex("DEADBEEF"))
    assert reader.read_uid() is None


@pytest.mark.parametrize("dead_value", [0x00, 0xFF])
def test_dead_reader_detected(chip, dead_value):
    reader = make_reader()
    assert reader.init()
    chip.unplug(dead_value)
    assert reader.check() == "no_answer"
    assert reader.init() is False


def test_chip_that_reset_itself_lost_its_config(chip):
    reader = make_reader()
    reader.init()
    chip.brownout()
    assert reader.check() == "config_lost"
    assert reader.init() and reader.check() is None


def test_stuck_transceive_is_a_timeout(chip):
    reader = make_reader(wait_loops=20)
    reader.init()
    chip.stuck = True
    chip.place(sim.Tag.from_hex("DEADBEEF"))
    assert reader.read_uid() is None
    assert reader.check() == "timeout"
    assert reader.check() is None                  # reported once


def test_rst_pin_resets_the_chip(chip):
    reader = make_reader()
    reader.init()
    chip.regs[0x2A] = 0x12
    assert reader.init()
    assert chip.regs[0x2A] == 0x80
    assert machine.pins[20].history[-2:] == [0, 1]


# ---------------------------------------------------------------- the app


@pytest.fixture
def table(chip):
    return Table(make_reader())


def test_boot_says_hello_with_seq_zero(table):
    assert table.messages() == [Hello(0, 2, scanapp.FIRMWARE_VERSION, "MFRC522", "ok")]
    assert table.led.value() == 1


def test_heartbeat_every_two_seconds(table):
    times = []
    for _ in range(1000):                          # 10 s in 10 ms steps
        table.clock.advance(10)
        before = len(table.raw)
        table.app.step(table.clock.ticks_ms())
        if len(table.raw) > before:
            times.append(table.clock.now_ms)
    beats = table.of(Heartbeat)
    assert times == [2000, 4000, 6000, 8000, 10000]
    assert [b.uptime_s for b in beats] == [2, 4, 6, 8, 10]
    assert [b.seq for b in beats] == [1, 2, 3, 4, 5]


def test_heartbeat_does_not_burst_after_a_stall(table):
    table.clock.advance(7000)                      # the loop hung for 7 s
    table.app.step(table.clock.ticks_ms())
    table.run(1990)
    assert len(table.of(Heartbeat)) == 1
    table.run(20)
    assert len(table.of(Heartbeat)) == 2


def test_timing_survives_the_tick_counter_wrapping(chip):
    start = utime.TICKS_PERIOD - 3000              # wraps 3 s after boot
    t = Table(make_reader(), start_ms=start)
    t.run(10000)
    beats = t.of(Heartbeat)
    assert [b.uptime_s for b in beats] == [2, 4, 6, 8, 10]


def test_card_left_on_the_reader_is_reported_once(chip, table):
    table.take()
    chip.place(sim.Tag.from_hex("04A1B2C3D4E5F6"))
    table.run(10000)
    assert table.of(Scan) == [Scan(1, "04A1B2C3D4E5F6")]
    assert chip.field[0].selects > 50              # it really was read over and over


def test_card_lifted_briefly_is_not_a_new_scan(chip, table):
    tag = chip.place(sim.Tag.from_hex("DEADBEEF"))
    table.run(500)
    chip.remove(tag)
    table.run(500)                                 # shorter than RELEASE_MS
    chip.place(tag)
    table.run(500)
    assert len(table.of(Scan)) == 1


def test_card_removed_then_put_back_is_scanned_again(chip, table):
    tag = chip.place(sim.Tag.from_hex("DEADBEEF"))
    table.run(500)
    chip.remove(tag)
    table.run(1500)
    chip.place(tag)
    table.run(500)
    assert [s.uid for s in table.of(Scan)] == ["DEADBEEF", "DEADBEEF"]


def test_swapping_cards_reports_the_new_one_at_once(chip, table):
    first = chip.place(sim.Tag.from_hex("DEADBEEF"))
    table.run(300)
    chip.remove(first)
    chip.place(sim.Tag.from_hex("04A1B2C3D4E5F6"))
    table.run(200)
    assert [s.uid for s in table.of(Scan)] == ["DEADBEEF", "04A1B2C3D4E5F6"]


def test_led_winks_off_after_a_scan(chip, table):
    chip.place(sim.Tag.from_hex("DEADBEEF"))
    table.run(100)
    assert table.of(Scan) and table.led.value() == 0
    table.run(300)
    assert table.led.value() == 1


def test_reader_that_dies_and_comes_back(chip, table):
    tag = chip.place(sim.Tag.from_hex("DEADBEEF"))
    table.run(500)
    table.take()
    chip.unplug(0x00)
    table.run(1000)
    assert table.take() == [Error(2, "reader_not_responding", "no_answer")]
    table.run(3000)                                # retries keep failing quietly
    beats = table.of(Heartbeat)
    assert beats and all(b.reader_status == "not_responding" for b in beats)
    assert not table.of(Scan) and not table.of(Error)
    levels = set()
    for _ in range(10):
        table.run(100)
        levels.add(table.led.value())
    assert levels == {0, 1}                        # blinking
    table.raw.clear()
    chip.remove(tag)                               # card lifted while the reader was out
    chip.plug_in()
    table.run(1000)
    assert [(e.code, e.detail) for e in table.of(Error)] == [("reader_reinitialised", "recovered")]
    table.raw.clear()
    chip.place(tag)
    table.run(2000)
    assert [s.uid for s in table.of(Scan)] == ["DEADBEEF"]
    assert table.of(Heartbeat)[-1].reader_status == "ok"
    table.app.send_hello()
    assert table.of(Hello)[-1].reader_status == "ok"


def test_chip_reset_by_itself_is_reinitialised(chip, table):
    table.take()
    chip.brownout()
    table.run(1000)
    assert table.take() == [Error(1, "reader_reinitialised", "config_lost")]
    assert chip.antenna_on and table.app.reader_ok


def test_boot_without_a_reader(chip):
    chip.unplug(0xFF)
    t = Table(make_reader())
    assert t.take() == [Hello(0, 2, scanapp.FIRMWARE_VERSION, "MFRC522", "not_responding"),
                        Error(1, "reader_not_responding", "no_answer")]
    chip.plug_in()
    t.run(1000)
    assert [m.code for m in t.of(Error)] == ["reader_reinitialised"]


def test_hello_on_request(table):
    table.app.handle_input("?HEL")
    table.app.handle_input("LO\r\n")
    table.app.handle_input("?hello\n")
    hellos = table.of(Hello)
    assert [h.seq for h in hellos] == [0, 1, 2]


def test_unknown_and_too_long_requests(table):
    table.take()
    table.app.handle_input("?STATUS\n" + "?" + "A" * 60 + "\n")
    assert table.take() == [Error(1, "unknown_request", "?STATUS"),
                            Error(2, "request_too_long", "")]


def test_every_line_in_a_long_session_decodes_without_gaps(chip, table):
    stream = host.ScannerStream()
    tags = [sim.Tag.from_hex(u) for u in ("DEADBEEF", "04A1B2C3D4E5F6", "CAFEF00D")]
    for i in range(30):
        chip.place(tags[i % 3])
        table.run(400)
        chip.remove(tags[i % 3])
        table.run(1200)
        if i == 10:
            chip.unplug()
            table.run(3000)
            chip.plug_in()
            table.run(1000)
        if i % 7 == 0:
            table.app.handle_input("?HELLO\n")
    received = stream.feed("".join(table.raw).encode())
    assert stream.counts["messages"] == len(table.raw) and len(received) == len(table.raw)
    assert stream.tracker.total_missed == 0 and stream.tracker.restarts == 0
    assert len([r for r in received if isinstance(r.item, Scan)]) == 30


class FlakyReader:
    """A reader whose bus throws: the app must keep going."""
    model = "MFRC522"

    def __init__(self):
        self.fail = False

    def init(self):
        if self.fail:
            raise OSError(5)
        return True

    def check(self):
        if self.fail:
            raise OSError(5)
        return None

    def read_uid(self):
        if self.fail:
            raise OSError(5)
        return None


def test_bus_exceptions_become_error_lines():
    reader = FlakyReader()
    t = Table(reader)
    t.take()
    reader.fail = True
    t.run(200)
    assert t.take() == [Error(1, "reader_not_responding", "bus_error")]
    reader.fail = False
    t.run(1000)
    assert [m.code for m in t.of(Error)] == ["reader_reinitialised"]


def test_write_failures_are_counted_not_fatal(chip):
    def broken(line):
        raise OSError(11)
    app = scanapp.ScannerApp(make_reader(), broken, utime.FakeClock())
    app.start(0)
    app.step(2000)
    assert app.write_failures == 2


def test_debouncer_on_its_own():
    d = scanapp.CardDebouncer(utime.FakeClock.ticks_diff, release_ms=1000)
    assert d.update(b"\x01", 0) == b"\x01"
    assert d.update(b"\x01", 100) is None
    assert d.update(None, 1099) is None and d.present == b"\x01"
    assert d.update(None, 1100) is None and d.present is None
    assert d.update(b"\x01", 1200) == b"\x01"


# ---------------------------------------------------------------- USB link and main.py


class FakeStdin:
    def __init__(self, text=""):
        self.pending = list(text)

    def read(self, n):
        return self.pending.pop(0) if self.pending else ""


class FakePoll:
    def __init__(self, stdin):
        self.stdin = stdin

    def poll(self, timeout):
        assert timeout == 0                        # never block the scan loop
        return [(self.stdin, 1)] if self.stdin.pending else []


class FakeStdout:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s


def test_usb_serial_reads_only_what_is_waiting():
    stdin = FakeStdin("?HELLO\n" + "x" * 100)
    port = usbserial.UsbSerial(stdin, FakeStdout(), FakePoll(stdin), max_chars=64)
    first = port.read_available()
    assert first.startswith("?HELLO\n") and len(first) == 64
    assert len(port.read_available()) == 43
    assert port.read_available() == ""


def test_usb_serial_accepts_a_bytes_stdin():
    class BytesStdin(FakeStdin):
        def read(self, n):
            return super().read(n).encode("latin-1")
    stdin = BytesStdin("?HI\n")
    assert usbserial.UsbSerial(stdin, FakeStdout(), FakePoll(stdin)).read_available() == "?HI\n"


def load_main():
    with micropython_env():
        spec = importlib.util.spec_from_file_location("scanner_main_under_test",
                                                      FIRMWARE / "main.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


def test_main_wires_spi0_and_runs_the_loop(chip):
    main = load_main()
    assert main.time is utime                      # CPython: the fake clock
    stdin, stdout = FakeStdin(), FakeStdout()
    port = usbserial.UsbSerial(stdin, stdout, FakePoll(stdin))
    tag = chip.place(sim.Tag.from_hex("04A1B2C3D4E5F6"))
    app = main.run(port=port, steps=50)
    assert app.reader_ok and tag.selects > 0
    messages = [host.decode_line(line) for line in stdout.text.encode().splitlines()]
    assert messages[0] == Hello(0, 2, scanapp.FIRMWARE_VERSION, "MFRC522", "ok")
    assert Scan(1, "04A1B2C3D4E5F6") in messages
    assert utime.clock().slept_ms >= 50 * scanconf.LOOP_IDLE_MS   # the fake clock moved
    spi_pins = machine.pins
    assert machine.level(scanconf.PIN_CS) == 1 and machine.level(scanconf.PIN_RST) == 1
    assert {scanconf.PIN_SCK, scanconf.PIN_MOSI, scanconf.PIN_MISO} <= set(spi_pins)
    assert machine.level("LED") == 1


def test_main_answers_hello_requests_from_stdin(chip):
    main = load_main()
    stdin, stdout = FakeStdin("?HELLO\n"), FakeStdout()
    main.run(port=usbserial.UsbSerial(stdin, stdout, FakePoll(stdin)), steps=3)
    hellos = [m for m in map(host.decode_line, stdout.text.encode().splitlines())
              if isinstance(m, Hello)]
    assert [h.seq for h in hellos] == [0, 1]
