"""Card-scanner serial protocol v2 (and v1 from old firmware), host side: a pure codec, no I/O.

At the table a small scanner box sits by the card piles: a Raspberry Pi Pico
with an MFRC522 NFC reader (firmware in ``firmware/scanner``), or an
off-the-shelf QR/barcode module. Both are USB serial ports. This module turns
the bytes they send into typed values; the thread that owns the port turns
those into :class:`companion.core.events.CardScanned` / ``DeviceStatus`` events.

Protocol v2 (full text: ``firmware/PROTOCOL.md``) is one ASCII line per
message::

    $SCAN,42,04A1B2C3D4E5F6*1D0F\n

that is ``$``, the type, the sequence number, the fields, then ``*`` and the
CRC-16/CCITT (four hex digits) of the text between ``$`` and ``*``, then LF.
Protocol v1 (firmware 0.1.x) is the same with a CRC-8 (two hex digits); it is
still accepted from a port until that port sends its first valid v2 line.

A line with a bad checksum, a bad shape or an excessive length is reported as
a :class:`DecodeFailure` and must be dropped: a damaged line is never misread
as a scan. Plain codes from a QR/barcode module (:class:`PlainScan`) count
only where the configuration says a plain module is attached, and only if
they have the shape of a tag (``[scanner] plain_pattern``).

Pieces, each usable on its own:

* :func:`crc16`, :func:`crc8`, :func:`encode_line`, :func:`encode`, :func:`decode_line`
* :class:`LineFramer`: bytes from the port in, complete lines out.
* :class:`SequenceTracker`: notices lines that never arrived.
* :class:`ScannerStream`: the three above glued together, with counters.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Sequence

from companion.appliance import config
from companion.core.events import CardScanned

PROTOCOL_VERSION = 2
"""The protocol version this codec speaks (the first field of HELLO)."""

SUPPORTED_VERSIONS = (1, 2)
"""Versions accepted: v1 (CRC-8, firmware 0.1.x) from a port that has not spoken v2."""

# A plain code that can be a card (``[scanner] plain_pattern``'s default, kept by the config)
DEFAULT_PLAIN_PATTERN = config.DEFAULT_PLAIN_PATTERN

MAX_LINE = 80
"""Longest protocol line in bytes, from ``$`` to the CRC, terminator excluded."""

MAX_PLAIN_CODE = 256
"""Longest plain QR/barcode line in bytes, terminator excluded."""

SEQ_MAX = 65535
"""Sequence numbers run 0 (boot HELLO only), 1, 2, ... 65535, then wrap to 1."""

HELLO_REQUEST = b"?HELLO\n"
"""What the host writes to make the firmware answer with a HELLO line."""

HEARTBEAT_PERIOD_S = 2.0
"""The firmware sends a HEARTBEAT this often."""

LOST_AFTER_S = 5.0
"""Silence after which the host should call the scanner lost (2.5 heartbeats)."""

READER_STATUSES = ("ok", "not_responding")
"""Values of the reader-status field in HELLO and HEARTBEAT."""

# Error codes the firmware sends. Hosts must accept unknown codes too.
ERROR_READER_NOT_RESPONDING = "reader_not_responding"
ERROR_READER_REINITIALISED = "reader_reinitialised"
ERROR_UNKNOWN_REQUEST = "unknown_request"
ERROR_REQUEST_TOO_LONG = "request_too_long"

_KIND = re.compile(r"[A-Z]{1,12}\Z")
_SEQ = re.compile(r"(0|[1-9][0-9]{0,4})\Z")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}\Z")
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}\Z")
_UID = re.compile(r"([0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20})\Z")
_CODE = re.compile(r"[a-z0-9_]{1,32}\Z")
_TOKEN = re.compile(r"[A-Za-z0-9_.+-]{1,16}\Z")
_DIGITS = re.compile(r"(0|[1-9][0-9]{0,9})\Z")
# A protocol line whose '$' was lost or damaged must not pass as a barcode.
_FRAMELIKE = re.compile(r"[A-Z]{1,12},[0-9]{1,5}[,*]")
_ENDS_WITH_CRC = re.compile(r"\*([0-9A-Fa-f]{2}|[0-9A-Fa-f]{4})\Z")
_FRAME_START = re.compile(rb"\$[A-Z]{1,12},")
_FIELD_FORBIDDEN = frozenset("$*,")
_LINE_END = re.compile(rb"[\r\n]")


# --------------------------------------------------------------------------
# Messages


@dataclass(frozen=True)
class Hello:
    """The scanner introduces itself: at boot (seq 0) and on ``?HELLO``."""
    seq: int
    protocol: int          # protocol version, 1 for this codec
    firmware: str          # firmware version, e.g. "0.1.0"
    reader: str            # reader chip, e.g. "MFRC522"
    reader_status: str     # "ok" or "not_responding"


@dataclass(frozen=True)
class Scan:
    """A card was put on the NFC reader. ``uid`` is uppercase hex (4/7/10 bytes)."""
    seq: int
    uid: str


@dataclass(frozen=True)
class Heartbeat:
    """The scanner is alive (every 2 s) and how its reader is doing."""
    seq: int
    uptime_s: int
    reader_status: str


@dataclass(frozen=True)
class Error:
    """Something went wrong (or was repaired) in the scanner; log it.

    ``code`` is lowercase ``[a-z0-9_]``, e.g. ``reader_not_responding``;
    ``detail`` is free text for the log and may be empty.
    """
    seq: int
    code: str
    detail: str = ""


@dataclass(frozen=True)
class PlainScan:
    """A bare line from a QR/barcode module: the code printed on a card."""
    code: str


FramedMessage = Hello | Scan | Heartbeat | Error
Message = Hello | Scan | Heartbeat | Error | PlainScan


# --------------------------------------------------------------------------
# Decode failures: the line is dropped, the reason is logged.


@dataclass(frozen=True)
class DecodeFailure:
    """A line that must be dropped. ``line`` is the raw bytes (no terminator)."""
    line: bytes
    reason: str


@dataclass(frozen=True)
class BadChecksum(DecodeFailure):
    """The CRC (CRC-16 in v2, CRC-8 in v1) did not match: the line was damaged."""
    expected: int = 0      # CRC computed over the received text
    received: int = 0      # CRC written at the end of the line


@dataclass(frozen=True)
class Malformed(DecodeFailure):
    """The line has the wrong shape (or is noise that is not a plain code)."""


@dataclass(frozen=True)
class TooLong(DecodeFailure):
    """The line is longer than the protocol allows. ``line`` is a prefix."""
    length: int = 0
    limit: int = 0


@dataclass(frozen=True)
class UnknownType(DecodeFailure):
    """A well-formed, checksummed line of a type this host does not know."""
    kind: str = ""
    seq: int = 0


DecodeResult = Message | DecodeFailure


# --------------------------------------------------------------------------
# CRC and encoding


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (protocol v2): poly 0x1021, init 0xFFFF, not reflected,
    no final XOR. ``crc16(b"123456789") == 0x29B1`` (the catalogue check value)."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def crc8(data: bytes) -> int:
    """CRC-8/SMBUS (protocol v1): poly 0x07, init 0x00, not reflected, no final XOR.

    ``crc8(b"123456789") == 0xF4`` (the catalogue check value).
    """
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def _check_field(text: str) -> None:
    if not all(0x20 <= ord(ch) <= 0x7E and ch not in _FIELD_FORBIDDEN for ch in text):
        raise ValueError(f"field {text!r} must be printable ASCII without '$', '*' or ','")


def encode_line(kind: str, seq: int, fields: Sequence[str] = (),
                version: int = PROTOCOL_VERSION) -> bytes:
    """Build one protocol line, terminator included: ``$KIND,SEQ,F1,F2*CCCC\\n``
    (v2; ``version=1`` gives the old ``*CC`` with a CRC-8)."""
    if not _KIND.match(kind):
        raise ValueError(f"type must be 1-12 uppercase letters: {kind!r}")
    if not 0 <= seq <= SEQ_MAX:
        raise ValueError(f"sequence number out of range: {seq!r}")
    for field in fields:
        _check_field(field)
    body = ",".join([kind, str(seq), *fields])
    if version == 1:
        line = "${}*{:02X}".format(body, crc8(body.encode("ascii")))
    else:
        line = "${}*{:04X}".format(body, crc16(body.encode("ascii")))
    if len(line) > MAX_LINE:
        raise ValueError(f"line longer than {MAX_LINE} bytes: {line!r}")
    return line.encode("ascii") + b"\n"


def encode(message: FramedMessage, version: int = PROTOCOL_VERSION) -> bytes:
    """Encode a typed message as the firmware would send it (``version`` 1: as
    firmware 0.1.x did)."""
    if isinstance(message, Hello):
        return encode_line("HELLO", message.seq, [str(message.protocol), message.firmware,
                                                  message.reader, message.reader_status],
                           version)
    if isinstance(message, Scan):
        return encode_line("SCAN", message.seq, [message.uid], version)
    if isinstance(message, Heartbeat):
        return encode_line("HEARTBEAT", message.seq,
                           [str(message.uptime_s), message.reader_status], version)
    if isinstance(message, Error):
        fields = [message.code, message.detail] if message.detail else [message.code]
        return encode_line("ERROR", message.seq, fields, version)
    raise TypeError(f"not a protocol message: {message!r}")


# --------------------------------------------------------------------------
# Decoding


def _to_bytes(line: bytes | bytearray | str) -> bytes:
    if isinstance(line, str):
        return line.encode("utf-8", "surrogatepass")
    return bytes(line)


def decode_line(line: bytes | bytearray | str, *, allow_plain: bool = True,
                allow_v1: bool = True, plain_pattern: re.Pattern[str] | None = None,
                ) -> DecodeResult:
    """Decode one line (terminator already removed, e.g. by :class:`LineFramer`).

    Never raises. Returns a message, or a :class:`DecodeFailure` to drop.
    ``allow_plain=False``: a line without ``$`` is :class:`Malformed` instead
    of a :class:`PlainScan` (a scanner configured for protocol mode: a
    MicroPython traceback is not a barcode). ``plain_pattern``: a plain code
    must match it in full. ``allow_v1=False``: a CRC-8 line is
    :class:`Malformed` (the port already spoke v2).
    """
    raw = _to_bytes(line).rstrip(b"\r\n")
    start = raw.find(b"$")
    if start == 0:
        return _decode_frame(raw, allow_v1)
    if start > 0:
        # Noise before the frame (e.g. the port opened mid-line). The CRC
        # still guards everything from the last '$' on.
        tail = raw[raw.rfind(b"$"):]
        result = _decode_frame(tail, allow_v1)
        if not isinstance(result, DecodeFailure) or _FRAME_START.match(tail):
            return result
    if not allow_plain:
        return Malformed(raw, "text without '$' from a scanner in protocol mode")
    result = _decode_plain(raw)
    if (plain_pattern is not None and isinstance(result, PlainScan)
            and not plain_pattern.fullmatch(result.code)):
        return Malformed(raw, "plain code without the shape of a tag")
    return result


def _decode_plain(raw: bytes) -> DecodeResult:
    if len(raw) > MAX_PLAIN_CODE:
        return TooLong(raw[:MAX_PLAIN_CODE], "plain code too long", len(raw), MAX_PLAIN_CODE)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return Malformed(raw, "plain code is not UTF-8")
    code = text.strip(" \t")
    if not code:
        return Malformed(raw, "empty line")
    if code.startswith("$"):
        return Malformed(raw, "starts with '$' but is no valid protocol line")
    if any(ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F for ch in code):
        return Malformed(raw, "control characters in plain code")
    if _FRAMELIKE.match(code) or (_ENDS_WITH_CRC.search(code) and _FRAMELIKE.search(code)):
        return Malformed(raw, "protocol line without its leading '$'")
    return PlainScan(code)


def _decode_frame(raw: bytes, allow_v1: bool = True) -> DecodeResult:
    """A ``$``-line: its frame (length, bytes, CRC) checked, then its fields."""
    body = _unframe(raw, allow_v1)
    return body if not isinstance(body, str) else _decode_body(raw, body)


def _unframe(raw: bytes, allow_v1: bool) -> str | DecodeFailure:
    """The body between ``$`` and ``*CRC`` once the frame checks out, or why not."""
    if len(raw) > MAX_LINE:
        return TooLong(raw[:MAX_LINE], "protocol line too long", len(raw), MAX_LINE)
    if any(b < 0x20 or b > 0x7E for b in raw):
        return Malformed(raw, "non-printable byte in protocol line")
    text = raw.decode("ascii")
    if len(text) >= 6 and text[-5] == "*" and _HEX4.match(text[-4:]):
        body, received, crc = text[1:-5], int(text[-4:], 16), crc16
    elif len(text) >= 4 and text[-3] == "*" and _HEX2.match(text[-2:]):
        if not allow_v1:
            return Malformed(raw, "a protocol v1 line (CRC-8) from a scanner that speaks v2")
        body, received, crc = text[1:-3], int(text[-2:], 16), crc8
    else:
        return Malformed(raw, "no '*' and 4 (v2) or 2 (v1) hex CRC digits at the end")
    expected = crc(body.encode("ascii"))
    if expected != received:
        return BadChecksum(raw, "checksum mismatch", expected, received)
    if "$" in body or "*" in body:
        return Malformed(raw, "'$' or '*' inside the line")
    return body


def _decode_body(raw: bytes, body: str) -> DecodeResult:
    """``TYPE,SEQ[,fields...]`` of a line whose frame checked out."""
    parts = body.split(",")
    if len(parts) < 2 or not _KIND.match(parts[0]) or not _SEQ.match(parts[1]):
        return Malformed(raw, "expected TYPE,SEQ at the start")
    kind, seq, fields = parts[0], int(parts[1]), parts[2:]
    if seq > SEQ_MAX:
        return Malformed(raw, f"sequence number above {SEQ_MAX}")
    decoder = _DECODERS.get(kind)
    if decoder is None:
        return UnknownType(raw, "unknown message type", kind, seq)
    # Extra trailing fields are ignored: later minor versions may append some.
    return decoder(raw, seq, fields)


def is_v2(raw: bytes) -> bool:
    """The (valid) protocol line ``raw`` carries a v2 CRC-16."""
    tail = raw[raw.rfind(b"$"):]
    return len(tail) >= 6 and tail[-5:-4] == b"*"


def _hello(raw: bytes, seq: int, fields: list[str]) -> DecodeResult:
    if len(fields) < 4:
        return Malformed(raw, "HELLO needs protocol, firmware, reader, status")
    protocol, firmware, reader, status = fields[:4]
    if not _DIGITS.match(protocol):
        return Malformed(raw, "HELLO protocol version is not a number")
    if not (_TOKEN.match(firmware) and _TOKEN.match(reader)):
        return Malformed(raw, "HELLO firmware/reader must be short tokens")
    if status not in READER_STATUSES:
        return Malformed(raw, f"unknown reader status {status!r}")
    return Hello(seq, int(protocol), firmware, reader, status)


def _scan(raw: bytes, seq: int, fields: list[str]) -> DecodeResult:
    if not fields or not _UID.match(fields[0]):
        return Malformed(raw, "SCAN needs a 4, 7 or 10 byte UID in uppercase hex")
    return Scan(seq, fields[0])


def _heartbeat(raw: bytes, seq: int, fields: list[str]) -> DecodeResult:
    if len(fields) < 2 or not _DIGITS.match(fields[0]):
        return Malformed(raw, "HEARTBEAT needs uptime seconds and reader status")
    if fields[1] not in READER_STATUSES:
        return Malformed(raw, f"unknown reader status {fields[1]!r}")
    return Heartbeat(seq, int(fields[0]), fields[1])


def _error(raw: bytes, seq: int, fields: list[str]) -> DecodeResult:
    if not fields or not _CODE.match(fields[0]):
        return Malformed(raw, "ERROR needs a lowercase code")
    return Error(seq, fields[0], fields[1] if len(fields) > 1 else "")


_DECODERS = {"HELLO": _hello, "SCAN": _scan, "HEARTBEAT": _heartbeat, "ERROR": _error}


def card_scanned(message: DecodeResult, at: float = 0.0) -> CardScanned | None:
    """The table input for a scan (``source`` "nfc" or "barcode"), else None."""
    if isinstance(message, Scan):
        return CardScanned(tag=message.uid, source="nfc", at=at)
    if isinstance(message, PlainScan):
        return CardScanned(tag=message.code, source="barcode", at=at)
    return None


# --------------------------------------------------------------------------
# Framing: the serial port delivers arbitrary chunks, the codec wants lines.


class LineFramer:
    """Cuts the byte stream from a scanner port into lines.

    A line ends at CR or LF; empty lines are skipped, so CRLF (even split
    across two reads) ends exactly one line. A line that grows past
    ``max_line`` bytes without an end is dropped, counted in
    ``dropped_too_long``, and the framer skips everything up to the next line
    end, where it is back in step.
    """

    def __init__(self, max_line: int = MAX_PLAIN_CODE) -> None:
        if max_line < 1:
            raise ValueError("max_line must be positive")
        self.max_line = max_line
        self.dropped_too_long = 0
        self._buf = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[bytes]:
        """Take the bytes of one read; return the lines they complete.

        Works on whole runs between line ends (not byte by byte), so even
        megabytes of noise without a line end cost little."""
        lines: list[bytes] = []
        start, n = 0, len(data)
        while start < n:
            found = _LINE_END.search(data, start)
            end = n if found is None else found.start()
            if not self._discarding:
                if len(self._buf) + end - start > self.max_line:
                    self._buf.clear()
                    self._discarding = True
                    self.dropped_too_long += 1
                else:
                    self._buf += data[start:end]
            if found is None:
                break
            if self._discarding:
                self._discarding = False
            elif self._buf:
                lines.append(bytes(self._buf))
            self._buf.clear()
            start = end + 1
        return lines

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line waiting for its end."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget a half-received line (e.g. after reopening the port)."""
        self._buf.clear()
        self._discarding = False


# --------------------------------------------------------------------------
# Sequence numbers: which lines never arrived?


def next_seq(seq: int) -> int:
    """The sequence number after ``seq`` (0 only ever starts a boot)."""
    return 1 if seq >= SEQ_MAX else seq + 1


@dataclass(frozen=True)
class SeqCheck:
    """What one sequence number says about the lines before it.

    ``status`` is "first" (nothing seen before), "in_order", "gap" (``missed``
    lines numbered ``first_missed``..``last_missed``, wrapping, never arrived)
    or "restart" (the firmware rebooted: seq 0, or the numbers went back).
    """
    status: str
    seq: int
    missed: int = 0
    first_missed: int | None = None
    last_missed: int | None = None


class SequenceTracker:
    """Follows the sequence numbers of one scanner and reports gaps.

    The firmware numbers every line: 0 for the HELLO right after boot, then
    1..65535, wrapping to 1. A jump forward of at most ``max_gap`` is a gap
    (lines lost, e.g. damaged and dropped); any other jump means the firmware
    restarted without us seeing its boot HELLO.
    """

    def __init__(self, max_gap: int = 1000) -> None:
        self.max_gap = max_gap
        self.last_seq: int | None = None
        self.total_missed = 0
        self.restarts = 0

    def check(self, seq: int) -> SeqCheck:
        """Record the sequence number of a received line; say what it implies."""
        last, self.last_seq = self.last_seq, seq
        if last is None:
            return SeqCheck("first", seq)
        if seq == 0:
            self.restarts += 1
            return SeqCheck("restart", seq)
        expected = next_seq(last)
        missed = (seq - expected) % SEQ_MAX     # both in 1..65535: a ring of 65535
        if missed == 0:
            return SeqCheck("in_order", seq)
        if missed > self.max_gap:
            self.restarts += 1
            return SeqCheck("restart", seq)
        self.total_missed += missed
        last_missed = seq - 1 if seq > 1 else SEQ_MAX
        return SeqCheck("gap", seq, missed, expected, last_missed)

    def reset(self) -> None:
        """Forget the last number (e.g. the port was reopened)."""
        self.last_seq = None


# --------------------------------------------------------------------------
# All together


@dataclass(frozen=True)
class Received:
    """One line from the port: the decoded item and, for framed messages,
    what its sequence number says (``seq`` is None otherwise)."""
    item: DecodeResult
    seq: SeqCheck | None = None


class ScannerStream:
    """Bytes from one scanner port in, :class:`Received` items out, with counters.

    ``plain_pattern`` None (protocol mode, the default): only valid protocol
    lines count; anything else (a MicroPython REPL, a traceback, noise) is
    dropped. With a pattern (a QR/barcode module is configured) a plain line
    counts if it matches the pattern in full. That is the configuration's
    choice, the same after every reopen. A port that sent one valid v2 line
    is no longer believed in v1 (CRC-8) until it is reopened.
    """

    def __init__(self, max_line: int = MAX_PLAIN_CODE, max_gap: int = 1000,
                 plain_pattern: str | re.Pattern[str] | None = None) -> None:
        self.framer = LineFramer(max_line)
        self.tracker = SequenceTracker(max_gap)
        self.plain_pattern = (re.compile(plain_pattern) if isinstance(plain_pattern, str)
                              else plain_pattern)
        self.speaks_v2 = False
        self.counts = {"messages": 0, "plain_scans": 0, "bad_checksum": 0,
                       "malformed": 0, "too_long": 0, "unknown_type": 0}

    def feed(self, data: bytes) -> list[Received]:
        """Take the bytes of one read; return what the completed lines mean."""
        before = self.framer.dropped_too_long
        out = [self._one(line) for line in self.framer.feed(data)]
        self.counts["too_long"] += self.framer.dropped_too_long - before
        return out

    def decode(self, line: bytes) -> DecodeResult:
        """One line as this port's mode reads it (no counters, no sequence)."""
        return decode_line(line, allow_plain=self.plain_pattern is not None,
                           allow_v1=not self.speaks_v2, plain_pattern=self.plain_pattern)

    def _one(self, line: bytes) -> Received:
        item = self.decode(line)
        if isinstance(item, PlainScan):
            self.counts["plain_scans"] += 1
            return Received(item)
        if isinstance(item, DecodeFailure):
            key = {BadChecksum: "bad_checksum", TooLong: "too_long",
                   UnknownType: "unknown_type"}.get(type(item), "malformed")
            self.counts[key] += 1
            if isinstance(item, UnknownType):
                return Received(item, self.tracker.check(item.seq))
            return Received(item)
        self.speaks_v2 = self.speaks_v2 or is_v2(line)
        self.counts["messages"] += 1
        return Received(item, self.tracker.check(item.seq))

    def reset(self) -> None:
        """The port was reopened: drop partial input, forget sequence and version
        (the mode is configured and stays)."""
        self.framer.reset()
        self.tracker.reset()
        self.speaks_v2 = False
