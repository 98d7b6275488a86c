"""The setup wizard: a new game set up by touch, step by step.

Steps (only those that apply to the chosen box are shown):

1. the box: Coffee Rush, Coffee Rush + Cake Time or Coffee Rush: Winter; for
   Winter, standard or the Junior Barista variant;
2. players: 2, 3 or 4;
3. names, clockwise around the table (seat 1 = the first seat button): recent
   players from the journal as quick picks, the on-screen keyboard for new ones;
4. colours: red, blue, green, yellow as in the box, one per seat (two players
   of the original game: red and blue, the colours with two meeples);
5. starting player: chosen, or picked at random with a short show (seats light
   up in turn and settle on the one the seeded ``random.Random`` chose);
6. upgrade tiles (Winter, not Junior): 4 of the 6, the same for everyone or
   each player's own (Variable upgrades); Cake Time: the box's rule (the
   starting player draws 4 of the 7 at random, the companion draws them with
   its seeded ``random.Random`` and the setup line records them, so a replay
   never draws again) or each player's own choice; options (original): the
   Ristretto start (optional rule) and the box's four upgrade tiles; Cake Time
   adds its two optional rules, "two drinks, one cake" and "longer game";
7. main board (Winter): as in the rulebook, or "Main board chaos!" from a
   seed shown on screen (``ui/board.py``);
8. the deal: cards per player and position, computed by the pure engine from
   the very setup action that will be posted (``rules.setup.start_game``);
   Cake Time: the deck to build and a cake card for everyone;
9. meeple placement: counterclockwise from the player to the right of the
   starting player; two players place two each, alternating, the other player
   first (Winter rulebook, Setup 7 and 2 Player Rules; Spanish rulebook,
   Preparación 6 and partidas de 2 jugadores).

START posts the table-script ``setup`` action as a ``TouchAction`` with the
seat colours (names, recorded in the journal with the game's setup) and gives
the chosen seat colours to the App (``app.seat_colors``; ``on_done(action,
colours)`` if given). ``WizardModel`` holds the choices and builds the action
without pygame, so it can be tested on its own.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Optional, Union

import pygame

from ...rules import Rejection, apply, parse_action
from ...rules.editions import (EDITIONS, EXPANSION_OPTIONS, EXPANSIONS, ORIGINAL_UPGRADES,
                               UPGRADE_TILES, Edition, box_rules)
from ...rules.happenings import GameStarted
from ...rules.setup import start_game
from ...rules.state import Game
from .. import theme
from ..board import Board, chaos_board, draw_board, new_seed, printed_board
from ..cakes import CAKE_PINK, cake_badge
from ..chips import Chip, Swatch
from ..i18n import colour_name, ingredient_name, token_name, tr_count, upgrade_name
from ..keyboard import KeyboardScreen
from ..layout import cols, grid, inset, rows
from ..text import language
from ..widgets import Button, Custom, Label, Widget
from .base import Screen

COLOURS = ("red", "blue", "green", "yellow")
BOXES = (("original", None), ("original", "cake_time"), ("winter", None))   # the edition step
COLOUR_RGB = dict(zip(theme.SEAT_COLOR_NAMES, theme.SEAT_COLORS))
MAX_NAME = 16


# --- the choices, without pygame -----------------------------------------------------------

class WizardModel:
    """Everything the wizard asks, with the rules' constraints."""

    def __init__(self, edition: str = "original", rng: Optional[random.Random] = None):
        self.edition = edition if edition in EDITIONS else "original"
        self.expansion: Optional[str] = None
        self.options: dict[str, bool] = {}            # the expansion's optional rules
        self.drawn_tiles: Optional[list[str]] = None  # the box's random 4 (Cake Time)
        self.variant = "standard"
        self.count = 4
        self.names = [""] * 4
        self.colours = list(COLOURS)
        self.start: Optional[int] = None
        self.upgrade_mode = "shared"                  # "shared", "draw" (Cake Time) or "each"
        self.shared_tiles = list(ORIGINAL_UPGRADES)
        self.player_tiles = [list(ORIGINAL_UPGRADES) for _ in range(4)]
        self.ristretto = False
        self.board_mode = "printed"                   # "printed" or "chaos"
        self.seed: Optional[int] = None
        self.rng = rng if rng is not None else random.Random()

    # --- choices ----------------------------------------------------------------------

    @property
    def box(self) -> Edition:
        """The box on the table: the edition with its expansion's additions."""
        return box_rules(self.edition, self.expansion)

    def set_edition(self, edition: str, expansion: Optional[str] = None) -> None:
        self.edition = edition
        if expansion is not None and EXPANSIONS[expansion].edition != edition:
            expansion = None
        if expansion != self.expansion:
            self.options = {o: False for o in EXPANSION_OPTIONS.get(expansion, ())}
            self.drawn_tiles = None
        self.expansion = expansion
        if self.box.upgrade_draw:
            self.upgrade_mode = "draw" if self.upgrade_mode != "each" else "each"
        elif self.upgrade_mode == "draw":
            self.upgrade_mode = "shared"
        if self.variant not in EDITIONS[edition].variants:
            self.variant = "standard"
        if not EDITIONS[edition].ristretto_start:
            self.ristretto = False
        allowed = set(self.box.upgrades)
        self.shared_tiles = [u for u in self.shared_tiles if u in allowed]
        self.player_tiles = [[u for u in tiles if u in allowed] for tiles in self.player_tiles]
        self.fix_colours()

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

    def set_name(self, seat: int, name: str) -> Optional[str]:
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

    @property
    def uses_upgrades(self) -> bool:
        return self.variant != "junior"

    @property
    def chooses_tiles(self) -> bool:
        """Winter: 4 of the 6 tiles; the original game always plays its four."""
        return self.box.chooses_upgrade_tiles and self.uses_upgrades

    def draw_tiles(self) -> list[str]:
        """The box's rule (Cake Time): the starting player draws 4 of the 7 tiles at random."""
        order = self.box.upgrades
        self.drawn_tiles = sorted(self.rng.sample(order, UPGRADE_TILES), key=order.index)
        return self.drawn_tiles

    def tiles_of(self, seat: Optional[int]) -> list[str]:
        if seat is None and self.upgrade_mode == "draw":
            return self.drawn_tiles if self.drawn_tiles is not None else self.draw_tiles()
        return self.shared_tiles if seat is None else self.player_tiles[seat]

    def toggle_tile(self, seat: Optional[int], upgrade: str) -> None:
        tiles = self.tiles_of(seat)
        if upgrade in tiles:
            tiles.remove(upgrade)
        elif len(tiles) < UPGRADE_TILES:
            tiles.append(upgrade)

    def roll_seed(self) -> int:
        self.seed = new_seed(self.rng)
        return self.seed

    def board(self) -> Board:
        if EDITIONS[self.edition].board_chaos and self.board_mode == "chaos":
            if self.seed is None:
                self.roll_seed()
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

    def problem(self, step: str) -> Optional[tuple[str, dict]]:
        """Why the wizard cannot go past ``step`` yet: (text key, params), or None."""
        if step == "names":
            if any(not n for n in self.players):
                return "wizard.names_missing", {}
        if step == "start" and self.start is None:
            return "wizard.start_needed", {}
        if step == "upgrades":
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
        if self.chooses_tiles:
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

    def preview(self) -> Union[tuple[Game, GameStarted], Rejection]:
        """The game this setup starts, from the pure engine (nothing is posted)."""
        parsed = parse_action(self.action())
        if isinstance(parsed, Rejection):
            return parsed
        return start_game(parsed)

    def meeple_order(self) -> list[int]:
        """Seats in meeple placement order."""
        n = self.count
        start = self.start or 0
        if n == 2:
            other = 1 - start
            return [other, start, other, start]
        return [(start - 1 - i) % n for i in range(n)]

    def seat_colours(self) -> list[str]:
        """Colour names of every seat (seats not in play keep the others, in box order)."""
        chosen = self.colours[:self.count]
        return chosen + [c for c in COLOURS if c not in chosen]


# --- the screen -----------------------------------------------------------------------------

class WizardScreen(Screen):
    def __init__(self, app: Any, rng: Optional[random.Random] = None,
                 recent_names: Optional[list[str]] = None,
                 on_done: Optional[Callable[[dict, list], None]] = None,
                 edition: Optional[str] = None):
        super().__init__(app)
        if edition is None:
            edition = _config(app, "game", "edition", "original")
        self.model = WizardModel(edition, rng)
        self._prefill(getattr(app, "last_setup", None), getattr(app, "seat_colors", None))
        self.recent = list(recent_names) if recent_names is not None else _recent_names(app)
        self.on_done = on_done
        self.step = "edition"
        self.name_seat = 0
        self.tile_seat = 0
        self.anim: list[tuple[float, int]] = []      # (time, seat lit) of the random pick
        self.lit: Optional[int] = None

    def _prefill(self, last: Any, seat_colors: Any) -> None:
        """Start from the last game's box, players and colours (a new game with the same
        table is then a few taps); the starting player is chosen again."""
        md = self.model
        if not isinstance(last, dict) or last.get("edition") not in EDITIONS:
            return
        expansion = last.get("expansion") if last.get("expansion") in EXPANSIONS else None
        md.set_edition(last["edition"], expansion)
        md.options.update({o: last[o] for o in md.options if isinstance(last.get(o), bool)})
        if last.get("variant") in EDITIONS[md.edition].variants:
            md.variant = last["variant"]
        players = last.get("players")
        if isinstance(players, list) and 2 <= len(players) <= 4 \
                and all(isinstance(p, str) for p in players):
            md.set_count(len(players))
            md.names[:len(players)] = [p[:MAX_NAME] for p in players]
        by_rgb = {tuple(rgb): name for name, rgb in COLOUR_RGB.items()}
        if seat_colors:
            chosen = [by_rgb.get(tuple(c)) for c in list(seat_colors)[:md.count]]
            if all(chosen) and len(set(chosen)) == len(chosen):
                md.colours[:len(chosen)] = chosen
        md.fix_colours()

    # --- navigation -----------------------------------------------------------------------

    @property
    def steps(self) -> list[str]:
        return self.model.steps()

    def go(self, step: str) -> None:
        self.step = step
        if step == "names":
            self.name_seat = next((s for s in self.model.seats if not self.model.names[s]), 0)
        if step == "colours":
            self.model.fix_colours()
        self.changed()

    def next(self) -> None:
        if self.model.problem(self.step) or self.anim:
            return
        steps = self.steps
        i = steps.index(self.step)
        if i + 1 < len(steps):
            self.go(steps[i + 1])
        else:
            self.finish()

    def back(self) -> None:
        steps = self.steps
        i = steps.index(self.step)
        if i == 0:
            self.app.pop(self)
        else:
            self.anim, self.lit = [], None
            self.go(steps[i - 1])

    def finish(self) -> None:
        action = self.model.action()
        outcome = apply(self.app.table, parse_action(action))
        if isinstance(outcome, Rejection):
            self.toast(self.t("wizard.rejected", reason=self.rejection_text(outcome)))
            return
        colours = self.model.seat_colours()
        self.app.seat_colors = [COLOUR_RGB[c] for c in colours]
        self.app.post_action(action, seat_colors=tuple(colours[:len(action["players"])]))
        self.app.pop(self)
        if self.on_done is not None:
            self.on_done(action, colours)

    # --- choices --------------------------------------------------------------------------

    def _set(self, fn: Callable[[], Any]) -> Callable[[], None]:
        def tap():
            fn()
            self.changed()
        return tap

    def pick_name(self, name: str) -> None:
        taken = self.model.set_name(self.name_seat, name)
        if taken:
            self.toast(self.t("wizard.name_taken", name=taken), kind="warning")
            return
        empty = [s for s in self.model.seats if not self.model.names[s]]
        if empty:
            later = [s for s in empty if s > self.name_seat]
            self.name_seat = (later or empty)[0]
        self.changed()

    def type_name(self) -> None:
        seat = self.name_seat

        def typed(text: str) -> None:
            self.name_seat = seat
            self.pick_name(text)

        self.app.push(KeyboardScreen(self.app, title=self.t("wizard.seat", seat=seat + 1),
                                     text=self.model.names[seat], on_done=typed,
                                     max_len=MAX_NAME, placeholder=self.t("wizard.type_name")))

    def pick_random_start(self) -> None:
        """Light the seats in turn, slowing down, and settle on a seat drawn from ``rng``."""
        n = self.model.count
        target = self.model.rng.randrange(n)
        first = (self.model.start + 1) % n if self.model.start is not None else 0
        self.model.start = None
        steps = 2 * n + (target - first) % n + 1
        now, delay = self.app.clock(), 0.06
        self.anim = []
        for k in range(steps):
            self.anim.append((now, (first + k) % n))
            now += delay
            delay *= 1.22
        self.anim.append((now, -1))           # the end: settle
        self._target = target
        self.tick(self.app.clock())

    def next_deadline(self) -> Optional[float]:
        toast = super().next_deadline()
        if not self.anim:
            return toast
        return self.anim[0][0] if toast is None else min(toast, self.anim[0][0])

    def tick(self, now: float) -> None:
        super().tick(now)
        moved = False
        while self.anim and self.anim[0][0] <= now:
            _, seat = self.anim.pop(0)
            moved = True
            if seat < 0:
                self.model.start, self.lit = self._target, None
            else:
                self.lit = seat
        if moved:
            self.changed()

    # --- drawing --------------------------------------------------------------------------

    TITLES = {"edition": "wizard.edition_title", "players": "wizard.players_title",
              "names": "wizard.names_title", "colours": "wizard.colours_title",
              "start": "wizard.start_title", "upgrades": "wizard.upgrades_title",
              "options": "wizard.options_title", "board": "wizard.board_title",
              "deal": "wizard.deal_title", "meeples": "wizard.meeples_title"}

    def build(self) -> list[Widget]:
        m = self.m
        screen = inset(m.rect, m.margin)
        top, body, bottom = rows(screen, [m.bar, 1.0, m.bar], m.gap)
        steps = self.steps
        if self.step not in steps:
            self.step = steps[-1] if self.step in ("upgrades", "options", "board") else steps[0]
        i = steps.index(self.step)
        title_box, count_box = cols(top, [1.0, m.px(90)], m.gap)
        out: list[Widget] = [
            Label("wz.title", title_box, text=self.t(self.TITLES[self.step]), size=m.big,
                  bold=True, align="left"),
            Label("wz.count", count_box, text=self.t("wizard.step", step=i + 1, steps=len(steps)),
                  size=m.body, color=theme.TEXT_DIM, align="right"),
        ]
        out += getattr(self, f"_{self.step}")(body)
        back_box, note_box, next_box = cols(bottom, [0.8, 1.2, 1.0], m.gap)
        last = i == len(steps) - 1
        problem = self.model.problem(self.step)
        out.append(Button("wz.back", back_box, text=self.t("wizard.cancel" if i == 0
                                                           else "wizard.back"),
                          size=m.big, on_tap=self.back))
        if problem is not None:
            key, params = problem
            if "rejection" in params:
                params = {"reason": self.rejection_text(params["rejection"])}
            out.append(Label("wz.problem", note_box, text=self.t(key, **params), size=m.small,
                             color=theme.WARNING, lines=2))
        out.append(Button("wz.next", next_box,
                          text=self.t("wizard.start" if last else "wizard.next"), size=m.big,
                          color=theme.PRIMARY, enabled=problem is None and not self.anim,
                          on_tap=self.next))
        return out

    def _seat_rgb(self, seat: int) -> tuple:
        return COLOUR_RGB[self.model.colours[seat]]

    # each step: body rect -> widgets

    def _edition(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        winter = md.edition == "winter"
        big, variant_row, hint_row = rows(body, [1.0, m.target + m.px(10), m.px(52)], m.gap)
        out: list[Widget] = []
        for (ed, x), cell in zip(BOXES, cols(big, [1.0] * len(BOXES), m.gap)):
            key = x or ed
            out.append(Chip(f"wz.edition.{key}", cell, text=self.t(f"edition.{key}"),
                            size=m.huge, on=(md.edition, md.expansion) == (ed, x), lines=3,
                            on_color=(46, 120, 200) if ed == "winter" else
                            CAKE_PINK if x else theme.PRIMARY,
                            on_tap=self._set(lambda ed=ed, x=x: md.set_edition(ed, x))))
        if winter:
            label, choices = cols(variant_row, [0.35, 1.0], m.gap)
            out.append(Label("wz.variant_label", label, text=self.t("wizard.variant_title"),
                             size=m.body, bold=True, align="left"))
            for v, cell in zip(("standard", "junior"), cols(choices, [1.0, 1.0], m.gap)):
                out.append(Chip(f"wz.variant.{v}", cell, text=self.t(f"variant.{v}"),
                                size=m.body, on=md.variant == v,
                                on_tap=self._set(lambda v=v: setattr(md, "variant", v))))
            if md.variant == "junior":
                out.append(Label("wz.junior_hint", hint_row, text=self.t("wizard.junior_hint"),
                                 size=m.small, color=theme.TEXT_DIM, lines=2))
        return out

    def _players(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        out: list[Widget] = []
        area = inset(body, m.px(20), m.px(30))
        for n, cell in zip((2, 3, 4), cols(area, [1.0, 1.0, 1.0], m.px(18))):
            # inside the selected tile's outline (a chip's edge is an 18th of its height)
            edge = max(2, cell.h // 18) + m.px(4)
            number, unit = rows(inset(cell, edge, edge), [1.0, m.px(36)], 0)
            out.append(Chip(f"wz.count.{n}", cell, text="", on=md.count == n,
                            on_tap=self._set(lambda n=n: md.set_count(n))))
            out.append(Label(f"wz.count.{n}.n", number, text=str(n), size=m.px(96), bold=True,
                             color=theme.readable_on(theme.PRIMARY if md.count == n
                                                     else theme.BUTTON)))
            out.append(Label(f"wz.count.{n}.unit", unit, text=self.t("wizard.players_unit"),
                             size=m.body, color=theme.readable_on(theme.PRIMARY if md.count == n
                                                                  else theme.BUTTON)))
        return out

    def _names(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        left, right = cols(body, [0.44, 0.56], m.px(14))
        out: list[Widget] = []
        for seat, cell in zip(md.seats, rows(left, [1.0] * md.count, m.gap)):
            name = md.names[seat]
            chosen = seat == self.name_seat
            out.append(Chip(f"wz.seat.{seat}", cell,
                            text=name or self.t("wizard.seat", seat=seat + 1), size=m.big,
                            on=chosen, dot=self._seat_rgb(seat),
                            color=theme.BUTTON if name else theme.PANEL_DIM,
                            on_tap=self._set(lambda s=seat: setattr(self, "name_seat", s))))
        head, chips_box, tools = rows(right, [m.px(34), 1.0, m.target + m.px(6)], m.gap)
        out.append(Label("wz.recent_title", head, text=self.t("wizard.recent"), size=m.body,
                         bold=True, align="left", color=theme.TEXT_DIM))
        used = {n.strip().casefold() for n in md.players if n}
        shown = [n for n in self.recent][:12]
        if not shown:
            out.append(Label("wz.no_recent", chips_box, text=self.t("wizard.no_recent"),
                             size=m.body, color=theme.TEXT_DIM, lines=2))
        else:
            columns = 3 if len(shown) > 4 else 2
            n_rows = max(3, (len(shown) + columns - 1) // columns)
            cells = grid(chips_box, n_rows * columns, columns, m.gap)
            for k, name in enumerate(shown):
                out.append(Chip(f"wz.recent.{k}", cells[k], text=name, size=m.body,
                                enabled=name.casefold() not in used,
                                on_tap=lambda name=name: self.pick_name(name)))
        type_box, clear_box = cols(tools, [1.6, 1.0], m.gap)
        out.append(Button("wz.type", type_box, text="⌨  " + self.t("wizard.type_name"),
                          size=m.body, color=theme.PANEL_LINE, on_tap=self.type_name))
        out.append(Button("wz.clear", clear_box, text=self.t("wizard.clear"), size=m.body,
                          enabled=bool(md.names[self.name_seat]),
                          on_tap=self._set(lambda: md.set_name(self.name_seat, ""))))
        return out

    def _colours(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        lang = language()
        offered = md.offered_colours()
        two_original = len(offered) == 2
        two_cake = md.count == 2 and md.expansion is not None
        parts = rows(body, [1.0, m.px(40)] if two_original or two_cake else [1.0], m.gap)
        out: list[Widget] = []
        for seat, row in zip(md.seats, rows(parts[0], [1.0] * md.count, m.gap)):
            name_box, swatches = cols(row, [0.34, 1.0], m.gap)
            out.append(Label(f"wz.cname.{seat}", name_box, text=md.players[seat], size=m.big,
                             bold=True, align="left"))
            for colour, cell in zip(COLOURS, cols(swatches, [1.0] * 4, m.gap)):
                out.append(Swatch(f"wz.colour.{seat}.{colour}", cell, color=COLOUR_RGB[colour],
                                  on=md.colours[seat] == colour, enabled=colour in offered,
                                  text=colour_name(lang, colour), size=m.body,
                                  on_tap=self._set(lambda s=seat, c=colour: md.set_colour(s, c))))
        if two_original or two_cake:
            out.append(Label("wz.colours_hint", parts[1],
                             text=self.t("cake.colours_two" if two_cake
                                         else "wizard.colours_two_original"),
                             size=m.small, color=theme.TEXT_DIM, lines=2))
        return out

    def _start(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        seats_box, tools = rows(body, [1.0, m.target + m.px(10)], m.gap)
        out: list[Widget] = []
        columns = 2
        for seat, cell in zip(md.seats, grid(seats_box, md.count, columns, m.gap)):
            lit = self.lit == seat if self.anim else md.start == seat
            out.append(Chip(f"wz.start.{seat}", cell, text=md.players[seat], size=m.huge,
                            on=lit, dot=self._seat_rgb(seat),
                            on_color=theme.mix(self._seat_rgb(seat), theme.PANEL, 0.15),
                            on_tap=None if self.anim else
                            self._set(lambda s=seat: setattr(md, "start", s))))
        random_box, hint_box = cols(tools, [0.8, 1.2], m.gap)
        out.append(Button("wz.random", random_box, text=self.t("wizard.random"), size=m.body,
                          color=theme.PANEL_LINE, enabled=not self.anim,
                          on_tap=self.pick_random_start))
        if md.start is not None and not self.anim:
            out.append(Label("wz.start_hint", hint_box,
                             text=self.t("wizard.start_token", player=md.players[md.start],
                                         open=self.t("word.open")),
                             size=m.small, color=theme.TEXT_DIM, lines=2, align="left"))
        return out

    def _upgrades(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        lang = language()
        each = md.upgrade_mode == "each"
        drawn = md.upgrade_mode == "draw"
        specs = [m.target + m.px(4)] + ([m.target] if each else []) + [1.0, m.px(34)]
        if drawn:
            specs[-1] = m.px(52)
        parts = rows(body, specs, m.gap)
        out: list[Widget] = []
        modes = (("draw", "cake.upgrades_draw"), ("each", "cake.upgrades_each")) \
            if md.box.upgrade_draw else (("shared", "wizard.upgrades_shared"),
                                         ("each", "wizard.upgrades_each"))
        for (mode, words), cell in zip(modes, cols(parts[0], [1.0, 1.0], m.gap)):
            out.append(Chip(f"wz.tiles.{mode}", cell, text=self.t(words),
                            size=m.body, on=md.upgrade_mode == mode,
                            on_tap=self._set(lambda mode=mode: setattr(md, "upgrade_mode", mode))))
        seat: Optional[int] = None
        if each:
            seat = min(self.tile_seat, md.count - 1)
            for s, cell in zip(md.seats, cols(parts[1], [1.0] * md.count, m.gap)):
                done = len(md.player_tiles[s]) == UPGRADE_TILES
                out.append(Chip(f"wz.tiletab.{s}", cell,
                                text=md.players[s] + ("" if done else " …"),
                                size=m.body, on=s == seat, dot=self._seat_rgb(s),
                                on_color=theme.mix(self._seat_rgb(s), theme.PANEL, 0.3),
                                on_tap=self._set(lambda s=s: setattr(self, "tile_seat", s))))
        tiles = md.tiles_of(seat)
        all_tiles = md.box.upgrades
        full = len(tiles) >= UPGRADE_TILES
        for u, cell in zip(all_tiles, grid(parts[-2], len(all_tiles), 3, m.gap)):
            on = u in tiles
            out.append(Chip(f"wz.tile.{u}", cell, text=upgrade_name(lang, u), size=m.body,
                            on=on, enabled=on or not (full or drawn), lines=2,
                            on_color=(120, 86, 190), on_tap=None if drawn else
                            self._set(lambda u=u, s=seat: md.toggle_tile(s, u))))
        if drawn:             # the box's rule: the companion drew for the starting player
            status = self.t("cake.upgrades_drawn", player=md.players[md.start or 0])
        else:
            status = self.t("wizard.upgrades_choose", count=UPGRADE_TILES, total=len(all_tiles))
            status += "  ·  " + self.t("wizard.upgrades_chosen", chosen=len(tiles),
                                       count=UPGRADE_TILES)
        out.append(Label("wz.tiles_status", parts[-1], text=status, size=m.small,
                         color=theme.TEXT if drawn else theme.TEXT_DIM, align="left",
                         lines=2 if drawn else 1))
        return out

    def _options(self, body: pygame.Rect) -> list[Widget]:
        if self.model.options:
            return self._expansion_options(body)
        m, md = self.m, self.model
        lang = language()
        toggle_row, hint_row, info_row, tiles_row = rows(
            body, [m.target + m.px(16), m.px(56), m.px(36), 1.0], m.gap)
        name_box, switch_box = cols(toggle_row, [1.0, 0.5], m.gap)
        out: list[Widget] = [
            Label("wz.ristretto_label", name_box, text=self.t("wizard.ristretto"), size=m.big,
                  bold=True, align="left"),
            Chip("wz.ristretto", switch_box,
                 text=self.t("word.on") if md.ristretto else self.t("word.off"), size=m.big,
                 on=md.ristretto, on_color=theme.OK,
                 on_tap=self._set(lambda: setattr(md, "ristretto", not md.ristretto))),
            Label("wz.ristretto_hint", hint_row, text=self.t("wizard.ristretto_hint"),
                  size=m.small, color=theme.TEXT_DIM, lines=2, align="left"),
            Label("wz.tiles_info", info_row, text=self.t("wizard.upgrades_original"),
                  size=m.small, color=theme.TEXT_DIM, align="left"),
        ]
        tiles_box = rows(tiles_row, [1.0, 0.0], 0)[0]
        for u, cell in zip(ORIGINAL_UPGRADES, cols(tiles_box, [1.0] * 4, m.gap)):
            out.append(Chip(f"wz.otile.{u}", pygame.Rect(cell.x, cell.y, cell.w,
                                                         min(cell.h, m.px(80))),
                            text=upgrade_name(lang, u), size=m.body, lines=2,
                            color=theme.mix((120, 86, 190), theme.PANEL, 0.45)))
        return out

    def _expansion_options(self, body: pygame.Rect) -> list[Widget]:
        """The Ristretto start and the expansion's optional rules: a switch and a hint each."""
        m, md = self.m, self.model
        toggles = [("ristretto", "wizard.ristretto", "wizard.ristretto_hint", md.ristretto,
                    lambda: setattr(md, "ristretto", not md.ristretto))]
        for o in md.options:
            toggles.append((o, f"cake.{o}", f"cake.{o}_hint", md.options[o],
                            lambda o=o: md.options.update({o: not md.options[o]})))
        out: list[Widget] = []
        for key, (name, title, hint, on, flip) in zip(
                range(len(toggles)), toggles):
            block = rows(body, [1.0] * len(toggles), m.gap)[key]
            top, hint_row = rows(block, [m.target, 1.0], 2)
            name_box, switch_box = cols(top, [1.0, 0.4], m.gap)
            out += [Label(f"wz.{name}_label", name_box, text=self.t(title), size=m.big,
                          bold=True, align="left"),
                    Chip(f"wz.{name}", switch_box, text=self.t("word.on" if on else "word.off"),
                         size=m.big, on=on, on_color=theme.OK, on_tap=self._set(flip)),
                    Label(f"wz.{name}_hint", hint_row, text=self.t(hint), size=m.small,
                          color=theme.TEXT_DIM, lines=2, align="left", valign="top")]
        return out

    def _board(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        lang = language()
        board_box, side = cols(body, [body.h, 1.0], m.px(14))
        board = md.board()
        names = {i: ingredient_name(lang, i) for i in EDITIONS["winter"].ingredients}
        out: list[Widget] = [Custom("wz.board", board_box, data=(board.cells, board.seed, lang),
                                    paint_fn=lambda s, r, b=board: draw_board(s, r, b, names))]
        printed_box, chaos_box, seed_box, hint_box = rows(
            side, [m.target + m.px(8), m.target + m.px(8), m.target + m.px(8), 1.0], m.gap)
        out.append(Chip("wz.board.printed", printed_box, text=self.t("wizard.board_printed"),
                        size=m.body, on=md.board_mode == "printed",
                        on_tap=self._set(lambda: setattr(md, "board_mode", "printed"))))
        out.append(Chip("wz.board.chaos", chaos_box, text=self.t("wizard.board_chaos"),
                        size=m.body, on=md.board_mode == "chaos", on_color=(46, 120, 200),
                        on_tap=self._set(lambda: setattr(md, "board_mode", "chaos"))))
        if md.board_mode == "chaos":
            seed_label, shuffle = cols(seed_box, [1.0, 1.0], m.gap)
            out.append(Label("wz.seed", seed_label, text=self.t("wizard.board_seed", seed=md.seed),
                             size=m.body, bold=True, align="left"))
            out.append(Button("wz.shuffle", shuffle, text=self.t("wizard.board_shuffle"),
                              size=m.body, color=theme.PANEL_LINE,
                              on_tap=self._set(md.roll_seed)))
        out.append(Label("wz.board_hint", hint_box, text=self.t("wizard.board_hint"),
                         size=m.small, color=theme.TEXT_DIM, lines=3, align="left",
                         valign="top"))
        return out

    def _deal(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        started = md.preview()
        if isinstance(started, Rejection):
            return []
        game, happened = started
        edition = md.box
        notes_top: list[str] = []
        removed = game.removed - (edition.ristretto_cards - md.count if md.ristretto else 0)
        if md.expansion is not None:     # the deck to build (003_..., 준비; 선택 규칙)
            notes_top.append(self.t("cake.deal_build", count=removed) if removed
                             else self.t("cake.deal_build_longer"))
        elif removed:
            notes_top.append(self.t("wizard.deal_removed", count=removed))
        notes: list[str] = []
        if md.ristretto:
            notes.append(self.t("wizard.deal_ristretto"))
        if edition.starting_tokens:
            notes.append(self.t("wizard.deal_tokens", token=token_name(language(), md.edition, 1)))
        if edition.starting_cake_cards:
            notes += [self.t("cake.deal_cake_cards"), self.t("cake.deal_cakes")]
        notes.append(self.t("wizard.deal_deck", count=game.deck))
        top_h = m.px(34) * (2 if md.expansion else 1)
        specs = ([top_h] if notes_top else []) + [1.0, m.px(26 if md.expansion else 30)
                                                  * len(notes)]
        parts = rows(body, specs, m.gap)
        out: list[Widget] = []
        if notes_top:
            out.append(Label("wz.deal_removed", parts[0], text=notes_top[0], size=m.body,
                             color=theme.WARNING, bold=True, align="left", lines=2))
        table = parts[-2]
        order = [(md.start + k) % md.count for k in range(md.count)]
        lines = rows(table, [1.0] * (md.count + 1), max(2, m.gap // 2))
        name_w = round(table.w * 0.28)
        head = cols(lines[0], [name_w] + [1.0] * 4, m.gap)
        for p in range(4):
            out.append(Label(f"wz.dealhead.{p}", head[p + 1], text=self.t("word.position",
                                                                          position=p + 1),
                             size=m.small, color=theme.URGENT if p == 3 else theme.TEXT_DIM,
                             bold=True))
        for r, seat in enumerate(order, 1):
            cells = cols(lines[r], [name_w] + [1.0] * 4, m.gap)
            out.append(Chip(f"wz.dealname.{seat}", cells[0], text=md.players[seat], size=m.body,
                            dot=self._seat_rgb(seat), color=theme.PANEL))
            for p in range(4):
                n = len(game.players[seat].queue[p])
                face = theme.CARD if n else theme.PANEL_DIM
                cakes = sum(c.cake for c in game.players[seat].queue[p])
                out.append(Label(f"wz.deal.{seat}.{p}", cells[p + 1],
                                 text=tr_count(language(), "wizard.deal_cards", n) if n else "–",
                                 size=m.body, bold=bool(n), background=face, radius=8,
                                 pad=cells[p + 1].h * 3 // 5 if cakes else 0,
                                 color=theme.TEXT_DARK if n else theme.TEXT_DIM))
                if cakes:        # "two drinks, one cake" caps dealt cards at once
                    out.append(cake_badge(f"wz.dealcake.{seat}.{p}", cells[p + 1], cakes, "left"))
        for k, (note, box) in enumerate(zip(notes, rows(parts[-1], [1.0] * len(notes), 0))):
            out.append(Label(f"wz.dealnote.{k}", box, text=note, size=m.small,
                             color=theme.TEXT_DIM, align="left"))
        return out

    def _meeples(self, body: pygame.Rect) -> list[Widget]:
        m, md = self.m, self.model
        lang = language()
        left, board_box = cols(body, [1.0, body.h], m.px(14))
        order = md.meeple_order()
        hint_rows = 2 if md.count == 2 else 1
        parts = rows(left, [m.px(30) * hint_rows + m.px(14), 1.0], m.gap)
        hint = self.t("wizard.meeples_hint")
        if md.count == 2:
            hint = self.t("wizard.meeples_two") + " " + hint
        out: list[Widget] = [Label("wz.meeples_hint", parts[0], text=hint, size=m.small,
                                   color=theme.TEXT_DIM, lines=3, align="left")]
        for k, (seat, cell) in enumerate(zip(order, rows(parts[1], [1.0] * len(order), m.gap))):
            out.append(Chip(f"wz.meeple.{k}", cell, text=f"{k + 1}.  {md.players[seat]}",
                            size=m.big, dot=self._seat_rgb(seat), color=theme.PANEL))
        board = md.board()
        names = {i: ingredient_name(lang, i) for i in EDITIONS[md.edition].ingredients}
        out.append(Custom("wz.mboard", board_box, data=(board.cells, board.seed, lang),
                          paint_fn=lambda s, r, b=board: draw_board(s, r, b, names)))
        return out

    # --- screenshots ----------------------------------------------------------------------

    def screenshot_states(self):
        korean = language() == "ko"
        names = ["민수", "지우", "서연", "하준"] if korean else ["Ana", "Ben", "Chloe", "Dae"]

        def at(step: str, edition: str = "winter", count: int = 4, **more) -> Callable[[], None]:
            def prepare():
                md = self.model
                md.rng = random.Random(2025)
                md.set_edition(edition, more.get("expansion"))
                md.options.update(more.get("options", {}))
                md.variant = more.get("variant", "standard")
                md.set_count(count)
                for s in range(count):
                    md.names[s] = names[s]
                md.start = more.get("start", 1)
                md.ristretto = more.get("ristretto", False)
                md.upgrade_mode = more.get("mode", "draw" if md.box.upgrade_draw else "shared")
                if md.upgrade_mode == "each":
                    md.player_tiles[1] = ["break_time" if md.expansion else "jump",
                                          "diagonal_movement", "double_destination"]
                md.board_mode = more.get("board", "printed")
                self.recent = names + (["Emma", "Félix", "João", "Nicolò", "Zoë"]
                                       if not korean else ["Ana", "João", "도윤"])
                self.tile_seat = 1
                self.go(step)
                if step == "names":
                    md.names[2], md.names[3] = "", ""
                    self.name_seat = 2
            return prepare

        return [("edition", at("edition", variant="junior")),
                ("players", at("players", count=3)),
                ("names", at("names")),
                ("colours", at("colours")),
                ("colours-2p", at("colours", "original", 2)),
                ("start", at("start", count=3)),
                ("upgrades", at("upgrades", mode="each")),
                ("options", at("options", "original", ristretto=True)),
                ("board", at("board", board="chaos")),
                ("deal", at("deal", count=3)),
                ("deal-ristretto", at("deal", "original", ristretto=True)),
                ("meeples", at("meeples", "original")),
                ("meeples-2p", at("meeples", count=2, board="chaos")),
                ("cake-edition", at("edition", "original", expansion="cake_time")),
                ("cake-colours-2p", at("colours", "original", 2, expansion="cake_time")),
                ("cake-upgrades", at("upgrades", "original", 3, expansion="cake_time")),
                ("cake-upgrades-each", at("upgrades", "original", 3, expansion="cake_time",
                                          mode="each")),
                ("cake-options", at("options", "original", expansion="cake_time",
                                    options={"two_drinks_one_cake": True})),
                ("cake-deal", at("deal", "original", 3, expansion="cake_time",
                                 options={"two_drinks_one_cake": True})),
                ("cake-deal-longer", at("deal", "original", 2, expansion="cake_time",
                                        ristretto=True, options={"longer_game": True}))]


# --- helpers ---------------------------------------------------------------------------------

def _config(app: Any, section: str, key: str, default: Any) -> Any:
    cfg = getattr(app, "config", None)
    try:
        return cfg[section][key]
    except (KeyError, TypeError):
        return default


def _recent_names(app: Any) -> list[str]:
    """Names of recent games (newest first), as the table loop's session keeps them: the
    journal is the loop's alone, so the screen never reads it."""
    session = getattr(getattr(app, "loop", None), "session", None)
    return list(getattr(session, "recent_names", ()))
