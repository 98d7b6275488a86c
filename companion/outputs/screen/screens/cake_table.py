"""Cake Time on the table view (mixed into ``TableView``; spec "Cake Time").

- A cake badge on every order position that carries cakes, in every panel.
- The cake question: after the deal and after each draw the deck's back may
  show a cake ("3. 확장: 케이크 타임", 진행: the card just taken gets one). The
  companion cannot see the deck, so a strip asks and offers one chip per player
  who just took cards; each tap is a ``cake`` action for that player (the newest
  cake-less card of their position 1). Not under "two drinks, one cake": the
  companion places those cakes itself and the deck's backs no longer count
  (선택 규칙).
- The "Cake" button (a cake card above the word), offered only when the engine would accept
  ``play_cake_card`` (before the player completes an order).
- Break Time, when ending the turn now would pay a cake card.

Legality is asked of the engine (``TableView.accepts``); every tap becomes a
``TouchAction`` through ``app.post_action``.
"""
from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Iterator
from functools import partial
from itertools import compress, repeat
from typing import TYPE_CHECKING, Any

import pygame

from companion.core.loop import mixed_cakes
from companion.core.rules.happenings import (CakePlaced, CardEnrolled, CardIdentified, CardsToDraw,
                                             DeviceStatusChanged, DrawsDismissed, GameStarted,
                                             UnknownCard)
from .. import theme
from ..cakes import cake_badge, draw_cake
from ..layout import centered, cols, inset, rows
from ..text import language
from ..widgets import (Button, Custom, Fill, Label, OrderCard, Widget, fit, font_generation,
                       text_width)
from .base import Screen

# Happenings that keep the cake question up: the cakes themselves, and things that are
# not a move at the table (scans of the new cards, device news, the draw prompt hidden).
_KEEP_ASKING = (CakePlaced, CardIdentified, UnknownCard, CardEnrolled, DeviceStatusChanged,
                DrawsDismissed)


class CakeTable(Screen):
    """The Cake Time part of ``TableView`` (which answers ``accepts``)."""

    if TYPE_CHECKING:
        def accepts(self, action: dict) -> bool: ...
        def _kept(self, key: tuple, build: Callable[[], list[Widget]]) -> list[Widget]: ...
        def _as_if(self, table: Any, draws: Any) -> contextlib.AbstractContextManager[None]: ...
        def _parts_as_if(self, table: Any, draws: Any,
                         setup: Callable[[], None]) -> Iterator[None]: ...
        dialog: str | None
        cake_slot: int

    cake_offer: tuple[str, ...] = ()       # players whose just-taken cards may get a cake
    cake_dealing: bool = False             # ... taken in the deal
    question_band: pygame.Rect | None = None   # where the question goes (the active panel's foot)
    _cake_badges: dict[tuple, Widget]      # the badges built, by what they show
    _question_widths: dict[tuple, tuple[int | None, int]]   # _question_words_w's answers

    # --- updates -----------------------------------------------------------------------

    def cake_update(self, update: Any) -> None:
        game = update.table.game
        if game is None or game.expansion is None or game.two_drinks_one_cake:
            self.cake_offer = ()
            return
        offer: list[str] = []            # in the order the cards left the deck
        for h in update.happened:
            if isinstance(h, GameStarted):
                n = len(game.players)
                offer += [game.players[(game.start + k) % n].name for k in range(n)]
            elif isinstance(h, CardsToDraw):
                offer += [p for p, _ in h.draws]
        if offer:
            self.cake_offer = tuple(dict.fromkeys(offer))
            self.cake_dealing = any(isinstance(h, GameStarted) for h in update.happened)
        elif any(not isinstance(h, _KEEP_ASKING) for h in update.happened):
            self.cake_offer = ()

    def cake_dialogs_ahead(self) -> Iterator[list[Widget]]:
        """The cake question a tap on a position asks (with or without a cake?), for each
        position that holds both: its widgets, for their looks to be made ahead."""
        game = self.app.table.game
        if game is None or game.expansion is None or game.active_player is None:
            return
        for slot in range(1, 5):
            if mixed_cakes(game.active_player, slot):
                with self._as_if(self.app.table, self.app.draws):
                    self.dialog, self.cake_slot = "cake_choice", slot
                    ws = self.widgets()
                yield ws

    def cake_frames_warmed(self) -> Iterator[list[Widget] | None]:
        """The table as it shows once the cake question goes (the next move but a cake
        takes it away: an upgrade, a spend, a cake card, an order): what it hides now is
        painted ahead aside, so that move copies those looks instead of painting a band
        across the panels (the cards just drawn under it were never painted yet). Its parts
        are built one per step first (a None each: the whole frame in one step was up to
        16 k bytecodes, issue 38)."""
        if not self.cake_offer or self.dialog is not None:
            return
        yield from self._parts_as_if(self.app.table, self.app.draws, self._no_question)
        yield self._without_question()

    def uncovered_ahead(self) -> tuple[list[Widget], pygame.Rect] | None:
        """The cake question's band, as the table shows it once the question goes: painted
        ahead, then copied when it goes (but for what the move changed there). A toast
        shown over it goes first (its time runs out, a tap sends it away; the question
        waits for its answer): the band under the toast then, as the table shows it with
        the question (a toast gone off the question painted the cards and panels under
        it again: 7.3 M instructions at 1280 x 800, issue 19)."""
        under_toast = super().uncovered_ahead()
        if under_toast is not None or not self.cake_offer or self.dialog is not None:
            return under_toast
        band = next((w.rect for w in self._widgets if w.name == "ban.cake.bg"), None)
        return (self._without_question(), band) if band is not None else None

    def _without_question(self) -> list[Widget]:
        with self._as_if(self.app.table, self.app.draws):
            self._no_question()
            return self.widgets()

    def _no_question(self) -> None:
        self.cake_offer = ()

    def _cake_done(self) -> None:
        self.cake_offer = ()
        self.changed()

    # --- widgets -----------------------------------------------------------------------

    def cake_widgets(self, game: Any, built: list[Widget], body: pygame.Rect) -> list[Widget]:
        """Cake Time additions over the table's widgets (``built``, from which the Break
        Time line takes the hint's place); none in other games."""
        if game.expansion is None:
            return []
        out: list[Widget] = []
        active = game.active if game.active is not None else game.last_seat
        cards = compress(built, map(operator.is_, map(type, built), repeat(OrderCard)))
        for w in cards:         # (picked in C: a hundred widgets, a few of them cards)
            prefix, _, pos = w.name.partition(".pos")
            if not pos.isdigit():
                continue
            seat = active if prefix == "act" else int(prefix[1:])
            cakes = sum(c.cake for c in game.players[seat].queue[int(pos) - 1])
            if cakes:      # the big slots keep their corners for the number and the count
                out.append(self._cake_badge(w, cakes, "row" if prefix == "act" else "corner"))
        out += self._break_time(game, built)
        if self.cake_offer and not game.game_over:
            out += self._cake_question(game, built, body)
        return out

    def _cake_badge(self, card: Widget, cakes: int, place: str) -> Widget:
        """The badge of ``cakes`` on ``card``, the same widget while it shows the same (its
        key then worked out once, and the frames compare it by identity)."""
        key = (card.name, tuple(card.rect), cakes, place)
        kept = self._cake_badges
        got = kept.get(key)
        if got is None:
            if len(kept) >= 64:
                del kept[next(iter(kept))]
            got = kept[key] = cake_badge(f"{card.name}.cake", card.rect, cakes, place)
            got.keep_key()
        return got

    def can_play_cake_card(self) -> bool:
        return self.accepts({"do": "play_cake_card"})

    def cake_card_button(self, game: Any, slot: pygame.Rect,
                         button: Callable[..., Widget]) -> list[Widget]:
        """The footer's cake card button (``button`` makes a footer button)."""
        if game.game_over or game.active is None or not self.can_play_cake_card():
            return []
        return [button("ft.cake_card", slot, text=self.t("cake.play"), icon="cake_card",
                       color=theme.mix(theme.CAKE_PINK, theme.PANEL, 0.25),
                       on_tap=lambda: self.app.post_action({"do": "play_cake_card"}))]

    def _break_time(self, game: Any, built: list[Widget]) -> list[Widget]:
        """Break Time pays at the end of this turn (0 or 1 order completed so far)."""
        me = game.active_player
        if me is None or "break_time" not in me.upgrades \
                or game.completed_this_turn > game.rules.break_time_most_completed:
            return []
        hint = next((w for w in built if w.name == "act.hint"), None)
        if hint is None:
            return []
        built.remove(hint)      # Break Time takes the hint's line while it pays
        m = self.m          # over the hint line: ending the turn now pays
        r = hint.rect.inflate(0, 8)      # (into the row gaps: two lines and its margin)
        return [Label("act.break_time", r, text=self.t("cake.break_time"), size=m.small,
                      bold=True, lines=2, color=theme.TEXT_DARK, background=theme.CAKE_PINK,
                      radius=8,
                      pad=m.px(theme.CAKE_BREAK_TIME_PAD),
                      min_size=m.px(theme.CAKE_BREAK_TIME_MIN_TYPE))]

    def question_h(self, game: Any, width: int) -> int:
        """The height of the band the cake question takes at the foot of the active panel
        (``width`` wide; 0: no question)."""
        if not self.cake_offer or game.game_over or game.expansion is None:
            return 0
        m = self.m
        pad = 2 * m.px(theme.CAKE_QUESTION_PAD[1])
        if self._question_words_w(width)[0] is not None:
            return max(m.target, m.px(theme.CAKE_QUESTION_BESIDE_H)) + pad
        # the words over the chips (two lines of the small type): the chips are the
        # smallest finger's target, so the cards keep theirs
        return max(theme.MIN_TARGET, m.px(theme.MIN_TARGET)) + pad \
            + m.px(theme.CAKE_QUESTION_WORDS_H) + m.px(theme.CAKE_QUESTION_ROW_GAP)

    def _chip_words(self) -> list[str]:
        return ["+ " + n for n in self.cake_offer] + [self.t("cake.done")]

    def _question_words_w(self, width: int) -> tuple[int | None, int]:
        """How wide the question's words (and the cake) are beside the chips in a band
        ``width`` wide, the chips as wide as their words, and the chips' type size (the body
        size, else the small one to leave the words room); None: the words are not whole
        beside the chips in three lines of the small type, so they go over them.
        Remembered while the question is the same: every frame asks it while the question
        is up (the active panel leaves it room), and each measure was a twentieth of a scan's
        work in Cake Time (issue 38)."""
        key = (width, self.cake_offer, self.cake_dealing, language(), self.m,
               font_generation())
        known = self._question_widths
        got = known.get(key)
        if got is None:
            if len(known) >= 16:
                known.clear()
            got = known[key] = self._measure_question(width)
        return got

    def _measure_question(self, width: int) -> tuple[int | None, int]:
        m = self.m
        inner_w = width - 2 * m.px(theme.CAKE_QUESTION_PAD[0])
        icon_w = m.px(theme.CAKE_QUESTION_LINE_H) + m.px(theme.CAKE_QUESTION_ICON_GAP)
        words = self.t("cake.ask_deal" if self.cake_dealing else "cake.ask")
        for size in (m.body, m.small):
            chips_w = sum(text_width(w, size, True) + 2 * m.px(theme.CAKE_CHIP_PAD) + m.gap
                          for w in self._chip_words())
            words_w = inner_w - chips_w - m.gap
            box = pygame.Rect(0, 0, words_w - icon_w,
                              max(m.target, m.px(theme.CAKE_QUESTION_BESIDE_H)))
            if box.w > 0:
                _, broken = fit(words, box, m.small, True, 3, m.small)
                if not any("…" in x for x in broken):
                    return words_w, size
        return None, m.body

    def _cake_question(self, game: Any, built: list[Widget], body: pygame.Rect) -> list[Widget]:
        """"Cake on the deck's back?": a chip per player who just took cards, in its band at
        the active panel's foot (never over a card, a count or the draw prompt); kept while
        what it shows is the same (it stays up over several moves)."""
        band = self.question_band
        if band is None:
            return []
        key = ("cake_question", tuple(band), self.cake_offer, self.cake_dealing,
               tuple(p.name for p in game.players), tuple(map(tuple, self.app.seat_colors)),
               language(), self.m)
        return self._kept(key, lambda: self._build_cake_question(game, band))

    def _build_cake_question(self, game: Any, r: pygame.Rect) -> list[Widget]:
        m = self.m
        out: list[Widget] = [Fill("ban.cake.bg", r,
                                  color=theme.mix(theme.CAKE_PINK, theme.PANEL, 0.2),
                                  radius=12, border=3, border_color=theme.CAKE_PINK, blocks=True)]
        inner = inset(r, *map(m.px, theme.CAKE_QUESTION_PAD))
        names = list(self.cake_offer)
        words_w, chip_size = self._question_words_w(r.w)
        beside = words_w is not None
        if words_w is not None:   # the question left (the cake, its words), the chips right
            line, chips = cols(inner, [words_w, 1.0], m.gap)
        else:           # three or four players took cards: the words over a row of chips
            line, chips = rows(inner, [m.px(theme.CAKE_QUESTION_WORDS_H), 1.0],
                               m.px(theme.CAKE_QUESTION_ROW_GAP))
        icon_h = min(line.h, m.px(theme.CAKE_QUESTION_LINE_H))
        icon, words = cols(line, [icon_h, 1.0], m.px(theme.CAKE_QUESTION_ICON_GAP))
        out.append(Custom("ban.cake.icon", centered(icon, icon_h, icon_h), data="cake",
                          paint_fn=draw_cake))
        out.append(Label("ban.cake.ask", words,
                         text=self.t("cake.ask_deal" if self.cake_dealing else "cake.ask"),
                         size=m.small if beside else m.body, bold=True, align="left",
                         lines=3 if beside else 2, min_size=m.small))
        # each chip as wide as its words need (a long name gets the room a short one leaves)
        done = self.t("cake.done")
        specs = [float(text_width(w, chip_size, True) + 2 * m.px(theme.CAKE_CHIP_PAD))
                 for w in self._chip_words()]
        cells = cols(chips, specs, m.gap)
        seats = {p.name: i for i, p in enumerate(game.players)}
        for name, cell in zip(names, cells, strict=False):
            seat = seats.get(name, 0)
            colour = self.app.seat_colors[seat % len(self.app.seat_colors)]
            out.append(Button(f"ban.cake.{seat}", cell, text="+ " + name, size=chip_size,
                              pad=m.px(theme.CAKE_CHIP_PAD), color=colour,
                              on_tap=partial(self.app.post_action,
                                             {"do": "cake", "player": name})))
        out.append(Button("ban.cake.done", cells[-1], text=done, size=chip_size,
                          pad=m.px(theme.CAKE_CHIP_PAD), on_tap=self._cake_done))
        return out
