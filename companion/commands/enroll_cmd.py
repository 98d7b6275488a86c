"""``coffee-companion enroll``: tell the companion which drink each card is.

Scan a card (or type its tag, or give ``--tag``), then answer three
questions: the drink's name, its 2 to 4 ingredients (from the edition's
eight) and whether it is a specialty order (yellow ribbon). Each card is
saved at once to the user catalog, the first file of ``[catalog] paths``,
through ``Catalog.save`` (temporary file, fsync, rename), so the file is
always whole: a wrong answer is asked again, and Ctrl-C leaves every card
saved so far and nothing half-written.

Tags come from, in this order of preference: ``--tag`` options; the card
scanner named by ``[scanner] port``; otherwise the keyboard (a QR scanner
that "types" like a keyboard works there too).
"""
from __future__ import annotations

import difflib
import os
import queue
import re

HELP = "name the drinks of your cards (NFC stickers or QR labels): writes your card catalog"

MAX_DRINK = 40
MAX_TAG = 64
YES, NO = ("y", "yes"), ("n", "no")


def add_arguments(p):
    p.add_argument("--tag", action="append", metavar="TAG",
                   help="enroll this tag instead of scanning (repeat for several)")
    p.add_argument("--keyboard", action="store_true",
                   help="type the tags even when [scanner] port is set")
    p.add_argument("--edition", choices=("original", "winter"),
                   help="edition of the cards (default: [game] edition)")
    p.add_argument("--catalog", metavar="FILE",
                   help="catalog to write (default: the first of [catalog] paths)")


def main(args) -> int:
    from .cli import load_config
    cfg = load_config(args)
    path = os.path.expanduser(args.catalog or cfg.catalog.paths[0])
    edition = args.edition or cfg.game.edition
    enrollment = Enrollment(path, edition)
    reader = None
    try:
        if args.tag:
            tags = iter(args.tag)
        elif cfg.scanner.port and not args.keyboard:
            from companion.devices.scanner import ScannerReader
            events: queue.Queue = queue.Queue()
            reader = ScannerReader.from_config(cfg, events.put).start()
            tags = scanned_tags(events, enrollment)
        else:
            tags = typed_tags(enrollment)
        return enrollment.run(tags)
    except KeyboardInterrupt:
        enrollment.say("")
        enrollment.say(f"Stopped. {enrollment.saved_in_file()} card(s) saved to {path}; "
                       "the file is complete.")
        return 130
    finally:
        if reader is not None:
            reader.close()


class Enrollment:
    """The questions and the saving; ``ask``/``say`` are the terminal (tests replace them)."""

    def __init__(self, path: str, edition: str, ask=None, say=None):
        from companion.core.rules.editions import EDITIONS
        self.path = path
        self.edition = edition
        self.ingredients = EDITIONS[edition].ingredients
        self.ask = ask or (lambda prompt: input(prompt))
        self.say = say or (lambda text: print(text, flush=True))
        self.saved = 0
        self.answered: list = []          # every card whose questions were answered, in order
        self.own = self._load()           # a catalog we cannot read stops us here, untouched

    def _load(self):
        from companion.core.catalog import Catalog
        return Catalog.load(self.path) if os.path.exists(self.path) else Catalog()

    def saved_in_file(self) -> int:
        """How many of this session's cards the file holds now (after a Ctrl-C that may have
        landed between a save and its count)."""
        from companion.core.catalog import CatalogError
        try:
            on_disk = self._load()
        except (OSError, CatalogError):    # unreadable now: what was counted stands
            return self.saved
        return sum(1 for card in self.answered if on_disk.get(card.tag) == card)

    def run(self, tags) -> int:
        self.say(f"Enrolling {self.edition} cards into {self.path} "
                 f"({len(self.own)} card(s) in it now). Ctrl-C to stop.")
        for tag in tags:
            try:
                if not self.enroll(tag):
                    continue
            except EOFError:
                self.say(f"\nInput ended: {tag} was not saved.")
                return 1
            except OSError as exc:
                self.say(f"Cannot save to {self.path} ({exc}); the file is unchanged.")
                return 1
        self.say(f"Done: {self.saved} card(s) saved to {self.path}.")
        return 0

    def enroll(self, tag: str) -> bool:
        """Ask about one card and save it; False when the user keeps the old entry."""
        from companion.core.catalog import CardInfo
        tag = tag.strip()
        problem = tag_problem(tag)
        if problem:
            self.say(f"Skipped {tag!r}: {problem}")
            return False
        self.say(f"\nCard {tag}")
        known = self.own.get(tag)
        if known is not None:
            self.say(f"  already enrolled: {describe(known)}")
            if not self.ask_until("  Replace it? [y/N] ", yes_no(False)):
                return False
        drink = self.ask_until("  Drink name: ", drink_name)
        choices = ", ".join(f"{n} {i}" for n, i in enumerate(self.ingredients, 1))
        recipe = self.ask_until(
            f"  Ingredients, 2 to 4 ({choices}): ",
            ingredient_list(self.ingredients, self.edition))
        specialty = self.ask_until("  Specialty order (yellow ribbon)? [y/N] ", yes_no(False))
        card = CardInfo(tag, drink, recipe, specialty, self.edition)
        self.answered.append(card)        # before saving: Ctrl-C may land right after the save
        self.own = self._load().with_card(card)   # re-read: keep what others saved meanwhile
        self.own.save(self.path)
        self.saved += 1
        self.say(f"  saved: {describe(card)}")
        return True

    def ask_until(self, prompt: str, parse):
        """Ask until ``parse(answer)`` gives (value, None); say each problem."""
        while True:
            value, problem = parse(self.ask(prompt).strip())
            if problem is None:
                return value
            self.say(f"  {problem}")


# --------------------------------------------------------------------------
# Answers: each parser returns (value, None) or (None, what is wrong)


def tag_problem(tag: str):
    if not tag:
        return "empty tag"
    if len(tag) > MAX_TAG:
        return f"longer than {MAX_TAG} characters"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in tag):
        return "control characters in the tag"
    return None


def drink_name(answer: str):
    if not answer:
        return None, "A name is needed, e.g. Caramel latte."
    if len(answer) > MAX_DRINK:
        return None, f"At most {MAX_DRINK} characters, please."
    if any(ord(ch) < 0x20 for ch in answer):
        return None, "Letters, digits and punctuation only."
    return answer, None


def ingredient_list(allowed, edition: str):
    def parse(answer: str):
        words = [w for w in re.split(r"[\s,;+]+", answer.lower()) if w]
        recipe = []
        for w in words:
            if w.isdigit() and 1 <= int(w) <= len(allowed):
                recipe.append(allowed[int(w) - 1])
            elif w in allowed:
                recipe.append(w)
            else:
                close = difflib.get_close_matches(w, allowed, 1)
                hint = f" Did you mean {close[0]}?" if close else ""
                return None, (f"{w!r} is not an ingredient of {edition} "
                              f"({', '.join(allowed)}).{hint}")
        if not 2 <= len(recipe) <= 4:
            return None, f"A recipe has 2 to 4 ingredients, not {len(recipe)}."
        return tuple(recipe), None
    return parse


def yes_no(default: bool):
    def parse(answer: str):
        a = answer.lower()
        if not a:
            return default, None
        if a in YES:
            return True, None
        if a in NO:
            return False, None
        return None, "Please answer y or n."
    return parse


def describe(card) -> str:
    return (f"{card.drink} = {' + '.join(card.recipe)}"
            + (", specialty" if card.specialty else "") + f" ({card.edition})")


# --------------------------------------------------------------------------
# Where tags come from


def typed_tags(enrollment: Enrollment):
    """Tags typed (or "typed" by a keyboard-mode QR scanner); an empty line or EOF ends."""
    while True:
        try:
            tag = enrollment.ask("\nScan a card or type its tag (empty line to finish): ").strip()
        except EOFError:
            return
        if not tag:
            return
        yield tag


def scanned_tags(events: queue.Queue, enrollment: Enrollment):
    """Tags from the scanner thread; its status changes are shown as they come."""
    from companion.core import events as ev
    enrollment.say("Put a card on the scanner. Ctrl-C when you are done.")
    while True:
        try:
            event = events.get(timeout=0.5)     # a timeout keeps Ctrl-C responsive
        except queue.Empty:
            continue
        if isinstance(event, ev.DeviceStatus):
            enrollment.say(f"scanner {event.status}: {event.detail}")
            if event.status == "unavailable":
                enrollment.say("Type the tags instead.")
                yield from typed_tags(enrollment)
                return
        elif isinstance(event, ev.CardScanned):
            yield event.tag
            enrollment.say("\nPut the next card on the scanner (Ctrl-C when you are done).")

