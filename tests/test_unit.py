"""The systemd unit: valid for systemd (`systemd-analyze verify`), hardened to an exposure
of 3.0 or less (`systemd-analyze security`), and watched (Type=notify, WatchdogSec)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from timing import scaled

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "coffee-companion.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    ANALYZE is None, reason="systemd-analyze is not installed (Debian: the systemd package, "
    "which .ci/run installs); it does not exist off Linux")


def unit_settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key.strip(), []).append(value.strip())
    return out


@needs_analyze
def test_systemd_analyze_verify_finds_nothing(tmp_path):
    # an image of the installed Pi: the unit where install.sh puts it, its ExecStart
    # program, and systemd's own units (verify follows the dependencies)
    # (and the update's units: the path unit, the niced update, the read-only root's binds)
    for program in ("opt/coffee-companion/current/venv/bin/coffee-companion", "bin/sh",
                    "usr/bin/mount", "usr/bin/mkdir"):
        exe = tmp_path / program
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    (tmp_path / "etc/systemd/system").mkdir(parents=True)
    units = [UNIT.name, "coffee-companion-update.service", "coffee-companion-update.path",
             "coffee-companion-persist.service"]
    for name in units:
        shutil.copy(UNIT.parent / name, tmp_path / "etc/systemd/system" / name)
    shutil.copytree("/usr/lib/systemd/system", tmp_path / "usr/lib/systemd/system",
                    symlinks=True)
    out = subprocess.run([ANALYZE, "verify", f"--root={tmp_path}", *units],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip() == "" and out.stdout.strip() == "", out.stderr + out.stdout


@needs_analyze
def test_the_unit_is_hardened_to_exposure_3_or_less():
    out = subprocess.run([ANALYZE, "security", "--offline=yes", "--no-pager", str(UNIT)],
                         capture_output=True, text=True, timeout=scaled(60))
    m = re.search(r"Overall exposure level for coffee-companion\.service: (\d+\.\d)", out.stdout)
    assert m, out.stdout + out.stderr
    assert float(m.group(1)) <= 3.0, out.stdout


def test_the_unit_is_watched_and_keeps_the_hardware_reachable():
    s = unit_settings()
    assert s["Type"] == ["notify"] and s["NotifyAccess"] == ["main"]
    assert int(s["WatchdogSec"][0]) > 0 and s["Restart"] == ["always"]
    # lgpio's notification pipes go to the service's own folder, not root's
    assert "LG_WD=/var/lib/coffee-companion" in s["Environment"]
    assert s["WorkingDirectory"] == ["/var/lib/coffee-companion"]
    assert s["StateDirectory"] == ["coffee-companion"]
    # the real /dev (a scanner plugged in later appears), only the devices the table uses
    assert "PrivateDevices" not in s and s["DevicePolicy"] == ["closed"]
    allowed = {v.split()[0] for v in s["DeviceAllow"]}
    assert {"char-gpiochip", "char-spi", "char-ttyACM", "char-drm", "char-input",
            "char-alsa"} <= allowed
    assert "AF_INET" in s["RestrictAddressFamilies"][0]          # the LAN page
    assert s["User"] == ["coffee"]
    assert s["ExecStart"] == ["/opt/coffee-companion/current/venv/bin/coffee-companion run"]


def test_install_sh_puts_the_unit_and_program_where_the_unit_expects_them():
    script = (ROOT / "install.sh").read_text(encoding="utf-8")
    assert "VENV=$PREFIX/current/venv" in script and "PREFIX=/opt/coffee-companion" in script
    assert "systemd/coffee-companion.service" in script
    assert os.access(ROOT / "install.sh", os.X_OK)


def test_phones_open_plain_coffee_rush_local_on_a_pi():
    # the one privilege the unit keeps is port 80, which the shipped Pi config asks for
    s = unit_settings()
    assert s["CapabilityBoundingSet"] == ["CAP_NET_BIND_SERVICE"]
    assert s["AmbientCapabilities"] == ["CAP_NET_BIND_SERVICE"]
    from companion.appliance import config
    pi = config.load(str(ROOT / "systemd" / "config.toml"), required=True)
    assert pi["web"]["enabled"] and pi["web"]["port"] == 80
    # install.sh names a Pi that still has Raspberry Pi OS's default name coffee-rush
    script = (ROOT / "install.sh").read_text(encoding="utf-8")
    assert 'if [ "$HOST" = raspberrypi ]' in script
    assert "hostnamectl set-hostname coffee-rush" in script


def test_the_first_frame_waits_for_no_network():
    # a booted guest (.ci/check-appliance-vm) reached network.target ~25 s after the disk:
    # the table must not wait for it; the phone view listens on every address from the start
    s = unit_settings()
    order = " ".join(s.get("After", []) + s.get("Wants", []) + s.get("Requires", []))
    assert "network" not in order, order
    assert "local-fs.target" in s["After"][0]


def test_install_sh_installs_what_kmsdrm_and_the_gpio_chips_need():
    script = (ROOT / "install.sh").read_text(encoding="utf-8")
    apt = re.search(r'^APT="([^"]*)"', script, re.M)
    assert apt, "install.sh lists its apt packages in APT=\"...\""
    # SDL's kmsdrm: EGL on GBM with a Mesa DRI driver, else "EGL not initialized"
    # (and libGL, without which the screen opened and stayed black)
    assert {"libegl1", "libgbm1", "libgles2", "libgl1", "libgl1-mesa-dri"} \
        <= set(apt.group(1).split())
    # the GPIO chips open for the gpio group, where the image has no such rule
    rule = (ROOT / "hardware/99-coffee-gpio.rules").read_text(encoding="utf-8")
    lines = [x for x in rule.splitlines() if x and not x.startswith("#")]
    assert lines == ['SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"']
    assert "hardware/99-coffee-gpio.rules" in script and 'rm -f "$RULE" "$GPIO_RULE"' in script


def test_install_sh_puts_what_it_wrote_on_the_card_before_the_service_starts():
    """A power cut seconds after an install or upgrade must not leave empty files (the
    appliance check's run 9: an empty unit, a service that never started again): sync
    after the last file is written and before the service (re)starts; and in --uninstall."""
    script = (ROOT / "install.sh").read_text(encoding="utf-8")
    unit_written = script.index('install -m 0644 "$SRC/systemd/coffee-companion.service"')
    synced = script.index("\nsync\n", unit_written)
    assert synced < script.index("systemctl restart coffee-companion.service")
    uninstall = script[script.index("uninstall() {"):]
    uninstall = uninstall[:uninstall.index("\n}\n")]
    assert uninstall.rstrip().splitlines()[-1].strip().startswith("sync")
