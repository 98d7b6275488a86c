"""The MQTT output: the table reports to the café's broker (paho-mqtt 2.x).

An output like the lights: it subscribes to the table loop. On the loop's
thread it only notes the update in a queue (never a network call, never a
wait); its own thread turns updates into messages, and paho's network thread
talks to the broker and reconnects with a back-off. A broker that is down or
slow therefore never slows or stops the table: while offline, events are
skipped (the retained ``state`` catches up on reconnect) and results wait in
the journal.

Results come from the journal, never from memory: after every connect (a
restart, a broker back) each finished game whose result the broker has not
acknowledged (PUBACK) is published again; while connected, an update that may
change a result has that game's result published again (only the game being
played can change: a game a newer one followed is settled for good). The
"acknowledged" marks live in a small file beside the journal
(``<journal>.mqtt-acked.json``), written only by this publisher: the journal
stays the table's truth, the file only saves re-sending. It keeps the marks of
the latest few dozen games and a line under the older ones (``through``), so
neither it nor the work after a game grows with the journal. A lost or damaged
file costs duplicates, which the hub recognises by (table, game id).
"""
from __future__ import annotations

import collections
import json
import logging
import os
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, assert_never
from collections.abc import Callable, Iterator

import paho.mqtt.client as mqtt

from companion.core.journal import GameRecord, Journal, JournalError
from companion.core.rules.json_text import read as read_json
from companion.core.events import DeviceStatus
from companion.core.rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardEnrolled, CardIdentified,
                                             CardsToDraw, Corrected, DeviceStatusChanged,
                                             DislikesTaken, DrawsDismissed, FinalTurnBegins,
                                             GameOver, GameStarted, Happening, NotYourTurn,
                                             OrderCompleted, OrdersMovedDown, RankingChanged,
                                             Redone, ShopClosed, ShopReopened, Stalled, TablePaused,
                                             TableResumed, TokensGained, TokensSpent, TurnChanged,
                                             UnknownCard, UpgradeActivated, Undone)
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly
from companion.core.snapshot import Snapshot
from companion.core.loop import Update
from . import connection, topics
from .connection import make_client

log = logging.getLogger("companion.outputs.mqtt")

STATE_GAP = 0.1        # seconds: at most ten states a second; what comes meanwhile is merged


def changes_result(h: Happening) -> bool:
    """Whether a happening may change a finished game's result (then the results are
    published again). Exhaustive: a new happening fails mypy until MQTT decides."""
    match h:
        case GameOver() | RankingChanged() | Undone() | Redone() | Corrected():
            return True
        case (GameStarted() | CardIdentified() | OrderCompleted() | TokensGained()
              | TokensSpent() | UpgradeActivated() | CakePlaced() | CakeCardGained()
              | CakeCardPlayed() | CakesReturned() | CardsToDraw() | OrdersMovedDown()
              | DislikesTaken() | ShopClosed() | ShopReopened() | FinalTurnBegins()
              | TurnChanged() | Stalled() | NotYourTurn() | UnknownCard() | CardEnrolled()
              | DeviceStatusChanged() | TablePaused() | TableResumed() | DrawsDismissed()
              | GameEndedEarly() | GameBroughtBack()):
            return False
        case _:
            assert_never(h)


@dataclass(frozen=True)
class _Seen:
    """An update as the loop handed it, with the journal's position at that moment."""
    update: Update
    game_id: int | None
    seq: int | None
    at: float
    seat_colours: tuple[str, ...] = ()     # the game's, as chosen at setup (the floor page)


_CONNECTED, _DISCONNECTED, _ACKS, _STOP = "connected", "disconnected", "acks", "stop"


#: results acknowledged one by one, at most (then the line ``AckFile.through`` moves on)
ACKS_KEPT = 64


class AckFile:
    """Which version (``topics.result_version``) of each recent game's result the broker
    acknowledged, and a line under the older games: every game numbered up to
    ``through`` is settled (its result acknowledged, or it has none) and can change no
    more (a newer game followed it). A table's journal grows by a game every half hour
    for years: the marks of settled games are dropped, so that the file, its writes and
    the memory holding it stay the size of a few dozen games (issue 19)."""

    def __init__(self, path: str):
        self.path = path
        self.acked: dict[str, str] = {}
        self.through = 0
        self._warned = False
        try:
            with open(path, "rb") as fh:
                data = read_json(fh.read())       # what is wrong, in our words
            self.acked = {str(int(k)): str(v) for k, v in data["acked"].items()}
            self.through = int(data.get("through", 0))
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            log.warning("%s is unreadable (%s): every finished game is sent again; "
                        "the hub keeps each one once", path, exc)

    def get(self, game_id: int) -> str | None:
        return self.acked.get(str(game_id))

    def mark(self, game_id: int, digest: str) -> None:
        self.acked[str(game_id)] = digest
        self._save()

    def settled_through(self, game_id: int) -> None:
        """Every game up to ``game_id`` is settled: their marks go."""
        if game_id <= self.through:
            return
        self.through = game_id
        self.acked = {k: v for k, v in self.acked.items() if int(k) > game_id}
        self._save()

    def _save(self) -> None:
        tmp = self.path + ".tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(json.dumps({"through": self.through, "acked": self.acked}))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self._warned = False
        except OSError as exc:
            if not self._warned:      # a full disk: results are simply sent again later
                log.warning("cannot keep MQTT acknowledgements in %s (%s)", self.path, exc)
                self._warned = True


#: finished games read from the journal at a time when looking for results to send
RESULTS_PAGE = 64


def finished_games(journal: Journal, page: int = RESULTS_PAGE, after: int = 0,
                   last: int | None = None) -> Iterator[GameRecord]:
    """The journal's finished games numbered after ``after`` up to ``last`` (default: the
    newest game's), oldest first, ``page`` game numbers at a time: a table's journal grows
    all day, and reading it whole held every game's record in memory at once (issue 19:
    the service's memory grew with the journal)."""
    if last is None:
        last = newest_game(journal)
    low = after
    while low < last:
        yield from journal.games("WHERE g.ended_at IS NOT NULL AND g.id > ? AND g.id <= ?",
                                 (low, low + page))
        low += page


def newest_game(journal: Journal) -> int:
    """The newest game's number (0: none yet): the only game that may still change."""
    newest = journal.games(limit=1)
    return newest[0].id if newest else 0


class MqttPublisher:
    """Publishes a table's state, events and results; see the module text. An
    ``outputs.Output``."""

    name = "MQTT"

    def __init__(self, settings: dict, journal_path: str, snapshot: Snapshot,
                 clock: Callable[[], float] = time.time, reconnect_min: float = 1.0,
                 client: mqtt.Client | None = None):
        """``snapshot``: the table loop's (``loop.snapshot``), the table as it is now."""
        self.settings = settings
        #: the café's and this table's names in the topics (``name`` stays "MQTT": the
        #: output's name in ``outputs.Outputs.status``)
        self.venue, self.table = settings["venue"], settings["table"]
        self.journal_path = journal_path
        self.clock = clock
        self.acks = AckFile(journal_path + ".mqtt-acked.json")
        self.counts = {"events": 0, "events_skipped": 0, "states": 0, "results": 0,
                       "results_acked": 0}
        self.connected = threading.Event()
        self._inbox: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._pending: dict[int, tuple[int, str]] = {}      # mid -> (game id, version)
        self._acks_in: collections.deque[int] = collections.deque()   # PUBACKs (paho's thread)
        #: the loop's last snapshot (the loop's thread): a hand-made update's game and step
        self._shared = snapshot
        self._latest = self._noted(Update(None, snapshot.table), snapshot)
        self._devices: dict[str, str] = {}
        self._started: dict[int, str | None] = {}
        self._reader: Journal | None = None
        self._closing = False
        self._stopping = threading.Event()
        self.client = client or self._client(reconnect_min)

    # --- paho ------------------------------------------------------------------------

    def _topic(self, leaf: str) -> str:
        return topics.topic(self.venue, self.table, leaf)

    def _client(self, reconnect_min: float) -> mqtt.Client:
        c = make_client(self.settings, f"coffee-rush-{self.venue}-{self.table}", reconnect_min,
                        clean_session=True)
        c.will_set(self._topic("status"), topics.OFFLINE, qos=1, retain=True)
        c.max_queued_messages_set(1000)     # bounded memory while the broker is away
        self._unreachable = connection.Unreachable(self.settings, "MQTT", log)
        c.on_connect_fail = self._unreachable
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        return c

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            log.warning("MQTT broker %s refused the table: %s", self.settings["host"],
                        reason_code)
            return
        self._unreachable.answered()
        log.info("MQTT: connected to %s:%s as %s/%s", self.settings["host"],
                 self.settings["port"], self.venue, self.table)
        self.connected.set()
        self._inbox.put(_CONNECTED)

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self.connected.is_set() and not self._closing:
            log.warning("MQTT: lost the broker (%s); the table goes on, retrying",
                        reason_code)
        self.connected.clear()
        self._inbox.put(_DISCONNECTED)

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        # paho calls this holding its own locks: note the ack, and wake the publisher's
        # thread only while results are in flight (events' acks matter to nobody)
        self._acks_in.append(mid)
        if self._pending:
            self._inbox.put(_ACKS)

    # --- the table loop's side (its thread: note and return) --------------------------

    def attach(self, loop) -> None:
        loop.subscribe(self.on_update)

    def _noted(self, u: Update, snap: Snapshot) -> _Seen:
        """``u`` with the game and the journal's step in it, as the snapshot says."""
        game_id = snap.game_id
        return _Seen(u, game_id, snap.version.step if game_id is not None else None,
                     self.clock(), tuple(snap.seat_colours))

    def __call__(self, u: Update) -> None:
        if u.snapshot is not None:     # the loop's (an update made by hand has none)
            self._shared = u.snapshot
        self._inbox.put(self._noted(u, self._shared))

    # --- running -----------------------------------------------------------------------

    def on_update(self, update: Update) -> None:
        self(update)

    def status(self) -> str:
        """"connected" to the hub, or "offline" (it keeps trying)."""
        return "connected" if self.connected.is_set() else "offline"

    def start(self, snapshot: Snapshot | None = None) -> MqttPublisher:
        """Connect and publish the table as ``snapshot`` shows it (else as it was when
        this was built)."""
        if snapshot is not None:       # before the publisher's thread: nobody reads it yet
            self._shared = snapshot
            self._latest = self._noted(Update(None, snapshot.table), snapshot)
        self._thread = threading.Thread(target=self._run, name="mqtt-publisher", daemon=True)
        self._thread.start()
        connection.start(self.client, self.settings)
        return self

    def close(self, timeout: float = 2.0) -> None:
        """Say ``offline`` (if the broker is there), then stop both threads."""
        self._closing = True
        self._stopping.set()
        self._inbox.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        if self._reader is not None:
            self._reader.close()

    def _run(self) -> None:
        while True:
            batch = topics.next_batch(self._inbox)
            try:
                if self._handle(batch):
                    return
            except Exception:  # noqa: BLE001 - the publisher must outlive a surprise
                log.exception("MQTT publisher failed on %d items", len(batch))
            # a pause before the next batch merges a burst of updates into one state
            self._stopping.wait(STATE_GAP)

    def _handle(self, batch: list) -> bool:
        state_due = every_result = stop = False
        changed: set[int] = set()         # games whose result an update may have changed
        self._take_acks()
        for item in batch:
            if isinstance(item, _Seen):
                state_due = True
                if self._seen(item) and item.game_id is not None:
                    changed.add(item.game_id)
            elif item == _CONNECTED:
                self._pending.clear()        # anything in flight is sent again from the journal
                self.client.publish(self._topic("status"), topics.ONLINE, qos=1, retain=True)
                self._discovery()
                state_due = every_result = True
            elif item == _STOP:
                stop = True
        if self.connected.is_set():
            if state_due:
                self._publish_state()
            if every_result or changed:
                self._publish_results(None if every_result else changed)
        if stop and self.connected.is_set():
            info = self.client.publish(self._topic("status"), topics.OFFLINE, qos=1,
                                       retain=True)
            info.wait_for_publish(1.0)
        return stop

    def _seen(self, seen: _Seen) -> bool:
        """Publish the update's event; True if a result may have changed."""
        u = seen.update
        if isinstance(u.event, DeviceStatus):       # a device, or the journal paused / back
            self._devices[u.event.device] = u.event.status
        self._latest = seen
        if not u.happened:
            return False
        if not self.connected.is_set():
            self.counts["events_skipped"] += 1
            return False
        seq = seen.seq if u.accepted else None
        self.client.publish(self._topic("events"), topics.dumps(topics.event_payload(
            u, game_id=seen.game_id, seq=seq, at=seen.at)), qos=1)
        self.counts["events"] += 1
        return any(changes_result(h) for h in u.happened)

    def _publish_state(self) -> None:
        s = self._latest
        payload = topics.state_payload(
            s.update.table, venue=self.venue, name=self.table, game_id=s.game_id, seq=s.seq,
            started_at=self._started_at(s.game_id), devices=self._devices, updated_at=s.at,
            seat_colours=s.seat_colours)
        self.client.publish(self._topic("state"), topics.dumps(payload), qos=0, retain=True)
        self.counts["states"] += 1

    # --- results from the journal -------------------------------------------------------

    def _journal(self) -> Journal | None:
        """A read-only connection of our own (the loop owns the writing one)."""
        if self._reader is None:
            try:
                self._reader = Journal(self.journal_path, readonly=True)
            except JournalError as exc:
                log.warning("MQTT: cannot read the journal for results: %s", exc)
        return self._reader

    def _started_at(self, game_id: int | None) -> str | None:
        if game_id is None:
            return None
        if game_id not in self._started:
            journal = self._journal()
            try:
                record = journal.game(game_id) if journal else None
            except JournalError as exc:
                log.warning("MQTT: %s", exc)
                return None
            # this game's only: a table's journal grows all day (issue 19)
            self._started = {game_id: record.started_at if record else None}
        return self._started.get(game_id)

    def _publish_results(self, games: set[int] | None = None) -> None:
        """Publish each finished game's result that the broker has not acknowledged as it
        is now: of ``games`` (the games updates may have changed), or of every game after
        the settled ones (``None``: after a connect; also once ``ACKS_KEPT`` marks are
        kept, which moves the line under the settled games on)."""
        journal = self._journal()
        if journal is None:
            return
        in_flight = set(self._pending.values())
        try:
            if games is None or len(self.acks.acked) >= ACKS_KEPT:
                self._publish_unsettled(journal, in_flight)
            else:
                for game_id in sorted(games):
                    g = journal.game(game_id)
                    if g is not None and g.ended_at is not None:
                        self._publish_if_new(journal, g, in_flight)
        except JournalError as exc:
            log.warning("MQTT: results wait: %s", exc)
        self._take_acks()                      # a PUBACK may have beaten us to it

    def _publish_unsettled(self, journal: Journal, in_flight: set) -> None:
        """Every finished game after ``acks.through``; the line moves on over those found
        settled, up to the first that is not (or the newest game, which may change)."""
        newest, line, settled = newest_game(journal), self.acks.through, True
        for g in finished_games(journal, after=self.acks.through, last=newest):
            settled = self._publish_if_new(journal, g, in_flight) and settled \
                and g.id < newest
            if settled:
                line = g.id
        self.acks.settled_through(line)

    def _publish_if_new(self, journal: Journal, g: GameRecord, in_flight: set) -> bool:
        """Publish ``g``'s result unless the broker has it as it is now (or it is on its
        way); True when there is nothing left to do for it (no result, or acknowledged)."""
        d = topics.result_version(g)
        if not g.ranking or self.acks.get(g.id) == d:
            return True
        if (g.id, d) not in in_flight:
            payload = topics.result_payload(g, venue=self.venue, name=self.table,
                                            expansion=self._expansion(journal, g.id))
            self._publish_result(g.id, d, payload)
        return False

    def _expansion(self, journal: Journal, game_id: int) -> str | None:
        """The expansion in the game's setup line (the journal keeps it there); None
        for a game whose lines cannot be read (its result still counts)."""
        try:
            setup = json.loads(journal.lines(game_id)[0])
        except (JournalError, ValueError, IndexError) as exc:
            log.warning("MQTT: game %s: setup unreadable (%s)", game_id, exc)
            return None
        return setup.get("expansion") if isinstance(setup, dict) else None

    def _publish_result(self, game_id: int, version: str, payload: dict) -> None:
        info = self.client.publish(self._topic("result"), topics.dumps(payload), qos=1)
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            self._pending[info.mid] = (game_id, version)
            self.counts["results"] += 1

    def _take_acks(self) -> None:
        """Mark the results among the PUBACKs that came in (paho's thread noted them)."""
        while self._acks_in:
            done = self._pending.pop(self._acks_in.popleft(), None)
            if done is not None:
                self.acks.mark(*done)
                self.counts["results_acked"] += 1

    # --- Home Assistant -----------------------------------------------------------------

    def _discovery(self) -> None:
        prefix = self.settings["discovery_prefix"]
        if not prefix:
            return
        for config_topic, payload in discovery_configs(prefix, self.venue, self.table):
            self.client.publish(config_topic, topics.dumps(payload), qos=1, retain=True)


def discovery_configs(prefix: str, venue: str, name: str) -> list[tuple[str, dict]]:
    """Home Assistant MQTT discovery: the table as a device with two sensors."""
    uid = f"coffee_rush_{venue}_{name}".replace("-", "_")
    device = {"identifiers": [uid], "name": f"Coffee Rush {name}",
              "manufacturer": "Coffee Rush Table Companion", "model": venue}
    common = {"state_topic": topics.topic(venue, name, "state"),
              "availability_topic": topics.topic(venue, name, "status"),
              "payload_available": topics.ONLINE, "payload_not_available": topics.OFFLINE,
              "device": device}
    sensors = [("phase", "Phase", "{{ value_json.status.phase }}", "mdi:coffee"),
               ("turn", "Whose turn", "{{ value_json.active or '-' }}", "mdi:account")]
    return [(f"{prefix}/sensor/{uid}_{key}/config",
             {**common, "name": label, "unique_id": f"{uid}_{key}",
              "value_template": template, "icon": icon})
            for key, label, template, icon in sensors]


def build_publisher(cfg, snapshot: Snapshot, journal_path: str) -> MqttPublisher | None:
    """The publisher the config asks for, starting from the loop's ``snapshot``, or None
    when ``[mqtt] host`` is empty."""
    if not cfg["mqtt"]["host"]:
        return None
    return MqttPublisher(cfg["mqtt"], journal_path, snapshot)
