"""What the tests of the running service share: the config of a simulated table, and
waiting for READY=1 on systemd's notify socket (the ``notify_socket`` fixture, conftest.py)."""


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


def wait_ready(sock) -> str:
    """The next READY=1 message (with its STATUS= line)."""
    while True:
        msg = sock.recv(4096).decode()
        if msg.startswith("READY=1"):
            return msg
