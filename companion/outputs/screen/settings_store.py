"""The table's own settings, changed on the settings screen: language, volume,
the voice (on or off), light brightness, the turn timer, and teaching (on or off:
the table explains the rules as they come up; ``companion/outputs/screen/teaching_view.py``).

They start from the config file (``[game] language``, ``[sound] volume``,
``[pixels] brightness``, ``[game] turn_timer``) and what the table changed is
kept in a small TOML file beside the journal (``screen-settings.toml`` in the
journal's folder), so the next start looks the same. The file is written
atomically (a temporary file, flushed to disk, then renamed over the old one):
a power cut leaves the old settings or the new ones, never half a file. A
damaged or hand-edited file with bad values is reported in the log and the
config's values are used instead.

The App holds one ``Settings`` (``settings_for(app)``); the service listens
with ``settings.subscribe(fn)`` and applies the values to sound and lights.
"""
from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from companion.appliance.config import LANGUAGES, SCHEMA, TomlError, read_toml, toml_value
from .text import language

log = logging.getLogger("companion.outputs.screen.settings")

FILENAME = "screen-settings.toml"

# setting -> (config section, key)
SOURCES = {"language": ("game", "language"), "volume": ("sound", "volume"),
           "brightness": ("pixels", "brightness"), "turn_timer": ("game", "turn_timer"),
           "voice": ("voice", "enabled")}
#: settings of the screen alone (no config key): name -> type
SCREEN_ONLY = {"teaching": bool}


def _limits(section: str, key: str):
    return next(k for k in SCHEMA[section] if k.name == key)


@dataclass
class Settings:
    language: str = "en"
    volume: float = 0.7
    brightness: float = 0.3
    turn_timer: int = 0          # seconds per turn; 0 = off
    voice: bool = True           # spoken announcements
    teaching: bool = False       # explain each rule the first time it matters
    _listeners: list = field(default_factory=list, repr=False, compare=False)

    def values(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if not f.name.startswith("_")}

    def subscribe(self, fn: Callable[[Settings, str], None]) -> None:
        """``fn(settings, name)`` is called after each change."""
        self._listeners.append(fn)

    def set(self, name: str, value: Any) -> bool:
        """Change one setting (checked and clamped); True when it changed."""
        value = check(name, value)
        if value is None or getattr(self, name) == value:
            return False
        setattr(self, name, value)
        for fn in list(self._listeners):
            try:
                fn(self, name)
            except Exception:       # a listener's bug must not stop the screen
                log.exception("settings listener %r failed", fn)
        return True


def check(name: str, value: Any) -> Any:
    """``value`` made valid for setting ``name`` (clamped to its range), or None."""
    if name in SCREEN_ONLY:
        return value if isinstance(value, SCREEN_ONLY[name]) else None
    if name not in SOURCES:
        return None
    key = _limits(*SOURCES[name])
    if name == "language":
        return value if value in LANGUAGES else None
    if key.type == "bool":
        return value if isinstance(value, bool) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = min(key.max, max(key.min, value))
    return int(round(value)) if key.type == "int" else round(float(value), 2)


def defaults_from(config: Any) -> Settings:
    s = Settings()
    if config is not None:
        for name, (section, key) in SOURCES.items():
            got = check(name, config[section][key])
            if got is not None:
                setattr(s, name, got)
    return s


def path_beside(journal_path: str) -> str:
    return os.path.join(os.path.dirname(os.path.expanduser(journal_path)) or ".", FILENAME)


class SettingsStore:
    """Reads and writes the settings file at ``path``."""

    def __init__(self, path: str):
        self.path = path

    def load(self, base: Settings | None = None) -> Settings:
        """The saved settings over ``base`` (config values); problems are logged."""
        s = base if base is not None else Settings()
        try:
            data = read_toml(self.path)
        except FileNotFoundError:
            return s
        except (OSError, TomlError, RecursionError) as exc:       # TomlError: our words
            log.warning("%s: cannot read the screen settings (%s); using the config file's",
                        self.path, exc)
            return s
        for name, value in data.items():
            got = check(name, value)
            if got is None:
                log.warning("%s: ignoring %s = %r (not a valid value)", self.path, name, value)
                continue
            if got != value:
                log.warning("%s: %s = %r is out of range; using %r", self.path, name, value, got)
            setattr(s, name, got)
        return s

    def save(self, settings: Settings) -> str | None:
        """Write atomically; None when saved, else the reason (for the screen)."""
        folder = os.path.dirname(self.path) or "."
        lines = ["# Settings changed on the touchscreen (coffee-companion). Safe to delete."]
        lines += [f"{k} = {toml_value(v)}" for k, v in settings.values().items()]
        tmp = None
        import tempfile                   # (with shutil, bz2, lzma: not at every start)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".settings-", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            tmp = None
        except OSError as exc:
            log.warning("%s: cannot save the screen settings (%s)", self.path, exc)
            return exc.strerror or str(exc)
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        return None


def settings_for(app: Any) -> Settings:
    """The App's settings (made once from its config and the saved file).

    Uses ``app.settings`` / ``app.settings_store`` when the App has them, else
    creates them on the App.
    """
    s = getattr(app, "settings", None)
    if isinstance(s, Settings):
        return s
    config = getattr(app, "config", None)
    base = defaults_from(config)
    store = None
    if config is not None:
        try:
            store = SettingsStore(path_beside(config["journal"]["path"]))
        except (KeyError, TypeError):
            store = None
    s = store.load(base) if store is not None else base
    if store is None:
        s.language = language()
    app.settings = s
    app.settings_store = store
    return s
