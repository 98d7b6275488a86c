"""``coffee-companion report``: one archive a person can send to get help.

In it (a folder of text files in a .tar.gz): the versions (the program, the release and the
one before it, Python, pygame), the OS and the machine, ``doctor``'s output, the service's
last log lines (this boot: the log lives in RAM), the config as ``config show`` prints it
(passwords as stars), the unit's status and its recent starts, stops and restarts, the last
update's outcome.

Left out unless asked: the games (``include_games``: a consistent copy of the journal) and
the names (players', phones'; ``include_names``). Never in it: pairing tokens and codes
(tokens are only ever kept hashed; the code shown on the screen, a token-looking word, a
Bearer header or the page's cookie in a log line are blotted out), the paired phones' file.
"""
from __future__ import annotations

import io
import json
import os
import platform
import re
import sqlite3
import tarfile
import tempfile
import time
from collections.abc import Iterable

from . import config as config_mod
from . import doctor, updates
from companion.core.journal import Journal, JournalError
from companion.core.rules.json_text import read as read_json

PHONES_FILE = "paired-phones.json"       # the phone view's, beside the journal
UNITS = ("coffee-companion.service", "coffee-companion-update.service")
LOG_LINES = 2000
HIDDEN = "<hidden>"
#: a token as the phone view makes them (secrets.token_urlsafe), a Bearer header, the cookie
TOKENISH = re.compile(r"(?i)(bearer\s+|companion_token=|token[\"']?\s*[:=]\s*[\"']?)\S+"
                      r"|\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}\b")
RESTARTS = re.compile(r"Started |Stopped |Stopping |Scheduled restart|Main process exited"
                      r"|Failed with result|Watchdog timeout|coffee-companion update")


def _known_names(journal_path: str) -> set[str]:
    """The players' names in the journal and the paired phones' names beside it."""
    names: set[str] = set()
    if os.path.exists(journal_path):
        try:
            with Journal(journal_path, readonly=True) as j:
                for g in j.games():
                    names.update(n for n in g.players if isinstance(n, str))
        except (JournalError, PermissionError):
            pass
    try:
        with open(os.path.join(os.path.dirname(journal_path), PHONES_FILE), "rb") as fh:
            names.update(p.get("name", "") for p in read_json(fh.read()).get("phones", [])
                         if isinstance(p, dict))
    except (OSError, ValueError, AttributeError):
        pass
    return {n for n in names if len(n.strip()) >= 2}


class Scrubber:
    """Takes out the codes and tokens always, the names unless they were asked for."""

    def __init__(self, names: Iterable[str], codes: Iterable[str]):
        words = sorted({n for n in names if n}, key=len, reverse=True)
        self.names = re.compile("|".join(re.escape(n) for n in words)) if words else None
        self.codes = [c for c in codes if c]

    def __call__(self, text: str) -> str:
        for code in self.codes:
            spaced = f"{code[:len(code) // 2]} {code[len(code) // 2:]}"
            text = text.replace(code, HIDDEN).replace(spaced, HIDDEN)
        text = TOKENISH.sub(lambda m: (m.group(1) or "") + HIDDEN, text)
        if self.names is not None:
            text = self.names.sub("<name>", text)
        return text


def _section(title: str, body: str | None) -> str:
    return f"== {title}\n{(body or '(no answer here)').rstrip()}\n\n"


def collect(config_path: str | None, named: bool, system: doctor.System,
            include_games: bool = False, include_names: bool = False,
            codes: Iterable[str] = (), program_version: str = "?",
            scanner_seconds: float = 0.5) -> bytes:
    """The archive's bytes (.tar.gz)."""
    cfg, _ = doctor.check_config(config_path, named)
    journal_path = os.path.expanduser(cfg["journal"]["path"])
    scrub = Scrubber(() if include_names else _known_names(journal_path), codes)
    now = system.now()
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(now))
    layout = updates.Layout(system.path(updates.PREFIX))
    run = system.run
    files: dict[str, str] = {}
    files["README.txt"] = (
        f"coffee-companion report, {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(now))} UTC\n"
        "Versions, the OS, doctor, the service's log and status, the config (passwords as "
        "stars), the last update.\n"
        + ("The journal (every game) is in journal.db.\n" if include_games
           else "No games in it (coffee-companion report --include-games adds them).\n")
        + ("Names are in it (asked for).\n" if include_names
           else "Players' and phones' names are replaced by <name>.\n")
        + "Pairing codes and tokens are never in it.\n")
    files["versions.txt"] = "".join([
        _section("coffee-companion", program_version),
        _section("release", f"current: {layout.link('current')}\n"
                            f"previous: {layout.link('previous')}"),
        _section("python", platform.python_version()),
        _section("python packages", run(["sh", "-c", f"{updates.PREFIX}/current/venv/bin/pip "
                                         "freeze --all 2>/dev/null"])),
    ])
    files["os.txt"] = "".join([
        _section("os-release", doctor._read(system.path("/etc/os-release"))),
        _section("machine", doctor._read(system.path("/proc/device-tree/model")).strip("\0")
                 or platform.machine()),
        _section("kernel", run(["uname", "-a"])),
        _section("uptime", doctor._read(system.path("/proc/uptime"))),
        _section("mounts", doctor._read(system.path("/proc/mounts"))),
        _section("disk", run(["df", "-h", "/", os.path.dirname(journal_path) or "/"])),
        _section("memory", run(["free", "-m"])),
    ])
    checks = doctor.run_checks(config_path, named, system, scanner_seconds)
    files["doctor.txt"] = doctor.report(checks) + "\n"
    files["config.toml"] = config_mod.show(cfg)
    files["unit.txt"] = "".join(
        _section(f"systemctl status {unit}", run(["systemctl", "status", "--no-pager",
                                                   "--lines=0", unit]))
        + _section(f"{unit}: restarts", run(["systemctl", "show", "--no-pager", "-p",
                                             "NRestarts,ActiveState,SubState,Result,"
                                             "ExecMainStatus,ActiveEnterTimestamp,"
                                             "StatusText", unit]))
        for unit in UNITS)
    logs = run(["journalctl", "--no-pager", "-o", "short-iso", "-n", str(LOG_LINES)]
               + [a for unit in UNITS for a in ("-u", unit)]) or ""
    files["logs.txt"] = logs + "\n"
    files["restarts.txt"] = "\n".join(line for line in logs.splitlines()
                                      if RESTARTS.search(line)) + "\n"
    status = updates.read_status(layout)
    files["update-status.json"] = json.dumps(status, indent=1) + "\n" if status else "none\n"

    return _archive(f"coffee-companion-report-{stamp}", {k: scrub(v) for k, v in files.items()},
                    now, journal_path if include_games else None)


def _archive(folder: str, files: dict[str, str], now: float, journal: str | None) -> bytes:
    """The .tar.gz: the text files, and a consistent copy of the journal when given."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size, info.mtime, info.mode = len(data), int(now), 0o644
            tar.addfile(info, io.BytesIO(data))
        if journal is not None and os.path.exists(journal):
            with tempfile.TemporaryDirectory() as tmp:
                copy = os.path.join(tmp, "journal.db")
                src = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
                try:
                    dst = sqlite3.connect(copy)
                    src.backup(dst)
                    dst.close()
                finally:
                    src.close()
                tar.add(copy, f"{folder}/journal.db")
    return out.getvalue()
