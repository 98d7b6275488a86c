"""The scanner's pure protocol-and-health object, fed bytes without any port
(the transport half, a pty closed and reopened, is in test_scanner_reader.py)."""
from hypothesis import given, settings, strategies as st

from companion.core import events as ev
from companion.devices.scanner_meaning import GARBLED_LINES, ScannerProtocol
from companion.devices.scanner_protocol import Heartbeat, Hello, Scan, encode

FIXED = settings(derandomize=True, database=None, deadline=None, max_examples=200)
URL = "/dev/coffee-scanner"
HELLO = encode(Hello(0, 2, "0.2.0", "MFRC522", "ok"))


def statuses(events):
    return [e.status for e in events if isinstance(e, ev.DeviceStatus)]


def scans(events):
    return [e.tag for e in events if isinstance(e, ev.CardScanned)]


def opened(now=0.0, **kw):
    p = ScannerProtocol(URL, **kw)
    assert statuses(p.connection_made(now)) == ["connected"]
    assert p.data_received(HELLO, now) == [] and p.firmware is not None
    return p


def test_the_greeting_is_the_hello_request_and_a_scan_is_one_card():
    p = opened()
    assert p.greeting == b"?HELLO\n"
    got = p.data_received(encode(Scan(1, "04A1B2C3")), 1.0)
    assert got == [ev.CardScanned("04A1B2C3", source="nfc", at=1.0)]
    assert p.counts["scans"] == 1


def test_a_frame_split_into_single_bytes_is_one_scan_when_its_end_arrives():
    p = opened()
    line = encode(Scan(1, "04D4E5F6"))
    out = []
    for i in range(len(line) - 1):
        out += p.data_received(line[i:i + 1], 1.0)
    assert out == []                                     # nothing before the line ends
    assert scans(p.data_received(line[-1:], 1.0)) == ["04D4E5F6"]


def test_two_frames_and_the_start_of_a_third_in_one_read():
    p = opened()
    a, b, c = (encode(Scan(n, tag)) for n, tag in ((1, "04AA0001"), (2, "04AA0002"),
                                                    (3, "04AA0003")))
    assert scans(p.data_received(a + b + c[:5], 1.0)) == ["04AA0001", "04AA0002"]
    assert scans(p.data_received(c[5:], 1.1)) == ["04AA0003"]


def test_a_card_read_twice_within_the_repeat_window_is_one_scan():
    p = opened(repeat_window=2.0)
    line = encode(Scan(1, "04A1B2C3"))
    assert scans(p.data_received(line, 10.0)) == ["04A1B2C3"]
    assert scans(p.data_received(encode(Scan(2, "04A1B2C3")), 11.5)) == []   # still lying there
    assert scans(p.data_received(encode(Scan(3, "04A1B2C3")), 13.0)) == []   # window restarts
    assert scans(p.data_received(encode(Scan(4, "04A1B2C3")), 15.5)) == ["04A1B2C3"]
    assert p.counts["scans"] == 2 and p.counts["repeats"] == 2


def test_another_card_between_two_reads_of_the_same_one_makes_three_scans():
    p = opened(repeat_window=2.0)
    tags = ["04A1B2C3", "04D4E5F6", "04A1B2C3"]
    got = [scans(p.data_received(encode(Scan(n + 1, t)), 10.0 + n * 0.1))
           for n, t in enumerate(tags)]
    assert got == [[t] for t in tags]


@FIXED
@given(st.binary(max_size=400))
def test_noise_never_makes_a_card(junk):
    p = opened()
    out = p.data_received(junk.replace(b"$", b"#"), 1.0)
    assert scans(out) == []
    assert set(statuses(out)) <= {"garbled"}


def test_noise_lines_make_it_garbled_and_a_valid_line_brings_it_back():
    p = opened()
    out = p.data_received(b">>> \r\nTraceback (most recent call last):\r\nOSError: 5\r\n", 1.0)
    assert statuses(out) == ["garbled"] and p.counts["bad_lines"] == GARBLED_LINES
    garbled = next(e for e in out if isinstance(e, ev.DeviceStatus))
    assert "re-flash the scanner" in garbled.detail
    assert "MicroPython REPL" in garbled.params["what"]
    back = p.data_received(encode(Heartbeat(1, 30, "ok")), 2.0)
    assert statuses(back) == ["back"] and p.status == "back"


def test_a_damaged_scan_line_is_dropped_and_the_gap_counted():
    p = opened()
    bad = bytearray(encode(Scan(1, "04A1B2C3")))
    bad[5] ^= 0x01
    assert p.data_received(bytes(bad), 1.0) == []
    assert p.stream.counts["bad_checksum"] == 1
    assert scans(p.data_received(encode(Scan(2, "04D4E5F6")), 1.1)) == ["04D4E5F6"]
    assert p.counts["missed"] == 1


def test_lost_then_back_across_a_reconnect_said_once_each():
    p = opened()
    lost = p.connection_lost("the port failed (EIO)")
    assert statuses(lost) == ["lost"] and "check its USB cable" in lost[0].detail
    assert p.connection_lost("does not exist") == []       # retries say nothing new
    assert p.connection_made(5.0) == []                     # opened: "back" once it speaks
    assert statuses(p.data_received(HELLO, 5.1)) == ["back"]
    assert p.counts["lost"] == 1


def test_a_protocol_scanner_gone_silent_is_lost_a_quiet_barcode_module_is_not():
    p = opened(lost_after=6.0)
    assert p.silence(5.9) is None
    assert p.silence(6.0) == "no heartbeat for 6 s"
    barcode = ScannerProtocol(URL, plain_pattern=r"[0-9A-Z]{4,}")
    barcode.connection_made(0.0)
    assert scans(barcode.data_received(b"CR0042\r", 1.0)) == ["CR0042"]
    assert barcode.silence(3600.0) is None


def test_the_hello_request_echoed_back_is_no_card():
    p = ScannerProtocol("loop://", plain_pattern=r"[0-9A-Z?]{4,}")
    p.connection_made(0.0)
    assert p.data_received(p.greeting, 0.1) == [] and p.counts["echoes"] == 1


def test_unsupported_firmware_ignores_its_scans():
    p = ScannerProtocol(URL)
    p.connection_made(0.0)
    out = p.data_received(encode(Hello(0, 9, "9.0.0", "MFRC522", "ok")), 0.1)
    assert "unsupported_firmware" in statuses(out)
    assert p.data_received(encode(Scan(1, "04A1B2C3")), 0.2) == []
    assert p.counts["ignored_unsupported"] == 1
