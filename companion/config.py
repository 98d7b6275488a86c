"""One declarative config schema: each key's default, type, meaning and allowed
values. It drives validation, ``coffee-companion config show`` and the docs
(``coffee-companion config docs`` writes docs/configuration.md).

The file is TOML, every key optional::

    [seats]
    pins = [17, 27, 22, 23]
"""
from __future__ import annotations

import difflib
import os
import re
import reprlib
import tomllib
from dataclasses import dataclass, field
from typing import Any, Optional

from .devices.scanner_protocol import DEFAULT_PLAIN_PATTERN

LANGUAGES = ("en", "es", "pt", "it", "ko")
TOPIC_WORD = r"[A-Za-z0-9_-]{1,64}"     # one MQTT topic level, no wildcards or slashes


@dataclass(frozen=True)
class Key:
    name: str
    type: str                     # "str", "int", "float", "bool", "list[int]", "list[str]"
    default: Any
    meaning: str
    allowed: tuple = ()           # allowed values (for str and list items)
    min: Optional[float] = None
    max: Optional[float] = None
    secret: bool = False          # never printed by `config show` (a password)
    pattern: str = ""             # a regular expression the whole text must match


SCHEMA: dict[str, list[Key]] = {
    "game": [
        Key("language", "str", "en", "Language of the screen and messages.", LANGUAGES),
        Key("edition", "str", "original", "Edition offered first by the setup wizard.",
            ("original", "winter")),
        Key("turn_timer", "int", 0, "Seconds per turn for the optional pace timer; 0 = off.",
            min=0, max=600),
    ],
    "journal": [
        Key("path", "str", "~/.local/share/coffee-companion/journal.db",
            "The game journal (SQLite). Every accepted action is saved here before it shows."),
    ],
    "catalog": [
        Key("paths", "list[str]", ["~/.config/coffee-companion/cards.toml"],
            "Card catalogs (TOML), later files win. The first is where `enroll` writes."),
        Key("example", "bool", False,
            "Also load the bundled EXAMPLE catalog (made-up cards, for trying the companion)."),
    ],
    "seats": [
        Key("driver", "str", "gpio", "Seat buttons: real GPIO pins, simulated (mock pins) or none.",
            ("gpio", "simulated", "none")),
        Key("pins", "list[int]", [17, 27, 22, 23],
            "BCM GPIO pin of each seat's button, seat 1 first (2 to 4 pins).", min=2, max=27),
        Key("undo_pin", "int", 24, "BCM GPIO pin of the shared UNDO button; -1 = none.",
            min=-1, max=27),
        Key("hold_seconds", "float", 1.0, "A seat press this long ends the turn.",
            min=0.3, max=5.0),
        Key("redo_hold_seconds", "float", 2.0, "An UNDO press this long is a redo.",
            min=0.5, max=10.0),
        Key("bounce_ms", "int", 30, "Contact bounce shorter than this is ignored.",
            min=0, max=500),
        Key("multi_tap_ms", "int", 300,
            "Seat taps this close together count as one double (triple...) tap: a double "
            "tap completes the order after the oldest one, a triple tap the one after that. "
            "A single tap waits this long to be sure; 0 = off (taps act at once).",
            min=0, max=1000),
    ],
    "scanner": [
        Key("port", "str", "",
            "Serial port or pyserial URL of the card scanner (e.g. /dev/serial/by-id/..., "
            "loop://, socket://host:port); empty = no scanner."),
        Key("baudrate", "int", 115200, "Serial speed of the scanner.", min=1200, max=3000000),
        Key("repeat_window", "float", 1.5,
            "The same tag read again within this many seconds counts once.", min=0.0, max=30.0),
        Key("max_line", "int", 128, "Longer lines from the scanner are dropped.",
            min=16, max=4096),
        Key("reconnect_max_seconds", "float", 10.0,
            "Longest wait between attempts to reopen a lost scanner.", min=0.5, max=300.0),
        Key("mode", "str", "protocol",
            "protocol: our Pico NFC scanner (only valid protocol lines count); plain: a "
            "QR/barcode module (a bare line counts if it matches plain_pattern).",
            ("protocol", "plain")),
        Key("plain_pattern", "str", DEFAULT_PLAIN_PATTERN,
            "In plain mode, the shape of a card's code (a Python regular expression matched "
            "in full): by default the tags `labels` prints (CR0001) and NFC UIDs in hex."),
    ],
    "pixels": [
        Key("driver", "str", "neopixel", "Light strip: a real NeoPixel strip, simulated or none.",
            ("neopixel", "simulated", "none")),
        Key("pin", "str", "D10",
            "Data pin (board name). D10 (SPI MOSI) works without root; D18 (PWM) needs root.",
            ("D10", "D12", "D18", "D21")),
        Key("segment_length", "int", 16, "LEDs per seat segment.", min=1, max=300),
        Key("first_pixel", "int", 0, "Index of the first LED of seat 1's segment.",
            min=0, max=1000),
        Key("reverse", "bool", False, "Segments run against the strip's direction."),
        Key("brightness", "float", 0.3,
            "Brightness cap 0-1 (power budget: LEDs x 60 mA x cap).", min=0.0, max=1.0),
        Key("fps", "int", 30, "Animation frames per second while something moves.",
            min=1, max=30),
        Key("active_sweep", "bool", True,
            "A dark gap runs along the active seat's LEDs (4 steps a second), so whose turn "
            "it is shows by motion, not by colour alone."),
    ],
    "sound": [
        Key("enabled", "bool", True, "Play sound cues."),
        Key("volume", "float", 0.7, "Volume 0-1.", min=0.0, max=1.0),
        Key("folder", "str", "", "Folder of cue WAV files; empty = the bundled sounds."),
    ],
    "voice": [
        Key("enabled", "bool", True,
            "Speak the table's moments (whose turn, order surges, dislikes, the shop "
            "closing, the winner) in the screen's language, with espeak-ng."),
        Key("volume", "float", 0.8, "Voice volume 0-1.", min=0.0, max=1.0),
        Key("engine", "str", "espeak-ng",
            "The speech program (Raspberry Pi OS / Debian: sudo apt install espeak-ng)."),
    ],
    "display": [
        Key("driver", "str", "",
            "SDL video driver: empty = automatic; kmsdrm on Raspberry Pi OS Lite; "
            "x11, wayland, or dummy (no screen)."),
        Key("width", "int", 800, "Screen width in pixels.", min=320, max=3840),
        Key("height", "int", 480, "Screen height in pixels.", min=240, max=2160),
        Key("fullscreen", "str", "auto", "Fullscreen: auto (on the Pi), on or off.",
            ("auto", "on", "off")),
    ],
    "mqtt": [
        Key("host", "str", "",
            "MQTT broker (the café's Mosquitto) this table reports to; empty = off."),
        Key("port", "int", 1883, "Broker port (1883 plain, 8883 with TLS).", min=1, max=65535),
        Key("tls", "bool", False, "Connect with TLS (the system's certificate store)."),
        Key("ca_file", "str", "", "With TLS: a CA certificate file for a private broker; "
            "empty = the system's store."),
        Key("username", "str", "", "Broker user name; empty = anonymous."),
        Key("password", "str", "", "Broker password (never shown by `config show`).",
            secret=True),
        Key("venue", "str", "cafe", "The café's name in topics (letters, digits, - and _).",
            pattern=TOPIC_WORD),
        Key("table", "str", "table-1",
            "This table's name in topics (letters, digits, - and _).", pattern=TOPIC_WORD),
        Key("discovery_prefix", "str", "",
            "Home Assistant MQTT discovery prefix (usually homeassistant); empty = off."),
    ],
    "cafe": [
        Key("database", "str", "~/.local/share/coffee-companion/cafe.db",
            "The hub's database: an SQLite file, or a database URL such as "
            "postgresql+psycopg://user:pass@host/cafe."),
        Key("bind", "str", "127.0.0.1",
            "Address the floor page listens on (0.0.0.0 = the whole café network)."),
        Key("port", "int", 8090, "Port of the floor page and leaderboard.", min=1, max=65535),
    ],
    "web": [
        Key("enabled", "bool", True,
            "Serve the phone view (live table, history, companion page, JSON API) on the "
            "network while the service runs. The demo serves it only with `demo --web`."),
        Key("bind", "str", "0.0.0.0",
            "Address to listen on: 0.0.0.0 = every network, 127.0.0.1 = this device only."),
        Key("port", "int", 8080, "TCP port of the phone view (below 1024 needs extra rights; "
            "0 = any free port, for tests).", min=0, max=65535),
        Key("mdns", "bool", True,
            "Announce the phone view on the LAN (mDNS/DNS-SD _http._tcp \"Coffee Rush table\")."),
    ],
    "bgstats": [
        Key("location", "str", "",
            "Where the games are played, sent to BG Stats with each play (e.g. the café's "
            "name); empty = none."),
    ],
}


class ConfigError(Exception):
    """Bad configuration; ``problems`` lists every message (file, key, problem)."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class Config:
    values: dict[str, dict[str, Any]]
    path: Optional[str] = None
    from_file: set = field(default_factory=set)   # "section.key" set by the file

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    def get(self, dotted: str) -> Any:
        section, key = dotted.split(".", 1)
        return self.values[section][key]


def defaults() -> Config:
    return Config({s: {k.name: k.default for k in keys} for s, keys in SCHEMA.items()})


def _short(value: Any) -> str:
    """A value as a message can show it: a few levels and characters at most."""
    return reprlib.repr(value)


def _problem(key: Key, value: Any) -> Optional[str]:
    def number(v: Any) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    t = key.type
    if t == "str" and not isinstance(value, str):
        return f"must be a text in quotes, not {_short(value)}"
    if t == "int" and not (isinstance(value, int) and not isinstance(value, bool)):
        return f"must be a whole number, not {_short(value)}"
    if t == "float" and not number(value):
        return f"must be a number, not {_short(value)}"
    if t == "bool" and not isinstance(value, bool):
        return f"must be true or false, not {_short(value)}"
    if t.startswith("list"):
        if not isinstance(value, list):
            return f"must be a list like [..], not {_short(value)}"
        item = t[5:-1]
        for v in value:
            if item == "int" and not (isinstance(v, int) and not isinstance(v, bool)):
                return f"must list whole numbers, not {_short(v)}"
            if item == "str" and not isinstance(v, str):
                return f"must list texts in quotes, not {_short(v)}"
    if key.pattern and isinstance(value, str) and not re.fullmatch(key.pattern, value):
        return f"must be 1 to 64 letters, digits, - or _, not {_short(value)}"
    items = value if isinstance(value, list) else [value]
    for v in items:
        if key.allowed and v not in key.allowed:
            return f"must be one of {', '.join(map(str, key.allowed))}, not {_short(v)}"
        if number(v) and key.min is not None and not key.min <= v <= key.max:
            return f"must be from {key.min:g} to {key.max:g}, not {_short(v)}"
    return None


def _cross_checks(cfg: Config) -> list[str]:
    out = []
    if not cfg["journal"]["path"].strip():
        out.append("[journal] path: give the journal's file; an empty path would keep no "
                   "record of the games")
    pins = cfg["seats"]["pins"]
    if not 2 <= len(pins) <= 4:
        out.append(f"[seats] pins: give 2 to 4 pins (one per seat), not {len(pins)}")
    all_pins = pins + ([cfg["seats"]["undo_pin"]] if cfg["seats"]["undo_pin"] >= 0 else [])
    dup = sorted({p for p in all_pins if all_pins.count(p) > 1})
    if dup:
        out.append(f"[seats] pins: pin {dup[0]} is used twice (each button needs its own pin)")
    try:
        re.compile(cfg["scanner"]["plain_pattern"])
    except re.error as exc:
        out.append(f"[scanner] plain_pattern is not a regular expression ({exc})")
    return out


def load(path: Optional[str] = None, required: bool = False) -> Config:
    """Read and validate a config file; a missing optional file gives the defaults."""
    cfg = defaults()
    if path is None:
        return cfg
    cfg.path = path
    if not os.path.exists(path):
        if required:
            raise ConfigError([f"{path}: no such config file"])
        return cfg
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML ({exc})"]) from None
    except RecursionError:
        raise ConfigError([f"{path}: not a configuration (values nested too deeply)"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"{path}: cannot be read ({exc})"]) from None
    problems = []
    for section, table in data.items():
        if section not in SCHEMA:
            hint = difflib.get_close_matches(section, SCHEMA, 1)
            problems.append(f"{path}: [{section}] is not a section"
                            + (f" (did you mean [{hint[0]}]?)" if hint else ""))
            continue
        if not isinstance(table, dict):
            problems.append(f"{path}: {section} must be a [{section}] section")
            continue
        keys = {k.name: k for k in SCHEMA[section]}
        for name, value in table.items():
            if name not in keys:
                hint = difflib.get_close_matches(name, keys, 1)
                problems.append(f"{path}: [{section}] {name} is not a setting"
                                + (f" (did you mean {hint[0]}?)" if hint else ""))
                continue
            bad = _problem(keys[name], value)
            if bad:
                problems.append(f"{path}: [{section}] {name} {bad}")
                continue
            if keys[name].type == "float":
                value = float(value)
            cfg.values[section][name] = value
            cfg.from_file.add(f"{section}.{name}")
    if not problems:
        problems = [f"{path}: {p}" for p in _cross_checks(cfg)]
    if problems:
        raise ConfigError(problems)
    return cfg


def default_path() -> Optional[str]:
    """$COFFEE_COMPANION_CONFIG, else /etc/coffee-companion/config.toml if present,
    else ~/.config/coffee-companion/config.toml."""
    env = os.environ.get("COFFEE_COMPANION_CONFIG")
    if env:
        return env
    if os.path.exists("/etc/coffee-companion/config.toml"):
        return "/etc/coffee-companion/config.toml"
    return os.path.expanduser("~/.config/coffee-companion/config.toml")


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return repr(v)


def _shown(key: Key, value: Any) -> Any:
    """A secret as stars; a password inside a URL (user:pass@host) as stars."""
    if key.secret:
        return "********" if value else ""
    if isinstance(value, str):
        return re.sub(r"(://[^/:@]*:)[^/@]*@", r"\1********@", value)
    return value


def show(cfg: Config) -> str:
    """The effective configuration as TOML, each key with its meaning and origin."""
    out = [f"# effective configuration ({cfg.path or 'defaults only'})"]
    for section, keys in SCHEMA.items():
        out += ["", f"[{section}]"]
        for k in keys:
            origin = "from file" if f"{section}.{k.name}" in cfg.from_file else "default"
            out.append(f"# {k.meaning} ({origin})")
            out.append(f"{k.name} = {toml_value(_shown(k, cfg.values[section][k.name]))}")
    return "\n".join(out) + "\n"


def docs() -> str:
    """Markdown reference of every setting, generated from the schema."""
    out = ["# Configuration", "",
           "Generated from `companion/config.py` by `coffee-companion config docs`; "
           "do not edit by hand.", "",
           "The companion reads one TOML file: `--config PATH`, else `$COFFEE_COMPANION_CONFIG`, "
           "else `/etc/coffee-companion/config.toml` when it exists, else "
           "`~/.config/coffee-companion/config.toml`. Every key is optional. "
           "`coffee-companion config check` validates a file; `config show` prints the "
           "effective values.", ""]
    for section, keys in SCHEMA.items():
        out += [f"## [{section}]", "", "| key | type | default | meaning | allowed |",
                "| --- | --- | --- | --- | --- |"]
        for k in keys:
            allowed = ", ".join(map(str, k.allowed)) if k.allowed else (
                f"{k.min:g} to {k.max:g}" if k.min is not None else "")
            default = toml_value(k.default).replace("|", "\\|")   # a table cell
            out.append(f"| `{k.name}` | {k.type} | `{default}` | {k.meaning} "
                       f"| {allowed} |")
        out.append("")
    return "\n".join(out)
