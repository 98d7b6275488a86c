"""The one base of the output threads (lights, sound, voice): started once, stopped by a
flag, driven by ``tick(now)``.

Other threads only hand work over: they append to the subclass's inbox under ``_cond``
and notify it. The worker's own thread then loops: ``tick()`` does everything due at
the clock's ``now`` and returns the clock time it wants to run again (None: only when
new work arrives); in between it sleeps on ``_cond``. Tests call ``tick(now)`` on their
own thread with the time they choose, and inject ``clock``.

A subclass sets ``clock``, ``_cond`` (a ``threading.Condition``), ``_stopping`` (False)
and ``_thread`` (None) in its ``__init__``, implements ``tick`` and ``_has_work``, and
may override ``_begin`` (False: nothing to run, e.g. no speech engine), ``_failed`` (a
tick raised) and ``_finish`` (the thread's last words, e.g. closing the mixer).
``start`` and ``stop`` are safe to call twice.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Self

log = logging.getLogger("companion.core.worker")


class Worker:
    thread_name = "worker"
    clock: Callable[[], float] = time.monotonic
    _cond: threading.Condition
    _stopping: bool
    _thread: threading.Thread | None
    _asleep = False                  # the thread waits with nothing due (wait_idle)

    # --- what a subclass provides ---------------------------------------------------------

    def tick(self, now: float | None = None) -> float | None:  # pragma: no cover - abstract
        """Do what is due at ``now`` (default: the clock's now); when to run again."""
        raise NotImplementedError

    def _has_work(self) -> bool:  # pragma: no cover - abstract
        """Whether work was handed over since the last tick (called under ``_cond``)."""
        raise NotImplementedError

    def _wanted(self) -> bool:
        """Whether there is anything to run (e.g. the output is enabled)."""
        return True

    def _begin(self) -> bool:
        """First thing on the thread; False ends it at once."""
        return True

    def _failed(self, exc: Exception) -> None:
        """A tick raised: say so; the thread carries on (a bug must not kill an output)."""
        log.exception("the %s thread failed", self.thread_name)

    def _finish(self) -> None:
        """Last thing on the thread, however it ends."""

    # --- the life cycle ---------------------------------------------------------------------

    def start(self) -> Self:
        if self._wanted() and self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.thread_name,
                                            daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        try:
            if self._begin():
                self._loop()
        finally:
            self._finish()

    def _loop(self) -> None:
        while True:
            try:
                wake = self.tick()
            except Exception as exc:
                wake = None
                self._failed(exc)
            with self._cond:
                while not self._has_work() and not self._stopping:
                    if wake is None:
                        self._asleep = True
                        self._cond.notify_all()      # wait_idle() may share the condition
                        self._cond.wait()
                        self._asleep = False
                    else:
                        left = wake - self.clock()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                if self._stopping:
                    return


class Jobs(Worker):
    """Slow work off the table loop's thread (issue 21: nothing blocks the loop).

    ``submit(job)`` from any thread; each job runs on this worker's own thread, in the
    order given, and posts what it found back to the loop as an input (the loop's thread
    is the only one that then changes anything). Started on the first job.
    """

    def __init__(self, name: str = "jobs", clock: Callable[[], float] = time.monotonic):
        self.thread_name = name
        self.clock = clock
        self._cond = threading.Condition()
        self._stopping = False
        self._thread = None
        self._inbox: list[Callable[[], None]] = []

    def submit(self, job: Callable[[], None]) -> None:
        with self._cond:
            self._inbox.append(job)
            self._cond.notify_all()
        self.start()

    def tick(self, now: float | None = None) -> float | None:
        with self._cond:
            jobs, self._inbox = self._inbox, []
        for job in jobs:
            try:
                job()
            except Exception:            # a job's bug must not end the worker
                log.exception("a %s job failed", self.thread_name)
        return None

    def _has_work(self) -> bool:
        return bool(self._inbox)

    def close(self) -> None:
        self.stop()
