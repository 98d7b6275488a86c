"""A paho-mqtt 2.x client from an ``[mqtt]`` section (credentials, TLS, back-off),
the same for a table and for the hub."""
from __future__ import annotations

import logging

import paho.mqtt.client as mqtt

KEEPALIVE = 30          # seconds; the broker declares a silent client gone after 1.5 x this


def make_client(settings: dict, client_id: str, reconnect_min: float = 1.0,
                **options) -> mqtt.Client:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, **options)
    if settings["username"]:
        c.username_pw_set(settings["username"], settings["password"] or None)
    if settings["tls"]:
        c.tls_set(ca_certs=settings["ca_file"] or None)
    # paho annotates the delays as int, but waits with floats: a test's short delay works
    c.reconnect_delay_set(min_delay=reconnect_min, max_delay=30)  # type: ignore[arg-type]
    return c


class Unreachable:
    """Says once, until the broker answers again, that it does not (paho's
    ``on_connect_fail``; the caller calls ``answered`` from its ``on_connect``)."""

    def __init__(self, settings: dict, who: str, log: logging.Logger):
        self.settings, self.who, self.log = settings, who, log
        self.said = False

    def __call__(self, _client, _userdata) -> None:
        if not self.said:
            self.log.warning("%s: the MQTT broker %s:%s does not answer; trying again in the "
                             "background", self.who, self.settings["host"], self.settings["port"])
            self.said = True

    def answered(self) -> None:
        self.said = False


def start(client: mqtt.Client, settings: dict) -> None:
    """Connect in the background: paho's thread keeps trying until the broker answers."""
    client.connect_async(settings["host"], settings["port"], keepalive=KEEPALIVE)
    client.loop_start()
