"""The read-only root's moving part, with real mounts (issue 41): overlayroot's layout at boot
(the card read-only at /media/root-ro, / an overlay with its changes in RAM), then
coffee-companion-persist.service's own ExecStart lines, taken from the unit as they are (its
paths under a temporary folder), in a private mount namespace. What the table writes to the
journal's and the config's folders reaches the card; what it writes anywhere else does not
and is gone at the next boot. doctor, given the namespace's mount table, says so: FAIL
before the binds, OK after.

Not tried here: the initramfs (overlayroot's or raspi-config's) actually mounting this at
boot, and systemd ordering the unit; that is the VM's and a real Pi's (docs/updates.md)."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.appliance import config, doctor
from timing import scaled

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "coffee-companion-persist.service"


def can_mount() -> bool:
    if os.geteuid() != 0 or shutil.which("mkfs.ext4") is None:
        return False
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True,
                              timeout=scaled(10)).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


pytestmark = pytest.mark.skipif(not can_mount(), reason="needs root, mount namespaces "
                                "(unshare -m), loop devices and mkfs.ext4: .ci/run runs as root")


def persist_steps(machine: Path) -> list[str]:
    """The unit's ExecStart commands, with the machine's paths under ``machine``: the card's
    side (/media/root-ro) and the running root's (/var, /etc) where the test put them."""
    steps = []
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if not line.startswith("ExecStart="):
            continue
        args = shlex.split(line.split("=", 1)[1])
        moved = [str(machine / a.lstrip("/")) if a.startswith("/media/")
                 else str(machine / "root" / a.lstrip("/")) if a.startswith(("/var/", "/etc/"))
                 else a for a in args]
        steps.append(shlex.join(moved))
    return steps


def boot_and_persist(tmp_path: Path) -> dict[str, str]:
    """A boot under overlayroot, the persist unit's steps, the table writing, then the
    power going: what the card holds after, and the mount tables seen before and after the
    binds."""
    m = tmp_path / "machine"
    out = tmp_path / "out"
    out.mkdir()
    card, rw = m / "media" / "root-ro", m / "media" / "root-rw"
    image = tmp_path / "card.img"            # the card's root partition: ext4, as on a Pi
    with open(image, "wb") as fh:
        fh.truncate(8 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True, timeout=scaled(60))
    script = f"""set -eu
mkdir -p {card} {rw} {m}/root
# the card as install.sh left it, then mounted read-only (overlayroot's /media/root-ro)
mount -o loop {image} {card} || exit 77          # no loop devices here (a container)
mkdir -p {card}/var/lib/coffee-companion {card}/etc/coffee-companion {card}/opt
echo 'game 1' > {card}/var/lib/coffee-companion/journal.db
echo 'language = "es"' > {card}/etc/coffee-companion/config.toml
mount -o remount,ro {card}
mount -t tmpfs changes {rw}
mkdir -p {rw}/upper {rw}/work
mount -t overlay overlayroot -o lowerdir={card},upperdir={rw}/upper,workdir={rw}/work {m}/root
cat /proc/self/mounts > {out}/before
{chr(10).join(persist_steps(m))}
cat /proc/self/mounts > {out}/after
# the table plays: the journal and the config change; a log file and a program in /opt too
echo 'game 2' >> {m}/root/var/lib/coffee-companion/journal.db
echo '[game]' >> {m}/root/etc/coffee-companion/config.toml
echo 'a log line' > {m}/root/opt/written-in-ram
# the power goes: the overlay and its RAM are gone; the card is what is left
umount {m}/root/var/lib/coffee-companion {m}/root/etc/coffee-companion {m}/root {rw}
cat {card}/var/lib/coffee-companion/journal.db > {out}/journal
cat {card}/etc/coffee-companion/config.toml > {out}/config
ls -A {card}/opt > {out}/opt
umount {card}
"""
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, timeout=scaled(60))
    if done.returncode == 77:
        pytest.skip("no loop device to mount the card's image on (a container?)")
    assert done.returncode == 0, done.stderr
    return {p.name: p.read_text() for p in out.iterdir()}


def as_the_machine_sees_it(mounts: str, machine: Path) -> str:
    """The namespace's mount table with the temporary folder taken off the mount points:
    what /proc/mounts says on the machine (the overlay on /, the card on /media/root-ro)."""
    lines = []
    for line in mounts.splitlines():
        parts = line.split()
        if not parts[1].startswith(str(machine)):
            continue
        point = parts[1][len(str(machine)):]
        parts[1] = "/" + point.removeprefix("/root").lstrip("/") if point.startswith(
            "/root") else point
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def storage(mounts: str, tmp_path: Path) -> list[tuple[str, str]]:
    root = tmp_path / "seen"
    (root / "proc").mkdir(parents=True, exist_ok=True)
    (root / "proc" / "mounts").write_text(mounts)
    cfg = config.defaults()
    cfg["journal"]["path"] = "/var/lib/coffee-companion/journal.db"
    cfg.path = "/etc/coffee-companion/config.toml"
    return [(c.status, c.found) for c in doctor.check_sd_card(cfg, doctor.System(str(root)))
            if "log" not in c.found]


def test_the_journal_and_config_reach_the_card_and_nothing_else_does(tmp_path):
    seen = boot_and_persist(tmp_path)
    assert seen["journal"] == "game 1\ngame 2\n"
    assert seen["config"] == 'language = "es"\n[game]\n'
    assert seen["opt"] == ""                   # written in RAM only: gone at the power cut


def test_doctor_reads_the_mode_and_where_the_journal_is_from_the_real_mount_table(tmp_path):
    seen = boot_and_persist(tmp_path)
    machine = tmp_path / "machine"
    before = storage(as_the_machine_sees_it(seen["before"], machine), tmp_path)
    assert [s for s, _ in before] == ["FAIL", "WARN"], before
    assert "games are lost at power off" in before[0][1]
    after = storage(as_the_machine_sees_it(seen["after"], machine), tmp_path)
    assert after == [
        ("OK", "read-only root (an overlay in RAM); the journal is on the card "
               "(/var/lib/coffee-companion), with the screen's settings"),
        ("OK", "the config (/etc/coffee-companion/config.toml) is on the card "
               "(/etc/coffee-companion)")], after
