"""The phone view announced on the LAN: mDNS / DNS-SD ``_http._tcp`` "Coffee Rush table".

Phones and laptops that browse for web services (and tools such as
``avahi-browse -r _http._tcp``) find the table by name. On a Raspberry Pi whose
hostname is ``coffee-rush`` (install.sh names a fresh Pi so), avahi already answers
``coffee-rush.local``, and the Pi's config serves the page on port 80, so
``http://coffee-rush.local`` opens it (docs/phone.md).

The announcement is the system's avahi-daemon's (what Raspberry Pi OS runs, and what
already answers the ``.local`` name): ``avahi-publish-service`` (Debian's avahi-utils,
which install.sh installs) asks it over D-Bus and keeps the service announced for as long
as it runs, a small C process of ours beside the service, which systemd's control group
ends with it, a crash included (issue 19: an mDNS responder in the service's own process,
python-zeroconf with its asyncio loop, cost about 3 MB of its resident memory). avahi
answers on every network of the host with the host's own addresses and renames the
service "Coffee Rush table #2" when another table on the network has the name. No
avahi-utils, no avahi-daemon, no D-Bus: one warning in words, the table plays on
unannounced.
"""
from __future__ import annotations

import logging
import shutil
import subprocess
import threading

log = logging.getLogger("companion.outputs.web")
SERVICE = "_http._tcp.local."
NAME = "Coffee Rush table"
PUBLISH = "avahi-publish-service"
ESTABLISHED = "Established under name "
NOT_ANNOUNCED = "phone view not announced on the LAN"


def publish_command(name: str, port: int, program: str) -> list[str]:
    """avahi-publish-service's arguments: the name, the type, the port, the TXT records."""
    return [program, name, SERVICE.removesuffix(".local."), str(port), "path=/",
            "api=/api/table"]


def why_not(line: str) -> str:
    """avahi-publish-service's failure in the words of the fix."""
    if "Daemon not running" in line:
        return ("avahi-daemon is not running (sudo apt install avahi-daemon; "
                "sudo systemctl enable --now avahi-daemon)")
    return f"avahi-publish-service: {line}"


class Announcer:
    """``Announcer(8080).start()``: announced while it runs, withdrawn at ``close()``."""

    def __init__(self, port: int, name: str = NAME, program: str = PUBLISH):
        self.port, self.name, self.program = port, name, program
        self.proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None
        self.registered = threading.Event()
        self.announced_as: str | None = None     # the name avahi established (renamed?)
        self.error: str | None = None

    def start(self) -> bool:
        """Ask avahi to announce; False (one warning) when avahi-publish-service is missing.
        Whether avahi took it is said in the log once it answers (``registered``)."""
        program = shutil.which(self.program)
        if program is None:
            self.error = (f"{self.program} is missing (sudo apt install avahi-daemon "
                          "avahi-utils; install.sh does)")
            log.warning("%s: %s", NOT_ANNOUNCED, self.error)
            return False
        self.proc = subprocess.Popen(publish_command(self.name, self.port, program),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, errors="replace")
        self._thread = threading.Thread(target=self._follow, args=(self.proc,), name="mdns",
                                        daemon=True)
        self._thread.start()
        return True

    def _follow(self, proc: subprocess.Popen[str]) -> None:
        """avahi-publish-service's lines until it ends: established, renamed, failed."""
        assert proc.stdout is not None
        last = ""
        for raw in proc.stdout:
            line = raw.strip()
            if line.startswith(ESTABLISHED):
                self.announced_as = line[len(ESTABLISHED):].strip("'")
                log.info("phone view announced as \"%s\" (port %d)", self.announced_as,
                         self.port)
                self.registered.set()
            elif line:
                last = line
                log.info("avahi: %s", line)
        code = proc.wait()
        if code != 0 and self.proc is not None:       # not ended by close()
            self.error = why_not(last or f"ended with exit status {code}")
            log.warning("%s: %s", NOT_ANNOUNCED, self.error)

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.terminate()              # avahi-publish withdraws the service and ends
            try:
                proc.wait(5.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._thread is not None:
            self._thread.join(5.0)
            self._thread = None
        self.registered.clear()
