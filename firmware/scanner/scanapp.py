"""The scanner's logic: cards in, protocol v2 lines out. No hardware here.

ScannerApp is fed the time (``step(now)``) and the host's characters
(``handle_input``); it polls an injected reader and hands finished lines to
an injected ``write``. So the host tests drive it under CPython with a fake
clock and a simulated MFRC522, and main.py wires the real Pico parts.

The clock is any object with MicroPython's ``ticks_ms``, ``ticks_diff``,
``ticks_add`` and ``sleep_ms`` (the ``time`` module on the Pico): tick values
wrap around, so they are only ever compared through ``ticks_diff``.
"""
import scanproto

FIRMWARE_VERSION = "0.2.0"
STATUS_OK = "ok"
STATUS_DOWN = "not_responding"

ERR_NOT_RESPONDING = "reader_not_responding"
ERR_REINITIALISED = "reader_reinitialised"
ERR_UNKNOWN_REQUEST = "unknown_request"
ERR_REQUEST_TOO_LONG = "request_too_long"

WINK_MS = 200          # LED off this long after a scan: "got it"
BLINK_MS = 250         # LED half-period while the reader is not responding


class CardDebouncer:
    """A card lying on the reader is one scan, not ten a second.

    A UID is reported when it shows up. While it keeps answering it is not
    reported again; once the reader has not seen it for ``release_ms`` it
    counts as lifted and the next sighting is a new scan. A different card
    is reported at once.
    """

    def __init__(self, ticks_diff, release_ms=1000):
        self._diff = ticks_diff
        self.release_ms = release_ms
        self.present = None
        self._last_seen = 0

    def update(self, uid, now):
        """One poll's result (UID bytes or None); return the UID to report, or None."""
        if uid is None:
            if self.present is not None and self._diff(now, self._last_seen) >= self.release_ms:
                self.present = None
            return None
        self._last_seen = now
        if uid == self.present:
            return None
        self.present = uid
        return uid


class Every:
    """A drift-free periodic timer on wrapping ticks (heartbeat, polls, checks)."""

    def __init__(self, clock, period_ms, now):
        self._clock = clock
        self.period_ms = period_ms
        self.restart(now)

    def restart(self, now):
        """Next due one full period after ``now``."""
        self._next = self._clock.ticks_add(now, self.period_ms)

    def due(self, now):
        """True once per period. After a long stall it fires once, not in a burst."""
        late = self._clock.ticks_diff(now, self._next)
        if late < 0:
            return False
        if late >= self.period_ms:
            self._next = self._clock.ticks_add(now, self.period_ms)
        else:
            self._next = self._clock.ticks_add(self._next, self.period_ms)
        return True


class ScannerApp:
    """The state machine of the card scanner box.

    * at ``start``: initialise the reader, send HELLO (seq 0), and an ERROR if
      the reader does not answer;
    * every ``poll_ms``: read a UID, debounce it, send SCAN for a new card;
    * every ``heartbeat_ms``: send HEARTBEAT with uptime and reader status;
    * every ``health_ms``: check the reader; if it lost its settings or stopped
      answering, re-initialise it (ERROR reader_reinitialised) or declare it
      down (ERROR reader_not_responding) and retry every ``retry_ms``;
    * on the host's ``?HELLO``: send HELLO.
    """

    def __init__(self, reader, write, clock, led=None, poll_ms=100, heartbeat_ms=2000,
                 health_ms=1000, retry_ms=1000, release_ms=1000):
        self.reader = reader
        self._write = write
        self._clock = clock
        self._led = led
        self._intervals = (poll_ms, heartbeat_ms, health_ms, retry_ms)
        self._seq = scanproto.Sequence()
        self._requests = scanproto.RequestReader()
        self.debouncer = CardDebouncer(clock.ticks_diff, release_ms)
        self.reader_ok = False
        self.started = False
        self.uptime_ms = 0
        self.write_failures = 0
        self._last_now = 0
        self._scan_at = None          # uptime of the last scan, for the LED wink

    # -- sending
    def _send(self, kind, fields):
        try:
            self._write(scanproto.frame(kind, self._seq.take(), fields))
        except Exception:             # a stuck USB link must not stop the scanner
            self.write_failures += 1

    def reader_status(self):
        return STATUS_OK if self.reader_ok else STATUS_DOWN

    def send_hello(self):
        self._send("HELLO", (str(scanproto.PROTOCOL_VERSION), FIRMWARE_VERSION,
                             scanproto.clean_field(self.reader.model, 16), self.reader_status()))

    def send_heartbeat(self):
        self._send("HEARTBEAT", (str(self.uptime_ms // 1000), self.reader_status()))

    def send_error(self, code, detail=""):
        fields = (code, scanproto.clean_field(detail)) if detail else (code,)
        self._send("ERROR", fields)

    # -- the reader
    def _init_reader(self):
        try:
            return bool(self.reader.init())
        except Exception:             # OSError from the bus, or a driver bug
            return False

    def _check_reader(self, now):
        try:
            reason = self.reader.check()
        except Exception:
            reason = "bus_error"
        if reason is None:
            return
        if self._init_reader():
            self.send_error(ERR_REINITIALISED, reason)
        else:
            self._reader_down(now, reason)

    def _reader_down(self, now, reason):
        self.reader_ok = False
        self._retry.restart(now)
        self.send_error(ERR_NOT_RESPONDING, reason)

    def _poll_card(self, now):
        try:
            uid = self.reader.read_uid()
        except Exception:
            self._check_reader(now)
            return
        new = self.debouncer.update(uid, now)
        if new is not None:
            self._scan_at = self.uptime_ms
            self._send("SCAN", (scanproto.hex_uid(new),))

    # -- the loop
    def start(self, now):
        """Boot: bring the reader up and introduce ourselves."""
        poll_ms, heartbeat_ms, health_ms, retry_ms = self._intervals
        self._last_now = now
        self._poll = Every(self._clock, poll_ms, now)
        self._heartbeat = Every(self._clock, heartbeat_ms, now)
        self._health = Every(self._clock, health_ms, now)
        self._retry = Every(self._clock, retry_ms, now)
        self.reader_ok = self._init_reader()
        self.started = True
        self.send_hello()
        if not self.reader_ok:
            self._reader_down(now, "no_answer")
        self._show()

    def step(self, now):
        """One pass of the main loop at tick ``now``."""
        elapsed = self._clock.ticks_diff(now, self._last_now)
        if elapsed > 0:
            self.uptime_ms += elapsed
        self._last_now = now
        if self._heartbeat.due(now):
            self.send_heartbeat()
        if self.reader_ok:
            if self._health.due(now):
                self._check_reader(now)
            if self.reader_ok and self._poll.due(now):
                self._poll_card(now)
        elif self._retry.due(now) and self._init_reader():
            self.reader_ok = True
            self.send_error(ERR_REINITIALISED, "recovered")
        self._show()

    def handle_input(self, text):
        """Characters from the host: answer complete requests."""
        overflows = self._requests.overflows
        for line in self._requests.feed(text):
            if line.upper() == scanproto.HELLO_REQUEST:
                self.send_hello()
            else:
                self.send_error(ERR_UNKNOWN_REQUEST, line)
        if self._requests.overflows != overflows:
            self.send_error(ERR_REQUEST_TOO_LONG)

    # -- the LED
    def led_level(self):
        """Steady on = ready; a short off-wink = card read; blinking = reader down."""
        if not self.started:
            return 0
        if not self.reader_ok:
            return 1 - (self.uptime_ms // BLINK_MS) % 2
        if self._scan_at is not None and self.uptime_ms - self._scan_at < WINK_MS:
            return 0
        return 1

    def _show(self):
        if self._led is not None:
            self._led.value(self.led_level())


def serve(app, port, clock, idle_ms=10, steps=None):
    """The main loop: start, then read requests and step forever (or ``steps`` times)."""
    app.start(clock.ticks_ms())
    done = 0
    while steps is None or done < steps:
        text = port.read_available()
        if text:
            app.handle_input(text)
        app.step(clock.ticks_ms())
        clock.sleep_ms(idle_ms)
        done += 1
