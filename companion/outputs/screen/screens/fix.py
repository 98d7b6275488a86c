"""Fix mode: set likes, dislikes, tokens (and cake cards) and the deck count by hand.

Reached only through a guard ("Correct the counts?" then a confirm), because
it overrides what the companion counted. Nothing changes until SAVE: then
each changed player becomes one ``correct`` action (and the deck its own
line, as the table script requires), posted to the table loop like any
other touch. The engine records them; undo takes them back.

Cake Time: "Cakes…" puts a cake on an order as a correction (``cake`` with ``player``
and ``slot``), also under "two drinks, one cake", where the table is never asked about
the deck's backs: each player's four positions, a touch on one posts ``cake`` at once,
its badge shows it on the next frame, and Undo (there, or on the table) takes it back.
"""
from __future__ import annotations

from functools import partial

from typing import Any

import pygame

from .. import theme
from ..cakes import cake_badge
from ..layout import cols, inset, rows
from ..text import drink_name, shown, tokens_name
from ..widgets import Button, Label, OrderCard, Widget, stepper_buttons
from .base import Screen

FIELDS = ("likes", "dislikes", "cookies")
CAKE_FIELDS = FIELDS + ("cake_cards",)      # Cake Time


def fields_of(game) -> tuple[str, ...]:
    return CAKE_FIELDS if game.expansion is not None else FIELDS


class FixScreen(Screen):
    def __init__(self, app: Any):
        super().__init__(app)
        self.edits: dict[tuple, int] = {}     # (player name or None, field) -> new value
        self.caking = False                   # "Cakes…": a cake on an order, at once

    def value(self, player, field: str) -> int:
        game = self.app.table.game
        if player is None:
            return self.edits.get((None, "deck"), game.deck)
        return self.edits.get((player.name, field), getattr(player, field))

    def change(self, player, field: str, delta: int) -> None:
        key = (None, "deck") if player is None else (player.name, field)
        self.edits[key] = max(0, self.value(player, field) + delta)
        self.changed()

    def actions(self) -> list[dict]:
        """The ``correct`` actions that SAVE posts: one per changed player, then the deck."""
        game = self.app.table.game
        out = []
        for p in game.players:
            changed = {f: self.edits[(p.name, f)] for f in fields_of(game)
                       if (p.name, f) in self.edits and self.edits[(p.name, f)] != getattr(p, f)}
            if changed:
                out.append({"do": "correct", "player": p.name, **changed})
        deck = self.edits.get((None, "deck"))
        if deck is not None and deck != game.deck:
            out.append({"do": "correct", "deck": deck})
        return out

    def save(self) -> None:
        actions = self.actions()
        if not actions:
            self.toast(self.t("fix.no_change"), kind="info")
            return
        for a in actions:
            self.app.post_action(a)
        self.app.pop(self)

    def on_update(self, update) -> None:
        super().on_update(update)
        if update.table.game is None:
            self.app.pop(self)

    def _cakes(self, on: bool) -> None:
        self.caking = on
        self.changed()

    def put_cake(self, player: str, slot: int) -> None:
        """A cake on ``player``'s newest order of position ``slot`` without one: a
        correction the table loop records at once (one UNDO takes it back)."""
        self.app.post_action({"do": "cake", "player": player, "slot": slot})

    def _undo_cake(self) -> None:
        self.app.post_action({"do": "undo"})

    def _last_is_cake(self) -> bool:
        undo = self.app.table.undo
        return undo is not None and undo[0][1].get("do") == "cake"

    def build(self) -> list[Widget]:
        game = self.app.table.game
        if game is None:
            return []
        if self.caking and game.expansion is not None:
            return self._build_cakes(game)
        m = self.m
        screen = inset(m.rect, m.margin)
        n = len(game.players)
        title, heads, body, footer = rows(screen, [m.bar - m.px(theme.FIX_TITLE_TRIM),
                                                   m.px(theme.FIX_HEADS_H), 1.0, m.bar], m.gap)
        out: list[Widget] = [Label("fix.title", title, text=self.t("fix.title"), size=m.huge,
                                   bold=True, color=theme.WARNING, align="left")]
        fields = fields_of(game)
        spec = [1.0] * (len(fields) + 1)
        token = game.rules.token
        words = ["", self.t("table.likes"), self.t("table.dislikes"), tokens_name(token)]
        if game.expansion is not None:
            words.append(self.t("cake.cards"))
        for i, (r, w) in enumerate(zip(cols(heads, spec, m.gap), words, strict=False)):
            out.append(Label(f"fix.head{i}", r, text=w, size=m.body, bold=True,
                             color=theme.TEXT_DIM, lines=2, min_size=m.small))
        step_h = max(m.target, min(m.px(theme.FIX_STEPPER_MAX_H), (body.h - n * m.gap) // (n + 1)))
        if len(fields) > len(FIELDS):      # narrower columns: keep room for two digits
            step_h = max(m.target, min(step_h, cols(body, spec, m.gap)[1].w * 3 // 8))
        lines = rows(body, [1.0] * (n + 1), m.gap)
        for seat, (p, line) in enumerate(zip(game.players, lines, strict=False)):
            color = self.app.seat_colors[seat % len(self.app.seat_colors)]
            cells = cols(line, spec, m.gap)
            out.append(Label(f"fix.name{seat}", cells[0], text=shown(p.name), size=m.big, bold=True,
                             color=theme.readable_on(color), background=color, radius=10,
                             pad=m.px(theme.FIX_LABEL_PAD), lines=2,
                             min_size=m.px(theme.FIX_LABEL_MIN_TYPE)))
            for f, cell in zip(fields, cells[1:], strict=False):
                r = pygame.Rect(cell.x, cell.centery - step_h // 2, cell.w, step_h)
                out += stepper_buttons(f"fix.{seat}.{f}", r, self.value(p, f), 0, 99,
                                       partial(self.change, p, f), m.big)
        deck_line = cols(lines[n], spec, m.gap)
        out.append(Label("fix.deck", deck_line[0], text=self.t("fix.deck"), size=m.big, bold=True,
                         background=theme.PANEL, radius=10, pad=m.px(theme.FIX_LABEL_PAD), lines=2,
                         min_size=m.px(theme.FIX_LABEL_MIN_TYPE)))
        deck_box = deck_line[1].union(deck_line[2]) if len(fields) > len(FIELDS) else deck_line[1]
        r = pygame.Rect(deck_box.x, deck_box.centery - step_h // 2, deck_box.w, step_h)
        out += stepper_buttons("fix.deck.n", r, self.value(None, "deck"), 0, 200,
                               lambda d: self.change(None, "deck", d), m.big)
        if len(fields) > len(FIELDS):      # Cake Time: a cake on an order, as a correction
            spare = deck_line[3].union(deck_line[4])
            out.append(Button("fix.cakes", pygame.Rect(spare.x, r.y, spare.w, r.h),
                              text=self.t("fix.cakes"), size=m.body, lines=2,
                              color=theme.mix(theme.CAKE_PINK, theme.PANEL, 0.25),
                              on_tap=partial(self._cakes, True)))
        cancel, save = cols(footer, [1.0, 1.0], m.gap)
        out.append(Button("fix.cancel", cancel, text=self.t("button.cancel"), size=m.big,
                          on_tap=lambda: self.app.pop(self)))
        out.append(Button("fix.save", save, text=self.t("button.save"), size=m.big,
                          color=theme.WARNING, on_tap=self.save))
        return out

    def _build_cakes(self, game) -> list[Widget]:
        """Each player's four positions with their cakes; a touch on one that holds an
        order without a cake puts one there at once."""
        m = self.m
        screen = inset(m.rect, m.margin)
        n = len(game.players)
        title, hint, body, footer = rows(screen, [m.bar - m.px(theme.FIX_TITLE_TRIM),
                                                  m.px(theme.FIX_HEADS_H), 1.0, m.bar], m.gap)
        out: list[Widget] = [
            Label("fix.cakes.title", title, text=self.t("fix.cakes_title"), size=m.huge,
                  bold=True, color=theme.WARNING, align="left"),
            Label("fix.cakes.hint", hint, text=self.t("fix.cakes_hint"), size=m.small,
                  color=theme.TEXT_DIM, lines=2, align="left")]
        catalog = self.app.catalog
        for seat, (p, line) in enumerate(zip(game.players, rows(body, [1.0] * n, m.gap),
                                             strict=True)):
            color = self.app.seat_colors[seat % len(self.app.seat_colors)]
            name, *slots = cols(line, [1.0] * 5, m.gap)
            out.append(Label(f"fix.cakes.name{seat}", name, text=shown(p.name), size=m.big,
                             bold=True,
                             color=theme.readable_on(color), background=color, radius=10,
                             pad=m.px(theme.FIX_LABEL_PAD), lines=2,
                             min_size=m.px(theme.FIX_LABEL_MIN_TYPE)))
            for i, (r, pos) in enumerate(zip(slots, p.queue, strict=True)):
                cards = tuple(_known(catalog.get(c.tag)) for c in pos)
                free = any(not c.cake for c in pos)
                card = OrderCard(f"fix.cake.{seat}.{i + 1}", r, position=i + 1, cards=cards,
                                 compact=True, size=m.small, seat_color=color,
                                 urgent_size=m.must,
                                 on_tap=partial(self.put_cake, p.name, i + 1) if free else None)
                out.append(card)
                cakes = sum(c.cake for c in pos)
                if cakes:
                    out.append(cake_badge(f"fix.cake.{seat}.{i + 1}.cake", r, cakes))
        undo, done = cols(footer, [1.0, 1.0], m.gap)
        out.append(Button("fix.cakes.undo", undo, text=self.t("button.undo"), size=m.big,
                          enabled=self._last_is_cake(), on_tap=self._undo_cake))
        out.append(Button("fix.cakes.done", done, text=self.t("cake.done"), size=m.big,
                          color=theme.PRIMARY, on_tap=partial(self._cakes, False)))
        return out


def _known(info) -> tuple | None:
    """A card as an ``OrderCard`` shows it: (drink, recipe, specialty), or None ("?")."""
    return None if info is None else (drink_name(info.drink), info.recipe,
                                      info.specialty)
