"""The phone view announced on the LAN: mDNS / DNS-SD ``_http._tcp`` "Coffee Rush table".

Phones and laptops that browse for web services (and tools such as
``avahi-browse -r _http._tcp``) find the table by name. On a Raspberry Pi whose
hostname is ``coffee-rush`` (install.sh names a fresh Pi so), avahi already answers
``coffee-rush.local``, and the Pi's config serves the page on port 80, so
``http://coffee-rush.local`` opens it (README, "The phone view").
Installs that prefer avahi for the service too ship
``systemd/coffee-rush.avahi-service`` and set ``[web] mdns = false``.

Registration probes the network for a few hundred milliseconds, so it runs on
its own thread; a second table on the same network is renamed
"Coffee Rush table (2)". No network, or no multicast: one warning, nothing else.
"""
from __future__ import annotations

import logging
import socket
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:                       # imported when announcing (zeroconf starts slowly)
    from zeroconf import ServiceInfo, Zeroconf

log = logging.getLogger("companion.outputs.web")
SERVICE = "_http._tcp.local."
NAME = "Coffee Rush table"


def addresses(bind: str) -> list[str]:
    """The IPv4 addresses phones can reach (the bind address if it is a specific one)."""
    if bind not in ("", "0.0.0.0", "::"):
        return [bind]
    import ifaddr
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127."):
                found.append(ip.ip)
    return found


class Announcer:
    def __init__(self, port: int, bind: str = "0.0.0.0", name: str = NAME,
                 interfaces: list[str] | None = None):
        self.port, self.bind, self.name = port, bind, name
        self.interfaces = interfaces
        self.zc: Zeroconf | None = None
        self.info: ServiceInfo | None = None
        self._thread: threading.Thread | None = None
        self.registered = threading.Event()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._register, name="mdns", daemon=True)
        self._thread.start()

    def _register(self) -> None:
        from zeroconf import InterfaceChoice, ServiceInfo, Zeroconf
        try:
            ips = addresses(self.bind)
            if not ips:
                log.warning("phone view not announced on the LAN: no network address yet")
                return
            host = socket.gethostname().split(".")[0]
            info = self.info = ServiceInfo(SERVICE, f"{self.name}.{SERVICE}", port=self.port,
                                           parsed_addresses=ips, server=f"{host}.local.",
                                           properties={"path": "/", "api": "/api/table"})
            zc = self.zc = Zeroconf(interfaces=self.interfaces or InterfaceChoice.All)
            zc.register_service(info, allow_name_change=True)
            log.info("phone view announced as \"%s\" (%s)", info.name.split("._")[0],
                     ", ".join(ips))
            self.registered.set()
        except Exception as exc:  # noqa: BLE001 - no multicast must not disturb the table
            log.warning("phone view not announced on the LAN: %s", exc)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join(5.0)
        if self.zc is not None:
            try:
                if self.registered.is_set() and self.info is not None:
                    self.zc.unregister_service(self.info)
                self.zc.close()
            except Exception as exc:  # noqa: BLE001
                log.warning("mDNS announcement not withdrawn: %s", exc)
            self.zc = None
