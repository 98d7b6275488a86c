"""The phone view is announced on the LAN through the system's avahi-daemon: a real
avahi-daemon (Debian's, on a D-Bus bus of the test's own) announces it, and a real mDNS
browser (python-zeroconf, over multicast) resolves "Coffee Rush table" (_http._tcp) to the
server's port. Without avahi the warning says what to install or start."""
import logging
import os
import shutil
import socket
import subprocess
import threading

import pytest
from zeroconf import Zeroconf

from companion.outputs.web.mdns import SERVICE, Announcer, publish_command
from timing import scaled

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path={socket}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/>
<allow receive_sender="*"/></policy></busconfig>
"""
AVAHI_CONFIG = """[server]
use-ipv4=yes
use-ipv6=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-aaaa-on-ipv4=no
"""


def started(proc: subprocess.Popen, words: str, seconds: float = 10.0) -> bool:
    """Whether ``proc`` wrote a line containing ``words`` within ``seconds`` (its output
    is read to the end on a thread)."""
    seen = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            if words in line:
                seen.set()
    threading.Thread(target=read, daemon=True).start()
    return seen.wait(seconds)


@pytest.fixture
def avahi(tmp_path, monkeypatch):
    """A real avahi-daemon answering mDNS on this machine's networks, on a D-Bus system bus
    of the test's own (DBUS_SYSTEM_BUS_ADDRESS)."""
    for program in ("dbus-daemon", "avahi-daemon", "avahi-publish-service"):
        if shutil.which(program, path="/usr/sbin:/usr/bin:/sbin:/bin") is None:
            pytest.skip(f"no {program} (apt-get install avahi-daemon avahi-utils dbus)")
    if os.geteuid() != 0:
        pytest.skip("avahi-daemon runs as root (it writes /run/avahi-daemon)")
    if subprocess.run(["avahi-daemon", "--check"], capture_output=True).returncode == 0:
        pytest.skip("an avahi-daemon runs here already: the test's own cannot start beside it")
    bus = tmp_path / "bus"
    (tmp_path / "bus.conf").write_text(BUS_CONFIG.format(socket=bus))
    (tmp_path / "avahi.conf").write_text(AVAHI_CONFIG)
    dbus = subprocess.Popen(["dbus-daemon", "--nofork", "--print-address",
                             f"--config-file={tmp_path / 'bus.conf'}"],
                            stdout=subprocess.PIPE, text=True)
    daemon = None
    try:
        assert started(dbus, "unix:"), "dbus-daemon did not start"
        monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", f"unix:path={bus}")
        daemon = subprocess.Popen(["avahi-daemon", "--no-chroot", "--no-drop-root",
                                   "--no-rlimits", "--no-proc-title",
                                   "-f", str(tmp_path / "avahi.conf")],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert started(daemon, "Server startup complete"), "avahi-daemon did not start"
        yield
    finally:
        for proc in (daemon, dbus):
            if proc is not None:
                proc.terminate()
                proc.wait(scaled(10))


def test_the_table_is_found_by_name(avahi):
    announcer = Announcer(18999, name="Coffee Rush table test")
    assert announcer.start()
    try:
        assert announcer.registered.wait(scaled(10)), f"not announced: {announcer.error}"
        assert announcer.announced_as == "Coffee Rush table test"
        zc = Zeroconf()
        try:
            info = zc.get_service_info(SERVICE, f"Coffee Rush table test.{SERVICE}", timeout=5000)
        finally:
            zc.close()
    finally:
        announcer.close()
    assert info is not None and info.port == 18999
    assert info.server == socket.gethostname().split(".")[0] + ".local."
    assert info.properties[b"path"] == b"/" and info.properties[b"api"] == b"/api/table"
    assert announcer.proc is None                    # closed: avahi-publish has ended


def test_without_avahi_daemon_the_warning_says_how_to_start_it(tmp_path, monkeypatch, caplog):
    if shutil.which("avahi-publish-service") is None:
        pytest.skip("no avahi-publish-service (apt-get install avahi-utils)")
    monkeypatch.setenv("DBUS_SYSTEM_BUS_ADDRESS", f"unix:path={tmp_path / 'no-bus'}")
    announcer = Announcer(18998)
    with caplog.at_level(logging.WARNING, logger="companion.outputs.web"):
        assert announcer.start()
        announcer._thread.join(scaled(10))
    assert not announcer.registered.is_set()
    assert "avahi-daemon is not running" in announcer.error
    assert "systemctl enable --now avahi-daemon" in caplog.text
    announcer.close()


def test_without_avahi_utils_the_warning_says_what_to_install(caplog):
    announcer = Announcer(18997, program="no-such-avahi-publish-service")
    with caplog.at_level(logging.WARNING, logger="companion.outputs.web"):
        assert not announcer.start()
    assert "apt install avahi-daemon avahi-utils" in caplog.text
    announcer.close()


def test_the_announcement_names_type_port_and_pages():
    assert publish_command("Coffee Rush table", 80, "/usr/bin/avahi-publish-service") == [
        "/usr/bin/avahi-publish-service", "Coffee Rush table", "_http._tcp", "80", "path=/",
        "api=/api/table"]
