"""What the card scanner's bytes mean: framing -> meaning -> typed inputs, and its health.

:class:`ScannerProtocol` is the scanner's half of pyserial's
``serial.threaded`` split: the transport (:class:`~companion.devices.scanner.
ScannerReader`, like ``ReaderThread``) owns the port, reads bytes and reopens
it after a pulled cable; this object (like ``serial.threaded.Protocol``) is
fed those bytes and the moments they arrived and gives back the inputs they
mean. It does no I/O and reads no clock, so tests feed it noise, split frames
or a card read twice without any port.

* a scan becomes :class:`~companion.core.events.CardScanned` (``source`` "nfc" or
  "barcode"); the same tag again within ``repeat_window`` seconds of its last
  sighting is the same scan, not a second one;
* damaged, malformed or over-long lines are counted and logged (a few per
  minute at most, :class:`DropLog`), never fatal; a missed sequence number is
  logged; ``GARBLED_LINES`` bad lines within ``GARBLED_WINDOW_S`` make the
  scanner ``garbled`` until valid protocol lines come again;
* the scanner's health becomes :class:`~companion.core.events.DeviceStatus` for
  ``device="scanner"``, posted once per change (the statuses are listed in
  :mod:`companion.devices.scanner`).
"""
from __future__ import annotations

import logging
from typing import Any

from companion.core import events as ev
from companion.appliance.config import ScannerSettings
from companion.devices import scanner_protocol as sp

log = logging.getLogger("companion.scanner")
_SCANNER = ScannerSettings()        # the config schema's defaults ([scanner])

_HELLO_TEXT = sp.HELLO_REQUEST.decode("ascii").strip()

GARBLED_LINES = 3
GARBLED_WINDOW_S = 10.0
"""This many dropped lines within this many seconds: the scanner is ``garbled``."""

GARBLED = ("the card scanner is not responding properly: it sends text that is not the "
           "scanner protocol ({what}); re-flash the scanner: firmware/README.md")


class DropLog:
    """Logs dropped lines without flooding the journal: at most ``burst`` per
    ``window`` seconds (of the ``now`` given), then one line saying how many more
    were dropped."""

    def __init__(self, burst: int = 5, window: float = 60.0):
        self.burst, self.window = burst, window
        self._start: float | None = None
        self._logged = 0
        self._hidden = 0

    def __call__(self, now: float, message: str, *args: Any) -> None:
        if self._start is None or now - self._start >= self.window:
            if self._hidden:
                log.warning("scanner: %d more bad lines dropped in the last %.0f s",
                            self._hidden, self.window)
            self._start, self._logged, self._hidden = now, 0, 0
        if self._logged < self.burst:
            self._logged += 1
            log.warning(message, *args)
        else:
            self._hidden += 1


class ScannerProtocol:
    """One scanner's bytes in, typed inputs out; no I/O.

    ``url`` only names the port in the words it gives. The transport calls
    :meth:`connection_made` when a port opened (then writes :attr:`greeting`),
    :meth:`data_received` with each read, :meth:`silence` after each read (a
    protocol scanner that stopped talking) and :meth:`connection_lost` /
    :meth:`unavailable` when the port fails; each returns the inputs to post.
    """

    greeting = sp.HELLO_REQUEST

    def __init__(self, url: str, *, repeat_window: float = _SCANNER.repeat_window,
                 max_line: int = _SCANNER.max_line, lost_after: float = sp.LOST_AFTER_S,
                 plain_pattern: str | None = None):
        self.url = url
        self.repeat_window = repeat_window
        self.lost_after = lost_after
        self.stream = sp.ScannerStream(max_line=max_line, plain_pattern=plain_pattern)
        self.counts = {"scans": 0, "repeats": 0, "ignored_unsupported": 0, "lost": 0,
                       "missed": 0, "echoes": 0, "bad_lines": 0}
        self.status: str | None = None      # the last status given
        self.firmware: sp.Hello | None = None
        self._drop_log = DropLog()
        self._bad_at: list[float] = []          # when recent lines were dropped
        self._ever_open = False
        self._expects_heartbeat = False         # it spoke the protocol on this port
        self._unsupported = False
        self._reader_ok: bool | None = None
        self._awaiting_back = False
        self._heard_at = 0.0
        self._last_tag: str | None = None
        self._last_tag_at = 0.0
        self._out: list[Any] = []

    @property
    def heard(self) -> int:
        """Valid lines heard so far (the transport retries soon after a working spell)."""
        return self.stream.counts["messages"] + self.stream.counts["plain_scans"]

    # -- what the transport tells
    def connection_made(self, now: float) -> list[Any]:
        self.stream.reset()
        self._heard_at = now
        if self._expects_heartbeat:
            self._awaiting_back = True        # "back" once it speaks again
        else:
            self._connected()
        return self._flush()

    def data_received(self, data: bytes, now: float) -> list[Any]:
        too_long = self.stream.framer.dropped_too_long
        for received in self.stream.feed(data):
            self._handle(received, now)
        if self.stream.framer.dropped_too_long != too_long:
            self._drop_log(now, "scanner: dropped a line longer than %d bytes",
                           self.stream.framer.max_line)
            self._bad_line(now, "a line without end")
        return self._flush()

    def silence(self, now: float) -> str | None:
        """Why the port counts as lost by ``now`` (a protocol scanner's missing
        heartbeat), or None."""
        if self._expects_heartbeat and now - self._heard_at >= self.lost_after:
            return f"no heartbeat for {now - self._heard_at:.0f} s"
        return None

    def connection_lost(self, reason: str) -> list[Any]:
        if self.status in ("lost", "unavailable"):
            log.debug("scanner still lost: %s", reason)
            return []
        self.counts["lost"] += 1
        log.warning("scanner lost: %s", reason)
        self._set_status("lost", f"the card scanner on {self.url} is not answering: {reason}; "
                         "retrying (check its USB cable)", reason=reason)
        return self._flush()

    def unavailable(self, detail: str) -> list[Any]:
        self._set_status("unavailable", detail)
        return self._flush()

    # -- meaning
    def _flush(self) -> list[Any]:
        out, self._out = self._out, []
        return out

    def _handle(self, received: sp.Received, now: float) -> None:
        self.counts["missed"] += _log_sequence(received.seq)
        item = received.item
        if isinstance(item, sp.DecodeFailure):
            self._failure(item, now)
        elif _is_echo(item):
            self.counts["echoes"] += 1        # our own request coming back (loop://, echo on)
        else:
            self._message(item, now)

    def _failure(self, item: sp.DecodeFailure, now: float) -> None:
        if isinstance(item, sp.UnknownType):
            self._heard(now)
        elif item.line.strip().upper() == _HELLO_TEXT.encode():
            self.counts["echoes"] += 1        # our own request coming back (loop://, echo on)
        else:
            self._drop_log(now, "scanner: dropped a line (%s): %r", item.reason, item.line[:40])
            self._bad_line(now, _what(item.line))

    def _message(self, item: Any, now: float) -> None:
        if not isinstance(item, sp.PlainScan) and self.status == "garbled":
            self._bad_at.clear()
            self._set_status("back", f"the card scanner on {self.url} speaks its protocol again")
        if isinstance(item, sp.Hello):
            self._hello(item, now)
            return
        if self._unsupported:
            self.counts["ignored_unsupported"] += 1
            return
        # a QR/barcode module is silent between scans; a protocol scanner beats
        self._expects_heartbeat = not isinstance(item, sp.PlainScan)
        self._heard(now)
        if isinstance(item, sp.Heartbeat):
            self._reader(item.reader_status == "ok", "")
        elif isinstance(item, sp.Error):
            self._error(item)
        scan = sp.card_scanned(item, at=now)
        if scan is not None:
            self._scan(scan, now)

    def _heard(self, now: float) -> None:
        self._heard_at = now
        if self._awaiting_back:
            self._connected()

    def _connected(self) -> None:
        self._awaiting_back = False
        if self._unsupported:
            return
        if not self._ever_open:
            self._ever_open = True
            self._set_status("connected", f"card scanner on {self.url}")
        elif self.status in ("lost", "unsupported_firmware", None):
            self._set_status("back", f"the card scanner on {self.url} works again")

    def _hello(self, hello: sp.Hello, now: float) -> None:
        self.firmware = hello
        log.info("scanner: firmware %s, protocol %d, reader %s (%s)", hello.firmware,
                 hello.protocol, hello.reader, hello.reader_status)
        if hello.protocol not in sp.SUPPORTED_VERSIONS:
            self._unsupported = True
            self._expects_heartbeat = False
            self._awaiting_back = False
            self._set_status("unsupported_firmware", (
                f"the card scanner's firmware {hello.firmware} speaks protocol version "
                f"{hello.protocol}, this companion speaks versions 1 and {sp.PROTOCOL_VERSION}: "
                "flash the firmware that came with this companion (firmware/README.md) "
                "or update the companion; scans are ignored until then"),
                firmware=hello.firmware, protocol=hello.protocol)
            return
        was_unsupported, self._unsupported = self._unsupported, False
        self._expects_heartbeat = True
        self._heard(now)
        if was_unsupported:
            self._set_status("back", f"the card scanner on {self.url} works again")
        self._reader(hello.reader_status == "ok", "")

    def _error(self, error: sp.Error) -> None:
        log.warning("scanner reports %s %s", error.code, error.detail)
        if error.code == sp.ERROR_READER_NOT_RESPONDING:
            self._reader(False, error.detail)
        elif error.code == sp.ERROR_READER_REINITIALISED:
            self._reader(True, error.detail)

    def _reader(self, ok: bool, detail: str) -> None:
        if ok == self._reader_ok or (ok and self._reader_ok is None):
            self._reader_ok = ok
            return
        self._reader_ok = ok
        if ok:
            self._out.append(ev.DeviceStatus("scanner", "back",
                                             "the scanner box's card reader works again",
                                             {"port": self.url, "reader": "ok"}))
        else:
            why = f" ({detail})" if detail else ""
            self._out.append(ev.DeviceStatus("scanner", "not_responding", (
                f"the card reader inside the scanner box does not answer{why}: check its "
                "wiring and 3.3 V power (firmware/README.md, Troubleshooting); "
                "it is retried every second"), {"port": self.url, "reason": detail}))

    def _bad_line(self, now: float, what: str) -> None:
        """A dropped line: several within GARBLED_WINDOW_S make the scanner ``garbled``."""
        self.counts["bad_lines"] += 1
        self._bad_at = [t for t in self._bad_at[-(GARBLED_LINES - 1):]
                        if now - t < GARBLED_WINDOW_S] + [now]
        if len(self._bad_at) >= GARBLED_LINES and self.status != "garbled":
            log.warning("scanner garbled: %s", what)
            self._set_status("garbled", GARBLED.format(what=what), what=what)

    def _scan(self, scan: ev.CardScanned, now: float) -> None:
        if scan.tag == self._last_tag and now - self._last_tag_at < self.repeat_window:
            self._last_tag_at = now           # still lying there / read again: one scan
            self.counts["repeats"] += 1
            return
        self._last_tag, self._last_tag_at = scan.tag, now
        self.counts["scans"] += 1
        self._out.append(scan)

    def _set_status(self, status: str, detail: str, **params: Any) -> None:
        if status == self.status:
            return
        self.status = status
        self._out.append(ev.DeviceStatus("scanner", status, detail, {"port": self.url, **params}))


def _log_sequence(seq: sp.SeqCheck | None) -> int:
    """Log what a line's sequence number says; return how many lines were missed."""
    if seq is not None and seq.status == "gap":
        log.warning("scanner: missed %d lines (%d..%d)", seq.missed, seq.first_missed,
                    seq.last_missed)
        return seq.missed
    if seq is not None and seq.status == "restart":
        log.info("scanner: the firmware restarted (sequence number %d)", seq.seq)
    return 0


def _is_echo(item: Any) -> bool:
    """A plain line that is our own HELLO request coming back (loop://, echo on)."""
    return isinstance(item, sp.PlainScan) and item.code.upper() == _HELLO_TEXT


def _what(line: bytes) -> str:
    """A few words for the log on what a dropped line looked like."""
    text = line.decode("utf-8", "replace")
    if text.startswith(">>>") or "Traceback" in text or "Error:" in text \
            or "MicroPython" in text:
        return "MicroPython REPL text: its firmware stopped"
    return "line noise or a wrong firmware"
