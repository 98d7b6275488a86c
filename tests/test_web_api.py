"""The phone view's JSON API against the service on simulated hardware: the table
exactly as replay --json prints it, every update streamed, actions only from a paired
phone (its token, never the code) and from the page's own origin, bad lines refused in
words; and a port already taken leaves the table playing with one warning."""
import json
import logging
import socket
import ssl
import subprocess
import sys

import httpx

from companion.core import events as ev
from companion.devices.mock_pins import Fingers
from companion.core.rules import Rejection
from companion.appliance.service import Service
from recorder import Recorder
from companion.core.events import TableVersion
from companion.outputs.web.app import _one_line, _precondition

from web_fixtures import service_with_web, web_config  # noqa: F401 - fixture
from timing import scaled

SETUP = '{"do": "setup", "edition": "original", "players": ["Zoë", "서연"], "start": "서연"}'


def pair(svc, code=None, **headers) -> httpx.Response:
    return httpx.post(svc.web.url + "/api/pair", json={"code": code or svc.web.pairing.code},
                      headers=headers, timeout=scaled(5))


def post(svc, body, token=None, **headers):
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.post(svc.web.url + "/api/action", content=body.encode(), headers=headers,
                      timeout=scaled(5))


def test_table_is_replay_json_and_actions_need_a_paired_phone_and_origin(service_with_web,
                                                                           tmp_path):
    svc = service_with_web
    code = svc.web.pairing.code
    assert pair(svc, "000000").status_code == 401
    r = pair(svc)
    assert r.status_code == 200 and r.json()["paired"]
    token = r.json()["token"]
    assert "httponly" in r.headers["set-cookie"].lower()
    assert "samesite=strict" in r.headers["set-cookie"].lower()
    assert post(svc, SETUP).status_code == 401
    assert post(svc, SETUP, **{"X-Pairing-Code": code}).status_code == 401   # the code is no token
    assert post(svc, SETUP, "not-a-token").status_code == 401
    assert post(svc, SETUP, token, Origin="http://evil.example").status_code == 403
    assert svc.session.table.game is None                   # nothing was written
    r = post(svc, SETUP, token, Origin=svc.web.url)
    assert r.status_code == 200, r.text
    assert r.json()["happened"][0]["kind"] == "game_started"
    r = post(svc, '{"do": "complete"}', token)
    assert r.status_code == 200
    r = post(svc, '{"do": "fly"}', token, **{"Accept-Language": "es-ES,es;q=0.9"})
    assert r.status_code == 422 and r.json()["rejection"]["code"] == "unknown_action"
    assert "no es una acción" in r.json()["message"] or "fly" in r.json()["message"]
    assert post(svc, "   ", token).status_code == 400
    assert post(svc, "x" * 5000, token).status_code == 413
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
    with httpx.stream("GET", svc.web.url + "/api/events?lang=pt", timeout=scaled(5)) as s:
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
    assert "action refused, not a paired phone" in text             # the log's last lines
    from companion.outputs.web.app import redacted
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
                fingers = Fingers.on(svc.inputs[0]).start()
                fingers.press(1)
                rec.wait_for(lambda u: u.accepted and u.action == {"do": "complete"})
                fingers.close()
            finally:
                svc.shutdown()
    assert svc.web is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "already in use" in warnings[0], warnings


def test_a_finished_game_offers_its_bg_stats_link_on_the_live_page(tmp_path):
    svc = Service(web_config(tmp_path), headless=True)
    svc.start_web()
    recorder = Recorder()
    svc.loop.subscribe(recorder)                 # after the live page: it hears first
    svc.loop.start()
    try:
        code = pair(svc).json()["token"]
        for line in ['{"do": "setup", "edition": "original", "players": ["Ana", "Bé", "서연"]}',
                     '{"do": "correct", "player": "Ana", "dislikes": 5}',
                     '{"do": "end_turn"}', '{"do": "end_turn"}', '{"do": "end_turn"}']:
            assert post(svc, line, code).status_code == 200, line
        # made on a worker, then every subscriber (the live page too) hears of it
        found = recorder.wait_for(lambda u: isinstance(u.event, ev.PlayLinkFound))
        link = httpx.get(svc.web.url + "/history/1/bgstats").text.strip()
        assert link.startswith("https://app.bgstatsapp.com/createPlay.html?data=")
        page = httpx.get(svc.web.url + "/?lang=pt").text
        assert f'id="bgstats" href="{link}"' in page
        assert found.snapshot.play_link == link            # the end screen's QR code
        assert svc.web.live.latest.bgstats == link         # the phones' copy: the same
    finally:
        svc.shutdown()


def test_a_flood_of_wrong_codes_from_other_addresses_never_refuses_a_paired_phone(
        service_with_web):
    """The café attack, bounded and on loopback: 200 source addresses (127.0.0.x and
    127.0.1.x) send 5 wrong codes each; the staff's paired phone goes on acting, and a
    phone that did not guess can still pair."""
    svc = service_with_web
    staff = pair(svc).json()["token"]
    url = svc.web.url + "/api/pair"
    statuses = set()
    tls = ssl.create_default_context()      # one for all 200 (plain HTTP never uses it; made
    for i in range(200):                    # per client, the CA store is read 200 times)
        source = f"127.0.{1 + i // 250}.{2 + i % 250}"
        with httpx.Client(transport=httpx.HTTPTransport(local_address=source, verify=tls),
                          timeout=scaled(5)) as guesser:
            for _ in range(5):
                statuses.add(guesser.post(url, json={"code": "000000"}).status_code)
    assert statuses == {401, 429}
    assert post(svc, '{"do": "undo"}', staff).status_code in (200, 422)   # acted, not 401/429
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.9.9"),
                      timeout=scaled(5)) as owner:
        assert owner.post(url, json={"code": svc.web.pairing.code}).status_code == 200
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.1.2"),
                      timeout=scaled(5)) as guesser:   # one that guessed waits, even with the code
        assert guesser.post(url, json={"code": svc.web.pairing.code}).status_code == 429
    svc.web.pairing.renew()        # "New code" on the screen: the guessers start from zero


def test_a_foreign_host_is_refused_before_any_handler(service_with_web):
    """DNS rebinding: a page on evil.example whose name resolves to the table sends its own
    Host and Origin; both are refused before the action handler, even with a token."""
    svc = service_with_web
    token = pair(svc).json()["token"]
    foreign = {"Host": "evil.example", "Origin": "http://evil.example"}
    r = post(svc, '{"do": "undo"}', token, **foreign)
    assert r.status_code == 421 and "evil.example" in r.text
    assert httpx.get(svc.web.url + "/api/table", headers={"Host": "evil.example:8080"},
                     timeout=scaled(5)).status_code == 421
    name = socket.gethostname().split(".")[0]
    for host in ("localhost", "127.0.0.1", "[::1]:8080", f"{name}.local", name.upper(),
                 "coffee.example"):              # the last one from [web] hosts
        assert httpx.get(svc.web.url + "/api/table", headers={"Host": host},
                         timeout=scaled(5)).status_code == 200, host


def test_a_forgotten_phone_and_a_cookie_from_elsewhere_are_refused(service_with_web):
    svc = service_with_web
    r = pair(svc, **{"User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8)"})
    token = r.json()["token"]
    assert r.json()["name"] == "Android"
    phone = svc.web.pairing.phone(token)
    assert phone is not None and phone.name == "Android"
    cookie = {"Cookie": f"companion_token={token}"}
    # the page's cookie counts only with the page's own Origin (a script uses Bearer)
    assert post(svc, '{"do": "undo"}', **cookie).status_code == 403
    assert post(svc, '{"do": "undo"}', Origin=svc.web.url, **cookie).status_code in (200, 422)
    svc.web.pairing.forget(phone.id)                   # Settings' "Forget"
    assert post(svc, '{"do": "undo"}', token).status_code == 401
    assert httpx.delete(svc.web.url + "/api/pair", timeout=scaled(5)).status_code == 200


def test_a_pairing_body_that_is_not_json_is_told_how_to_pair(service_with_web):
    svc = service_with_web
    for body in (b'{"code": "123456",}', b"[" * 5000 + b"]" * 5000, b"\xff\xfe"):
        r = httpx.post(svc.web.url + "/api/pair", content=body, timeout=scaled(5))
        assert r.status_code == 400 and not r.json()["paired"], body[:20]


def test_an_action_body_is_one_table_script_line():
    assert _one_line(b'  {"do": "undo"}\n') == ('{"do": "undo"}', {"do": "undo"})
    assert _one_line(b"\xff\xfe")[1] == Rejection("bad_text", {})        # not UTF-8
    assert _one_line(b'{"do": "undo"}\n{"do": "undo"}')[1] is None      # two lines
    assert _one_line(b"# a comment")[1] is None
    assert _one_line(b'{"do": "undo",}')[1] == Rejection(
        "bad_json", {"column": 14, "problem": "comma_before_close", "char": "}", "other": "",
                     "limit": ""})
    assert _precondition(None, "a1b2c3") == (True, None)
    assert _precondition(" * ", "a1b2c3") == (True, None)
    assert _precondition('"nonsense"', "a1b2c3") == (False, None)
    assert _precondition('"a1b2c3-3.7.2.1"', "a1b2c3") == (True, TableVersion(3, 7, 2, 1))
    assert _precondition('"ffffff-3.7.2.1"', "a1b2c3") == (False, None)   # another start
    assert _precondition('"3.7.2.1"', "a1b2c3") == (False, None)          # no epoch


def test_the_companion_page_shows_the_log_from_the_service_start_on(tmp_path):
    """The last log lines on the Companion page begin at the service's start, not at the
    phone view's (which comes up after READY): what went wrong while starting is there."""
    svc = Service(web_config(tmp_path), headless=True)
    try:
        logging.getLogger("companion.test").warning("before the phone view: a test line")
        svc.start_web()
        assert svc.web is not None
        svc.loop.start()
        page = httpx.get(svc.web.url + "/companion").text
        assert "before the phone view: a test line" in page
        assert svc.web.log_tail is svc.log_tail and svc.log_tail.lines.maxlen == 100
    finally:
        svc.shutdown()
    assert svc.log_tail not in logging.getLogger().handlers      # no handler left behind
