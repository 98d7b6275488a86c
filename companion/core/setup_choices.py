"""The choices of a new game's setup, as the setup wizard asks them (pure: no screen).

``SetupChoices`` holds what the table chose, step by step, keeps it within the
box's rules (``rules.editions``) and turns it into the table-script ``setup``
action. Its randomness comes from an injected ``random.Random``. The few rules
of setting up that are not the engine's are plain functions here:

- ``meeple_order``: meeples are placed counterclockwise from the player to the
  right of the starting player; two players place two each, alternating, the
  other player first (Winter rulebook, Setup 7 and 2 Player Rules; Spanish
  rulebook, Preparación 6 and partidas de 2 jugadores);
- ``deal_preview``: the game a setup action starts (cards per player and
  position, the deck), from the pure engine (``rules.setup.start_game``);
- ``draw_upgrades``: Cake Time's rule, the starting player draws 4 of the 7
  upgrade tiles at random (the setup line records them, so a replay never
  draws again);
- the main board, printed or Winter's "Main board chaos!": ``companion.core.board``.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .board import Board, chaos_board, new_seed, printed_board
from . import seat_colours
from .rules import Rejection, parse_action
from .rules.editions import (EDITIONS, EXPANSION_OPTIONS, EXPANSIONS, JUNIOR_CARDS,
                             ORIGINAL_UPGRADES,
                             UPGRADE_TILES, Edition, box_rules)
from .rules.happenings import GameStarted
from .rules.setup import start_game
from .rules.state import Game

COLOURS = seat_colours.NAMES     # the meeples' colours, in box order
MAX_NAME = 16                                    # letters of a player's name


def meeple_order(count: int, start: int) -> list[int]:
    """Seats in meeple placement order for ``count`` players, ``start`` starting."""
    if count == 2:
        other = 1 - start
        return [other, start, other, start]
    return [(start - 1 - i) % count for i in range(count)]


def deal_preview(action: dict) -> tuple[Game, GameStarted] | Rejection:
    """The game the ``setup`` action starts, from the pure engine (nothing is posted)."""
    parsed = parse_action(action)
    if isinstance(parsed, Rejection):
        return parsed
    return start_game(parsed)


def draw_upgrades(upgrades: Sequence[str], rng: random.Random) -> list[str]:
    """Cake Time: 4 of the box's ``upgrades`` drawn at random, in the rulebook's order."""
    return sorted(rng.sample(list(upgrades), UPGRADE_TILES), key=list(upgrades).index)


def _four_of(box: Sequence[str], tiles: Any) -> list[str] | None:
    """``tiles`` as four different tiles of ``box``, in the box's order (None: they are not)."""
    ok = isinstance(tiles, list) and len(set(tiles)) == len(tiles) == UPGRADE_TILES \
        and all(u in box for u in tiles)
    return [u for u in box if u in tiles] if ok else None


class SetupChoices:
    """Everything the setup wizard asks, with the rules' constraints."""

    def __init__(self, edition: str = "original", rng: random.Random | None = None):
        self.edition = edition if edition in EDITIONS else "original"
        self.expansion: str | None = None
        self.options: dict[str, bool] = {}            # the expansion's optional rules
        self.drawn_tiles: list[str] | None = None  # the box's random 4 (Cake Time)
        # a new game after a game whose tiles were drawn: that game's four, on offer again
        # (``keep_last_draw``); by the box's rule four are drawn anew
        self.last_drawn: list[str] | None = None
        self.kept_draw = False                         # the last game's four are kept
        self._new_draw: list[str] | None = None        # the new draw, while they are
        self.variant = "standard"
        self.junior_cards = JUNIOR_CARDS[0]           # Junior: cards in each position (2-4)
        self.count = 4
        self.names = [""] * 4
        self.colours = list(COLOURS)
        self.start: int | None = None
        # "shared", "draw" (Cake Time), "each", or "open" (not named: any of the box's tiles
        # during the game, 4 different ones at most each; table script 1.3)
        self.upgrade_mode = "shared"
        self.shared_tiles = list(ORIGINAL_UPGRADES)
        self.player_tiles = [list(ORIGINAL_UPGRADES) for _ in range(4)]
        self.ristretto = False
        self.board_mode = "printed"                   # "printed" or "chaos"
        self.seed: int | None = None
        self.rng = rng if rng is not None else random.Random()

    # --- choices ----------------------------------------------------------------------

    @property
    def box(self) -> Edition:
        """The box on the table: the edition with its expansion's additions."""
        return box_rules(self.edition, self.expansion)

    def set_edition(self, edition: str, expansion: str | None = None) -> None:
        self.edition = edition
        if expansion is not None and EXPANSIONS[expansion].edition != edition:
            expansion = None
        if expansion != self.expansion:
            self.options = {o: False for o in EXPANSION_OPTIONS.get(expansion or "", ())}
            self.drawn_tiles, self.kept_draw, self._new_draw = None, False, None
        self.expansion = expansion
        if self.box.upgrade_draw:
            self.upgrade_mode = "draw" if self.upgrade_mode != "each" else "each"
        elif self.upgrade_mode == "draw":
            self.upgrade_mode = "shared"
        self._drop_what_the_box_lacks()
        self.fix_colours()

    def _drop_what_the_box_lacks(self) -> None:
        """After a change of box: a variant, Ristretto start or tiles it has not go."""
        if self.variant not in EDITIONS[self.edition].variants:
            self.variant = "standard"
        if not EDITIONS[self.edition].ristretto_start:
            self.ristretto = False
        allowed = set(self.box.upgrades)
        self.shared_tiles = [u for u in self.shared_tiles if u in allowed]
        self.player_tiles = [[u for u in tiles if u in allowed] for tiles in self.player_tiles]

    def set_count(self, count: int) -> None:
        self.count = count
        if self.start is not None and self.start >= count:
            self.start = None
        self.fix_colours()

    @property
    def seats(self) -> range:
        return range(self.count)

    @property
    def players(self) -> list[str]:
        return [n.strip() for n in self.names[:self.count]]

    def set_name(self, seat: int, name: str) -> str | None:
        """Give ``seat`` this name; the name of another seat is refused (returns it)."""
        name = " ".join(name.split())[:MAX_NAME]
        for other in self.seats:
            if other != seat and name and self.names[other].strip().casefold() == name.casefold():
                return self.names[other].strip()
        self.names[seat] = name
        return None

    def offered_colours(self) -> tuple[str, ...]:
        """The colours the box can equip (original, 2 players: red and blue only, the
        colours with two meeples each)."""
        return self.box.colours_for(self.count)

    def fix_colours(self) -> None:
        """Every seat in play gets a different offered colour (keeping choices made)."""
        offered = self.offered_colours()
        used: list[str] = []
        for seat in self.seats:
            c = self.colours[seat]
            if c not in offered or c in used:
                c = next(x for x in offered if x not in used)
                self.colours[seat] = c
            used.append(c)

    def set_colour(self, seat: int, colour: str) -> None:
        """Give ``seat`` this colour; a seat that had it takes this seat's old one."""
        if colour not in self.offered_colours():
            return
        for other in self.seats:
            if other != seat and self.colours[other] == colour:
                self.colours[other] = self.colours[seat]
        self.colours[seat] = colour

    def flip_ristretto(self) -> None:
        self.ristretto = not self.ristretto

    def flip_option(self, option: str) -> None:
        """Switch one of the expansion's optional rules on or off."""
        self.options[option] = not self.options[option]

    @property
    def uses_upgrades(self) -> bool:
        return self.variant != "junior"

    @property
    def chooses_tiles(self) -> bool:
        """Winter: 4 of the 6 tiles; the original game always plays its four."""
        return self.box.chooses_upgrade_tiles and self.uses_upgrades

    def draw_tiles(self) -> list[str]:
        """The box's rule (Cake Time): the starting player draws 4 of the 7 tiles at random."""
        self.drawn_tiles = draw_upgrades(self.box.upgrades, self.rng)
        return self.drawn_tiles

    def set_upgrade_mode(self, mode: str) -> None:
        """"shared", "each", or "draw" (the box's rule: the tiles are drawn once, now)."""
        self.upgrade_mode = mode
        if mode == "draw" and self.drawn_tiles is None:
            self.draw_tiles()

    def keep_tiles(self, upgrades: Any, players: Any) -> None:
        """The tiles a finished game's setup line named (``upgrades``; ``players``: its
        names, in seat order), kept for the next game with the same box: the same four for
        everyone, each seat's own, or none named (decided at the table). Four drawn by the
        box's rule (Cake Time) are drawn again, as a new game by the books does, once the
        wizard reaches the tiles; the last game's four stay on offer (``last_drawn``). A
        line that does not fit the box changes nothing."""
        if not self.chooses_tiles:
            return
        box = self.box.upgrades
        if upgrades is None:
            self.upgrade_mode = "open"
            return
        if isinstance(upgrades, dict):
            each = self._tiles_by_seat(upgrades, players)
            if each is None:
                return
            if any(tiles != each[0] for tiles in each):
                self.upgrade_mode = "each"
                self.player_tiles[:self.count] = each
                return
            upgrades = each[0]                # (the same four for everyone)
        shared = _four_of(box, upgrades)
        if shared is None:
            return
        if self.box.upgrade_draw:
            self.upgrade_mode, self.drawn_tiles, self.last_drawn = "draw", None, shared
            self.kept_draw, self._new_draw = False, None
        else:
            self.upgrade_mode, self.shared_tiles = "shared", shared

    def keep_last_draw(self, keep: bool) -> None:
        """A new game after a drawn game: its four again (``keep``), or the four the box's
        rule drew anew (the same new four each time: going back and forth draws once)."""
        if self.last_drawn is None or self.upgrade_mode != "draw" or keep == self.kept_draw:
            return
        if keep:
            self._new_draw, self.drawn_tiles = self.drawn_tiles, list(self.last_drawn)
        else:
            self.drawn_tiles = self._new_draw
            if self.drawn_tiles is None:
                self.draw_tiles()
        self.kept_draw = keep

    def _tiles_by_seat(self, upgrades: dict, players: Any) -> list[list[str]] | None:
        """Each seat's four tiles of a setup line's object form (None: it does not fit)."""
        if not isinstance(players, list) or len(players) != self.count \
                or set(players) != set(upgrades):
            return None
        each = [_four_of(self.box.upgrades, upgrades[name]) for name in players]
        return None if any(t is None for t in each) else [t for t in each if t is not None]

    def tiles_of(self, seat: int | None) -> list[str]:
        """The tiles of ``seat`` (None: the tiles everyone plays with)."""
        if seat is None and self.upgrade_mode == "draw":
            return self.drawn_tiles if self.drawn_tiles is not None else []
        return self.shared_tiles if seat is None else self.player_tiles[seat]

    def toggle_tile(self, seat: int | None, upgrade: str) -> None:
        tiles = self.tiles_of(seat)
        if upgrade in tiles:
            tiles.remove(upgrade)
        elif len(tiles) < UPGRADE_TILES:
            tiles.append(upgrade)

    def roll_seed(self) -> int:
        self.seed = new_seed(self.rng)
        return self.seed

    def set_board_mode(self, mode: str) -> None:
        """"printed" or "chaos" (a seed is rolled the first time chaos is chosen)."""
        self.board_mode = mode
        if mode == "chaos" and self.seed is None:
            self.roll_seed()

    def board(self) -> Board:
        """The main board these choices give (as printed until a chaos seed is rolled)."""
        if EDITIONS[self.edition].board_chaos and self.board_mode == "chaos" \
                and self.seed is not None:
            return chaos_board(self.seed)
        return printed_board(self.edition)

    # --- the steps ----------------------------------------------------------------------

    def steps(self) -> list[str]:
        out = ["edition", "players", "names", "colours", "start"]
        if self.chooses_tiles:
            out.append("upgrades")
        if self.box.ristretto_start or self.options:
            out.append("options")
        if EDITIONS[self.edition].board_chaos:
            out.append("board")
        return out + ["deal", "meeples"]

    def enter(self, step: str) -> None:
        """Get ready to show ``step``: colours fit the player count; from the upgrade step
        on, the box's rule has drawn the tiles (once: a replay reads them from the setup)."""
        if step == "colours":
            self.fix_colours()
        steps = self.steps()
        if "upgrades" in steps and step in steps \
                and steps.index(step) >= steps.index("upgrades") \
                and self.upgrade_mode == "draw" and self.drawn_tiles is None:
            self.draw_tiles()

    def problem(self, step: str) -> tuple[str, dict] | None:
        """Why the wizard cannot go past ``step`` yet: (text key, params), or None."""
        if step == "names" and any(not n for n in self.players):
            return "wizard.names_missing", {}
        if step == "start" and self.start is None:
            return "wizard.start_needed", {}
        if step == "upgrades" and self.upgrade_mode != "open":
            holders = [None] if self.upgrade_mode != "each" else list(self.seats)
            for seat in holders:
                if len(self.tiles_of(seat)) != UPGRADE_TILES:
                    who = self.players[seat] if seat is not None else ""
                    return ("wizard.upgrades_need" if who else "wizard.upgrades_choose",
                            {"player": who, "count": UPGRADE_TILES,
                             "total": len(self.box.upgrades)})
        if step in ("deal", "meeples"):
            started = self.preview()
            if isinstance(started, Rejection):
                return "wizard.rejected", {"rejection": started}
        return None

    # --- the action -------------------------------------------------------------------

    def action(self) -> dict:
        """The table-script ``setup`` line of these choices."""
        players = self.players
        a: dict = {"do": "setup", "edition": self.edition, "players": players,
                   "start": players[self.start if self.start is not None else 0],
                   "variant": self.variant}
        if self.variant == "junior" and self.junior_cards != JUNIOR_CARDS[0]:
            a["junior_cards"] = self.junior_cards
        if self.chooses_tiles and self.upgrade_mode != "open":
            order = self.box.upgrades      # tiles in the rulebook's order

            def tiles(chosen: list[str]) -> list[str]:
                return [u for u in order if u in chosen]
            if self.upgrade_mode != "each":
                a["upgrades"] = tiles(self.tiles_of(None))
            else:
                a["upgrades"] = {players[s]: tiles(self.player_tiles[s]) for s in self.seats}
        if EDITIONS[self.edition].ristretto_start:
            a["ristretto_start"] = self.ristretto
        if self.expansion is not None:
            a["expansion"] = self.expansion
            a.update(self.options)
        return a

    def preview(self) -> tuple[Game, GameStarted] | Rejection:
        """The game this setup starts, from the pure engine (nothing is posted)."""
        return deal_preview(self.action())

    def meeple_order(self) -> list[int]:
        """Seats in meeple placement order."""
        return meeple_order(self.count, self.start or 0)

    def seat_colours(self) -> list[str]:
        """Colour names of every seat (seats not in play keep the others, in box order)."""
        chosen = self.colours[:self.count]
        return chosen + [c for c in COLOURS if c not in chosen]
