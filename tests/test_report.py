"""`coffee-companion report`: one archive to send for help, with nothing in it a stranger
could use (no pairing code nor token, ever; no games nor names unless asked). The machine is
a made-up root folder, systemctl's and journalctl's answers given as text, the journal real."""
import io
import json
import os
import sqlite3
import tarfile

import pytest

from companion.appliance import doctor, report
from companion.core.journal import Journal
from timing import scaled

TOKEN = "Zq3k9_dP0sLw8XyTe2VbN4mR7cUa1HgJ"        # what secrets.token_urlsafe(24) looks like
CODE = "482913"
LOG = f"""2026-06-01T20:01:02+0000 pi systemd[1]: Started coffee-companion.service.
2026-06-01T20:05:00+0000 pi coffee-companion[812]: Ana's turn, round 2
2026-06-01T20:06:00+0000 pi coffee-companion[812]: pairing code {CODE[:3]} {CODE[3:]} shown; {CODE}
2026-06-01T20:07:00+0000 pi coffee-companion[812]: GET /api/table Authorization: Bearer {TOKEN}
2026-06-01T20:07:01+0000 pi coffee-companion[812]: cookie companion_token={TOKEN}; a token {TOKEN}
2026-06-01T20:09:00+0000 pi systemd[1]: coffee-companion.service: Watchdog timeout (limit 30s)!
2026-06-01T20:09:02+0000 pi systemd[1]: coffee-companion.service: Scheduled restart job.
"""


@pytest.fixture
def machine(tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc/os-release").write_text('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')
    (root / "proc").mkdir()
    (root / "proc/mounts").write_text("/dev/mmcblk0p2 / ext4 rw 0 0\n")
    state = tmp_path / "state"
    state.mkdir()
    journal = state / "journal.db"
    with Journal(str(journal)):
        pass
    db = sqlite3.connect(journal)
    with db:
        db.execute("INSERT INTO games(edition, variant, players, setup, started_at) "
                   "VALUES ('base', 'standard', ?, 'setup', '2026-06-01T20:00:00+00:00')",
                   (json.dumps(["Ana", "Bruno"]),))
    db.close()
    (state / report.PHONES_FILE).write_text(json.dumps({"phones": [
        {"id": "abc", "name": "Carmen's phone", "paired_at": 1.0, "digest": "f" * 64}]}))
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[journal]\npath = "{journal}"\n[mqtt]\npassword = "s3cret-Pass"\n')

    def run(cmd):
        if cmd[0] == "journalctl":
            return LOG
        if cmd[:2] == ["systemctl", "show"]:
            return "NRestarts=1\nActiveState=active\nStatusText=Bruno's turn, round 3"
        if cmd[0] == "systemctl":
            return "● coffee-companion.service - Coffee Rush table companion\n  Active: active"
        return None
    return doctor.System(str(root), run=run, now=lambda: 1_780_000_000.0), str(cfg)


def members(data: bytes) -> dict[str, str]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read().decode("utf-8", "replace")
                for m in tar.getmembers()}


def test_the_report_has_what_a_helper_needs_and_no_token_code_name_or_game(machine):
    system, cfg = machine
    data = report.collect(cfg, True, system, codes=[CODE], program_version="0.1.0")
    files = members(data)
    assert {"README.txt", "versions.txt", "os.txt", "doctor.txt", "config.toml", "unit.txt",
            "logs.txt", "restarts.txt", "update-status.json"} == set(files)
    assert "0.1.0" in files["versions.txt"] and "bookworm" in files["os.txt"]
    assert "no release installed" in files["doctor.txt"]
    assert "Watchdog timeout" in files["restarts.txt"]
    assert "Scheduled restart job" in files["restarts.txt"]
    assert "NRestarts=1" in files["unit.txt"]
    everything = "\n".join(files.values())
    for secret in (TOKEN, CODE, f"{CODE[:3]} {CODE[3:]}", "s3cret-Pass", "f" * 64,
                   "Ana", "Bruno", "Carmen"):
        assert secret not in everything, secret
    assert "<name>'s turn, round 2" in files["logs.txt"]
    assert f"Bearer {report.HIDDEN}" in files["logs.txt"]
    assert "journal.db" not in files


def test_games_and_names_only_when_asked(machine):
    system, cfg = machine
    files = members(report.collect(cfg, True, system, include_games=True, include_names=True,
                                   codes=[CODE]))
    assert "Ana's turn, round 2" in files["logs.txt"]
    assert "journal.db" in files and "Bruno" in files["journal.db"]
    everything = "\n".join(v for k, v in files.items() if k != "journal.db")
    assert TOKEN not in everything and CODE not in everything


def test_the_command_writes_the_archive(machine, tmp_path, monkeypatch, capsys):
    system, cfg = machine
    from companion.commands.cli import main
    monkeypatch.setattr(doctor, "System", lambda: system)
    out = tmp_path / "r.tar.gz"
    assert main(["--config", cfg, "report", "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert "Ana" not in "".join(members(out.read_bytes()).values())


def test_a_paired_phone_downloads_the_report_and_asks_for_an_update(tmp_path):
    import httpx

    from companion.appliance import updates
    from companion.appliance.service import Service
    from web_fixtures import web_config
    layout = updates.Layout(str(tmp_path / "opt"))          # installed as releases
    os.makedirs(layout.release("1.0-a"))
    layout.switch("current", "1.0-a")
    svc = Service(web_config(tmp_path), headless=True)
    svc.update_prefix = layout.prefix
    svc.start_web()
    try:
        url = svc.web.url
        code = svc.web.pairing.code
        assert httpx.get(url + "/companion/report", timeout=scaled(10)).status_code == 401
        token = httpx.post(url + "/api/pair", json={"code": code},
                           timeout=scaled(5)).json()["token"]
        r = httpx.get(url + "/companion/report", headers={"Authorization": f"Bearer {token}"},
                      timeout=scaled(30))
        assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
        files = members(r.content)
        assert "doctor.txt" in files and "config.toml" in files
        everything = "\n".join(files.values())
        assert token not in everything and code not in everything
        assert f"{code[:3]} {code[3:]}" not in everything
        assert httpx.post(url + "/api/update", timeout=scaled(5)).status_code == 401
        r = httpx.post(url + "/api/update", headers={"Authorization": f"Bearer {token}"},
                       timeout=scaled(5))
        assert r.status_code == 200 and r.json()["asked"], r.text
        asked = tmp_path / "state" / "update-requested"
        assert json.loads(asked.read_text())["by"] == "phone"
    finally:
        svc.shutdown()
