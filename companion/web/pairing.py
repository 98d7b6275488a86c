"""Control only with the table's consent: the pairing code.

Reading the table is open on the LAN; every action posted from a phone must
carry the code the touchscreen shows in Settings. The code is six digits from
the system's random source; "New code" on the touchscreen replaces it, so every
phone that knew the old one loses control at once (revocation).

Guessing is rate-limited: a client that gets the code wrong ``max_failures``
times within ``window`` seconds is refused until the window has passed, and
after ``max_failures_all`` wrong codes from anywhere every client waits, so
a million codes cannot be tried. Accepted actions are limited too
(``max_actions`` per ``window`` and client) so a stuck script cannot flood the
table. Thread-safe: the web server checks, the touchscreen renews.
"""
from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable

OK, WRONG, LOCKED, BUSY = "ok", "wrong", "locked", "busy"


class Pairing:
    def __init__(self, clock: Callable[[], float] = time.monotonic, digits: int = 6,
                 window: float = 60.0, max_failures: int = 5, max_failures_all: int = 20,
                 max_actions: int = 60, code: str = ""):
        self.clock = clock
        self.digits = digits
        self.window = window
        self.max_failures = max_failures
        self.max_failures_all = max_failures_all
        self.max_actions = max_actions
        self._lock = threading.Lock()
        self._failures: dict[str, deque] = {}
        self._all_failures: deque = deque()
        self._actions: dict[str, deque] = {}
        self._code = code or self._new_code()
        self.generation = 1
        self.listeners: list[Callable[[str], None]] = []

    def _new_code(self) -> str:
        return f"{secrets.randbelow(10 ** self.digits):0{self.digits}d}"

    @property
    def code(self) -> str:
        return self._code

    def shown(self) -> str:
        """The code as the touchscreen shows it: "482 913"."""
        half = len(self._code) // 2
        return f"{self._code[:half]} {self._code[half:]}"

    def renew(self) -> str:
        """A new code: the old one (and every phone paired with it) stops working."""
        with self._lock:
            old = self._code
            while self._code == old:
                self._code = self._new_code()
            self.generation += 1
            self._failures.clear()
            self._all_failures.clear()
        for fn in list(self.listeners):
            fn(self._code)
        return self._code

    def _recent(self, times: deque, now: float) -> deque:
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def check(self, offered: str, client: str) -> str:
        """OK, WRONG (counted), LOCKED (too many wrong codes: wait) or BUSY (too many
        actions from this client: slow down)."""
        now = self.clock()
        offered = "".join(ch for ch in (offered or "") if ch.isdigit())
        with self._lock:
            mine = self._recent(self._failures.setdefault(client, deque()), now)
            everyone = self._recent(self._all_failures, now)
            if len(mine) >= self.max_failures or len(everyone) >= self.max_failures_all:
                return LOCKED
            if not hmac.compare_digest(offered.encode(), self._code.encode()):
                mine.append(now)
                everyone.append(now)
                return WRONG
            actions = self._recent(self._actions.setdefault(client, deque()), now)
            if len(actions) >= self.max_actions:
                return BUSY
            actions.append(now)
            return OK
