"""Learn while playing, on the touchscreen: the App's ``Teaching``.

``companion.core.teaching`` says which moment teaches which hint (data, no drawing);
this module shows them. The App hands every update of the table loop to
``Teaching.on_update``; the hints due come up one at a time in a card of their own,
said by the voice as each appears (``app.speak``). A card goes with a tap on it or
on "Got it" (the next hint of the same moment then shows), or with the next action
that moves the game on (``teaching.DISMISSING``: scanning the dealt cards does not).
"Stop teaching" on the card, or Settings, turns teaching off at any moment
(``Settings.teaching``, kept beside the journal).

Where the card goes is decided here for every screen that shows hints
(``area_for``): on the table view the column of the other players' panels, never the
active player's name, turn banner, counts or urgent card (position 4), nor the top bar.
A hint about another player leaves that player's panel in sight: the card takes the
rest of the column where it holds the words whole at the body size, else it lies over
the active player's positions 1-3 (two players; a middle panel of four; an order surge
that names every other panel; Cake Time's question and the draw prompt then wait under
the card: ``_beside_its_players`` says why; the card's "Got it" then says so, ``WAITING``,
and the voice ends the last card's words with the button's, ``Teaching.spoken``).
On the end screen a band along the bottom, under the
winner and the ranking. Other screens (the wizard, settings, fix) keep a hint waiting
until the table is back.

The demo (``demo --teach``) sets ``auto``: a hint then moves on by itself once read
(``read_seconds``), and the bots wait while one is up (``busy``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

import pygame

from companion.core import teaching
from companion.core.rules.happenings import GameStarted
from companion.core.teaching import Hint, Teacher
from . import theme
from .layout import Metrics, centered, cols, inset, rows
from .settings_store import settings_for
from .table_layout import table_layout
from .text import language, shown_names
from .cakes import draw_cake
from companion.words import i18n
from .widgets import (Button, Custom, Fill, Label, Widget, common_size, fit, text_width,
                      wrap)

#: the hint card: a dark teal face with the yellow of a specialty ribbon around it
CARD_FACE = (24, 78, 88)
CARD_EDGE = theme.SPECIALTY

#: how long a hint stays up in the demo (``auto``): a base plus this much per letter
READ_BASE_S = 2.5
READ_PER_CHAR_S = 0.055


class Teaching:
    def __init__(self, app: Any):
        self.app = app
        self.queue: list[Hint] = []       # the hints due, the one on the screen first
        self.since: float | None = None   # when the hint on the screen came up
        self.auto = False                 # the demo: move on once read
        self.speed = 1.0                  # the demo's pace (2 = read twice as fast)
        self.presented: list[str] = []    # every hint key shown, in order (tests, logs)
        self.teacher = Teacher()
        self._unsaid: Hint | None = None  # up since the last update, not said yet
        #: the steps read (a tap on the card, or read in the demo) in this session's games:
        #: the table's next game does not teach them again (``Teacher.carried``)
        self.read: set[str] = set()
        self.resume()

    # --- state -------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """Teaching is on (``Settings.teaching``; off until the App's settings exist)."""
        settings = getattr(self.app, "settings", None)
        return bool(getattr(settings, "teaching", False))

    @property
    def current(self) -> Hint | None:
        """The hint on the screen now (None when teaching is off or nothing is due)."""
        return self.queue[0] if self.queue and self.enabled else None

    @property
    def busy(self) -> bool:
        """A hint is up (the demo's bots wait; any thread may ask)."""
        return bool(self.queue) and self.enabled

    def text(self, hint: Hint) -> str:
        return teaching.hint_text(language(), hint, names=shown_names())

    def resume(self) -> None:
        """The hints the running game has passed, from its journal lines (a restart or a
        resumed game goes on teaching only what is still to come)."""
        game = self.app.table.game
        lines = list(getattr(getattr(self.app.loop, "session", None), "lines", ()))
        self.teacher = (Teacher.replay(lines, game.rules_version) if game is not None
                        else Teacher())
        self.queue = []

    # --- the table loop's updates ----------------------------------------------------------

    def on_update(self, update: Any) -> None:
        if update.rejection is not None or not update.happened:
            return
        if any(isinstance(h, GameStarted) for h in update.happened):
            self.teacher.carried = frozenset(self.read)
        new = self.teacher.observe(update.happened, update.table)
        before = self.current
        action = update.action or {}
        if action.get("do") in teaching.DISMISSING:
            # the game moved on: the hints shown before go, untaught (they come again at
            # their next moment: a hint put away by an action was not read)
            for hint in self.queue:
                self.teacher.forget(hint)
            self.queue = []
        if self.enabled:
            self.queue += [h for h in new if self._relevant(h)]
        else:
            self.queue = []
        if self.current is not before:
            # said once the screens took the update too: what waits under the card (the
            # draw prompt it brought, the cake question) is known only then (``say_due``)
            self._present(say=False)
            self._unsaid = self.current

    def say_due(self) -> None:
        """Say the hint an update brought up (the App calls this once its screens took
        the update, ``_apply_update``)."""
        hint, self._unsaid = self._unsaid, None
        if hint is not None and hint is self.current:
            self._say(hint)

    def spoken(self, hint: Hint) -> str:
        """The hint's words as the voice says them: the card's, then, on the last card
        before something waiting under it, what its button says ("Next: cake?"), from the
        same words as the screen."""
        words = self.text(hint)
        waits = self.waits_under(hint)
        if waits is None or len(self.queue) > 1 or hint is not self.current:
            return words
        stop = "" if words.rstrip().endswith((".", "!", "?", "。")) else "."
        return f"{words.rstrip()}{stop} {i18n.tr(language(), waits.then)}"

    def waits_under(self, hint: Hint) -> Waiting | None:
        """What waits under ``hint``'s card on the screen on top (``WAITING``), if any."""
        screen = self.app.stack[-1] if getattr(self.app, "stack", None) else None
        waiting_for = getattr(screen, "waiting_for", None)
        return WAITING.get(waiting_for(hint) or "") if waiting_for is not None else None

    def _relevant(self, hint: Hint) -> bool:
        """A table without seat buttons (``[seats] driver = "none"``) is not taught them."""
        cfg = getattr(self.app, "config", None)
        try:
            no_buttons = cfg is not None and cfg["seats"]["driver"] == "none"
        except (KeyError, TypeError):
            no_buttons = False
        return not (hint.key == "button" and no_buttons)

    # --- taps and time -------------------------------------------------------------------

    def next(self) -> None:
        """This hint was read: the next one due, if any."""
        if self.queue:
            if self.enabled:
                self.read |= teaching.steps_of(self.queue[0])
            self.queue.pop(0)
            self._present()

    def afresh(self) -> None:
        """A new table asked to be taught ("First game: teach us" where no game runs): the
        next game teaches everything again, what earlier games read included."""
        self.read = set()

    def set_enabled(self, on: bool) -> None:
        """Teaching on or off (the wizard's "First game: teach us", Settings), saved with
        the screen's settings beside the journal."""
        settings = settings_for(self.app)
        if settings.set("teaching", bool(on)):
            store = getattr(self.app, "settings_store", None)
            if store is not None:
                store.save(settings)
        if not on and self.queue:
            self.queue = []
            self._present()

    def stop(self) -> None:
        """The card's "Stop teaching": off at once, and the table is told where to turn it
        back on."""
        self.set_enabled(False)
        self.app.screen.toast(self.app.screen.t("teach.stopped"), kind="info")

    def read_seconds(self, hint: Hint) -> float:
        return (READ_BASE_S + READ_PER_CHAR_S * len(self.text(hint))) / max(0.05, self.speed)

    def next_deadline(self) -> float | None:
        hint = self.current
        if not self.auto or hint is None or self.since is None:
            return None
        return self.since + self.read_seconds(hint)

    def tick(self, now: float) -> None:
        deadline = self.next_deadline()
        if deadline is not None and now >= deadline:
            self.next()

    def _present(self, say: bool = True) -> None:
        """The hint on the screen changed: say the new one (unless ``say`` is False: the
        update's ``say_due`` will), redraw."""
        hint = self.current
        self.since = self.app.clock() if hint is not None else None
        self._unsaid = None
        if hint is not None:
            self.presented.append(hint.key)
            del self.presented[:-100]          # the recent ones are enough (a café's months)
            if say:
                self._say(hint)
        for s in self.app.stack:
            s.changed()

    def _say(self, hint: Hint) -> None:
        speak = getattr(self.app, "speak", None)
        if speak is not None:
            speak(self.spoken(hint), language())

    # --- drawing -------------------------------------------------------------------------

    def widgets(self, screen: Any) -> list[Widget]:
        """The hint card on ``screen`` (none when nothing is due or the screen shows no
        hints)."""
        hint = self.current
        area = area_for(screen, hint) if hint is not None else None
        if hint is None or area is None:
            return []
        m = screen.m
        more = len(self.queue) > 1
        out: list[Widget] = [Fill("teach.box", area, color=CARD_FACE, radius=14,
                                  border=max(3, m.px(4)), border_color=CARD_EDGE,
                                  blocks=True, on_tap=self.next)]
        ok_words = screen.t("teach.next" if more else "teach.ok")
        stop_words = screen.t("teach.stop")
        # something the card lies over waits for it (Cake Time's question, a stalled
        # table's words): the card's "Got it" says so, on every card while it waits
        waits = WAITING.get(getattr(screen, "waiting_under_hint", None) or "")
        card = card_layout(m, area, stop_words if waits is not None else None)
        stop_box, ok_box = card.stop, card.ok
        if card.title is not None:
            out.append(Label("teach.title", card.title, text=screen.t("teach.title"),
                             size=m.small, bold=True, color=CARD_EDGE, align="left"))
        out.append(Label("teach.text", card.body, text=self.text(hint), size=card.size,
                         lines=card.lines, min_size=card.min_size, align="left"))
        out.append(Button("teach.stop", stop_box, text=stop_words, size=m.small, lines=2,
                          on_tap=self.stop))
        if waits is not None:
            out += _waiting_ok(screen, ok_box, waits, more, self.next)
            return out
        out.append(Button("teach.ok", ok_box, text=ok_words, color=theme.PRIMARY,
                          size=common_size([ok_words], ok_box.w - m.px(12), m.body, bold=True),
                          on_tap=self.next))
        return out


@dataclass(frozen=True)
class Waiting:
    """What waits under a hint card, as the card's "Got it" shows it: its face (the colour
    the waiting thing has on the table), its picture beside the words (None: none), and
    the words of the last card's button (``then``: what its tap brings back)."""
    face: tuple[int, int, int]
    then: str
    icon: Callable[[pygame.Surface, pygame.Rect], None] | None = None


def draw_card_drawn(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """An order card with a "+" on it: a card to draw (the draw prompt's picture)."""
    h = max(10, rect.h)
    card = pygame.Rect(0, 0, max(8, round(h / 1.4)), h)
    card.center = rect.center
    radius = max(2, card.w // 6)
    line = max(2, card.w // 7)
    pygame.draw.rect(surface, theme.TEXT, card, border_radius=radius)
    pygame.draw.rect(surface, theme.TEXT_DARK, card, max(1, line // 2), border_radius=radius)
    arm = card.w // 3
    cx, cy = card.center
    pygame.draw.line(surface, theme.TEXT_DARK, (cx - arm, cy), (cx + arm, cy), line)
    pygame.draw.line(surface, theme.TEXT_DARK, (cx, cy - arm), (cx, cy + arm), line)


#: ``TableView.waiting_under_hint`` -> how the card says it
WAITING: dict[str, Waiting] = {
    "cake": Waiting(theme.CAKE_PINK, "teach.then_cake", draw_cake),
    "stalled": Waiting(theme.DANGER, "teach.then_stalled"),
    # the draw prompt's yellow ("Ben draws 1", the "+1"), a card drawn
    "draws": Waiting(theme.WARNING, "teach.then_draws", draw_card_drawn),
}


def _waiting_ok(screen: Any, box: pygame.Rect, waits: Waiting, more: bool,
                tap: Callable[[], None]) -> list[Widget]:
    """The card's "Got it" while something waits under the card: in the waiting thing's
    colour and picture (Cake Time's pink question, its cake), its words what the tap
    brings: "Next" while more hints come first, else what waits ("Next: cake?"). Seen
    from 1.5 m on every card the family reads before it; the words at the body size."""
    m = screen.m
    words = screen.t("teach.next" if more else waits.then)
    ok = Button("teach.ok", box, text="", color=waits.face, on_tap=tap)
    out: list[Widget] = [ok]
    inner = ok._box()                     # (where the button's own label would go)
    if waits.icon is not None:
        side = min(inner.h, m.px(30))
        icon, inner = cols(inner, [side, 1.0], m.px(6))
        out.append(Custom("teach.waits.icon", centered(icon, side, side), data="waits",
                          paint_fn=waits.icon))
    out.append(Label("teach.waits", inner, text=words, bold=True, color=theme.readable_on(
        waits.face), size=common_size([words], inner.w, m.body, bold=True)))
    return out


@dataclass(frozen=True)
class CardLayout:
    """The hint card's parts in its ``area``: the ``title`` (None: no room for it), the
    words' ``body`` and their type ``size`` (down to ``min_size``, in ``lines`` lines at
    most), the "Stop teaching" and "Got it" buttons."""
    title: pygame.Rect | None
    body: pygame.Rect
    size: int
    min_size: int
    lines: int
    stop: pygame.Rect
    ok: pygame.Rect


def card_layout(m: Metrics, area: pygame.Rect, narrow_stop: str | None = None) -> CardLayout:
    """A band (the words left, the buttons beside them); a card under four fingers tall
    (beside the panel it talks about, over positions 1-3: no title, the words at the body
    size); else a title, the words as big as they fit, the buttons. ``narrow_stop``: the
    "Stop teaching" button is only as wide as these words need in two lines of the small
    type, "Got it" takes the rest (it says what waits under the card)."""
    inner = inset(area, m.px(10))
    if area.w >= area.h * 3:
        inner = inset(area, m.px(8), m.px(4))
        body, stop, ok = cols(inner, [1.0, m.px(130), m.px(130)], m.gap)
        stop, ok = (centered(b, b.w, min(b.h, m.target)) for b in (stop, ok))
        return CardLayout(None, body, m.body, m.body, 3, stop, ok)
    if area.h < m.target * 4:
        # narrower margins above and below (the words' line boxes have room of their own
        # above the letters and under them): a fifth line of words at the body size
        body, buttons = rows(inset(area, m.px(10), m.px(7)), [1.0, m.target])
        stop, ok = _buttons(m, buttons, narrow_stop)
        return CardLayout(None, body, m.body, m.small, 8, stop, ok)
    title, body, buttons = rows(inner, [m.px(24), 1.0, m.target], m.px(4))
    stop, ok = _buttons(m, buttons, narrow_stop)
    return CardLayout(title, body, m.big, m.body, 8, stop, ok)


def _buttons(m: Metrics, row: pygame.Rect, narrow_stop: str | None) -> list[pygame.Rect]:
    """"Stop teaching" and "Got it" side by side in ``row``: halves, or "Stop teaching"
    as narrow as ``narrow_stop`` allows (two lines of the small type, a longest word's
    width and two fingers at least)."""
    if narrow_stop is None:
        return cols(row, [1.0, 1.0], m.gap)
    pad = max(6, row.h // 6)
    need = max(text_width(w, m.small, True) for w in narrow_stop.split() or [""])
    while len(wrap(narrow_stop, m.small, need, True)) > 2 and need < row.w:
        need += m.px(4)
    # (two fingers wide at least: a short word, Korean's, left it a narrow slot)
    width = max(need + 2 * pad + m.px(4), 2 * m.target - m.px(4))
    return cols(row, [min(width, (row.w - m.gap) // 2), 1.0], m.gap)


def reads_whole(m: Metrics, area: pygame.Rect, words: str) -> bool:
    """Whether ``words`` fit the card in ``area`` whole at the body size or more (the
    6 mm rule: read from 1.5 m)."""
    card = card_layout(m, area)
    size, lines = fit(words, card.body, card.size, False, card.lines, card.min_size)
    return size >= m.body and " ".join(lines).split() == words.split()


def area_for(screen: Any, hint: Hint | None = None) -> pygame.Rect | None:
    """Where ``screen`` shows ``hint`` (None: it shows none, the hint waits)."""
    from .screens.table_view import TableView
    m = screen.m
    if type(screen) is TableView:
        game = screen.app.table.game
        if game is None or screen.dialog is not None:
            return None
        lay = table_layout(screen.size, len(game.players))
        if not lay.others:
            return None
        body = lay.body
        side = lay.others[0]
        named = _named(game, hint)
        words = teaching.hint_text(language(), hint, names=shown_names()) if hint else ""
        return _beside_its_players(pygame.Rect(side.x, body.y, side.w, body.h), lay.others,
                                   named, screen.hint_spot, lambda r: reads_whole(m, r, words))
    from .screens.end import EndScreen       # (imported with the first end screen)
    if type(screen) is EndScreen:     # over the bottom bar (rematch, new game), under the
        screen_rect = inset(m.rect, m.margin)            # winner and the ranking
        h = m.bar + m.px(44)
        return pygame.Rect(screen_rect.x, screen_rect.bottom - h, screen_rect.w, h)
    return None


def _named(game: Any, hint: Hint | None) -> list[int]:
    """Which of the other players' panels (``TableLayout.others``, in seat order after the
    active one) show a player ``hint`` talks about (its ``player`` and its ``drawers``)."""
    values = hint.values if hint is not None else {}
    names = {values.get("player"), *(values.get("drawers") or ())}
    seats = {i for i, p in enumerate(game.players) if p.name in names}
    active = game.active if game.active is not None else game.last_seat
    n = len(game.players)
    return sorted((s - active - 1) % n for s in seats if s != active)


#: the least share of the side column a card beside the panel it talks about takes (less
#: holds no more than two lines of a hint at the body size)
COLUMN_SHARE = 0.45


def _beside_its_players(column: pygame.Rect, others: list[pygame.Rect], named: list[int],
                        spot: pygame.Rect | None,
                        reads: Callable[[pygame.Rect], bool]) -> pygame.Rect:
    """The card for a hint about the players of panels ``named``: a hint about a player
    leaves their panel in sight ("each of Blue's orders moves down" beside Blue's orders),
    its words whole at the body size or more where they can be (``reads``).

    - It names none of the other players: the side column (the active player's own
      panel, whose turn it is and the counts stay in sight).
    - Above or below the panels it names, where that part of the column holds at least
      ``COLUMN_SHARE`` of it (a side panel of three players; the first or the last of
      four) and the words whole at the body size.
    - Else over ``spot``, the active player's positions 1 to 3 and the line under them:
      whose turn it is, position 4 (the urgent card) and the counts stay in sight, the
      cards it covers for the hint's few seconds are not the ones it talks about. This is
      where a hint about the one other player of two goes (their panel takes 62% of the
      column), and about a middle panel of four (a third of the column above it, a third
      below). Measured at 800x480: the rest of the column (282 x 124 px for two players,
      282 x 107 beside a middle panel of four) holds two lines of body type above the
      card's buttons, and the longest hints need five to seven; a card split around the
      panel breaks a sentence in two, and there is no room for a narrower one beside it;
      positions 1-3 (362 x 204 px) hold every hint whole at the body size (22 px) or
      more, in one card a family reads from 1.5 m, the player's panel beside it. The
      spot is measured without Cake Time's "Cake on the deck's back?" (its band at the
      panel's foot left positions 1-3 362 x 98 px): the question waits under the card.
    - An order surge names the player who completed and those who draw, the active one
      among them (the surge comes as the turn passes to the first drawer): with three
      players every panel is named, with four the one left is a middle panel (282 x 106
      px at 800x480: two lines above the buttons). No place on the screen leaves every
      named panel in sight, so the card takes the least of them: the active player's
      positions 1-3, as above (their draw badge and prompt wait under it, its button
      saying so: "Next: draws"; the card says who draws), not the side column over the
      others' panels and their "+N" badges.
    - Else (words too long for both at the body size) the part of the column beside the
      panels, where there is one, its words smaller; else the side column: words a
      family cannot read from 1.5 m leave nothing in sight worth it.
    """
    if not named:
        return column
    top = min(others[k].y for k in named)
    bottom = max(others[k].bottom for k in named)
    above = pygame.Rect(column.x, column.y, column.w, top - column.y)
    below = pygame.Rect(column.x, bottom, column.w, column.bottom - bottom)
    room = max(above, below, key=lambda r: r.h)
    beside = room if room.h >= column.h * COLUMN_SHARE else None
    return next((r for r in (beside, spot) if r is not None and reads(r)), beside or column)
