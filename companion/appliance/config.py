"""One declarative config schema: each key's default, type, meaning and allowed
values. It drives validation, ``coffee-companion config show`` and the docs
(``coffee-companion config docs`` writes docs/configuration.md).

The file is TOML, every key optional::

    [seats]
    pins = [17, 27, 22, 23]
"""
from __future__ import annotations

import os
import re
import reprlib
import tomllib
from collections.abc import Callable
from typing import Any

LANGUAGES = ("en", "es", "pt", "it", "ko")
TOPIC_WORD = r"[A-Za-z0-9_-]{1,64}"     # one MQTT topic level, no wildcards or slashes

DEFAULT_PLAIN_PATTERN = r"[A-Za-z]{1,8}[0-9]{4,8}|[0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{20}"
"""A plain code that can be a card: what ``coffee-companion labels`` prints
(letters then digits, e.g. CR0001) or an NFC UID in uppercase hex. (Here, not in the
scanner's codec, which reads it from here: the config is read at every start, the
codec only once a scanner is configured.)"""


class Key:
    """One setting as the schema declares it (read from a section's ``setting()``s)."""
    __slots__ = ("name", "type", "default", "meaning", "allowed", "min", "max", "secret",
                 "pattern")

    def __init__(self, name: str, type: str, default: Any, meaning: str, allowed: tuple = (),
                 min: float | None = None, max: float | None = None, secret: bool = False,
                 pattern: str = ""):
        self.name = name
        self.type = type          # "str", "int", "float", "bool", "list[int]", "list[str]"
        self.default = default
        self.meaning = meaning
        self.allowed = allowed    # allowed values (for str and list items)
        self.min = min
        self.max = max
        self.secret = secret      # never printed by `config show` (a password)
        self.pattern = pattern    # a regular expression the whole text must match

    def _fields(self) -> tuple:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is Key and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Key(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"


class _Setting:
    """A section's declared key until the section class collects it into a ``Key``."""
    __slots__ = ("default", "info")

    def __init__(self, default: Any, info: dict):
        self.default, self.info = default, info


def setting(default: Any, meaning: str, allowed: tuple = (), *, min: float | None = None,
            max: float | None = None, secret: bool = False, pattern: str = "") -> Any:
    """A section's key: its default, meaning and allowed values (one schema entry)."""
    return _Setting(default, {"meaning": meaning, "allowed": allowed, "min": min, "max": max,
                              "secret": secret, "pattern": pattern})


class Section:
    """A section's typed view: frozen, one attribute per key, each key's default unless
    given (``GameSettings(language="es")``). A plain class, not a dataclass: the config
    is read at every start, and making a dataclass compiles its methods (issue 19)."""
    KEYS: tuple[Key, ...] = ()

    def __init_subclass__(cls) -> None:
        notes = cls.__dict__.get("__annotations__", {})
        cls.KEYS = tuple(Key(name, str(notes[name]), value.default, **value.info)
                         for name, value in list(vars(cls).items())
                         if isinstance(value, _Setting))
        for key in cls.KEYS:               # the class attribute is the default, as before
            setattr(cls, key.name, key.default)

    def __init__(self, **values: Any):
        for key in self.KEYS:
            value = values.pop(key.name) if key.name in values else (
                list(key.default) if isinstance(key.default, list) else key.default)
            object.__setattr__(self, key.name, value)
        if values:
            raise TypeError(f"{type(self).__name__} has no key {', '.join(values)}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to {name}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete {name}: {type(self).__name__} is frozen")

    def _values(self) -> tuple:
        return tuple(getattr(self, k.name) for k in self.KEYS)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(tuple(tuple(v) if isinstance(v, list) else v for v in self._values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(
            f"{k.name}={getattr(self, k.name)!r}" for k in self.KEYS) + ")"


# --- the schema: one frozen dataclass per section, one field per key -------------------
# ``Config.seats`` (and so on) is the typed view of a section; ``SCHEMA`` lists its keys.

class GameSettings(Section):
    language: str = setting("en", "Language of the screen and messages.", LANGUAGES)
    edition: str = setting("original", "Edition offered first by the setup wizard.",
                           ("original", "winter"))
    turn_timer: int = setting(0, "Seconds per turn for the optional pace timer; 0 = off.",
                              min=0, max=600)


class JournalSettings(Section):
    path: str = setting(
        "~/.local/share/coffee-companion/journal.db",
        "The game journal (SQLite). Every accepted action is saved here before it shows.")


class CatalogSettings(Section):
    paths: list[str] = setting(
        ["~/.config/coffee-companion/cards.toml"],
        "Card catalogs (TOML), later files win. The first is where `enroll` writes.")
    example: bool = setting(
        False, "Also load the bundled EXAMPLE catalog (made-up cards, for trying the companion).")


class SeatsSettings(Section):
    driver: str = setting("gpio", "Seat buttons: real GPIO pins, simulated (mock pins) or none.",
                          ("gpio", "simulated", "none"))
    pins: list[int] = setting([17, 27, 22, 23],
                              "BCM GPIO pin of each seat's button, seat 1 first (2 to 4 pins).",
                              min=2, max=27)
    undo_pin: int = setting(24, "BCM GPIO pin of the shared UNDO button; -1 = none.",
                            min=-1, max=27)
    hold_seconds: float = setting(1.0, "A seat press this long ends the turn.",
                                  min=0.3, max=5.0)
    redo_hold_seconds: float = setting(2.0, "An UNDO press this long is a redo.",
                                       min=0.5, max=10.0)
    bounce_ms: int = setting(30, "Contact bounce shorter than this is ignored.", min=0, max=500)
    multi_tap_ms: int = setting(
        300,
        "Seat taps this close together count as one double (triple...) tap: a double "
        "tap completes the order after the oldest one, a triple tap the one after that. "
        "A single tap waits this long to be sure; 0 = off (taps act at once).",
        min=0, max=1000)


class ScannerSettings(Section):
    port: str = setting(
        "",
        "Serial port or pyserial URL of the card scanner (e.g. /dev/serial/by-id/..., "
        "loop://, socket://host:port); empty = no scanner.")
    baudrate: int = setting(115200, "Serial speed of the scanner.", min=1200, max=3000000)
    repeat_window: float = setting(
        1.5, "The same tag read again within this many seconds counts once.", min=0.0, max=30.0)
    max_line: int = setting(128, "Longer lines from the scanner are dropped.", min=16, max=4096)
    reconnect_max_seconds: float = setting(
        10.0, "Longest wait between attempts to reopen a lost scanner.", min=0.5, max=300.0)
    mode: str = setting(
        "protocol",
        "protocol: our Pico NFC scanner (only valid protocol lines count); plain: a "
        "QR/barcode module (a bare line counts if it matches plain_pattern).",
        ("protocol", "plain"))
    plain_pattern: str = setting(
        DEFAULT_PLAIN_PATTERN,
        "In plain mode, the shape of a card's code (a Python regular expression matched "
        "in full): by default the tags `labels` prints (CR0001) and NFC UIDs in hex.")


class PixelsSettings(Section):
    driver: str = setting("neopixel", "Light strip: a real NeoPixel strip, simulated or none.",
                          ("neopixel", "simulated", "none"))
    pin: str = setting(
        "D10", "Data pin (board name). D10 (SPI MOSI) works without root; D18 (PWM) needs root.",
        ("D10", "D12", "D18", "D21"))
    segment_length: int = setting(16, "LEDs per seat segment.", min=1, max=300)
    first_pixel: int = setting(0, "Index of the first LED of seat 1's segment.",
                               min=0, max=1000)
    reverse: bool = setting(False, "Segments run against the strip's direction.")
    brightness: float = setting(0.3, "Brightness cap 0-1 (power budget: LEDs x 60 mA x cap).",
                                min=0.0, max=1.0)
    fps: int = setting(30, "Animation frames per second while something moves.", min=1, max=30)
    active_sweep: bool = setting(
        True,
        "A dark gap runs along the active seat's LEDs (4 steps a second), so whose turn "
        "it is shows by motion, not by colour alone.")


class SoundSettings(Section):
    enabled: bool = setting(True, "Play sound cues.")
    volume: float = setting(0.7, "Volume 0-1.", min=0.0, max=1.0)
    folder: str = setting("", "Folder of cue WAV files; empty = the bundled sounds.")


class VoiceSettings(Section):
    enabled: bool = setting(
        True,
        "Speak the table's moments (whose turn, order surges, dislikes, the shop "
        "closing, the winner) in the screen's language, with espeak-ng.")
    volume: float = setting(0.8, "Voice volume 0-1.", min=0.0, max=1.0)
    engine: str = setting(
        "espeak-ng", "The speech program (Raspberry Pi OS / Debian: sudo apt install espeak-ng).")


class DisplaySettings(Section):
    driver: str = setting(
        "",
        "SDL video driver: empty = automatic; kmsdrm on Raspberry Pi OS Lite; "
        "x11, wayland, or dummy (no screen).")
    width: int = setting(800, "Screen width in pixels.", min=320, max=3840)
    height: int = setting(480, "Screen height in pixels.", min=240, max=2160)
    fullscreen: str = setting("auto", "Fullscreen: auto (on the Pi), on or off.",
                              ("auto", "on", "off"))


class MqttSettings(Section):
    host: str = setting(
        "", "MQTT broker (the café's Mosquitto) this table reports to; empty = off.")
    port: int = setting(1883, "Broker port (1883 plain, 8883 with TLS).", min=1, max=65535)
    tls: bool = setting(False, "Connect with TLS (the system's certificate store). "
                               "Without it the service leaves OpenSSL out (hashlib uses "
                               "Python's own digests, the same; about 5 MB; `doctor` "
                               "says so).")
    ca_file: str = setting("", "With TLS: a CA certificate file for a private broker; "
                               "empty = the system's store.")
    username: str = setting("", "Broker user name; empty = anonymous.")
    password: str = setting("", "Broker password (never shown by `config show`).", secret=True)
    venue: str = setting("cafe", "The café's name in topics (letters, digits, - and _).",
                         pattern=TOPIC_WORD)
    table: str = setting("table-1", "This table's name in topics (letters, digits, - and _).",
                         pattern=TOPIC_WORD)
    discovery_prefix: str = setting(
        "", "Home Assistant MQTT discovery prefix (usually homeassistant); empty = off.")


class CafeSettings(Section):
    database: str = setting(
        "~/.local/share/coffee-companion/cafe.db",
        "The hub's database: an SQLite file, or a database URL such as "
        "postgresql+psycopg://user:pass@host/cafe.")
    bind: str = setting("127.0.0.1",
                        "Address the floor page listens on (0.0.0.0 = the whole café network).")
    port: int = setting(8090, "Port of the floor page and leaderboard.", min=1, max=65535)


class WebSettings(Section):
    enabled: bool = setting(
        True,
        "Serve the phone view (live table, history, companion page, JSON API) on the "
        "network while the service runs. The demo serves it only with `demo --web`.")
    bind: str = setting(
        "0.0.0.0", "Address to listen on: 0.0.0.0 = every network, 127.0.0.1 = this device only.")
    port: int = setting(8080, "TCP port of the phone view (below 1024 needs extra rights; "
                              "0 = any free port, for tests).", min=0, max=65535)
    mdns: bool = setting(
        True, "Announce the phone view on the LAN (mDNS/DNS-SD _http._tcp \"Coffee Rush table\").")
    hosts: list[str] = setting(
        [], "More names the phone view answers to (a café's own DNS name, say); its host "
            "name, its .local name, its addresses and localhost always work, any other "
            "Host is refused (DNS rebinding).")


class BgstatsSettings(Section):
    location: str = setting(
        "",
        "Where the games are played, sent to BG Stats with each play (e.g. the café's "
        "name); empty = none.")


SECTIONS: dict[str, type[Section]] = {
    "game": GameSettings, "journal": JournalSettings, "catalog": CatalogSettings,
    "seats": SeatsSettings, "scanner": ScannerSettings, "pixels": PixelsSettings,
    "sound": SoundSettings, "voice": VoiceSettings, "display": DisplaySettings,
    "mqtt": MqttSettings, "cafe": CafeSettings, "web": WebSettings, "bgstats": BgstatsSettings,
}


SCHEMA: dict[str, list[Key]] = {name: list(cls.KEYS) for name, cls in SECTIONS.items()}


class ConfigError(Exception):
    """Bad configuration; ``problems`` lists every message (file, key, problem); ``toml``:
    the file is no TOML, where and why (``TomlProblem``: the screen says it in its language)."""

    def __init__(self, problems: list[str], toml: TomlProblem | None = None,
                 path: str | None = None):
        super().__init__("\n".join(problems))
        self.problems = problems
        self.toml = toml
        self.path = path


# --- a file that is not TOML, in our own words -----------------------------------------------
# tomllib says what is wrong in its English (and its words may change between Pythons, as
# json's did in 3.13): the companion says it in its own, in five languages (the locale
# section ``toml``, whose English is this), from where the reading stopped and a look at
# that line. A config is lines of ``name = value`` under ``[section]`` headers: what goes
# wrong in one is nearly always one of these.
TOML_ENGLISH = {
    "at": "{path}, line {line}, column {column}: {problem}",
    "somewhere": "{path}: {problem}",
    "no_equals": "a setting is written as name = value",
    "unquoted_text": "`{item}` needs double quotes: \"{item}\" (true and false are written "
                     "in lower case, without quotes)",
    "unclosed_text": "a text opened with `\"` is not closed on its line",
    "unclosed_header": "a section name needs its closing `]`",
    "bad_header": "a section is written as [name], with nothing more on its line",
    "duplicate_key": "`{item}` is set twice in this section",
    "duplicate_section": "the section [{item}] appears twice",
    "invalid": "this cannot be read as TOML: check the quotes, the `=` and the brackets",
    "not_text": "byte {item} is not UTF-8 text (save the file as UTF-8)",
}
_HEADER = re.compile(r"^\s*\[([^\[\]]*)\]\s*(#.*)?$")
_SETTING = re.compile(r"^\s*([A-Za-z0-9_.\"'-]+?)\s*=\s*(.*)$")
_AT = re.compile(r"line (\d+), column (\d+)\)?$")


class TomlProblem:
    """Where a text stops being TOML (1-based; 0 where unknown) and what is wrong there:
    ``what`` names the words (``TOML_ENGLISH``, the locales' ``toml.<what>``), ``item`` the
    key, section or word it is about."""

    def __init__(self, what: str, line: int, column: int, item: str = ""):
        self.what, self.line, self.column, self.item = what, line, column, item

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TomlProblem) and vars(self) == vars(other)

    __hash__ = None      # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TomlProblem({self.what!r}, {self.line}, {self.column}, {self.item!r})"

    def english(self, path: str) -> str:
        said = TOML_ENGLISH[self.what].format(item=self.item)
        if not self.line:
            return TOML_ENGLISH["somewhere"].format(path=path, problem=said)
        return TOML_ENGLISH["at"].format(path=path, line=self.line, column=self.column,
                                         problem=said)


def toml_problem(text: str, exc: tomllib.TOMLDecodeError) -> TomlProblem:
    """What is wrong with ``text``, which tomllib refused with ``exc``: where (its
    ``lineno``/``colno`` on Python 3.14, else the coordinates its message ends with), and
    why, from our own look at the lines up to there."""
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if not isinstance(line, int) or not isinstance(column, int):
        m = _AT.search(str(exc))
        line, column = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
    lines = text.splitlines()
    what, item = "invalid", ""
    if 0 < line <= len(lines):
        what, item = _line_problem(lines[:line])
    return TomlProblem(what, line, column, item)


def _line_problem(lines: list[str]) -> tuple[str, str]:
    """(what, item) is wrong with the last of ``lines`` (the ones before give its section
    and the keys already set)."""
    sections: set[str] = set()
    keys: set[str] = set()
    for earlier in lines[:-1]:
        header = _HEADER.match(earlier)
        setting = _SETTING.match(earlier)
        if header:
            sections.add(header.group(1).strip())
            keys = set()
        elif setting:
            keys.add(setting.group(1))
    here = lines[-1].split("#", 1)[0].strip() if '"' not in lines[-1] else lines[-1].strip()
    if here.startswith("["):
        header = _HEADER.match(lines[-1])
        if header is None:
            return ("bad_header" if "]" in here else "unclosed_header"), ""
        name = header.group(1).strip()
        return ("duplicate_section", name) if name in sections else ("invalid", "")
    setting = _SETTING.match(lines[-1])
    if setting is None:
        return "no_equals", ""
    key, value = setting.group(1), setting.group(2).split("#", 1)[0].strip()
    if key in keys:
        return "duplicate_key", key
    if value.count('"') % 2:
        return "unclosed_text", ""
    if _BARE.fullmatch(value) and not _a_value(value):
        return "unquoted_text", value          # a word, or a tag like 04A1, without quotes
    return "invalid", ""


_BARE = re.compile(r"[\w.+:-]+")


def _a_value(text: str) -> bool:
    """Whether ``text`` alone is a TOML value (a number, true, a date)."""
    try:
        tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return False
    return True


class Config:
    """The effective configuration: ``cfg["seats"]["pins"]``, or typed: ``cfg.seats.pins``."""

    def __init__(self, values: dict[str, dict[str, Any]], path: str | None = None,
                 from_file: set | None = None):
        self.values = values
        self.path = path
        self.from_file: set = from_file if from_file is not None else set()  # "section.key"

    def __eq__(self, other: object) -> bool:
        return (type(other) is Config and (self.values, self.path, self.from_file)
                == (other.values, other.path, other.from_file))

    __hash__ = None      # type: ignore[assignment]  # mutable, as the dataclass was

    def __repr__(self) -> str:
        return f"Config(values={self.values!r}, path={self.path!r}, from_file={self.from_file!r})"

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    # The typed view of each section (read when asked: ``values`` may still change)
    @property
    def game(self) -> GameSettings:
        return GameSettings(**self.values["game"])

    @property
    def journal(self) -> JournalSettings:
        return JournalSettings(**self.values["journal"])

    @property
    def catalog(self) -> CatalogSettings:
        return CatalogSettings(**self.values["catalog"])

    @property
    def seats(self) -> SeatsSettings:
        return SeatsSettings(**self.values["seats"])

    @property
    def scanner(self) -> ScannerSettings:
        return ScannerSettings(**self.values["scanner"])

    @property
    def pixels(self) -> PixelsSettings:
        return PixelsSettings(**self.values["pixels"])

    @property
    def sound(self) -> SoundSettings:
        return SoundSettings(**self.values["sound"])

    @property
    def voice(self) -> VoiceSettings:
        return VoiceSettings(**self.values["voice"])

    @property
    def display(self) -> DisplaySettings:
        return DisplaySettings(**self.values["display"])

    @property
    def mqtt(self) -> MqttSettings:
        return MqttSettings(**self.values["mqtt"])

    @property
    def cafe(self) -> CafeSettings:
        return CafeSettings(**self.values["cafe"])

    @property
    def web(self) -> WebSettings:
        return WebSettings(**self.values["web"])

    @property
    def bgstats(self) -> BgstatsSettings:
        return BgstatsSettings(**self.values["bgstats"])

    def get(self, dotted: str) -> Any:
        section, key = dotted.split(".", 1)
        return self.values[section][key]


def defaults() -> Config:
    return Config({s: {k.name: list(k.default) if isinstance(k.default, list) else k.default
                       for k in keys} for s, keys in SCHEMA.items()})


def _short(value: Any) -> str:
    """A value as a message can show it: a few levels and characters at most."""
    return reprlib.repr(value)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: A value's type as the schema names it: (does the value have it, what to say if not).
_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "must be a text in quotes"),
    "int": (_whole, "must be a whole number"),
    "float": (_number, "must be a number"),
    "bool": (lambda v: isinstance(v, bool), "must be true or false"),
}


def _problem(key: Key, value: Any) -> str | None:
    """What is wrong with one setting's value, in an installer's words; None if nothing."""
    return (_type_problem(key.type, value)
            or _pattern_problem(key, value)
            or next(filter(None, (_item_problem(key, v) for v in
                                  (value if isinstance(value, list) else [value]))), None))


def _type_problem(t: str, value: Any) -> str | None:
    if t in _TYPES:
        fits, words = _TYPES[t]
        return None if fits(value) else f"{words}, not {_short(value)}"
    if not t.startswith("list"):
        return None
    if not isinstance(value, list):
        return f"must be a list like [..], not {_short(value)}"
    item = t[5:-1]
    for v in value:
        if item == "int" and not _whole(v):
            return f"must list whole numbers, not {_short(v)}"
        if item == "str" and not isinstance(v, str):
            return f"must list texts in quotes, not {_short(v)}"
    return None


def _pattern_problem(key: Key, value: Any) -> str | None:
    if key.pattern and isinstance(value, str) and not re.fullmatch(key.pattern, value):
        return f"must be 1 to 64 letters, digits, - or _, not {_short(value)}"
    return None


def _item_problem(key: Key, v: Any) -> str | None:
    if key.allowed and v not in key.allowed:
        return f"must be one of {', '.join(map(str, key.allowed))}, not {_short(v)}"
    if _number(v) and key.min is not None and not key.min <= v <= key.max:
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


def _close_matches(word: str, known) -> list[str]:
    """The known name closest to a mistyped one (imported here: only a mistake needs it)."""
    import difflib
    return difflib.get_close_matches(word, known, 1)


def load(path: str | None = None, required: bool = False) -> Config:
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
        data = read_toml(path)
    except TomlError as exc:
        raise ConfigError([exc.problem.english(path)], exc.problem, path) from None
    except RecursionError:
        raise ConfigError([f"{path}: not a configuration (values nested too deeply)"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"{path}: cannot be read ({exc})"]) from None
    problems = [p for section, table in data.items()
                for p in _read_section(cfg, path, section, table)]
    if not problems:
        problems = [f"{path}: {p}" for p in _cross_checks(cfg)]
    if problems:
        raise ConfigError(problems)
    return cfg


class TomlError(ValueError):
    """A file that is not TOML (``problem``), said in our words (``str``: the English)."""

    def __init__(self, path: str, problem: TomlProblem):
        super().__init__(problem.english(path))
        self.path, self.problem = path, problem


def read_toml(path: str) -> dict[str, Any]:
    """A TOML file's tables; ``TomlError`` (our words, where) if it is no TOML or no UTF-8
    text. OSError and RecursionError pass as they come."""
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start].decode("utf-8")
        raise TomlError(path, TomlProblem(
            "not_text", before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1,
            f"0x{data[exc.start]:02X}")) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlError(path, toml_problem(text, exc)) from None


def _read_section(cfg: Config, path: str, section: str, table: Any) -> list[str]:
    """One [section] of the file into ``cfg``: what is wrong with it, if anything."""
    if section not in SCHEMA:
        hint = _close_matches(section, SCHEMA)
        return [f"{path}: [{section}] is not a section"
                + (f" (did you mean [{hint[0]}]?)" if hint else "")]
    if not isinstance(table, dict):
        return [f"{path}: {section} must be a [{section}] section"]
    keys = {k.name: k for k in SCHEMA[section]}
    problems = []
    for name, value in table.items():
        if name not in keys:
            hint = _close_matches(name, keys)
            problems.append(f"{path}: [{section}] {name} is not a setting"
                            + (f" (did you mean {hint[0]}?)" if hint else ""))
            continue
        bad = _problem(keys[name], value)
        if bad:
            problems.append(f"{path}: [{section}] {name} {bad}")
            continue
        cfg.values[section][name] = float(value) if keys[name].type == "float" else value
        cfg.from_file.add(f"{section}.{name}")
    return problems


def default_path() -> str | None:
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
           "Generated from `companion/appliance/config.py` by `coffee-companion config docs`; "
           "do not edit by hand.", "",
           "The companion reads one TOML file: `--config PATH`, else `$COFFEE_COMPANION_CONFIG`, "
           "else `/etc/coffee-companion/config.toml` when it exists, else "
           "`~/.config/coffee-companion/config.toml`. Every key is optional. "
           "`coffee-companion config check` validates a file; `config show` prints the "
           "effective values.", "",
           "A file that is not TOML is told in the companion's own words with its line and "
           "column (``config.toml, line 5, column 10: `loud` needs double quotes: \"loud\" "
           "…``): in the file's language on the start-up screen (any of the five), in "
           "English by `config check` and `doctor`. A value that is TOML but wrong names "
           "its section and key.", ""]
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
