"""``coffee-companion demo``: a whole game of bots at a simulated table.

The bots behave like players at a real table: they pass dealt cards over the
(simulated) scanner, tap their seat button for each order they complete, hold
it to end the turn, and use the touchscreen's actions to upgrade or spend
tokens. Every input goes through the table loop, the engine and a journal,
exactly as in the live service. The terminal shows each turn and the ranking.
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
from typing import Optional

from . import inputs as ev
from .catalog import Catalog
from .journal import Journal
from .rules.happenings import (CardsToDraw, DislikesTaken, FinalTurnBegins, GameOver,
                               OrderCompleted, ShopClosed, Stalled, TurnChanged,
                               UpgradeActivated)
from .rules.rejections import tokens_word
from .session import Session
from .table import TableLoop, Update

NAMES = ["Ana", "Ben", "Chloe", "Dae"]
CLOSED_WHY = {"deck_empty": "the order deck ran out", "five_dislikes": "{player} has 5 dislikes",
              "orders_done": "{player} completed every order"}


class Bots:
    """Decides what each simulated player does on their turn (seeded, reproducible)."""

    def __init__(self, loop: TableLoop, rng: random.Random, tags: list[str]):
        self.loop, self.rng, self.tags = loop, rng, list(tags)

    def scan_new_cards(self) -> None:
        """Pass freshly dealt or drawn cards over the scanner while example tags last."""
        game = self.loop.table.game
        waiting = sum(1 for p in game.players for pos in p.queue for c in pos if c.tag is None)
        for _ in range(min(waiting, len(self.tags))):
            self.loop.post(ev.CardScanned(self.tags.pop(0), source="demo"))

    def play_turn(self) -> None:
        game = self.loop.table.game
        me = game.active_player
        seat = game.active
        free = [u for u in me.tiles if u not in me.upgrades]
        if me.likes >= 3 and free and self.rng.random() < 0.6:
            self.loop.post(ev.TouchAction({"do": "activate_upgrade",
                                           "upgrade": self.rng.choice(free)}))
        if me.cookies and self.rng.random() < 0.3:
            self.loop.post(ev.TouchAction({"do": "spend_cookies",
                                           "count": self.rng.randint(1, me.cookies)}))
        urgent = len(me.queue[3]) + len(me.queue[2])
        done = min(me.order_count(), self.rng.choice([0, 1, 1, 1, 2, 2]) + (urgent > 2))
        for _ in range(done):
            self.loop.post(ev.SeatTap(seat))
        if self.rng.random() < 0.1:          # somebody taps out of turn now and then
            self.loop.post(ev.SeatTap((seat + 1) % len(game.players)))
        self.loop.post(ev.SeatHold(seat))


class TerminalPrinter:
    """Prints the game as it happens, one line per turn plus the notable moments."""

    def __init__(self, out=sys.stdout):
        self.out = out
        self.turn_notes: list[str] = []

    def __call__(self, u: Update) -> None:
        game = u.table.game
        token = tokens_word(game.rules.token) if game else "tokens"
        if u.rejection is not None and u.action and u.action.get("do") != "scan":
            self.turn_notes.append(f"(rejected: {u.rejection.text})")
        for h in u.happened:
            if isinstance(h, OrderCompleted):
                self.turn_notes.append("completes an order" + (" (specialty)" if h.specialty else ""))
            elif isinstance(h, UpgradeActivated):
                self.turn_notes.append(f"upgrades: {h.upgrade}")
            elif isinstance(h, CardsToDraw):
                who = ", then ".join(f"{p} draws {n}" for p, n in h.draws)
                if who:
                    self.turn_notes.append(f"[{who}]")
            elif isinstance(h, DislikesTaken):
                self.turn_notes.append(f"{h.count} order(s) missed -> {h.total} dislikes")
            elif isinstance(h, ShopClosed):
                why = CLOSED_WHY[h.reason].format(player=h.player)
                self.turn_notes.append(f"** shop CLOSED: {why} **")
            elif isinstance(h, FinalTurnBegins):
                self.turn_notes.append(f"-- final turn: {h.player} plays last --")
            elif isinstance(h, Stalled):
                self.turn_notes.append("!! every queue is empty: the game cannot go on")
            elif isinstance(h, TurnChanged):
                self._flush(h.previous, h.turn - 1, u)
            elif isinstance(h, GameOver):
                self._flush(None, game.turn, u)
                self.out.write("\nFinal ranking:\n")
                for r in h.ranking:
                    self.out.write(f"  {r.place}. {r.name:<8} {r.score:>3} points  "
                                   f"({r.likes} likes, {r.cookies} {token})\n")
                self.out.write(f"Winner{'s' if len(h.winners) > 1 else ''}: "
                               f"{', '.join(h.winners)}\n")

    def _flush(self, who: Optional[str], turn: int, u: Update) -> None:
        game = u.table.game
        if who is None:
            who = game.players[game.last_seat].name
        p = next(p for p in game.players if p.name == who)
        notes = "; ".join(self.turn_notes) or "passes"
        self.out.write(f"turn {turn:>3}  {who:<8} {notes}  | likes {p.likes} dislikes "
                       f"{p.dislikes} deck {game.deck}\n")
        self.turn_notes = []


def run(edition: str = "original", players: int | list = 3, seed: int = 1,
        variant: str = "standard", db: Optional[str] = None, out=sys.stdout,
        max_turns: int = 400) -> int:
    rng = random.Random(seed)
    names = players if isinstance(players, list) else NAMES[:players]
    scratch = None
    if db is None:
        scratch = tempfile.TemporaryDirectory(prefix="coffee-demo-")
        db = os.path.join(scratch.name, "journal.db")
    catalog = Catalog.example()
    tags = [t for t, c in catalog.cards.items() if c.edition == edition]
    rng.shuffle(tags)
    with Journal(db) as journal:
        session = Session(journal, catalog)
        loop = TableLoop(session)
        printer = TerminalPrinter(out)
        loop.subscribe(printer)
        setup = {"do": "setup", "edition": edition, "players": names,
                 "start": rng.choice(names), "variant": variant}
        if edition == "winter" and variant == "standard":
            pool = ["double_meeples", "diagonal_movement", "double_corners",
                    "double_specialties", "double_destination", "jump"]
            setup["upgrades"] = {n: rng.sample(pool, 4) for n in names}
        loop.post(ev.TouchAction(setup))
        loop.drain()
        out.write(f"Coffee Rush demo: {edition} ({variant}), {', '.join(names)}; "
                  f"{setup['start']} starts; deck {loop.table.game.deck}\n")
        bots = Bots(loop, rng, tags)
        for _ in range(max_turns):
            game = loop.table.game
            if game.game_over:
                break
            bots.scan_new_cards()
            loop.drain()
            bots.play_turn()
            stalled = any(h.kind == "stalled" for u in loop.drain() for h in u.happened)
            if stalled:
                out.write("The table would have to decide how to go on; the demo stops here.\n")
                break
        out.write(f"(journal: {db if scratch is None else 'temporary'})\n")
    if scratch is not None:
        scratch.cleanup()
    return 0
