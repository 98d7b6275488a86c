"""OpenSSL's modules stay out of the service while nothing configured needs them (issue 19:
about 5 MB resident), and every feature works as before (companion/appliance/openssl.py).

Each service runs in a process of its own: what a process has imported is the point."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from companion.appliance import config, openssl

from cafe_fixtures import Mosquitto, wait_until

# what the service does while OpenSSL is out: the phone view on plain http (its live page,
# a phone pairing and acting: none of it needs ``ssl``), hashlib's digests from Python's own
# modules, a pairing code checked with hmac, tokens from secrets
SERVICE = """
import json, socket, sys
from companion.appliance import config, openssl

cfg = config.defaults()
cfg["journal"]["path"] = sys.argv[1] + "/journal.db"
cfg["catalog"]["paths"] = []
cfg["seats"]["driver"] = "simulated"
cfg["pixels"]["driver"] = "none"
cfg["sound"]["enabled"] = False
cfg["web"].update(bind="127.0.0.1", port=0, mdns=False)
cfg["mqtt"].update(json.loads(sys.argv[2]))
kept = openssl.keep_out(cfg)              # as service.main does once the config is loaded
import hashlib
from companion.appliance.service import Service
from companion.outputs.web.pairing import Pairing
svc = Service(cfg, headless=True)
svc.start_outputs()
svc.start_web()
svc.loop.start()
loaded = lambda: sorted(m for m in ("ssl", "_ssl", "_hashlib") if m in sys.modules)
out = {"kept": sorted(kept), "started": loaded(),
       "sha256": hashlib.sha256(b"coffee").hexdigest(),
       "md5": hashlib.md5(b"coffee", usedforsecurity=False).hexdigest()}
assert Pairing().code.isdigit()              # a code drawn by secrets
pairing = Pairing(code="123456")
_, token = pairing.pair("123456", "a")
out["paired"] = (pairing.pair("654321", "b")[1] is None and token is not None
                 and pairing.phone(token) is not None and pairing.phone("nope") is None)
from companion.outputs.mqtt.publisher import MqttPublisher
out["mqtt"] = [o.connected.wait(10) for o in svc.outputs if isinstance(o, MqttPublisher)]
port = int(svc.web.url.rsplit(":", 1)[1])
with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
    s.sendall(b"GET /api/events?lang=en HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n")
    got = b""
    while b"\\ndata: " not in got:
        more = s.recv(65536)
        if not more:
            break
        got += more
out["events"] = got.split(b"\\r\\n", 1)[0].decode() + (" data" if b"\\ndata: " in got else "")
import http.client
phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
phone.request("POST", "/api/pair", body=json.dumps({"code": svc.web.pairing.code}),
              headers={"Content-Type": "application/json"})
token = json.loads(phone.getresponse().read())["token"]
phone.request("POST", "/api/action", body=b'{"do": "setup", "edition": "original", '
              b'"players": ["Ana", "Ben"], "start": "Ana"}',
              headers={"Authorization": "Bearer " + token})
answer = phone.getresponse()
out["action"] = [answer.status, json.loads(answer.read())["accepted"]]
phone.close()
out["after_phone"] = loaded()
out["web_stack"] = sorted(m for m in ("asyncio", "anyio", "starlette", "h11", "http.server",
                                      "socketserver") if m in sys.modules)
svc.shutdown()
print(json.dumps(out))
"""


def run_service(tmp_path, mqtt: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", SERVICE, str(tmp_path), json.dumps(mqtt)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def retained_topics(port: int) -> set[str]:
    """The topics a broker keeps (read once the service's process has ended)."""
    import paho.mqtt.client as mqtt
    seen: set[str] = set()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_message = lambda _c, _u, message: seen.add(message.topic)
    client.connect("127.0.0.1", port)
    client.subscribe("coffee-rush/#")
    client.loop_start()
    try:
        wait_until(lambda: len(seen) >= 2)
    finally:
        client.loop_stop()
        client.disconnect()
    return seen


DIGESTS = {"sha256": "37290d74ac4d186e3a8e5785d259d2ec04fac91ae28092e7620ec8bc99e830aa",
           "md5": "24eb05d18318ac2db8b2b959315d10f2"}   # (md5sum, sha256sum)


def test_without_mqtt_openssl_stays_out_phones_and_all_and_the_rest_works(tmp_path):
    got = run_service(tmp_path, {"host": ""})
    assert got["kept"] == ["_hashlib", "_ssl", "ssl"]
    assert got["started"] == []                        # table, screen outputs, phone view up
    assert {k: got[k] for k in DIGESTS} == DIGESTS     # Python's own sha256 and md5
    assert got["paired"] and got["mqtt"] == []
    assert got["events"] == "HTTP/1.1 200 OK data"     # the live page streams
    assert got["action"] == [200, True]                # a paired phone acts
    assert got["after_phone"] == []                    # and OpenSSL stayed out throughout
    assert got["web_stack"] == []                      # served on threads (issue 19)


def test_with_mqtt_without_tls_openssl_stays_out_and_it_publishes(tmp_path):
    (tmp_path / "broker").mkdir()
    broker = Mosquitto(str(tmp_path / "broker")).start()
    try:
        got = run_service(tmp_path, {"host": "127.0.0.1", "port": broker.port})
        seen = retained_topics(broker.port)
    finally:
        broker.stop()
    assert got["kept"] == ["_hashlib", "_ssl", "ssl"]
    assert got["started"] == []          # connected, published: paho read and wrote plain
    assert got["after_phone"] == [] and got["action"] == [200, True]   # phones too
    assert {k: got[k] for k in DIGESTS} == DIGESTS
    assert got["events"] == "HTTP/1.1 200 OK data" and got["mqtt"] == [True]
    assert {t.rsplit("/", 1)[1] for t in seen} >= {"state", "status"}   # the table's, retained


def test_paho_gets_the_real_ssl_for_tls_and_the_plain_names_without_it(monkeypatch):
    import ssl

    import paho.mqtt.client as mqtt

    from companion.outputs.mqtt import connection
    settings = dict(config.defaults()["mqtt"])
    monkeypatch.setattr(mqtt, "ssl", None)            # as imported while ssl is kept out
    connection.make_client(settings, "t1")
    assert mqtt.ssl is connection.PlainSockets
    assert not issubclass(BlockingIOError, (mqtt.ssl.SSLWantReadError,
                                            mqtt.ssl.SSLWantWriteError))
    settings["tls"] = True                            # a later config with TLS
    client = connection.make_client(settings, "t2")
    assert mqtt.ssl is ssl and client._ssl_context is not None


def test_with_tls_configured_nothing_is_kept_out():
    cfg = config.defaults()
    cfg["mqtt"].update(host="broker.example", tls=True)
    try:
        assert openssl.keep_out(cfg) == frozenset()
        assert openssl._WithoutOpenSSL not in sys.meta_path
    finally:
        openssl.let_in(openssl.HASHLIB | openssl.SSL)


def test_a_later_config_with_tls_lets_openssl_in_again():
    plain, tls = config.defaults(), config.defaults()
    tls["mqtt"].update(host="broker.example", tls=True)
    try:
        openssl.keep_out(plain)            # (in this process they are loaded already: kept
        openssl._kept.update(openssl.SSL)  # out as if they were not)
        if openssl._WithoutOpenSSL not in sys.meta_path:
            sys.meta_path.insert(0, openssl._WithoutOpenSSL)
        saved = sys.modules.pop("_ssl")
        try:
            with pytest.raises(ModuleNotFoundError, match="kept out: no TLS configured"):
                import _ssl  # noqa: F401
            assert openssl.keep_out(tls) == frozenset()
            import _ssl  # noqa: F401,F811
        finally:
            sys.modules["_ssl"] = saved
    finally:
        openssl.let_in(openssl.HASHLIB | openssl.SSL)
    assert openssl._WithoutOpenSSL not in sys.meta_path


def test_doctor_says_whether_openssl_loads():
    from companion.appliance import doctor
    cfg = config.defaults()
    said = [doctor.check_openssl(cfg)[0].found]
    cfg["mqtt"].update(host="broker.example")
    said.append(doctor.check_openssl(cfg)[0].found)
    cfg["mqtt"].update(tls=True)
    said.append(doctor.check_openssl(cfg)[0].found)
    assert "stays out of the service" in said[0] and said[1] == said[0]   # MQTT plain too
    assert said[2].startswith("[mqtt] tls = true: the service loads OpenSSL")


# `coffee-companion run` itself (service.main keeps OpenSSL out once the config is loaded):
# once every adapter started, neither OpenSSL library is mapped into the process
RUN = """
import os, sys
from companion.appliance.service import Service
started = Service.start_adapters
def start_adapters(self):
    started(self)
    with open("/proc/self/maps") as fh:
        maps = fh.read()
    print("libcrypto" in maps, "libssl" in maps, self.web is not None, flush=True)
    os._exit(0)
Service.start_adapters = start_adapters
sys.argv = ["coffee-companion", "--config", sys.argv[1], "run", "--headless"]
from companion.commands.cli import main
sys.exit(main())
"""


def test_the_run_command_maps_no_openssl_without_tls(tmp_path):
    from service_helpers import table_config
    from pathlib import Path
    cfg = Path(table_config(tmp_path, extra='[mqtt]\nhost = ""\n'))    # the phone view on
    cfg.write_text(cfg.read_text(encoding="utf-8").replace(
        "[web]\nenabled = false", '[web]\nbind = "127.0.0.1"\nport = 0\nmdns = false'),
        encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", RUN, str(cfg)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True"], done.stdout + done.stderr
