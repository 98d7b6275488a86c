"""A simulated table for the café: the demo's bots at a real table loop, journal
and MQTT publisher, so a hub can be tried, tested and measured without a café.

``SimulatedTable.play_game`` plays one whole game on the caller's thread (tests);
``SimulatedTable.start_paced`` keeps playing games on threads at a pace, one
input applied before the next, like ``demo`` on the screen (the benchmark).
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from companion.core import events as ev
from companion.appliance.demo import Bots, _prepare, _setup
from companion.core.journal import Journal
from companion.outputs.mqtt.publisher import MqttPublisher
from companion.core.rules.turn import is_stalled
from companion.core.session import Session
from companion.core.loop import TableLoop, Update
from timing import scaled


class SimulatedTable:
    def __init__(self, folder: str, settings: dict, seed: int = 1, players: int = 3,
                 edition: str = "original", expansion: str | None = None,
                 durable: bool = True,
                 reconnect_min: float = 1.0, publish: bool = True):
        self.settings = settings
        self.name = settings["table"]
        self.edition, self.expansion, self.players = edition, expansion, players
        self.rng, self.names, _scratch, _db, catalog, self.tags = _prepare(
            edition, players, seed, os.path.join(folder, "unused"))
        #: the seats' colours the wizard would post with the setup (none: the box's order)
        self.seat_colors: tuple[str, ...] = ()
        os.makedirs(folder, exist_ok=True)
        self.journal_path = os.path.join(folder, f"{self.name}.db")
        self.journal = Journal(self.journal_path, durable=durable)
        self.session = Session(self.journal, catalog)
        self.loop = TableLoop(self.session)
        self.publisher: MqttPublisher | None = None
        if publish:
            self.publisher = MqttPublisher(settings, self.journal_path, self.loop.snapshot,
                                           reconnect_min=reconnect_min)
            self.publisher.attach(self.loop)
        self.latencies: list[float] = []          # tap/hold -> every subscriber done
        self.loop.subscribe(self._measure)
        self._applied = threading.Event()
        self._stopping = threading.Event()
        self._bots_thread: threading.Thread | None = None

    def _measure(self, u: Update) -> None:
        at = getattr(u.event, "at", 0.0)
        if at and isinstance(u.event, (ev.SeatTap, ev.SeatHold)):
            self.latencies.append(time.monotonic() - at)
        self._applied.set()

    def start(self) -> SimulatedTable:
        if self.publisher is not None:
            self.publisher.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        self._applied.set()
        if self._bots_thread is not None:
            self._bots_thread.join(scaled(5))
            self.loop.stop()
        if self.publisher is not None:
            self.publisher.close()
        self.journal.close()

    def _new_bots(self, post, press=None) -> Bots:
        tags = list(self.tags)
        self.rng.shuffle(tags)
        return Bots(self.loop, self.rng, tags, post=post, press=press)

    # --- one whole game on the caller's thread (tests) ------------------------------------

    def play_game(self, max_turns: int = 400, until: Callable | None = None) -> None:
        """Set up and play a game to its end, or until ``until(game)`` holds (then
        ``finish_game`` carries on)."""
        self.loop.post(ev.TouchAction(_setup(self.edition, self.names, "standard", self.rng,
                                             self.expansion), seat_colors=self.seat_colors))
        if not self.loop.drain()[-1].accepted:
            raise ValueError(f"{self.name}: this setup is refused by the rules")
        self._bots = self._new_bots(self.loop.post)
        self.finish_game(max_turns, until)

    def finish_game(self, max_turns: int = 400, until: Callable | None = None) -> None:
        for _ in range(max_turns):
            game = self.loop.table.game
            if game is None or game.game_over or is_stalled(game):
                return
            if until is not None and until(game):
                return
            self._bots.scan_new_cards()
            self.loop.drain()
            self._bots.play_turn()
            self.loop.drain()

    # --- endless games at a pace, on threads (benchmark) ----------------------------------

    def start_paced(self, pace: float) -> None:
        """Bots play game after game, one input every ``pace`` seconds."""
        self.loop.start()

        def post(event) -> None:
            if self._stopping.is_set():
                return
            self._applied.clear()
            self.loop.post(event)
            self._applied.wait(scaled(5.0))
            self._stopping.wait(pace)

        def press(seat: int, hold: bool, taps: int = 1) -> None:
            now = time.monotonic()
            post(ev.SeatHold(seat, at=now) if hold else ev.SeatTap(seat, at=now, count=taps))

        def run() -> None:
            while not self._stopping.is_set():
                post(ev.TouchAction(_setup(self.edition, self.names, "standard", self.rng,
                                           self.expansion)))
                bots = self._new_bots(post, press)
                while not self._stopping.is_set():
                    game = self.loop.table.game
                    if game is None or game.game_over or is_stalled(game):
                        break
                    bots.scan_new_cards()
                    bots.play_turn()
        self._bots_thread = threading.Thread(target=run, name=f"bots-{self.name}", daemon=True)
        self._bots_thread.start()


def table_settings(host: str, port: int, venue: str, table: str, **extra) -> dict:
    """An ``[mqtt]`` section for one table (the config's defaults otherwise)."""
    from companion.appliance.config import defaults
    settings = dict(defaults()["mqtt"])
    settings.update(host=host, port=port, venue=venue, table=table, **extra)
    return settings
