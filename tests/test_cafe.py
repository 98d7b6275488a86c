"""The café against a real Mosquitto: simulated tables play whole games, the hub's
floor and leaderboard agree with their journals through broker restarts, lost
acknowledgements and a killed table."""
import json
import os
import shutil
import signal
import subprocess
import sys

import pytest

from companion.cafe.hub import Hub
from cafe_simulate import SimulatedTable, table_settings
from companion.cafe.store import Store
from companion.core.journal import Journal
from companion.core.rules.view import table_json
from tests.cafe_fixtures import VENUE, broker, hub, pages, tables, wait_until  # noqa: F401
from timing import scaled


def expected_board(journal_paths):
    """The leaderboard computed straight from the journals' finished games."""
    rows = {}
    for path in journal_paths:
        with Journal(path, readonly=True) as j:
            for g in j.games():
                if g.ranking is None:
                    continue
                for r in g.ranking:
                    row = rows.setdefault(r["name"], [0, 0, 0, 0])
                    row[0] += 1
                    row[1] += r["place"] == 1
                    row[2] += r["score"]
                    row[3] += len(g.ranking) - r["place"] + 1
    return {n: (g, w, round(s / g, 1), p) for n, (g, w, s, p) in rows.items()}


def finished_games(path):
    with Journal(path, readonly=True) as j:
        return [g.id for g in j.games() if g.ended_at is not None]


def board_of(client):
    data = client.get("/api/leaderboard").json()
    return {r["name"]: (r["games"], r["wins"], r["average"], r["points"]) for r in data["rows"]}


def test_two_tables_play_whole_games_and_the_hub_shows_both_as_their_journals(hub, tables, pages):
    t1 = tables("table-1", seed=3, edition="winter")
    t2 = tables("table-2", seed=5, players=4, expansion="cake_time")
    t1.play_game()
    t2.play_game()
    t1.play_game()
    client = pages(hub)
    assert wait_until(lambda: hub.counts["results_new"] == 3)
    # a table's retained state and its results travel as separate messages: the hub may
    # count table-1's second result before that table's final state arrives
    finals = [table_json(t.loop.table) for t in (t1, t2)]
    assert wait_until(lambda: [(c["phase"], c["players"]) for c in
                               client.get("/api/floor").json()["tables"]] ==
                      [("over", [{"name": p["name"], "score": p["score"]}
                                 for p in final["players"]]) for final in finals])
    floor = client.get("/api/floor").json()["tables"]
    assert [c["table"] for c in floor] == ["table-1", "table-2"]
    for card, t in zip(floor, (t1, t2), strict=False):
        final = table_json(t.loop.table)
        assert card["online"] and card["phase"] == "over"
        assert card["players"] == [{"name": p["name"], "score": p["score"]}
                                   for p in final["players"]]
        assert card["winners"] == final["winners"]
    # the retained state is the replay output, plus the status
    stored = hub.store.floor(VENUE)[1]["state"]
    assert stored["status"]["game"] == t2.session.game_id
    assert {k: v for k, v in stored.items() if k != "status"} == table_json(t2.loop.table)
    assert board_of(client) == expected_board([t1.journal_path, t2.journal_path])
    assert hub.counts["results_duplicate"] == 0 and hub.counts["bad"] == 0
    played = {(r["table"], r["edition"], r["expansion"]) for r in hub.store.results_of(VENUE)}
    assert played == {("table-1", "winter", None), ("table-2", "original", "cake_time")}
    # every finished game acknowledged: a restarted table sends none again
    assert wait_until(lambda: t1.publisher.counts["results_acked"] == 2)


def test_broker_restarted_mid_game_loses_no_result_and_counts_none_twice(
        broker, hub, tables, tmp_path, pages):
    t1, t2 = tables("table-1", seed=11), tables("table-2", seed=12)
    t1.play_game()
    assert wait_until(lambda: t1.publisher.counts["results_acked"] == 1)
    t1.play_game(until=lambda g: g.turn >= 6)
    t2.play_game(until=lambda g: g.turn >= 4)
    broker.stop()                                      # mid-game, both tables playing
    assert wait_until(lambda: not t1.publisher.connected.is_set())
    t1.finish_game()                                   # games end while the broker is away
    t2.finish_game()
    assert t1.loop.table.game.game_over and t2.loop.table.game.game_over
    broker.start()
    assert wait_until(lambda: hub.counts["results_new"] == 3, timeout=10), hub.counts
    client = pages(hub)
    assert board_of(client) == expected_board([t1.journal_path, t2.journal_path])

    # t1 restarts having lost its acknowledgements: everything is sent again,
    # and the hub keeps each game once
    t1.publisher.close()
    seen_twice = hub.counts["results_duplicate"]       # a reconnect may already resend one
    os.remove(t1.journal_path + ".mqtt-acked.json")
    from companion.outputs.mqtt.publisher import MqttPublisher
    again = MqttPublisher(t1.settings, t1.journal_path, t1.loop.snapshot,
                          reconnect_min=0.1).start()
    try:
        assert wait_until(lambda: again.counts["results_acked"] == 2)
        assert wait_until(lambda: hub.counts["results_duplicate"] == seen_twice + 2)
        assert board_of(client) == expected_board([t1.journal_path, t2.journal_path])
        assert len(hub.store.results_of(VENUE)) == len(finished_games(t1.journal_path)) + 1
    finally:
        again.close()
    # with its acknowledgements kept, a restarted table sends nothing again
    quiet = MqttPublisher(t2.settings, t2.journal_path, t2.loop.snapshot,
                          reconnect_min=0.1).start()
    try:
        assert quiet.connected.wait(scaled(5))
        assert wait_until(lambda: quiet.counts["states"] >= 1)
        assert quiet.counts["results"] == 0
    finally:
        quiet.close()


def test_a_killed_table_turns_offline_through_its_last_will(broker, hub, tmp_path):
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[journal]
path = "{tmp_path}/killed/journal.db"
[catalog]
paths = []
[seats]
driver = "none"
[pixels]
driver = "none"
[sound]
enabled = false
[mqtt]
host = "127.0.0.1"
port = {broker.port}
venue = "{VENUE}"
table = "killed"
""")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--config", str(cfg), "run",
                             "--headless"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        def status():
            rows = {r["table"]: r for r in hub.store.floor(VENUE)}
            return rows.get("killed", {}).get("status")
        assert wait_until(lambda: status() == "online", timeout=10), proc.stderr.read1()
        proc.send_signal(signal.SIGKILL)
        proc.wait(scaled(5))
        assert wait_until(lambda: status() == "offline", timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(scaled(5))
        proc.stderr.close()


def test_the_hub_ignores_what_is_not_a_table_message(tmp_path, pages):
    store = Store(str(tmp_path / "cafe.db"))
    h = Hub(table_settings("127.0.0.1", 1, VENUE, "-"), store)
    try:
        assert h.handle(f"coffee-rush/{VENUE}/t1/state", b"{not json") == "bad"
        assert h.handle(f"coffee-rush/{VENUE}/t1/result", b'{"game": "x"}') == "bad"
        assert h.handle(f"coffee-rush/{VENUE}/t1/status", b"maybe") == "bad"
        assert h.handle("coffee-rush/other/t1/status", b"online") is None
        assert h.handle(f"coffee-rush/{VENUE}/t1/status", b"online") == "online"
        assert store.floor(VENUE) == [{"table": "t1", "status": "online", "state": None,
                                       "received_at": store.floor(VENUE)[0]["received_at"]}]
        client = pages(h)
        assert client.get("/api/leaderboard?month=13-2026").status_code == 400
        assert client.get("/api/leaderboard").json()["rows"] == []
        korean = client.get("/?lang=ko").text
        assert '<html lang="ko">' in korean and "매장 현황" in korean
        assert "순위표" in client.get("/leaderboard?lang=ko").text
        assert '<html lang="en">' in client.get("/?lang=xx").text
    finally:
        store.close()


def test_a_table_plays_on_without_its_broker_and_reports_when_it_comes(tmp_path):
    from tests.cafe_fixtures import Mosquitto
    folder = tmp_path / "broker"
    folder.mkdir()
    later = Mosquitto(str(folder)).start()
    store = Store(str(tmp_path / "cafe.db"))
    # The hub's persistent session first (as a café's hub runs before its tables): the broker
    # keeps it, and what the table sends while the hub is away, across its restart
    h = Hub(table_settings("127.0.0.1", later.port, VENUE, "-"), store, reconnect_min=0.1)
    assert h.start().connected.wait(scaled(10))
    h.close()
    later.stop()                                        # its port, nothing listening now
    t = SimulatedTable(str(tmp_path / "tables"), table_settings(
        "127.0.0.1", later.port, VENUE, "early"), seed=8, durable=False,
        reconnect_min=0.1).start()
    try:
        t.play_game()                                   # a whole game, the broker away
        assert t.loop.table.game.game_over
        assert not t.publisher.connected.is_set()
        assert wait_until(lambda: t.publisher.counts["events_skipped"] > 20)
        later.start()
        h = Hub(table_settings("127.0.0.1", later.port, VENUE, "-"), store,
                reconnect_min=0.1).start()
        try:
            assert wait_until(lambda: h.counts["results_new"] == 1, timeout=10)
            assert store.results_of(VENUE)[0]["game"] == t.session.game_id
            assert hub_phase(store, "early") == "over"
        finally:
            h.close()
            store.close()
    finally:
        t.close()
        later.stop()


def hub_phase(store, table):
    row = {r["table"]: r for r in store.floor(VENUE)}[table]
    return row["state"]["status"]["phase"]


def test_home_assistant_discovery_describes_the_table(broker, tmp_path):
    import paho.mqtt.client as mqtt
    got = {}
    ha = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="ha-test")
    ha.on_message = lambda c, u, m: got.__setitem__(m.topic, json.loads(m.payload))
    ha.on_connect = lambda c, u, f, rc, p: c.subscribe("homeassistant/#", qos=1)
    ha.connect("127.0.0.1", broker.port)
    ha.loop_start()
    t = SimulatedTable(str(tmp_path / "tables"), table_settings(
        "127.0.0.1", broker.port, VENUE, "table-9", discovery_prefix="homeassistant"),
        seed=2, durable=False, reconnect_min=0.1).start()
    try:
        assert wait_until(lambda: len(got) == 2)
        base = "homeassistant/sensor/coffee_rush_testcafe_table_9"
        phase, turn = got[f"{base}_phase/config"], got[f"{base}_turn/config"]
        for sensor in (phase, turn):
            assert sensor["state_topic"] == f"coffee-rush/{VENUE}/table-9/state"
            assert sensor["availability_topic"] == f"coffee-rush/{VENUE}/table-9/status"
            assert sensor["device"]["identifiers"] == ["coffee_rush_testcafe_table_9"]
        assert phase["value_template"] == "{{ value_json.status.phase }}"
        assert turn["value_template"] == "{{ value_json.active or '-' }}"
    finally:
        t.close()
        ha.disconnect()
        ha.loop_stop()


def test_results_wait_in_the_broker_for_a_hub_that_is_down(broker, tables, tmp_path):
    settings = table_settings("127.0.0.1", broker.port, VENUE, "-")
    store = Store(str(tmp_path / "cafe.db"))
    first = Hub(settings, store, reconnect_min=0.1).start()
    assert first.connected.wait(scaled(5))
    first.close()                                      # the hub is down (its session stays)
    t = tables("table-1", seed=31)
    t.play_game()
    assert wait_until(lambda: t.publisher.counts["results_acked"] == 1)   # the broker has it
    again = Hub(settings, store, reconnect_min=0.1).start()
    try:
        assert wait_until(lambda: again.counts["results_new"] == 1)
        assert [r["game"] for r in store.results_of(VENUE)] == finished_games(t.journal_path)
    finally:
        again.close()
        store.close()


def test_a_table_reports_over_tls_with_a_password(tmp_path):
    """The broker wants TLS (a café's own CA) and a user name: the table's [mqtt]
    tls, ca_file, username and password reach it."""
    from tests.cafe_fixtures import Mosquitto
    if shutil.which("mosquitto_passwd") is None:       # it comes with the broker
        if os.environ.get("CI"):
            pytest.fail("mosquitto is not installed (.ci/run installs it)")
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    folder = tmp_path / "broker"
    folder.mkdir()
    ca, key, cert = (str(folder / n) for n in ("ca.pem", "server.key", "server.pem"))
    quiet = {"check": True, "capture_output": True, "timeout": 30}
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=test café CA", "-keyout", str(folder / "ca.key"),
                    "-out", ca], **quiet)
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key,
                    "-out", str(folder / "server.csr")], **quiet)
    subprocess.run(["openssl", "x509", "-req", "-in", str(folder / "server.csr"), "-CA", ca,
                    "-CAkey", str(folder / "ca.key"), "-CAcreateserial", "-days", "1",
                    "-copy_extensions", "copy", "-out", cert], **quiet)
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(folder / "passwd"), "table-7",
                    "s3cret"], **quiet)
    broker = Mosquitto(str(folder), f"cafile {ca}\ncertfile {cert}\nkeyfile {key}\n"
                                    f"password_file {folder / 'passwd'}\n",
                       anonymous=False).start()
    store = Store(str(tmp_path / "cafe.db"))
    secure = dict(tls=True, ca_file=ca)
    hub = Hub(table_settings("127.0.0.1", broker.port, VENUE, "-", username="table-7",
                             password="s3cret", **secure), store, reconnect_min=0.1).start()
    wrong = SimulatedTable(str(tmp_path / "w"), table_settings(
        "127.0.0.1", broker.port, VENUE, "intruder", username="table-7", password="nope",
        **secure), durable=False, reconnect_min=0.1).start()
    t = SimulatedTable(str(tmp_path / "t"), table_settings(
        "127.0.0.1", broker.port, VENUE, "table-7", username="table-7", password="s3cret",
        **secure), seed=4, durable=False, reconnect_min=0.1).start()
    try:
        assert hub.connected.wait(scaled(5)) and t.publisher.connected.wait(scaled(5))
        t.play_game()
        assert wait_until(lambda: hub.counts["results_new"] == 1)
        assert not wrong.publisher.connected.is_set()
        assert [r["table"] for r in store.floor(VENUE)] == ["table-7"]
    finally:
        for table in (t, wrong):
            table.close()
        hub.close()
        store.close()
        broker.stop()
