"""Telling systemd how the service is doing (``Type=notify`` in the unit).

The sd_notify protocol is one datagram of ``KEY=value`` lines to the socket
named by ``$NOTIFY_SOCKET`` (``@name`` = Linux abstract namespace)::

    READY=1          the journal is resumed and the screen (or its fault page) is up
    STATUS=...       one line for `systemctl status`, in words ("Ana's turn, round 3")
    WATCHDOG=1       still alive: sent by the table loop's own thread, so a hung loop
                     stops the pings and systemd restarts the service (WatchdogSec=)
    STOPPING=1       a clean stop has begun

Outside systemd (no ``$NOTIFY_SOCKET``) every call does nothing.
"""
from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger("companion.appliance.notify")


class Notifier:
    def __init__(self, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        address = env.get("NOTIFY_SOCKET", "")
        self.address: str | None = None
        if address.startswith("@"):
            self.address = "\0" + address[1:]
        elif address.startswith("/"):
            self.address = address
        self.watchdog_seconds = _watchdog_seconds(env)
        self._sock: socket.socket | None = None
        self._status = ""
        self._warned = False

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *lines: str) -> bool:
        if self.address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto("\n".join(lines).encode("utf-8"), self.address)
            return True
        except OSError as exc:
            if not self._warned:            # once: systemd may simply be gone (shutdown)
                self._warned = True
                log.warning("could not tell systemd (%s): %s", self.address.lstrip("\0"), exc)
            return False

    def ready(self, status: str) -> None:
        self._status = status
        self.send("READY=1", f"STATUS={status}")

    def status(self, text: str) -> None:
        """One line for `systemctl status`; sent only when it changes."""
        if text != self._status:
            self._status = text
            self.send(f"STATUS={text}")

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def stopping(self) -> None:
        self.send("STOPPING=1", "STATUS=stopping")

    @property
    def ping_every(self) -> float | None:
        """How often to send WATCHDOG=1: half of WatchdogSec, as systemd advises."""
        return self.watchdog_seconds / 2 if self.watchdog_seconds else None

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """WatchdogSec from $WATCHDOG_USEC, if it is meant for this process ($WATCHDOG_PID)."""
    try:
        usec = int(env.get("WATCHDOG_USEC", "0"))
        pid = int(env.get("WATCHDOG_PID", "0") or 0)
    except ValueError:
        return None
    if usec <= 0 or (pid and pid != os.getpid()):
        return None
    return usec / 1_000_000
