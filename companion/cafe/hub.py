"""The hub's ear: every table of one venue, from the broker into the store.

A persistent MQTT session (clean_session off, one fixed client id per venue):
while the hub is down the broker keeps the tables' QoS 1 results for it, and
the retained ``state`` and ``status`` of every table arrive again on connect.

paho's network thread only sorts messages; a writer thread keeps them in the
store, a batch per transaction (a burst of states from twenty tables costs one
commit, and only each table's latest state is written). A result is
acknowledged to the broker (manual PUBACK) only once it is committed, so a hub
that dies in between gets it again. Whoever watches (the web pages) is told
after each batch.
"""
from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from collections.abc import Callable

from companion.outputs.mqtt import topics
from companion.core.rules.json_text import read as read_json
from companion.outputs.mqtt import connection
from companion.outputs.mqtt.connection import make_client
from .store import Store

log = logging.getLogger("companion.cafe")

Listener = Callable[[str, str], None]        # (what changed: "floor"/"results", table)
_STOP = object()


class Hub:
    def __init__(self, settings: dict, store: Store, clock: Callable[[], float] = time.time,
                 reconnect_min: float = 1.0):
        self.settings = settings
        self.venue = settings["venue"]
        self.store = store
        self.clock = clock
        self.listeners: list[Listener] = []
        self.lags: collections.deque[float] = collections.deque(maxlen=20000)
        self.counts: collections.Counter = collections.Counter()
        #: set once the broker granted the venue's subscription (not merely on connect: a
        #: result published between the two would pass a hub with no session yet)
        self.connected = threading.Event()
        self._inbox: queue.Queue = queue.Queue()
        self._writer: threading.Thread | None = None
        self._closing = False
        c = make_client(settings, f"coffee-rush-hub-{self.venue}", reconnect_min,
                        clean_session=False, manual_ack=True)
        self._unreachable = connection.Unreachable(settings, "hub", log)
        c.on_connect_fail = self._unreachable
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        self.client = c

    def subscribe(self, fn: Listener) -> None:
        self.listeners.append(fn)

    def start(self) -> Hub:
        self._writer = threading.Thread(target=self._write_loop, name="hub-writer", daemon=True)
        self._writer.start()
        connection.start(self.client, self.settings)
        return self

    def close(self) -> None:
        self._closing = True
        self.client.disconnect()
        self.client.loop_stop()
        if self._writer is not None:
            self._inbox.put(_STOP)
            self._writer.join(5)

    # --- paho's thread: sort, never wait ------------------------------------------------

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("the broker refused the hub: %s", reason_code)
            return
        self._unreachable.answered()
        client.subscribe(topics.venue_filter(self.venue), qos=1)

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties) -> None:
        if any(rc.is_failure for rc in reason_codes):
            log.warning("the broker refused the hub's subscription: %s", reason_codes)
            return
        log.info("hub: listening to venue %s on %s:%s", self.venue, self.settings["host"],
                 self.settings["port"])
        self.connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.connected.is_set() and not self._closing:
            log.warning("hub: lost the broker (%s); retrying", reason_code)
        self.connected.clear()

    def _on_message(self, client, userdata, msg) -> None:
        where = topics.split(msg.topic)
        if where is not None and where[2] in ("state", "status", "result"):
            self._inbox.put((msg.topic, msg.payload, msg.mid, msg.qos, self.clock()))
            return
        if where is not None and where[2] == "events":
            self.counts["events"] += 1
        if msg.qos:
            client.ack(msg.mid, msg.qos)

    # --- the writer thread --------------------------------------------------------------

    def _write_loop(self) -> None:
        while True:
            batch = topics.next_batch(self._inbox)
            stop = _STOP in batch
            try:
                self.handle_batch([b for b in batch if b is not _STOP])
            except Exception:  # noqa: BLE001 - the hub keeps listening (results come again)
                self.counts["failed"] += 1
                log.exception("hub: could not keep %d messages", len(batch))
            if stop:
                return

    def handle(self, topic_name: str, payload: bytes) -> str | None:
        """Keep one message now; what it was (tests, and the ``counts``)."""
        return self.handle_batch([(topic_name, payload, 0, 0, self.clock())])[0]

    def handle_batch(self, batch: list[tuple]) -> list[str | None]:
        """Parse, store in one transaction, then acknowledge and tell the watchers."""
        kinds, items, where_of = self._parse_batch(batch)
        stored = self.store.write(self.venue, items) if items else []
        changed = self._note_stored(kinds, where_of, items, stored)
        for _topic, _payload, mid, qos, _at in batch:
            if qos:
                self.client.ack(mid, qos)
        for what, table in sorted(changed):
            self._tell(what, table)
        return kinds

    def _parse_batch(self, batch: list[tuple]
                     ) -> tuple[list[str | None], list[tuple], list[int]]:
        """What each message is, the store items to write (only the newest state of each
        table), and the message each item came from."""
        latest_state = {}
        for i, (topic_name, *_rest) in enumerate(batch):
            if topic_name.endswith("/state"):
                latest_state[topic_name] = i
        kinds: list[str | None] = []
        items, where_of = [], []
        for i, (topic_name, payload, _mid, _qos, at) in enumerate(batch):
            item, kind = self._parse(topic_name, payload, at)
            if kind == "state" and latest_state[topic_name] != i:
                item = None                      # a newer state of the table follows
            kinds.append(kind)
            if item is not None:
                where_of.append(i)
                items.append(item)
        return kinds, items, where_of

    def _note_stored(self, kinds: list[str | None], where_of: list[int], items: list[tuple],
                     stored: list) -> set[tuple]:
        """Count what was stored (a result's outcome becomes its message's kind in
        ``kinds``; ``where_of``: each item's message) and measure each state's lag; the
        (page, table) pairs whose watchers must be told."""
        now = self.clock()
        changed = set()
        for i, item, outcome in zip(where_of, items, stored, strict=True):
            if item[0] == "result" and outcome is not None:     # a result's outcome is a word
                kinds[i] = outcome
                self.counts["results_" + outcome] += 1
                if outcome != "duplicate":
                    changed.add(("results", item[1]))
            else:
                changed.add(("floor", item[1]))
                if item[0] == "state":
                    updated = (item[2].get("status") or {}).get("updated_at")
                    if isinstance(updated, (int, float)):
                        self.lags.append(now - updated)
        return changed

    def _parse(self, topic_name: str, payload: bytes, at: float):
        """(store item or None, what it is) for one message."""
        where = topics.split(topic_name)
        if where is None or where[0] != self.venue:
            return None, None
        table, leaf = where[1], where[2]
        if leaf == "status":
            text = payload.decode("utf-8", "replace").strip()
            if text not in (topics.ONLINE, topics.OFFLINE):
                return None, self._bad(topic_name, "status is neither online nor offline")
            return ("status", table, text, at), text
        if leaf not in ("state", "result"):
            return None, None
        try:
            data = read_json(payload)
        except ValueError as exc:                 # where and what, in our words
            return None, self._bad(topic_name, f"not JSON ({exc})")
        if not isinstance(data, dict):
            return None, self._bad(topic_name, "not a JSON object")
        if leaf == "state":
            if not isinstance(data.get("status"), dict):
                return None, self._bad(topic_name, "a state without status")
            return ("state", table, data, at), "state"
        if not (isinstance(data.get("game"), int) and isinstance(data.get("ended_at"), str)
                and isinstance(data.get("started_at"), str)
                and isinstance(data.get("ranking"), list)):
            return None, self._bad(topic_name, "a result without game, started_at, "
                                               "ended_at and ranking")
        return ("result", table, data, topics.digest(data), at), "result"

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
