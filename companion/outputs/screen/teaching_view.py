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
(``area_for``): on the table view the column of the other players' panels (off the
panel of the player a hint talks about, where the rest of the column holds it), never
the active player's name, turn banner, counts or cards, nor the top bar; on the end
screen a band along the bottom, under the winner and the ranking. Other screens
(the wizard, settings, fix) keep a hint waiting until the table is back.

The demo (``demo --teach``) sets ``auto``: a hint then moves on by itself once read
(``read_seconds``), and the bots wait while one is up (``busy``).
"""
from __future__ import annotations

from typing import Any

import pygame

from companion.core import teaching
from companion.core.teaching import Hint, Teacher
from . import theme
from .layout import centered, cols, inset, rows
from .settings_store import settings_for
from .table_layout import table_layout
from .text import language, shown_names
from .widgets import Button, Fill, Label, Widget, common_size

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
            self._present()

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
            self.queue.pop(0)
            self._present()

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

    def _present(self) -> None:
        """The hint on the screen changed: say the new one, redraw."""
        hint = self.current
        self.since = self.app.clock() if hint is not None else None
        if hint is not None:
            self.presented.append(hint.key)
            del self.presented[:-100]          # the recent ones are enough (a café's months)
            speak = getattr(self.app, "speak", None)
            if speak is not None:
                speak(self.text(hint), language())
        for s in self.app.stack:
            s.changed()

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
        inner = inset(area, m.px(10))
        ok_words = screen.t("teach.next" if more else "teach.ok")
        stop_words = screen.t("teach.stop")
        if area.w >= area.h * 3:          # a band: the words left, the buttons beside them
            inner = inset(area, m.px(8), m.px(4))
            body, stop_box, ok_box = cols(inner, [1.0, m.px(130), m.px(130)], m.gap)
            stop_box, ok_box = (centered(b, b.w, min(b.h, m.target)) for b in (stop_box, ok_box))
            size, lines = m.body, 3
        elif area.h < m.target * 4:       # beside the panel it talks about: no title
            body, buttons = rows(inner, [1.0, m.target], m.px(4))
            stop_box, ok_box = cols(buttons, [1.0, 1.0], m.gap)
            size, lines = m.body, 8
        else:
            title, body, buttons = rows(inner, [m.px(24), 1.0, m.target], m.px(4))
            stop_box, ok_box = cols(buttons, [1.0, 1.0], m.gap)
            out.append(Label("teach.title", title, text=screen.t("teach.title"), size=m.small,
                             bold=True, color=CARD_EDGE, align="left"))
            size, lines = m.big, 8
        out.append(Label("teach.text", body, text=self.text(hint), size=size, lines=lines,
                         min_size=min(size, m.body if area.h >= m.target * 4 else m.small),
                         align="left"))
        out.append(Button("teach.stop", stop_box, text=stop_words, size=m.small, lines=2,
                          on_tap=self.stop))
        out.append(Button("teach.ok", ok_box, text=ok_words, color=theme.PRIMARY,
                          size=common_size([ok_words], ok_box.w - m.px(12), m.body, bold=True),
                          on_tap=self.next))
        return out


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
        return _off_its_player(pygame.Rect(side.x, body.y, side.w, body.h), lay.others,
                               _panel_of(game, hint))
    from .screens.end import EndScreen       # (imported with the first end screen)
    if type(screen) is EndScreen:     # over the bottom bar (rematch, new game), under the
        screen_rect = inset(m.rect, m.margin)            # winner and the ranking
        h = m.bar + m.px(44)
        return pygame.Rect(screen_rect.x, screen_rect.bottom - h, screen_rect.w, h)
    return None


def _panel_of(game: Any, hint: Hint | None) -> int | None:
    """Which of the other players' panels (``TableLayout.others``, in seat order after the
    active one) shows the player ``hint`` talks about; None: none (the active player's)."""
    name = hint.values.get("player") if hint is not None else None
    seats = [i for i, p in enumerate(game.players) if p.name == name]
    if not seats:
        return None
    active = game.active if game.active is not None else game.last_seat
    n = len(game.players)
    k = (seats[0] - active - 1) % n
    return k if k < n - 1 else None


def _off_its_player(column: pygame.Rect, others: list[pygame.Rect],
                    k: int | None) -> pygame.Rect:
    """The column of the other players' panels, but off panel ``k`` where the room above
    or below it holds a card at least half the column's height (a hint about a player
    leaves their panel in sight: "each of Blue's orders moves down" beside Blue's orders;
    with a middle panel of four players, or the one other player of two, the room left is
    too small, and the card takes the column)."""
    if k is None:
        return column
    panel = others[k]
    above = pygame.Rect(column.x, column.y, column.w, panel.y - column.y)
    below = pygame.Rect(column.x, panel.bottom, column.w, column.bottom - panel.bottom)
    room = max(above, below, key=lambda r: r.h)
    return room if room.h >= column.h * 0.45 else column
