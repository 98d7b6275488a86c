"""Start-up faults: what stops the table from starting, and the safe way out of each.

The service never exits on these (under ``Restart=always`` that would be a
restart loop behind a black screen). It shows the fault on the touchscreen
(``outputs/screen/screens/fault.py``), in the configured language, with what to do, the
lights blink the fault pattern, systemd's status line says it, and
``coffee-companion doctor`` finds it too. Kinds:

``config``   the config file is not valid (``ConfigError``): fix it, Try again.
``catalog``  a card catalog file is broken (``CatalogError``): the table already
             plays without it (its cards are unknown); the page says so first: play
             without that file (the file is left as it is), or fix it and Try again.
``journal``  the journal cannot be opened (``JournalError``). When the file is
             really damaged (not a readable coffee-companion journal, and no
             other process holds it), the screen offers to move it aside: renamed
             with its -wal/-shm, never changed or deleted, and a new one starts.
``font``     no Latin font, or no Korean one with the screen in Korean: the
             screen would show boxes; continue anyway, or install the package.
``display``  a display is configured but none is there: no screen to show it on,
             so the lights, the log, the status line and ``doctor`` say it.

Every page also offers Try again (start again from the config file).
"""
from __future__ import annotations

import fcntl
import logging
import os
import re
import sqlite3
import time
import tomllib

from companion.core.catalog import Catalog, CatalogError
from .config import LANGUAGES, Config, ConfigError
from companion.core.journal import Journal, JournalError
from companion.core.session import Session
from companion.words.i18n import toml_problem_text
# what a start-up fault is, and the safe actions, belong to the outputs that show it
from companion.outputs import (CONTINUE, MOVE_JOURNAL_ASIDE, RETRY, SKIP_CATALOG_FILE,
                               SUMMARY, StartupFault)

__all__ = ["CONTINUE", "MOVE_JOURNAL_ASIDE", "RETRY", "SKIP_CATALOG_FILE", "SUMMARY",
           "StartupFault"]     # and the functions below that find and fix faults

log = logging.getLogger("companion.appliance.faults")

# --- building a fault from what went wrong -----------------------------------------------

def config_fault(exc: ConfigError, path: str | None) -> StartupFault:
    """A config that does not validate; one that is not TOML is told in the screen's
    language (the one the file names, read as well as it can be), with line and column."""
    detail = "\n".join(exc.problems)
    if exc.toml is not None and path:
        detail = toml_problem_text(screen_language(None, path), path, exc.toml)
    return StartupFault("config", detail, path, params={"path": path or "the config file"})


def catalog_fault(cfg: Config, exc: CatalogError) -> StartupFault:
    """The first catalog file of the config that does not load."""
    for p in cfg["catalog"]["paths"]:
        p = os.path.expanduser(p)
        if not os.path.exists(p):
            continue
        try:
            Catalog.load(p)
        except CatalogError as own:
            return StartupFault("catalog", str(own), p, SKIP_CATALOG_FILE, {"path": p})
    return StartupFault("catalog", str(exc))


def journal_fault(path: str, exc: Exception) -> StartupFault:
    storage = exc.fault if isinstance(exc, JournalError) else None
    # a full, read-only or failing card is no damaged journal: never offer to move it aside
    # (read-only checks of a journal on a full card fail too, and would look like damage)
    action = MOVE_JOURNAL_ASIDE if storage is None and journal_damaged(path) else None
    return StartupFault("journal", str(exc), path, action, {"path": path}, storage)


def journal_damaged(path: str) -> bool:
    """Whether ``path`` is a journal whose contents cannot be used (damaged, not a journal,
    games that do not replay), and moving it aside is possible and safe: no other companion
    holds it and its folder is writable. Decided by reading it, never by changing it: the
    journal opened read-only, the running game replayed as the service would, SQLite's own
    quick check. A journal that reads fine but cannot be opened for writing (a full disk,
    permissions) is not damaged."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(path) or _locked(path) or not os.access(folder, os.W_OK):
        return False
    try:
        with Journal(path, readonly=True) as journal:
            Session(journal, Catalog())
            ok = journal.db.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    except JournalError:
        return True
    except sqlite3.DatabaseError:
        return True
    except OSError:
        return False                  # cannot even read it: permissions, not damage
    return not ok


def _locked(path: str) -> bool:
    try:
        fd = os.open(path + ".lock", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def font_fault(language: str, files) -> StartupFault | None:
    """A missing font the screen needs (``files``: ``ui.fonts.FontFiles``)."""
    from companion.words.fonts import INSTALL_COMMAND
    if files.latin is None:
        return StartupFault("font", "no DejaVu Sans (Latin letters fall back to a font "
                            "without some symbols)", action=CONTINUE,
                            params={"command": "sudo apt install fonts-dejavu-core"})
    if language == "ko" and files.hangul is None:
        return StartupFault("font", "no Korean font for the Korean screen", action=CONTINUE,
                            params={"command": INSTALL_COMMAND})
    return None


def display_fault(driver: str, detail: str) -> StartupFault:
    return StartupFault("display", f"SDL video driver {driver or 'automatic'}: {detail}",
                        params={"driver": driver})


# --- the safe actions -------------------------------------------------------------------

def move_journal_aside(path: str, now: float | None = None) -> str:
    """Rename the damaged journal (and its -wal/-shm) to ``<name>.damaged-<UTC time>``;
    returns the new name. The files are only renamed: nothing in them changes."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    target = f"{path}.damaged-{stamp}"
    n = 1
    while os.path.exists(target):
        n += 1
        target = f"{path}.damaged-{stamp}-{n}"
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.rename(path + suffix, target + suffix)
    os.rename(path, target)
    log.warning("moved the damaged journal %s aside to %s; a new journal starts", path, target)
    return target


def screen_language(cfg: Config | None, config_path: str | None = None) -> str:
    """The configured language, even from a config file that does not validate."""
    if cfg is not None:
        return cfg["game"]["language"]
    try:
        with open(config_path or "", "rb") as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return "en"
    try:
        lang = tomllib.loads(text).get("game", {}).get("language")
    except (tomllib.TOMLDecodeError, AttributeError):
        # a file that is no TOML: the language its [game] section's line names, if any
        said = _LANGUAGE_LINE.search(text)
        lang = said.group(1) if said else None
    return lang if lang in LANGUAGES else "en"


_LANGUAGE_LINE = re.compile(r'^\s*language\s*=\s*["\']?([a-z]{2})["\']?\s*(?:#.*)?$', re.M)
