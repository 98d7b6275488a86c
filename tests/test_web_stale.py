"""Two phones against the service on simulated hardware: every action a phone sends
names the table it showed (``If-Match`` with the ``ETag`` of ``GET /api/table``); one made
against a table that has moved on is refused with 412 and the table as it is, in words,
and changes nothing. A phone without ``If-Match`` acts as before."""
import json

import httpx

from companion.core.journal import Journal

from web_fixtures import new_game, service_with_web  # noqa: F401 - fixture
from timing import scaled

SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"],
         "start": "Ana"}


def pair(svc) -> str:
    r = httpx.post(svc.web.url + "/api/pair", json={"code": svc.web.pairing.code},
                   timeout=scaled(5))
    assert r.status_code == 200, r.text
    return r.json()["token"]


def post(svc, token, line, version=None, **headers) -> httpx.Response:
    headers["Authorization"] = f"Bearer {token}"
    if version is not None:
        headers["If-Match"] = version
    return httpx.post(svc.web.url + "/api/action", content=json.dumps(line).encode(),
                      headers=headers, timeout=scaled(5))


def look(svc) -> httpx.Response:
    """What a phone shows: the table and its ETag."""
    r = httpx.get(svc.web.url + "/api/table", timeout=scaled(5))
    assert r.status_code == 200
    return r


def lines(svc) -> list[str]:
    with Journal(svc.session.journal.path, readonly=True) as j:
        return [json.loads(x)["do"] for x in j.lines(svc.session.game_id)]


def test_a_phone_still_showing_anas_turn_cannot_end_bens(service_with_web):
    svc = service_with_web
    new_game(svc, SETUP)
    phone_a, phone_b = pair(svc), pair(svc)
    seen_a, seen_b = look(svc), look(svc)                # both show Ana's turn
    assert seen_a.json()["active"] == seen_b.json()["active"] == "Ana"
    etag = seen_a.headers["etag"]
    assert etag == seen_b.headers["etag"] and etag.startswith('"')

    r = post(svc, phone_a, {"do": "end_turn"}, etag)     # A ends Ana's turn
    assert r.status_code == 200, r.text
    assert r.json()["table"]["active"] == "Ben" and r.headers["etag"] != etag
    assert look(svc).headers["etag"] == r.headers["etag"] == r.json()["version"]

    r = post(svc, phone_b, {"do": "end_turn"}, etag)     # B's tap, on Ana's turn as shown
    assert r.status_code == 412
    body = r.json()
    assert body["accepted"] is False and body["rejection"]["code"] == "stale_turn"
    assert body["message"] == "Refused: Ben's turn had already begun"
    assert body["table"] == look(svc).json() and body["table"]["active"] == "Ben"
    assert r.headers["etag"] == look(svc).headers["etag"]       # what to send next time
    game = svc.session.table.game
    assert (game.active, game.turn) == (1, 2)            # Ben's turn goes on
    assert lines(svc) == ["setup", "end_turn"]           # nothing written

    # B now shows Ben's turn and acts on it; A, one action behind, is refused even in
    # the same turn: a phone acts only on exactly the table it showed
    shown = look(svc).headers["etag"]
    assert post(svc, phone_b, {"do": "complete"}, shown).status_code == 200
    r = post(svc, phone_a, {"do": "complete"}, shown, **{"Accept-Language": "es"})
    assert r.status_code == 412 and r.json()["rejection"]["code"] == "stale_table"
    assert "La mesa había cambiado" in r.json()["message"]
    assert svc.session.table.game.players[1].likes == 1
    assert lines(svc) == ["setup", "end_turn", "complete"]


def test_without_if_match_a_phone_acts_as_before_and_a_bad_one_is_refused(service_with_web):
    svc = service_with_web
    new_game(svc, SETUP)
    phone = pair(svc)
    for bad in ("12", '"nonsense"', 'W/' + look(svc).headers["etag"]):
        r = post(svc, phone, {"do": "complete"}, bad)
        assert r.status_code == 412 and r.json()["table"] == look(svc).json(), bad
    assert lines(svc) == ["setup"]
    assert post(svc, phone, {"do": "complete"}).status_code == 200          # no If-Match
    assert post(svc, phone, {"do": "complete"}, "*").status_code == 200     # any table
    assert lines(svc) == ["setup", "complete", "complete"]
    r = post(svc, phone, {"do": "fly"}, look(svc).headers["etag"])          # still 422
    assert r.status_code == 422 and r.json()["rejection"]["code"] == "unknown_action"


def test_the_events_stream_carries_the_version_the_page_sends_back(service_with_web):
    svc = service_with_web
    new_game(svc, SETUP)
    with httpx.stream("GET", svc.web.url + "/api/events", timeout=scaled(5)) as s:
        for line in s.iter_lines():
            if line.startswith("data: "):
                first = json.loads(line[6:])
                break
    assert first["version"] == look(svc).headers["etag"]
    page = httpx.get(svc.web.url + "/", timeout=scaled(5)).text
    assert f'data-version="{first["version"].replace(chr(34), "&quot;")}"' in page


def test_a_page_from_before_a_restart_names_no_table_of_this_one(service_with_web):
    """A journal started afresh numbers its games from 1 again: the same game, step, turn
    and seat can name another table. The ETag carries the phone view's epoch (new at every
    start), so a page served before the restart is refused (412) and changes nothing."""
    svc = service_with_web
    new_game(svc, SETUP)
    phone = pair(svc)
    tag = look(svc).headers["etag"]
    epoch, version = tag.strip('"').split("-", 1)
    assert epoch == svc.web.live.epoch and len(epoch) == 6
    before = "000000" if epoch != "000000" else "ffffff"
    r = post(svc, phone, {"do": "complete"}, f'"{before}-{version}"')   # same numbers
    assert r.status_code == 412 and r.headers["etag"] == tag
    assert lines(svc) == ["setup"]
    assert post(svc, phone, {"do": "complete"}, tag).status_code == 200
    assert lines(svc) == ["setup", "complete"]
