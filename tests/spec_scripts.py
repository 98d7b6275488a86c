"""Random table scripts for the differential test (tests/test_spec_model.py).

Numbers stay at or under 10,000, names under 40 characters, tags under 128 and lines
under 64 KiB: the engine refuses more as hostile input (issue 8), a limit the spec does
not state (reported as a gap in the spec, so not something this check can decide).

``script(rng)`` writes a realistic game, line by line, looking at the reference model's
table to choose what a table would plausibly do next: mostly legal lines (the active
player completes, scans, ends the turn...), and a steady share of lines the rules forbid
or that are malformed. Seeded ``random.Random`` only, so a seed names a script.
"""
from __future__ import annotations

import json
import random

from spec_model import CAKE_UPGRADES, ORIGINAL_UPGRADES, WINTER_UPGRADES, Model

NAMES = ["Ana", "Ben", "Caro", "Dae", "Eun", "Fábio", "지민"]
# Tags the test catalog marks as specialty orders (yellow ribbon); made-up labels.
SPECIALTY_TAGS = frozenset(f"S{i}" for i in range(12))
ALL_UPGRADES = sorted(set(WINTER_UPGRADES) | set(CAKE_UPGRADES))


def dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


class Writer:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.model = Model(SPECIALTY_TAGS)
        self.lines: list[str] = []
        self.rejected: list[dict] = []    # the model's rejections, as in the output
        self.games_over = 0
        self.finished: list = []          # (lines, model output) where a finished game ended
        self.fresh = 0

    # ---------------------------------------------------------------- helpers
    def emit(self, line) -> None:
        text = line if isinstance(line, str) else dump(line)
        if self.chance(0.03):
            text = self.rng.choice(["  ", "\t", ""]) + text + self.rng.choice(["\r", " ", ""])
        before, game = self.game, self.game
        if game is not None and game.game_over and '"setup"' in text:
            before = self.model.output(list(self.rejected))
        self.lines.append(text)
        code = self.model.line(text)
        if code is not None:
            self.rejected.append({"line": len(self.lines), "reason": code})
        elif isinstance(before, dict) and self.game is not game:
            # a finished game gives way to a new one: its final state is checked too
            self.finished.append((len(self.lines) - 1, before))
        self.games_over += self.game is not None and self.game.game_over and \
            not (game is not None and game.game_over)

    @property
    def game(self):
        return self.model.game

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def new_tag(self) -> str:
        self.fresh += 1
        if self.chance(0.1):
            return f"S{self.rng.randrange(12)}"      # may repeat: a card read twice
        return f"04{self.fresh:02X}{self.rng.randrange(256):02X}"

    def me(self):
        """The active player (anyone once the game is over: their lines are refused)."""
        g = self.game
        return g.players[g.active] if g.active is not None else self.rng.choice(g.players)

    def tags_in(self, player) -> list:
        return [c.tag for pos in player.queue for c in pos if c.tag is not None]

    def all_tags(self) -> list:
        g = self.game
        return [t for p in g.players for t in self.tags_in(p)] + sorted(g.used_tags)

    # ---------------------------------------------------------------- setup
    def setup(self) -> dict:
        r = self.rng
        a = {"do": "setup"}
        edition = r.choice(["original", "winter"])
        a["edition"] = edition
        n = r.choice([2, 2, 3, 3, 4])
        names = r.sample(NAMES, n)
        a["players"] = names
        if self.chance(0.5):
            a["start"] = r.choice(names)
        junior = edition == "winter" and self.chance(0.3)
        if junior:
            a["variant"] = "junior"
            if self.chance(0.5):
                a["junior_cards"] = r.choice([2, 3, 4])      # 1.2: more cards
        elif self.chance(0.2):
            a["variant"] = "standard"
        cake = edition == "original" and self.chance(0.5)
        if cake:
            a["expansion"] = "cake_time"
            for key in ("longer_game", "two_drinks_one_cake"):
                if self.chance(0.5):
                    a[key] = self.chance(0.7)
        if edition == "original" and self.chance(0.3):
            a["ristretto_start"] = self.chance(0.8)
        if not junior and self.chance(0.6):
            allowed = CAKE_UPGRADES if cake else WINTER_UPGRADES if edition == "winter" \
                else ORIGINAL_UPGRADES
            if self.chance(0.5):
                a["upgrades"] = r.sample(allowed, 4)
            else:
                a["upgrades"] = {name: r.sample(allowed, 4) for name in names}
        if self.chance(0.15):
            self.spoil_setup(a)
        return a

    def spoil_setup(self, a: dict) -> None:
        """One thing a setup line can get wrong."""
        r = self.rng
        how = r.randrange(16)
        if how == 0:
            a["players"] = a["players"][:1]
        elif how == 1:
            a["players"] = a["players"] + [a["players"][0]]
        elif how == 2:
            a["start"] = "Zoe"
        elif how == 3:
            a["variant"] = "junior"
        elif how == 4:
            a["ristretto_start"] = r.choice([True, False])
        elif how == 5:
            a["expansion"] = "cake_time"
        elif how == 6:
            a["longer_game"] = True
        elif how == 7:
            a["two_drinks_one_cake"] = r.choice([True, False])
        elif how == 8:
            a["upgrades"] = r.sample(ALL_UPGRADES, r.choice([3, 4, 5]))
        elif how == 9:
            up = r.choice(ALL_UPGRADES)
            a["upgrades"] = [up, up] + r.sample(ALL_UPGRADES, 2)
        elif how == 10:
            a["upgrades"] = {name: r.sample(ALL_UPGRADES, 4) for name in a["players"][1:]}
        elif how == 11:
            a["edition"] = r.choice(["Original", "summer", 1])
        elif how == 14:
            a["expansion"] = r.choice(["cake", "Cake_Time", "winter"])
        elif how == 13 and isinstance(a.get("upgrades"), dict):
            a["upgrades"]["Zoe"] = r.sample(ALL_UPGRADES, 4)
        elif how == 12:
            a["players"] = a["players"][:-1] + [""]
        elif how == 15 and self.chance(0.5):
            a["junior_cards"] = r.choice([0, 1, 2, 3, 5])    # maybe not junior, maybe 1 or 5
        else:
            a["players"] = NAMES[:5]

    # ---------------------------------------------------------------- game lines
    def complete(self) -> dict:
        r = self.rng
        a = {"do": "complete"}
        me = self.me()
        mine = self.tags_in(me)
        if mine and self.chance(0.4):
            a["card"] = r.choice(mine)
            if self.chance(0.4):
                pos = next(i for i, q in enumerate(me.queue) if a["card"] in [c.tag for c in q])
                a["slot"] = pos + 1 if self.chance(0.8) else r.randint(1, 4)
        elif self.chance(0.1) and self.all_tags():
            a["card"] = r.choice(self.all_tags())
        elif self.chance(0.4):
            a["slot"] = r.randint(1, 4)
        if self.chance(0.2):
            a["specialty"] = self.chance(0.6)
        if self.game.cake_time and "card" not in a and self.chance(0.4) or self.chance(0.02):
            a["cake"] = self.chance(0.5)                 # 1.2: the order with/without a cake
        return a

    def scan(self) -> dict:
        r = self.rng
        a = {"do": "scan"}
        me = self.me()
        mine = self.tags_in(me)
        roll = r.random()
        if roll < 0.35 and mine:
            a["tag"] = r.choice(mine)
        elif roll < 0.45 and self.all_tags():
            a["tag"] = r.choice(self.all_tags())
        else:
            a["tag"] = self.new_tag()
        if self.chance(0.25):
            a["specialty"] = self.chance(0.6)
        return a

    def correct(self) -> dict:
        r, g = self.rng, self.game
        a = {"do": "correct"}
        if self.chance(0.2):
            a["deck"] = r.choice([0, 0, 1, 2, 3, 5, 8, r.randint(0, 60)])
            if self.chance(0.05):
                a["player"] = r.choice(g.players).name
            return a
        a["player"] = r.choice(g.players).name if self.chance(0.95) else "Zoe"
        keys = ["likes", "dislikes", "cookies"] + (["cake_cards"] if self.chance(0.6) else [])
        for key in r.sample(keys, r.randint(0 if self.chance(0.05) else 1, 2)):
            a[key] = r.choice([0, 1, 2, 3, 4, 5, 6, r.randint(0, 12)])
            if key == "likes" and self.chance(0.25):
                a[key] = r.randint(12, 30)      # enough to flip 4 tiles, and try a fifth
        return a

    def tile_run(self) -> None:
        """Tiles not named (1.3: 4 different ones per player): the active player, given
        likes enough, flips a tile a turn, five turns running (the fifth is refused); the
        others end their turns, now and then flipping one of their own."""
        r = self.rng
        who = self.me().name
        self.emit({"do": "correct", "player": who, "likes": r.randint(15, 20)})
        for _ in range(5):
            g = self.game
            if g is None or g.game_over or g.active is None:
                return
            me = g.players[g.active]
            if me.name == who or self.chance(0.3):
                ups = [u for u in me.tiles if u not in me.upgrades] or ALL_UPGRADES
                self.emit({"do": "activate_upgrade", "upgrade": r.choice(ups)})
            for _ in range(len(g.players)):
                self.emit({"do": "end_turn"})

    def cake(self) -> dict:
        r, g = self.rng, self.game
        who = r.choice(g.players)
        a = {"do": "cake", "player": who.name if self.chance(0.95) else "Zoe"}
        tags = self.tags_in(who)
        caked = [c.tag for pos in who.queue for c in pos if c.cake and c.tag is not None]
        if caked and self.chance(0.2):
            a["card"] = r.choice(caked)              # a card that has a cake already
        elif tags and self.chance(0.3):
            a["card"] = r.choice(tags)
        elif self.chance(0.05) and self.all_tags():
            a["card"] = r.choice(self.all_tags())    # maybe someone else's card
        if self.chance(0.4):
            a["slot"] = r.randint(1, 4)
        return a

    def malformed(self) -> str:
        r = self.rng
        return r.choice([
            '{"do": "end_turn",}', "{do: 'complete'}", "end_turn", "[1, 2]", '"scan"',
            '{"action": "end_turn"}', '{"do": "dance"}', '{"do": null}',
            '{"do": "complete", "player": "Ana"}', '{"do": "end_turn", "now": true}',
            '{"do": "complete", "slot": true}', '{"do": "complete", "slot": "1"}',
            '{"do": "complete", "slot": 1.5}', '{"do": "complete", "slot": 5}',
            '{"do": "complete", "slot": 0}', '{"do": "complete", "specialty": "yes"}',
            '{"do": "complete", "card": 7}', '{"do": "spend_cookies", "count": "2"}',
            '{"do": "spend_cookies", "count": 0}', '{"do": "spend_cookies"}',
            '{"do": "scan"}', '{"do": "scan", "tag": null}', '{"do": "scan", "tag": ""}',
            '{"do": "scan", "tag": "X1", "specialty": 1}', '{"do": "activate_upgrade"}',
            '{"do": "activate_upgrade", "upgrade": 3}',
            '{"do": "correct", "player": "Ana", "likes": "3"}',
            '{"do": "correct", "player": "Ana", "dislikes": -1}',
            '{"do": "correct", "likes": 2}', '{"do": "complete", "card": ""}',
            '{"do": "correct", "player": "Ana", "likes": ' + "9" * 5000 + "}",
            '{"do": "scan", "tag": ' + "[" * 20000 + "]" * 20000 + "}",
            '{"do": "correct", "deck": -2}', '{"do": "correct", "deck": true}',
            '{"do": "undo", "steps": 2}', '{"do": "redo", "x": 1}',
            '{"do": "cake"}', '{"do": "cake", "player": 1}',
            '{"do": "cake", "player": "Ana", "slot": 9}',
            '{"do": "play_cake_card", "count": 1}',
            '{"do": "setup", "edition": "original"}',
            '{"do": "setup", "players": ["Ana", "Ben"]}',
            '{"do": "setup", "edition": "original", "players": "Ana,Ben"}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], "seed": 1}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
            '"ristretto_start": "yes"}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
            '"expansion": "cake_time", "longer_game": 1}',
            '{"do": "setup", "edition": "original", "players": ["Ana", 2]}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
            '"expansion": "cake"}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
            '"expansion": null}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
            '"expansion": "cake_time", "upgrades": ["jump", "double_meeples", '
            '"double_corners", "storage"]}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], "start": 1}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "Ben"], '
            '"upgrades": "all"}',
            '{"do": "setup", "edition": "winter", "players": ["Ana", "Ben"], '
            '"upgrades": {"Ana": "jump", "Ben": ["jump"]}}',
            '{"do": "setup", "edition": "winter", "players": ["Ana", "Ben"], '
            '"upgrades": ["jump", "double_meeples", "double_corners", 4]}',
            '{"do": "setup", "edition": "winter", "players": ["Ana", "Ben"], "variant": 2}',
            '{"do": "correct", "player": "Ana", "likes": 10000}',
            '{"do": "correct", "deck": 10000}',
            '{"do": "spend_cookies", "count": 10000}',
            '{"do": "complete", "slot": 10000}',
            '{"do": "scan", "tag": "\\ud800"}', '{"do": "scan", "tag": "  "}',
            '{"do": "setup", "edition": "winter", "players": ["Ana", " "]}',
            '{"do": "setup", "edition": "original", "players": ["Ana", "B\\udc00n"]}',
            '{"do": "scan", "tag": "\u00e9t\u00e9 \ud55c"}',
            '{"do": "end_turn"} trailing',
            '{"do": "end_turn"}{"do": "end_turn"}',
            "\udcff\udcfe not UTF-8",          # bytes that are not UTF-8 (surrogateescape)
            '{"do": "end_turn", "note": "caf\udce9"}',
        ])

    def filler(self) -> str:
        return self.rng.choice(["", "   ", "# a comment", "   # an indented comment",
                                "\t", "#{\"do\": \"end_turn\"}"])

    def step(self) -> None:
        r, g = self.rng, self.game
        if g is None or (g.game_over and self.chance(0.6)):
            self.emit(self.setup())
            return
        if g.game_over and self.chance(0.3):
            self.emit(self.correct())     # the final count, fixed after the game
            return
        me = self.me()
        if g.any_tiles and g.active is not None and self.chance(0.03):
            self.tile_run()
            return
        if g.active is not None and not g.acted_this_turn and not g.upgraded_this_turn \
                and me.likes >= 3 and self.chance(0.3):
            ups = [u for u in me.tiles if u not in me.upgrades] or ALL_UPGRADES
            if me.upgrades and self.chance(0.1):
                ups = me.upgrades                    # one that is active already
            self.emit({"do": "activate_upgrade", "upgrade": r.choice(ups)})
            return
        cakes = 0.08 if g.cake_time else 0.01
        roll = r.random()
        if roll < 0.04:
            self.emit(self.malformed())
        elif roll < 0.07:
            self.emit(self.filler())
        elif roll < 0.09:
            self.emit(self.setup())
        elif roll < 0.13:
            self.emit(self.correct())
        elif roll < 0.18:
            undos = r.randint(1, 4)
            for _ in range(undos):
                self.emit({"do": "undo"})
            for _ in range(r.randint(0, undos + (1 if self.chance(0.2) else 0))):
                self.emit({"do": "redo"})
        elif roll < 0.19:
            self.emit({"do": "redo"})
        elif roll < 0.21:
            ups = [u for u in me.tiles if u not in me.upgrades] or ALL_UPGRADES
            up = r.choice(ups) if self.chance(0.8) else \
                r.choice(me.upgrades) if me.upgrades and self.chance(0.5) else \
                r.choice(ALL_UPGRADES)
            self.emit({"do": "activate_upgrade", "upgrade": up})
        elif roll < 0.24:
            self.emit({"do": "spend_cookies", "count": r.randint(1, max(1, me.cookies + 1))})
        elif roll < 0.24 + cakes:
            self.emit(self.cake())
        elif roll < 0.24 + 1.5 * cakes:
            self.emit({"do": "play_cake_card"})
        elif roll < 0.27 + 1.5 * cakes:
            for _ in range(r.randint(2, 4)):      # a busy turn: a big order surge
                self.emit(self.complete() if self.chance(0.7) else self.scan())
            self.emit({"do": "end_turn"})
        elif roll < 0.42:
            self.emit(self.scan())
        elif roll < 0.62:
            self.emit(self.complete())
        else:
            self.emit({"do": "end_turn"})


def writer(rng: random.Random, length: int = 0) -> Writer:
    """A random script written: ``.lines``; ``.model`` and ``.rejected`` are the spec
    model's table and rejections after it (the model's output, without a second pass)."""
    w = Writer(rng)
    if rng.random() < 0.03:                  # no game ever set up: the empty table's output
        for _ in range(rng.randint(1, 4)):
            w.emit(rng.choice([w.malformed(), w.filler(), '{"do": "end_turn"}',
                               '{"do": "undo"}', '{"do": "correct", "deck": 3}',
                               '{"do": "setup", "edition": "winter", "players": ["Ana"]}']))
        return w
    if rng.random() < 0.1:
        w.emit(w.rng.choice([w.malformed(), w.filler(), '{"do": "end_turn"}',
                             '{"do": "undo"}', '{"do": "correct", "deck": 3}']))
    for _ in range(length or rng.randint(5, 160)):
        w.step()
    if w.lines and rng.random() < 0.03:
        w.lines[0] = "\ufeff" + w.lines[0]     # a byte-order mark: ignored, same model
    return w
