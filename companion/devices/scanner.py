"""The card scanner's transport: a serial port that reconnects, bytes to the protocol.

A player puts an order card on the scanner box; the box (a Pico with an NFC
reader speaking protocol v2, or v1 with old firmware, or a plain QR/barcode
module) sends a line over USB serial. Which kind is attached is the
configuration's choice (``[scanner] mode``), never guessed from the line:
in "protocol" mode only valid protocol lines count; in "plain" mode a plain
line counts too if it has the shape of a tag (``[scanner] plain_pattern``).

The work is split the way pyserial's ``serial.threaded`` splits it:

* :class:`ScannerReader` (like ``ReaderThread``) owns the port on its own
  thread: it opens it with pyserial, writes the HELLO request, reads bytes,
  and after a pulled cable or a failed port reopens it with exponential
  backoff (at most ``reconnect_max`` seconds apart). It stamps each scan with
  the table's version as the line was read (``turn_now``: the table loop
  judges a scan that would complete an order stale once that turn has ended)
  and posts what the protocol gives back.
* :class:`~companion.devices.scanner_meaning.ScannerProtocol` (like
  ``Protocol``/``LineReader``) is fed the bytes: framing (the codec,
  :mod:`companion.devices.scanner_protocol`), meaning, repeats and health
  counters, without I/O, so tests feed it bytes without a port.

The scanner's health becomes :class:`~companion.core.events.DeviceStatus` events
for ``device="scanner"`` with ``status``:

  ``connected``      the port opened for the first time
  ``lost``           unplugged, the port failed or vanished, or a protocol
                     scanner sent nothing for ``LOST_AFTER_S``; the thread
                     retries with exponential backoff
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
``/dev/coffee-scanner``, ``loop://``, ``socket://host:port`` or one end of a
pty pair (the demo's simulated scanner). Reads block (with a one-second
timeout to look at the clock), so an idle scanner costs no CPU.
"""
from __future__ import annotations

import collections
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

from companion.core import events as ev
from companion.appliance.config import Config, ScannerSettings
from companion.devices import scanner_protocol as sp
from companion.devices.scanner_meaning import ScannerProtocol

log = logging.getLogger("companion.scanner")
_SCANNER = ScannerSettings()        # the config schema's defaults ([scanner])

Post = Callable[[Any], None]

FIRST_RETRY_S = 0.5
"""First wait before reopening a lost port; doubles up to ``reconnect_max``."""

READ_TIMEOUT_S = 1.0
"""A blocking read gives up after this long, to check for silence and stop requests."""


class ScannerReader:
    """Reads one scanner port on its own thread and posts what its protocol object
    makes of the bytes.

    ``post`` is normally ``TableLoop.post``. ``clock`` dates the bytes (the
    repeat window, the heartbeat silence; inject one in tests); ``read_timeout``,
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
        self.reconnect_max = max(reconnect_max, first_retry)
        self.clock = clock
        self.read_timeout = read_timeout
        self.first_retry = first_retry
        self.open_port = open_port
        self.protocol = ScannerProtocol(url, repeat_window=repeat_window, max_line=max_line,
                                        lost_after=lost_after, plain_pattern=plain_pattern)
        self.port_counts = {"opens": 0, "open_failures": 0, "idle_reads": 0}
        self.native_id: int | None = None   # the thread's id, for CPU measurements
        self._stop = threading.Event()
        self._port: Any = None
        self._thread: threading.Thread | None = None

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

    # -- what the protocol knows, read here for the status page and the tests
    @property
    def counts(self) -> collections.ChainMap[str, int]:
        return collections.ChainMap(self.port_counts, self.protocol.counts)

    @property
    def status(self) -> str | None:
        return self.protocol.status

    @property
    def firmware(self) -> sp.Hello | None:
        return self.protocol.firmware

    @property
    def stream(self) -> sp.ScannerStream:
        return self.protocol.stream

    @property
    def repeat_window(self) -> float:
        return self.protocol.repeat_window

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
            if port is None and self.status == "unavailable":
                return
            if port is not None:
                heard_before = self.protocol.heard
                reason = self._serve_safely(port)
                self._close_port(port)
                if self._stop.is_set():
                    return
                self._post(self.protocol.connection_lost(reason))
                if self.protocol.heard > heard_before:
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
            self._post(self.protocol.unavailable(
                f"[scanner] port {self.url!r} is no serial port or pyserial URL ({exc}); "
                "fix it in the config file"))
            return None
        except (serial.SerialException, OSError) as exc:
            self.port_counts["open_failures"] += 1
            self._post(self.protocol.connection_lost(_why_not_open(self.url, exc)))
            return None
        self._port = port
        self.port_counts["opens"] += 1
        return port

    def _serve_safely(self, port: Any) -> str:
        try:
            return self._serve(port)
        except Exception as exc:      # a bug here must not silence the scanner for good
            log.exception("scanner reader failed")
            return f"internal error ({exc!r})"

    def _serve(self, port: Any) -> str:
        """Read until the port fails or goes silent; return why (for the log)."""
        try:
            port.write(self.protocol.greeting)
        except (serial.SerialException, OSError) as exc:
            return f"cannot write to the port ({exc})"
        self._post(self.protocol.connection_made(self.clock()))
        while not self._stop.is_set():
            try:
                data = _read(port)
            except (serial.SerialException, OSError) as exc:
                return f"the port failed ({exc})"
            now = self.clock()
            if data:
                self._post(self.protocol.data_received(data, now))
            else:
                self.port_counts["idle_reads"] += 1
            why = self.protocol.silence(now) or (None if data else self._vanished())
            if why:
                return why
        return "stopped"

    def _vanished(self) -> str | None:
        if "://" not in self.url and not os.path.exists(self.url):
            return "the port vanished"
        return None

    def _post(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, ev.CardScanned) and self.turn_now is not None:
                event = dataclasses.replace(event, seen=self.turn_now())  # as it was read
            self.post(event)

    def _close_port(self, port: Any) -> None:
        self._port = None
        try:
            port.close()
        except Exception:
            log.debug("closing the scanner port failed", exc_info=True)


def _read(port: Any) -> bytes:
    """One blocking read (up to the port's timeout) and whatever else is waiting."""
    data = port.read(1)
    while data and port.in_waiting:
        data += port.read(port.in_waiting)
    return bytes(data)


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
