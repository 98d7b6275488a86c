"""``coffee-companion doctor``: everything a helper on the phone would ask, checked.

Each check prints OK, WARN or FAIL with what it found, and for WARN/FAIL the
fix. The exit status is 1 when anything FAILs, 0 otherwise (WARNs allowed).

What it looks at, in order: the config file and the files it names (card
catalogs, the journal and its folder, free disk space), the seat pins (free,
not on the SPI or serial pins the strip and scanner use), SPI for the strip,
the scanner (its port, and whether it answers ``?HELLO`` in the protocol),
the display (driver, a connected screen and its resolution), a font for each
language, the audio device, the service user's groups, the systemd unit (and
a start-up fault it reports), the clock, the release running (and how the last
update went), the SD card (a read-only root, where the journal and the log are written).

Where it looks is a ``System``: the real machine by default; tests point it at
a made-up root folder and give it the answers of ``systemctl`` & co.
"""
from __future__ import annotations

import glob
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from . import config as config_mod
from . import manual
from companion.core.catalog import Catalog, CatalogError
from .config import Config, ConfigError
from companion.core.journal import (FAILING, FULL, READ_ONLY, Journal, JournalError,
                                    mounted_read_only)
from companion.words.i18n import tr

if TYPE_CHECKING:
    from companion.words.fonts import FontFiles

SERVICE = "coffee-companion.service"
SERVICE_USER = "coffee"
#: BCM pins of SPI0 (CE1, CE0, MISO, MOSI, SCLK) and of the serial port (TXD, RXD)
SPI_PINS = {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"}
UART_PINS = {14: "TXD", 15: "RXD"}
DISK_FAIL_MB, DISK_WARN_MB = 50, 500
EARLIEST_YEAR = 2025                  # before this, the clock has not been set


@dataclass(frozen=True)
class Check:
    status: str                       # OK, WARN, FAIL
    what: str
    found: str
    fix: str = ""


def ok(what: str, found: str) -> Check:
    return Check("OK", what, found)


def warn(what: str, found: str, fix: str) -> Check:
    return Check("WARN", what, found, fix)


def fail(what: str, found: str, fix: str) -> Check:
    return Check("FAIL", what, found, fix)


def _run(cmd: list[str]) -> str | None:
    """A command's output, or None when it is missing or fails."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _gpio_lines(chip: str) -> dict[int, str] | None:
    """Which lines of ``chip`` are in use, and by whom (None: cannot tell here)."""
    try:
        import gpiod          # optional: the [pi] extra installs it; off a Pi it is absent
    except ImportError:
        return None
    try:
        with gpiod.Chip(chip) as c:
            lines = c.get_info().num_lines
            return {n: info.consumer or "?" for n in range(lines)
                    if (info := c.get_line_info(n)).used}
    except (OSError, AttributeError):
        return None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def _fonts() -> FontFiles:
    from companion.words.fonts import find_font_files
    return find_font_files()


class System:
    """The machine doctor looks at. ``root`` prefixes /dev, /sys, /proc and /etc."""

    def __init__(self, root: str = "/", run: Callable[[list[str]], str | None] = _run,
                 now: Callable[[], float] = time.time,
                 gpio_lines: Callable[[str], dict | None] = _gpio_lines,
                 fonts: Callable[[], FontFiles] = _fonts, user: str = SERVICE_USER):
        self.root = root
        self.run = run
        self.now = now
        self.gpio_lines = gpio_lines
        self.fonts = fonts
        self.user = user

    def path(self, p: str) -> str:
        return os.path.join(self.root, p.lstrip("/"))

    def which(self, program: str) -> str | None:
        """The program's path, looked for in the root's /usr/bin and /bin (or as given)."""
        if os.path.isabs(program):
            return program if os.access(self.path(program), os.X_OK) else None
        for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
            if os.access(self.path(f"{folder}/{program}"), os.X_OK):
                return f"{folder}/{program}"
        return None

    def exists(self, p: str) -> bool:
        return os.path.exists(self.path(p))

    def glob(self, pattern: str) -> list[str]:
        return sorted(glob.glob(self.path(pattern)))

    def read(self, p: str) -> str:
        return _read(self.path(p))

    def groups(self) -> dict[str, set[str]]:
        """/etc/group: group -> members (plus the user whose primary group it is)."""
        primary = {}
        for line in self.read("/etc/passwd").splitlines():
            parts = line.split(":")
            if len(parts) > 3:
                primary[parts[3]] = parts[0]
        out = {}
        for line in self.read("/etc/group").splitlines():
            parts = line.split(":")
            if len(parts) > 3:
                members = {m for m in parts[3].split(",") if m}
                if parts[2] in primary:
                    members.add(primary[parts[2]])
                out[parts[0]] = members
        return out

    def has_user(self) -> bool:
        users = self.read("/etc/passwd").splitlines()
        return any(line.split(":")[0] == self.user for line in users)

    def unit(self, prop: str, name: str = SERVICE) -> str | None:
        return self.run(["systemctl", "show", "--value", "-p", prop, name])


# --- the checks -----------------------------------------------------------------------------

def check_config(path: str | None, named: bool) -> tuple[Config, list[Check]]:
    """The config file: there (when named), valid. Returns the config (defaults if broken)."""
    if path is None or not os.path.exists(path):
        if named:
            return config_mod.defaults(), [fail("config", f"{path}: no such file",
                                                "create it (install.sh writes one) or fix "
                                                "COFFEE_COMPANION_CONFIG / --config")]
        return config_mod.defaults(), [ok("config", f"no config file ({path}): the defaults")]
    try:
        cfg = config_mod.load(path, required=True)
    except ConfigError as exc:
        return config_mod.defaults(), [fail("config", p, f"correct {path}") for p in exc.problems]
    return cfg, [ok("config", f"{path}: valid")]


def check_files(cfg: Config) -> list[Check]:
    """The files the config names: catalogs, the journal, and room on the disk."""
    out = []
    for i, p in enumerate(cfg["catalog"]["paths"]):
        p = os.path.expanduser(p)
        if not os.path.exists(p):
            out.append(ok("catalog", f"{p}: not created yet (enrolling a card creates it)")
                       if i == 0 else
                       warn("catalog", f"{p}: no such file", "remove it from [catalog] paths "
                            "or put the file there"))
            continue
        try:
            n = len(Catalog.load(p))
            out.append(ok("catalog", f"{p}: {n} cards"))
        except CatalogError as exc:
            out.append(fail("catalog", str(exc), f"fix {p} (or remove it from [catalog] "
                            "paths); the touchscreen offers to play without it"))
    path = os.path.expanduser(cfg["journal"]["path"])
    folder = os.path.dirname(os.path.abspath(path))
    existing = folder
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(folder):
        if os.access(existing, os.W_OK):
            out.append(ok("journal", f"{folder} will be created at the first start"))
        else:
            out.append(fail("journal", f"{folder} does not exist and cannot be created",
                            f"sudo install -d -o {SERVICE_USER} {folder} (or fix [journal] "
                            "path)"))
    elif os.path.exists(path):
        try:
            with Journal(path, readonly=True) as j:
                n = len(j.games())
            out.append(ok("journal", f"{path}: {n} games"))
        except JournalError as exc:
            if exc.fault in (FULL, READ_ONLY, FAILING):
                lang = cfg["game"]["language"]
                out.append(fail("journal", str(exc), tr(lang, f"storage.{exc.fault}_fix")))
            else:
                out.append(fail("journal", str(exc), "on the touchscreen: Start a new journal "
                                "(the damaged file is kept beside it)"))
        except PermissionError:
            out.append(warn("journal", f"{path}: not readable by this user",
                            "run doctor with sudo"))
    else:
        out.append(ok("journal", f"{path}: not created yet (the first game creates it)"))
    if os.path.isdir(folder) and not os.access(folder, os.W_OK) and os.geteuid() != 0:
        out.append(warn("journal", f"{folder} is not writable by this user",
                        f"the service user {SERVICE_USER} must own it: "
                        f"sudo chown {SERVICE_USER} {folder}; or run doctor with sudo"))
    out.append(check_storage(existing, folder, cfg["game"]["language"]))
    return out


def check_storage(existing: str, folder: str, lang: str) -> Check:
    """The card the journal lives on, named for what it is: read-only, full, or fine (a
    failing card shows as the journal's own read error above)."""
    free = shutil.disk_usage(existing).free // 2**20
    where = f"{free} MB free for {folder}"
    if mounted_read_only(existing):
        return fail("disk", tr(lang, "storage.read_only", folder=folder),
                    tr(lang, "storage.read_only_fix"))
    if free < DISK_FAIL_MB:
        return fail("disk", tr(lang, "storage.full", free=free, folder=folder),
                    tr(lang, "storage.full_fix"))
    if free < DISK_WARN_MB:
        return warn("disk", where, tr(lang, "storage.full_fix"))
    return ok("disk", where)


def check_pins(cfg: Config, system: System) -> list[Check]:
    seats = cfg["seats"]
    if seats["driver"] != "gpio":
        return [ok("gpio", f"{seats['driver']} seat buttons (no GPIO used)")]
    pins = {p: f"seat {i + 1}" for i, p in enumerate(seats["pins"])}
    if seats["undo_pin"] >= 0:
        pins[seats["undo_pin"]] = "UNDO"
    out = _pin_clashes(cfg, pins)
    if not system.glob("/dev/gpiochip*"):
        return out + [fail("gpio", "no GPIO chip (/dev/gpiochip*): not a Raspberry Pi?",
                           'on a PC set [seats] driver = "simulated"')]
    out += _pins_in_use(system, pins)
    if not any(c.status == "FAIL" for c in out):
        out.append(ok("gpio", "buttons on " + ", ".join(f"GPIO{p} ({w})"
                                                          for p, w in sorted(pins.items()))))
    return out


def _pin_clashes(cfg: Config, pins: dict[int, str]) -> list[Check]:
    """Buttons on the LED strip's SPI pins (when it uses SPI) or the serial port's."""
    out = []
    if cfg["pixels"]["driver"] == "neopixel" and cfg["pixels"]["pin"] == "D10":
        for pin, who in sorted(pins.items()):
            if pin in SPI_PINS:
                out.append(fail("gpio", f"{who} is on GPIO{pin}, the SPI {SPI_PINS[pin]} pin "
                                "the LED strip needs", "move the button to a free pin "
                                "(e.g. 5, 6, 13, 16, 19, 20, 26) and change [seats]"))
    for pin, who in sorted(pins.items()):
        if pin in UART_PINS:
            out.append(warn("gpio", f"{who} is on GPIO{pin}, the serial port's "
                            f"{UART_PINS[pin]}", "move it to a free pin, or turn the serial "
                            "port off in raspi-config"))
    return out


def _pins_in_use(system: System, pins: dict[int, str]) -> list[Check]:
    """Buttons on lines another program holds (the running companion holds its own)."""
    chip = "/dev/gpiochip4" if system.exists("/dev/gpiochip4") and system.read(
        "/proc/device-tree/model").startswith("Raspberry Pi 5") else "/dev/gpiochip0"
    used = system.gpio_lines(system.path(chip))
    if used is None:
        return [warn("gpio", "cannot tell whether the pins are free (no gpiod here)",
                     "install the [pi] extra (install.sh does)")]
    if system.unit("ActiveState") == "active":
        return []
    return [fail("gpio", f"GPIO{pin} ({who}) is in use by {used[pin]}",
                 "stop that program, or move the button to a free pin")
            for pin, who in sorted(pins.items()) if pin in used]


def check_spi(cfg: Config, system: System) -> list[Check]:
    px = cfg["pixels"]
    if px["driver"] != "neopixel":
        return [ok("spi", f"{px['driver']} lights (no SPI needed)")]
    if px["pin"] != "D10":
        return [warn("spi", f"the strip is on {px['pin']} (PWM/PCM): the service must run "
                     "as root for it", 'wire it to GPIO10 and set [pixels] pin = "D10"')]
    if not system.exists("/dev/spidev0.0"):
        return [fail("spi", "SPI is off (/dev/spidev0.0 missing): the LED strip stays dark",
                     "sudo raspi-config nonint do_spi 0, then reboot (install.sh does it)")]
    return [ok("spi", "/dev/spidev0.0 is there")]


def check_scanner(cfg: Config, system: System, probe_seconds: float = 2.0) -> list[Check]:
    port = cfg["scanner"]["port"]
    if not port:
        return [ok("scanner", "no scanner configured")]
    if "://" not in port and not os.path.exists(port):
        return [warn("scanner", f"{port} is not there: the scanner is not plugged in, or "
                     "the udev rule is missing (the table plays on without it)",
                     "plug it in (a data USB cable); install hardware/99-coffee-scanner.rules "
                     "(install.sh does); ls -l " + port)]
    if system.unit("ActiveState") == "active":
        return [ok("scanner", f"{port} is there (the running service has it open; stop the "
                   "service to test the protocol)")]
    return [_probe(port, cfg["scanner"]["baudrate"], probe_seconds)]


def _probe(port: str, baudrate: int, seconds: float) -> Check:
    import serial

    from companion.devices import scanner_protocol as sp
    try:
        link = serial.serial_for_url(port, baudrate=baudrate, timeout=0.2, write_timeout=1)
    except (serial.SerialException, OSError, ValueError) as exc:
        return fail("scanner", f"{port} cannot be opened: {exc}",
                    f"the service user must be in the dialout group: sudo usermod -aG "
                    f"dialout {SERVICE_USER}")
    try:
        link.write(sp.HELLO_REQUEST)
        framer = sp.LineFramer()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for line in framer.feed(link.read(256)):
                msg = sp.decode_line(line, allow_plain=False)
                if isinstance(msg, sp.Hello):
                    found = (f"{port}: scanner firmware {msg.firmware}, protocol "
                             f"{msg.protocol}, reader {msg.reader} {msg.reader_status}")
                    if msg.reader_status != "ok":
                        return warn("scanner", found, "check the reader's wiring and power "
                                    f"({manual.page('firmware/README.md')})")
                    return ok("scanner", found)
    except (serial.SerialException, OSError) as exc:
        return fail("scanner", f"{port}: {exc}", "unplug and plug the scanner in again")
    finally:
        link.close()
    return warn("scanner", f"{port} did not answer ?HELLO within {seconds:g} s",
                "a QR module in plain mode only speaks when it reads a code (scan one); a "
                f"Pico needs the companion firmware ({manual.page('firmware/README.md')})")


def check_display(cfg: Config, system: System) -> list[Check]:
    driver = cfg["display"]["driver"]
    if driver == "dummy":
        return [ok("display", "no screen by choice (driver dummy)")]
    if driver in ("x11", "wayland"):
        return [warn("display", f"driver {driver}: the desktop session's screen (not "
                     "checked from here)", "make sure the desktop logs in automatically")]
    if system.run(["systemctl", "is-active", "display-manager"]) == "active":
        return [fail("display", "a desktop is running and holds the screen: the companion "
                     f"cannot draw on it with {driver or 'kmsdrm'}",
                     "sudo systemctl set-default multi-user.target && sudo reboot (the "
                     "companion then owns the screen)")]
    if not system.glob("/dev/dri/card*"):
        return [(fail if driver else warn)(
            "display", "no DRM device (/dev/dri/card*): no screen can open",
            "connect the screen and check config.txt has dtoverlay=vc4-kms-v3d")]
    found = []
    for status in system.glob("/sys/class/drm/card*-*/status"):
        if _read(status).strip() == "connected":
            connector = os.path.dirname(status)
            name = os.path.basename(connector).split("-", 1)[1]
            modes = _read(os.path.join(connector, "modes")).split()
            found.append(f"{name} {modes[0] if modes else '(no modes)'}")
    if not found:
        return [fail("display", "no screen connected (DRM connectors all disconnected)",
                     "check the screen's ribbon or HDMI cable and its power")]
    egl = check_egl(system)
    if egl.status != "OK":
        return [egl]
    return [ok("display", f"driver {driver or 'automatic'}; " + ", ".join(found)), egl]


# SDL loads GL ES with EGL; without libGL the screen opens but every frame stays black
EGL_LIBS = (("libEGL.so.1", "libegl1"), ("libgbm.so.1", "libgbm1"),
            ("libGLESv2.so.2", "libgles2"), ("libGL.so.1", "libgl1"))
SOFTWARE_DRI = ("kms_swrast", "swrast")


def check_egl(system: System) -> Check:
    """What SDL's kmsdrm needs past the DRM device: EGL on GBM, GL ES and GL, and a Mesa DRI
    driver for the card (vc4 on a Pi) or Mesa's software one. Without them the screen never
    opens and SDL says only "EGL not initialized", or (no libGL) it opens and stays black
    (both found by .ci/check-appliance-vm)."""
    def has(lib: str) -> bool:
        return bool(system.glob(f"/usr/lib/*/{lib}") or system.glob(f"/usr/lib/{lib}"))
    missing = [(lib, pkg) for lib, pkg in EGL_LIBS if not has(lib)]
    if missing:
        libs = ", ".join(lib for lib, _ in missing)
        return fail("display", f"SDL's kmsdrm cannot draw: {libs} not installed",
                    f"sudo apt install {' '.join(p for _, p in missing)} (install.sh does)")
    dri = _dri_drivers(system)
    cards = _card_drivers(system)
    if not dri:
        return fail("display", "no Mesa DRI driver (/usr/lib/<arch>/dri/*_dri.so): SDL's kmsdrm "
                    "stops with \"EGL not initialized\" and the screen stays dark",
                    "sudo apt install libgl1-mesa-dri (install.sh does)")
    # the kernel's name for the card's driver, as Mesa names its file: vc4-drm -> vc4
    native = [n for c in cards for n in (c, c.replace("-", "_"), c.split("-")[0]) if n in dri]
    if native:
        return ok("display", f"EGL on GBM with Mesa's {native[0]} driver")
    software = [d for d in SOFTWARE_DRI if d in dri]
    card = f" for the {cards[0]} card" if cards else ""
    if software:
        return ok("display", f"EGL on GBM with Mesa's software driver ({software[0]}): no "
                  f"DRI driver{card}, drawing is slower")
    return fail("display", f"no Mesa DRI driver{card} and no software one (kms_swrast): SDL's "
                "kmsdrm stops with \"EGL not initialized\"",
                "sudo apt install --reinstall libgl1-mesa-dri")


def _dri_drivers(system: System) -> set[str]:
    """Mesa's DRI drivers installed, by name (``vc4`` for ``vc4_dri.so``)."""
    return {os.path.basename(p)[:-len("_dri.so")]
            for p in system.glob("/usr/lib/*/dri/*_dri.so") + system.glob("/usr/lib/dri/*_dri.so")}


def _card_drivers(system: System) -> list[str]:
    """The kernel's driver of each DRM card (``vc4-drm``), those that can be read."""
    cards = []
    for link in system.glob("/sys/class/drm/card[0-9]*/device/driver"):
        try:
            cards.append(os.path.basename(os.readlink(link)))
        except OSError:
            continue
    return cards


def check_fonts(cfg: Config, system: System) -> list[Check]:
    files = system.fonts()
    out = []
    if files.latin is None:
        out.append(fail("fonts", "no DejaVu Sans: letters fall back to a font without "
                        "some symbols", "sudo apt install fonts-dejavu-core"))
    else:
        out.append(ok("fonts", f"Latin (en, es, pt, it): {os.path.basename(files.latin)}"))
    if files.hangul is None:
        make = fail if cfg["game"]["language"] == "ko" else warn
        out.append(make("fonts", "no Korean font: Korean shows as boxes",
                        "sudo apt install fonts-nanum"))
    else:
        out.append(ok("fonts", f"Korean (ko): {os.path.basename(files.hangul)}"))
    return out


def check_audio(cfg: Config, system: System) -> list[Check]:
    out = []
    voice = cfg["voice"]
    if voice["enabled"] and system.which(voice["engine"]) is None:
        out.append(warn("voice", f"no {voice['engine']}: the table does not speak",
                        "sudo apt install espeak-ng (install.sh does), or [voice] enabled = "
                        "false"))
    if not cfg["sound"]["enabled"] and not voice["enabled"]:
        return out + [ok("audio", "sound and voice are off")]
    cards = [line.split("]:", 1)[1].strip() for line in
             system.read("/proc/asound/cards").splitlines() if "]:" in line]
    if not cards:
        return out + [warn("audio", "no sound card: the cues and the voice stay silent",
                           "plug in a speaker (USB) or use HDMI audio; or [sound] enabled = "
                           "false")]
    return out + [ok("audio", "; ".join(cards))]


def check_mdns(cfg: Config, system: System) -> list[Check]:
    """The phone view's announcement: avahi-daemon running, avahi-publish-service there."""
    web = cfg["web"]
    if not web["enabled"] or not web["mdns"]:
        return []
    fix = "sudo apt install avahi-daemon avahi-utils (install.sh does), or [web] mdns = false"
    if system.which("avahi-publish-service") is None:
        return [warn("mdns", "no avahi-publish-service: phones do not find the table by name",
                     fix)]
    state = system.unit("ActiveState", "avahi-daemon")
    if state is None:
        return [warn("mdns", "systemctl gave no answer about avahi-daemon",
                     "on the Pi: sudo systemctl enable --now avahi-daemon")]
    if state != "active":
        return [warn("mdns", f"avahi-daemon is {state or 'not installed'}: phones do not "
                     "find the table by name", "sudo systemctl enable --now avahi-daemon")]
    return [ok("mdns", "avahi-daemon announces the phone view")]


def needed_groups(cfg: Config) -> dict[str, str]:
    need = {}
    if cfg["seats"]["driver"] == "gpio":
        need["gpio"] = "seat buttons"
    if cfg["pixels"]["driver"] == "neopixel":
        need["gpio"] = "seat buttons and LED strip" if "gpio" in need else "LED strip"
        need["spi"] = "LED strip"
    if cfg["scanner"]["port"] and "://" not in cfg["scanner"]["port"]:
        need["dialout"] = "scanner"
    if cfg["display"]["driver"] not in ("dummy", "x11", "wayland"):
        need.update(video="screen", render="screen", input="touch")
    if cfg["sound"]["enabled"] or cfg["voice"]["enabled"]:
        need["audio"] = "sound"
    return need


def check_user(cfg: Config, system: System) -> list[Check]:
    user = system.user
    if not system.has_user():
        return [warn("user", f"no service user {user}", "sudo ./install.sh creates it")]
    groups = system.groups()
    out = []
    for group, why in needed_groups(cfg).items():
        if group not in groups:
            out.append(warn("user", f"no group {group} on this system ({why})",
                            "normal off Raspberry Pi OS"))
        elif user not in groups[group]:
            out.append(fail("user", f"{user} is not in the group {group}: no {why}",
                            f"sudo usermod -aG {group} {user}, then restart the service"))
    if not out:
        out.append(ok("user", f"{user} is in " + ", ".join(sorted(needed_groups(cfg)))))
    return out


def check_unit(system: System) -> list[Check]:
    state = system.unit("ActiveState")
    if state is None:
        return [warn("service", "systemctl gave no answer (systemd is not running here)",
                     "on the Pi: sudo ./install.sh")]
    if system.unit("LoadState") != "loaded":
        return [warn("service", f"{SERVICE} is not installed", "sudo ./install.sh")]
    enabled = system.unit("UnitFileState")
    status = system.unit("StatusText") or ""
    out = []
    if enabled != "enabled":
        out.append(warn("service", f"{SERVICE} is {enabled}: it will not start at boot",
                        f"sudo systemctl enable {SERVICE}"))
    if state != "active":
        out.append(fail("service", f"{SERVICE} is {state}",
                        f"sudo systemctl restart {SERVICE}; journalctl -u {SERVICE} -e"))
    elif status.startswith("fault:"):
        out.append(fail("service", status, "see the touchscreen; the other checks here "
                        "name the file or device"))
    else:
        out.append(ok("service", f"{SERVICE} is running: {status}"))
    return out


def check_clock(cfg: Config, system: System) -> list[Check]:
    now = system.now()
    year = time.gmtime(now).tm_year
    if year < EARLIEST_YEAR:
        return [fail("clock", f"the clock says {time.strftime('%Y-%m-%d', time.gmtime(now))}",
                     "connect the Pi to the network once (it has no clock battery), or "
                     "sudo date -s 'YYYY-MM-DD HH:MM'")]
    out = []
    synced = system.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if synced == "no":
        out.append(warn("clock", "not synchronized with a time server yet",
                        "connect the Pi to the network"))
    path = os.path.expanduser(cfg["journal"]["path"])
    latest = None
    if os.path.exists(path):
        try:
            with Journal(path, readonly=True) as j:
                latest = max((g.started_at for g in j.games()), default=None)
        except (JournalError, PermissionError):
            pass
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
    if latest is not None and latest[:19] > stamp:
        out.append(fail("clock", f"the clock ({stamp} UTC) is behind the journal's last "
                        f"game ({latest})", "connect the Pi to the network, or set the date"))
    if not out:
        out.append(ok("clock", f"{stamp} UTC"))
    return out


def check_release(system: System) -> list[Check]:
    """Which release runs, the one kept before it, and how the last update went."""
    from . import updates
    layout = updates.Layout(system.path(updates.PREFIX))
    cur, prev = layout.link("current"), layout.link("previous")
    if cur is None:
        if os.path.isdir(layout.path("venv")):
            return [warn("release", f"the old layout (one venv in {updates.PREFIX}/venv): an "
                         "update rebuilds it in place", "sudo ./install.sh from the clone "
                         "(moves it to releases side by side, games and settings kept)")]
        return [warn("release", f"no release installed in {updates.PREFIX}",
                     "on the Pi: sudo ./install.sh")]
    if not layout.complete(cur):
        return [fail("release", f"current points at {cur}, which is not a complete release",
                     "sudo coffee-companion update --rollback")]
    out = [ok("release", f"{cur}" + (f" (previous {prev}, kept for --rollback)"
                                     if prev and prev != cur else ""))]
    installed = layout.path("manual")
    out.append(ok("manual", f"{manual.INSTALLED}/index.md") if os.path.isfile(
        os.path.join(installed, "index.md")) else warn(
        "manual", f"no manual in {manual.INSTALLED}", "sudo ./install.sh from the clone "
        "(links the running release's docs/ there)"))
    if os.path.exists(layout.pending):
        out.append(warn("release", "an update is switching releases, or was cut off",
                        "sudo coffee-companion update --status (the service's next start "
                        "goes back to the release that ran)"))
    status = updates.read_status(layout) or {}
    if status.get("state") == "rolled_back":
        failed = status.get("failed_release") or status.get("previous") or "?"
        out.append(warn("release", f"the update of {status.get('at', '?')} went back to "
                        f"{status.get('running', '?')} from {failed}: {status.get('why', '')}",
                        "coffee-companion report (send the archive to whoever helps you)"))
    elif status.get("state") == "failed":
        out.append(warn("release", f"the update of {status.get('at', '?')} failed: "
                        f"{status.get('why', '')}", "sudo coffee-companion update (again)"))
    return out


def _mount_of(path: str, mounts: str) -> tuple[str, str, set[str]]:
    """(mount point, file system type, options) holding ``path``, from /proc/mounts' text
    (the last of several mounts on one point is the one seen: a bind over the overlay)."""
    best: tuple[str, str, set[str]] = ("/", "?", set())
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        point = parts[1]
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best[0]):
            best = (point, parts[2], set(parts[3].split(",")))
    return best


def _kept_under_overlay(folder: str, mounts: str) -> tuple[str, str, str]:
    """Under a read-only root: (status, where ``folder`` is written, fix): on the card and
    writable, in RAM (lost at power off), or on the card but read-only (not written)."""
    point, fstype, options = _mount_of(folder, mounts)
    if fstype in ("overlay", "tmpfs"):
        return "in RAM", f"{folder} is in RAM ({fstype} on {point})", \
            "sudo systemctl enable --now coffee-companion-persist.service"
    if "rw" not in options:
        return "read-only", f"{folder} is on {point}, mounted read-only", \
            "sudo systemctl restart coffee-companion-persist.service (it remounts the card " \
            "writable), then sudo coffee-companion doctor"
    return "ok", f"on the card ({point})", ""


def check_sd_card(cfg: Config, system: System) -> list[Check]:
    """The SD card: a read-only root or not; under one, whether the journal (and the screen's
    settings beside it) and the config's folder are written on the card; where the log is."""
    from . import updates
    mounts = _read(system.path("/proc/mounts"))
    journal_dir = os.path.dirname(os.path.abspath(os.path.expanduser(cfg["journal"]["path"])))
    out = []
    if updates.root_overlay(system.path("/proc/mounts")):
        state, where, fix = _kept_under_overlay(journal_dir, mounts)
        if state == "ok":
            out.append(ok("storage", f"read-only root (an overlay in RAM); the journal is "
                          f"{where}, with the screen's settings"))
        else:
            out.append(fail("storage", f"read-only root, and the journal: {where}: "
                            + ("games are lost at power off" if state == "in RAM"
                               else "no action can be saved"), fix))
        if cfg.path:
            folder = os.path.dirname(os.path.abspath(cfg.path))
            state, where, fix = _kept_under_overlay(folder, mounts)
            out.append(ok("storage", f"the config ({cfg.path}) is {where}") if state == "ok"
                       else warn("storage", f"read-only root, and the config: {where}: a "
                                 "change to it is lost at the next boot", fix))
    else:
        out.append(ok("storage", "the root is writable (sudo ./install.sh --read-only-root "
                      "spares the SD card)"))
    journald = _read(system.path("/etc/systemd/journald.conf.d/coffee-companion.conf"))
    if "Storage=volatile" in journald:
        cap = next((line.split("=", 1)[1] for line in journald.splitlines()
                    if line.startswith("RuntimeMaxUse=")), "journald's default")
        out.append(ok("storage", f"the system log is in RAM (at most {cap})"))
    else:
        out.append(warn("storage", "the system log is written to the SD card",
                        "sudo ./install.sh (keeps it in RAM, 16 MB at most)"))
    return out


def run_checks(config_path: str | None, named: bool, system: System,
               scanner_seconds: float = 2.0) -> list[Check]:
    cfg, checks = check_config(config_path, named)
    for group in (check_files(cfg), check_pins(cfg, system), check_spi(cfg, system),
                  check_scanner(cfg, system, scanner_seconds), check_display(cfg, system),
                  check_fonts(cfg, system), check_audio(cfg, system), check_mdns(cfg, system),
                  check_user(cfg, system), check_unit(system), check_clock(cfg, system),
                  check_release(system), check_sd_card(cfg, system)):
        checks += group
    return checks


def report(checks: Iterable[Check]) -> str:
    lines = []
    for c in checks:
        lines.append(f"{c.status:<4}  {c.what:<8}  {c.found}")
        if c.fix:
            lines.append(f"{'':<4}  {'':<8}  fix: {c.fix}")
    return "\n".join(lines)


def exit_status(checks: Iterable[Check]) -> int:
    return 1 if any(c.status == "FAIL" for c in checks) else 0
