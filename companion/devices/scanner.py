"""The card scanner's reader thread: serial port in, ``CardScanned`` events out.

A player puts an order card on the scanner box; the box (a Pico with an NFC
reader speaking protocol v2, or v1 with old firmware, or a plain QR/barcode
module) sends a line over USB serial. Which kind is attached is the
configuration's choice (``[scanner] mode``), never guessed from the line:
in "protocol" mode only valid protocol lines count; in "plain" mode a plain
line counts too if it has the shape of a tag (``[scanner] plain_pattern``). This thread
owns that port. Framing and decoding are the codec's job
(:mod:`companion.devices.scanner_protocol`); this module decides what the
decoded lines *mean* for the table, the way pyserial's
``serial.threaded.LineReader`` keeps framing apart from handling:

* a scan posts :class:`~companion.inputs.CardScanned` (``source`` "nfc" or
  "barcode") stamped with the table's version as the line was read (with
  ``turn_now``: the table loop judges a scan that would complete an order
  stale once that turn has ended); the same tag again within
  ``repeat_window`` seconds of its last sighting is the same scan, not a
  second one;
* damaged, malformed or over-long lines are counted and logged (a few per
  minute at most), never fatal; a missed sequence number is logged; a
  scanner that keeps sending such lines (a Pico whose firmware crashed into
  the MicroPython REPL, a wrong baud rate, line noise) is reported as
  ``garbled`` until valid protocol lines come again;
* the scanner's health becomes :class:`~companion.inputs.DeviceStatus` events
  for ``device="scanner"`` with ``status``:

  ``connected``      the port opened for the first time
  ``lost``           unplugged, the port failed or vanished, or a protocol
                     scanner sent nothing for ``LOST_AFTER_S``; the thread
                     retries with exponential backoff (at most
                     ``reconnect_max`` seconds apart)
  ``back``           it works again after ``lost``
  ``unsupported_firmware``  its HELLO names a protocol version this companion
                     does not speak; its other lines are ignored
  ``not_responding``  the NFC chip inside the box stopped answering (the box
                     itself still talks); ``back`` (with ``params["reader"]``
                     "ok") follows when it works again
  ``unavailable``    ``[scanner] port`` is no serial port or URL at all
  ``garbled``        ``GARBLED_LINES`` bad lines within ``GARBLED_WINDOW_S``:
                     "not responding properly", re-flash the scanner;
                     ``back`` follows with the next valid protocol line

  Each status is posted once when it changes, with a ``detail`` an
  installer can act on.

The port is opened with ``serial.serial_for_url``, so ``[scanner] port`` may
be ``/dev/ttyACM0``, ``/dev/serial/by-id/...``, a udev symlink such as
``/dev/coffee-scanner``, ``loop://`` or ``socket://host:port``. Reads block
(with a one-second timeout to look at the clock), so an idle scanner costs no
CPU.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import os
import threading
import time
from typing import Any
from collections.abc import Callable

import serial

from companion import inputs as ev
from companion.config import Config, ScannerSettings
from companion.devices import scanner_protocol as sp

log = logging.getLogger("companion.scanner")
_SCANNER = ScannerSettings()        # the config schema's defaults ([scanner])

Post = Callable[[Any], None]

FIRST_RETRY_S = 0.5
"""First wait before reopening a lost port; doubles up to ``reconnect_max``."""

_HELLO_TEXT = sp.HELLO_REQUEST.decode("ascii").strip()

GARBLED_LINES = 3
GARBLED_WINDOW_S = 10.0
"""This many dropped lines within this many seconds: the scanner is ``garbled``."""

GARBLED = ("the card scanner is not responding properly: it sends text that is not the "
           "scanner protocol ({what}); re-flash the scanner: firmware/README.md")

READ_TIMEOUT_S = 1.0
"""A blocking read gives up after this long, to check for silence and stop requests."""


class DropLog:
    """Logs dropped lines without flooding the journal: at most ``burst`` per
    ``window`` seconds, then one line saying how many more were dropped."""

    def __init__(self, clock: Callable[[], float], burst: int = 5, window: float = 60.0):
        self.clock, self.burst, self.window = clock, burst, window
        self._start: float | None = None
        self._logged = 0
        self._hidden = 0

    def __call__(self, message: str, *args: Any) -> None:
        now = self.clock()
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


class ScannerReader:
    """Reads one scanner port on its own thread and posts what it means.

    ``post`` is normally ``TableLoop.post``. ``clock`` times the repeat window
    and the heartbeat silence (inject one in tests); ``read_timeout``,
    ``lost_after`` and ``first_retry`` exist so tests can be quick.
    """

    def __init__(self, url: str, post: Post, *, baudrate: int = _SCANNER.baudrate,
                 repeat_window: float = _SCANNER.repeat_window,
                 max_line: int = _SCANNER.max_line,
                 reconnect_max: float = _SCANNER.reconnect_max_seconds,
                 clock: Callable[[], float] = time.monotonic,
                 read_timeout: float = READ_TIMEOUT_S, lost_after: float = sp.LOST_AFTER_S,
                 first_retry: float = FIRST_RETRY_S,
                 open_port: Callable[..., Any] = serial.serial_for_url,
                 plain_pattern: str | None = None,
                 turn_now: Callable[[], ev.TableVersion] | None = None):
        self.url = url
        self.post = post
        self.turn_now = turn_now        # the table's version now (TableLoop.turn_now)
        self.baudrate = baudrate
        self.repeat_window = repeat_window
        self.reconnect_max = max(reconnect_max, first_retry)
        self.clock = clock
        self.read_timeout = read_timeout
        self.lost_after = lost_after
        self.first_retry = first_retry
        self.open_port = open_port
        self.stream = sp.ScannerStream(max_line=max_line, plain_pattern=plain_pattern)
        self._bad_at: list[float] = []          # when recent lines were dropped
        self.counts = {"scans": 0, "repeats": 0, "ignored_unsupported": 0, "opens": 0,
                       "open_failures": 0, "lost": 0, "missed": 0, "idle_reads": 0,
                       "echoes": 0, "bad_lines": 0}
        self.status: str | None = None      # the last status posted
        self.firmware: sp.Hello | None = None
        self.native_id: int | None = None   # the thread's id, for CPU measurements
        self._drop_log = DropLog(clock)
        self._stop = threading.Event()
        self._port: Any = None
        self._thread: threading.Thread | None = None
        self._ever_open = False
        self._expects_heartbeat = False         # it spoke the protocol on this port
        self._unsupported = False
        self._reader_ok: bool | None = None
        self._awaiting_back = False
        self._heard_at = 0.0
        self._last_tag: str | None = None
        self._last_tag_at = 0.0

    @classmethod
    def from_config(cls, cfg: Config, post: Post, **kw: Any) -> ScannerReader:
        s = cfg.scanner
        kw.setdefault("plain_pattern", s.plain_pattern if s.mode == "plain" else None)
        return cls(s.port, post, baudrate=s.baudrate, repeat_window=s.repeat_window,
                   max_line=s.max_line, reconnect_max=s.reconnect_max_seconds, **kw)

    @property
    def enabled(self) -> bool:
        """False when ``[scanner] port`` is empty: no scanner at this table."""
        return bool(self.url)

    # -- life cycle
    def start(self) -> ScannerReader:
        if self.enabled and self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="scanner-reader", daemon=True)
            self._thread.start()
        return self

    def close(self, timeout: float = 3.0) -> None:
        """Stop the thread and close the port. Safe to call twice."""
        self._stop.set()
        port = self._port
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(Exception):   # wake a blocking read at once, if it can
                port.cancel_read()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- the thread
    def _run(self) -> None:
        self.native_id = threading.get_native_id()
        delay = self.first_retry
        while not self._stop.is_set():
            port = self._open()
            if port is None:
                if self.status == "unavailable":
                    return
            else:
                heard_before = self.stream.counts["messages"] + self.stream.counts["plain_scans"]
                try:
                    reason = self._serve(port)
                except Exception as exc:      # a bug here must not silence the scanner for good
                    log.exception("scanner reader failed")
                    reason = f"internal error ({exc!r})"
                self._close_port(port)
                if self._stop.is_set():
                    return
                self._lost(reason)
                heard = self.stream.counts["messages"] + self.stream.counts["plain_scans"]
                if heard > heard_before:
                    delay = self.first_retry   # it worked for a while: retry soon
            if self._stop.wait(delay):
                return
            delay = min(delay * 2, self.reconnect_max)

    def _open(self) -> Any:
        try:
            # exclusive: a second reader (e.g. `enroll` while the service runs) is told
            # the port is busy instead of both getting half of every line.
            port = self.open_port(self.url, baudrate=self.baudrate, timeout=self.read_timeout,
                                  write_timeout=1.0, exclusive=True)
        except ValueError as exc:             # not a port or URL pyserial knows
            self._set_status("unavailable", f"[scanner] port {self.url!r} is no serial port "
                             f"or pyserial URL ({exc}); fix it in the config file")
            return None
        except (serial.SerialException, OSError) as exc:
            self.counts["open_failures"] += 1
            self._lost(_why_not_open(self.url, exc))
            return None
        self._port = port
        self.counts["opens"] += 1
        return port

    def _serve(self, port: Any) -> str:
        """Read until the port fails or goes silent; return why (for the log)."""
        self.stream.reset()
        try:
            port.write(sp.HELLO_REQUEST)
        except (serial.SerialException, OSError) as exc:
            return f"cannot write to the port ({exc})"
        self._heard_at = self.clock()
        if self._expects_heartbeat:
            self._awaiting_back = True        # "back" once it speaks again
        else:
            self._connected()
        while not self._stop.is_set():
            try:
                data = port.read(1)
                while data and port.in_waiting:
                    data += port.read(port.in_waiting)
            except (serial.SerialException, OSError) as exc:
                return f"the port failed ({exc})"
            now = self.clock()
            if not data:
                self.counts["idle_reads"] += 1
            else:
                too_long = self.stream.framer.dropped_too_long
                for received in self.stream.feed(data):
                    self._handle(received, now)
                if self.stream.framer.dropped_too_long != too_long:
                    self._drop_log("scanner: dropped a line longer than %d bytes",
                                   self.stream.framer.max_line)
                    self._bad_line(now, "a line without end")
            if self._expects_heartbeat and now - self._heard_at >= self.lost_after:
                return f"no heartbeat for {now - self._heard_at:.0f} s"
            if not data and "://" not in self.url and not os.path.exists(self.url):
                return "the port vanished"
        return "stopped"

    def _close_port(self, port: Any) -> None:
        self._port = None
        try:
            port.close()
        except Exception:
            log.debug("closing the scanner port failed", exc_info=True)

    # -- meaning
    def _handle(self, received: sp.Received, now: float) -> None:
        item, seq = received.item, received.seq
        if seq is not None and seq.status == "gap":
            self.counts["missed"] += seq.missed
            log.warning("scanner: missed %d lines (%d..%d)", seq.missed, seq.first_missed,
                        seq.last_missed)
        elif seq is not None and seq.status == "restart":
            log.info("scanner: the firmware restarted (sequence number %d)", seq.seq)
        if isinstance(item, sp.DecodeFailure):
            if isinstance(item, sp.UnknownType):
                self._heard(now)
                return
            if item.line.strip().upper() == _HELLO_TEXT.encode():
                self.counts["echoes"] += 1    # our own request coming back (loop://, echo on)
                return
            self._drop_log("scanner: dropped a line (%s): %r", item.reason, item.line[:40])
            self._bad_line(now, _what(item.line))
            return
        if not isinstance(item, sp.PlainScan) and self.status == "garbled":
            self._bad_at.clear()
            self._set_status("back", f"the card scanner on {self.url} speaks its protocol again")
        if isinstance(item, sp.Hello):
            self._hello(item, now)
            return
        if self._unsupported:
            self.counts["ignored_unsupported"] += 1
            return
        if isinstance(item, sp.PlainScan):
            if item.code.upper() == _HELLO_TEXT:
                self.counts["echoes"] += 1    # our own request coming back (loop://, echo on)
                return
            self._expects_heartbeat = False   # a QR/barcode module: it is silent between scans
            self._heard(now)
        else:
            self._expects_heartbeat = True
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
            self.post(ev.DeviceStatus("scanner", "back",
                                      "the scanner box's card reader works again",
                                      {"port": self.url, "reader": "ok"}))
        else:
            why = f" ({detail})" if detail else ""
            self.post(ev.DeviceStatus("scanner", "not_responding", (
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
        if self.turn_now is not None:         # the table as the card was read
            scan = dataclasses.replace(scan, seen=self.turn_now())
        self.post(scan)

    # -- status
    def _lost(self, reason: str) -> None:
        if self.status in ("lost", "unavailable"):
            log.debug("scanner still lost: %s", reason)
            return
        self.counts["lost"] += 1
        log.warning("scanner lost: %s", reason)
        self._set_status("lost", f"the card scanner on {self.url} is not answering: {reason}; "
                         "retrying (check its USB cable)", reason=reason)

    def _set_status(self, status: str, detail: str, **params: Any) -> None:
        if status == self.status:
            return
        self.status = status
        self.post(ev.DeviceStatus("scanner", status, detail, {"port": self.url, **params}))


def _what(line: bytes) -> str:
    """A few words for the log on what a dropped line looked like."""
    text = line.decode("utf-8", "replace")
    if text.startswith(">>>") or "Traceback" in text or "Error:" in text \
            or "MicroPython" in text:
        return "MicroPython REPL text: its firmware stopped"
    return "line noise or a wrong firmware"


def _why_not_open(url: str, exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    text = str(exc)
    if code == errno.EACCES or "ermission denied" in text:
        return (f"no permission to open {url}: add the user to the dialout group "
                "(sudo usermod -aG dialout $USER) and log in again")
    if code == errno.ENOENT or "No such file" in text:
        return f"{url} does not exist (scanner unplugged?)"
    if code in (errno.EBUSY, errno.EAGAIN) or "busy" in text.lower() or "lock" in text:
        return (f"{url} is busy: another program has it open (the companion service? "
                "Thonny? a serial monitor?)")
    return f"cannot open {url} ({text})"
