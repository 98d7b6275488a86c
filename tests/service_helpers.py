"""What the tests of the running service share: the config of a simulated table, and
systemd's notify socket (a real datagram socket the service reports to)."""
import socket

import pytest


def table_config(tmp_path, extra: str = "", pixels: str = "none", sound: bool = False) -> str:
    """A config file for a table on simulated hardware, no phone view."""
    path = tmp_path / "config.toml"
    path.write_text(f"""
[journal]
path = "{tmp_path}/journal.db"
[catalog]
paths = ["{tmp_path}/cards.toml"]
[seats]
driver = "simulated"
[pixels]
driver = "{pixels}"
segment_length = 2
[sound]
enabled = {"true" if sound else "false"}
[web]
enabled = false
{extra}""", encoding="utf-8")
    return str(path)


@pytest.fixture
def notify_socket(tmp_path):
    """(path, socket) where a service run with NOTIFY_SOCKET=path reports."""
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(10)
    yield path, sock
    sock.close()


def wait_ready(sock) -> str:
    """The next READY=1 message (with its STATUS= line)."""
    while True:
        msg = sock.recv(4096).decode()
        if msg.startswith("READY=1"):
            return msg
