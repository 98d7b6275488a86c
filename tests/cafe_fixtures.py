"""Café test fixtures: a real Mosquitto broker on a free loopback port (always
stopped), the hub listening to it, and simulated tables playing into it.

``.ci/run`` installs Debian's mosquitto. Without it the tests that need a broker
are skipped locally, and fail under CI (where a skip would hide a missing install).
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import pytest

from companion.cafe.hub import Hub
from cafe_simulate import SimulatedTable, table_settings
from companion.cafe.store import Store
from timing import scaled
from timing import scaled


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout: float = 5.0, step: float = 0.01) -> bool:
    """True once ``predicate()`` is; False after ``scaled(timeout)`` (a hang guard)."""
    deadline = time.monotonic() + scaled(timeout)
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pause.wait(step)
    return True


def end(proc) -> None:
    """Stop a server we started: SIGTERM (it saves and closes), SIGKILL if it hangs."""
    if proc is None:
        return
    proc.terminate()
    try:
        proc.wait(scaled(10))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(scaled(5))


class Mosquitto:
    def __init__(self, folder: str, extra: str = "", anonymous: bool = True):
        """``extra``: more lines for the listener (TLS files, a password file)."""
        exe = shutil.which("mosquitto") or (
            "/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)
        if exe is None:
            if os.environ.get("CI"):
                pytest.fail("mosquitto is not installed (.ci/run installs it)")
            pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
        self.exe, self.folder = exe, folder
        self.port = free_port()
        self.conf = os.path.join(folder, "mosquitto.conf")
        with open(self.conf, "w") as fh:
            # as root it would switch to the mosquitto user, who cannot write here
            user = pwd.getpwuid(os.getuid()).pw_name
            fh.write(f"user {user}\nlistener {self.port} 127.0.0.1\n"
                     f"allow_anonymous {'true' if anonymous else 'false'}\n"
                     f"persistence true\npersistence_location {folder}/\n"
                     "log_dest stderr\nlog_type error\nlog_type warning\n" + extra)
        self.proc = None

    def _accepts(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return False

    def start(self) -> Mosquitto:
        with open(os.path.join(self.folder, "mosquitto.log"), "ab") as log:
            self.proc = subprocess.Popen([self.exe, "-c", self.conf], stdout=log, stderr=log)
        if not wait_until(self._accepts, 5.0):
            self.stop()
            raise RuntimeError("mosquitto did not start")
        return self

    def stop(self) -> None:
        end(self.proc)                   # SIGTERM: it saves its persistence file
        self.proc = None


@pytest.fixture
def broker(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    b = Mosquitto(str(folder)).start()
    try:
        yield b
    finally:
        b.stop()


VENUE = "testcafe"


@pytest.fixture
def hub(broker, tmp_path):
    store = Store(str(tmp_path / "cafe.db"))
    h = Hub(table_settings("127.0.0.1", broker.port, VENUE, "-"), store,
            reconnect_min=0.1).start()
    assert h.connected.wait(scaled(5))
    yield h
    h.close()
    store.close()


@pytest.fixture
def pages():
    """pages(hub) -> an HTTP client of the hub's pages, served as ``coffee-companion cafe``
    serves them (our server, on a loopback port); stopped at the end."""
    import httpx
    from companion.cafe.web import build_app
    from companion.outputs.web.server import BackgroundServer
    opened = []

    def serve(h: Hub) -> httpx.Client:
        app = build_app(h)
        server = BackgroundServer(app, "127.0.0.1", 0, name="café floor page")
        server.on_stop(app.close)
        assert server.start()
        client = httpx.Client(base_url=server.url, timeout=scaled(10))
        opened.append((server, client))
        return client
    yield serve
    for server, client in opened:
        client.close()
        server.stop()


@pytest.fixture
def tables(broker, tmp_path):
    made = []

    def make(name, seed, players=3, edition="original", expansion=None):
        t = SimulatedTable(str(tmp_path / "tables"), table_settings(
            "127.0.0.1", broker.port, VENUE, name), seed=seed, players=players,
            edition=edition, expansion=expansion, durable=False, reconnect_min=0.1).start()
        made.append(t)
        assert t.publisher.connected.wait(scaled(5))
        return t
    yield make
    for t in made:
        t.close()


class PostgreSQL:
    """Debian's PostgreSQL server in a scratch folder on a free loopback port (as the
    postgres user when the tests run as root: the server refuses root)."""

    def __init__(self):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
        if not bins:
            if os.environ.get("CI"):
                pytest.fail("postgresql is not installed (.ci/run installs it)")
            pytest.skip("postgresql is not installed (apt-get install postgresql)")
        self.bin = os.path.dirname(bins[-1])
        self.folder = tempfile.mkdtemp(prefix="cafe-pg-")
        self.port = free_port()
        self.as_user: list[str] = []
        if os.getuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.proc = None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://cafe@127.0.0.1:{self.port}/postgres"

    def start(self) -> PostgreSQL:
        data = os.path.join(self.folder, "data")
        subprocess.run(self.as_user + [f"{self.bin}/initdb", "-D", data, "-A", "trust",
                                       "-U", "cafe", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=scaled(60))
        self.proc = subprocess.Popen(
            self.as_user + [f"{self.bin}/postgres", "-D", data, "-p", str(self.port),
                            "-h", "127.0.0.1", "-k", self.folder, "-F"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import psycopg

        def ready() -> bool:
            try:
                psycopg.connect(f"host=127.0.0.1 port={self.port} user=cafe dbname=postgres",
                                connect_timeout=1).close()
                return True
            except psycopg.OperationalError:
                return False
        if not wait_until(ready, 20, 0.05):
            self.stop()
            raise RuntimeError("postgresql did not start")
        return self

    def stop(self) -> None:
        end(self.proc)                             # SIGTERM: a smart shutdown
        self.proc = None
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def postgresql():
    pg = PostgreSQL().start()
    try:
        yield pg
    finally:
        pg.stop()
