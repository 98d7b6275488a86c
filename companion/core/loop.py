"""The table loop: the one place where the game changes.

Any thread posts typed input events (``companion.core.events``) with ``post``. The
loop takes them one at a time, maps them to actions, applies them through the
session (engine + journal: durable first) and hands an ``Update`` to every
subscriber: what the input did (typed: ``happened`` holds ``rules.happenings.Happening``,
a closed union) and the loop's frozen ``snapshot.Snapshot`` of the table after it, the
one thing outputs read (``outputs.Output``; docs/architecture.md, "The loop and its outputs").
Subscribers are called on the loop's thread and must not block; one that raises is
logged and skipped.

Seat inputs: a tap completes the oldest order of that seat's player, a double
tap the next one after it (``complete_action``: the same table-script line a
touch on that position gives), a hold ends the turn. A press belongs to its
seat and to the moment it *began* (``inputs.Press``, stamped by the buttons; a
double tap by its first press): it changes the game only if its seat was
active when it began, it is still that same turn, and no other seat's press
was in flight as it began. Anything else changes nothing and yields one
``NotYourTurn`` for that seat (docs/buttons.md).

Every input made against what its sender saw carries that table's version
(``inputs.TableVersion``); ``refusal`` is the one check, here, of whether it has
gone stale meanwhile and what that means per input kind (docs/buttons.md, "Whose press is
it?"). A refused input writes nothing.
"""
from __future__ import annotations

import logging
import os
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from . import events as ev
from .catalog import Catalog, CardInfo, CatalogError
from .rules import Accepted, Rejection, Table, parse_action
from .events import InputEvent, TableVersion
from .rules.state import Game, Player
from .rules.happenings import (CardEnrolled, CardIdentified, DeviceStatusChanged,
                               DrawsDismissed, GameBroughtBack, GameEndedEarly, Happening,
                               NotYourTurn, OrderCompleted,
                               TablePaused, TableResumed, UnknownCard)
from .rules.rejections import reject
from .journal import JournalBusy
from .session import Session
from .seat_colours import game_names, shown_happening, shown_rejection
from .snapshot import Snapshot
from .draw_prompt import Draws
from companion.words import i18n

log = logging.getLogger("companion.core.loop")


ActionDict = dict[str, Any]
"""An action as the journal writes it: ``{"do": ..., **keys}`` (``rules.actions``)."""


@dataclass(frozen=True)
class Update:
    """What one input did: the action tried, what happened or why not, the table after."""
    event: InputEvent | None          # None: no input (a table shown as it already was)
    table: Table
    action: ActionDict | None = None
    happened: tuple[Happening, ...] = ()
    rejection: Rejection | None = None
    seat: int | None = None
    posted_at: float = 0.0
    applied_at: float = 0.0
    version: TableVersion | None = None   # the table's version after this update
    snapshot: Snapshot | None = None      # what every output shows after it (set by the loop)

    @property
    def accepted(self) -> bool:
        return self.action is not None and self.rejection is None

    def but(self, **changes: Any) -> Update:
        """This update with ``changes``: ``dataclasses.replace`` without its cost (it walks
        the fields and calls ``__init__``, twice on every input); nothing is checked or
        worked out on creation here."""
        new = object.__new__(Update)
        new.__dict__.update(self.__dict__, **changes)
        return new


Subscriber = Callable[[Update], None]

RETRY_PAUSED_S = 0.25
"""While paused, the loop tries the waiting input again this often."""


class Halted(Exception):
    """The loop was told to stop while an input waited for the journal."""


def complete_action(player: Player, slot: int) -> ActionDict:
    """Complete the order in position ``slot`` (1-4) of ``player``'s queue, naming its
    card when it was scanned: what a touch on that position and a seat's multi-tap
    both post, so the journal holds the same line either way."""
    action: ActionDict = {"do": "complete", "slot": slot}
    cards = player.queue[slot - 1]
    if cards and cards[0].tag is not None:
        action["card"] = cards[0].tag
    return action


def cake_completion(player: Player, slot: int, cake: bool) -> ActionDict:
    """Complete the first order of position ``slot`` with (or without) a cake (Cake Time,
    table script 1.2): by its card when it was scanned, else by ``cake``, which names it
    without a scanner."""
    card = next(c for c in player.queue[slot - 1] if c.cake == cake)
    if card.tag is not None:
        return {"do": "complete", "slot": slot, "card": card.tag}
    return {"do": "complete", "slot": slot, "cake": cake}


def mixed_cakes(player: Player, slot: int) -> bool:
    """Position ``slot`` holds orders with and without a cake: which one is asked."""
    return len({c.cake for c in player.queue[slot - 1]}) == 2


def stepped_slot(player: Player, taps: int) -> int | None:
    """The position ``taps`` quick taps choose: 1 tap the oldest order (the highest
    position with cards), each further tap the next order towards position 1;
    more taps than orders stop at the newest. None for an empty queue."""
    filled = [i + 1 for i in reversed(range(len(player.queue))) if player.queue[i]]
    return filled[min(taps, len(filled)) - 1] if filled else None


# --- stale inputs: the one check -----------------------------------------------------------

TURN_BOUND = frozenset({"complete", "end_turn", "activate_upgrade", "spend_cookies",
                        "play_cake_card", "cake", "correct"})
"""Actions of the turn they were made in: stale once that turn is over (a new turn, a
new game, the end of the game), as the flow of time moves orders and counts. ``scan``
is one when it would complete an order. A correction too: it sets counts read in that
turn (the Fix screen saves one per player at once, each made against the same table)."""
TABLE_BOUND = frozenset({"undo", "redo"})
"""Actions on the table exactly as shown: stale once anything was accepted since (an
undo or a redo would undo or redo something its sender never saw)."""
STALE = frozenset({"stale_turn", "stale_game_over", "stale_game", "stale_table"})
"""The refusals of a stale input (the phone view answers them with 412)."""


def seen_of(event: Any) -> TableVersion | None:
    """The table version an input was made against, or None (never stale)."""
    if isinstance(event, (ev.SeatTap, ev.SeatHold)):
        return event.press.seen if event.press is not None else None
    return getattr(event, "seen", None)


def _binding(event: Any, game: Game | None) -> str | None:
    """What an input acts on, so what must not have changed since its sender saw the
    table: "table" (anything), "turn", "game", or None (nothing: never stale)."""
    if isinstance(event, ev.WebAction):
        return "table"            # If-Match: exactly the table the phone showed
    if isinstance(event, (ev.SeatTap, ev.SeatHold)):
        return "turn"
    if isinstance(event, (ev.UndoTap, ev.UndoHold)):
        return "table"
    if isinstance(event, (ev.EndGame, ev.BringBackGame)):
        return "game"
    if isinstance(event, ev.CardScanned):
        return _scan_binding(event.tag, game)
    if isinstance(event, ev.TouchAction):
        do = event.action.get("do")
        if do == "scan":
            return _scan_binding(str(event.action.get("tag", "")), game)
        if do == "setup":
            return "game"
        return "turn" if do in TURN_BOUND else "table" if do in TABLE_BOUND else None
    return None


def _scan_binding(tag: str, game: Game | None) -> str | None:
    """A card this game already knows would complete an order (or be refused as another
    queue's): an act of the turn. A new card only names the next card dealt: any time."""
    return "turn" if game is not None and tag in game.used_tags else None


def stale(event: Any, game: Game | None, now: TableVersion) -> Rejection | None:
    """Why ``event`` must not act on the table ``now`` (``game`` its game), or None.

    An input acts only on the table its sender saw: a turn's action (a correction and
    a scan that would complete an order included) on that turn, an undo or a redo on
    that very table, a new game's setup while no other game has started since, a
    phone's action (``If-Match``) on exactly that table.
    """
    seen = seen_of(event)
    if seen is None or seen.same_table(now):
        return None
    binding = _binding(event, game)
    if binding is None or (binding == "game" and seen.game == now.game) \
            or (binding == "turn" and seen.same_turn(now)):
        return None
    return what_changed(seen, now, game)


def what_changed(seen: TableVersion, now: TableVersion, game: Game | None) -> Rejection:
    """The words for an input made against ``seen``: what has happened since."""
    if seen.game != now.game:
        return reject("stale_game")
    if not seen.same_turn(now):
        if game is None or now.active is None or not 0 <= now.active < len(game.players):
            return reject("stale_game_over")
        return reject("stale_turn", player=game.players[now.active].name)
    return reject("stale_table")


Refusal = tuple[Rejection, tuple[Happening, ...]]
"""Why an input changes nothing, and what that makes happen (a seat's ``NotYourTurn``)."""


def refusal(event: Any, game: Game | None, now: TableVersion) -> Refusal | None:
    """The one check of an input against what its sender saw: (why, what happened)
    when it changes nothing, else None. A seat press also belongs to the seat that
    was active when it began and to no press of another seat in flight then."""
    if isinstance(event, (ev.SeatTap, ev.SeatHold)) and game is not None \
            and game.active is not None and 0 <= event.seat < len(game.players):
        return _seat_refusal(event, game, game.active, now)
    why = stale(event, game, now)
    return None if why is None else (why, ())


def _seat_refusal(event: ev.SeatTap | ev.SeatHold, game: Game, active: int,
                  now: TableVersion) -> Refusal | None:
    press = event.press
    seen = press.seen if press is not None else None
    if seen is not None and seen.game != now.game:
        return reject("stale_game"), ()                  # begun before this game started
    # who was playing when the press began ("not your turn, Ben: Ana is playing")
    then = (seen.active if seen is not None and seen.active is not None
            and seen.active < len(game.players) else active)
    name = game.players[event.seat].name
    if seen is not None and then == event.seat and not seen.same_turn(now):
        return what_changed(seen, now, game), ()          # its own turn has ended since
    if event.seat != then or event.seat != active:
        return (reject("not_your_turn", player=name),
                (NotYourTurn(event.seat, name, game.players[then].name),))
    if press is not None and press.overlapped:
        # its own turn, but another seat's button was down as this press began
        return (reject("buttons_overlap", player=name),
                (NotYourTurn(event.seat, name, game.players[then].name, True),))
    return None


def _asked(event: Any) -> ActionDict | None:
    """What a refused input asked for, as a refused line's ``action`` (its "why?" names
    it); None for a seat press (its seat and turn say it)."""
    if isinstance(event, ev.TouchAction):
        return dict(event.action)
    if isinstance(event, (ev.UndoTap, ev.UndoHold)):
        return {"do": "undo" if isinstance(event, ev.UndoTap) else "redo"}
    if isinstance(event, ev.CardScanned):
        return {"do": "scan", "tag": event.tag}
    return None


class TableLoop:
    def __init__(self, session: Session, clock: Callable[[], float] = time.monotonic,
                 catalog_path: str | None = None):
        self.session = session
        self.clock = clock
        self.catalog_path = catalog_path
        self.inputs: queue.Queue[Any] = queue.Queue()
        self.subscribers: list[Subscriber] = []
        self._thread: threading.Thread | None = None
        self._halt = threading.Event()
        self.paused = False            # another program holds the journal's lock
        #: the table's settings as last applied (``inputs.SettingsChanged``; None until
        #: the first): only the loop's thread replaces them, outputs learn from its update
        self.settings: ev.SettingsChanged | None = None
        self.dropped = 0               # inputs never applied because the loop was halted
        #: called on the loop's own thread between inputs, at least every
        #: ``heartbeat_every`` seconds (the systemd watchdog): an input whose handling
        #: never returns stops the calls (a pause for the journal's lock does not).
        self.heartbeat: Callable[[], None] | None = None
        self.heartbeat_every = 10.0
        self._next_beat = 0.0
        journal = session.journal
        #: the version of the table as last applied (``inputs.TableVersion``); any thread
        #: may read it, only the loop's thread replaces it
        self.version = self._version(0, 0)
        if journal is not None and journal.current_game_id is not None:   # a resumed game
            self.version = self._version(journal.current_game_id, journal.current_seq or 0)
        #: the last BG Stats link a worker made for the table then shown (``_take``)
        self._play_link: ev.PlayLinkFound | None = None
        #: what every output shows now (``snapshot.Snapshot``): the loop's thread replaces it
        #: with each update it publishes; any thread may read it
        self.snapshot = Snapshot(session.table, self.version, session.game_id,
                                 tuple(session.seat_colors), Draws().after(session.table, ()),
                                 catalog=session.catalog)

    # --- for any thread --------------------------------------------------------------

    def post(self, event: Any) -> None:
        self.inputs.put(event)

    def subscribe(self, fn: Subscriber) -> None:
        self.subscribers.append(fn)

    @property
    def table(self) -> Table:
        return self.session.table

    def turn_now(self) -> TableVersion:
        """The version of the table as last applied, with its turn number and active
        seat. Any thread may ask (the buttons stamp presses with it, the scanner its
        lines, the screen its touches)."""
        return self.version

    def _version(self, game_id: int, step: int) -> TableVersion:
        game = self.session.table.game
        return TableVersion(game_id, step, None if game is None else game.turn,
                            None if game is None else game.active)

    def _advance(self, action: ActionDict) -> None:
        """The table changed (an accepted action): its next version. With a journal,
        the journal's game and sequence numbers; without, counted here."""
        journal = self.session.journal
        if journal is not None and journal.current_game_id is not None:
            game_id, step = journal.current_game_id, journal.current_seq or 0
        elif action.get("do") == "setup":
            game_id, step = self.version.game + 1, 0
        else:
            game_id, step = self.version.game, self.version.step + 1
        self.version = self._version(game_id, step)

    # --- running -----------------------------------------------------------------------

    def run(self) -> None:
        """Handle inputs until a ``Stop`` arrives or :meth:`halt` is called. The journal
        is this thread's alone meanwhile: anything else that needs it asks the loop."""
        journal = self.session.journal
        if journal is not None:
            journal.claim()
        try:
            while not self._halt.is_set():
                event = self._next_input()
                if event is None:
                    continue
                if isinstance(event, ev.Stop) or self._halt.is_set():
                    if not isinstance(event, ev.Stop):
                        self._drop(event)
                    return
                try:
                    self.handle(event)
                except Halted:
                    self._drop(event)
                    return
        finally:
            if journal is not None:
                journal.release()

    def _next_input(self) -> Any:
        """The next input; with a heartbeat, None when it is time for the next beat."""
        if self.heartbeat is None:
            return self.inputs.get()
        self._beat()
        try:
            return self.inputs.get(timeout=max(0.0, self._next_beat - time.monotonic()))
        except queue.Empty:
            return None

    def _beat(self) -> None:
        """Call the heartbeat if it is due (on the loop's thread)."""
        now = time.monotonic()             # real time: liveness, not game time
        if self.heartbeat is None or now < self._next_beat:
            return
        self._next_beat = now + self.heartbeat_every
        try:
            self.heartbeat()
        except Exception:
            log.exception("the heartbeat failed")

    def start(self) -> threading.Thread:
        self._thread = threading.Thread(target=self.run, name="table-loop", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the inputs already queued, then stop (tests, tools)."""
        self.post(ev.Stop())
        if self._thread is not None:
            self._thread.join(timeout)

    def halt(self, timeout: float = 2.0) -> bool:
        """Stop now (the service's shutdown): finish at most the input in hand,
        log the queued ones as dropped (none was applied, so none was ever
        acknowledged). True once the loop's thread has ended; only then may
        the journal be closed."""
        self._halt.set()
        self.post(ev.Stop())           # wake a loop waiting for input
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            if thread.is_alive():
                log.error("the table loop did not stop within %.1f s", timeout)
                return False
        while True:
            try:
                event = self.inputs.get_nowait()
            except queue.Empty:
                break
            if not isinstance(event, ev.Stop):
                self._drop(event)
        if self.dropped:
            log.warning("stopped with %d input(s) not applied (never acknowledged, dropped)",
                        self.dropped)
        return True

    def _drop(self, event: Any) -> None:
        self.dropped += 1
        log.debug("dropped at stop: %r", event)

    def drain(self) -> list[Update]:
        """Handle every input already queued, on this thread (tests, demo)."""
        out: list[Update] = []
        while True:
            try:
                event = self.inputs.get_nowait()
            except queue.Empty:
                return out
            if not isinstance(event, ev.Stop):
                out.append(self.handle(event))

    def handle(self, event: Any) -> Update:
        """Apply one input and tell every subscriber. While another program holds
        the journal's lock this waits (paused), trying again every
        ``RETRY_PAUSED_S``; :meth:`halt` ends the wait with :class:`Halted`."""
        log.debug("input: %s", event)        # --log-level debug: every press, scan, touch
        while True:
            try:
                update = self._handle(event)
                break
            except JournalBusy as exc:
                if not self.paused:
                    self.paused = True
                    log.warning("table paused: %s", exc)
                    self._tell(Update(ev.DeviceStatus("journal", "paused", str(exc)), self.table,
                                      happened=(TablePaused(str(exc)),),
                                      applied_at=self.clock()))
                if self._halt.wait(RETRY_PAUSED_S):
                    raise Halted() from None
                self._beat()               # waiting on purpose: still alive
            except Exception as exc:  # a bug must not stop the table: report it, keep going
                log.exception("input %r failed", event)
                update = Update(event, self.table,
                                rejection=reject("storage_failed", error=str(exc)))
                break
        if self.paused:
            self.paused = False
            log.info("table resumed: the journal is free again")
            self._tell(Update(ev.DeviceStatus("journal", "back"), self.table,
                              happened=(TableResumed(),), applied_at=self.clock()))
        return self._tell(update.but(version=self.version))

    def _tell(self, update: Update) -> Update:
        """Publish ``update`` with its version and the loop's next snapshot: what every
        subscriber is handed, and what is returned."""
        if update.version is None:
            update = update.but(version=self.version)
        self.snapshot = self.snapshot.after(update.table, self.version, update.happened,
                                            self.session.game_id,
                                            tuple(self.session.seat_colors),
                                            self.session.catalog, self._link_now())
        update = update.but(snapshot=self.snapshot)
        for fn in list(self.subscribers):
            try:
                fn(update)
            except Exception:
                log.exception("subscriber %r failed on %r", fn, update.event)
        return update

    # --- inputs -> actions -------------------------------------------------------------

    def _handle(self, event: Any) -> Update:
        posted = getattr(event, "at", 0.0)
        refused = refusal(event, self.table.game, self.version)
        if refused is not None:                 # stale, or a press not its seat's
            why, happened = refused
            if why.code in STALE:
                log.debug("refused a stale input (made against %s, the table is at %s): %r",
                         seen_of(event), self.version, event)
            return Update(event, self.table, _asked(event), happened=happened,
                          rejection=why, seat=getattr(event, "seat", None), posted_at=posted,
                          applied_at=self.clock())
        if isinstance(event, (ev.SeatTap, ev.SeatHold)):
            return self._seat(event, posted)
        marked = self._end_or_bring_back(event, posted)
        if marked is not None:
            return marked
        if isinstance(event, ev.UndoTap):
            return self._apply(event, {"do": "undo"}, posted)
        if isinstance(event, ev.UndoHold):
            return self._apply(event, {"do": "redo"}, posted)
        if isinstance(event, ev.CardScanned):
            return self._apply(event, {"do": "scan", "tag": event.tag}, posted)
        if isinstance(event, ev.TouchAction):
            return self._touch(event, posted)
        if isinstance(event, ev.ScriptLine):
            return self._update(event, None, self.session.apply_line(event.text), None, posted)
        if isinstance(event, ev.DeviceStatus):
            return Update(event, self.table,
                          happened=(DeviceStatusChanged(event.device, event.status, event.detail),),
                          posted_at=posted, applied_at=self.clock())
        if isinstance(event, ev.EnrollRequest):
            return self._enroll(event)
        if isinstance(event, ev.DismissDraws):
            return Update(event, self.table, happened=(DrawsDismissed(event.seat),),
                          seat=event.seat, applied_at=self.clock())
        if isinstance(event, (ev.SettingsChanged, ev.CatalogLoaded, ev.PlayLinkFound)):
            return self._take(event)
        raise TypeError(f"not an input event: {event!r}")

    def _end_or_bring_back(self, event: Any, posted: float) -> Update | None:
        """"End this game", and bringing it back (the start screen's Undo, or UNDO while
        an ended game waits): marks beside the game's lines, not table-script actions."""
        if isinstance(event, ev.EndGame):
            return self._end_game(event, posted)
        if isinstance(event, ev.BringBackGame) or (
                isinstance(event, ev.UndoTap) and self.table.game is None
                and self.session.ended is not None):
            return self._bring_back(event, posted)
        return None

    def _touch(self, event: ev.TouchAction, posted: float) -> Update:
        """A touch or a phone names its action: checked, then applied (a new game's setup
        carries the seat colours chosen with it)."""
        action = parse_action(dict(event.action))
        if isinstance(action, Rejection):
            return Update(event, self.table, dict(event.action), rejection=action,
                          posted_at=posted, applied_at=self.clock())
        if event.seat_colors and action["do"] == "setup":
            outcome = self.session.apply(action, seat_colors=tuple(event.seat_colors))
            return self._update(event, action, outcome, None, posted)
        return self._apply(event, action, posted)

    def _seat(self, event: ev.SeatTap | ev.SeatHold, posted: float) -> Update:
        game = self.table.game
        if game is None:
            return self._apply(event, {"do": "complete" if isinstance(event, ev.SeatTap)
                                       else "end_turn"}, posted, seat=event.seat)
        if not 0 <= event.seat < len(game.players):
            return Update(event, self.table, rejection=reject("empty_seat", seat=event.seat + 1),
                          seat=event.seat, posted_at=posted, applied_at=self.clock())
        action: ActionDict = {"do": "end_turn"}
        if isinstance(event, ev.SeatTap):
            slot = stepped_slot(game.players[event.seat], event.count) if event.count > 1 \
                else None
            action = {"do": "complete"} if slot is None \
                else complete_action(game.players[event.seat], slot)
        return self._apply(event, action, posted, seat=event.seat)

    def _apply(self, event: InputEvent, action: ActionDict, posted: float,
               seat: int | None = None) -> Update:
        return self._update(event, action, self.session.apply(action), seat, posted)

    def _update(self, event: InputEvent, action: ActionDict | None,
                outcome: Accepted | Rejection | None, seat: int | None, posted: float) -> Update:
        now = self.clock()
        if outcome is None:
            return Update(event, self.table, posted_at=posted, applied_at=now)
        if isinstance(outcome, Rejection):
            return Update(event, self.table, action, rejection=outcome, seat=seat,
                          posted_at=posted, applied_at=now)
        happened = outcome.happened + self._unknown_cards(outcome.happened)
        self._advance(outcome.action)
        return Update(event, outcome.table, action or {"do": "?"}, happened, seat=seat,
                      posted_at=posted, applied_at=now)

    def _end_game(self, event: ev.EndGame, posted: float) -> Update:
        """The table ends its game before the end: journaled beside the game's lines (not a
        line of them), and undoable until the next game is set up."""
        why = self.session.end_game()
        if why is not None:
            return Update(event, self.table, rejection=why, posted_at=posted,
                          applied_at=self.clock())
        self.version = TableVersion(self.version.game, self.version.step + 1, None, None)
        return Update(event, self.table, happened=(GameEndedEarly(),), posted_at=posted,
                      applied_at=self.clock())

    def _bring_back(self, event: ev.BringBackGame | ev.UndoTap, posted: float) -> Update:
        why = self.session.bring_back()
        if why is not None:
            return Update(event, self.table, {"do": "undo"}, rejection=why, posted_at=posted,
                          applied_at=self.clock())
        self.version = self._version(self.version.game, self.version.step + 1)
        return Update(event, self.table, happened=(GameBroughtBack(),), posted_at=posted,
                      applied_at=self.clock())

    def _take(self, event: ev.SettingsChanged | ev.CatalogLoaded | ev.PlayLinkFound) -> Update:
        """What the loop owns besides the table changes here, on its thread only: the
        settings, the card catalog, the BG Stats link a worker made (``play_link``). The
        update, and its snapshot, tell every output."""
        if isinstance(event, ev.SettingsChanged):
            self.settings = event
        elif isinstance(event, ev.CatalogLoaded):
            self.session.catalog = event.catalog
        elif event.made_for == self.version:      # else made for a table since changed
            self._play_link = event
        return Update(event, self.table, applied_at=self.clock())

    def _link_now(self) -> str | None:
        """The BG Stats link of the table as it is now, if one was made for it."""
        found = self._play_link
        return found.link if found is not None and found.made_for == self.version else None

    def _unknown_cards(self, happened: tuple[Happening, ...]) -> tuple[UnknownCard, ...]:
        cat = self.session.catalog
        return tuple(UnknownCard(h.tag) for h in happened
                     if isinstance(h, (CardIdentified, OrderCompleted))
                     and h.tag is not None and cat.get(h.tag) is None)

    def _enroll(self, event: ev.EnrollRequest) -> Update:
        game = self.table.game
        edition = game.edition if game else "original"
        card = CardInfo(event.tag, event.drink, tuple(event.recipe), event.specialty, edition)
        if self.catalog_path:        # saved first: the card is known only once it is on disk
            try:
                own = (Catalog.load(self.catalog_path) if os.path.exists(self.catalog_path)
                       else Catalog())
                own.with_card(card).save(self.catalog_path)
            except (OSError, CatalogError) as exc:
                return Update(event, self.table,
                              rejection=reject("storage_failed", error=str(exc)),
                              applied_at=self.clock())
        self.session.catalog = self.session.catalog.with_card(card)
        return Update(event, self.table, happened=(CardEnrolled(event.tag, event.drink),),
                      applied_at=self.clock())


class LogSubscriber:
    """Writes what happened to the log in words, in ``language``, with the players'
    names (the service's journal in systemd): one line per happening or refusal.
    An ``outputs.Output``."""

    name = "log"

    def __init__(self, logger: logging.Logger = log, language: str = i18n.DEFAULT):
        self.log = logger
        self.language = language

    def start(self, snapshot: Snapshot | None = None) -> LogSubscriber:
        return self                  # words for what happens from now on only

    def on_update(self, update: Update) -> None:
        self(update)

    def close(self) -> None:
        """Nothing to close: the log is the process's."""

    def status(self) -> str:
        return "ok"

    def __call__(self, u: Update) -> None:
        game = u.table.game
        edition = game.edition if game is not None else "original"
        # the players as the screen names them (a seat colour's name in the log's language)
        names = game_names(self.language,
                           tuple(p.name for p in game.players) if game is not None else (),
                           u.snapshot.seat_colours if u.snapshot is not None else ())
        if u.rejection is not None:
            self.log.info("%s", i18n.rejection_text(self.language,
                                                    shown_rejection(u.rejection, names)))
        for h in u.happened:
            if not isinstance(h, NotYourTurn) or u.rejection is None:
                self.log.info("%s", i18n.happening_text(self.language,
                                                        shown_happening(h, names), edition))
