"""Releases side by side and the update that never bricks the table (issue 41).

A temporary folder stands in for /opt/coffee-companion. Releases are real commits of a real
git repository (a small program that speaks our command line: ``run`` sends READY=1 over a
real sd_notify socket, migrates the journal to its schema, or fails on purpose; ``doctor``
prints OK/FAIL lines); each is built into a real venv (``--without-pip``, the source on its
path: the pip install is the one step left out, for speed). The service manager seam starts
``current``'s program as a process, as systemd would; the clock of the systemctl poller is
injected. Power cuts are exceptions raised at a step, then the unit's boot check runs.
"""
from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import tarfile
import time
import warnings

import pytest

from companion.appliance import updates
from companion.appliance.updates import Layout, Systemd, Updater, UpdateError
from companion.core.journal import SCHEMA_VERSION, Journal
from timing import scaled

MAIN = r'''
import os, socket, sqlite3, sys, time
from companion import __version__
from companion.core.journal import SCHEMA_VERSION
BEHAVIOUR = {behaviour!r}
cmd = [a for a in sys.argv[1:] if not a.startswith("-")][0]
if cmd == "doctor":
    print("OK    config    fine")
    if BEHAVIOUR == "doctor-fails":
        print("FAIL  screen    no screen answers")
        sys.exit(1)
    sys.exit(0)
if cmd == "run":
    journal = os.environ["JOURNAL"]
    db = sqlite3.connect(journal)
    with db:
        db.execute("UPDATE meta SET value=? WHERE key='schema' AND CAST(value AS INT) < ?",
                   (str(SCHEMA_VERSION), SCHEMA_VERSION))
    db.close()
    with open(os.environ["RUNNING"], "w") as fh:
        fh.write(__version__)
    if BEHAVIOUR == "broken":
        sys.exit("this release fails at start, on purpose")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    # a release that hangs says so (the stand-in for systemd then counts its limit as
    # passed: no test waits on the wall clock, which a loaded machine stretches)
    s.sendto(b"STATUS=hanging" if BEHAVIOUR == "hangs" else b"READY=1",
             os.environ["NOTIFY_SOCKET"])
    time.sleep(60)
'''


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def commit(repo, version, schema=SCHEMA_VERSION, behaviour="good"):
    pkg = repo / "companion"
    (pkg / "core").mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(f'__version__ = "{version}"\n')
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "journal.py").write_text(f"SCHEMA_VERSION = {schema}\n")
    (pkg / "__main__.py").write_text(MAIN.format(behaviour=behaviour))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"release {version}")
    return f"{version}-{git(repo, 'rev-parse', '--short=10', 'HEAD')}"


def venv_builder(release_dir, extras):
    """A real venv per release, its source on the path (pip's install left out)."""
    venv = os.path.join(release_dir, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    site = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    with open(os.path.join(site, "release.pth"), "w") as fh:
        fh.write(os.path.join(release_dir, "src") + "\n")


class Service:
    """The unit as systemd runs it: ``current``'s program, READY=1 on a notify socket."""

    def __init__(self, layout, journal, tmp_path):
        self.layout, self.journal = layout, journal
        self.running = str(tmp_path / "running")
        self.socket_path = str(tmp_path / "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.socket_path)
        self.proc = None
        self.starts = 0

    def start(self):
        self.starts += 1
        self._forget_said()
        env = dict(os.environ, NOTIFY_SOCKET=self.socket_path, JOURNAL=self.journal,
                   RUNNING=self.running)
        env.pop("PYTHONPATH", None)
        self.proc = subprocess.Popen(
            [self.layout.path("current", "venv", "bin", "python"), "-m", "companion", "run"],
            env=env, stderr=subprocess.DEVNULL, cwd="/")

    def wait_ready(self, limit):
        """READY=1 on the socket, or why not: the process exited, or the limit passed."""
        end = time.monotonic() + limit
        self.sock.settimeout(0.02)
        while True:
            try:
                said = self.sock.recv(256)
                if b"READY=1" in said:
                    return None
                if b"STATUS=hanging" in said:
                    return f"no READY within {limit} s"
            except TimeoutError:
                pass
            code = self.proc.poll()
            if code is not None:
                return f"it exited ({code}) before READY"
            if time.monotonic() >= end:
                return f"no READY within {limit} s"

    def _forget_said(self):
        """What a process before this start said (a power cut loses it): a READY=1 left
        queued by the release a cut stopped was taken for the new start's (seen under load:
        the rolled-back 1.0 "ready", the file still saying 2.0)."""
        self.sock.setblocking(False)
        try:
            while True:
                self.sock.recv(256)
        except BlockingIOError:
            pass

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(scaled(5))
            self.proc = None

    def version(self):
        with open(self.running) as fh:
            return fh.read()

    def close(self):
        self.stop()
        self.sock.close()


@pytest.fixture
def table(tmp_path):
    """(origin repo, layout with release 1.0 installed and running, updater, service)."""
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    git(origin, "config", "user.email", "t@example.org")
    git(origin, "config", "user.name", "t")
    first = commit(origin, "1.0")
    layout = Layout(str(tmp_path / "opt"))
    os.makedirs(layout.releases)
    with open(layout.path("origin"), "w") as fh:
        fh.write(str(origin))
    journal = str(tmp_path / "state" / "journal.db")
    os.makedirs(os.path.dirname(journal))
    with Journal(journal) as j:               # a real journal with something in it
        j.set_meta("acknowledged", [1, 2, 3])
    # the first install (install.sh does the same in shell)
    src = os.path.join(layout.release(first), "src")
    assert updates.fetch_git(str(origin), src) == first
    venv_builder(layout.release(first), "")
    open(os.path.join(layout.release(first), updates.COMPLETE), "w").close()
    layout.switch("current", first)
    service = Service(layout, journal, tmp_path)
    service.start()
    assert service.wait_ready(scaled(5)) is None
    said = []
    updater = Updater(layout, service, journal, builder=venv_builder, ready_limit=5.0,
                      doctor=lambda rel: updates.doctor_fails(layout.python(rel), None),
                      say=said.append, clock=lambda: 1_800_000_000.0, sync=lambda: None,
                      read_only_root=lambda: False)
    yield origin, layout, updater, service, first
    service.close()


def acknowledged(journal):
    db = sqlite3.connect(journal)
    try:
        return dict(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()


def test_an_update_builds_beside_switches_and_keeps_the_previous(table):
    origin, layout, updater, service, first = table
    second = commit(origin, "2.0")
    outcome = updater.update()
    assert outcome.ok, outcome.message
    assert (layout.link("current"), layout.link("previous")) == (second, first)
    assert os.path.islink(layout.path("current"))
    assert service.version() == "2.0"
    assert updates.read_status(layout)["state"] == "updated"
    assert not os.path.exists(layout.pending)
    assert json.loads(acknowledged(updater.journal)["acknowledged"]) == [1, 2, 3]
    assert updater.update().message.startswith(f"already running {second}")
    third = commit(origin, "3.0")
    assert updater.update().ok
    # only the running release and the one before it are kept
    assert layout.names() == sorted([second, third])


@pytest.mark.parametrize("behaviour, why", [
    ("broken", "exited"), ("hangs", "no READY"), ("doctor-fails", "doctor FAILs: screen")])
def test_a_release_that_does_not_come_up_is_rolled_back(table, behaviour, why):
    origin, layout, updater, service, first = table
    bad = commit(origin, "2.0", behaviour=behaviour)
    outcome = updater.update()
    assert not outcome.ok
    assert why in outcome.message and f"back on {first}" in outcome.message
    assert (layout.link("current"), layout.link("previous")) == (first, bad)
    assert service.version() == "1.0"
    status = updates.read_status(layout)
    assert status["state"] == "rolled_back" and status["failed_release"] == bad
    assert why in status["why"]
    assert not os.path.exists(layout.pending)


def test_a_migrating_release_copies_the_journal_first_and_a_rollback_restores_it(table):
    origin, layout, updater, service, first = table
    newer = commit(origin, "2.0", schema=SCHEMA_VERSION + 1)
    assert updater.update().ok
    journal = updater.journal
    assert updates.journal_schema(journal) == SCHEMA_VERSION + 1        # migrated by 2.0
    copy = f"{journal}.before-{newer}"
    assert updates.journal_schema(copy) == SCHEMA_VERSION
    outcome = updater.rollback()
    assert outcome.ok, outcome.message
    assert "put back" in outcome.message
    assert (layout.link("current"), layout.link("previous")) == (first, newer)
    assert service.version() == "1.0"
    assert updates.journal_schema(journal) == SCHEMA_VERSION
    assert json.loads(acknowledged(journal)["acknowledged"]) == [1, 2, 3]
    assert updates.journal_schema(f"{journal}.from-{newer}") == SCHEMA_VERSION + 1
    # the journal the old release reads again is the service's own
    with Journal(journal) as j:
        assert j.schema == SCHEMA_VERSION


def test_a_migrating_release_that_fails_at_start_gets_the_journal_back(table):
    origin, layout, updater, service, first = table
    commit(origin, "2.0", schema=SCHEMA_VERSION + 1, behaviour="broken")
    outcome = updater.update()
    assert not outcome.ok and "journal was put back" in outcome.message
    assert updates.journal_schema(updater.journal) == SCHEMA_VERSION
    assert service.version() == "1.0"


def test_rollback_without_a_previous_release_says_so(table):
    _, _, updater, service, first = table
    with pytest.raises(UpdateError, match="no previous release"):
        updater.rollback()
    assert service.proc.poll() is None           # the table never stopped


class PowerCut(BaseException):
    """The machine stops here: nothing after this line of the updater runs."""


def cut_at(monkeypatch, updater, step):
    if step == "build":
        def builder(release_dir, extras):
            venv_builder(release_dir, extras)
            raise PowerCut
        updater.builder = builder
    elif step == "copy":
        monkeypatch.setattr(updates, "backup_journal", lambda *a: (_ for _ in ()).throw(PowerCut))
    elif step == "switch":
        real = Layout.switch

        def switch(self, name, release):
            real(self, name, release)
            if name == "current":
                raise PowerCut
        monkeypatch.setattr(Layout, "switch", switch)
    elif step == "first start":
        real_start = updater.service.start

        def start():
            real_start()
            raise PowerCut
        monkeypatch.setattr(updater.service, "start", start)


@pytest.mark.parametrize("step", ["build", "copy", "switch", "first start"])
def test_a_power_cut_at_any_step_boots_a_whole_release(table, monkeypatch, step):
    origin, layout, updater, service, first = table
    second = commit(origin, "2.0", schema=SCHEMA_VERSION + 1)
    cut_at(monkeypatch, updater, step)
    with pytest.raises(PowerCut):
        updater.update()
    monkeypatch.undo()
    service.stop()                               # the power is gone
    # the boot: the unit's ExecStartPre (update --boot-check), then the unit's start
    fresh = Updater(layout, service, updater.journal, builder=venv_builder, ready_limit=5.0,
                    doctor=updater.doctor, say=list().append, sync=lambda: None,
                    read_only_root=lambda: False)
    fresh.boot_check()
    assert layout.link("current") == first and layout.complete(first)
    service.start()
    assert service.wait_ready(scaled(5)) is None
    assert service.version() == "1.0"
    assert updates.journal_schema(updater.journal) == SCHEMA_VERSION
    assert json.loads(acknowledged(updater.journal)["acknowledged"]) == [1, 2, 3]
    # and the next update finishes the job
    outcome = fresh.update()
    assert outcome.ok, outcome.message
    assert layout.link("current") == second and service.version() == "2.0"
    assert not [n for n in layout.names() if not layout.complete(n)]


def test_the_boot_check_leaves_a_watched_update_alone(table):
    _, layout, updater, _, first = table
    updates.write_atomic(layout.pending, json.dumps({"from": first, "to": "x"}))
    with updater.locked():
        assert updater.boot_check() is None       # the updater is watching this start
    assert os.path.exists(layout.pending)


def test_an_offline_table_updates_from_a_tarball(table, tmp_path):
    origin, layout, updater, service, _ = table
    commit(origin, "2.0")
    tarball = tmp_path / "coffee-companion-2.0.tar.gz"
    git(origin, "archive", "--prefix=coffee-companion-2.0/", "-o", str(tarball), "HEAD")
    with warnings.catch_warnings():
        # (Python 3.12-3.13 warn of an extraction with no filter: the stock one is used)
        warnings.simplefilter("error", DeprecationWarning)
        outcome = updater.update(tarball=str(tarball))
    assert outcome.ok, outcome.message
    assert layout.link("current").startswith("2.0-") and service.version() == "2.0"


def test_a_tarball_that_writes_outside_its_folder_is_refused(table, tmp_path):
    _, layout, updater, service, first = table
    evil = tmp_path / "evil.tar"
    with tarfile.open(evil, "w") as tar:
        member = tarfile.TarInfo("../../escaped")
        member.size = 0
        tar.addfile(member)
    outcome = updater.update(tarball=str(evil))
    assert not outcome.ok and "not a release's file" in outcome.message
    assert not (tmp_path / "escaped").exists()
    assert layout.link("current") == first and layout.names() == [first]
    assert service.proc.poll() is None


def test_systemd_waits_for_ready_within_the_limit():
    now = [0.0]
    answers = iter(["activating", "activating", "active"])
    asked = []

    def run(args):
        asked.append(args)
        if args[:3] == ["show", "-p", "NRestarts"]:
            return "7"
        return next(answers) if args[0] == "show" else ""
    unit = Systemd(run=run, clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s))
    unit.start()
    assert ["start", "--no-block", "coffee-companion.service"] in asked
    assert unit.wait_ready(10) is None and now[0] == 2.0

    stuck = Systemd(run=lambda args: "activating", clock=lambda: now[0],
                    sleep=lambda s: now.__setitem__(0, now[0] + s))
    now[0] = 0.0
    assert "no READY" in stuck.wait_ready(30) and now[0] == 30.0
    assert "failed" in Systemd(run=lambda args: "failed").wait_ready(30)

    # Restart=always: a release that dies at each start is seen after its third death
    restarts = iter(["2", "2", "3", "5"])

    def crashing(args):
        if "NRestarts" in args:
            return next(restarts)
        return "activating"
    now[0] = 0.0
    unit = Systemd(run=crashing, clock=lambda: now[0],
                   sleep=lambda s: now.__setitem__(0, now[0] + s))
    unit.start()
    assert unit.wait_ready(300) == "coffee-companion.service stopped 3 times before READY"
    assert now[0] == 2.0


def test_a_request_from_the_screen_or_a_phone_is_a_file_the_update_unit_takes(tmp_path):
    assert updates.request(str(tmp_path), who="phone") is None
    assert json.loads((tmp_path / "update-requested").read_text())["by"] == "phone"
    assert updates.take_request(str(tmp_path)) and not updates.take_request(str(tmp_path))
    assert updates.request(str(tmp_path / "missing")) is not None


def test_no_update_under_a_read_only_root(table, tmp_path):
    origin, layout, updater, service, first = table
    commit(origin, "2.0")
    mounts = tmp_path / "mounts"
    mounts.write_text("overlayroot / overlay rw,relatime,lowerdir=/media/root-ro 0 0\n"
                      "/dev/mmcblk0p2 /media/root-ro ext4 ro,relatime 0 0\n")
    assert updates.root_overlay(str(mounts))
    updater.read_only_root = lambda: updates.root_overlay(str(mounts))
    with pytest.raises(UpdateError, match="read-only"):
        updater.update()
    assert layout.names() == [first]
    mounts.write_text("/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n")
    assert not updates.root_overlay(str(mounts))


def test_the_units_boot_check_and_the_status_through_the_command(table, tmp_path, capsys):
    """What the unit's ExecStartPre runs (`update --boot-check`) and `update --status`."""
    from companion.commands.cli import main
    origin, layout, updater, service, first = table
    second = commit(origin, "2.0", schema=SCHEMA_VERSION + 1)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[journal]\npath = "{updater.journal}"\n')
    args = ["--config", str(cfg), "update", "--prefix", layout.prefix]
    assert main(args + ["--boot-check"]) == 0 and layout.link("current") == first  # nothing
    # an update cut off after its first start migrated the journal
    assert updater.update().ok
    service.stop()
    updates.write_atomic(layout.pending, json.dumps(
        {"from": first, "to": second, "journal_copy": f"{updater.journal}.before-{second}"}))
    assert updates.journal_schema(updater.journal) == SCHEMA_VERSION + 1
    assert main(args + ["--boot-check"]) == 0
    assert "back on " + first in capsys.readouterr().err
    assert (layout.link("current"), layout.link("previous")) == (first, second)
    assert updates.journal_schema(updater.journal) == SCHEMA_VERSION
    assert main(args + ["--status"]) == 0
    shown = capsys.readouterr().out
    assert '"state": "rolled_back"' in shown and f"current: {first}" in shown


def test_a_restore_cut_off_after_the_journal_moved_aside_is_finished(table, monkeypatch):
    origin, layout, updater, service, first = table
    newer = commit(origin, "2.0", schema=SCHEMA_VERSION + 1)
    assert updater.update().ok
    journal = updater.journal
    real = os.replace

    def cut(src, dst):
        real(src, dst)
        if src == journal:                   # the newer journal is aside, the copy not in
            raise PowerCut
    monkeypatch.setattr(updates.os, "replace", cut)
    with pytest.raises(PowerCut):
        updater.rollback()
    monkeypatch.undo()
    service.stop()
    assert not os.path.exists(journal) and os.path.exists(journal + ".restoring")
    # by hand again (the links were not switched yet): the copy takes its place
    outcome = updater.rollback()
    assert outcome.ok, outcome.message
    assert updates.journal_schema(journal) == SCHEMA_VERSION
    assert json.loads(acknowledged(journal)["acknowledged"]) == [1, 2, 3]
    assert updates.journal_schema(f"{journal}.from-{newer}") == SCHEMA_VERSION + 1
    assert layout.link("current") == first
