"""Control only with the table's consent: pair a phone once, then it holds a token.

Reading the table is open on the LAN. To control it a phone pairs once: it sends the
six-digit code the touchscreen shows in Settings (``POST /api/pair``) and gets a token
back; every action then carries the token (``Authorization: Bearer``, or the page's
HttpOnly cookie), never the code, so a request seen on a shared screen or in a proxy's
log gives away no code. Tokens are kept hashed (SHA-256) in a small JSON file beside
the journal, so paired phones stay paired after a restart; each is listed in Settings
with a name and can be forgotten there (revocation). "New code" replaces the code:
phones already paired keep working, nobody else can pair with the old one.

Guessing the code is rate-limited **per source address**: ``max_failures`` wrong codes
within ``window`` seconds lock that address until the window has passed. While many
addresses guess at once (more than ``max_failures_all`` wrong codes in the window), an
address that has already failed waits too, but one that has not may still try: the
owner's phone pairs, and a paired phone is never refused for someone else's guesses.
Accepted actions are limited per phone (``max_actions`` per ``window``) so a stuck
script cannot flood the table. Thread-safe: the web server pairs and checks, the
touchscreen renews and forgets.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
import dataclasses
from dataclasses import asdict, dataclass

from companion.core.rules.json_text import read as read_json

OK, WRONG, LOCKED, BUSY = "ok", "wrong", "locked", "busy"
NAME_LIMIT = 40
SEEN_SAVED = 600.0        # s: "last seen" is written to the file at most this often a phone
log = logging.getLogger("companion.outputs.web")


@dataclass(frozen=True)
class Phone:
    """A paired phone as Settings lists it (the token itself is never kept)."""
    id: str               # the first 12 hex digits of the token's hash: what "forget" names
    name: str
    paired_at: float      # wall-clock time (epoch seconds)
    digest: str           # SHA-256 of the token, hex
    last_seen: float = 0.0    # wall-clock time it last acted or opened the live table


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def phone_name(given: object, user_agent: str) -> str:
    """A short name for Settings: the one the phone gave, else its kind from the browser."""
    if isinstance(given, str):
        name = " ".join("".join(ch if ch.isprintable() else " " for ch in given).split())
        if name:
            return name[:NAME_LIMIT]
    for pattern, kind in ((r"iPhone", "iPhone"), (r"iPad", "iPad"), (r"Android", "Android"),
                          (r"Windows", "Windows"), (r"Macintosh|Mac OS", "Mac"),
                          (r"CrOS", "Chromebook"), (r"Linux", "Linux"), (r"curl", "curl")):
        if re.search(pattern, user_agent or ""):
            return kind
    return "Phone"


class Pairing:
    def __init__(self, clock: Callable[[], float] = time.monotonic, digits: int = 6,
                 window: float = 60.0, max_failures: int = 5, max_failures_all: int = 30,
                 max_actions: int = 60, code: str = "", store: str | None = None,
                 wall: Callable[[], float] = time.time):
        self.clock = clock
        self.wall = wall
        self.digits = digits
        self.window = window
        self.max_failures = max_failures
        self.max_failures_all = max_failures_all
        self.max_actions = max_actions
        self.store = store
        self._lock = threading.Lock()
        self._failures: dict[str, deque] = {}
        self._all_failures: deque = deque()
        self._actions: dict[str, deque] = {}
        self._phones: dict[str, Phone] = {}          # digest -> phone
        self._saved_seen: dict[str, float] = {}      # digest -> last_seen as last written
        self._code = code or self._new_code()
        self.generation = 1
        self.listeners: list[Callable[[str], None]] = []
        self._load()

    # --- the code ----------------------------------------------------------------------

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
        """A new code: the old one pairs nobody any more (paired phones stay paired)."""
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

    # --- pairing -----------------------------------------------------------------------

    def pair(self, offered: str, client: str, name: str = "Phone") -> tuple[str, str | None]:
        """(OK, token) for the right code; (WRONG, None), counted against ``client``; or
        (LOCKED, None) while ``client`` must wait (see the module's text)."""
        now = self.clock()
        offered = "".join(ch for ch in (offered or "") if ch.isdigit())
        with self._lock:
            mine = self._recent(self._failures.setdefault(client, deque()), now)
            everyone = self._recent(self._all_failures, now)
            if len(mine) >= self.max_failures or (
                    mine and len(everyone) >= self.max_failures_all):
                return LOCKED, None
            if not hmac.compare_digest(offered.encode(), self._code.encode()):
                mine.append(now)
                everyone.append(now)
                if len(mine) >= self.max_failures:
                    log.warning("phone %s: %d wrong pairing codes, it waits %.0f s",
                                client, len(mine), self.window)
                return WRONG, None
            token = secrets.token_urlsafe(32)
            digest = _digest(token)
            now_wall = self.wall()
            self._phones[digest] = Phone(digest[:12], name, now_wall, digest, now_wall)
            phones = list(self._phones.values())
        self._save(phones)
        log.info("phone %s paired as %r", client, name)
        return OK, token

    def phone(self, token: str | None) -> Phone | None:
        """The paired phone holding ``token``, or None."""
        if not token:
            return None
        digest = _digest(token)
        with self._lock:
            for known, phone in self._phones.items():
                if hmac.compare_digest(known, digest):
                    return phone
        return None

    def authorize(self, token: str | None) -> str:
        """OK for a paired phone's token (counted towards its action limit), WRONG for
        anything else, BUSY when that phone sends too many actions."""
        phone = self.seen(token)
        if phone is None:
            return WRONG
        now = self.clock()
        with self._lock:
            actions = self._recent(self._actions.setdefault(phone.id, deque()), now)
            if len(actions) >= self.max_actions:
                return BUSY
            actions.append(now)
        return OK

    def seen(self, token: str | None) -> Phone | None:
        """The paired phone holding ``token`` (or None), now seen: Settings says when it
        was last; the file keeps it to ``SEEN_SAVED`` seconds (not a write per action)."""
        phone = self.phone(token)
        if phone is None:
            return None
        now = self.wall()
        with self._lock:
            if phone.digest not in self._phones:
                return None
            saved = self._saved_seen.get(phone.digest, phone.last_seen)
            phone = self._phones[phone.digest] = dataclasses.replace(phone, last_seen=now)
            save = now - saved >= SEEN_SAVED
            if save:
                self._saved_seen[phone.digest] = now
            phones = list(self._phones.values())
        if save:
            self._save(phones)
        return phone

    def phones(self) -> list[Phone]:
        """Every paired phone, oldest first."""
        with self._lock:
            return sorted(self._phones.values(), key=lambda p: p.paired_at)

    def forget(self, phone_id: str) -> bool:
        """Revoke one phone (Settings' "Forget"); its token stops working at once."""
        with self._lock:
            gone = [d for d, p in self._phones.items() if p.id == phone_id]
            for d in gone:
                del self._phones[d]
            phones = list(self._phones.values())
        if gone:
            self._save(phones)
            log.info("paired phone %s forgotten", phone_id)
        return bool(gone)

    # --- the file of paired phones -------------------------------------------------------

    def _load(self) -> None:
        if self.store is None or not os.path.exists(self.store):
            return
        try:
            with open(self.store, "rb") as fh:
                data = read_json(fh.read())       # what is wrong, in our words
            phones = [Phone(str(p["id"]), str(p["name"]), float(p["paired_at"]),
                            str(p["digest"]), float(p.get("last_seen", 0.0)))
                      for p in data["phones"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s cannot be read (%s): phones must pair again", self.store, exc)
            return
        self._phones = {p.digest: p for p in phones}

    def _save(self, phones: list[Phone]) -> None:
        """Written whole to a temporary file, synced, then renamed over the old one, so a
        power cut leaves the old list or the new one, never half of one."""
        if self.store is None:
            return
        folder = os.path.dirname(os.path.abspath(self.store))
        try:
            fd, tmp = tempfile.mkstemp(prefix=".paired-phones-", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(json.dumps({"phones": [asdict(p) for p in phones]}))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.chmod(tmp, 0o600)
                os.replace(tmp, self.store)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError as exc:
            log.warning("the paired phones could not be saved to %s (%s): they stay paired "
                        "until the companion restarts", self.store, exc)


# --- the code for `coffee-companion pair` ------------------------------------------------

CODE_FILE = "pairing-code.json"   # beside the journal, while the phone view serves


def publish_code(path: str, code: str, url: str | None) -> None:
    """Write the running table's code for ``coffee-companion pair``: readable by its owner
    (the service's user) and group only (mode 0640, in the state folder, 0750 under
    systemd), written whole (a temporary file renamed over the old one). The code never
    goes into the log, not even when the file cannot be written."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".pairing-code-", dir=folder)
        try:
            os.fchmod(fd, 0o640)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(json.dumps({"code": code, "pid": os.getpid(), "url": url}))
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        log.warning("the pairing code could not be written for `coffee-companion pair` "
                    "(%s): Settings on the touchscreen still shows it", exc.strerror or exc)


def unpublish_code(path: str) -> None:
    """The phone view stops: its code is no longer the table's."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("%s could not be removed (%s)", path, exc.strerror or exc)


def published_code(path: str) -> dict:
    """What a running table published: ``{"code", "pid", "url"}``. FileNotFoundError if
    no table serves phones from this folder, PermissionError if the reader may not see
    it, LookupError if the table that wrote it is no longer running, ValueError if the
    file is damaged."""
    with open(path, "rb") as fh:
        data = read_json(fh.read())
    if not isinstance(data, dict) or not str(data.get("code", "")).isdigit():
        raise ValueError(f"{path} holds no pairing code")
    try:
        os.kill(int(data["pid"]), 0)
    except ProcessLookupError:
        raise LookupError("the table that wrote it is not running") from None
    except PermissionError:
        pass                       # running, as another user (the service's)
    return data
