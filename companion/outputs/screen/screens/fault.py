"""The start-up fault page: what is wrong, what to do, and a safe touch action.

Shown instead of a black screen when the table cannot start (see
``companion/appliance/faults.py``): a title in the danger colour, "What to do" in the
configured language, the technical details (file names, the exact problem)
small underneath, and at the bottom the fault's safe action (if it has one)
beside Try again.

``FaultPage`` runs it on the main thread without a table loop: it returns the
action the person chose, or None when the service is told to stop. It calls
``beat()`` at least every ``beat_every`` seconds from this same loop (the
systemd watchdog: a hung page stops the pings).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pygame

from companion.outputs import (CONTINUE, MOVE_JOURNAL_ASIDE, RETRY, SKIP_CATALOG_FILE,
                               StartupFault)
from .. import text, theme
from ..app import POINTER_EVENTS, pointer_of
from ..layout import cols, inset, rows
from ..widgets import Button, Fill, Label, Widget
from .base import Screen

#: the button word of each safe action
ACTION_KEYS = {
    MOVE_JOURNAL_ASIDE: "fault.move_journal_aside",
    SKIP_CATALOG_FILE: "fault.skip_catalog_file",
    CONTINUE: "fault.continue_anyway",
}


class FaultScreen(Screen):
    def __init__(self, app, fault: StartupFault):
        super().__init__(app)
        self.fault = fault

    def build(self) -> list[Widget]:
        m, f = self.m, self.fault
        band_h = m.bar + m.px(theme.FAULT_BAND_EXTRA)
        band = pygame.Rect(0, 0, m.width, band_h)
        body = inset(pygame.Rect(0, band_h, m.width, m.height - band_h),
                     *map(m.px, theme.FAULT_PAD))
        head, fix, details, buttons = rows(body, [m.px(theme.FAULT_HEAD_H), 1.0,
                                                   m.px(theme.FAULT_DETAILS_H), m.target], m.gap)
        out: list[Widget] = [
            Fill("fault.band", band, color=theme.DANGER),
            Label("fault.title", inset(band, *map(m.px, theme.FAULT_TITLE_PAD)),
                  text=self.t(f.title_key),
                  size=m.big, bold=True, color=theme.TEXT, align="left", lines=2),
            Label("fault.what", head, text=self.t("fault.what_to_do"), size=m.body, bold=True,
                  color=theme.WARNING, align="left"),
            Label("fault.fix", fix, text=self.t(f.fix_key, **f.params), size=m.body,
                  color=theme.TEXT, align="left", valign="top", lines=6),
            Label("fault.details", details, text=f.detail.replace("\n", "  •  "),
                  size=m.small, color=theme.TEXT_DIM, align="left", valign="top", lines=4,
                  background=theme.PANEL_DIM, radius=8, pad=m.px(theme.FAULT_DETAILS_PAD)),
        ]
        specs = [1.0, 0.6] if f.action else [0.6]
        cells = cols(buttons, specs, m.gap * 2)
        if f.action:
            out.append(Button("fault.action", cells[0], text=self.t(ACTION_KEYS[f.action]),
                              size=m.body, color=theme.PRIMARY,
                              on_tap=lambda: self.app.choose(f.action)))
        out.append(Button("fault.retry", cells[-1], text=self.t("fault.try_again"), size=m.body,
                          on_tap=lambda: self.app.choose(RETRY)))
        return out


class FaultPage:
    """The fault screen on ``surface`` (the display, or any Surface in tests)."""

    def __init__(self, fault: StartupFault, surface: pygame.Surface, language: str,
                 clock: Callable[[], float] = time.monotonic, on_display: bool = True):
        if not pygame.font.get_init():
            pygame.font.init()
        text.set_language(language)
        self.surface = surface
        self.clock = clock
        self.on_display = on_display
        self.last_touch: tuple[int, int] | None = None
        self.choice: str | None = None
        self.stopping = threading.Event()
        self.screen = FaultScreen(self, fault)
        self.screen.layout(surface.get_size())

    # what the Screen base class asks of its app
    def is_own(self, _update) -> bool:
        return False

    def choose(self, action: str) -> None:
        self.choice = action

    def stop(self) -> None:
        """From another thread: leave ``run`` soon."""
        self.stopping.set()

    def failed(self, error: str) -> None:
        """The chosen action did not work: say so, and wait for the next choice."""
        self.choice = None
        self.screen.toast(self.screen.t("fault.failed", error=error), seconds=8)

    def draw(self) -> list:
        if not self.screen.needs_draw:
            return []
        rects = self.screen.draw(self.surface)
        if rects and self.on_display:
            pygame.display.update(rects)
        return rects

    def handle(self, event: pygame.event.Event) -> None:
        if event.type == pygame.QUIT:
            self.stopping.set()
        elif event.type in POINTER_EVENTS:
            p = pointer_of(event, self.surface.get_size())
            if p is not None:
                if p.kind == "down":
                    self.last_touch = p.pos
                self.screen.handle(p)
        elif event.type == pygame.WINDOWEXPOSED:
            self.screen.invalidate()

    def run(self, started: Callable[[], None] = lambda: None,
            beat: Callable[[], None] = lambda: None, beat_every: float = 10.0,
            should_stop: Callable[[], bool] = lambda: False,
            poll: float = 0.05) -> str | None:
        """Show the page until a button is tapped (its action), or ``stop()`` or
        ``should_stop()`` (None)."""
        self.choice = None
        self.draw()
        started()
        next_beat = 0.0
        while self.choice is None and not self.stopping.is_set() and not should_stop():
            now = time.monotonic()
            if now >= next_beat:
                beat()
                next_beat = now + beat_every
            for event in pygame.event.get() if pygame.display.get_init() else ():
                self.handle(event)
            deadline = self.screen.next_deadline()
            if deadline is not None and self.clock() >= deadline:
                self.screen.tick(self.clock())
            self.draw()
            if self.choice is None:
                self.stopping.wait(poll)
        return self.choice if not (self.stopping.is_set() or should_stop()) else None
