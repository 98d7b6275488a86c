"""Host side of scanner protocol v1: CRC, lines, framing, sequence gaps, plain codes."""
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.devices import scanner_protocol as sp
from companion.devices.scanner_protocol import (
    BadChecksum, Error, Heartbeat, Hello, LineFramer, Malformed, PlainScan, Scan,
    ScannerStream, SequenceTracker, TooLong, UnknownType, crc8, crc16, decode_line, encode,
    encode_line,
)
from companion.core.events import CardScanned

# Fixed examples: the same run every time (no flaky CI, no .hypothesis folder).
FIXED = settings(derandomize=True, database=None, deadline=None)

PROTOCOL_MD = Path(__file__).resolve().parents[1] / "firmware" / "PROTOCOL.md"


# ---------------------------------------------------------------- CRC-8


def test_crc8_is_crc8_smbus_check_value():
    assert crc8(b"123456789") == 0xF4
    assert crc8(b"") == 0x00


def test_crc16_is_crc16_ccitt_false_check_value():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF


def test_worked_example_from_the_protocol_document():
    # PROTOCOL.md walks through this one (v2) and its v1 form byte by byte.
    assert crc16(b"SCAN,42,04A1B2C3") == 0xFC51
    assert encode(Scan(42, "04A1B2C3")) == b"$SCAN,42,04A1B2C3*FC51\n"
    assert decode_line(b"$SCAN,42,04A1B2C3*FC51") == Scan(42, "04A1B2C3")
    damaged = decode_line(b"$SCAN,42,04A1B2C2*FC51")    # the document's damaged example
    assert isinstance(damaged, BadChecksum) and damaged.expected == crc16(b"SCAN,42,04A1B2C2")
    assert crc8(b"SCAN,42,04A1B2C3") == 0xA1
    assert encode(Scan(42, "04A1B2C3"), version=1) == b"$SCAN,42,04A1B2C3*A1\n"
    assert decode_line(b"$SCAN,42,04A1B2C3*A1") == Scan(42, "04A1B2C3")   # old firmware
    damaged = decode_line(b"$SCAN,42,04A1B2C2*A1")
    assert isinstance(damaged, BadChecksum) and damaged.expected == 0xA6
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    assert "$SCAN,42,04A1B2C3*FC51" in text and "$SCAN,42,04A1B2C3*A1" in text
    assert "0x29B1" in text and "0xF4" in text


def test_a_port_that_spoke_v2_is_no_longer_believed_in_v1():
    stream = ScannerStream()
    v1 = encode(Scan(1, "04A1B2C3"), version=1)
    assert [r.item for r in stream.feed(v1)] == [Scan(1, "04A1B2C3")]   # old firmware: fine
    stream.feed(encode(Hello(2, 2, "0.2.0", "MFRC522", "ok")))
    items = [r.item for r in stream.feed(encode(Scan(3, "04A1B2C3"), version=1))]
    assert isinstance(items[0], Malformed) and "v1" in items[0].reason
    assert [r.item for r in stream.feed(encode(Scan(4, "04D4E5F6")))] == [Scan(4, "04D4E5F6")]


def test_every_example_line_in_the_protocol_document_decodes():
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    examples, fence = [], None          # untagged ``` blocks hold example lines
    for line in text.splitlines():
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
        elif fence == "" and line.startswith("$"):
            examples.append(line.strip())
    assert len(examples) >= 6
    for line in examples:
        result = decode_line(line)
        assert not isinstance(result, sp.DecodeFailure), (line, result)


# ---------------------------------------------------------------- decoding


@pytest.mark.parametrize("line, expected", [
    (b"$HELLO,0,1,0.1.0,MFRC522,ok*A8", Hello(0, 1, "0.1.0", "MFRC522", "ok")),
    (encode(Hello(7, 1, "0.1.0", "MFRC522", "not_responding")).rstrip(),
     Hello(7, 1, "0.1.0", "MFRC522", "not_responding")),
    (encode(Scan(3, "04A1B2C3D4E5F6")).rstrip(), Scan(3, "04A1B2C3D4E5F6")),
    (encode(Scan(3, "0102030405060708090A")).rstrip(), Scan(3, "0102030405060708090A")),
    (encode(Heartbeat(9, 120, "ok")).rstrip(), Heartbeat(9, 120, "ok")),
    (encode(Error(4, "reader_not_responding", "no_answer")).rstrip(),
     Error(4, "reader_not_responding", "no_answer")),
    (encode(Error(5, "request_too_long")).rstrip(), Error(5, "request_too_long", "")),
])
def test_valid_lines_decode_to_typed_messages(line, expected):
    assert decode_line(line) == expected
    assert decode_line(line.decode()) == expected          # str works too
    assert decode_line(line + b"\r\n") == expected         # a stray terminator is fine


def test_lowercase_crc_digits_are_accepted():
    assert decode_line(b"$SCAN,42,04A1B2C3*a1") == Scan(42, "04A1B2C3")


def test_extra_trailing_fields_are_ignored_for_forward_compatibility():
    assert decode_line(encode_line("HEARTBEAT", 2, ["4", "ok", "future"])) == Heartbeat(2, 4, "ok")


def test_bad_checksum_is_reported_not_decoded():
    result = decode_line(b"$SCAN,42,04A1B2C3*A2")
    assert isinstance(result, BadChecksum)
    assert (result.expected, result.received) == (0xA1, 0xA2)


def test_every_single_byte_corruption_is_caught():
    line = encode(Scan(42, "04A1B2C3D4E5F6")).rstrip(b"\n")
    original = decode_line(line)
    for pos in range(len(line)):
        for value in range(256):
            damaged = line[:pos] + bytes([value]) + line[pos + 1:]
            result = decode_line(damaged)
            # Either dropped, or the same message (e.g. 'A6' -> 'a6' in the CRC).
            assert isinstance(result, sp.DecodeFailure) or result == original, damaged


@pytest.mark.parametrize("line, reason", [
    (b"$SCAN,42,04A1B2C3", "no '*'"),
    (b"$*00", "TYPE,SEQ"),
    (encode_line("SCAN", 1, ["04a1b2c3"]), "uppercase hex"),
    (encode_line("SCAN", 1, ["04A1B2"]), "4, 7 or 10 byte"),
    (encode_line("SCAN", 1), "4, 7 or 10 byte"),
    (encode_line("HELLO", 1, ["1", "0.1.0", "MFRC522"]), "HELLO needs"),
    (encode_line("HELLO", 1, ["x", "0.1.0", "MFRC522", "ok"]), "not a number"),
    (encode_line("HELLO", 1, ["1", "0.1.0", "MFRC522", "sleepy"]), "reader status"),
    (encode_line("HEARTBEAT", 1, ["-3", "ok"]), "HEARTBEAT needs"),
    (encode_line("ERROR", 1, ["Bad Code"]), "lowercase code"),
    (b"$SCAN,042," + b"04A1B2C3*" + b"%02X" % crc8(b"SCAN,042,04A1B2C3"), "TYPE,SEQ"),
    (b"$SCAN,70000,04A1B2C3*" + b"%02X" % crc8(b"SCAN,70000,04A1B2C3"), "above 65535"),
    (b"$SC\x01N,1*" + b"%02X" % crc8(b"SC\x01N,1"), "non-printable"),
])
def test_malformed_lines_are_reported(line, reason):
    result = decode_line(line.rstrip(b"\n"))
    assert isinstance(result, Malformed)
    assert reason in result.reason


def test_unknown_type_with_valid_checksum():
    result = decode_line(encode_line("BATTERY", 12, ["87"]))
    assert isinstance(result, UnknownType)
    assert (result.kind, result.seq) == ("BATTERY", 12)


def test_too_long_protocol_line():
    body = "ERROR,1,x," + "y" * 80
    line = f"${body}*{crc8(body.encode()):02X}"
    result = decode_line(line)
    assert isinstance(result, TooLong)
    assert result.length == len(line) and result.limit == sp.MAX_LINE


def test_longest_allowed_line_is_exactly_max_line():
    detail = "d" * (sp.MAX_LINE - len("$ERROR,65535,x,*CCCC"))
    line = encode_line("ERROR", 65535, ["x", detail])
    assert len(line) == sp.MAX_LINE + 1                     # + LF
    assert decode_line(line) == Error(65535, "x", detail)
    with pytest.raises(ValueError):
        encode_line("ERROR", 65535, ["x", detail + "d"])


@pytest.mark.parametrize("bad", [
    lambda: encode_line("scan", 1), lambda: encode_line("SCAN", -1),
    lambda: encode_line("SCAN", 65536), lambda: encode_line("ERROR", 1, ["a,b"]),
    lambda: encode_line("ERROR", 1, ["a*b"]), lambda: encode_line("ERROR", 1, ["\n"]),
    lambda: encode(PlainScan("x")),
])
def test_encoder_refuses_what_would_not_decode(bad):
    with pytest.raises((ValueError, TypeError)):
        bad()


def test_noise_before_a_frame_is_skipped_but_the_crc_still_guards_it():
    good = encode(Scan(5, "04A1B2C3")).rstrip(b"\n")
    assert decode_line(b"\x00\xfe" + good) == Scan(5, "04A1B2C3")
    damaged = b"\x00\xfe" + good[:-1] + b"0"
    assert isinstance(decode_line(damaged), BadChecksum)


# ---------------------------------------------------------------- round trip

uids = st.sampled_from([4, 7, 10]).flatmap(
    lambda n: st.binary(min_size=n, max_size=n)).map(lambda b: b.hex().upper())
seqs = st.integers(0, sp.SEQ_MAX)
tokens = st.from_regex(r"[A-Za-z0-9_.+-]{1,16}", fullmatch=True)
statuses = st.sampled_from(sp.READER_STATUSES)
details = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*,"),
                  max_size=30)
messages = st.one_of(
    st.builds(Hello, seqs, st.integers(0, 99), tokens, tokens, statuses),
    st.builds(Scan, seqs, uids),
    st.builds(Heartbeat, seqs, st.integers(0, 10 ** 9), statuses),
    st.builds(Error, seqs, st.from_regex(r"[a-z0-9_]{1,20}", fullmatch=True), details),
)


@FIXED
@given(messages)
def test_encode_decode_round_trip(message):
    line = encode(message)
    assert line.endswith(b"\n") and line.startswith(b"$")
    assert len(line) - 1 <= sp.MAX_LINE
    assert decode_line(line) == message


# ---------------------------------------------------------------- garbage


def _crc_ok(raw):
    frame = raw[raw.rfind(b"$") + 1:]
    star = frame.rfind(b"*")
    return star >= 0 and b"%02X" % crc8(frame[:star]) == frame[star + 1:].upper()


@settings(FIXED, max_examples=400)
@given(st.binary(max_size=120))
def test_random_garbage_never_raises_and_never_scans_without_a_valid_crc(raw):
    result = decode_line(raw)
    if isinstance(result, Scan):
        assert _crc_ok(raw)
    if isinstance(result, PlainScan):
        assert not raw.lstrip().startswith(b"$")
        assert all(ord(ch) >= 0x20 for ch in result.code)


@settings(FIXED, max_examples=200)
@given(st.lists(st.binary(max_size=40), max_size=8))
def test_garbage_stream_never_raises(chunks):
    stream = ScannerStream(max_line=64)
    for chunk in chunks:
        for received in stream.feed(chunk):
            if isinstance(received.item, Scan):
                assert received.seq is not None


@settings(FIXED, max_examples=200)
@given(st.lists(st.tuples(messages, st.binary(max_size=30).map(
    lambda b: b.replace(b"$", b"").replace(b"\n", b"").replace(b"\r", b""))), max_size=6),
    st.integers(1, 7))
def test_valid_lines_survive_interleaved_garbage(pairs, chunk):
    data = b"".join(noise + b"\n" + encode(msg) for msg, noise in pairs)
    stream = ScannerStream()
    out = []
    for i in range(0, len(data), chunk):
        out += [r.item for r in stream.feed(data[i:i + chunk])]
    framed = [item for item in out if isinstance(item, (Hello, Scan, Heartbeat, Error))]
    assert framed == [msg for msg, _ in pairs]


# ---------------------------------------------------------------- framer


def test_line_split_across_reads():
    framer = LineFramer()
    assert framer.feed(b"$SCAN,42,04A1") == []
    assert framer.pending == len(b"$SCAN,42,04A1")
    assert framer.feed(b"B2C3*A1") == []
    assert framer.feed(b"\n") == [b"$SCAN,42,04A1B2C3*A1"]
    assert framer.pending == 0


def test_several_lines_in_one_read():
    data = encode(Scan(1, "04A1B2C3")) + encode(Heartbeat(2, 2, "ok")) + b"$HEL"
    framer = LineFramer()
    lines = framer.feed(data)
    assert [decode_line(x) for x in lines] == [Scan(1, "04A1B2C3"), Heartbeat(2, 2, "ok")]
    assert framer.pending == 4


@pytest.mark.parametrize("ending", [b"\n", b"\r", b"\r\n"])
def test_line_endings(ending):
    framer = LineFramer()
    assert framer.feed(b"one" + ending + b"two" + ending) == [b"one", b"two"]


def test_crlf_split_between_reads_is_one_line_end():
    framer = LineFramer()
    assert framer.feed(b"4006381333931\r") == [b"4006381333931"]
    assert framer.feed(b"\n5012345678900\r") == [b"5012345678900"]
    assert framer.feed(b"\n") == []


def test_empty_lines_are_skipped():
    assert LineFramer().feed(b"\n\r\n\r\rA\n\n") == [b"A"]


def test_byte_by_byte_feeding_gives_the_same_lines():
    data = b"".join(encode(Heartbeat(i, i, "ok")) for i in range(1, 6))
    framer = LineFramer()
    lines = [line for i in range(len(data)) for line in framer.feed(data[i:i + 1])]
    assert [decode_line(x).seq for x in lines] == [1, 2, 3, 4, 5]


def test_over_long_line_is_dropped_counted_and_framer_resyncs():
    framer = LineFramer(max_line=16)
    assert framer.feed(b"A" * 10) == []
    assert framer.feed(b"B" * 10) == []                    # now 20 > 16: dropped
    assert framer.dropped_too_long == 1
    assert framer.feed(b"C" * 50) == []                    # still the same long line
    assert framer.dropped_too_long == 1
    assert framer.feed(b"tail\r\nnext\n") == [b"next"]
    assert framer.feed(b"X" * 16 + b"\n") == [b"X" * 16]  # exactly the cap is fine
    assert framer.feed(b"Y" * 17 + b"\nok\n") == [b"ok"]
    assert framer.dropped_too_long == 2


def test_reset_forgets_partial_line():
    framer = LineFramer()
    framer.feed(b"$SCAN,1,04")
    framer.reset()
    assert framer.feed(b"AB\n") == [b"AB"]


def test_framer_rejects_silly_limit():
    with pytest.raises(ValueError):
        LineFramer(0)


# ---------------------------------------------------------------- plain codes


@pytest.mark.parametrize("ending", [b"\r", b"\n", b"\r\n"])
def test_plain_barcode_lines(ending):
    stream = ScannerStream(plain_pattern=r"[0-9]{13}|CR-[A-Z]+-[0-9]+")
    items = [r.item for r in stream.feed(b"4006381333931" + ending + b"CR-ESPRESSO-07" + ending)]
    assert items == [PlainScan("4006381333931"), PlainScan("CR-ESPRESSO-07")]
    assert stream.counts["plain_scans"] == 2


def test_the_default_plain_pattern_takes_label_tags_and_uids_only():
    stream = ScannerStream(plain_pattern=sp.DEFAULT_PLAIN_PATTERN)
    lines = [b"CR0001", b"TABLE0042", b"04A1B2C3", b"04A1B2C3D4E5F6", b">>> ?HELLO",
             b"Traceback (most recent call last):", b"SyntaxError: invalid syntax",
             b"04a1b2c3", b"CR1", b"MicroPython v1.22.0 on 2024-01-01; Raspberry Pi Pico"]
    items = [r.item for r in stream.feed(b"\r\n".join(lines) + b"\r\n")]
    assert [i.code for i in items if isinstance(i, PlainScan)] == [
        "CR0001", "TABLE0042", "04A1B2C3", "04A1B2C3D4E5F6"]
    assert stream.counts["malformed"] == 6


def test_plain_qr_text_keeps_unicode_and_inner_dollars_but_trims_blanks():
    assert decode_line("  https://example.org/c?id=7&p=$5  ") == PlainScan("https://example.org/c?id=7&p=$5")
    assert decode_line("Café crème".encode()) == PlainScan("Café crème")


@pytest.mark.parametrize("raw, reason", [
    (b"   ", "empty"),
    (b"ab\x07cd", "control"),
    (b"\xff\xfe", "UTF-8"),
    (b"SCAN,42,04A1B2C3*A1", "without its leading '$'"),
    (b"HEARTBEAT,7,14,ok*EB", "without its leading '$'"),
    (b"x" * 300, "too long"),
    (b" \t$5 off", "starts with '$'"),
])
def test_noise_is_not_a_plain_code(raw, reason):
    result = decode_line(raw)
    assert isinstance(result, (Malformed, TooLong))
    assert reason in result.reason


def test_protocol_mode_takes_no_plain_line_before_or_after_a_reopen():
    stream = ScannerStream()                  # protocol mode: the default
    for _ in range(2):
        items = [r.item for r in stream.feed(b"Traceback (most recent call last):\r\n"
                                             b"4006381333931\r\nCR0001\r\n")]
        assert all(isinstance(i, Malformed) for i in items) and len(items) == 3
        stream.reset()                        # re-plugged: still protocol mode
    assert stream.counts["malformed"] == 6 and stream.counts["plain_scans"] == 0


def test_card_scanned_events():
    assert sp.card_scanned(Scan(1, "04A1B2C3"), at=2.5) == CardScanned("04A1B2C3", "nfc", 2.5)
    assert sp.card_scanned(PlainScan("4006381333931")) == CardScanned("4006381333931", "barcode")
    assert sp.card_scanned(Heartbeat(1, 1, "ok")) is None
    assert sp.card_scanned(BadChecksum(b"", "x")) is None


# ---------------------------------------------------------------- sequence numbers


def test_sequence_in_order_and_gap():
    tracker = SequenceTracker()
    assert tracker.check(5).status == "first"
    assert tracker.check(6).status == "in_order"
    gap = tracker.check(9)
    assert (gap.status, gap.missed, gap.first_missed, gap.last_missed) == ("gap", 2, 7, 8)
    assert tracker.total_missed == 2


def test_sequence_wraps_from_65535_to_1():
    tracker = SequenceTracker()
    tracker.check(65534)
    assert tracker.check(65535).status == "in_order"
    assert tracker.check(1).status == "in_order"
    tracker.check(65534)
    gap = tracker.check(2)
    assert (gap.status, gap.missed, gap.first_missed, gap.last_missed) == ("gap", 2, 65535, 1)
    gap = SequenceTracker()
    gap.check(65533)
    assert gap.check(1).last_missed == 65535


def test_sequence_restart_after_reboot():
    tracker = SequenceTracker()
    tracker.check(400)
    assert tracker.check(0).status == "restart"            # boot HELLO
    assert tracker.check(1).status == "in_order"
    tracker.check(500)                                      # a gap of 498
    assert tracker.check(3).status == "restart"             # went back: rebooted unseen
    assert tracker.restarts == 2
    assert tracker.total_missed == 498


def test_sequence_jump_beyond_max_gap_is_a_restart_not_a_gap():
    tracker = SequenceTracker(max_gap=10)
    tracker.check(1)
    assert tracker.check(12).status == "gap"
    assert tracker.check(30).status == "restart"
    tracker.reset()
    assert tracker.check(77).status == "first"


def test_stream_reports_the_gap_left_by_a_damaged_line():
    lines = [encode(Heartbeat(i, i * 2, "ok")) for i in range(1, 5)]
    lines[2] = lines[2].replace(b"ok", b"oK")               # damaged on the wire
    stream = ScannerStream()
    received = stream.feed(b"".join(lines))
    assert isinstance(received[2].item, BadChecksum) and received[2].seq is None
    assert received[3].seq == sp.SeqCheck("gap", 4, 1, 3, 3)
    assert stream.counts["bad_checksum"] == 1
    assert stream.counts["messages"] == 3
    assert stream.tracker.total_missed == 1


def test_stream_counts_over_long_lines_and_unknown_types():
    stream = ScannerStream(max_line=40)
    stream.feed(b"$" + b"Z" * 60 + b"\n" + encode_line("BATTERY", 1, ["80"])
                + encode(Scan(2, "04A1B2C3")))
    assert stream.counts["too_long"] == 1
    assert stream.counts["unknown_type"] == 1
    assert stream.tracker.last_seq == 2 and stream.tracker.total_missed == 0
