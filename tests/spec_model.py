"""An independent reference model of the table-script contract, version 1.3.

(A script marked ``# table-script 1.1`` or ``1.2`` follows an older contract and is not for
it.)

Written from /work/shared/specs/table-script.md alone (not from ``companion/core/rules/``), so
that ``tests/test_spec_model.py`` can compare the engine's replay with a second reading of
the spec. ``replay(lines)`` turns the physical lines of a script into the spec's ``--json``
output ("Output" section); rejected lines carry their line number, and the reason is a
short code of the model's own (only line numbers are compared, never reason wording).

Where the spec leaves a question open, the question is written down beside the code as
``Q:`` and decided from the rulebooks in /work/shared/seeds/ (cited by file and section),
or, where they say nothing, by the plainest reading of the spec; the decision is ``A:``.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

ORIGINAL_UPGRADES = ["double_meeples", "diagonal_movement", "double_corners",
                     "double_specialties"]
WINTER_UPGRADES = ORIGINAL_UPGRADES + ["double_destination", "jump"]
CAKE_UPGRADES = ORIGINAL_UPGRADES + ["break_time", "double_destination", "storage"]

SETUP_KEYS = {"edition", "players", "start", "variant", "upgrades", "ristretto_start",
              "expansion", "longer_game", "two_drinks_one_cake", "junior_cards"}
# do -> (required keys, optional keys)
ACTION_KEYS = {
    "setup": ({"edition", "players"}, SETUP_KEYS - {"edition", "players"}),
    "complete": (set(), {"slot", "card", "specialty", "cake"}),
    "activate_upgrade": ({"upgrade"}, set()),
    "spend_cookies": ({"count"}, set()),
    "end_turn": (set(), set()),
    "scan": ({"tag"}, {"specialty"}),
    "correct": (set(), {"player", "likes", "dislikes", "cookies", "cake_cards", "deck"}),
    "cake": ({"player"}, {"slot", "card"}),
    "play_cake_card": (set(), set()),
    "undo": (set(), set()),
    "redo": (set(), set()),
}


class Rejected(Exception):
    """The line is rejected; ``args[0]`` is a short code (never compared)."""


def _int(v: Any) -> bool:
    # Q: is 2.0 (or 1e0) a whole number? A: no; JSON's 2.0 is a float, and the spec says
    #    "int" (spec "File format": a value of the wrong type is rejected).
    return isinstance(v, int) and not isinstance(v, bool)


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _filled(v: Any) -> bool:
    # Q: is a text of spaces only "non-empty" (a name, a tag)? A: no: a player sees no
    #    name on the screen and a scanner that reads only blanks read no card.
    return _text(v) and v.strip() != ""


def _unicode(v: Any) -> bool:
    """No text inside the value is half a surrogate pair."""
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(v, list):
        return all(_unicode(x) for x in v)
    if isinstance(v, dict):
        return all(_unicode(k) and _unicode(x) for k, x in v.items())
    return True


@dataclass(slots=True)
class Card:
    seq: int                      # arrival order: scan identifies the oldest first
    tag: str | None = None     # None until identified
    cake: bool = False


@dataclass
class Player:
    name: str
    tiles: list                   # the 4 upgrade tiles (face down or up); [] in junior
    queue: list = field(default_factory=lambda: [[], [], [], []])
    likes: int = 0
    dislikes: int = 0
    cookies: int = 0
    # Q: in which order does the output list active upgrades? A: the order they were
    #    activated (the spec's "active upgrade ids" names no order; the tiles are flipped
    #    one at a time, Winter 001 "Activate upgrades").
    upgrades: list = field(default_factory=list)
    cake_cards: int = 0


@dataclass
class Game:
    edition: str
    variant: str
    expansion: str | None
    two_drinks_one_cake: bool
    players: list
    start: int
    active: int | None
    deck: int
    turn: int = 1
    token: str = "open"
    game_over: bool = False
    next_seq: int = 0
    used_tags: set = field(default_factory=set)
    completed_this_turn: int = 0
    acted_this_turn: bool = False       # completed an order or spent cookies
    upgraded_this_turn: bool = False
    # 1.3: `upgrades` left out: "each player may flip any of the edition's ids ... at most 4
    #    different ones **per player**"
    any_tiles: bool = False
    cookies_from_orders: int = 0        # gained from orders completed this turn (1.2 spend)

    @property
    def junior(self) -> bool:
        return self.variant == "junior"

    @property
    def cake_time(self) -> bool:
        return self.expansion == "cake_time"

    @property
    def last_seat(self) -> int:
        return (self.start - 1) % len(self.players)

    def clone(self) -> Game:
        """A copy to change (the one before stays for `undo`)."""
        g = copy.copy(self)
        g.used_tags = set(self.used_tags)
        g.players = [copy.copy(p) for p in self.players]
        for p in g.players:
            p.tiles, p.upgrades = list(p.tiles), list(p.upgrades)
            p.queue = [[Card(c.seq, c.tag, c.cake) for c in pos] for pos in p.queue]
        return g

    def seat(self, name: Any) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise Rejected("unknown_player")


class Model:
    """The table as the spec describes it; ``line(text)`` applies one physical line."""

    def __init__(self, specialty_tags=frozenset()):
        self.specialty_tags = frozenset(specialty_tags)   # the card catalog's yellow ribbons
        self.game: Game | None = None
        self.undo_stack: list = []    # (game before, action)
        self.redo_stack: list = []    # (game before redo, action)

    # ----------------------------------------------------------------- lines and keys
    def line(self, text: str) -> str | None:
        """None when accepted or skipped; a rejection code otherwise. A line that is not
        UTF-8 arrives with its bad bytes as lone surrogates (``surrogateescape``)."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "not_utf8"          # "UTF-8 JSON Lines": not a line of the format
        if text.strip() == "" or text.lstrip().startswith("#"):
            return None
        try:
            action = self.parse(text)
            self.apply(action)
        except Rejected as r:
            return r.args[0]
        return None

    @staticmethod
    def parse(text: str) -> dict:
        try:
            action = json.loads(text)
        except (ValueError, RecursionError):     # also: 5,000 digits, 20,000 brackets
            raise Rejected("bad_json") from None
        if not isinstance(action, dict) or "do" not in action:
            raise Rejected("no_do")
        # Q: a JSON escape of half a surrogate pair ("\ud800") in a text? A: rejected: the
        #    format is UTF-8 JSON Lines, and such a string has no UTF-8 form (RFC 8259 8.2:
        #    unpaired surrogates are not interoperable); it cannot name a player or card.
        if not all(_unicode(v) for v in action.values()):
            raise Rejected("not_text")
        do = action["do"]
        if not isinstance(do, str) or do not in ACTION_KEYS:
            raise Rejected("unknown_do")
        required, optional = ACTION_KEYS[do]
        keys = set(action) - {"do"}
        if keys - required - optional:
            raise Rejected("unknown_key")
        if required - keys:
            raise Rejected("missing_key")
        for key, value in action.items():
            if key != "do" and not _type_ok(key, value):
                raise Rejected("wrong_type")
        return action

    def apply(self, action: dict) -> None:
        do = action["do"]
        if do == "setup":
            self.game = setup(self.game, action)
            self.undo_stack.clear()
            # Q: can `undo` right after a second `setup` revert the previous game's last
            #    action? A: no. The spec's undo skips `setup` lines but a new game starts a
            #    new table (rulebooks: every game starts from its own setup, e.g. Winter
            #    rulebook "Setup"); reaching into a finished game is not "the last accepted
            #    action" of this one. So a setup clears both histories.
            self.redo_stack.clear()
            return
        if do == "undo":
            if not self.undo_stack:
                raise Rejected("nothing_to_undo")
            before, undone = self.undo_stack.pop()
            self.redo_stack.append((self.game, undone))
            self.game = before
            return
        if do == "redo":
            if not self.redo_stack:
                raise Rejected("nothing_to_redo")
            before, redone = self.redo_stack[-1]
            after = ACTIONS[redone["do"]](self.game.clone(), redone, self.specialty_tags)
            self.redo_stack.pop()
            self.undo_stack.append((self.game, redone))
            self.game = after
            return
        if self.game is None:
            raise Rejected("no_game")
        after = ACTIONS[do](self.game.clone(), action, self.specialty_tags)
        self.undo_stack.append((self.game, action))
        self.redo_stack.clear()
        self.game = after

    # ----------------------------------------------------------------- output
    def output(self, rejected: list) -> dict:
        g = self.game
        if g is None:
            # Q: the output before any setup? A: the spec does not show it; the keys with
            #    nothing to say are null/empty, turn 0.
            return {"schema": 1, "edition": None, "variant": None, "expansion": None,
                    "players": [], "start": None, "active": None, "turn": 0,
                    "token": None, "deck": None, "game_over": False, "ranking": [],
                    "winners": [], "rejected": rejected}
        players = []
        for p in g.players:
            out = {"name": p.name,
                   "queue": [[c.tag for c in pos] for pos in p.queue],
                   "likes": p.likes, "dislikes": p.dislikes, "cookies": p.cookies,
                   "upgrades": list(p.upgrades), "score": score(g, p)}
            if g.cake_time:
                out["cake_cards"] = p.cake_cards
                out["cakes"] = [[c.cake for c in pos] for pos in p.queue]
            players.append(out)
        ranked = ranking(g) if g.game_over else []
        return {"schema": 1, "edition": g.edition, "variant": g.variant,
                "expansion": g.expansion, "players": players,
                "start": g.players[g.start].name,
                "active": None if g.active is None else g.players[g.active].name,
                "turn": g.turn, "token": g.token, "deck": g.deck,
                "game_over": g.game_over, "ranking": ranked,
                "winners": [r["name"] for r in ranked if r["place"] == 1],
                "rejected": rejected}


def _type_ok(key: str, v: Any) -> bool:
    if key in ("slot", "count", "likes", "dislikes", "cookies", "cake_cards", "deck",
               "junior_cards"):
        if not _int(v):
            return False
        if key == "slot":
            return 1 <= v <= 4
        if key == "count":
            return v >= 1
        return v >= 0
    if key in ("specialty", "ristretto_start", "longer_game", "two_drinks_one_cake", "cake"):
        return isinstance(v, bool)
    if key == "tag":
        return _filled(v)
    if key in ("card", "player", "upgrade", "edition", "start", "variant", "expansion"):
        return _text(v)
    if key == "players":
        return isinstance(v, list)
    if key == "upgrades":
        return isinstance(v, (list, dict))
    return False


def replay(lines: list[str], specialty_tags=frozenset()) -> dict:
    """The spec's ``--json`` output for a script given as its physical lines."""
    model = Model(specialty_tags)
    rejected = []
    # Q: a UTF-8 byte-order mark before line 1 (Windows editors write one)? A: ignored, as
    #    RFC 8259 8.1 lets a JSON parser do; it is no part of the first line.
    if lines and lines[0].startswith("\ufeff"):
        lines = [lines[0][1:]] + lines[1:]
    for n, text in enumerate(lines, 1):
        code = model.line(text)
        if code is not None:
            rejected.append({"line": n, "reason": code})
    return model.output(rejected)


# --------------------------------------------------------------------- scoring
def score(g: Game, p: Player) -> int:
    if g.edition == "winter":
        return p.likes * 2 + len(p.upgrades) * 5 - p.dislikes
    return p.likes + len(p.upgrades) * 2 - p.dislikes


def ranking(g: Game) -> list:
    # Q: after a shared place, is the next place 2 or 3? A: 3 (players ahead are counted,
    #    as in a sports table); the rulebooks only say tied players share the victory
    #    (original, Spanish 000 "Fin de la partida"; Winter 001 "Scoring").
    # Q: in which order are fully tied players listed? A: seat order (the spec does not
    #    say; the test compares tied players as a set).
    keyed = [((score(g, p), p.likes, p.cookies), i, p) for i, p in enumerate(g.players)]
    keyed.sort(key=lambda t: (tuple(-x for x in t[0]), t[1]))
    out = []
    for k, (key, _, p) in enumerate(keyed):
        place = k + 1 if k == 0 or keyed[k - 1][0] != key else out[-1]["place"]
        out.append({"name": p.name, "score": key[0], "likes": p.likes,
                    "cookies": p.cookies, "place": place})
    return out


# --------------------------------------------------------------------- setup
def setup(running: Game | None, a: dict) -> Game:
    if running is not None and not running.game_over:
        raise Rejected("game_running")
    edition = a["edition"]
    if edition not in ("original", "winter"):
        raise Rejected("bad_edition")
    names = a["players"]
    if not (2 <= len(names) <= 4) or not all(_filled(n) for n in names) \
            or len(set(names)) != len(names):
        raise Rejected("bad_players")
    if "start" in a and a["start"] not in names:
        raise Rejected("bad_start")
    start = names.index(a.get("start", names[0]))
    variant = a.get("variant", "standard")
    if variant not in ("standard", "junior") or (variant == "junior" and edition != "winter"):
        raise Rejected("bad_variant")
    ristretto = a.get("ristretto_start", False)
    # Q: is `"ristretto_start": false` accepted in a winter game? A: yes; only a true
    #    value needs the original game (the Ristretto/Espresso option is the original
    #    rulebook's, Spanish 000 "Variante"); false is the default.
    if ristretto and edition != "original":
        raise Rejected("ristretto_original_only")
    expansion = a.get("expansion")
    if expansion is not None and (expansion != "cake_time" or edition != "original"
                                  or variant != "standard"):
        raise Rejected("bad_expansion")
    cake_time = expansion == "cake_time"
    longer, two_drinks = a.get("longer_game", False), a.get("two_drinks_one_cake", False)
    if (longer or two_drinks) and not cake_time:
        raise Rejected("cake_time_only")
    tiles = upgrade_tiles(edition, variant, cake_time, names, a)
    # `junior_cards` (junior only: cards in each position, 2-4, default 2); "outside a junior
    # game, or outside 2-4, is rejected"
    if "junior_cards" in a and (variant != "junior" or not _int(a["junior_cards"])
                                or not 2 <= a["junior_cards"] <= 4):
        raise Rejected("bad_junior_cards")
    each = a.get("junior_cards", 2)

    n = len(names)
    if cake_time:
        deck = 110 if longer else 80 - {2: 30, 3: 20, 4: 10}[n] + 30
    elif edition == "winter":
        deck = 90 - {2: 20, 3: 10, 4: 0}[n]
    else:
        deck = 80
    players = [Player(name, list(tiles[name]),
                      cookies=1 if edition == "winter" else 0,
                      cake_cards=1 if cake_time else 0) for name in names]
    g = Game(edition, variant, expansion, two_drinks, players, start, start, deck)
    g.any_tiles = variant != "junior" and "upgrades" not in a
    clockwise = [(start + i) % n for i in range(n)]
    if variant == "junior":
        for i in clockwise:
            for pos in range(4):
                for _ in range(each):
                    deal(g, i, pos)
    elif ristretto:
        g.deck -= 4                  # the Ristretto/Espresso cards are set apart first
        for i in clockwise:
            put(g, i, 0)             # one of them, not from the deck
        for i in clockwise:
            deal(g, i, 1)
        deal(g, start, 0)
    elif edition == "winter":
        # 1.2: "winter standard (its book: "each player draws two", then the starting player
        #    "one additional"), each player clockwise from the starting player, position 1
        #    then position 2, then the starting player's second position-1 card"
        for i in clockwise:
            deal(g, i, 0)
            deal(g, i, 1)
        deal(g, start, 0)
    else:
        deal(g, start, 0)
        deal(g, start, 0)
        deal(g, start, 1)
        for i in clockwise[1:]:
            deal(g, i, 0)
            deal(g, i, 1)
    return g


def upgrade_tiles(edition, variant, cake_time, names, a) -> dict:
    if variant == "junior":
        if "upgrades" in a:
            raise Rejected("junior_no_upgrades")
        return {n: [] for n in names}
    allowed = CAKE_UPGRADES if cake_time else WINTER_UPGRADES if edition == "winter" \
        else ORIGINAL_UPGRADES
    ups = a.get("upgrades", allowed)        # 1.2: left out, any of the edition's ids
    # Q: must the 4 tiles be different? A: yes: each colour has one tile of each upgrade
    #    (Winter 001 "Components": 6 per colour; Korean 003 2.1: 4 tiles each).
    # Q: may the object form leave a player out, or name a stranger? A: no: every player
    #    places 4 tiles on their board (Winter 001 "Setup" step 4 and "Variable upgrades":
    #    each player chooses their own tiles), so the object names exactly the players.
    if isinstance(ups, list):
        per_player = {n: ups for n in names}
    else:
        if set(ups) != set(names):
            raise Rejected("bad_upgrades")
        per_player = ups
    for tiles in per_player.values() if "upgrades" in a else ():
        if not isinstance(tiles, list) or len(tiles) != 4 or len(set(map(repr, tiles))) != 4 \
                or not all(_text(t) and t in allowed for t in tiles):
            raise Rejected("bad_upgrades")
    return per_player


def put(g: Game, i: int, pos: int) -> None:
    """A card arrives in a position (the end of it); two drinks, one cake applies."""
    card = Card(g.next_seq)
    g.next_seq += 1
    position = g.players[i].queue[pos]
    position.append(card)
    if g.two_drinks_one_cake and pos == 0 and len(position) in (2, 4, 6):
        card.cake = True


def deal(g: Game, i: int, pos: int) -> None:
    g.deck -= 1
    put(g, i, pos)


def draw(g: Game, i: int, k: int) -> None:
    """Player i draws up to k cards into position 1; a draw that empties or finds the
    deck short flips the token ("The order deck running out triggers the end")."""
    for _ in range(k):
        if g.deck == 0:
            g.token = "closed"
            return
        deal(g, i, 0)
    if k > 0 and g.deck == 0:
        g.token = "closed"


# --------------------------------------------------------------------- actions
def running_game(g: Game) -> Player:
    """The active player of a running game (most actions need one)."""
    if g.game_over:
        raise Rejected("game_over")
    return g.players[g.active]


def find_card(p: Player, slot: int | None, tag: str | None):
    """(position index, card index) of the order `complete` names."""
    if tag is not None:
        positions = [slot - 1] if slot is not None else range(4)
        for pos in positions:
            for k, c in enumerate(p.queue[pos]):
                if c.tag == tag:
                    return pos, k
        raise Rejected("card_not_in_queue")
    if slot is not None:
        if not p.queue[slot - 1]:
            raise Rejected("slot_empty")
        return slot - 1, 0
    for pos in (3, 2, 1, 0):
        if p.queue[pos]:
            return pos, 0
    raise Rejected("queue_empty")


def complete(g: Game, a: dict, specialty_tags) -> Game:
    p = running_game(g)
    if "cake" in a:
        # 1.2: "`cake` (Cake Time only; rejected with `card` or outside Cake Time) narrows
        #    the choice to the orders with a cake (true) or without one (false): the first
        #    such card of `slot`, or of the highest position that holds one"
        if not g.cake_time or "card" in a:
            raise Rejected("bad_cake_choice")
        slot = a.get("slot")
        pos, k = next(((q, i) for q in ([slot - 1] if slot else (3, 2, 1, 0))
                       for i, c in enumerate(p.queue[q]) if c.cake == a["cake"]),
                      (None, None))
        if pos is None:
            raise Rejected("no_such_order")
    else:
        pos, k = find_card(p, a.get("slot"), a.get("card"))
    if g.completed_this_turn >= 3:
        raise Rejected("three_cups")
    card = p.queue[pos].pop(k)
    if card.tag is not None:
        g.used_tags.add(card.tag)
    p.likes += 1
    # Q: does `"specialty": false` overrule a catalog that says specialty? A: no: the
    #    spec says "specialty: true, or the card catalog says so"; the yellow ribbon is
    #    printed on the card (Winter 001 "Specialty menu"), a line cannot remove it.
    if a.get("specialty") is True or (card.tag is not None and card.tag in specialty_tags):
        p.cookies += 1
        g.cookies_from_orders += 1
    if card.cake:
        p.cake_cards += 1          # the cake goes back to the supply
    g.completed_this_turn += 1
    g.acted_this_turn = True
    if g.junior and not any(p.queue):
        g.token = "closed"
    return g


def activate_upgrade(g: Game, a: dict, _specialty_tags) -> Game:
    p = running_game(g)
    up = a["upgrade"]
    if g.junior or g.acted_this_turn or g.upgraded_this_turn or p.likes < 3 \
            or up not in p.tiles or up in p.upgrades:
        raise Rejected("no_upgrade")
    # 1.3: "at most 4 different ones **per player** (a player has 4 tiles ...) so two
    #    players together may flip 5 or more different ids"
    if g.any_tiles and len(p.upgrades) >= 4:
        raise Rejected("fifth_tile")
    p.likes -= 3
    p.upgrades.append(up)
    g.upgraded_this_turn = True
    return g


def spend_cookies(g: Game, a: dict, _specialty_tags) -> Game:
    p = running_game(g)
    # 1.2: "rejected when `count` exceeds the active player's cookies less the cookies they
    #    gained from orders completed this turn"
    if a["count"] > p.cookies - g.cookies_from_orders:
        raise Rejected("not_enough_cookies")
    p.cookies -= a["count"]
    g.acted_this_turn = True
    return g


def end_turn(g: Game, _a: dict, _specialty_tags) -> Game:
    p = running_game(g)
    n = len(g.players)
    k = g.completed_this_turn
    if g.cake_time and "break_time" in p.upgrades and k <= 1:
        p.cake_cards += 1
    if not g.junior:
        # 1. order surge
        if k > 0:
            drawers = [(g.active + 1) % n] if n == 2 else \
                [(g.active + 1) % n, (g.active + 2) % n]
            for i in drawers:
                draw(g, i, k)
            if g.deck == 0:
                g.token = "closed"
        # 2. flow of time
        missed = p.queue[3]
        p.dislikes += len(missed)
        p.cookies += len(missed)     # a cake on a missed order goes back to the supply
        p.queue = [[], p.queue[0], p.queue[1], p.queue[2]]
        if any(q.dislikes >= 5 for q in g.players):
            g.token = "closed"
        # 3. two players: the active player draws 1
        if n == 2:
            if g.deck == 0:
                g.token = "closed"
            else:
                draw(g, g.active, 1)
    # 4. end check, next player
    if g.token == "closed" and g.active == g.last_seat:
        g.game_over = True
        g.active = None
    else:
        g.active = (g.active + 1) % n
        g.turn += 1
    g.completed_this_turn = 0
    g.cookies_from_orders = 0
    g.acted_this_turn = False
    g.upgraded_this_turn = False
    return g


def scan(g: Game, a: dict, specialty_tags) -> Game:
    p = running_game(g)
    tag = a["tag"]
    if any(c.tag == tag for pos in p.queue for c in pos):
        done = {"do": "complete", "card": tag}
        if "specialty" in a:
            done["specialty"] = a["specialty"]
        return complete(g, done, specialty_tags)
    in_queues = [c for q in g.players for pos in q.queue for c in pos]
    if tag in g.used_tags or any(c.tag == tag for c in in_queues):
        raise Rejected("tag_used_or_elsewhere")
    # Q: do cards that left the queues unidentified (completed or missed without a scan)
    #    still wait to be identified? A: no: the scanner reads a card on the table, and
    #    only cards in queues are on the table (Winter 001 "Complete orders": a completed
    #    card goes face down as a like).
    # Q: a scan when no card waits to be identified? A: rejected: the tag names no card.
    # Q: does `specialty` on an identifying scan mark the card? A: no: the spec gives the
    #    flag a meaning only when the scan completes an order.
    waiting = [c for c in in_queues if c.tag is None]
    if not waiting:
        raise Rejected("nothing_to_identify")
    oldest = min(waiting, key=lambda c: c.seq)
    oldest.tag = tag
    g.used_tags.add(tag)
    return g


def correct(g: Game, a: dict, _specialty_tags) -> Game:
    counts = [k for k in ("likes", "dislikes", "cookies", "cake_cards") if k in a]
    if "deck" in a:
        if "player" in a or counts:
            raise Rejected("deck_alone")
        g.deck = a["deck"]
        if g.deck == 0 and not g.game_over and not g.junior:
            g.token = "closed"
        reopen(g)
        return g
    # Q: `correct` with a player and no count? A: rejected: it sets nothing ("player plus
    #    any of ...": at least one count).
    if "player" not in a or not counts:
        raise Rejected("correct_what")
    p = g.seat(a["player"])
    if "dislikes" in a and g.junior:
        raise Rejected("junior_no_dislikes")
    if "cake_cards" in a and not g.cake_time:
        raise Rejected("cake_time_only")
    for k in counts:
        setattr(p, k, a[k])
    if not g.game_over and any(q.dislikes >= 5 for q in g.players):
        g.token = "closed"
    reopen(g)
    return g


def reopen(g: Game) -> None:
    """1.2: "in a running standard game one that leaves the deck above 0 and every player
    below 5 dislikes turns a closed token back to open"."""
    if not g.game_over and not g.junior and g.deck > 0 \
            and all(q.dislikes < 5 for q in g.players):
        g.token = "open"


def cake(g: Game, a: dict, _specialty_tags) -> Game:
    if not g.cake_time or g.game_over:
        raise Rejected("no_cake_here")
    p = g.seat(a["player"])
    slot, tag = a.get("slot"), a.get("card")
    if tag is not None:
        positions = [slot - 1] if slot is not None else range(4)
        cards = [c for pos in positions for c in p.queue[pos] if c.tag == tag]
    else:
        cards = list(reversed(p.queue[(slot or 1) - 1]))   # newest first
    for c in cards:
        if not c.cake:
            c.cake = True
            return g
    raise Rejected("no_card_for_cake")


def play_cake_card(g: Game, _a: dict, _specialty_tags) -> Game:
    p = running_game(g)
    if not g.cake_time or p.cake_cards < 1 or g.completed_this_turn > 0:
        raise Rejected("no_cake_card")
    p.cake_cards -= 1
    return g


ACTIONS = {"complete": complete, "activate_upgrade": activate_upgrade,
           "spend_cookies": spend_cookies, "end_turn": end_turn, "scan": scan,
           "correct": correct, "cake": cake, "play_cake_card": play_cake_card}
