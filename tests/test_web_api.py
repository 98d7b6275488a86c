"""The phone view's JSON API against the service on simulated hardware: the table
exactly as replay --json prints it, every update streamed, actions only with the
code and from the page's own origin, bad lines refused in words; and a port
already taken leaves the table playing with one warning."""
import json
import logging
import socket
import subprocess
import sys

import httpx

from companion import inputs as ev
from companion.service import Service
from companion.table import Recorder

from web_fixtures import service_with_web, web_config  # noqa: F401 - fixture

SETUP = '{"do": "setup", "edition": "original", "players": ["Zoë", "서연"], "start": "서연"}'


def post(svc, body, code=None, **headers):
    if code is not None:
        headers["X-Pairing-Code"] = code
    return httpx.post(svc.web.url + "/api/action", content=body.encode(), headers=headers,
                      timeout=5)


def test_table_is_replay_json_and_actions_need_code_and_origin(service_with_web, tmp_path):
    svc = service_with_web
    code = svc.web.pairing.code
    assert post(svc, SETUP).status_code == 401
    assert post(svc, SETUP, "000000").status_code == 401
    assert post(svc, SETUP, code, Origin="http://evil.example").status_code == 403
    assert svc.session.table.game is None                   # nothing was written
    r = post(svc, SETUP, code, Origin=svc.web.url)
    assert r.status_code == 200, r.text
    assert r.json()["happened"][0]["kind"] == "game_started"
    r = post(svc, '{"do": "complete"}', code)
    assert r.status_code == 200
    r = post(svc, '{"do": "fly"}', code, **{"Accept-Language": "es-ES,es;q=0.9"})
    assert r.status_code == 422 and r.json()["rejection"]["code"] == "unknown_action"
    assert "no es una acción" in r.json()["message"] or "fly" in r.json()["message"]
    assert post(svc, "   ", code).status_code == 400
    assert post(svc, "x" * 5000, code).status_code == 413
    # GET /api/table is byte for byte what replay --json prints for the journal's lines
    table = httpx.get(svc.web.url + "/api/table").content
    script = tmp_path / "game.jsonl"
    script.write_text(SETUP + '\n{"do": "complete"}\n', encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "companion", "replay", str(script), "--json"],
                         capture_output=True, check=True)
    assert table == out.stdout


def test_events_stream_each_update(service_with_web):
    svc = service_with_web
    rec = Recorder()
    svc.loop.subscribe(rec)
    if svc.session.table.game is None:          # this test alone: a game with one action
        svc.loop.post(ev.TouchAction(json.loads(SETUP)))
        svc.loop.post(ev.TouchAction({"do": "complete"}))
        rec.wait_for(lambda u: u.action == {"do": "complete"})
    with httpx.stream("GET", svc.web.url + "/api/events?lang=pt", timeout=5) as s:
        lines = s.iter_lines()
        first = _next_event(lines)
        assert first["table"] == httpx.get(svc.web.url + "/api/table").json()
        assert "html" in first
        svc.loop.post(ev.UndoTap())
        svc.loop.post(ev.UndoHold())
        a, b = _next_event(lines), _next_event(lines)
    assert (a["seq"], b["seq"]) == (first["seq"] + 1, first["seq"] + 2)
    assert [h["kind"] for h in a["happened"]] == ["undone"]
    assert [h["kind"] for h in b["happened"]][0] == "redone"


def _next_event(lines) -> dict:
    for line in lines:
        if line.startswith("data: "):
            return json.loads(line[6:])
    raise AssertionError("stream ended")


def test_companion_page_hides_secrets_and_shows_devices(service_with_web):
    svc = service_with_web
    rec = Recorder()
    svc.loop.subscribe(rec)
    assert post(svc, '{"do": "undo"}', "bad").status_code == 401    # logged as a warning
    svc.loop.post(ev.DeviceStatus("scanner", "lost", "unplugged"))
    rec.wait_for(lambda u: any(h.kind == "device_status" for h in u.happened))
    text = httpx.get(svc.web.url + "/companion?lang=it").text
    assert 'data-device="buttons">simulato' in text
    assert 'data-device="scanner">scollegato' in text                # what the device said
    assert "journal.db" in text and "Ultime" in text
    assert "action refused, wrong pairing code" in text             # the log's last lines
    from companion.web.app import redacted
    assert redacted('password = "hunter2"\nport = 1') == 'password = "••••••"\nport = 1'


def test_port_taken_table_plays_on_with_one_warning(tmp_path, caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        svc = Service(web_config(tmp_path, taken.getsockname()[1]), headless=True)
        rec = Recorder()
        svc.loop.subscribe(rec)
        with caplog.at_level(logging.INFO):
            svc.start_web()
            svc.loop.start()
            svc.start_inputs()
            try:
                svc.loop.post(ev.TouchAction(json.loads(SETUP)))
                rec.wait_for(lambda u: u.accepted)
                svc.inputs[0].press(1)
                rec.wait_for(lambda u: u.accepted and u.action == {"do": "complete"})
            finally:
                svc.shutdown()
    assert svc.web is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "already in use" in warnings[0], warnings


def test_a_finished_game_offers_its_bg_stats_link_on_the_live_page(tmp_path):
    svc = Service(web_config(tmp_path), headless=True)
    svc.start_web()
    svc.loop.start()
    try:
        code = svc.web.pairing.code
        for line in ['{"do": "setup", "edition": "original", "players": ["Ana", "Bé", "서연"]}',
                     '{"do": "correct", "player": "Ana", "dislikes": 5}',
                     '{"do": "end_turn"}', '{"do": "end_turn"}', '{"do": "end_turn"}']:
            assert post(svc, line, code).status_code == 200, line
        link = httpx.get(svc.web.url + "/history/1/bgstats").text.strip()
        assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
        page = httpx.get(svc.web.url + "/?lang=pt").text
        assert f'id="bgstats" href="{link}"' in page
        assert svc.play_link.link == link                  # the end screen's QR code
    finally:
        svc.shutdown()
