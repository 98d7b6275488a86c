"""What a screen is, and the machinery every screen shares.

A screen is an object the App shows (``app.show(screen)`` replaces the whole
stack, ``app.push(screen)`` shows it on top, ``app.pop()`` goes back). It
answers four calls, all on the main thread:

``layout(size)``
    The window has this size (called before the first draw and on resize).
    Compute rectangles here with ``companion.outputs.screen.layout``; nothing is fixed to 800x480.

``build() -> list[Widget]``
    What the screen shows right now, back to front (see ``widgets.py``). The
    base class's ``draw`` compares it with the previous list and repaints only
    what changed; subclasses normally implement only ``build``.

``handle(event)``
    An input: a ``Pointer`` (finger or mouse, already in window pixels) or a
    raw pygame event (KEYDOWN, TEXTINPUT, ... for keyboards). The base class
    turns pointer down/up on a widget with ``on_tap`` into a tap (pressed look
    while the finger is down; the tap fires when it lifts inside the widget).

``on_update(update)``
    The table loop applied an input (``companion.core.loop.Update``); the base
    class marks the screen for a redraw and shows a rejection as a toast.

A screen never changes the game: it calls ``self.app.post_action({...})``
which posts a ``TouchAction`` to the table loop; the answer comes back as an
``Update``. Words come from ``self.t(key, **params)``.

Screens of the setup wizard, settings, keyboard and enroll are looked up by
``app.open(name, **kwargs)`` (see ``companion/outputs/screen/app.py`` ``SCREENS``): a
screen class is constructed as ``Class(app, **kwargs)``.
"""
from __future__ import annotations

import logging
import operator
import time
from bisect import bisect_right
from functools import partial
from itertools import compress, filterfalse
from dataclasses import dataclass
from typing import Any, NamedTuple
from collections.abc import Generator, Iterable, Iterator

import pygame

from .. import theme
from ..layout import Metrics
from ..text import rejection_text, t
from ..widgets import (Fill, Label, Shade, Toast, Widget, fit, font_generation, looks,
                       make_owed_copy, painting_ahead, room_for)

log = logging.getLogger("companion.outputs.screen")


@dataclass(frozen=True)
class Pointer:
    """A finger or mouse button going down or up, in window pixels."""
    kind: str                 # "down" or "up"
    pos: tuple[int, int]
    source: str = "finger"    # "finger" or "mouse"


@dataclass
class _ToastNote:
    text: str
    near: tuple[int, int] | None
    until: float
    kind: str
    seconds: float = 3.0
    hold: bool = True          # waits while nowhere is free (else it just goes)
    held: bool = False         # the last build found no free place for it


def _whole(text: str, box: pygame.Rect, size: int, smallest: int | None) -> bool:
    """Whether ``text`` fits ``box`` whole (a toast's lines) at ``smallest`` px or more
    (None: ``fit``'s own smallest)."""
    _, lines = fit(text, box, size, True, Toast.LINES, smallest)
    return " ".join(lines).split() == text.split()


class Screen:
    """Base class of every screen. Subclasses implement ``build`` (and ``on_update``)."""

    #: seconds a toast stays up
    TOAST_SECONDS = 3.0
    background = theme.BACKGROUND

    def __init__(self, app: Any):
        self.app = app
        self.size: tuple[int, int] = (0, 0)
        self.m = Metrics(1, 1)
        self._drawn: dict[str, tuple[tuple, tuple]] = {}   # name -> (rect, key) as painted
        self._full = True
        self._changed = True
        self._widgets: list[Widget] = []
        self._pressed: str | None = None
        self._looks: set[str] = set()      # widgets whose pressed look changed (no rebuild)
        self._toasts: list[_ToastNote] = []
        self._whole_message: str | None = None   # a message's whole text, asked for by a tap
        self._veiled = False               # the last draw had a whole-screen Shade (a dialog)
        self._under: tuple[object, dict] | None = None   # (snapshot token, what it shows)
        # painting ahead while the table is idle (``work_ahead``): the steps in hand (None:
        # start again, _DONE: nothing left), each frame ``predictions`` gave as painted
        # ahead (``_Ahead``); the veiled copy: rectangles of the screen painted since it was
        # made (None: make it all)
        self._ahead_steps: Iterator[None] | None = None
        self._ahead_token = object()
        self._aheads = _NO_AHEADS
        self._ahead_failed = False         # (said once in the log)
        self._veil_stale: list[pygame.Rect] | None = None
        # looks of widgets a draw painted, copied while the table is idle instead (a copy
        # costs a tap about five instructions a pixel): name -> (look's key, rect, placed)
        self._looks_owed: dict[str, tuple] = {}
        self._looks_new: dict[str, tuple] | None = None
        self._looks_on: pygame.Surface | None = None
        # a band of the screen painted ahead as it shows once what covers it goes (a banner):
        # (the band, its pixels, what the widgets reaching into it show, the fonts' generation)
        self._cover: tuple[pygame.Rect, pygame.Surface, dict, int] | None = None
        self.drawn_from_ahead = 0          # frames drawn from what was painted ahead (tests,
        self.veiled_from_ahead = 0         # benchmarks), and dialogs opened on the veiled copy
        self.under_from_ahead = 0          # (and with the copy under it made ahead)
        self.uncovered_from_ahead = 0      # and banners gone whose band was painted ahead

    def closed(self) -> None:
        """The App let this screen go (popped, replaced, or built ahead for a table that is
        gone): its widgets, whose callbacks refer back to it, and its steps in hand go too,
        so that it is not a reference cycle only the collector frees (the service runs the
        collector only when the table is quiet: ``app.freeze_start_up``). Shown again, it
        builds anew."""
        self._widgets = []
        self._ahead_steps = None
        self._toasts = []
        self._whole_message = None
        self._full = self._changed = True

    # --- words ----------------------------------------------------------------------------

    def t(self, key: str, **params: Any) -> str:
        return t(key, **params)

    def rejection_text(self, rejection) -> str:
        return rejection_text(rejection)

    # --- the four calls -------------------------------------------------------------------

    def layout(self, size: tuple[int, int]) -> None:
        if (int(size[0]), int(size[1])) != self.size:
            self._aheads = _NO_AHEADS         # (painted ahead for another size)
        self.size = (int(size[0]), int(size[1]))
        self.m = Metrics.of(self.size)
        self.invalidate()

    def build(self) -> list[Widget]:
        return []

    def on_update(self, update) -> None:
        """A table update arrived. Default: redraw, and show a rejection (near the touch that
        caused it, else at the top)."""
        self.changed()
        if update.rejection is not None:
            near = self.app.last_touch if self.app.is_own(update) else None
            self.toast(self.rejection_text(update.rejection), near=near)

    def handle(self, event: Any) -> None:
        if isinstance(event, Pointer):
            self._pointer(event)

    # --- redraw bookkeeping ---------------------------------------------------------------

    def invalidate(self) -> None:
        """Repaint everything on the next draw (after layout, language change, ...)."""
        self._full = True
        self._changed = True

    def changed(self) -> None:
        """Something may look different: rebuild and repaint what differs."""
        self._changed = True

    @property
    def needs_draw(self) -> bool:
        return self._changed or bool(self._looks)

    def _press_look(self, name: str) -> None:
        """Only the pressed look of widget ``name`` changes: the next draw repaints it
        without building the screen again (a finger going down or lifting)."""
        self._looks.add(name)

    def next_deadline(self) -> float | None:
        """When (App clock) this screen must change by itself (a toast ending), or None."""
        return min((n.until for n in self._toasts if not (n.held and n.hold)), default=None)

    def tick(self, now: float) -> None:
        """Time passed: drop expired toasts (but those waiting for a free place: they get
        their whole time once they show)."""
        before = len(self._toasts)
        self._toasts = [n for n in self._toasts if n.until > now or (n.held and n.hold)]
        if len(self._toasts) != before:
            self.changed()

    def widgets(self) -> list[Widget]:
        """Everything on screen, back to front: the screen's own widgets, then toasts."""
        ws = self.build()
        if self._pressed is not None:
            for w in ws:
                if w.name == self._pressed:
                    w.pressed = True
        teaching = getattr(self.app, "teaching", None)      # a hint card, when one is due
        hints = teaching.widgets(self) if teaching is not None else []
        return ws + hints + self._toast_widgets()

    def draw(self, surface: pygame.Surface) -> list[pygame.Rect]:
        """Repaint what changed since the last draw; return the changed rectangles."""
        self._looks_new = {}
        try:
            rects = self._draw(surface)
        finally:
            new, self._looks_new = self._looks_new, None
        if surface is not self._looks_on:
            self._looks_owed, self._looks_on = {}, surface
        if rects:            # (what was painted over since is not what the look shows)
            self._looks_owed = {name: e for name, e in self._looks_owed.items()
                                if e[1].collidelist(rects) < 0}
        self._looks_owed.update(new)
        return rects

    def _keep_owed_looks(self, surface: pygame.Surface) -> bool:
        """Copy the looks owed (``_Painter``) of the widgets still shown as painted, with
        nothing over them, a band's worth of pixels per step (the rest stays owed); False:
        none was owed."""
        owed = self._looks_owed
        kept = looks()
        if not owed or surface is not self._looks_on or kept is None:
            self._looks_owed = {}
            return bool(owed)
        ws, copied = self._widgets, 0
        over = _Over(ws)
        for i, w in enumerate(ws):
            got = owed.pop(w.name, None)
            if got is None:
                continue
            key, rect, placed = got
            if self._drawn.get(w.name) == placed and not over.reaches(i, rect):
                kept.keep(key, surface, rect)
                copied += rect.w * rect.h
                if copied >= _VEIL_BAND_PIXELS:
                    return True
        owed.clear()            # (of widgets no longer shown)
        return True

    def _draw(self, surface: pygame.Surface) -> list[pygame.Rect]:
        looks, self._looks = self._looks, set()
        if not self._changed and not self._full and self._widgets:
            return self._painted(self._draw_looks(surface, looks))
        self._changed = False
        ws = self.widgets()
        self._widgets = ws
        now = _placed(ws)
        veil = _veil_index(surface, ws)
        was_veiled, self._veiled = self._veiled, veil is not None
        self._ahead_steps = None          # what is painted ahead is worked out again
        if self._full:
            return self._repaint_all(surface, ws, now)
        if veil is not None and not was_veiled:
            return self._veil_over(surface, ws, now, veil)
        restored: list[pygame.Rect] = []
        dirty = None
        if veil is None and was_veiled:
            answered, restored, dirty = self._dialog_closed(surface, ws, now)
            if answered is not None:
                return self._painted(answered)
        if dirty is None:
            dirty = _dirty(self._drawn, ws, now)
        self._drawn = now
        if not restored and veil is None:
            from_ahead = self._from_ahead(surface, ws, now, dirty)
            if from_ahead is not None:
                return self._painted(from_ahead)
        shown: list[pygame.Rect] = []
        if veil is None:
            dirty, shown = self._uncover(surface, ws, dirty)
        return self._painted(self._repaint(surface, ws, dirty) + restored + shown)

    def _painted(self, rects: list[pygame.Rect]) -> list[pygame.Rect]:
        """``rects`` of the screen were painted: the veiled copy is stale there."""
        if rects:
            self._ahead_steps = None
            if self._veil_stale is not None and not self._veiled:
                self._veil_stale += rects
        return rects

    def _repaint_all(self, surface: pygame.Surface, ws: list[Widget],
                     now: dict) -> list[pygame.Rect]:
        """The whole screen painted again (a new screen, a new size, a forced repaint)."""
        full = pygame.Rect((0, 0), surface.get_size())
        self._full = False
        self._under = None
        self._veil_stale = None
        if not surface.get_flags() & pygame.SRCALPHA:
            _make_kept_surfaces(surface)            # (made once per size)
            Shade("", full).prepare(surface)
        if self._whole_from_ahead(surface, ws, now, full.w * full.h):
            return [full]                            # (a screen a tap opens, painted ahead)
        surface.fill(self.background)
        for w in ws:
            w.draw(surface)
        self._drawn = now
        return [full]

    def _whole_from_ahead(self, surface: pygame.Surface, ws: list[Widget], now: dict,
                          room: int) -> bool:
        """Draw the whole frame ``now`` from a frame painted ahead: its pixels copied whole,
        then what it predicted wrong painted again (of the frames painted ahead, the one
        that predicted least wrong, if that is less than half of ``room`` pixels). False:
        none fits."""
        best = self._least_wrong_ahead(surface, now, room)
        if best is None:
            return False
        frame, wrong = best
        surface.blit(frame, (0, 0))
        self.drawn_from_ahead += 1
        if wrong:
            self._repaint(surface, ws, wrong)
        self._drawn = now
        return True

    def _dialog_closed(self, surface: pygame.Surface, ws: list[Widget], now: dict
                       ) -> tuple[list[pygame.Rect] | None, list[pygame.Rect],
                                  list[pygame.Rect] | None]:
        """The dialog went: its answer's frame painted ahead copied whole, or else the copy
        kept under it put back. (The frame drawn, or None; the rectangles put back; what
        differs from the copy put back, None without one.)"""
        under = self._kept_under(surface)
        unveiled = _dirty(under, ws, now) if under is not None else None
        answered = self._answer_from_ahead(surface, ws, now, unveiled)
        if answered is not None:
            return answered, [], None
        if self._unveil(surface):
            return None, [pygame.Rect((0, 0), surface.get_size())], unveiled
        self._veil_stale = None
        return None, [], None

    def _answer_from_ahead(self, surface: pygame.Surface, ws: list[Widget], now: dict,
                           unveiled: list[pygame.Rect] | None) -> list[pygame.Rect] | None:
        """The dialog closed with its answer (``predictions``: a dialog's answers are
        painted ahead while it is open): the frame painted ahead for that answer, copied
        whole, if it leaves less to paint again than the copy kept under the dialog does
        (``unveiled``: what would be painted over that copy; None: no copy. A dialog closed
        without an answer: the screen as it was). None: drawn the usual way
        (``_unveil``)."""
        full = surface.get_rect()
        room = full.w * full.h
        if unveiled is not None:
            room = min(room, 2 * _area(unveiled))
        if not room or not self._whole_from_ahead(surface, ws, now, room):
            return None
        self._under = None
        return [full]

    def _veil_over(self, surface: pygame.Surface, ws: list[Widget], now: dict,
                   veil: int) -> list[pygame.Rect]:
        """A dialog opens: a whole-screen Shade and what is on it appear over the screen.
        What is behind the shade is already on the surface (but for the widgets that changed
        with it, repainted first), so it is veiled as it is instead of painted again; a copy
        of it unveiled is kept, for the dialog closing (``_unveil``)."""
        below = ws[:veil]
        below_now = {w.name: now[w.name] for w in below if w.name in now}
        changed = self._repaint(surface, below, _dirty(self._drawn, below, below_now))
        self._under = (self._keep_under(surface, changed), below_now)
        shade, box = ws[veil], ws[veil + 1] if veil + 1 < len(ws) else None
        assert isinstance(shade, Shade)
        veiled = self._veiled_copy(surface, shade)
        if self._veil_stale is not None:
            self._veil_stale += changed
        # the dialog's box hides what is under it, but for its rounded corners
        hole = box.rect.inflate(0, -2 * max(box.radius, box.border)) \
            if isinstance(box, Fill) and len(box.color) == 3 else pygame.Rect(0, 0, 0, 0)
        if veiled is not None:
            # veiled ahead, while the table was idle: copied (but where the box goes), and
            # veiled again only where the screen was painted since (the finger's pressed
            # look, what changed with the dialog opening), from the copy kept unveiled
            for r in _around(surface.get_rect(), hole):
                surface.blit(veiled, r, r)
            self.veiled_from_ahead += 1
            under = _UNDER[surface.get_size()][0]
            for stale in _merge(self._veil_stale or []):
                for r in _around(stale, hole):
                    surface.blit(under, r, r)
                    shade.cover(surface, r)
        elif hole:
            shade.paint_around(surface, hole)
        else:
            shade.draw(surface)
        for _ in self._paint_over(surface, ws, veil + 1, self._looks_new):
            pass
        self._drawn = now
        return [pygame.Rect((0, 0), surface.get_size())]

    def _keep_under(self, surface: pygame.Surface, changed: list[pygame.Rect]) -> object:
        """Keep a copy of the screen as it is (for the dialog closing): the copy made ahead
        (``_under_ahead``) brought up to date where the screen was painted since, if there
        is one, else the whole screen copied. The copy's token."""
        size = surface.get_size()
        got = _UNDER.get(size)
        if got is None or got[1] is not self._ahead_token or self._veil_stale is None \
                or self._veiled_copy_owner() is not self._ahead_token:
            return _copy_whole_under(surface)
        copy = got[0]
        for r in _merge(self._veil_stale + changed):
            copy.blit(surface, r, r)
        self.under_from_ahead += 1
        token = object()
        _UNDER[size] = (copy, token)
        return token

    def _veiled_copy_owner(self) -> object:
        got = _VEILED.get(self.size)
        return None if got is None else got[1]

    def _paint_over(self, surface: pygame.Surface, ws: list[Widget], first: int,
                    owe: dict | None = None) -> Iterator[None]:
        """Paint ``ws[first:]`` over what is on the surface (a dialog over its veil), each
        copied from its kept look where it has one, one painted widget per step."""
        paint = _Painter(surface, ws, [w.extent for w in ws], self.background, owe)
        whole = surface.get_rect()
        for i in range(first, len(ws)):
            yield from paint.steps(i, whole)

    def _unveil(self, surface: pygame.Surface) -> bool:
        """The dialog closed: put back the screen as it was under the shade (if the copy is
        still this screen's), so only what changed since is painted again. False: no copy."""
        under = self._kept_under(surface)
        self._under = None
        if under is None:
            return False
        surface.blit(_UNDER[surface.get_size()][0], (0, 0))
        self._drawn = dict(under)
        return True

    def _kept_under(self, surface: pygame.Surface) -> dict | None:
        """What the copy kept under the open dialog shows (``_veil_over``), if that copy is
        still this screen's; else None."""
        under, got = self._under, _UNDER.get(surface.get_size())
        if under is None or got is None or got[1] is not under[0]:
            return None
        return under[1]

    def _draw_looks(self, surface: pygame.Surface, looks: set[str]) -> list[pygame.Rect]:
        """Repaint the widgets (of the last build) whose pressed look changed (of those
        that show one: ``Widget.shows_pressed``)."""
        dirty = []
        for i, w in enumerate(self._widgets):
            if w.name in looks and w.shows and w.shows_pressed:
                pressed = w.name == self._pressed
                if pressed and not w.pressed:       # (a finger down: its look comes back)
                    self._keep_shown_look(surface, i)
                w.pressed = pressed
                now = w.placed()
                if self._drawn.get(w.name) != now:
                    self._drawn[w.name] = now
                    dirty.append(pygame.Rect(w.extent))
        return self._repaint(surface, self._widgets, dirty)

    def _keep_shown_look(self, surface: pygame.Surface, i: int) -> None:
        """Keep the look widget ``i`` shows on the screen now, copied, if the kept looks
        lack it and nothing is over it: its pressed look is about to replace it, and the
        finger lifting brings it back (END TURN's look, painted ahead and since pushed out
        by the frames painted after it, was painted again on every lift: 0.6 M)."""
        kept, ws = looks(), self._widgets
        w = ws[i]
        if kept is None or surface is not self._looks_on or surface.get_flags() & pygame.SRCALPHA \
                or self._drawn.get(w.name) != w.placed() \
                or not surface.get_rect().contains(w.rect) \
                or any(o.shows and o.extent.colliderect(w.rect) for o in ws[i + 1:]):
            return
        paint = _Painter(surface, ws, [o.extent for o in ws], self.background)
        ground = paint.ground(i)
        key = kept.key(w, ground, paint.form) if ground is not None else None
        if key is not None and key not in kept:
            kept.keep(key, surface, w.rect)

    def _repaint(self, surface: pygame.Surface, ws: list[Widget],
                 dirty: list[pygame.Rect]) -> list[pygame.Rect]:
        dirty = _merge(dirty)
        for _ in self._repaint_steps(surface, ws, dirty, self._looks_new):
            pass
        return dirty

    def _repaint_steps(self, surface: pygame.Surface, ws: list[Widget],
                       dirty: list[pygame.Rect], owe: dict | None = None) -> Iterator[None]:
        """``_repaint`` of the (merged) ``dirty`` rectangles, one widget painted per step."""
        # repaint each changed area, clipped to it: the background, then every widget
        # that reaches into it, back to front (so overlays stay on top); a plain panel
        # that covers the whole area with one colour hides what is behind it
        extents = [w.extent for w in ws]
        paint = _Painter(surface, ws, extents, self.background, owe)
        try:
            for r in dirty:
                surface.set_clip(r)
                at = r.collidelistall(extents)          # (in order, back to front)
                colour, start = self.background, 0
                for i in range(len(at) - 1, -1, -1):
                    solid = ws[at[i]].solid_over(r)
                    if solid is not None:
                        colour, start = solid, i + 1
                        break
                surface.fill(colour, r)
                if r.w * r.h > _VEIL_BAND_PIXELS:
                    yield                               # (a big area: a step of its own)
                    surface.set_clip(r)
                for i in at[start:]:
                    for _ in paint.steps(i, r):
                        yield
                        surface.set_clip(r)
        finally:
            surface.set_clip(None)

    # --- painting ahead, while the table is idle --------------------------------------------

    #: whether this screen keeps a veiled copy of itself ready (it opens dialogs over a veil)
    veils_ahead = False

    def predictions(self) -> Iterator[tuple[Screen, list[Widget]] | None]:
        """The frames the next inputs most likely show, the likeliest first (at most
        ``AHEAD_FRAMES`` are used), each painted ahead whole while the table is idle, on a
        surface of its own, so that the input draws little: the screen that will show it
        (this one, or one the input opens, built and laid out) and its widgets. A None is a
        step of building one (a part of its frame, kept where the screen keeps its parts,
        so that the frame's own build finds it). None by default."""
        return iter(())

    def work_ahead(self, surface: pygame.Surface) -> bool:
        """Do one small step of the painting ahead (the App calls it while nothing else is
        waiting); False once nothing is left (the step that finishes it is a step: the
        App's own work after it, its young garbage collected, waits for the next one). A
        draw starts it again."""
        try:
            if make_owed_copy(surface) or self._keep_owed_looks(surface):
                return True                 # (a shape's copy, widgets' looks: steps)
            steps = self._ahead_steps
            if steps is _DONE:
                return False
            if steps is None:
                steps = self._ahead_steps = self._ahead_work(surface)
            with painting_ahead(surface):
                step = next(steps, _DONE)
        except Exception:       # it only saves a later tap work: it never costs the screen
            if not self._ahead_failed:
                log.exception("painting ahead failed; the screen draws every frame itself")
            self._ahead_failed = True
            self._ahead_steps, self._aheads = _DONE, _NO_AHEADS
            return False
        if step is _DONE:
            self._ahead_steps = _DONE
        return True

    def _ahead_work(self, surface: pygame.Surface) -> Iterator[None]:
        if self._full or not self._widgets or surface.get_flags() & pygame.SRCALPHA:
            return
        if self.veils_ahead and not self._veiled:
            yield from self._veil_ahead(surface)
        slot = 0
        for got in self.predictions():
            yield                       # (the last band of the veil, or a part, before)
            if got is not None and slot < AHEAD_FRAMES:
                screen, ws = got        # (built in the step before)
                yield from screen._paint_ahead(surface, ws, slot)
                slot += 1
        for ws in self.dialogs_ahead():
            yield
            yield from self._warm_dialog(surface, ws)
        for warmed in self.frames_warmed():
            yield
            if warmed is not None:      # (None: a part of the next frame built, a step)
                yield from self._warm_changed(surface, warmed)
        uncovered = self.uncovered_ahead()
        if uncovered is not None:
            yield
            yield from self._cover_ahead(surface, *uncovered)
        if self.veils_ahead and not self._veiled:
            yield from self._under_ahead(surface)
        yield from self._keep_pressable_looks(surface)

    def _keep_pressable_looks(self, surface: pygame.Surface) -> Iterator[None]:
        """Last, the looks of the widgets a finger may press now, as they show now: kept
        (copied from the screen, or painted aside where something is over them) and made
        the most recently used, one per step, so that a finger lifting off one
        copies its look back. (The work ahead above pushed them out of the kept looks, and
        a card under its cake mark was never kept: the lift of a tap opening the cake
        dialog painted its order card again, issue 19.)"""
        kept = looks()
        if kept is None or self._veiled:
            return
        ws = self._widgets
        paint = _Painter(surface, ws, [w.extent for w in ws], self.background)
        over = _Over(ws)
        for i, w in enumerate(ws):
            if not (w.shows_pressed and w.tappable and w.shows) \
                    or self._drawn.get(w.name) != w.placed():
                continue
            ground = paint.ground(i)
            key = kept.key(w, ground, paint.form) if ground is not None else None
            if key is None or kept.touch(key):
                continue
            if over.reaches(i, w.rect):
                yield from kept.paint_aside_steps(key, w, ground, surface)
            else:
                kept.keep(key, surface, w.rect)
            yield

    def _under_ahead(self, surface: pygame.Surface) -> Iterator[None]:
        """Copy the screen, in bands, where the copy kept under a dialog goes (the warming
        and the band painted ahead above used it as scratch): a dialog opening then copies
        only what was painted since (``_keep_under``), as it veils only that (the veiled
        copy, made at the same time)."""
        size = surface.get_size()
        copy = _under_copy(surface)
        _UNDER[size] = (copy, None)
        for band in _bands(surface.get_rect(), _VEIL_BAND_PIXELS):
            yield
            copy.blit(surface, band, band)
        _UNDER[size] = (copy, self._ahead_token)

    def uncovered_ahead(self) -> tuple[list[Widget], pygame.Rect] | None:
        """A band of the screen a banner covers now, and the frame (its widgets) the screen
        shows once it goes: that band is painted ahead (``_uncover``). By default the band
        under a toast (one alone, no dialog open), as the screen shows it once the toast is
        tapped away or times out (a toast gone off three order cards, their looks not kept,
        painted them again: 7.3 M instructions at 1280 x 800, issue 19)."""
        ws = self._widgets
        toasts = [w for w in ws if isinstance(w, Toast)]
        if len(toasts) != 1 or self._veiled:
            return None
        return [w for w in ws if w is not toasts[0]], toasts[0].extent

    def _cover_ahead(self, surface: pygame.Surface, ws: list[Widget],
                     band: pygame.Rect) -> Iterator[None]:
        """Paint ``band`` as the frame ``ws`` shows it, where the copy kept under a dialog
        goes (nothing uses it while no dialog is open), and keep a copy of it, with what the
        widgets reaching into it show, for ``_uncover``."""
        if self._veiled or not surface.get_rect().contains(band):
            return
        band = pygame.Rect(band)
        was = _reaching(ws, band)
        got = self._cover
        if got is not None and got[0] == band and got[2] == was \
                and got[3] == font_generation() and _same_format(got[1], surface):
            return                                  # (painted ahead already)
        self._cover = None
        scratch = _under_copy(surface)
        _UNDER[surface.get_size()] = (scratch, None)          # (not a copy of anything now)
        fonts = font_generation()
        yield from self._repaint_steps(scratch, ws, [band])
        copy = pygame.Surface(band.size, 0, surface)
        copy.blit(scratch, (0, 0), band)
        self._cover = (band, copy, was, fonts)

    def _uncover(self, surface: pygame.Surface, ws: list[Widget],
                 dirty: list[pygame.Rect]) -> tuple[list[pygame.Rect], list[pygame.Rect]]:
        """The banner whose band was painted ahead went (its band is among the ``dirty``
        rectangles): the band is copied, and only what differs there from the frame it was
        painted for is painted again. Returns the rectangles still to paint and those
        copied."""
        got = self._cover
        if got is None or not dirty:
            return dirty, []
        band, copy, was, fonts = got
        if band not in dirty or fonts != font_generation() or not _same_format(copy, surface):
            return dirty, []
        self._cover = None
        shows = _reaching(ws, band)
        if not _same_order(was, shows):
            return dirty, []
        surface.blit(copy, band)
        self.uncovered_from_ahead += 1
        fix = _dirty(was, ws, shows)        # (what differs from the frame painted ahead)
        return [r for r in dirty if not band.contains(r)] + fix, [band]

    def frames_warmed(self) -> Iterator[list[Widget] | None]:
        """Frames other taps may show now (their widgets): what they paint that this frame
        does not is painted ahead aside, so their looks, shapes and text are ready (no
        frame is kept: a tap copies the looks). A None between them is a step of their
        building (a part of the next one built and kept). None by default."""
        return iter(())

    def _warm_changed(self, surface: pygame.Surface, ws: list[Widget]) -> Iterator[None]:
        """Paint the widgets of ``ws`` a repaint of that frame would paint (those that differ
        from what is on the screen, and those under where anything differs: a banner gone
        uncovers the widgets it hid) where the copy kept under a dialog goes (nothing uses
        it while no dialog is open), each on its plain ground (as its look is kept), one per
        step."""
        if self._veiled:
            return
        changed = yield from self._repainted_steps(ws)
        if not changed:
            return
        yield
        scratch = _under_copy(surface)
        _UNDER[surface.get_size()] = (scratch, None)          # (not a copy of anything now)
        yield from self._paint_aside(scratch, ws, changed)

    def _repainted_steps(self, ws: list[Widget]) -> Generator[None, None, list[int]]:
        """The widgets of ``ws`` a repaint of that frame over this screen would paint
        (``_repainted``), found in steps: the frame's placing (``_placed_steps``), then
        what differs from the screen and what that uncovers."""
        now = yield from _placed_steps(ws)
        return _repainted(ws, _dirty(self._drawn, ws, now))

    def _paint_aside(self, scratch: pygame.Surface, ws: list[Widget],
                     which: list[int]) -> Iterator[None]:
        """Paint the widgets ``which`` of ``ws`` on ``scratch``, each on its plain ground (as
        its look is kept), one per step: their looks, shapes and text are then ready."""
        paint = _Painter(scratch, ws, [w.extent for w in ws], self.background)
        whole = scratch.get_rect()
        for i in which:
            ground = paint.ground(i) if paint.kept is not None else None
            if ground is not None:
                scratch.fill(ground, ws[i].rect)
            yield from paint.steps(i, whole)

    def dialogs_ahead(self) -> Iterator[list[Widget]]:
        """The screen as it looks with each dialog a tap may open now (its widgets, a
        whole-screen Shade among them): their looks are made ahead. None by default."""
        return iter(())

    def _warm_dialog(self, surface: pygame.Surface, ws: list[Widget]) -> Iterator[None]:
        """Paint the dialog of ``ws`` (what is over its veil) where the copy kept under a
        dialog goes (nothing uses it while no dialog is open), so its widgets' looks and
        shapes are ready when a tap opens it; and first what changes under the veil as it
        opens (a message in the top bar goes and the final round's words come back: their
        text was rendered by the tap, 6.8 M instructions in Cake Time at 800 x 480)."""
        veil = _veil_index(surface, ws)
        if veil is None or self._veiled:
            return
        size = surface.get_size()
        below = ws[:veil]
        changed = yield from self._repainted_steps(below)
        yield
        scratch = _under_copy(surface)
        _UNDER[size] = (scratch, None)          # (not a copy of anything now)
        yield from self._paint_aside(scratch, below, changed)
        yield from self._paint_over(scratch, ws, veil + 1)

    def _veil_ahead(self, surface: pygame.Surface) -> Iterator[None]:
        """Keep a copy of the screen veiled as a dialog's shade veils it: made in bands,
        then kept up to date where the screen is painted again."""
        size = surface.get_size()
        copy, owner = _kept_surface(_VEILED, surface)
        under = _UNDER.get(size)
        if under is not None and under[1] is self._ahead_token:
            _UNDER[size] = (under[0], None)     # (made again after this: see _under_ahead)
        stale = self._veil_stale
        if owner is not self._ahead_token or stale is None:
            stale = [pygame.Rect((0, 0), size)]
        _VEILED[size] = (copy, None)            # (half made: not this screen's until done)
        shade = Shade("", pygame.Rect((0, 0), size))
        for r in _merge(stale):
            for band in _bands(r, _VEIL_BAND_PIXELS):
                copy.blit(surface, band, band)
                shade.cover(copy, band)
                yield
        self._veil_stale = []
        _VEILED[size] = (copy, self._ahead_token)

    def _veiled_copy(self, surface: pygame.Surface, shade: Shade) -> pygame.Surface | None:
        """The veiled copy made ahead, if it shows this screen under ``shade`` as it is but
        for the rectangles painted since (``_veil_stale``)."""
        got = _VEILED.get(surface.get_size())
        if got is None or got[1] is not self._ahead_token or self._veil_stale is None \
                or shade.rect != surface.get_rect() or shade.alpha != Shade.alpha \
                or not _same_format(got[0], surface):
            return None
        return got[0]

    def _paint_ahead(self, surface: pygame.Surface, ws: list[Widget],
                     slot: int = 0) -> Iterator[None]:
        """Paint the predicted frame ``ws`` on the surface kept for ``slot``: what differs
        from the frame painted there before, one widget per step."""
        size = surface.get_size()
        frame, owner = _kept_surface(_AHEAD[slot], surface)
        now = yield from _placed_steps(ws)      # (below, what differs: a step of its own)
        ahead = self._aheads[slot]
        if owner is not self._ahead_token or ahead.drawn is None \
                or ahead.fonts != font_generation():
            _AHEAD[slot][size] = (frame, self._ahead_token)
            dirty = [pygame.Rect((0, 0), size)]
        else:
            dirty = _dirty(ahead.drawn, ws, now) + list(ahead.owed)
        if not dirty:
            return
        dirty = _merge(dirty)
        # painted in steps: until the last one, the frame there is owed a repaint
        self._ahead_at(slot, _Ahead(now, tuple(dirty), font_generation()))
        yield
        yield from self._repaint_steps(frame, ws, dirty)
        self._ahead_at(slot, _Ahead(now, (), font_generation()))

    def _ahead_at(self, slot: int, ahead: _Ahead) -> None:
        # (a new tuple each time: ``TableView._as_if`` puts back the attributes it found)
        self._aheads = self._aheads[:slot] + (ahead,) + self._aheads[slot + 1:]

    def _ahead_frame(self, surface: pygame.Surface, now: dict,
                     slot: int) -> tuple[pygame.Surface, dict] | None:
        """The frame this screen painted ahead on ``slot``'s surface and what it shows, if
        it is whole and could be ``now``'s."""
        got, ahead = _AHEAD[slot].get(surface.get_size()), self._aheads[slot]
        drawn = ahead.drawn
        if drawn is None or got is None or got[1] is not self._ahead_token \
                or ahead.owed or ahead.fonts != font_generation() \
                or not _same_format(got[0], surface) or not _same_order(drawn, now):
            return None
        return got[0], drawn

    def _least_wrong_ahead(self, surface: pygame.Surface, now: dict,
                           room: int) -> tuple[pygame.Surface, list[pygame.Rect]] | None:
        """Of the frames painted ahead that could be ``now``'s, the one that predicted least
        wrong, and where (if that is less than half of ``room`` pixels); None: none."""
        best = None
        for slot in range(AHEAD_FRAMES):
            ahead = self._ahead_frame(surface, now, slot)
            if ahead is None:
                continue
            wrong = _dirty_within(ahead[1], now, room)   # (None: too much of it is wrong)
            if wrong is not None and (best is None or _area(wrong) < _area(best[1])):
                best = (ahead[0], wrong)
                if not wrong:
                    break
        return best

    def _from_ahead(self, surface: pygame.Surface, ws: list[Widget], now: dict,
                    dirty: list[pygame.Rect]) -> list[pygame.Rect] | None:
        """Draw the new frame from a frame painted ahead, if that saves work: its pixels
        where the screen changes, then whatever it predicted wrong painted again (of the
        frames painted ahead, the one that predicted least wrong). None: drawn the usual
        way."""
        if not dirty:
            return None
        dirty = _merge(dirty)
        best = self._least_wrong_ahead(surface, now, _area(dirty))
        if best is None:
            return None
        frame, wrong = best
        for r in dirty:
            surface.blit(frame, r, r)
        self.drawn_from_ahead += 1
        wrong = self._repaint(surface, ws, wrong) if wrong else []
        return dirty + wrong

    # --- toasts ---------------------------------------------------------------------------

    def toast(self, text: str, near: tuple[int, int] | None = None, kind: str = "error",
              seconds: float | None = None, hold: bool = True) -> None:
        """Show ``text`` briefly, near ``near`` (a touch position) or at the top. While no
        place is free of what it must keep clear (``toast_keep_clear``), it waits, then
        shows for its whole time; with ``hold`` False it just goes (a passing answer)."""
        seconds = seconds or self.TOAST_SECONDS
        until = self.app.clock() + seconds
        self._toasts = [n for n in self._toasts if n.text != text][-1:]
        self._toasts.append(_ToastNote(text, near, until, kind, seconds, hold))
        self.changed()

    def drop_stale_toasts(self) -> None:
        """A new turn began: messages about the turn before (refusals) go at once."""
        kept = [n for n in self._toasts if n.kind != "error"]
        if len(kept) != len(self._toasts):
            self._toasts = kept
            self.changed()

    def keep_clear(self) -> list[pygame.Rect]:
        """Areas a toast must never cover (e.g. whose turn it is); none by default."""
        return []

    def toast_keep_clear(self) -> list[pygame.Rect]:
        """What a message keeps off: ``keep_clear``, and on the table more (the cards and
        counts a message is about, the hint card)."""
        return self.keep_clear()

    def toast_room(self, width: int, height: int) -> pygame.Rect | None:
        """Where a message goes when nothing near the finger or under ``keep_clear`` is
        free (None: below whose turn it is, as before)."""
        return None

    def toast_passing_room(self) -> pygame.Rect | None:
        """Where an answer to a touch (or a passing ``toast(hold=False)``) goes when
        nowhere else is free (None: it waits, or goes)."""
        return None

    @property
    def toasts(self) -> list[str]:
        return [n.text for n in self._toasts]

    def _toast_widgets(self) -> list[Widget]:
        """The messages showing, where each goes, then the message over the whole screen.
        With none, where one could go is not worked out (about 500 bytecodes a frame)."""
        if not self.size[0]:
            return []
        placed = self._toasts_placed() if self._toasts else []
        return placed + self._whole_message_widgets()

    def _toasts_placed(self) -> list[Widget]:
        out: list[Widget] = []
        w, h = self.size
        tw = min(w - 2 * self.m.margin, self.m.px(theme.TOAST_W))
        th = self.m.px(theme.TOAST_H)
        clear = self.toast_keep_clear()
        below = max((r.bottom for r in self.keep_clear()), default=self.m.bar + self.m.margin)
        room = self.toast_room(tw, th)
        screen = pygame.Rect(0, 0, w, h).inflate(-2 * self.m.margin, -2 * self.m.margin)
        for i, note in enumerate(self._toasts):
            spots = self._toast_spots(i, note, (tw, th), below)
            if room is not None and not i:      # (one message at a time in the room: the
                spots.append(pygame.Rect(room))    # others wait for it)
            for r in spots:
                r.clamp_ip(screen)
            free = next((r for r in spots if not any(r.colliderect(c) for c in clear)), None)
            if free is None and (not note.hold or note.near is not None):
                free = self.toast_passing_room()    # an answer to a touch: at once
            if free is None:
                # nowhere free of what a message must keep off (a card, a count, a button):
                # it waits for a place, and then shows for its whole time
                note.held = True
                continue
            if note.held:
                note.held, note.until = False, self.app.clock() + note.seconds
            out.append(self._toast(i, note, free))
        return out

    def _toast_spots(self, i: int, note: _ToastNote, size: tuple[int, int],
                     below: int) -> list[pygame.Rect]:
        """Where the ``i``-th message may go, first choice first: above the finger, else
        below it, else under what it keeps clear (``below``), each ``i`` steps further."""
        tw, th = size
        step = i * (th + self.m.gap)
        spots = []
        if note.near is not None:     # above the finger, else below it
            x, y = note.near
            spots += [pygame.Rect(0, 0, tw, th), pygame.Rect(0, 0, tw, th)]
            spots[0].midbottom = (x, y - self.m.px(theme.TOAST_FINGER_GAP) - step)
            spots[1].midtop = (x, y + self.m.px(theme.TOAST_FINGER_GAP) + step)
        spots.append(pygame.Rect(0, 0, tw, th))
        spots[-1].midtop = (self.size[0] // 2, below + self.m.margin + step)
        return spots

    def _toast(self, i: int, note: _ToastNote, rect: pygame.Rect) -> Toast:
        """The ``i``-th message, shown in ``rect``: a tap puts it away, or shows it whole
        where only its headline shows."""
        flat, small = self.toast_style(rect)
        words, smallest = self._toast_words(note.text, rect, flat, small)
        return Toast(f"toast.{i}", rect, text=words, size=self.m.body, kind=note.kind,
                     min_size=smallest, flat=flat,
                     on_tap=self._dismiss_toasts if words == note.text
                     else partial(self._show_whole, note.text))

    def toast_style(self, rect: pygame.Rect) -> tuple[bool, int]:
        """How a message in ``rect`` looks: ``Toast.flat`` (in a bar of its own height),
        and the smallest type its words take (``Metrics.small`` here)."""
        return False, self.m.small

    def _toast_words(self, text: str, rect: pygame.Rect, flat: bool = False,
                     small: int | None = None) -> tuple[str, int | None]:
        """What a message shows in ``rect``, and its smallest type size: all of it where it
        fits whole at ``small`` or more (``toast_style``: 17 px, ``Metrics.small``, or in
        the table's top bar 22, the body size); else its headline (the words before its
        first ": " or ". ") and a "›", whose tap shows it whole (``_show_whole``), where
        that fits so ("Shop open again: the correction removed Chl…" at 13 px in the top
        bar once); else as many of its first words as fit so, and a "›" ("Ben no tiene
        ningún pedido en la pestaña 3" was once 13 px beside ABIERTO); never smaller than
        ``small`` while a word fits (else, in the top bar, than the small type: a long name
        beside ABIERTO and the device icons)."""
        box = Toast.text_box(rect, flat)
        small = self.m.small if small is None else small
        if _whole(text, box, self.m.body, small):
            return text, small
        cut = min((i for i in (text.find(": "), text.find(". ")) if i > 0), default=-1)
        if cut > 0 and _whole(headline := text[:cut].rstrip(".:") + " ›", box, self.m.body,
                              small):
            return headline, small
        # the most first words that fit (a longer start never fits where a shorter one
        # does not: halved, a few tries, not one per word)
        words = text.split()

        def start(n: int) -> str:
            return " ".join(words[:n]).rstrip(".:,;") + " ›"
        lo, hi = 0, len(words) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if _whole(start(mid), box, self.m.body, small) else (lo, mid - 1)
        if not lo:      # (a long first word broken at a bigger size fails where two pass)
            lo = max((n for n in range(1, min(4, len(words))) if _whole(
                start(n), box, self.m.body, small)), default=0)
        if not lo and small > self.m.small:     # not even its first word: the small type
            return self._toast_words(text, rect, flat, self.m.small)
        return (start(lo), small) if lo else (text, None)

    def _show_whole(self, text: str) -> None:
        self._whole_message = text
        self.changed()

    def _whole_message_widgets(self) -> list[Widget]:
        """A message shown whole, over the screen, as its headline's tap asked; a tap
        anywhere puts it away."""
        text = self._whole_message
        if text is None:
            return []
        m = self.m
        close = self._dismiss_toasts
        box = pygame.Rect(0, 0, min(m.rect.w - 2 * m.margin, m.px(theme.TOAST_WHOLE_W)),
                          min(m.rect.h - 2 * m.margin, m.px(theme.TOAST_WHOLE_H)))
        box.center = m.rect.center
        return [Shade("toast.whole.shade", m.rect, on_tap=close),
                Label("toast.whole", box, text=text, size=m.big, bold=True, lines=8,
                      min_size=m.body, background=theme.TOAST, color=theme.TEXT_DARK,
                      radius=14, pad=m.gap * 2, on_tap=close)]

    def _dismiss_toasts(self) -> None:
        self._toasts = []
        self._whole_message = None
        self.changed()

    # --- pointer -> taps ------------------------------------------------------------------

    def widget_at(self, pos: tuple[int, int]) -> Widget | None:
        """The front-most widget at ``pos`` that takes taps (or blocks them)."""
        ws = self.widgets() if (self._changed or not self._widgets) else self._widgets
        for w in reversed(ws):
            if w.rect.collidepoint(pos) and (w.on_tap is not None or w.blocks):
                return w
        return None

    def _pointer(self, p: Pointer) -> None:
        w = self.widget_at(p.pos)
        if p.kind == "down":
            self._pressed = w.name if w is not None and w.tappable else None
            if self._pressed:
                self._press_look(self._pressed)
            return
        pressed, self._pressed = self._pressed, None
        if pressed is None:
            return
        self._press_look(pressed)
        if w is not None and w.name == pressed and w.tappable and w.on_tap is not None:
            # (the start-up fault page's stand-in app posts nothing)
            newest = getattr(self.app, "last_posted", None)
            before = newest() if newest is not None else None
            w.on_tap()
            if newest is not None and newest() is not before:
                return      # the table loop's answer (an update) builds the screen again
        self.changed()


#: size -> (a copy of the screen under a dialog's shade, the token of the draw that made it):
#: one surface per size, made once and reused (no whole-screen allocation per dialog)
_UNDER: dict[tuple[int, int], tuple[pygame.Surface, object]] = {}


def _under_copy(surface: pygame.Surface) -> pygame.Surface:
    """The surface a copy of the screen under a shade goes to, made once per size and format
    (on a whole repaint: no whole-screen allocation on the tap that opens a dialog)."""
    return _kept_surface(_UNDER, surface)[0]


def _make_kept_surfaces(surface: pygame.Surface) -> None:
    """Make the whole-screen surfaces kept for ``surface``'s size and format, if they are
    not made yet: the copy kept under a dialog, the veiled copy and the frames painted
    ahead. A whole repaint makes them (the first one is the start-up's first frame), not
    a step painted ahead: each clears a whole screen's pixels, 1.5 M instructions at 800 x
    480 counted on x86-64 (callgrind counts each byte ``rep stosb`` clears), 4.1 M at 1280 x
    800, more than a step may take. Made while idle, the first frame painted ahead and the
    first veiled copy each took a step of 2.0-2.3 M at 800 x 480 (issue 38)."""
    for store in (_UNDER, _VEILED, *_AHEAD):
        _kept_surface(store, surface)


def _kept_surface(store: dict[tuple[int, int], tuple[pygame.Surface, object]],
                  surface: pygame.Surface) -> tuple[pygame.Surface, object]:
    """``store``'s whole-screen surface for ``surface``'s size and format and whose it is
    (None: nobody's), made (nobody's) the first time: kept, not made again per use."""
    size = surface.get_size()
    got = store.get(size)
    if got is None or not _same_format(got[0], surface):
        if len(store) > 4:
            store.clear()
        got = store[size] = (pygame.Surface(size, 0, surface), None)
    return got


#: how many predicted frames are painted ahead whole (``Screen.predictions``): a scan's
#: and END TURN's while the draw prompt asks for a scan
AHEAD_FRAMES = 2
#: per predicted frame, size -> (the frame painted ahead, whose it is)
_AHEAD: tuple[dict[tuple[int, int], tuple[pygame.Surface, object]], ...] = tuple(
    {} for _ in range(AHEAD_FRAMES))


class _Ahead(NamedTuple):
    """A screen's frame painted ahead on one of the ``_AHEAD`` surfaces: what it shows
    (name -> (rect, key); None: nothing yet), what of it must be painted again whatever it
    shows (its painting is not done), and the fonts' generation it was painted with."""
    drawn: dict | None = None
    owed: tuple[pygame.Rect, ...] = ()
    fonts: int = -1


_NO_AHEADS = (_Ahead(),) * AHEAD_FRAMES
#: size -> (the veiled copy, whose it is)
_VEILED: dict[tuple[int, int], tuple[pygame.Surface, object]] = {}
_DONE: Iterator[None] = iter(())
#: ``_Painter._look``: the widget shows only in part where it is painted, so its look is
#: painted aside whole (its shapes drawn, not cut) and copied
_ASIDE = object()
_ONE = (None,)
#: pixels veiled per step ahead (a tap waits for at most one step)
_VEIL_BAND_PIXELS = 48_000
#: widgets whose placing (``_placed``) a step painting ahead works out (twenty were up to 2 M
#: instructions in one step, the step before the costliest scan in Cake Time, issue 38)
_PLACED_PER_STEP = 10


def _same_format(a: pygame.Surface, b: pygame.Surface) -> bool:
    return a.get_bitsize() == b.get_bitsize() and a.get_masks() == b.get_masks()


def _bands(r: pygame.Rect, pixels: int) -> list[pygame.Rect]:
    """``r`` cut into horizontal bands of about ``pixels`` each."""
    rows = max(1, pixels // max(1, r.w))
    return [pygame.Rect(r.x, y, r.w, min(rows, r.bottom - y)) for y in range(r.y, r.bottom, rows)]


def _around(r: pygame.Rect, hole: pygame.Rect) -> list[pygame.Rect]:
    """The parts of ``r`` outside ``hole`` (at most four rectangles)."""
    inner = r.clip(hole)
    if not inner:
        return [r]
    parts = [pygame.Rect(r.x, r.y, r.w, inner.top - r.y),
             pygame.Rect(r.x, inner.bottom, r.w, r.bottom - inner.bottom),
             pygame.Rect(r.x, inner.top, inner.left - r.x, inner.h),
             pygame.Rect(inner.right, inner.top, r.right - inner.right, inner.h)]
    return [p for p in parts if p.w > 0 and p.h > 0]


def _area(rects: list[pygame.Rect]) -> int:
    return sum(r.w * r.h for r in rects)


def _same_order(a: dict, b: dict) -> bool:
    """The widgets both frames show come in the same order (back to front) in both."""
    return list(filter(b.__contains__, a)) == list(filter(a.__contains__, b))


class _Over:
    """What a frame paints over each of its widgets: ``reaches(i, rect)``, whether a widget
    after ``ws[i]`` that paints anything reaches ``rect``. The extents are worked out once
    and compared in C (asked of each widget against every widget after it, in Python, it
    was up to 16 k bytecodes in one step ahead, issue 38)."""

    def __init__(self, ws: list[Widget]):
        self.at = [i for i, w in enumerate(ws) if w.shows]
        self.extents = [ws[i].extent for i in self.at]

    def reaches(self, i: int, rect: pygame.Rect) -> bool:
        return rect.collidelist(self.extents[bisect_right(self.at, i):]) >= 0


class _Painter:
    """``paint(i, room)`` puts widget ``ws[i]`` on ``surface``: copied from its kept look
    when it has one (``widgets.Looks``: painted before on the same plain colour), else
    painted, its look kept if it lies wholly in ``room``; True if it was painted. The plain
    colour under a widget (what the widgets before it paint there, or the background) is
    worked out for the widgets a repaint reaches, when first asked. With ``owe`` (a draw
    on the screen, not painting ahead) a look is owed there instead of kept (the screen
    copies it while the table is idle, ``Screen._keep_owed_looks``)."""

    def __init__(self, surface: pygame.Surface, ws: list[Widget], extents: list[pygame.Rect],
                 background, owe: dict | None = None):
        self.surface, self.ws, self.extents, self.background = surface, ws, extents, background
        self.owe = owe
        self.kept = None if surface.get_flags() & pygame.SRCALPHA else looks()
        if self.kept is not None:
            room_for(surface.get_size())
        self.form = (surface.get_bitsize(), surface.get_masks(), 0)
        self._grounds: dict[int, Any] = {}
        self._copied = 0                # pixels of looks copied since the last step ahead

    def ground(self, i: int):
        got = self._grounds
        if i not in got:
            e = self.extents[i]
            below = e.collidelistall(self.extents[:i])
            got[i] = self.ws[below[-1]].solid_over(e) if below else self.background
        return got[i]

    def __call__(self, i: int, room: pygame.Rect) -> bool:
        done, key = self._look(i, room)
        if done is _ASIDE:                  # (shown in part: made whole aside and copied)
            assert self.kept is not None and key is not None
            done = self._copy_aside(i, key, self.kept.paint_aside(
                key, self.ws[i], self.ground(i), self.surface))
        if isinstance(done, bool):          # (copied)
            return done
        w = self.ws[i]
        w.draw(self.surface)
        self._kept(key, w, room)
        return True

    def steps(self, i: int, room: pygame.Rect) -> Iterable[None]:
        """``paint(i, room)`` as steps: an item after the widget painted, none if its look
        was copied. Painting ahead, one after each part of it as well
        (``Widget.paint_steps``), and one once a band's worth of looks is copied (or eight
        small ones: each is its key worked out); a draw on the screen (``owe``) paints it
        in one go."""
        if self.owe is not None:
            return _ONE if self(i, room) else ()
        return self._parts(i, room)

    def _parts(self, i: int, room: pygame.Rect) -> Iterator[None]:
        done, key = self._look(i, room)
        if done is _ASIDE:  # (made whole aside a part per step, as painted in place)
            assert self.kept is not None and key is not None
            surface = self.surface
            clip = surface.get_clip()
            look = yield from self.kept.paint_aside_steps(key, self.ws[i], self.ground(i),
                                                          surface)
            surface.set_clip(clip)
            done = self._copy_aside(i, key, look)
        if done is False:   # (copied: a step once a band's worth, or a few, are copied)
            self._copied += self.ws[i].rect.w * self.ws[i].rect.h + _VEIL_BAND_PIXELS // 8
            if self._copied >= _VEIL_BAND_PIXELS:
                self._copied = 0
                yield
            return
        if done is None:
            w, surface = self.ws[i], self.surface
            clip = surface.get_clip()
            for _ in w.draw_steps(surface):
                yield
                surface.set_clip(clip)
            self._kept(key, w, room)
        yield

    def _copy_aside(self, i: int, key: tuple, look: pygame.Surface | None) -> bool | None:
        """Widget ``i``'s look painted aside whole, copied where it shows: True; None if it
        was too big to keep (it is painted in place)."""
        if look is None:
            return None
        self.surface.blit(look, self.ws[i].rect)
        return True

    def _look(self, i: int, room: pygame.Rect) -> tuple[bool | object | None, tuple | None]:
        """Widget ``i`` from its kept look, if it has one: (False, None) copied; (``_ASIDE``,
        its key) if it shows only in part in ``room`` and is to be painted aside whole;
        else (None, the key to keep its look under)."""
        w, kept, surface = self.ws[i], self.kept, self.surface
        if kept is None:
            return None, None
        ground = self.ground(i)
        key = kept.key(w, ground, self.form) if ground is not None else None
        if key is None:
            return None, None
        look = kept.get(key)
        if look is not None:
            surface.blit(look, w.rect)
            return False, None
        if not room.contains(w.rect) and surface.get_rect().contains(w.rect):
            return _ASIDE, key
        return None, key

    def _kept(self, key: tuple | None, w: Widget, room: pygame.Rect) -> None:
        if self.kept is not None and key is not None and room.contains(w.rect):
            self._keep(self.kept, key, w)

    def _keep(self, kept: Any, key: tuple, w: Widget) -> None:
        """Keep ``w``'s look just painted (or owe it, see ``owe``)."""
        if self.owe is not None:
            self.owe[w.name] = (key, pygame.Rect(w.rect), w.placed())
        else:
            kept.keep(key, self.surface, w.rect)


def _copy_whole_under(surface: pygame.Surface) -> object:
    """Copy the whole screen as the copy kept under a dialog; the copy's token."""
    copy = _under_copy(surface)
    copy.blit(surface, (0, 0))
    token = object()
    _UNDER[surface.get_size()] = (copy, token)
    return token


def _merge(rects: list[pygame.Rect]) -> list[pygame.Rect]:
    """Fewer, larger rectangles (of ``rects``, pygame Rects): two that overlap become their
    union, unless it is larger than both together (a band across the screen and a card
    under it: their union is the whole panel); those stay apart, and what they share is
    painted twice, the same. One inside a rectangle already there adds nothing (END
    TURN's 127 rectangles are 114 widgets inside their changed panels): passed over at
    once (1.19 -> 0.50 M instructions for those 127)."""
    out: list[pygame.Rect] = []
    for r in rects:
        hits = r.collidelistall(out)
        if not hits:
            out.append(pygame.Rect(r))
        elif not (out[hits[0]].contains(r)
                  or len(hits) > 1 and any(out[i].contains(r) for i in hits)):
            out.append(_merged(pygame.Rect(r), out))
    return out


def _merged(r: pygame.Rect, out: list[pygame.Rect]) -> pygame.Rect:
    """``r`` grown by the rectangles of ``out`` it merges with (taken out of ``out``)."""
    merged = True
    while merged:
        merged = False
        for i in r.collidelistall(out):     # (those it overlaps)
            o = out[i]
            union = r.union(o)
            if union.w * union.h <= r.w * r.h + o.w * o.h:
                r = union
                del out[i]
                merged = True
                break
    return r


def monotonic() -> float:
    return time.monotonic()


def _placed(ws: list[Widget]) -> dict:
    """Each widget's name -> (where it is, what it shows), of those that paint anything (a
    touch target that paints nothing repaints nothing); names must be unique."""
    now = _placings(ws)
    if len(now) != len(ws):
        _check_unique(ws)
    return now


def _placed_steps(ws: list[Widget]) -> Generator[None, None, dict]:
    """``_placed(ws)`` worked out ``_PLACED_PER_STEP`` widgets a step: a fresh frame's
    widgets make their keys here, up to 2.8 M instructions at 800 x 480 for a whole frame
    at once (1.4 M for a warmed frame of Cake Time's, in one step until issue 38's
    thirteenth round)."""
    now: dict = {}
    for start in range(0, len(ws), _PLACED_PER_STEP):
        now.update(_placings(ws[start:start + _PLACED_PER_STEP]))
        yield
    if len(now) != len(ws):
        _check_unique(ws)
    return now


def _placings(ws: list[Widget]) -> dict:
    return {w.name: w.placed() for w in ws if w.shows}


def _check_unique(ws: list[Widget]) -> None:
    names = [w.name for w in ws]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"two widgets are called {dup!r}")


def _reaching(ws: list[Widget], band: pygame.Rect) -> dict:
    """Name -> (where it is, what it shows) of the widgets of ``ws`` that paint into
    ``band``, back to front."""
    return {w.name: w.placed() for w in ws if w.shows and w.extent.colliderect(band)}


def _repainted(ws: list[Widget], dirty: list[pygame.Rect]) -> list[int]:
    """Which of ``ws`` (their indexes, in order) a repaint of the ``dirty`` rectangles
    paints: in each, those that reach into it from the front-most plain panel covering it
    on (as ``Screen._repaint_steps`` picks them)."""
    extents = [w.extent for w in ws]
    out: set[int] = set()
    for r in _merge(dirty):
        at = r.collidelistall(extents)
        start = next((i + 1 for i in range(len(at) - 1, -1, -1)
                      if ws[at[i]].solid_over(r) is not None), 0)
        out.update(at[start:])
    return sorted(i for i in out if ws[i].shows)


def _veil_index(surface: pygame.Surface, ws: list[Widget]) -> int | None:
    """Where a whole-screen Shade (a dialog's veil) is in the widgets, if one is."""
    if surface.get_flags() & pygame.SRCALPHA:
        return None
    kinds = list(map(type, ws))
    if Shade not in kinds:
        return None
    full = pygame.Rect((0, 0), surface.get_size())
    return next((i for i, w in enumerate(ws) if kinds[i] is Shade and w.rect == full), None)


def _dirty(drawn: dict, ws: list[Widget], now: dict) -> list[pygame.Rect]:
    """The rectangles to paint again: widgets gone, changed, or moved (where they were too)."""
    got = _dirty_within(drawn, now, None)
    assert got is not None
    return got


def _dirty_within(drawn: dict, now: dict, room: int | None) -> list[pygame.Rect] | None:
    """``_dirty``; with ``room``, None as soon as the rectangles' areas add up to half of
    ``room`` or more (a frame painted ahead that predicted that much wrongly goes unused:
    the rest is not worth working out)."""
    dirty = [pygame.Rect(drawn[name][0]) for name in filterfalse(now.__contains__, drawn)]
    total = _area(dirty) if room is not None else 0
    if room is not None and total * 2 >= room:
        return None
    # (``now`` is in the widgets' order; a kept widget's placing is the same object as
    # drawn, which C sorts out before Python looks at the others)
    names = compress(now, map(operator.is_not, map(drawn.get, now), now.values()))
    for name in names:
        placed, before = now[name], drawn.get(name)
        if before != placed:
            r = pygame.Rect(placed[0])
            dirty.append(r)
            if before is not None and before[0] != placed[0]:
                dirty.append(pygame.Rect(before[0]))      # where it was before it moved
            if room is not None:
                total += r.w * r.h + (dirty[-1].w * dirty[-1].h if dirty[-1] is not r else 0)
                if total * 2 >= room:
                    return None
    return dirty
