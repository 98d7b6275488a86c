"""A table without its touchscreen (issue 39): ``coffee-companion pair`` prints the running
table's code (for root and the service's group only, never into the log), phones keep a
name and a "last seen", every error page is in the page's language without a server path,
and ``replay --db`` makes a new journal's folder."""
from __future__ import annotations

import html
import json
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from companion.appliance.service import Service
from companion.commands import cli
from companion.outputs.web.pairing import (CODE_FILE, SEEN_SAVED, Pairing, publish_code,
                                          published_code)

from cafe_fixtures import wait_until
from web_fixtures import service_with_web, web_config  # noqa: F401 - fixture
from timing import scaled

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pair_command(db: str, capsys) -> tuple[int, str, str]:
    status = cli.main(["pair", "--db", db])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_pair_prints_the_running_tables_code_and_never_logs_it(tmp_path, capsys, caplog):
    caplog.set_level(logging.DEBUG)
    cfg = web_config(tmp_path)
    db = cfg["journal"]["path"]
    svc = Service(cfg, headless=True)
    svc.start_outputs()
    svc.start_web()
    svc.loop.start()
    try:
        assert svc.web is not None
        code = svc.web.pairing.code
        published = os.path.join(os.path.dirname(db), CODE_FILE)
        assert stat.S_IMODE(os.stat(published).st_mode) == 0o640   # owner and group only
        status, out, _ = pair_command(db, capsys)
        assert status == 0
        assert out.splitlines()[0] == f"Pairing code: {code[:3]} {code[3:]}"
        assert svc.web.public_url in out.splitlines()[1]
        new = svc.web.pairing.renew()                  # "New code" in Settings
        assert f"{new[:3]} {new[3:]}" in pair_command(db, capsys)[1]
        # a phone pairs with what the command printed
        r = httpx.post(svc.web.url + "/api/pair", json={"code": new, "name": "Ana's phone"})
        assert r.status_code == 200
    finally:
        svc.shutdown()
    assert not os.path.exists(published)               # the table stopped: no code
    status, out, err = pair_command(db, capsys)
    assert status == 69 and out == "" and "not running" in err
    for record in caplog.records:
        said = record.getMessage()
        assert code not in said and new not in said, said


def test_a_code_left_by_a_table_that_died_is_not_printed(tmp_path, capsys):
    (tmp_path / CODE_FILE).write_text(json.dumps({"code": "123456", "pid": 2 ** 22 + 1,
                                                  "url": None}))
    status, out, err = pair_command(str(tmp_path / "journal.db"), capsys)
    assert status == 69 and "123456" not in out + err


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user")
def test_a_user_outside_the_group_may_not_read_the_code(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "state"
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(folder, 0o755)                            # even where the folder is open
    path = str(folder / CODE_FILE)
    publish_code(path, "482913", None)                 # as the service writes it (root here)
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:                                     # nobody, in no group of the file's
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            try:
                published_code(path)
                said = b"read"
            except PermissionError:
                said = b"refused"
            os.write(writing, said)
        finally:
            os._exit(0)
    os.close(writing)
    os.waitpid(child, 0)
    assert os.read(reading, 16) == b"refused"
    os.close(reading)

    def refused(_path):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr("companion.outputs.web.pairing.published_code", refused)
    status, out, err = pair_command(str(folder / "journal.db"), capsys)
    assert status == 77 and out == "" and "sudo coffee-companion pair" in err


class Wall:
    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self):
        return self.now


def test_a_phone_is_seen_when_it_acts_and_the_file_is_written_sparingly(tmp_path):
    wall, store = Wall(), str(tmp_path / "paired-phones.json")
    p = Pairing(code="111111", store=store, wall=wall)
    _, token = p.pair("111111", "10.0.0.5", "Ana's phone")
    assert p.phones()[0].last_seen == wall.now
    written = Path(store).read_text()
    wall.now += 60
    assert p.authorize(token) == "ok"
    assert p.phones()[0].last_seen == wall.now                 # seen now (Settings)
    assert Path(store).read_text() == written                  # not a write per action
    wall.now += SEEN_SAVED
    p.authorize(token)
    again = Pairing(store=store, wall=wall)                    # after a restart
    assert [(ph.name, ph.last_seen) for ph in again.phones()] == [("Ana's phone", wall.now)]


def test_an_old_file_without_last_seen_still_loads(tmp_path):
    store = tmp_path / "paired-phones.json"
    store.write_text(json.dumps({"phones": [{"id": "abc", "name": "Old", "paired_at": 5.0,
                                             "digest": "ab" * 32}]}))
    assert [(ph.name, ph.last_seen) for ph in Pairing(store=str(store)).phones()] == [
        ("Old", 0.0)]


def test_the_page_sends_the_phones_name(service_with_web):
    svc = service_with_web
    r = httpx.post(svc.web.url + "/api/pair", json={"code": svc.web.pairing.code,
                                                   "name": " Ben’s\ttablet "})
    assert r.status_code == 200 and r.json()["name"] == "Ben’s tablet"
    assert "Ben’s tablet" in [ph.name for ph in svc.web.pairing.phones()]
    page = httpx.get(svc.web.url + "/?lang=ko").text
    assert 'id="phonename"' in page and "이 휴대폰의 이름" in page


# --- error pages ---------------------------------------------------------------------

@pytest.mark.parametrize("path, lang, status, words", [
    ("/history/999", "ko", 404, "그런 페이지가 없습니다"),
    ("/history/999/csv", "es", 404, "Aquí no hay ninguna página así"),
    ("/nowhere", "it", 404, "Qui non c'è nessuna pagina così"),
    ("/history/2/nonsense", "pt", 404, "Não existe essa página aqui"),
])
def test_error_pages_are_in_the_pages_language_without_server_paths(service_with_web, path,
                                                                    lang, status, words):
    svc = service_with_web
    r = httpx.get(f"{svc.web.url}{path}?lang={lang}")
    assert r.status_code == status and r.headers["content-type"].startswith("text/html")
    assert f'<html lang="{lang}"' in r.text and html.escape(words) in r.text
    journal = svc.cfg["journal"]["path"]
    assert journal not in r.text and os.path.dirname(journal) not in r.text
    assert "journal" not in r.text.lower() and "Traceback" not in r.text


def test_api_errors_answer_json_in_the_language_the_browser_asks(service_with_web):
    svc = service_with_web
    r = httpx.get(svc.web.url + "/api/nothing", headers={"Accept-Language": "ko-KR,ko;q=0.9"})
    assert r.status_code == 404 and r.json() == {"message": "그런 페이지가 없습니다."}
    wrong = httpx.get(svc.web.url + "/api/action?lang=es")
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
    assert wrong.json()["message"] == "Esta página no puede hacer eso."


def test_a_failing_page_is_a_500_in_words_said_once_in_the_log(service_with_web, monkeypatch,
                                                               caplog):
    svc = service_with_web
    from companion.outputs.web import pages

    def broken(*_args, **_kw):
        raise RuntimeError("/var/lib/secret/place went wrong")
    monkeypatch.setattr(pages, "companion_page", broken)
    caplog.set_level(logging.ERROR, logger="companion.outputs.web")
    r = httpx.get(svc.web.url + "/companion?lang=en")
    assert r.status_code == 500 and "Something went wrong on the table" in r.text
    assert "/var/lib/secret" not in r.text and r.headers["connection"] == "close"
    assert wait_until(lambda: caplog.records)          # (said once the answer is out)
    assert [rec.getMessage() for rec in caplog.records] == ["phone view: GET /companion failed"]


def test_replay_db_makes_its_folder(tmp_path):
    db = tmp_path / "new" / "deeper" / "journal.db"
    done = subprocess.run([sys.executable, "-m", "companion", "replay", "-", "--db", str(db)],
                          input=b'{"do": "setup", "edition": "original", "players": ["A", "B"]}\n',
                          capture_output=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT),
                          timeout=scaled(60))
    assert done.returncode == 0, done.stderr
    assert db.exists()


class SaidAloud:
    """Where the service's voice says things (the voice adapter's ``say``)."""
    language = "es"

    def __init__(self):
        self.said: list[tuple[str, str | None]] = []

    def say(self, text: str, lang: str | None = None) -> None:
        self.said.append((text, lang))


def test_a_long_undo_hold_says_the_code_on_a_table_without_a_screen(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    svc = Service(web_config(tmp_path), headless=True)
    svc.start_outputs()
    svc.start_web()
    svc.start_inputs()
    try:
        svc.voice = voice = SaidAloud()
        buttons = svc.inputs[0]
        assert buttons.on_code_asked == svc.say_pairing_code
        code = svc.web.pairing.code
        buttons.on_code_asked()                     # (as the buttons' timer calls it)
        assert voice.said == [(f"Código para emparejar: {', '.join(code)}", "es")]
        svc.screen_on = True                        # a screen shows it in Settings instead
        buttons.on_code_asked()
        assert len(voice.said) == 1
    finally:
        svc.shutdown()
    assert "said aloud" in caplog.text and code not in caplog.text


def test_a_paired_phone_opening_the_live_table_is_seen(service_with_web, monkeypatch):
    svc = service_with_web
    r = httpx.post(svc.web.url + "/api/pair", json={"code": svc.web.pairing.code,
                                                   "name": "Dana's phone"})
    token = r.json()["token"]
    monkeypatch.setattr(svc.web.pairing, "wall", lambda: 2_000_000_000.0)   # later on
    with httpx.stream("GET", svc.web.url + "/api/events",
                      headers={"Authorization": f"Bearer {token}"}, timeout=scaled(5)) as s:
        lines = s.iter_lines()
        assert next(lines).startswith("id: ")
        seen = next(p for p in svc.web.pairing.phones() if p.name == "Dana's phone")
    assert seen.last_seen == 2_000_000_000.0
