"""SIGTERM, SIGINT and SIGHUP: one clean stop, asked for without taking a lock in the handler.

Python runs a signal's handler on the main thread between two bytecodes, wherever that
thread happens to be: also inside ``Event.wait``, just after it took the Event's lock back.
A handler that sets that Event (or any other: its own, the screen's), logs, or posts to a
queue guarded by a lock then waits for a lock its own thread holds, for ever. A service was
found alive half an hour after SIGTERM that way, its main thread in ``Event.set`` under
``Event.wait``.

So the handler here does one thing: it puts the signal's number into a
``queue.SimpleQueue``, whose ``put`` the standard library documents as reentrant (safe to
interrupt, and to call from a handler). A thread of its own takes the number from there and
does the rest: the log line and the stop callbacks (setting ``stopping``, asking the screen to
end).

The main thread still waits in short slices (``wait_for_stop``): the kernel may hand a
process's signal to any thread, and Python runs the handler only once the main thread runs
bytecodes again.
"""
from __future__ import annotations

import contextlib
import logging
import queue
import signal
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
SIGNAL_CHECK_SECONDS = 0.25   # how often a waiting main thread looks for a stop signal


def wait_for_stop(stopping: threading.Event, seconds: float) -> bool:
    """Wait up to ``seconds`` for ``stopping``, in short slices: Python runs a signal's
    handler only on the main thread between bytecodes, so a main thread asleep in one long
    wait never sees a SIGTERM the kernel handed to another thread (the web server's, the
    table loop's). True once ``stopping`` is set."""
    deadline = time.monotonic() + seconds
    while not stopping.wait(min(SIGNAL_CHECK_SECONDS, max(0.0, deadline - time.monotonic()))):
        if time.monotonic() >= deadline:
            return False
    return True


class StopSignals:
    """The stop signals' handlers while installed: each signal that comes calls every
    ``on_stop`` callback with its number, on this object's own thread."""

    def __init__(self, *on_stop: Callable[[int], None], signals=STOP_SIGNALS):
        self._on_stop = list(on_stop)
        self._signals = signals
        self._received: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        self._old: dict = {}
        self._thread: threading.Thread | None = None

    def also(self, on_stop: Callable[[int], None]) -> None:
        """One more callback (the screen's, once it is up)."""
        self._on_stop.append(on_stop)

    @property
    def installed(self) -> bool:
        return self._thread is not None

    def install(self) -> bool:
        """The handlers in place, and the thread that acts on them started. Only the main
        thread may set handlers: elsewhere (a test's thread, a caller's own loop) this does
        nothing and says False."""
        if self.installed:
            return True
        if threading.current_thread() is not threading.main_thread():
            return False
        self._thread = threading.Thread(target=self._act, name="stop signals", daemon=True)
        self._thread.start()
        put = self._received.put
        for sig in self._signals:
            self._old[sig] = signal.signal(sig, lambda signum, _frame: put(signum))
        return True

    def restore(self, timeout: float = 1.0) -> None:
        """The handlers there were before, and the thread ended. Safe to call twice."""
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}
        if self._thread is not None:
            self._received.put(None)
            self._thread.join(timeout)
            self._thread = None

    def _act(self) -> None:
        while (signum := self._received.get()) is not None:
            name = signal.Signals(signum).name
            with contextlib.suppress(Exception):      # a broken log stops no stop
                log.info("%s: stopping", name)
            for on_stop in list(self._on_stop):
                try:
                    on_stop(signum)
                except Exception:                     # one callback's fault stops no other
                    log.exception("while stopping on %s", name)
