"""The service's log: one line per message, in words, at the right priority.

Under systemd (stderr is the journal's stream: ``$JOURNAL_STREAM``) each line
starts with its syslog priority, ``<3>`` error ... ``<7>`` debug, which journald
turns into the entry's priority (``journalctl -p warning -u coffee-companion``
shows only what needs a look). In a terminal the lines start with the level
name instead.

``native_stderr_quiet()`` keeps what C libraries print straight to stderr
while audio opens out of the log: libasound's "ALSA lib confmisc.c:767:
(parse_card) cannot find card '0'" and the like, eight lines at every start on a
machine without a sound card. The sound module already says in one line when
there is no audio device. (A Python error handler for libasound cannot be used:
SDL's ALSA hot-plug thread would call it while the main thread holds the GIL.)
The log itself writes to its own copy of stderr, so nothing it says is lost.
"""
from __future__ import annotations

import contextlib
import faulthandler
import logging
import logging.handlers
import os
import queue
import re
import select
import sys
import threading
import time
from typing import TextIO
from collections.abc import Callable, Iterator

#: logging level -> syslog priority (sd-daemon.h: SD_ERR "<3>" ... SD_DEBUG "<7>")
PRIORITIES = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6,
              logging.DEBUG: 7}


class JournalFormatter(logging.Formatter):
    """``<priority>logger: message``; a multi-line message keeps the priority on each line."""

    def format(self, record: logging.LogRecord) -> str:
        prio = PRIORITIES.get(record.levelno, 6 if record.levelno < logging.WARNING else 3)
        text = f"{record.name}: {super().format(record)}"
        return "\n".join(f"<{prio}>{line}" for line in text.splitlines())


def under_journald(stream: TextIO = sys.stderr, env: dict | None = None) -> bool:
    """Whether ``stream`` is connected to the systemd journal ($JOURNAL_STREAM = dev:inode)."""
    environ = os.environ if env is None else env
    try:
        dev, ino = (int(x) for x in environ.get("JOURNAL_STREAM", "").split(":"))
        st = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (st.st_dev, st.st_ino) == (dev, ino)


def setup(level: str | None = None, stream: TextIO = sys.stderr,
          env: dict | None = None) -> logging.StreamHandler:
    """Log to ``stream`` from ``level`` (debug, info, warning, error) up. The log writes to
    its own duplicate of ``stream``'s descriptor, so ``native_stderr_quiet`` never hides it."""
    journald = under_journald(stream, env)
    with contextlib.suppress(OSError, AttributeError, ValueError):   # not a real file: as is
        stream = os.fdopen(os.dup(stream.fileno()), "w", buffering=1, encoding="utf-8",
                           errors="backslashreplace")
    handler = logging.StreamHandler(stream)
    if journald:
        handler.setFormatter(JournalFormatter("%(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel((level or "info").upper())
    # Python's warnings (a library's, e.g. Debian 13's pygame on an x86 machine: "Your
    # system is avx2 capable but pygame was not built with support for it") into the log,
    # as warnings ("py.warnings"), not as bare lines journald would take for notices
    logging.captureWarnings(True)
    return handler


_quiet_lock = threading.Lock()


@contextlib.contextmanager
def native_stderr_quiet() -> Iterator[None]:
    """File descriptor 2 goes to /dev/null inside the block (C libraries' chatter)."""
    with _quiet_lock:
        try:
            saved = os.dup(2)
            null = os.open(os.devnull, os.O_WRONLY)
        except OSError:
            yield
            return
        try:
            sys.stderr.flush()
            os.dup2(null, 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(null)


NATIVE_REPEAT_SECONDS = 60.0
"""A C library's line said again within this long is counted, not logged again."""


class NativeLines:
    """What C libraries write to file descriptor 2 after the start (libasound's "underrun
    occurred" for every late audio period, Mesa's and SDL's warnings), into the log, each
    kind of line once per minute with a count of its repeats: under a slow CPU libasound
    says it several times a second, and a journal written that often on a slow SD card
    stalls journald and whatever logs through it (the appliance check's guest agent,
    .ci/check-appliance-vm run 6). Python's own writes (sys.stderr, tracebacks) go to the
    log's stream directly, so nothing is lost when the process dies."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.monotonic,
                 every: float = NATIVE_REPEAT_SECONDS):
        self.write, self.clock, self.every = write, clock, every
        self.since = clock()
        self.repeats: dict[str, tuple[str, int]] = {}    # kind -> (last line, times since)

    @staticmethod
    def kind(line: str) -> str:
        return re.sub(r"\d+", "#", line)

    def line(self, text: str) -> None:
        text = text.rstrip("\r\n")
        if not text.strip():
            return
        self.flush_due()
        kind = self.kind(text)
        if kind in self.repeats:
            first, times = self.repeats[kind]
            self.repeats[kind] = (first, times + 1)
            return
        self.repeats[kind] = (text, 0)
        self.write(text)

    def flush_due(self) -> None:
        """Once a minute: how often each repeated line came; the minute starts afresh."""
        if self.clock() - self.since < self.every:
            return
        for text, times in self.repeats.values():
            if times:
                self.write(f"{text} (and {times} more times in {self.every:.0f} s)")
        self.repeats.clear()
        self.since = self.clock()


def native_stderr_to_log(handler: logging.StreamHandler) -> threading.Thread | None:
    """Under journald: file descriptor 2 becomes a pipe read by a thread of its own (see
    ``NativeLines``), whose lines go to the log at warning; ``sys.stderr`` and faulthandler
    write to the log's own stream. None where fd 2 is not replaced (a terminal keeps it)."""
    stream = handler.stream
    if not isinstance(handler.formatter, JournalFormatter):
        return None
    try:
        stream.fileno()
        read, write = os.pipe()
    except (OSError, AttributeError, ValueError):
        return None
    sys.stderr.flush()
    os.dup2(write, 2)
    os.close(write)
    sys.stderr = stream
    faulthandler.enable(file=stream)

    def say(text: str) -> None:
        handler.acquire()
        try:
            stream.write(f"<4>{text}\n")
            stream.flush()
        finally:
            handler.release()
    lines = NativeLines(say)

    def pump() -> None:
        pending = b""
        while True:
            ready, _, _ = select.select([read], [], [], lines.every)
            with contextlib.suppress(OSError, ValueError):
                if not ready:                      # a quiet minute: the repeats' count
                    lines.flush_due()
                    continue
                chunk = os.read(read, 65536)
                if not chunk:
                    return
                *whole, pending = (pending + chunk).split(b"\n")
                for text in whole:
                    lines.line(text.decode("utf-8", "backslashreplace"))
    thread = threading.Thread(target=pump, name="native-stderr", daemon=True)
    thread.start()
    return thread


LOG_QUEUE_LINES = 10_000
"""Lines the log holds while journald is not reading (then it counts what it drops)."""


class _DroppingQueueHandler(logging.handlers.QueueHandler):
    """Never waits: past ``limit`` waiting lines it drops the record and counts it; the
    next line that fits is preceded by the count. A SimpleQueue, whose put is reentrant:
    the stop signal's handler logs, and may run while this very thread is putting."""

    def __init__(self, lines: queue.SimpleQueue, limit: int):
        super().__init__(lines)
        self.lines, self.limit, self.dropped = lines, limit, 0

    def enqueue(self, record: logging.LogRecord) -> None:
        if self.lines.qsize() >= self.limit:
            self.dropped += 1
            return
        if self.dropped:
            dropped, self.dropped = self.dropped, 0
            self.lines.put(logging.LogRecord(
                "companion.appliance.logs", logging.WARNING, __file__, 0,
                "%d log lines were dropped: the system log was not reading", (dropped,), None))
        self.lines.put(record)


class _Listener(logging.handlers.QueueListener):
    """Its stop writes what is queued, waiting at most ``STOP_SECONDS`` for a stalled
    journald (a stop must not hang on the log)."""

    STOP_SECONDS = 5.0

    def __init__(self, lines: queue.SimpleQueue, handler: logging.Handler):
        super().__init__(lines, handler, respect_handler_level=True)
        self.lines = lines

    def stop(self) -> None:
        thread = self._thread
        if thread is None:
            return
        self.lines.put(None)                       # QueueListener's sentinel
        thread.join(self.STOP_SECONDS)
        self._thread = None


def behind_a_queue(handler: logging.Handler,
                   lines: int = LOG_QUEUE_LINES) -> logging.handlers.QueueListener:
    """The root logger hands its records to a queue that a thread of its own writes out
    through ``handler``: a journald that is not reading (blocked on a slow SD card) never
    stalls the table loop's thread, whose heartbeat the watchdog waits for (a booted guest
    with its disk at 3 writes/s: .ci/check-appliance-vm run 6). Stop it at exit to write
    what is left."""
    root = logging.getLogger()
    waiting: queue.SimpleQueue = queue.SimpleQueue()
    front = _DroppingQueueHandler(waiting, lines)
    root.removeHandler(handler)
    root.addHandler(front)
    listener = _Listener(waiting, handler)
    listener.start()
    return listener
