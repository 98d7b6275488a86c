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
import logging
import os
import sys
import threading
from typing import TextIO
from collections.abc import Iterator

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
          env: dict | None = None) -> logging.Handler:
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
