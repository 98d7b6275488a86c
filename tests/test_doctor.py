"""`coffee-companion doctor` on a simulated healthy Pi (all OK), then on each broken one (the
right FAIL). The Pi is a made-up root folder (/dev, /sys, /proc, /etc files), the scanner a
pty answering ?HELLO in the real protocol, systemctl's answers given as text."""
import os
import pty
import threading
import time
from pathlib import Path

import pytest

from companion.appliance import config, doctor
from companion.devices import scanner_protocol as sp
from companion.core.journal import Journal
from companion.words.fonts import FontFiles
from timing import scaled

NOW = time.mktime((2026, 6, 1, 12, 0, 0, 0, 0, -1))
HEALTHY_UNIT = {"ActiveState": "active", "LoadState": "loaded", "UnitFileState": "enabled",
                "StatusText": "Ana's turn, round 2"}


class Scanner:
    """The Pico's side of a pty: answers ?HELLO like the firmware."""

    def __init__(self, reader_status="ok", answer=True):
        self.master, slave = pty.openpty()
        self.port = os.ttyname(slave)
        os.close(slave)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(reader_status, answer),
                                       daemon=True)
        self.thread.start()

    def _serve(self, reader_status, answer):
        framer = sp.LineFramer()
        import select
        while not self.stop.is_set():
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.master, 256)
            except OSError:              # EIO: nobody has the port open (yet)
                self.stop.wait(0.02)
                continue
            for line in framer.feed(data):
                if line.strip().upper() == b"?HELLO" and answer:
                    os.write(self.master, sp.encode(sp.Hello(1, 1, "0.1.0", "MFRC522",
                                                             reader_status)))

    def close(self):
        if not self.stop.is_set():
            self.stop.set()
            self.thread.join(scaled(2))
            os.close(self.master)


def make_pi(root: Path, tmp_path: Path, port: str) -> str:
    """A Raspberry Pi as doctor sees it, and a config for it; returns the config path."""
    for dev in ("dev/gpiochip0", "dev/spidev0.0", "dev/dri/card0"):
        (root / dev).parent.mkdir(parents=True, exist_ok=True)
        (root / dev).write_text("")
    (root / "usr/bin").mkdir(parents=True)
    for program in ("espeak-ng", "avahi-publish-service"):
        (root / "usr/bin" / program).write_text("#!/bin/sh\n")
        (root / "usr/bin" / program).chmod(0o755)
    dsi = root / "sys/class/drm/card0-DSI-1"
    dsi.mkdir(parents=True)
    (dsi / "status").write_text("connected\n")
    (dsi / "modes").write_text("800x480\n")
    hdmi = root / "sys/class/drm/card0-HDMI-A-1"
    hdmi.mkdir(parents=True)
    (hdmi / "status").write_text("disconnected\n")
    # EGL on GBM and Mesa's vc4 driver, for SDL's kmsdrm (install.sh installs them)
    lib = root / "usr/lib/aarch64-linux-gnu"
    (lib / "dri").mkdir(parents=True)
    for name in ("libEGL.so.1", "libgbm.so.1", "libGLESv2.so.2", "libGL.so.1",
                 "dri/vc4_dri.so", "dri/kms_swrast_dri.so"):
        (lib / name).write_text("")
    (root / "sys/bus/platform/drivers/vc4-drm").mkdir(parents=True)
    (root / "sys/class/drm/card0/device").mkdir(parents=True)
    (root / "sys/class/drm/card0/device/driver").symlink_to(
        root / "sys/bus/platform/drivers/vc4-drm")
    (root / "proc/asound").mkdir(parents=True)
    (root / "proc/asound/cards").write_text(
        " 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0\n                      vc4-hdmi-0\n")
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_text("Raspberry Pi 4 Model B Rev 1.5\0")
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc/passwd").write_text("root:x:0:0::/root:/bin/bash\n"
                                     "coffee:x:998:998::/var/lib/coffee-companion:/bin/false\n")
    (root / "etc/group").write_text("".join(
        f"{g}:x:{n}:coffee\n" for n, g in enumerate(
            ["gpio", "spi", "dialout", "video", "render", "input", "audio"], 990))
        + "coffee:x:998:\n")
    # the release layout install.sh makes, a writable root, the log in RAM
    release = root / "opt/coffee-companion/releases/0.1.0-abc"
    release.mkdir(parents=True)
    (release / ".complete").write_text("2026-06-01T10:00:00Z\n")
    (root / "opt/coffee-companion/current").symlink_to("releases/0.1.0-abc")
    (release / "src/docs").mkdir(parents=True)           # the manual, linked by install.sh
    (release / "src/docs/index.md").write_text("# The manual\n")
    (root / "opt/coffee-companion/manual").symlink_to("current/src/docs")
    (root / "proc/mounts").write_text("/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n")
    (root / "etc/systemd/journald.conf.d").mkdir(parents=True)
    (root / "etc/systemd/journald.conf.d/coffee-companion.conf").write_text(
        "[Journal]\nStorage=volatile\nRuntimeMaxUse=16M\n")
    state = tmp_path / "state"
    state.mkdir()
    with Journal(str(state / "journal.db")):
        pass
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"""
[journal]
path = "{state}/journal.db"
[catalog]
paths = ["{state}/cards.toml"]
[scanner]
port = "{port}"
[display]
driver = "kmsdrm"
""", encoding="utf-8")
    return str(cfg)


def system(root, unit=None, lines=None, fonts=None, ntp="yes", now=NOW):
    unit = dict(HEALTHY_UNIT, **(unit or {}))

    def run(cmd):
        if cmd[0] == "systemctl":
            return unit.get(cmd[-2])
        if cmd[0] == "timedatectl":
            return ntp
        return None
    return doctor.System(str(root), run=run, now=lambda: now,
                         gpio_lines=lambda chip: {} if lines is None else lines,
                         fonts=lambda: fonts or FontFiles("DejaVuSans.ttf", "DejaVuSans-Bold.ttf",
                                                          "NanumGothic.ttf", "NanumGothicBold.ttf"))


@pytest.fixture
def pi(tmp_path):
    scanner = Scanner()
    root = tmp_path / "root"
    cfg = make_pi(root, tmp_path, scanner.port)
    yield root, cfg, scanner
    scanner.close()


def statuses(checks, what):
    return {c.status for c in checks if c.what == what}


def test_a_healthy_pi_is_all_ok(pi):
    root, cfg, _ = pi
    # the service is stopped so that doctor can talk to the scanner itself
    checks = doctor.run_checks(cfg, True, system(root, {"ActiveState": "active"}))
    assert all(c.status == "OK" for c in checks), doctor.report(checks)
    assert doctor.exit_status(checks) == 0
    found = doctor.report(checks)
    assert "DSI-1 800x480" in found and "vc4-hdmi" in found
    assert "EGL on GBM with Mesa's vc4 driver" in found
    stopped = doctor.run_checks(cfg, True, system(root, {"ActiveState": "inactive"}))
    assert "scanner firmware 0.1.0, protocol 1, reader MFRC522 ok" in doctor.report(stopped)


def broken(root: Path, cfg: str, what: str):
    """Break one thing; return the system to check it with (or None for the default)."""
    if what == "config":
        Path(cfg).write_text(Path(cfg).read_text() + "[sound]\nvolume = 'loud'\n")
    elif what == "catalog":
        Path(cfg).parent.joinpath("state/cards.toml").write_text("[[card]]\ntag = 1\n")
    elif what == "journal":
        Path(cfg).parent.joinpath("state/journal.db").write_bytes(b"SQLite format 3\0" + b"x" * 900)
    elif what == "gpio":
        return system(root, {"ActiveState": "inactive"}, lines={17: "python3"})
    elif what == "spi":
        (root / "dev/spidev0.0").unlink()
    elif what == "display":
        (root / "sys/class/drm/card0-DSI-1/status").write_text("disconnected\n")
    elif what == "fonts":
        return system(root, fonts=FontFiles(None, None, "NanumGothic.ttf", None))
    elif what == "user":
        (root / "etc/group").write_text((root / "etc/group").read_text()
                                        .replace("spi:x:991:coffee", "spi:x:991:"))
    elif what == "service":
        return system(root, {"ActiveState": "failed"})
    elif what == "clock":
        return system(root, now=time.mktime((1970, 1, 1, 0, 0, 10, 0, 0, -1)))
    return None


@pytest.mark.parametrize("what", ["config", "catalog", "journal", "gpio", "spi", "display",
                                  "fonts", "user", "service", "clock"])
def test_each_broken_part_is_the_one_fail(pi, what):
    root, cfg, _ = pi
    sysm = broken(root, cfg, what) or system(root)
    checks = doctor.run_checks(cfg, True, sysm)
    failed = {c.what for c in checks if c.status == "FAIL"}
    # pins held by another program show while the service is stopped (and that FAILs too)
    assert failed == ({what, "service"} if what == "gpio" else {what}), doctor.report(checks)
    assert all(c.fix for c in checks if c.status != "OK")
    assert doctor.exit_status(checks) == 1


def test_more_things_a_helper_would_ask(pi, tmp_path):
    root, cfg, scanner = pi
    stopped = {"ActiveState": "inactive"}
    # the strip on SPI and a seat button on the SPI clock pin
    text = Path(cfg).read_text()
    Path(cfg).write_text(text + "[seats]\npins = [17, 11]\n")
    checks = doctor.run_checks(cfg, True, system(root))
    assert any(c.status == "FAIL" and "GPIO11, the SPI SCLK" in c.found for c in checks)
    Path(cfg).write_text(text)
    # the scanner unplugged; a scanner that does not answer; a reader that is not wired
    scanner.close()
    gone = doctor.run_checks(cfg, True, system(root, stopped))
    assert statuses(gone, "scanner") == {"WARN"}        # unplugged: the table plays on
    quiet = Scanner(answer=False)
    Path(cfg).write_text(text.replace(scanner.port, quiet.port))
    try:
        checks = doctor.check_scanner(config.load(cfg), system(root, stopped),
                                      probe_seconds=0.3)
        assert checks[0].status == "WARN" and "?HELLO" in checks[0].found
    finally:
        quiet.close()
    # no speech program: a WARN (the table plays on, silently)
    (root / "usr/bin/espeak-ng").unlink()
    voice = [c for c in doctor.run_checks(cfg, True, system(root)) if c.what == "voice"]
    assert [c.status for c in voice] == ["WARN"] and "apt install espeak-ng" in voice[0].fix
    # no avahi-daemon running, then no avahi-utils: a WARN (the table plays on unannounced)
    def mdns(sysm):
        return [c for c in doctor.run_checks(cfg, True, sysm) if c.what == "mdns"]
    assert [c.status for c in mdns(system(root))] == ["OK"]
    avahi_stopped = system(root)
    plain = avahi_stopped.run
    avahi_stopped.run = lambda cmd: "inactive" if cmd[-1] == "avahi-daemon" else plain(cmd)
    found = mdns(avahi_stopped)
    assert [c.status for c in found] == ["WARN"] and "avahi-daemon is inactive" in found[0].found
    assert found[0].fix == "sudo systemctl enable --now avahi-daemon"
    (root / "usr/bin/avahi-publish-service").unlink()
    found = mdns(system(root))
    assert [c.status for c in found] == ["WARN"] and "apt install avahi-daemon avahi-utils" in \
        found[0].fix
    # a desktop holding the screen
    desktop = system(root)
    plain_run = desktop.run
    desktop.run = lambda cmd: "active" if cmd[-1] == "display-manager" else plain_run(cmd)
    assert statuses(doctor.check_display(config.load(cfg), desktop), "display") == {"FAIL"}
    # a start-up fault the running service reports
    checks = doctor.run_checks(cfg, True, system(
        root, {"StatusText": "fault: the game journal cannot be opened: ..."}))
    assert any(c.what == "service" and c.status == "FAIL" for c in checks)
    # the named config file is not there
    missing = doctor.run_checks(str(tmp_path / "nope.toml"), True, system(root))
    assert [c.status for c in missing if c.what == "config"] == ["FAIL"]


def test_config_check_names_the_broken_files_and_a_missing_named_config(tmp_path, capsys,
                                                                        monkeypatch):
    from companion.commands import cli
    cfg = tmp_path / "c.toml"
    cfg.write_text(f'[catalog]\npaths = ["{tmp_path}/cards.toml"]\n'
                   f'[journal]\npath = "{tmp_path}/journal.db"\n', encoding="utf-8")
    assert cli.main(["--config", str(cfg), "config", "check"]) == 0
    assert f"{cfg}: OK" in capsys.readouterr().out
    (tmp_path / "cards.toml").write_text("[[card]]\ntag = 'A'\n", encoding="utf-8")
    assert cli.main(["--config", str(cfg), "config", "check"]) == 2
    out = capsys.readouterr().out
    assert "FAIL  catalog" in out and "cards.toml" in out
    monkeypatch.setenv("COFFEE_COMPANION_CONFIG", str(tmp_path / "gone.toml"))
    assert cli.main(["config", "check"]) == 2
    assert "no such config file" in capsys.readouterr().err


def test_storage_is_named_for_what_it_is_in_the_players_language(tmp_path, monkeypatch):
    """doctor says "full" for a full card (with what to free) and "read-only" for a card
    mounted read-only, in the configured language; never "failing" for either."""
    import collections
    import os as os_mod
    import shutil as shutil_mod

    from companion.appliance import doctor as doctor_mod
    from companion.core import journal as journal_mod
    Usage = collections.namedtuple("Usage", "total used free")
    monkeypatch.setattr(shutil_mod, "disk_usage", lambda p: Usage(8 << 30, 8 << 30, 10 << 20))
    full = doctor_mod.check_storage(str(tmp_path), str(tmp_path), "es")
    assert full.status == "FAIL" and "llena" in full.found and "apt-get clean" in full.fix
    real = os_mod.statvfs(str(tmp_path))

    class ReadOnly:
        f_flag = real.f_flag | os_mod.ST_RDONLY
        f_bavail, f_frsize = real.f_bavail, real.f_frsize
    monkeypatch.setattr(journal_mod.os, "statvfs", lambda p: ReadOnly)
    ro = doctor_mod.check_storage(str(tmp_path), str(tmp_path), "en")
    assert ro.status == "FAIL" and "read-only" in ro.found and "lock switch" in ro.fix
    assert "failing" not in full.found + full.fix + ro.found + ro.fix


def test_the_screen_names_the_missing_piece_of_egl(pi):
    """kmsdrm's "EGL not initialized" (the appliance check's first boot): doctor names the
    library or the Mesa DRI driver that is missing and the package that brings it."""
    root, cfg, _ = pi
    lib = root / "usr/lib/aarch64-linux-gnu"

    def display():
        checks = doctor.check_display(config.load(cfg), system(root))
        return [(c.status, c.found, c.fix) for c in checks]
    (lib / "dri/vc4_dri.so").unlink()            # only the software driver left: slower, OK
    assert [s for s, _, _ in display()] == ["OK", "OK"]
    assert "software driver (kms_swrast): no DRI driver for the vc4-drm card" in display()[1][1]
    (lib / "dri/kms_swrast_dri.so").unlink()     # no DRI driver at all
    [(status, found, fix)] = display()
    assert status == "FAIL" and "EGL not initialized" in found
    assert "apt install libgl1-mesa-dri" in fix
    (lib / "libgbm.so.1").unlink()               # GBM itself missing: named first
    [(status, found, fix)] = display()
    assert status == "FAIL" and "libgbm.so.1" in found and "apt install libgbm1" in fix
    (lib / "libGLESv2.so.2").unlink()            # and the GL ES library SDL loads with EGL
    [(status, found, fix)] = display()
    assert "libgbm.so.1, libGLESv2.so.2 not installed" in found
    assert fix.startswith("sudo apt install libgbm1 libgles2")
    # only libGL missing: the booted guest's screen opened and stayed black
    for name in ("libgbm.so.1", "libGLESv2.so.2"):
        (lib / name).write_text("")
    (lib / "libGL.so.1").unlink()
    [(status, found, fix)] = display()
    assert status == "FAIL" and "libGL.so.1 not installed" in found
    assert fix.startswith("sudo apt install libgl1 ")


def test_seat_pins_clash_with_the_serial_port_or_another_program(pi):
    root, cfg_path, _ = pi
    cfg = config.load(cfg_path)
    cfg["seats"]["pins"] = [17, 14]                      # GPIO14: the serial port's TXD
    held = {17: "python3"}
    stopped = doctor.check_pins(cfg, system(root, {"ActiveState": "inactive"}, lines=held))
    assert [c.status for c in stopped] == ["WARN", "FAIL"], stopped
    assert "GPIO14, the serial port's" in stopped[0].found
    assert "GPIO17 (seat 1) is in use by python3" in stopped[1].found
    # the running companion holds its own pins: only the serial port's warning, then OK
    running = doctor.check_pins(cfg, system(root, {"ActiveState": "active"}, lines=held))
    assert [c.status for c in running] == ["WARN", "OK"], running
    assert running[1].found == "buttons on GPIO14 (seat 2), GPIO17 (seat 1), GPIO24 (UNDO)"
    unknown = doctor.System(str(root), run=lambda cmd: None, gpio_lines=lambda chip: None)
    cannot = doctor.check_pins(cfg, unknown)
    assert "cannot tell whether the pins are free" in cannot[1].found
    # a Pi 5's header is gpiochip4
    (root / "dev/gpiochip4").write_text("")
    (root / "proc/device-tree/model").write_text("Raspberry Pi 5 Model B Rev 1.0\0")
    asked: list[str] = []
    pi5 = doctor.System(str(root), run=lambda cmd: None,
                        gpio_lines=lambda chip: asked.append(chip) or {})
    assert doctor.check_pins(cfg, pi5)[-1].status == "OK"
    assert asked == [str(root / "dev/gpiochip4")]
    (root / "dev/gpiochip0").unlink()
    (root / "dev/gpiochip4").unlink()
    gone = doctor.check_pins(cfg, pi5)
    assert gone[-1].status == "FAIL" and "no GPIO chip" in gone[-1].found


def test_doctor_says_which_release_runs_and_how_the_last_update_went(pi):
    import json
    root, cfg, _ = pi
    opt = root / "opt/coffee-companion"
    checks = doctor.run_checks(cfg, True, system(root))
    assert any(c.what == "release" and c.found == "0.1.0-abc" for c in checks)
    (opt / "update-status.json").write_text(json.dumps({
        "state": "rolled_back", "at": "2026-06-01T11:00:00Z", "running": "0.1.0-abc",
        "failed_release": "0.2.0-def", "why": "no READY within 180 s"}))
    found = doctor.report(doctor.run_checks(cfg, True, system(root)))
    assert "went back to 0.1.0-abc from 0.2.0-def: no READY within 180 s" in found
    (opt / "current").unlink()
    (opt / "venv").mkdir()
    checks = doctor.run_checks(cfg, True, system(root))
    assert any(c.what == "release" and c.status == "WARN" and "old layout" in c.found
               for c in checks)


def test_doctor_says_whether_the_root_is_read_only_and_where_the_journal_is(pi):
    root, cfg, _ = pi
    checks = doctor.run_checks(cfg, True, system(root))
    assert {c.found for c in checks if c.what == "storage"} == {
        "the root is writable (sudo ./install.sh --read-only-root spares the SD card)",
        "the system log is in RAM (at most 16M)"}
    state = str(Path(cfg).parent / "state")
    overlay = ("overlayroot / overlay rw,lowerdir=/media/root-ro,upperdir=/media/root-rw 0 0\n"
               "/dev/mmcblk0p2 /media/root-ro ext4 rw,noatime 0 0\n")
    (root / "proc/mounts").write_text(overlay)
    checks = doctor.run_checks(cfg, True, system(root))
    # the journal would be in RAM (FAIL), the config too (WARN: an edit is lost at boot)
    assert statuses(checks, "storage") == {"FAIL", "WARN", "OK"}
    (root / "proc/mounts").write_text(overlay + f"/dev/mmcblk0p2 {state} ext4 rw 0 0\n")
    checks = doctor.run_checks(cfg, True, system(root))
    assert any(c.found.startswith("read-only root (an overlay in RAM); the journal is on the "
                                  f"card ({state})") for c in checks)
    # the persist unit's bind left read-only (its remount failed): nothing can be saved
    (root / "proc/mounts").write_text(overlay + f"/dev/mmcblk0p2 {state} ext4 ro 0 0\n")
    found = [c for c in doctor.run_checks(cfg, True, system(root))
             if c.what == "storage" and c.status == "FAIL"]
    assert len(found) == 1 and "mounted read-only" in found[0].found
    assert "coffee-companion-persist" in found[0].fix
    # the config's folder bound from the card too: all OK
    folder = str(Path(cfg).parent)
    (root / "proc/mounts").write_text(overlay + f"/dev/mmcblk0p2 {folder} ext4 rw 0 0\n"
                                      f"/dev/mmcblk0p2 {state} ext4 rw 0 0\n")
    checks = doctor.run_checks(cfg, True, system(root))
    assert statuses(checks, "storage") == {"OK"}
    assert f"the config ({cfg}) is on the card ({folder})" in {c.found for c in checks}
