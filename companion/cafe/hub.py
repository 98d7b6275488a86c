"""The hub's ear: every table of one venue, from the broker into the store.

A persistent MQTT session (clean_session off, one fixed client id per venue):
while the hub is down the broker keeps the tables' QoS 1 results for it, and
the retained ``state`` and ``status`` of every table arrive again on connect.
Messages are handled on paho's network thread, one at a time (the store's
single writer); whoever watches (the web pages) is told after each change.
"""
from __future__ import annotations

import collections
import json
import logging
import threading
import time
from typing import Callable, Optional

import paho.mqtt.client as mqtt

from ..mqtt import topics
from .store import Store

log = logging.getLogger("companion.cafe")

Listener = Callable[[str, str], None]        # (what changed: "floor"/"results", table)


class Hub:
    def __init__(self, settings: dict, store: Store, clock: Callable[[], float] = time.time,
                 reconnect_min: float = 1.0):
        self.settings = settings
        self.venue = settings["venue"]
        self.store = store
        self.clock = clock
        self.listeners: list[Listener] = []
        self.lags: "collections.deque[float]" = collections.deque(maxlen=20000)
        self.counts = collections.Counter()
        self.connected = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                        client_id=f"coffee-rush-hub-{self.venue}", clean_session=False)
        if settings["username"]:
            c.username_pw_set(settings["username"], settings["password"] or None)
        if settings["tls"]:
            c.tls_set(ca_certs=settings["ca_file"] or None)
        c.reconnect_delay_set(min_delay=reconnect_min, max_delay=30)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        self.client = c

    def subscribe(self, fn: Listener) -> None:
        self.listeners.append(fn)

    def start(self) -> "Hub":
        self.client.connect_async(self.settings["host"], self.settings["port"], keepalive=30)
        self.client.loop_start()
        return self

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    # --- paho's thread ---------------------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("the broker refused the hub: %s", reason_code)
            return
        client.subscribe(topics.venue_filter(self.venue), qos=1)
        log.info("hub: listening to venue %s on %s:%s", self.venue, self.settings["host"],
                 self.settings["port"])
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.connected.is_set():
            log.warning("hub: lost the broker (%s); retrying", reason_code)
        self.connected.clear()

    def _on_message(self, client, userdata, msg) -> None:
        try:
            self.handle(msg.topic, msg.payload)
        except Exception:  # noqa: BLE001 - one bad message must not deafen the hub
            self.counts["failed"] += 1
            log.exception("hub: could not keep the message on %s", msg.topic)

    def handle(self, topic_name: str, payload: bytes) -> Optional[str]:
        """Keep one message; returns what it was (for tests and counts)."""
        where = topics.split(topic_name)
        if where is None or where[0] != self.venue:
            return None
        _venue, table, leaf = where
        now = self.clock()
        if leaf == "status":
            text = payload.decode("utf-8", "replace").strip()
            if text not in (topics.ONLINE, topics.OFFLINE):
                return self._bad(topic_name, "status is neither online nor offline")
            self.store.table_status(self.venue, table, text, now)
            self._tell("floor", table)
            return text
        if leaf not in ("state", "result", "events"):
            return None
        try:
            data = json.loads(payload)
        except ValueError:
            return self._bad(topic_name, "not JSON")
        if not isinstance(data, dict):
            return self._bad(topic_name, "not a JSON object")
        if leaf == "events":
            self.counts["events"] += 1
            return "event"
        if leaf == "state":
            status = data.get("status")
            if not isinstance(status, dict):
                return self._bad(topic_name, "a state without status")
            self.store.table_state(self.venue, table, data, now)
            if isinstance(status.get("updated_at"), (int, float)):
                self.lags.append(now - status["updated_at"])
            self._tell("floor", table)
            return "state"
        if not (isinstance(data.get("game"), int) and isinstance(data.get("ended_at"), str)
                and isinstance(data.get("ranking"), list)):
            return self._bad(topic_name, "a result without game, ended_at and ranking")
        kind = self.store.result(self.venue, table, data, topics.digest(data), now)
        self.counts["results_" + kind] += 1
        if kind != "duplicate":
            self._tell("results", table)
        return kind

    def _bad(self, topic_name: str, why: str) -> str:
        self.counts["bad"] += 1
        log.warning("hub: ignored a message on %s: %s", topic_name, why)
        return "bad"

    def _tell(self, what: str, table: str) -> None:
        for fn in list(self.listeners):
            try:
                fn(what, table)
            except Exception:  # noqa: BLE001
                log.exception("hub listener %r failed", fn)

    def lag_percentiles(self) -> dict:
        lags = sorted(self.lags)
        if not lags:
            return {"samples": 0}
        def pct(p: float) -> float:
            return round(lags[min(len(lags) - 1, int(p / 100 * len(lags)))], 4)
        return {"samples": len(lags), "p50": pct(50), "p99": pct(99), "max": round(lags[-1], 4)}
