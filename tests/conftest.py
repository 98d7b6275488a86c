import os
import sys

import pytest

from timing import scaled

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


@pytest.fixture
def notify_socket(tmp_path):
    """(path, socket): systemd's notify socket for a service run with NOTIFY_SOCKET=path."""
    import socket
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(scaled(10))
    yield path, sock
    sock.close()


@pytest.fixture(autouse=True)
def _collector_back_on():
    """The screen's main loop turns Python's automatic collection off for the service
    (``companion.outputs.screen.app.freeze_start_up``); the tests after one that ran it
    get it back, and nothing frozen."""
    import gc
    yield
    if not gc.isenabled():
        gc.unfreeze()
        gc.enable()
