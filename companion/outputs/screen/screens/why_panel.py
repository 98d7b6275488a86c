""""Why?" on the touchscreen (mixed into ``TableView`` and ``EndScreen``).

A touch on a number or sign the companion set by itself shows one sentence with its
cause (``companion.review.explain``): a "+N" draw badge, a dislike count, the OPEN/CLOSED sign,
"Final round" / "Last turn!", a tie-break line of the end screen, and a refusal (a
touch on its message). The sentence comes in a small panel beside what was touched,
never over whose turn it is (``keep_clear``); a tap on it, or the next action, closes it.

Each such widget gets a transparent touch target of the same name with ``.why`` after
it, in front of it; the widgets themselves are left as they are.
"""
from __future__ import annotations

from functools import partial
from itertools import count
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import pygame

from companion.review.explain import Why, explanations, refusal, shown
from companion.core.rules.happenings import NotYourTurn
from .. import theme
from ..layout import inset, rows
from ..text import language, shown_names
from companion.review.why_text import why_text
from ..widgets import Custom, Fill, Label, Widget, render
from .base import Screen

PANEL_W = 470             # design pixels (800 x 480)
PANEL_H = 128
PANEL_GAP = 8             # between the panel and what was touched
PANEL_PAD = 10
PANEL_TITLE_H = 26


#: widgets whose own taps stay theirs: only a "?" in their top-right corner asks why (none
#: now: the "+N" badges sit beside the cards, never over one)
CORNER_ONLY: frozenset[str] = frozenset()
CORNER_SIDE = 48


def _question_chip(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """A small round "?" in the target's corner (the rest of the target is the widget's)."""
    r = max(8, min(rect.w, rect.h) // 3)
    centre = (rect.right - r - 3, rect.top + r + 3)
    pygame.draw.circle(surface, theme.TEXT_DARK, centre, r)
    pygame.draw.circle(surface, theme.WHITE, centre, r, 2)
    mark = render("?", round(r * 1.5), theme.WHITE, True)
    surface.blit(mark, mark.get_rect(center=centre))


def place_panel(size: pygame.Rect, screen: pygame.Rect, near: pygame.Rect,
                keep_clear: list[pygame.Rect]) -> pygame.Rect:
    """Where the panel (of ``size``) goes: below what was touched, else above it, else at
    the screen's bottom or top; never over a ``keep_clear`` area when any place avoids it."""
    spots = []
    for y in (near.bottom + PANEL_GAP, near.top - PANEL_GAP - size.h,
              screen.bottom - size.h, screen.top, *(c.bottom + PANEL_GAP for c in keep_clear)):
        for x in (near.centerx - size.w // 2, screen.x, screen.right - size.w):
            spots.append(pygame.Rect(x, y, size.w, size.h).clamp(screen))
    clear = [r for r in spots if not any(r.colliderect(c) for c in keep_clear)]
    # of the places that keep whose turn it is in view, one that leaves the touch in view
    best = [r for r in clear if not r.colliderect(near)] or clear or spots
    return best[0]


def _reachable(area: pygame.Rect, screen: pygame.Rect) -> pygame.Rect:
    """``area`` grown to a finger's size (``theme.MIN_TARGET``) around its centre."""
    grown = area.inflate(max(0, theme.MIN_TARGET - area.w), max(0, theme.MIN_TARGET - area.h))
    return grown.clamp(screen)


def table_targets(game) -> dict[str, str]:
    """The table view's widgets that can be asked "why?" -> their explanation targets."""
    active = game.active if game.active is not None else game.last_seat
    out = {"hdr.sign": "sign", "hdr.final": "final", "hdr.detail": "final"}
    for seat, p in enumerate(game.players):
        pre = "act" if seat == active else f"p{seat}"
        out[f"{pre}.dislike"] = f"dislikes:{p.name}"
        out[f"{pre}.score"] = f"score:{p.name}"
        out["draw.act" if seat == active else f"draw.p{seat}"] = f"draw:{p.name}"
    return out


def end_targets(ties: int) -> dict[str, str]:
    """The end screen's tie-break lines -> their explanation targets."""
    return {f"end.tie{j}": f"tie:{j}" for j in range(ties)}


class WhyTargets(Screen):
    """The touch targets and the panel (a screen mixes this in and calls ``why_update``
    from ``on_update`` and ``why_widgets`` at the end of ``build``)."""

    if TYPE_CHECKING:
        from companion.core.draw_prompt import PendingDraws

        @property
        def pending(self) -> PendingDraws | None: ...

    why_open: Why | None = None           # the explanation on screen
    why_near: pygame.Rect | None = None   # what was touched
    _why_table: Any = None
    _why_pending: Any = None
    _why_now: dict[str, Why] | None = None
    _why_shown: set[str] = set()
    _why_refused: Why | None = None       # the last refusal's cause, while its message shows

    # --- what there is to explain ------------------------------------------------------

    def _pending_counts(self) -> dict[str, int]:
        pending = getattr(self, "pending", None)
        counts: dict[str, int] = {}
        for p, n in (pending.draws if pending is not None else ()):
            counts[p] = counts.get(p, 0) + n
        return counts

    def explainable(self) -> set[str]:
        """The targets with something to explain now (cheap: asked at every redraw)."""
        table = self.app.table
        pending = getattr(self, "pending", None)
        if self._why_table is not table or self._why_pending is not pending:
            self._why_table, self._why_pending = table, pending
            self._why_shown = shown(table, self._pending_counts())
            self._why_now = None
        return self._why_shown

    def explained(self) -> dict[str, Why]:
        """target -> Why for what the table shows now (worked out when first touched)."""
        self.explainable()
        if self._why_now is None:
            self._why_now = explanations(self.app.table, self._pending_counts())
        return self._why_now

    def why_update(self, update: Any) -> None:
        """The next action closes the panel; a refusal's cause is kept for its message."""
        if update.action is not None or update.rejection is not None:
            self.why_open = None
        if update.rejection is not None:
            active = next((h.active for h in update.happened if isinstance(h, NotYourTurn)
                           and not h.overlapped), None)
            self._why_refused = refusal(update.rejection, update.action, active)
        elif update.action is not None:
            self._why_refused = None

    def show_why(self, why: Why, near: pygame.Rect) -> None:
        self.why_open, self.why_near = why, pygame.Rect(near)
        self.changed()

    def close_why(self) -> None:
        if self.why_open is not None:
            self.why_open = None
            self.changed()

    # --- a tap on nothing ----------------------------------------------------------------

    _blank_down = False

    def _pointer(self, p: Any) -> None:
        """Every tap gets an answer: one on nothing that takes taps (an empty slot, a
        disabled button, another seat's cards) closes the open "why?", else says so
        (``nothing_here``)."""
        super()._pointer(p)
        if p.kind == "down":
            self._blank_down = self._pressed is None     # (the widget found by super)
        elif self._blank_down:
            self._blank_down = False
            if self.why_open is not None:
                self.close_why()
            else:
                self.nothing_here(p.pos)

    def nothing_here(self, pos: tuple[int, int]) -> None:
        """A tap on nothing: nothing by default (the table view says so)."""

    def why_keep_clear(self) -> list[pygame.Rect]:
        """What the "why?" panel never covers: ``keep_clear`` (whose turn it is)."""
        return self.keep_clear()

    # --- widgets -----------------------------------------------------------------------

    def why_widgets(self, built: list[Widget], targets: dict[str, str]) -> list[Widget]:
        """Touch targets over the ``built`` widgets named in ``targets`` (widget name ->
        explanation target) that have an explanation now, then the open panel."""
        now = self.explainable()
        out: list[Widget] = []
        areas: dict[str, tuple[str, pygame.Rect]] = {}     # target -> (name, area)
        # (the few widgets named in ``targets``, in the order built, found in C: a loop
        # over a hundred widgets was a twentieth of a scan's work, issue 38)
        at = dict(zip(map(attrgetter("name"), built), count()))
        for i in sorted(at[name] for name in targets.keys() & at.keys()):
            w = built[i]
            target = targets[w.name]
            if target not in now:
                continue
            name, area = areas.get(target, (w.name, w.rect))
            areas[target] = (name, area.union(w.rect))     # "Final round" and its detail
        for target, (name, area) in areas.items():
            show = partial(self._touched, target, area)
            if name in CORNER_ONLY:      # the widget under it takes taps: a "?" in its corner
                side = max(theme.MIN_TARGET, self.m.px(CORNER_SIDE))
                rect = pygame.Rect(area.right - side, area.top, side, side)
                out.append(Custom(f"{name}.why", rect, data=(target, "?"),
                                  paint_fn=_question_chip, on_tap=show))
            else:
                out.append(Custom(f"{name}.why", _reachable(area, self.m.rect),
                                  data=target, on_tap=show))    # (paints nothing)
        open_ = self.why_open
        if open_ is not None and open_.target != "refusal" and open_.target not in now:
            self.why_open = open_ = None      # what it explained is no longer on the table
        if open_ is not None and self.why_near is not None:
            out += self._panel(open_, self.why_near)
        return out

    def _touched(self, target: str, area: pygame.Rect) -> None:
        why = self.explained().get(target)
        if why is not None:
            self.show_why(why, area)

    def _panel(self, why: Why, near: pygame.Rect) -> list[Widget]:
        m = self.m
        w = min(m.rect.w - 2 * m.margin, m.px(PANEL_W))
        size = pygame.Rect(0, 0, w, m.px(PANEL_H))
        screen = m.rect.inflate(-2 * m.margin, -2 * m.margin)
        box = place_panel(size, screen, near, self.why_keep_clear())
        inner = inset(box, m.px(PANEL_PAD))
        title, body = rows(inner, [m.px(PANEL_TITLE_H), 1.0])
        text = why_text(language(), why, names=shown_names())
        return [Fill("why.panel", box, color=theme.TOAST, radius=14, border=4,
                     border_color=theme.WARNING, blocks=True, on_tap=self.close_why),
                Label("why.title", title, text=self.t("why.title"), size=m.small, bold=True,
                      color=theme.TEXT_DARK, align="left"),
                Label("why.close", title, text=self.t("why.close_hint"), size=m.small,
                      color=theme.mix(theme.TEXT_DARK, theme.TOAST, 0.4), align="right"),
                Label("why.text", body, text=text, size=m.body, color=theme.TEXT_DARK,
                      align="left", valign="top", lines=4, min_size=m.small)]

    # --- a refusal: a touch on its message -----------------------------------------------

    def refusal_toast_tapped(self) -> bool:
        """The refusal's message was touched: show its cause (True if there was one)."""
        why = self._why_refused
        shown = [n for n in self._toasts if n.kind == "error"]
        if why is None or not shown:
            return False
        near = pygame.Rect(0, 0, 1, 1)
        near.center = shown[-1].near or (self.m.rect.centerx, self.m.bar)
        self.show_why(why, near)
        return True

    def _dismiss_toasts(self) -> None:
        """A touch on the messages: a refusal's shows its cause as it goes."""
        self.refusal_toast_tapped()
        super()._dismiss_toasts()
