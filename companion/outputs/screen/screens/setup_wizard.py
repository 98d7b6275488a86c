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
   its seeded ``random.Random``, the App's where one is injected, and the setup
   line records them, so a replay never draws again; after such a game, four
   drawn anew or, at a tap, the same four) or each player's own choice; options (original): the
   Ristretto start (optional rule) and the box's four upgrade tiles; Cake Time
   adds its two optional rules, "two drinks, one cake" and "longer game";
7. main board (Winter): as in the rulebook, or "Main board chaos!" from a
   seed shown on screen (``companion/core/board.py``);
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
colours)`` if given).

Where things are: the choices and the rules of setting up, without pygame,
are ``companion.core.setup_choices`` (``SetupChoices``: meeple order, deal preview,
Cake Time's upgrade draw) and ``companion.core.board`` (printed board and board
chaos); each step's panel is built in ``wizard_steps.py``; this module holds
the screen: which step is shown, the handlers taps call, and the random pick
of the starting player.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from companion.core.rules import Rejection, apply, parse_action
from companion.core.rules.editions import EDITIONS, EXPANSIONS, JUNIOR_CARDS
from companion.core.seat_colours import colour_words, names_again
from companion.core.setup_choices import MAX_NAME, SetupChoices
from .. import theme
from ..keyboard import KeyboardScreen
from ..layout import cols, inset, rows
from companion.words import i18n
from companion.words.i18n import colour_name
from ..text import language
from ..widgets import Button, Label, Widget
from .base import Screen
from .wizard_steps import COLOUR_RGB, PANELS, TITLES


class WizardScreen(Screen):
    def __init__(self, app: Any, rng: random.Random | None = None,
                 recent_names: list[str] | None = None,
                 on_done: Callable[[dict, list], None] | None = None,
                 edition: str | None = None, teach: bool | None = None):
        super().__init__(app)
        teaching = getattr(app, "teaching", None)
        #: "First game: teach us": the table explains the rules as they come up
        self.teach = (bool(teach) if teach is not None
                      else teaching is not None and teaching.enabled)
        #: opened by "First game: teach us" (no game running): a new table, taught afresh,
        #: not a rematch that skips what the table read in its earlier games
        self.teach_afresh = teach is True
        if edition is None:
            edition = _config(app, "game", "edition", "original")
        self.model = SetupChoices(edition, rng if rng is not None else getattr(app, "rng", None))
        self._prefill(getattr(app, "last_setup", None), getattr(app, "seat_colors", None))
        self.recent = list(recent_names) if recent_names is not None else _recent_names(app)
        self.on_done = on_done
        self.step = "edition"
        #: steps a rematch keeps as the last game had them (its upgrade tiles and options):
        #: NEXT passes them, BACK still shows them for a change
        self.kept: frozenset[str] = frozenset()
        self.name_seat = 0
        self.tile_seat = 0
        self.anim: list[tuple[float, int]] = []      # (time, seat lit) of the random pick
        self.lit: int | None = None

    def _prefill(self, last: Any, seat_colors: Any) -> None:
        """Start from the last game's box, players, colours, options and upgrade tiles (a
        new game with the same table is then a few taps); the starting player is chosen
        again."""
        md = self.model
        if not isinstance(last, dict) or last.get("edition") not in EDITIONS:
            return
        expansion = last.get("expansion") if last.get("expansion") in EXPANSIONS else None
        md.set_edition(last["edition"], expansion)
        md.options.update({o: last[o] for o in md.options if isinstance(last.get(o), bool)})
        if last.get("variant") in EDITIONS[md.edition].variants:
            md.variant = last["variant"]
        # and the game's other options: the Ristretto start, Junior's cards per position
        md.ristretto = last.get("ristretto_start") is True and EDITIONS[md.edition].ristretto_start
        cards = last.get("junior_cards")
        if md.variant == "junior" and isinstance(cards, int) \
                and JUNIOR_CARDS[0] <= cards <= JUNIOR_CARDS[1]:
            md.junior_cards = cards
        self._prefill_players(last.get("players"))
        md.keep_tiles(last.get("upgrades"), last.get("players"))     # (by the names recorded)
        self._prefill_colours(seat_colors)
        md.fix_colours()
        # a seat's colour name (the last game's language) in today's; any other name stays
        md.names[:md.count] = names_again(language(), md.names[:md.count], md.colours)

    def _prefill_players(self, players: Any) -> None:
        """The last game's names, when it had 2 to 4 (cut to the longest name allowed)."""
        if isinstance(players, list) and 2 <= len(players) <= 4 \
                and all(isinstance(p, str) for p in players):
            self.model.set_count(len(players))
            self.model.names[:len(players)] = [p[:MAX_NAME] for p in players]

    def _prefill_colours(self, seat_colors: Any) -> None:
        """The seats' colours, when every one is a colour of ours and no two are the same."""
        if not seat_colors:
            return
        md = self.model
        by_rgb = {tuple(rgb): name for name, rgb in COLOUR_RGB.items()}
        wanted = list(seat_colors)[:md.count]
        chosen = [by_rgb[tuple(c)] for c in wanted if tuple(c) in by_rgb]
        if len(chosen) == len(wanted) and len(set(chosen)) == len(chosen):
            md.colours[:len(chosen)] = chosen

    def t(self, key: str, **params: Any) -> str:
        """The wizard's words name the players being set up as they are written here (not
        as the last game's players are shown)."""
        return i18n.tr(language(), key, **params)

    # --- navigation -----------------------------------------------------------------------

    @property
    def steps(self) -> list[str]:
        return self.model.steps()

    def go(self, step: str) -> None:
        self.step = step
        if step == "names":
            self.name_seat = next((s for s in self.model.seats if not self.model.names[s]), 0)
        self.model.enter(step)
        self.changed()

    def next(self) -> None:
        if self.model.problem(self.step) or self.anim:
            return
        steps = self.steps
        i = steps.index(self.step)
        later = [s for s in steps[i + 1:] if s not in self.kept or self.model.problem(s)]
        if later:
            self.go(later[0])
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
        parsed = parse_action(action)
        outcome = parsed if isinstance(parsed, Rejection) else apply(self.app.table, parsed)
        if isinstance(outcome, Rejection):
            self.toast(self.t("wizard.rejected", reason=self.rejection_text(outcome)))
            return
        colours = self.model.seat_colours()
        self.app.seat_colors = [COLOUR_RGB[c] for c in colours]
        teaching = getattr(self.app, "teaching", None)
        if teaching is not None:        # before the game starts: its first hints are due then
            teaching.set_enabled(self.teach)
            if self.teach_afresh and self.teach:
                teaching.afresh()
        self.app.post_action(action, seat_colors=tuple(colours[:len(action["players"])]))
        self.app.pop(self)
        if self.on_done is not None:
            self.on_done(action, colours)

    # --- choices --------------------------------------------------------------------------

    def tap(self, change: Callable[..., Any], *args: Any) -> Callable[[], None]:
        """The handler of a tap that makes one change, ``change(*args)``, then redraws."""
        def handler() -> None:
            change(*args)
            self._keep_step()
            self.changed()
        return handler

    def _keep_step(self) -> None:
        """A change of box can remove steps: stay on a step that is still there."""
        if self.step == "colours":
            self._follow_colours()
        steps = self.steps
        if self.step not in steps:
            self.step = steps[-1] if self.step in ("upgrades", "options", "board") else steps[0]

    def clear_name(self) -> None:
        self.model.set_name(self.name_seat, "")
        self.changed()

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

    def colour_names(self) -> None:
        """"Play with seat colours": every seat is called by its colour in the table's
        language (Red, Blue, ...), so a new table need not type; a name can still be
        changed by a tap on its seat."""
        md = self.model
        for seat in md.seats:
            md.names[seat] = ""
        for seat in md.seats:
            md.set_name(seat, colour_name(language(), md.colours[seat]))
        self.changed()

    def _follow_colours(self) -> None:
        """A seat still called by its colour (in any language) follows a change of its
        colour."""
        md = self.model
        words = {word: c for c in COLOUR_RGB for word in colour_words(c)}
        called = {s: words[md.names[s]] for s in md.seats if md.names[s] in words}
        if any(md.colours[s] != c for s, c in called.items()):
            for s in called:
                md.names[s] = ""
            for s in called:
                md.set_name(s, colour_name(language(), md.colours[s]))

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

    def next_deadline(self) -> float | None:
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

    def build(self) -> list[Widget]:
        m = self.m
        screen = inset(m.rect, m.margin)
        top, body, bottom = rows(screen, [m.bar, 1.0, m.bar], m.gap)
        steps = self.steps
        i = steps.index(self.step)
        title_box, count_box = cols(top, [1.0, m.px(theme.WIZARD_STEP_COUNT_W)], m.gap)
        out: list[Widget] = [
            Label("wz.title", title_box, text=self.t(TITLES[self.step]), size=m.big,
                  bold=True, align="left"),
            Label("wz.count", count_box, text=self.t("wizard.step", step=i + 1, steps=len(steps)),
                  size=m.body, color=theme.TEXT_DIM, align="right"),
        ]
        out += PANELS[self.step](self, body)
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

    def seat_rgb(self, seat: int) -> tuple:
        return COLOUR_RGB[self.model.colours[seat]]

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
                md.junior_cards = more.get("junior_cards", 2)
                md.set_count(count)
                for s in range(count):
                    md.names[s] = names[s]
                md.start = more.get("start", 1)
                md.ristretto = more.get("ristretto", False)
                md.set_upgrade_mode(more.get("mode", "draw" if md.box.upgrade_draw
                                             else "shared"))
                if md.upgrade_mode == "each":
                    md.player_tiles[1] = ["break_time" if md.expansion else "jump",
                                          "diagonal_movement", "double_destination"]
                if "last_drawn" in more:
                    md.keep_tiles(more["last_drawn"], None)
                md.set_board_mode(more.get("board", "printed"))
                self.recent = names + (["Emma", "Félix", "João", "Nicolò", "Zoë"]
                                       if not korean else ["Ana", "João", "도윤"])
                self.tile_seat = 1
                self.go(step)
                if step == "names":
                    md.names[2], md.names[3] = "", ""
                    self.name_seat = 2
            return prepare

        return [("edition", at("edition", variant="junior", junior_cards=3)),
                ("players", at("players", count=3)),
                ("names", at("names")),
                ("colours", at("colours")),
                ("colours-2p", at("colours", "original", 2)),
                ("start", at("start", count=3)),
                ("upgrades", at("upgrades", mode="each")),
                ("upgrades-open", at("upgrades", mode="open")),
                ("options", at("options", "original", ristretto=True)),
                ("board", at("board", board="chaos")),
                ("deal", at("deal", count=3)),
                ("deal-ristretto", at("deal", "original", ristretto=True)),
                ("deal-junior", at("deal", count=2, variant="junior", junior_cards=3)),
                ("meeples", at("meeples", "original")),
                ("meeples-2p", at("meeples", count=2, board="chaos")),
                ("cake-edition", at("edition", "original", expansion="cake_time")),
                ("cake-colours-2p", at("colours", "original", 2, expansion="cake_time")),
                ("cake-upgrades", at("upgrades", "original", 3, expansion="cake_time")),
                # a new game after a drawn game: drawn again, or the same four
                ("cake-upgrades-again", at("upgrades", "original", 3, expansion="cake_time",
                                           last_drawn=["double_meeples", "double_corners",
                                                       "break_time", "storage"])),
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
    cfg: Any = getattr(app, "config", None)
    try:
        return cfg[section][key]
    except (KeyError, TypeError):
        return default


def _recent_names(app: Any) -> list[str]:
    """Names of recent games (newest first), as the table loop's session keeps them: the
    journal is the loop's alone, so the screen never reads it."""
    session = getattr(getattr(app, "loop", None), "session", None)
    return list(getattr(session, "recent_names", ()))
