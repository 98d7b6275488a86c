"""Releases side by side, and the update that never bricks the table.

The layout under the prefix (``/opt/coffee-companion`` on a Pi)::

    releases/<version>/src      the source the release was built from
    releases/<version>/venv     its own venv (built in place: a venv cannot move)
    releases/<version>/.complete  written last, after a sync: a release without it is
                                  a build a power cut (or a failure) interrupted
    current  -> releases/<version>   what the unit runs (switched by rename: atomic)
    previous -> releases/<version>   the release before it (kept for ``--rollback``)
    origin                      where updates come from (git URL or folder; install.sh)
    extras                      the pip extras the Pi needs (pi, pi5 or nothing)
    update-pending.json         an update switched but not yet confirmed (see below)
    update-status.json          the last update's outcome (doctor and the screen read it)
    update.lock                 held by whoever changes the layout

An update (``Updater.update``): fetch (git clone from the origin, or a tarball) and build
the new release beside the running one while the table plays on; then ``previous`` ->
the running release, the pending mark, stop the service, a consistent copy of the journal
(SQLite's backup API) if the new release would migrate it, ``current`` -> the new one,
start, and wait for READY (the service sends it once its first frame is on the screen).
If READY does not come within the limit, or the new release's own ``doctor`` FAILs a check
the old one passed, it switches back, restores the journal's copy if the schema moved, and
starts the old release again. The outcome is written for ``doctor`` and the screen.

A power cut at any step leaves ``current`` on a complete release: until the pending mark
is gone, the unit's ``ExecStartPre`` runs ``update --boot-check`` from ``previous`` (the
release that was running), which switches back to it when no updater holds the lock.

Everything the updater touches is injected (the paths, the service manager, the builder,
the doctor, the clock), so the tests run it on temporary folders with real git repos,
real venvs and a real ``sd_notify`` socket.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, UTC
from typing import TYPE_CHECKING, Any, Protocol

from . import manual
from companion.core.rules.json_text import read as read_json

if TYPE_CHECKING:         # the service reads the layout at start: these load only to update
    import tarfile

PREFIX = "/opt/coffee-companion"
STATE_DIR = "/var/lib/coffee-companion"     # the unit's StateDirectory= (the journal's home)
READY_LIMIT = 180.0       # seconds for READY=1 after a start (the unit's TimeoutStartSec is 60;
#                           Restart=always tries again: a few tries before we give up)
CRASHES = 3              # a new release that stops this often before READY will not come up
COMPLETE = ".complete"
JOURNAL_COPY = ".journal-copy.json"
VERSION_RE = re.compile(r'^__version__\s*=\s*["\']([^"\']+)["\']', re.M)
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,80}$")


class UpdateError(Exception):
    """An update or a rollback that cannot go on; the message says why and what to do."""


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str, text: str, mode: int = 0o644) -> None:
    """Write a small file so that a power cut leaves the old or the new one, whole."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)
    _fsync_dir(os.path.dirname(path) or ".")


@dataclass(frozen=True)
class Layout:
    """Where the releases live (a temporary folder in the tests)."""
    prefix: str = PREFIX

    def path(self, *parts: str) -> str:
        return os.path.join(self.prefix, *parts)

    @property
    def releases(self) -> str:
        return self.path("releases")

    def release(self, name: str) -> str:
        return self.path("releases", name)

    @property
    def pending(self) -> str:
        return self.path("update-pending.json")

    @property
    def status(self) -> str:
        return self.path("update-status.json")

    def link(self, name: str) -> str | None:
        """The release ``current`` or ``previous`` points at (its name), or None."""
        try:
            target = os.readlink(self.path(name))
        except OSError:
            return None
        return os.path.basename(target.rstrip("/"))

    def switch(self, name: str, release: str) -> None:
        """Point ``name`` at ``release`` by renaming a new symlink over it (atomic)."""
        tmp = self.path(f".{name}.new")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(os.path.join("releases", release), tmp)
        os.replace(tmp, self.path(name))
        _fsync_dir(self.prefix)

    def complete(self, name: str) -> bool:
        return os.path.exists(os.path.join(self.release(name), COMPLETE))

    def names(self) -> list[str]:
        try:
            return sorted(os.listdir(self.releases))
        except FileNotFoundError:
            return []

    def read(self, what: str) -> str:
        try:
            with open(self.path(what), encoding="utf-8") as fh:
                return fh.read().strip()
        except OSError:
            return ""

    def python(self, release: str) -> str:
        return os.path.join(self.release(release), "venv", "bin", "python")


def read_status(layout: Layout) -> dict[str, Any] | None:
    """The last update's outcome, or None (never updated, or unreadable)."""
    try:
        with open(layout.status, "rb") as fh:
            status = read_json(fh.read())
    except (OSError, ValueError):
        return None
    return status if isinstance(status, dict) else None


def root_overlay(mounts: str = "/proc/mounts") -> bool:
    """Is the root file system an overlay in RAM (install.sh --read-only-root)?"""
    try:
        with open(mounts, encoding="utf-8") as fh:
            return any(line.split()[1:3] == ["/", "overlay"] for line in fh if line.strip())
    except OSError:
        return False


# --- the source of a new release -------------------------------------------------------------

def source_version(src: str) -> str:
    """The package version a source tree declares (companion/__init__.py)."""
    try:
        with open(os.path.join(src, "companion", "__init__.py"), encoding="utf-8") as fh:
            found = VERSION_RE.search(fh.read())
    except OSError:
        found = None
    if found is None:
        raise UpdateError(f"{src} is not a coffee-companion source tree "
                          "(no companion/__init__.py with a __version__)")
    return found.group(1)


def release_schema(src: str) -> int | None:
    """The journal schema a release writes (read from its source, never run), or None."""
    import ast
    try:
        with open(os.path.join(src, "companion", "core", "journal.py"), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "SCHEMA_VERSION"
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int)):
            return node.value.value
    return None


def _git(*args: str, cwd: str | None = None) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                         timeout=600, check=False)
    if out.returncode != 0:
        what = next((a for a in args if a in ("clone", "rev-parse")), args[0])
        raise UpdateError(f"git {what} failed: {out.stderr.strip() or out.stdout.strip()}")
    return out.stdout.strip()


def fetch_git(origin: str, dest: str, ref: str | None = None) -> str:
    """Clone ``origin`` (its default branch, or ``ref``) into ``dest``; returns the name
    of the release: its version and commit."""
    args = ["clone", "--quiet", "--depth", "1"]
    if ref:
        args += ["--branch", ref]
    if "://" in origin or ":" in origin:
        _git(*args, origin, dest)
    else:       # a clone on this machine, owned by its user: root may read it (safe.directory)
        path = os.path.abspath(origin)
        _git("-c", f"safe.directory={path}", "-c", f"safe.directory={path}/.git",
             *args, f"file://{path}", dest)
    commit = _git("rev-parse", "--short=10", "HEAD", cwd=dest)
    return f"{source_version(dest)}-{commit}"


def _safe_members(tar: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """Refuse what could write outside the folder (absolute paths, .., devices, links
    out); Python 3.11.2 (Bookworm) has no extraction filter of its own (a newer Python's
    ``data`` filter is applied as well: ``fetch_tarball``)."""
    members = []
    for m in tar.getmembers():
        parts = m.name.split("/")
        if m.name.startswith("/") or ".." in parts or not (m.isfile() or m.isdir()
                                                             or m.issym()):
            raise UpdateError(f"the tarball holds {m.name!r}: not a release's file")
        if m.issym() and (m.linkname.startswith("/") or ".." in m.linkname.split("/")):
            raise UpdateError(f"the tarball's link {m.name!r} points outside it")
        members.append(m)
    return members


def fetch_tarball(path: str, dest: str) -> str:
    """Unpack a release tarball (``git archive``'s, with or without one top folder) into
    ``dest``; returns the release's name: its version and the tarball's hash."""
    import hashlib
    import tarfile
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        with tarfile.open(path) as tar:
            unpack = dest + ".unpack"
            # the standard library's own filter too where it has one (3.12+, Trixie's 3.13,
            # whose tarfile warns without it; 3.14 applies it by default)
            members = _safe_members(tar)
            if hasattr(tarfile, "data_filter"):
                tar.extractall(unpack, members=members, filter="data")
            else:
                tar.extractall(unpack, members=members)
    except (OSError, tarfile.TarError) as exc:
        raise UpdateError(f"cannot read the tarball {path}: {exc}") from None
    top = os.listdir(unpack)
    root = (os.path.join(unpack, top[0])
            if len(top) == 1 and os.path.isdir(os.path.join(unpack, top[0])) else unpack)
    os.rename(root, dest)
    shutil.rmtree(unpack, ignore_errors=True)
    return f"{source_version(dest)}-{digest.hexdigest()[:10]}"


# --- building a release ----------------------------------------------------------------------

class Builder(Protocol):
    def __call__(self, release_dir: str, extras: str) -> None: ...


def pip_builder(release_dir: str, extras: str) -> None:
    """What install.sh does for the program: a venv that sees Debian's python3-pygame,
    the package pinned by constraints/pi.txt, the language files parsed ahead."""
    src = os.path.join(release_dir, "src")
    venv = os.path.join(release_dir, "venv")
    steps = [
        ["python3", "-m", "venv", "--system-site-packages", venv],
        [os.path.join(venv, "bin", "pip"), "--disable-pip-version-check", "-q", "install",
         "-c", os.path.join(src, "constraints", "pi.txt"),
         src + (f"[{extras}]" if extras else "")],
        [os.path.join(venv, "bin", "python"), "-m", "companion.words.i18n"],
    ]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYPI"] = "1"      # lgpio built from source links its C library in (as install.sh)
    for cmd in steps:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False,
                             timeout=3600, cwd="/")    # never the clone's companion
        if out.returncode != 0:
            tail = (out.stderr or out.stdout).strip().splitlines()[-5:]
            raise UpdateError(f"building the release failed ({os.path.basename(cmd[0])}): "
                              + " / ".join(tail))


# --- the service ---------------------------------------------------------------------------

class ServiceManager(Protocol):
    def stop(self) -> None: ...
    def start(self) -> None: ...
    def wait_ready(self, limit: float) -> str | None:
        """None once READY=1 came; else why not (it failed, or the limit passed)."""


class Systemd:
    """The unit, through systemctl. A Type=notify unit is ``active`` only once READY=1
    came; Restart=always turns a crash into ``activating`` again, so we poll until the
    limit."""

    def __init__(self, unit: str = "coffee-companion.service",
                 run: Callable[[list[str]], str] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.unit = unit
        self.run = run or self._systemctl
        self.clock = clock
        self.sleep = sleep

    @staticmethod
    def _systemctl(args: list[str]) -> str:
        out = subprocess.run(["systemctl", *args], capture_output=True, text=True,
                             timeout=120, check=False)
        return out.stdout.strip()

    def stop(self) -> None:
        self.run(["stop", self.unit])

    def _restarts(self) -> int:
        n = self.run(["show", "-p", "NRestarts", "--value", self.unit])
        return int(n) if n.isdigit() else 0

    def start(self) -> None:
        self.run(["reset-failed", self.unit])
        self._restarts_before = self._restarts()
        self.run(["start", "--no-block", self.unit])

    def wait_ready(self, limit: float) -> str | None:
        """Until READY (``active``), a failure, a third crash before READY (Restart=always
        would go on trying), or the limit."""
        end = self.clock() + limit
        before = getattr(self, "_restarts_before", 0)
        while True:
            state = self.run(["show", "-p", "ActiveState", "--value", self.unit])
            if state == "active":
                return None
            if state == "failed":
                return f"{self.unit} failed to start"
            crashes = self._restarts() - before
            if crashes >= CRASHES:
                return f"{self.unit} stopped {crashes} times before READY"
            if self.clock() >= end:
                return f"no READY from {self.unit} within {limit:.0f} s (it is {state})"
            self.sleep(1.0)


# --- the journal's copy --------------------------------------------------------------------

def journal_schema(path: str) -> int | None:
    """The schema a journal file was written with (None: no journal, or unreadable)."""
    if not os.path.exists(path):
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return None
    return int(row[0]) if row and str(row[0]).isdigit() else None


def _copy_owner(like: str, path: str) -> None:
    with contextlib.suppress(OSError):
        st = os.stat(like)
        os.chown(path, st.st_uid, st.st_gid)
        os.chmod(path, st.st_mode & 0o777)


def backup_journal(path: str, target: str) -> None:
    """A consistent copy of the journal (SQLite's backup API), on the card when this
    returns, owned like the journal."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(target)
    src = sqlite3.connect(path)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    with open(target, "rb") as fh:
        os.fsync(fh.fileno())
    _copy_owner(path, target)
    _fsync_dir(os.path.dirname(os.path.abspath(target)))


def restore_journal(path: str, copy: str, aside: str) -> None:
    """Put the journal written by the newer release aside (with its WAL) and the copy
    back in its place. Cut off anywhere, it is finished by ``finish_restore``: the copy is
    whole (``.restoring``, synced) before anything moves, and the WAL moves before its
    database (a WAL only ever holds what the newer release wrote: the old one closed the
    journal, checkpointed, before the switch)."""
    tmp = path + ".restoring"
    backup_journal(copy, tmp)
    _copy_owner(path, tmp)
    for suffix in ("-shm", "-wal", ""):
        if os.path.exists(path + suffix):
            os.replace(path + suffix, aside + suffix)
    os.replace(tmp, path)
    _fsync_dir(os.path.dirname(os.path.abspath(path)))


def finish_restore(path: str) -> bool:
    """A restore a power cut interrupted after the journal moved aside: the whole copy
    takes its place (True)."""
    tmp = path + ".restoring"
    if os.path.exists(path) or not os.path.exists(tmp):
        return False
    os.replace(tmp, path)
    _fsync_dir(os.path.dirname(os.path.abspath(path)))
    return True


# --- the updater ---------------------------------------------------------------------------

def doctor_fails(python: str, config: str | None) -> set[str] | None:
    """The checks a release's own ``doctor`` FAILs (None: it could not run at all)."""
    cmd = [python, "-m", "companion"] + (["--config", config] if config else []) + ["doctor"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False,
                             cwd="/")
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode not in (0, 1):
        return None
    return {line.split()[1] for line in out.stdout.splitlines()
            if line.startswith("FAIL ") and len(line.split()) > 1}


@dataclass
class Outcome:
    ok: bool
    message: str
    release: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Updater:
    def __init__(self, layout: Layout, service: ServiceManager, journal: str | None,
                 builder: Builder = pip_builder,
                 doctor: Callable[[str], set[str] | None] | None = None,
                 clock: Callable[[], float] = time.time,
                 ready_limit: float = READY_LIMIT,
                 say: Callable[[str], None] = lambda line: print(line, flush=True),
                 sync: Callable[[], None] = os.sync,
                 read_only_root: Callable[[], bool] = root_overlay):
        self.layout = layout
        self.read_only_root = read_only_root
        self.service = service
        self.journal = journal
        self.builder = builder
        self.doctor = doctor or (lambda release: doctor_fails(layout.python(release), None))
        self.clock = clock
        self.ready_limit = ready_limit
        self.say = say
        self.sync = sync

    # --- bookkeeping ---------------------------------------------------------------------

    @contextlib.contextmanager
    def locked(self, wait: bool = True) -> Iterator[bool]:
        """Hold the layout's lock (True), or, with ``wait=False``, yield False when someone
        else holds it."""
        os.makedirs(self.layout.prefix, exist_ok=True)
        fd = os.open(self.layout.path("update.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)

    def status(self, state: str, **facts: Any) -> None:
        write_atomic(self.layout.status, json.dumps(
            {"state": state, "at": _iso(self.clock()), **facts}, indent=1) + "\n")

    def _pending(self) -> dict[str, Any] | None:
        try:
            with open(self.layout.pending, "rb") as fh:
                pending = read_json(fh.read())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            pending = {"unreadable": str(exc)}     # (a JSON problem in our words)
        if not isinstance(pending, dict) or "from" not in pending:
            # written by rename after an fsync: this is not ours to guess about
            why = f" ({pending['unreadable']})" if isinstance(pending, dict) and \
                "unreadable" in pending else ""
            raise UpdateError(f"{self.layout.pending} is unreadable{why}: look at it, then "
                              "delete it and run the update again")
        return pending

    def _clear_pending(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.layout.pending)
        _fsync_dir(self.layout.prefix)

    def _current(self) -> str:
        cur = self.layout.link("current")
        if cur is None or not self.layout.complete(cur):
            raise UpdateError(f"{self.layout.prefix} has no current release: install the "
                              "release layout first (sudo ./install.sh from a clone)")
        return cur

    def _clean_incomplete(self) -> None:
        """Builds a power cut or a failure interrupted (never a linked release)."""
        keep = {self.layout.link("current"), self.layout.link("previous")}
        for name in self.layout.names():
            if name not in keep and not self.layout.complete(name):
                self.say(f"removing the interrupted build {name}")
                shutil.rmtree(self.layout.release(name), ignore_errors=True)

    def _prune(self) -> None:
        """Keep the current and the previous release (and the journal copy of each)."""
        keep = {self.layout.link("current"), self.layout.link("previous")}
        for name in self.layout.names():
            if name not in keep:
                copy = self._journal_copy(name)
                if copy and os.path.exists(copy["path"]):
                    os.unlink(copy["path"])
                shutil.rmtree(self.layout.release(name), ignore_errors=True)

    def _journal_copy(self, release: str) -> dict[str, Any] | None:
        try:
            with open(os.path.join(self.layout.release(release), JOURNAL_COPY), "rb") as fh:
                return read_json(fh.read())
        except (OSError, ValueError):
            return None

    def _schema(self, release: str) -> int | None:
        return release_schema(os.path.join(self.layout.release(release), "src"))

    def _restore_if_needed(self, to_release: str, from_release: str,
                           copy_path: str | None) -> str:
        """The journal ``to_release`` can read: if ``from_release`` moved its schema past
        what ``to_release`` reads, the copy taken before comes back. Returns what was done
        (for the status), '' if nothing."""
        if not self.journal:
            return ""
        if finish_restore(self.journal):
            return (f"the journal was put back as it was before {from_release} (the one it "
                    "wrote is kept beside it, .from-…)")
        written = journal_schema(self.journal)
        readable = self._schema(to_release)
        if written is None or readable is None or written <= readable:
            return ""
        if not copy_path or not os.path.exists(copy_path):
            raise UpdateError(
                f"the journal has schema {written} and {to_release} reads up to {readable}, "
                "and no copy of the journal from before is left: staying on "
                f"{from_release}")
        aside, n = f"{self.journal}.from-{from_release}", 1
        while os.path.exists(aside):            # an earlier rollback's: never overwritten
            n += 1
            aside = f"{self.journal}.from-{from_release}.{n}"
        restore_journal(self.journal, copy_path, aside)
        return (f"the journal was put back as it was before {from_release} "
                f"(the one it wrote is kept as {aside})")

    # --- update ----------------------------------------------------------------------------

    def update(self, origin: str | None = None, tarball: str | None = None,
               ref: str | None = None) -> Outcome:
        if self.read_only_root():
            raise UpdateError(
                "the root file system is read-only (an overlay in RAM): a release built now "
                "would vanish at the next boot. Turn the overlay off ("
                f"{manual.page('updates.md')}: "
                "sudo raspi-config nonint do_overlayfs 1, or overlayroot=disabled), reboot, "
                "update, then turn it on again")
        with self.locked():
            pending = self._pending()
            if pending is not None:
                self.say("an earlier update was interrupted: going back to "
                         f"{pending['from']} first")
                self._roll_back(pending, "the update was interrupted", control=True)
            cur = self._current()
            self._clean_incomplete()
            os.makedirs(self.layout.releases, exist_ok=True)
            incoming = self.layout.release(f".incoming-{os.getpid()}")
            shutil.rmtree(incoming, ignore_errors=True)
            shutil.rmtree(incoming + ".unpack", ignore_errors=True)
            os.makedirs(incoming)
            src = os.path.join(incoming, "src")
            self.status("fetching", running=cur)
            try:
                if tarball:
                    self.say(f"unpacking {tarball}")
                    name = fetch_tarball(tarball, src)
                else:
                    origin = origin or self.layout.read("origin")
                    if not origin:
                        raise UpdateError(f"no origin to update from ({self.layout.path('origin')}"
                                          " is empty): give --from URL or --tarball FILE")
                    self.say(f"fetching {origin}" + (f" ({ref})" if ref else ""))
                    name = fetch_git(origin, src, ref)
                if not NAME_RE.match(name):
                    raise UpdateError(f"{name!r} cannot name a release")
                if name == cur:
                    shutil.rmtree(incoming, ignore_errors=True)
                    self.status("up_to_date", running=cur)
                    return Outcome(True, f"already running {cur}: nothing to update", cur)
                target = self.layout.release(name)
                if not self.layout.complete(name):
                    shutil.rmtree(target, ignore_errors=True)
                    os.rename(incoming, target)
                    self.status("building", running=cur, release=name)
                    self.say(f"building {name} beside {cur} (the table plays on)")
                    self.builder(target, self.layout.read("extras"))
                    self.sync()                      # every file on the card ...
                    write_atomic(os.path.join(target, COMPLETE), _iso(self.clock()) + "\n")
                else:
                    shutil.rmtree(incoming, ignore_errors=True)
                    self.say(f"{name} is already built")
            except UpdateError as exc:
                shutil.rmtree(incoming, ignore_errors=True)
                self._clean_incomplete()
                self.status("failed", running=cur, why=str(exc))
                return Outcome(False, f"{exc}; still running {cur}", cur)
            return self._switch_to(cur, name)

    def _switch_to(self, cur: str, name: str) -> Outcome:
        baseline = self.doctor(cur) or set()
        self.layout.switch("previous", cur)
        pending: dict[str, Any] = {"from": cur, "to": name, "journal_copy": None,
                                   "at": _iso(self.clock())}
        write_atomic(self.layout.pending, json.dumps(pending) + "\n")
        self.status("switching", running=cur, release=name)
        self.say(f"stopping {cur}")
        self.service.stop()
        new_schema, written = self._schema(name), (
            journal_schema(self.journal) if self.journal else None)
        if self.journal and written is not None and new_schema is not None \
                and new_schema > written:
            copy = f"{self.journal}.before-{name}"
            self.say(f"{name} migrates the journal (schema {written} -> {new_schema}): "
                     f"a copy first, {copy}")
            backup_journal(self.journal, copy)
            facts = {"path": copy, "schema": written}
            write_atomic(os.path.join(self.layout.release(name), JOURNAL_COPY),
                         json.dumps(facts) + "\n")
            pending["journal_copy"] = copy
            write_atomic(self.layout.pending, json.dumps(pending) + "\n")
        self.layout.switch("current", name)
        self.say(f"starting {name}, waiting for READY (up to {self.ready_limit:.0f} s)")
        self.service.start()
        why = self.service.wait_ready(self.ready_limit)
        if why is None:
            fails = self.doctor(name)
            if fails is None:
                why = f"{name}'s doctor did not run"
            elif fails - baseline:
                why = f"{name}'s doctor FAILs: {', '.join(sorted(fails - baseline))}"
        if why is not None:
            self.say(f"{why}: going back to {cur}")
            return self._roll_back(pending, why, control=True)
        self._clear_pending()
        self._prune()
        self.status("updated", running=name, previous=cur)
        return Outcome(True, f"updated: {cur} -> {name} (running; {cur} kept for "
                       "--rollback)", name)

    def _roll_back(self, pending: dict[str, Any], why: str, control: bool,
                   by_hand: bool = False) -> Outcome:
        """Back to ``pending['from']`` (an update that failed or was interrupted, or
        ``--rollback``). With ``control`` the service is stopped and started here; without
        (the unit's own ExecStartPre at boot) only the links and the journal are put back.
        Cut off anywhere, the pending mark is still there: the next start finishes it."""
        old, new = pending["from"], pending["to"]
        by_hand = by_hand or bool(pending.get("by_hand"))
        if control:
            self.say(f"stopping {new}")
            self.service.stop()
        try:
            done = self._restore_if_needed(old, new, pending.get("journal_copy"))
        except UpdateError:
            if control:                        # the new release keeps the table going
                self.service.start()
            raise
        self.layout.switch("current", old)
        self._clear_pending()
        if self.layout.complete(new):
            self.layout.switch("previous", new)
        self.sync()
        facts = {"running": old, "previous" if by_hand else "failed_release": new,
                 "why": why}
        if done:
            facts["journal"] = done
        if control:
            self.say(f"starting {old}")
            self.service.start()
            again = self.service.wait_ready(self.ready_limit)
            if again is not None:
                facts["old_release_too"] = again
        self.status("rolled_back", **facts)
        message = (f"back on {old} ({new} kept as the previous release)" if by_hand
                   else f"{new} did not take over ({why}): back on {old}")
        if done:
            message += f"; {done}"
        if facts.get("old_release_too"):
            message += f"; but {old} did not come up either: {facts['old_release_too']}"
        return Outcome(by_hand and "old_release_too" not in facts, message, old, facts)

    # --- by hand, and at boot --------------------------------------------------------------

    def rollback(self) -> Outcome:
        """``--rollback``: back to the previous release, by hand (the same steps as an
        update going back, under the same pending mark: a power cut is finished at boot)."""
        with self.locked():
            pending = self._pending()
            if pending is not None:
                return self._roll_back(pending, "rolled back by hand", control=True)
            cur = self._current()
            prev = self.layout.link("previous")
            if prev is None or prev == cur or not self.layout.complete(prev):
                raise UpdateError(f"there is no previous release to go back to ({cur} runs)")
            copy = self._journal_copy(cur)
            copy_path = copy["path"] if copy and os.path.exists(copy["path"]) else None
            written = journal_schema(self.journal) if self.journal else None
            readable = self._schema(prev)
            if written is not None and readable is not None and written > readable \
                    and copy_path is None:
                raise UpdateError(
                    f"the journal has schema {written} and {prev} reads up to {readable}, "
                    f"and no copy of the journal from before {cur} is left: staying on {cur}")
            pending = {"from": prev, "to": cur, "journal_copy": copy_path, "by_hand": True,
                       "at": _iso(self.clock())}
            write_atomic(self.layout.pending, json.dumps(pending) + "\n")
            return self._roll_back(pending, "rolled back by hand", control=True, by_hand=True)

    def boot_check(self) -> Outcome | None:
        """The unit's ExecStartPre: an update switched but never confirmed (a power cut, a
        killed updater) goes back to the release that was running. Nothing when an
        updater is at work (it is watching this very start)."""
        with self.locked(wait=False) as mine:
            if not mine:
                return None
            pending = self._pending()
            if pending is None:
                return None
            return self._roll_back(pending, "the update was interrupted before the new "
                                   "release was confirmed (a power cut?)", control=False)


def request(state_dir: str, clock: Callable[[], float] = time.time,
            who: str = "touchscreen") -> str | None:
    """The touchscreen's and the phone's way to ask for an update: a file the
    ``coffee-companion-update.path`` unit watches (the service itself may not write the
    program's folder nor restart itself). Returns a problem, or None."""
    try:
        write_atomic(os.path.join(state_dir, "update-requested"),
                     json.dumps({"by": who, "at": _iso(clock())}) + "\n")
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def unseen_rollback(layout: Layout, state_dir: str) -> dict[str, Any] | None:
    """The last update's outcome when it went back and the screen has not said so yet
    (said once: the service notes it in its own folder, as it may not write the prefix)."""
    status = read_status(layout)
    if not status or status.get("state") != "rolled_back" or "failed_release" not in status:
        return None
    seen = os.path.join(state_dir, "update-seen")
    try:
        with open(seen, encoding="utf-8") as fh:
            if fh.read().strip() == status.get("at"):
                return None
    except OSError:
        pass
    with contextlib.suppress(OSError):
        write_atomic(seen, f"{status.get('at')}\n")
    return status


def take_request(state_dir: str) -> bool:
    """The update unit takes the request (True) before it starts."""
    try:
        os.unlink(os.path.join(state_dir, "update-requested"))
    except FileNotFoundError:
        return False
    return True
