"""A test subscriber of the table loop: keeps every update and lets a test wait for one.

Test code, so out of the package (it lived in the table loop's module).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
import threading
import time

from companion.core.loop import Update
from timing import scaled


@dataclass
class Recorder:
    """A test subscriber: keeps every update and lets a test wait for one."""
    updates: list[Update] = field(default_factory=list)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def __call__(self, u: Update) -> None:
        with self._cond:
            self.updates.append(u)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[Update], bool], timeout: float = 5.0) -> Update:
        """The first update ``predicate`` takes; TimeoutError after ``scaled(timeout)``."""
        deadline = time.monotonic() + scaled(timeout)
        with self._cond:
            seen = 0
            while True:
                for u in self.updates[seen:]:
                    if predicate(u):
                        return u
                seen = len(self.updates)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no matching update arrived")
                self._cond.wait(left)

    def kinds(self) -> list[str]:
        return [h.kind for u in self.updates for h in u.happened]
