"""The thread an output runs on (sound, voice): started once, stopped by a flag.

A subclass sets ``_cond`` (a ``threading.Condition``), ``_stopping`` (False) and
``_thread`` (None) in its ``__init__`` and implements ``_run``, which waits on
``_cond`` and returns once ``_stopping`` is set. ``start`` and ``stop`` are safe
to call twice.
"""
from __future__ import annotations

import threading
from typing import Optional


class Worker:
    thread_name = "worker"
    _cond: threading.Condition
    _stopping: bool
    _thread: Optional[threading.Thread]

    def _wanted(self) -> bool:
        """Whether there is anything to run (e.g. the output is enabled)."""
        return True

    def _run(self) -> None:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def start(self):
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
