"""``coffee-companion demo``: a whole game of bots at a simulated table.

The bots behave like players at a real table: they pass dealt cards over the
(simulated) scanner, tap their seat button for each order they complete, hold
it to end the turn, and use the touchscreen's actions to upgrade or spend
tokens. Every input goes through the table loop, the engine and a journal,
exactly as in the live service. The terminal shows each turn and the ranking.

With ``expansion="cake_time"`` the bots play Cake Time: the starting player's
box draw of 4 upgrade tiles (from the seeded dice), a cake on a drawn card
whenever the deck's back would show one (the 30 cake-backed cards' share of
the deck), cake cards played now and then before completing an order.

The demo is the service (``companion.appliance.service``, what ``coffee-companion run``
starts) built from the same configuration with simulated drivers: seat buttons
on gpiozero mock pins (the bots press them by driving the pins low and high on
the simulated table's clock, :class:`FingerPresses`), the scanner a QR module
on the far end of a pty pair (the service's own ``ScannerReader`` reads the
codes the bots show it), a simulated LED strip, a journal in a temporary folder
unless ``db`` and the example card catalog. The bots' other inputs are the
touchscreen's actions (upgrades, tokens, cakes). ``run`` plays in the terminal
at full speed (no screen needed): the same journal, session and table loop,
driven input by input as the devices post them. ``run_screen`` runs the
service with the touchscreen (pygame) in a window with the strip drawn below it,
the bots playing at a watchable pace on their own thread; a finger or mouse can
join in (undo, fix, rematch).
"""
from __future__ import annotations

import copy
import os
import queue
import random
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import config as config_mod
from companion.core import teaching
from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.devices.buttons import Buttons
from companion.devices.mock_pins import Fingers, ManualClock
from companion.outputs.lights.pixels import SimulatedStrip
from companion.devices.scanner_pty import DEMO_CODES, SimulatedScanner
from companion.core.rules.editions import EXPANSIONS, UPGRADE_TILES, VARIANTS, box_rules
from companion.core.rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardsToDraw, DislikesTaken,
                                             FinalTurnBegins, GameOver, GameStarted, OrderCompleted,
                                             ShopClosed, Stalled, TurnChanged, UpgradeActivated)
from companion.core.rules.scoring import breakdown
from companion.core.rules.state import Game, Table
from companion.core.rules.turn import is_stalled
from .service import Service
from companion.core.loop import TableLoop, Update
from companion.words import i18n

if TYPE_CHECKING:                        # pygame loads with the screen
    from companion.outputs.screen.app import App
    from companion.appliance.demo_window import DemoWindow

NAMES = ["Ana", "Ben", "Chloe", "Dae"]
CAKE_NOTES = (CakePlaced, CakeCardGained, CakeCardPlayed, CakesReturned)


def _started(table: Table) -> Game:
    """The game the bots play (they only ever act once the demo's setup was applied)."""
    if table.game is None:
        raise RuntimeError("the demo's bots act only in a started game")
    return table.game


class Bots:
    """Decides what each simulated player does on their turn (seeded, reproducible)."""

    def __init__(self, loop: TableLoop, rng: random.Random, tags: list[str],
                 post=None, press=None, scan=None):
        self.loop, self.rng, self.tags = loop, rng, list(tags)
        self.post = post or loop.post
        # press(seat, hold, taps): a seat button; the demo presses through mock pins
        # (FingerPresses); by default (other tools) the input events themselves
        self._press = press
        # scan(tag): a card under the scanner; the demo's goes through a pty
        # (SimulatedScanner) and the service's ScannerReader
        self._scan = scan
        self.seen_serial = 0          # cards up to this one were checked for a cake

    # (methods, not lambdas kept on the object: a lambda calling self.post would make a
    # reference cycle, garbage only the collector finds, which runs when the table is quiet)
    def press(self, seat: int, hold: bool, taps: int = 1) -> None:
        if self._press is not None:
            self._press(seat, hold, taps)
        else:
            self.post(ev.SeatHold(seat) if hold else ev.SeatTap(seat, count=taps))

    def scan(self, tag: str) -> None:
        if self._scan is not None:
            self._scan(tag)
        else:
            self.post(ev.CardScanned(tag, source="demo"))

    def answer_cakes(self) -> None:
        """Cake Time: for each card taken from the deck since the last look, the deck's
        back may show a cake (the 30 cake-backed cards' share); the table says so."""
        game = _started(self.loop.table)
        new = sorted((c.serial, p.name) for p in game.players for c in p.queue[0]
                     if c.serial > self.seen_serial)
        self.seen_serial = game.next_serial - 1
        if game.expansion is None or game.two_drinks_one_cake:
            return
        share = EXPANSIONS[game.expansion].order_cards / box_rules(
            game.edition, game.expansion).deck_size
        for _, name in new:
            if self.rng.random() < share:
                self.post(ev.TouchAction({"do": "cake", "player": name}))

    def scan_new_cards(self) -> None:
        """Pass freshly dealt or drawn cards over the scanner while example tags last."""
        game = _started(self.loop.table)
        waiting = sum(1 for p in game.players for pos in p.queue for c in pos if c.tag is None)
        for _ in range(min(waiting, len(self.tags))):
            self.scan(self.tags.pop(0))

    def play_turn(self) -> None:
        """The active player's turn: touchscreen actions, seat taps, then the hold."""
        game = _started(self.loop.table)
        me, seat = game.active_player, game.active
        if me is None or seat is None:       # over: nobody's turn
            return
        self._touch_actions(game, me)
        self._complete_orders(me, seat)
        if self.rng.random() < 0.1:          # somebody taps out of turn now and then
            self.press((seat + 1) % len(game.players), False)
        self.press(seat, True)

    def _touch_actions(self, game: Game, me: Any) -> None:
        """Cake cards, upgrades and tokens, chosen on the touchscreen."""
        if me.cake_cards and self.rng.random() < 0.3:      # before any order is completed
            self.post(ev.TouchAction({"do": "play_cake_card"}))
        free = [u for u in me.tiles if u not in me.upgrades]
        if game.open_tiles and len(me.upgrades) >= UPGRADE_TILES:
            free = []                            # no fifth tile on a player board (1.3)
        if me.likes >= 3 and free and self.rng.random() < 0.6:
            self.post(ev.TouchAction({"do": "activate_upgrade",
                                      "upgrade": self.rng.choice(free)}))
        if me.cookies and self.rng.random() < 0.3:
            self.post(ev.TouchAction({"do": "spend_cookies",
                                      "count": self.rng.randint(1, me.cookies)}))

    def _complete_orders(self, me: Any, seat: int) -> None:
        """A few orders, each a tap of the seat button."""
        urgent = len(me.queue[3]) + len(me.queue[2])
        done = min(me.order_count(), self.rng.choice([0, 1, 1, 1, 2, 2]) + int(urgent > 2))
        filled = sum(1 for pos in me.queue if pos)
        for i in range(done):
            # now and then the newer order first: a double tap steps past the oldest
            taps = 2 if i == 0 and filled > 1 and self.rng.random() < 0.25 else 1
            self.press(seat, False, taps)


class FingerPresses:
    """The bots' fingers on the seat buttons: each press drives the button's gpiozero
    mock pin low and high (:class:`~companion.devices.mock_pins.Fingers`) on the
    simulated table's clock, through the same ``Buttons`` code a Pi runs.

    ``sleep(seconds)`` lets real time pass too (the screen demo, to be watched;
    the terminal demo passes none); ``after()`` runs once the gesture was posted
    (the terminal demo applies it there)."""

    def __init__(self, buttons: Any, clock: ManualClock, hold_seconds: float,
                 window_seconds: float, sleep: Callable[[float], Any] = lambda s: None,
                 after: Callable[[], Any] = lambda: None) -> None:
        self.fingers = Fingers.on(buttons, clock)
        self.clock, self.hold_seconds, self.window = clock, hold_seconds, window_seconds
        self.sleep, self.after = sleep, after

    def __call__(self, seat: int, hold: bool, taps: int = 1) -> None:
        for _ in range(taps - 1):                # the first taps of a double tap
            self._down(seat, 0.08)
            self._pass(0.12)
        self._down(seat, self.hold_seconds + 0.2 if hold else 0.12)
        # the row of taps ends and the bounce window passes: the gesture is posted
        self._pass(self.window + 0.1)
        self.after()

    def _down(self, seat: int, seconds: float) -> None:
        self.fingers.press(seat, seconds)
        self._pass(seconds)

    def _pass(self, seconds: float) -> None:
        self.sleep(seconds)
        self.fingers.poll(self.clock.advance(seconds))


def _signed(n: int) -> str:
    return "−" + str(-n) if n < 0 else str(n)


class TerminalPrinter:
    """Prints the game as it happens, in words in ``language``: one line per turn with
    what happened in it, the notable moments, then the ranking."""

    #: what a turn's line tells, besides the counts
    NOTES = (OrderCompleted, UpgradeActivated, CardsToDraw, DislikesTaken, ShopClosed,
             FinalTurnBegins, Stalled) + CAKE_NOTES

    def __init__(self, out=sys.stdout, language: str = "en"):
        self.out = out
        self.lang = language
        self.turn_notes: list[str] = []
        self.game: Any = None              # the finished game, for its breakdown

    def __call__(self, u: Update) -> None:
        game = u.table.game
        edition = game.edition if game else "original"
        if u.rejection is not None and u.action and u.action.get("do") != "scan":
            self.turn_notes.append(i18n.tr(self.lang, "demo.rejected",
                                           reason=i18n.rejection_text(self.lang, u.rejection,
                                                                      sentence=False)))
        for h in u.happened:
            if isinstance(h, self.NOTES):
                self.turn_notes.append(i18n.happening_text(self.lang, h, edition))
            elif isinstance(h, TurnChanged):
                self._flush(h.previous, h.turn - 1, u)
            elif isinstance(h, GameOver) and game is not None:
                self._flush(None, game.turn, u)
                self.game = game
                self._ranking(h, edition)

    def _ranking(self, h: GameOver, edition: str) -> None:
        tr, n = i18n.tr, i18n.tr_count
        self.out.write("\n" + tr(self.lang, "demo.ranking") + "\n")
        game = self.game
        for r in h.ranking:
            # the end screen's breakdown: tokens are no points (they only break ties)
            player = next((p for p in game.players if p.name == r.name), None) \
                if game is not None else None
            parts = ", ".join(n(self.lang, f"end.{part}_part", count, weight=_signed(w),
                                points=_signed(points))
                              for part, count, w, points in breakdown(game, player)) \
                if player is not None and game is not None else ""
            self.out.write("  " + tr(self.lang, "demo.rank_line", place=r.place, player=r.name,
                                     points=n(self.lang, "end.points", r.score),
                                     breakdown=parts,
                                     tokens=f"{r.cookies} "
                                            f"{i18n.token_name(self.lang, edition, r.cookies)}")
                           + "\n")
        self.out.write(i18n.happening_text(self.lang, h, edition) + "\n")

    def _flush(self, who: str | None, turn: int, u: Update) -> None:
        game = _started(u.table)
        if who is None:
            who = game.players[game.last_seat].name
        p = next(p for p in game.players if p.name == who)
        lang, n = self.lang, i18n.tr_count
        notes = "; ".join(n.rstrip(".") for n in self.turn_notes) or i18n.tr(lang, "demo.passes")
        counts = i18n.tr(lang, "demo.counts", likes=n(lang, "demo.likes", p.likes),
                         dislikes=n(lang, "demo.dislikes", p.dislikes), deck=game.deck)
        self.out.write(i18n.tr(lang, "demo.turn", turn=turn, player=who, notes=notes,
                               counts=counts) + "\n")
        self.turn_notes = []


class TeachingPrinter:
    """``demo --teach`` in the terminal: each hint of the teaching sequence as its moment
    comes (``companion.core.teaching``), in words in ``language``."""

    def __init__(self, out=sys.stdout, language: str = "en"):
        self.out, self.lang = out, language
        self.teacher = teaching.Teacher()

    def __call__(self, u: Update) -> None:
        if u.rejection is not None:
            return
        for hint in self.teacher.observe(u.happened, u.table):
            self.out.write("  » " + teaching.hint_text(self.lang, hint) + "\n")


def _setup(edition: str, names: list, variant: str, rng: random.Random,
           expansion: str | None = None) -> dict:
    setup = {"do": "setup", "edition": edition, "players": names,
             "start": rng.choice(names), "variant": variant}
    box = box_rules(edition, expansion)
    if expansion is not None:
        setup["expansion"] = expansion
    if box.upgrade_draw:
        # the box's rule: the starting player draws 4 of the tiles, everyone uses them
        setup["upgrades"] = sorted(rng.sample(box.upgrades, UPGRADE_TILES),
                                   key=box.upgrades.index)
    elif box.chooses_upgrade_tiles and VARIANTS[variant].upgrades:
        # the variable setup: each player their own 4 tiles
        setup["upgrades"] = {n: rng.sample(list(box.upgrades), UPGRADE_TILES) for n in names}
    return setup


def _prepare(edition: str, players: int | list, seed: int, db: str | None):
    """What both demos start from: the seeded dice, the names, a journal path (a
    temporary folder unless ``db``), the EXAMPLE catalog and its shuffled tags."""
    rng = random.Random(seed)
    names = players if isinstance(players, list) else NAMES[:players]
    scratch = None
    if db is None:
        scratch = tempfile.TemporaryDirectory(prefix="coffee-demo-")
        db = os.path.join(scratch.name, "journal.db")
    catalog = Catalog.example()
    tags = [t for t, c in catalog.cards.items() if c.edition == edition]
    rng.shuffle(tags)
    return rng, names, scratch, db, catalog, tags


def demo_config(cfg: config_mod.Config | None, players: int, db: str, web: bool = False,
                buttons: bool = True, scanner_port: str = "") -> config_mod.Config:
    """The service's configuration for the demo: the given one (or the defaults) with
    simulated buttons (one per player, while there are pins) and strip, the journal at
    ``db``, the scanner at ``scanner_port`` (a simulated QR module on a pty: the example
    cards' printed codes; none when empty), no MQTT (a demo's games are not the café's),
    the phone view only with ``web``."""
    base = cfg if cfg is not None else config_mod.defaults()
    out = config_mod.Config(copy.deepcopy(base.values), base.path, set(base.from_file))
    seats, pixels = out["seats"], out["pixels"]
    pins = list(seats["pins"])[:players]
    seats["pins"] = pins
    seats["driver"] = "simulated" if buttons and len(pins) == players else "none"
    if pixels["driver"] != "none":
        pixels["driver"] = "simulated"
    out["journal"]["path"] = db
    out["scanner"]["port"] = scanner_port
    if scanner_port:
        out["scanner"]["mode"], out["scanner"]["plain_pattern"] = "plain", DEMO_CODES
    out["mqtt"]["host"] = ""
    out["web"]["enabled"] = web
    return out


def run(edition: str = "original", players: int | list = 3, seed: int = 1,
        variant: str = "standard", db: str | None = None, out=None,
        max_turns: int = 400, language: str = "en", expansion: str | None = None,
        cfg: config_mod.Config | None = None, teach: bool = False) -> int:
    out = out or sys.stdout                  # the stream of the moment of the call
    rng, names, scratch, db, catalog, tags = _prepare(edition, players, seed, db)
    scanner = SimulatedScanner()
    service = Service(demo_config(cfg, len(names), db, scanner_port=scanner.port),
                      headless=True, catalog=catalog)
    service.input_clock = clock = ManualClock()     # the simulated table's time
    try:
        loop = service.loop
        service.start_inputs()     # seat buttons on mock pins and the scanner, as the service
        _apply_until(loop, _scanner_up)
        printer = TerminalPrinter(out, language)
        loop.subscribe(printer)
        if teach:
            loop.subscribe(TeachingPrinter(out, language))
        setup = _setup(edition, names, variant, rng, expansion)
        loop.post(ev.TouchAction(setup))
        loop.drain()
        game = loop.table.game
        assert game is not None              # the demo's own setup cannot be refused
        edition_name = i18n.tr(language, f"edition.{expansion or edition}")
        out.write(i18n.tr(language, "demo.start", edition=edition_name,
                          variant=i18n.tr(language, f"variant.{variant}"),
                          players=i18n.names_list(language, names), start=setup["start"],
                          deck=game.deck) + "\n")
        applied: list[Update] = []

        def scan(tag: str) -> None:          # the card under the scanner, read, applied
            scanner.show(tag)
            applied.extend(_apply_until(loop, lambda u: _scanned(u, tag)))
        bots = Bots(loop, rng, tags, scan=scan,
                    press=_presses(service, clock, after=lambda: applied.extend(loop.drain())))
        for _ in range(max_turns):
            game = loop.table.game
            if game is None or game.game_over:
                break
            bots.scan_new_cards()
            bots.answer_cakes()
            loop.drain()
            bots.play_turn()
            applied.extend(loop.drain())
            stalled = any(isinstance(h, Stalled) for u in applied for h in u.happened)
            applied.clear()
            if stalled:
                out.write(i18n.tr(language, "demo.stalled") + "\n")
                break
        out.write((i18n.tr(language, "demo.journal", path=db) if scratch is None
                   else i18n.tr(language, "demo.journal_temporary")) + "\n")
    finally:
        for device in service.inputs:
            device.close()
        scanner.close()
        service.journal.close()
        if scratch is not None:
            scratch.cleanup()
    return 0


def _scanner_up(u: Update) -> bool:
    return isinstance(u.event, ev.DeviceStatus) and u.event.device == "scanner" \
        and u.event.status in ("connected", "back")


def _scanned(u: Update, tag: str) -> bool:
    return isinstance(u.event, ev.CardScanned) and u.event.tag == tag


def _apply_until(loop: TableLoop, done: Callable[[Update], bool],
                 timeout: float = 5.0) -> list[Update]:
    """Apply inputs on this thread as the devices post them, until one is ``done``."""
    out: list[Update] = []
    while not out or not done(out[-1]):
        try:
            event = loop.inputs.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError("the demo's simulated scanner was not read within "
                               f"{timeout:g} s") from None
        if not isinstance(event, ev.Stop):
            out.append(loop.handle(event))
    return out


def _presses(service: Service, clock: ManualClock, **kw: Any) -> FingerPresses | None:
    """Fingers on the service's own seat buttons (mock pins), or None without buttons."""
    buttons = next((d for d in service.inputs if isinstance(d, Buttons) and d.available), None)
    if buttons is None:
        return None
    seats = service.cfg.seats
    return FingerPresses(buttons, clock, seats.hold_seconds,
                         (seats.multi_tap_ms + seats.bounce_ms) / 1000, **kw)


# --- the demo on the touchscreen -----------------------------------------------------

class PacedBots(threading.Thread):
    """The bots on their own thread: one input every ``pace`` seconds, each one
    applied by the table loop before the next (so the screen can be watched)."""

    def __init__(self, loop: TableLoop, rng: random.Random, tags: list[str], pace: float,
                 presses: FingerPresses | None = None,
                 hold_seconds: float = config_mod.SeatsSettings().hold_seconds,
                 reading: Any = None, scanner: SimulatedScanner | None = None):
        super().__init__(name="demo-bots", daemon=True)
        self.scanner = scanner
        self._until: Callable[[Update], bool] = lambda u: True
        self.loop, self.pace, self.presses = loop, pace, presses
        #: the table is reading a hint (``demo --teach``): the bots wait until it is done
        self.reading = reading or (lambda: False)
        self.all_tags = list(tags)
        self.hold_seconds = hold_seconds
        self.stopping = threading.Event()
        self._applied = threading.Event()
        self._new_game = threading.Event()
        self._games = 0
        loop.subscribe(self._seen)
        if presses is not None:              # the fingers take their time, to be watched
            presses.sleep = lambda s: self.stopping.wait(s * min(1.0, pace / 0.6))
        press = self._press if presses is not None else None
        self.bots = Bots(loop, rng, tags, post=self._post, press=press,
                         scan=self._scan if scanner is not None else None)

    def _seen(self, u: Update) -> None:
        if any(isinstance(h, GameStarted) for h in u.happened):
            self._games += 1
            if self._games > 1:               # a rematch (not the demo's own first game)
                self._new_game.set()
        if self._until(u):
            self._applied.set()

    def _wait_applied(self, timeout: float) -> None:
        self._applied.wait(timeout)
        self.stopping.wait(self.pace)

    def _wait_reader(self) -> None:
        while self.reading() and not self.stopping.is_set():
            self.stopping.wait(0.1)

    def _post(self, event) -> None:
        self._wait_reader()
        if self.stopping.is_set():
            return
        self._applied.clear()
        self.loop.post(event)
        self._wait_applied(5.0)

    def _scan(self, tag: str) -> None:
        """The card under the simulated scanner; on once the table applied its scan."""
        self._wait_reader()
        if self.stopping.is_set() or self.scanner is None:
            return
        self._applied.clear()
        self._until = lambda u: _scanned(u, tag)
        self.scanner.show(tag)
        self._wait_applied(5.0)
        self._until = lambda u: True

    def _press(self, seat: int, hold: bool, taps: int = 1) -> None:
        self._wait_reader()
        if self.stopping.is_set():
            return
        self._applied.clear()
        assert self.presses is not None          # only set as the press with fingers
        self.presses(seat, hold, taps)           # down and up on the mock pin, then posted
        self._applied.wait(5.0)
        self.stopping.wait(self.pace)

    def run(self) -> None:
        while not self.stopping.is_set():
            if self._new_game.is_set():          # a rematch: a fresh pile of cards
                self._new_game.clear()
                self.bots.tags = list(self.all_tags)
                self.bots.rng.shuffle(self.bots.tags)
            game = self.loop.table.game
            if game is None or game.game_over or is_stalled(game):
                self.stopping.wait(0.25)
                continue
            self.bots.scan_new_cards()
            self.bots.answer_cakes()
            self.bots.play_turn()

    def stop(self) -> None:
        self.stopping.set()
        self._applied.set()

    def close(self) -> None:
        """An input adapter's stop (the service closes its inputs first)."""
        self.stop()
        if self.is_alive():
            self.join(3.0)


class DemoService(Service):
    """The service with the demo's window, the bots as an input adapter and the game's
    lines in the terminal."""

    def __init__(self, cfg: config_mod.Config, catalog: Catalog, window: DemoWindow,
                 setup: dict, rng: random.Random, tags: list[str], pace: float,
                 out, language: str, stop_when_over: bool = False, teach: bool = False,
                 scanner: SimulatedScanner | None = None):
        super().__init__(cfg, catalog=catalog)
        self.input_clock = self.clock = ManualClock()   # the simulated table's time
        self.scanner = scanner
        self._scanner_up = threading.Event()
        self.loop.subscribe(lambda u: self._scanner_up.set() if _scanner_up(u) else None)
        self.window, self.setup, self.out = window, setup, out
        self.teach = teach
        self.rng, self.tags, self.pace = rng, tags, pace
        self.stop_when_over = stop_when_over
        self.loop.subscribe(TerminalPrinter(out, language))
        if teach:
            self.loop.subscribe(TeachingPrinter(out, language))

    def start_web(self) -> None:
        super().start_web()
        if self.web is not None:
            self.out.write(f"phone view: {self.web.public_url} (this machine: {self.web.url}); "
                           f"pairing code {self.web.pairing.shown()}\n")

    def device_status(self) -> dict[str, str]:
        return dict(super().device_status(), scanner="simulated")     # a QR module on a pty

    def open_window(self):
        return self.window.table

    def start_inputs(self) -> None:
        """Later, in ``run_app``: the screen then sees the buttons' status, and the game
        starts once the screen follows the table."""


    def run_app(self, app: App) -> None:
        """The game begins once the screen follows the table; the bots then play (on the
        simulated buttons when there are any) until the window closes."""
        self.start_adapters()             # the demo's own order: outputs, web, then bots
        app.quit_on_escape = True
        strip = self.lights.strip if self.lights is not None else None
        if isinstance(strip, SimulatedStrip) and self.lights is not None:   # the strip to show
            self.window.show_strip(strip, self.lights.segments,
                                   app.seat_colors[:len(self.lights.segments)])
        super().start_inputs()
        if self.scanner is not None:
            self._scanner_up.wait(5.0)    # bytes sent before the port opened would be lost
        if self.teach:       # the table reads each hint, then the bots play on
            app.teaching.set_enabled(True)
            app.teaching.auto = True
            app.teaching.speed = 0.6 / self.pace
        self.loop.post(ev.TouchAction(self.setup))
        bots = PacedBots(self.loop, self.rng, self.tags, self.pace,
                         _presses(self, self.clock), self.cfg.seats.hold_seconds,
                         reading=(lambda: app.catching_up or app.teaching.busy)
                         if self.teach else None, scanner=self.scanner)
        bots.start()
        self.inputs.append(bots)          # closed first on the way out, like any input
        self.ready()
        app.draw()
        while app.running and not self.stopping.is_set() and not self._over(app):
            app.step()
            self.window.draw_strip()

    def _over(self, app: App) -> bool:
        g = app.table.game
        return self.stop_when_over and g is not None and (g.game_over or is_stalled(g))


def run_screen(edition: str = "original", players: int | list = 3, seed: int = 1,
               variant: str = "standard", db: str | None = None, speed: float = 1.0,
               cfg: config_mod.Config | None = None, out=None, err=None,
               stop_when_over: bool = False, use_buttons: bool = True, web: bool = False,
               expansion: str | None = None, teach: bool = False) -> int:
    """The demo in a pygame window (or full screen on the Pi) until the window closes
    (or, with ``stop_when_over``, until the game is over: tests). ``web`` also serves
    the phone view (``[web]`` bind and port), as the service does.

    Falls back to the terminal demo, with one line saying why, when no screen opens.
    """
    out, err = out or sys.stdout, err or sys.stderr     # the streams of the moment of the call
    base = cfg if cfg is not None else config_mod.defaults()
    language = base["game"]["language"]
    # first: it keeps pygame's banner quiet
    from companion.appliance.demo_window import open_demo_window
    try:
        window = open_demo_window(base["display"])
    except RuntimeError as exc:                       # pygame.error: no window here
        err.write(f"no screen could open ({exc}); playing in the terminal instead\n")
        return run(edition, players, seed, variant, db, out, language=language,
                   expansion=expansion, cfg=cfg, teach=teach)
    rng, names, scratch, db, catalog, tags = _prepare(edition, players, seed, db)
    scanner = SimulatedScanner()
    try:
        setup = _setup(edition, names, variant, rng, expansion)
        service = DemoService(demo_config(cfg, len(names), db, web, use_buttons, scanner.port),
                              catalog, window, setup, rng, tags, 0.6 / max(0.05, speed), out,
                              language, stop_when_over, teach, scanner)
        service.run()
    finally:
        scanner.close()
        if scratch is not None:
            scratch.cleanup()
    return 0
