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

``run`` plays in the terminal at full speed (no screen needed). ``run_screen``
opens the touchscreen (pygame) and lets the bots play at a watchable pace on
their own thread, pressing simulated seat buttons (gpiozero mock pins) when
``companion.devices.buttons`` is available; the App shows the game exactly as
at a real table, and a finger or mouse can join in (undo, fix, rematch).
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
import threading
from typing import Optional

from . import inputs as ev
from .catalog import Catalog
from .exports import PlayLink
from .journal import Journal
from .rules.editions import EXPANSIONS, UPGRADE_TILES, VARIANTS, box_rules
from .rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced, CakesReturned,
                               CardsToDraw, DislikesTaken, FinalTurnBegins, GameOver,
                               OrderCompleted, ShopClosed, Stalled, TurnChanged,
                               UpgradeActivated)
from .rules.turn import is_stalled
from .session import Session
from .table import TableLoop, Update
from .ui import i18n

NAMES = ["Ana", "Ben", "Chloe", "Dae"]
CAKE_NOTES = (CakePlaced, CakeCardGained, CakeCardPlayed, CakesReturned)


class Bots:
    """Decides what each simulated player does on their turn (seeded, reproducible)."""

    def __init__(self, loop: TableLoop, rng: random.Random, tags: list[str],
                 post=None, press=None):
        self.loop, self.rng, self.tags = loop, rng, list(tags)
        self.post = post or loop.post
        # press(seat, hold, taps): a seat button; by default the input events themselves
        self.press = press or (lambda seat, hold, taps=1: self.post(
            ev.SeatHold(seat) if hold else ev.SeatTap(seat, count=taps)))
        self.seen_serial = 0          # cards up to this one were checked for a cake

    def answer_cakes(self) -> None:
        """Cake Time: for each card taken from the deck since the last look, the deck's
        back may show a cake (the 30 cake-backed cards' share); the table says so."""
        game = self.loop.table.game
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
        game = self.loop.table.game
        waiting = sum(1 for p in game.players for pos in p.queue for c in pos if c.tag is None)
        for _ in range(min(waiting, len(self.tags))):
            self.post(ev.CardScanned(self.tags.pop(0), source="demo"))

    def play_turn(self) -> None:
        game = self.loop.table.game
        me = game.active_player
        seat = game.active
        if me.cake_cards and self.rng.random() < 0.3:      # before any order is completed
            self.post(ev.TouchAction({"do": "play_cake_card"}))
        free = [u for u in me.tiles if u not in me.upgrades]
        if me.likes >= 3 and free and self.rng.random() < 0.6:
            self.post(ev.TouchAction({"do": "activate_upgrade",
                                      "upgrade": self.rng.choice(free)}))
        if me.cookies and self.rng.random() < 0.3:
            self.post(ev.TouchAction({"do": "spend_cookies",
                                      "count": self.rng.randint(1, me.cookies)}))
        urgent = len(me.queue[3]) + len(me.queue[2])
        done = min(me.order_count(), self.rng.choice([0, 1, 1, 1, 2, 2]) + (urgent > 2))
        filled = sum(1 for pos in me.queue if pos)
        for i in range(done):
            # now and then the newer order first: a double tap steps past the oldest
            taps = 2 if i == 0 and filled > 1 and self.rng.random() < 0.25 else 1
            self.press(seat, False, taps)
        if self.rng.random() < 0.1:          # somebody taps out of turn now and then
            self.press((seat + 1) % len(game.players), False)
        self.press(seat, True)


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
            elif isinstance(h, GameOver):
                self._flush(None, game.turn, u)
                self._ranking(h, edition)

    def _ranking(self, h: GameOver, edition: str) -> None:
        tr, n = i18n.tr, i18n.tr_count
        self.out.write("\n" + tr(self.lang, "demo.ranking") + "\n")
        for r in h.ranking:
            self.out.write("  " + tr(self.lang, "demo.rank_line", place=r.place, player=r.name,
                                     points=n(self.lang, "end.points", r.score),
                                     likes=n(self.lang, "demo.likes", r.likes),
                                     tokens=f"{r.cookies} "
                                            f"{i18n.token_name(self.lang, edition, r.cookies)}")
                           + "\n")
        self.out.write(i18n.happening_text(self.lang, h, edition) + "\n")

    def _flush(self, who: Optional[str], turn: int, u: Update) -> None:
        game = u.table.game
        if who is None:
            who = game.players[game.last_seat].name
        p = next(p for p in game.players if p.name == who)
        lang, n = self.lang, i18n.tr_count
        notes = "; ".join(self.turn_notes) or i18n.tr(lang, "demo.passes")
        counts = i18n.tr(lang, "demo.counts", likes=n(lang, "demo.likes", p.likes),
                         dislikes=n(lang, "demo.dislikes", p.dislikes), deck=game.deck)
        self.out.write(i18n.tr(lang, "demo.turn", turn=turn, player=who, notes=notes,
                               counts=counts) + "\n")
        self.turn_notes = []


def _setup(edition: str, names: list, variant: str, rng: random.Random,
           expansion: Optional[str] = None) -> dict:
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


def _prepare(edition: str, players: int | list, seed: int, db: Optional[str]):
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


def run(edition: str = "original", players: int | list = 3, seed: int = 1,
        variant: str = "standard", db: Optional[str] = None, out=None,
        max_turns: int = 400, language: str = "en", expansion: Optional[str] = None) -> int:
    out = out or sys.stdout                  # the stream of the moment of the call
    rng, names, scratch, db, catalog, tags = _prepare(edition, players, seed, db)
    with Journal(db) as journal:
        session = Session(journal, catalog)
        loop = TableLoop(session)
        printer = TerminalPrinter(out, language)
        loop.subscribe(printer)
        setup = _setup(edition, names, variant, rng, expansion)
        loop.post(ev.TouchAction(setup))
        loop.drain()
        out.write(i18n.tr(language, "demo.start", edition=i18n.tr(language, f"edition.{expansion or edition}"),
                          variant=i18n.tr(language, f"variant.{variant}"),
                          players=i18n.names_list(language, names), start=setup["start"],
                          deck=loop.table.game.deck) + "\n")
        bots = Bots(loop, rng, tags)
        for _ in range(max_turns):
            game = loop.table.game
            if game.game_over:
                break
            bots.scan_new_cards()
            bots.answer_cakes()
            loop.drain()
            bots.play_turn()
            stalled = any(h.kind == "stalled" for u in loop.drain() for h in u.happened)
            if stalled:
                out.write(i18n.tr(language, "demo.stalled") + "\n")
                break
        out.write((i18n.tr(language, "demo.journal", path=db) if scratch is None
                   else i18n.tr(language, "demo.journal_temporary")) + "\n")
    if scratch is not None:
        scratch.cleanup()
    return 0


# --- the demo on the touchscreen -----------------------------------------------------

class PacedBots(threading.Thread):
    """The bots on their own thread: one input every ``pace`` seconds, each one
    applied by the table loop before the next (so the screen can be watched)."""

    def __init__(self, loop: TableLoop, rng: random.Random, tags: list[str], pace: float,
                 buttons=None, hold_seconds: float = 1.0):
        super().__init__(name="demo-bots", daemon=True)
        self.loop, self.pace, self.buttons = loop, pace, buttons
        self.all_tags = list(tags)
        self.hold_seconds = hold_seconds
        self.stopping = threading.Event()
        self._applied = threading.Event()
        self._new_game = threading.Event()
        self._games = 0
        loop.subscribe(self._seen)
        press = self._press if buttons is not None else None
        self.bots = Bots(loop, rng, tags, post=self._post, press=press)

    def _seen(self, u: Update) -> None:
        if any(h.kind == "game_started" for h in u.happened):
            self._games += 1
            if self._games > 1:               # a rematch (not the demo's own first game)
                self._new_game.set()
        self._applied.set()

    def _wait_applied(self, timeout: float) -> None:
        self._applied.wait(timeout)
        self.stopping.wait(self.pace)

    def _post(self, event) -> None:
        if self.stopping.is_set():
            return
        self._applied.clear()
        self.loop.post(event)
        self._wait_applied(5.0)

    def _press(self, seat: int, hold: bool, taps: int = 1) -> None:
        if self.stopping.is_set():
            return
        self._applied.clear()
        down = self.hold_seconds + 0.2 if hold else 0.12
        for _ in range(taps - 1):                # the first taps of a double tap
            self.buttons.press(seat, 0.08)
            self.stopping.wait(0.2)
        self.buttons.press(seat, down)
        self._applied.wait(5.0 + down)
        # a finger needs a moment between presses: a press inside the button's
        # debounce window after the release would be taken for contact chatter
        self.stopping.wait(max(self.pace, 0.1 + (down - self.hold_seconds if hold else 0)))

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


def _simulated_buttons(loop: TableLoop, players: int, cfg):
    """Seat buttons on gpiozero mock pins, pressed by the bots; None if unavailable."""
    try:
        from .devices.buttons import Buttons
    except ImportError:
        return None
    seats = cfg["seats"] if cfg is not None else {}
    pins = list(seats.get("pins", [17, 27, 22, 23]))[:players]
    if len(pins) < players:
        return None
    try:
        buttons = Buttons(loop.post, pins, seats.get("undo_pin", 24),
                          hold_seconds=seats.get("hold_seconds", 1.0),
                          redo_hold_seconds=seats.get("redo_hold_seconds", 2.0),
                          bounce_ms=seats.get("bounce_ms", 30),
                          multi_tap_ms=seats.get("multi_tap_ms", 300), driver="simulated",
                          turn_now=loop.turn_now).start()
    except Exception:          # no gpiozero: the bots post the seat inputs themselves
        return None
    return buttons if buttons.simulated else None


def _lights_and_sound(loop: TableLoop, players: int, cfg, app, window):
    """The simulated strip (drawn under the table), the sound cues and the voice, as
    the service builds them from config; (strip view, lights, sound, voice), any None."""
    from . import config as config_mod
    from .devices.pixels import SimulatedStrip, contiguous_segments
    from .lights.controller import LightsController
    from .sound import build_sound
    from .voice import build_voice
    import pygame

    from .ui.strip_view import BAND, StripView
    cfg = cfg if cfg is not None else config_mod.defaults()
    px = cfg["pixels"]
    length = min(px["segment_length"], 16)
    segments = contiguous_segments(players, length)
    strip = SimulatedStrip(players * length, px["brightness"])
    lights = LightsController(strip, segments, app.seat_colors[:players], fps=px["fps"],
                              turn_timer=cfg["game"]["turn_timer"], draw_timeout=8.0,
                              sweep=px["active_sweep"])
    lights.attach(loop)
    lights.start()
    w, h = window.get_size()
    view = StripView(strip, segments, pygame.Rect(0, h - BAND, w, BAND),
                     app.seat_colors[:players])
    sound = build_sound(cfg)
    sound.attach(loop)
    sound.start()
    voice = build_voice(cfg, sound, cfg["game"]["language"])
    if voice is not None:
        voice.attach(loop).start()
    return view, lights, sound, voice


def _phone_view(loop: TableLoop, cfg, db: str, app, players: int, out, links):
    """The phone view beside the demo's window; None (after one warning) if it cannot."""
    from . import config as config_mod
    from .web.app import PhoneView
    sound_on = cfg is None or cfg["sound"]["enabled"]
    view = PhoneView(loop, cfg if cfg is not None else config_mod.defaults(), db,
                     colours=app.seat_colors[:players],
                     devices=lambda: {"buttons": "simulated", "scanner": "simulated",
                                      "lights": "simulated", "sound": "ok" if sound_on else "off",
                                      "screen": "ok"}, play_link=links)
    if not view.start():
        return None
    app.pairing, app.web_url = view.pairing, view.public_url
    out.write(f"phone view: {view.public_url} (this machine: {view.url}); "
              f"pairing code {view.pairing.shown()}\n")
    return view


def run_screen(edition: str = "original", players: int | list = 3, seed: int = 1,
               variant: str = "standard", db: Optional[str] = None, speed: float = 1.0,
               cfg=None, out=None, err=None, stop_when_over: bool = False,
               use_buttons: bool = True, web: bool = False,
               expansion: Optional[str] = None) -> int:
    """The demo in a pygame window (or full screen on the Pi) until the window closes
    (or, with ``stop_when_over``, until the game is over: tests). ``web`` also serves
    the phone view (``[web]`` bind and port), as the service does.

    Falls back to the terminal demo, with one line saying why, when no screen opens.
    """
    out, err = out or sys.stdout, err or sys.stderr     # the streams of the moment of the call
    language = cfg["game"]["language"] if cfg is not None else "en"
    try:
        from .ui.app import App, open_display     # first: it keeps pygame's banner quiet
        import pygame
    except ImportError as exc:
        err.write(f"no touchscreen: {exc}; playing in the terminal instead\n")
        return run(edition, players, seed, variant, db, out, language=language,
                   expansion=expansion)
    from .ui.strip_view import BAND
    display = dict(cfg["display"]) if cfg is not None else {"driver": "", "width": 800,
                                                            "height": 480, "fullscreen": "auto"}
    table_size = (display["width"], display["height"])
    display["height"] += BAND                 # room for the simulated LED strip
    try:
        window = open_display(display, "Coffee Rush companion - demo")
    except pygame.error as exc:
        err.write(f"no screen could open ({exc}); playing in the terminal instead\n")
        pygame.quit()
        return run(edition, players, seed, variant, db, out, language=language,
                   expansion=expansion)
    rng, names, scratch, db, catalog, tags = _prepare(edition, players, seed, db)
    buttons = bots = lights = sound = voice = None
    w, h = window.get_size()
    if (w, h) != (table_size[0], table_size[1] + BAND):     # fullscreen: share the screen
        table_size = (w, h - BAND)
    surface = window.subsurface(pygame.Rect((0, 0), table_size))
    with Journal(db) as journal:
        session = Session(journal, catalog)
        loop = TableLoop(session)
        loop.subscribe(TerminalPrinter(out, language))
        links = PlayLink(session, cfg["bgstats"]["location"] if cfg is not None else "")
        loop.subscribe(links)
        app = App(loop, surface=surface, language=language, config=cfg, on_display=True)
        app.play_links = links
        view = _phone_view(loop, cfg, db, app, len(names), out, links) if web else None
        strip_view, lights, sound, voice = _lights_and_sound(loop, len(names), cfg, app, window)
        app.quit_on_escape = True
        loop.post(ev.TouchAction(_setup(edition, names, variant, rng, expansion)))
        try:
            buttons = _simulated_buttons(loop, len(names), cfg) if use_buttons else None
            hold = cfg["seats"]["hold_seconds"] if cfg is not None else 1.0
            bots = PacedBots(loop, rng, tags, 0.6 / max(0.05, speed), buttons, hold)
            loop.start()
            bots.start()

            def over() -> bool:
                g = app.table.game
                return stop_when_over and g is not None and (g.game_over or is_stalled(g))
            app.draw()
            while app.running and not over():
                app.step()
                if strip_view is not None:
                    dirty = strip_view.draw(window)
                    if dirty is not None:
                        pygame.display.update(dirty)
        finally:
            for output in (voice, lights, sound):
                if output is not None:
                    output.close()
            if bots is not None:
                bots.stop()
                bots.join(3.0)
            if buttons is not None:
                buttons.close()
            if view is not None:
                view.close()
            loop.stop()
            pygame.display.quit()        # the window closes; fonts stay valid for the caller
    if scratch is not None:
        scratch.cleanup()
    return 0
