"""The end screen: who won, each score's breakdown, and why ties went the way they did.

Scores follow the edition's weights (``game.rules``: like, upgrade and
dislike points); the order and the tie explanations come from
``companion.rules.scoring`` (``ranking`` and ``tie_break``), never recomputed
here. REMATCH posts the same setup again (same players, edition, variant,
start and upgrade tiles); NEW GAME opens the setup wizard.
"""
from __future__ import annotations

from typing import Any

import pygame

from ...rules.scoring import ranking, tie_break, winners
from .. import theme
from ..layout import cols, inset, rows
from ..text import join_names, tokens_lower
from ..widgets import Button, Fill, Label, Widget
from .base import Screen


def setup_of(game) -> dict:
    """The setup action that starts the same game again (for a rematch)."""
    action: dict = {"do": "setup", "edition": game.edition,
                    "players": [p.name for p in game.players],
                    "start": game.players[game.start].name, "variant": game.variant}
    if game.variant != "junior":
        action["upgrades"] = {p.name: list(p.tiles) for p in game.players}
    if game.ristretto_start:
        action["ristretto_start"] = True
    if game.expansion is not None:       # Cake Time and its optional rules
        action.update(expansion=game.expansion, longer_game=game.longer_game,
                      two_drinks_one_cake=game.two_drinks_one_cake)
    return action


def breakdown(game, player) -> list[tuple[str, int, int, int]]:
    """(part, count, weight, points) for likes, upgrades and dislikes."""
    e = game.rules
    parts = [("likes", player.likes, e.like_points),
             ("upgrades", len(player.upgrades), e.upgrade_points),
             ("dislikes", player.dislikes, e.dislike_points)]
    return [(name, n, w, n * w) for name, n, w in parts]


class EndScreen(Screen):
    def __init__(self, app: Any):
        super().__init__(app)

    def rematch(self) -> None:
        game = self.app.table.game
        action = dict(self.app.last_setup) if self.app.last_setup else setup_of(game)
        self.app.post_action(action)

    def build(self) -> list[Widget]:
        game = self.app.table.game
        if game is None:
            return []
        m = self.m
        ranked = ranking(game)
        won = winners(ranked)
        ties = tie_break(ranked)
        screen = inset(m.rect, m.margin)
        tie_h = m.px(28) * len(ties) + (m.px(26) if game.corrected else 0)
        title, board, notes, footer = rows(screen, [m.bar, 1.0, tie_h, m.bar], m.gap)
        head, who = cols(title, [0.34, 0.66], m.gap)
        out: list[Widget] = [
            Label("end.title", head, text=self.t("end.title"), size=m.huge, bold=True,
                  align="left"),
        ]
        if len(won) == 1:
            seat = game.seat_of(won[0])
            color = self.app.seat_colors[seat % len(self.app.seat_colors)]
            out.append(Label("end.winner", who, text=self.t("end.winner", player=won[0]),
                             size=m.huge, bold=True, color=theme.readable_on(color),
                             background=color, radius=12, pad=m.px(10)))
        else:
            out.append(Label("end.winner", who, text=self.t("end.shared", players=join_names(
                list(won))), size=m.big, bold=True, color=theme.TEXT_DARK,
                background=theme.SPECIALTY, radius=12, pad=m.px(10)))
        for i, (entry, r) in enumerate(zip(ranked, rows(board, [1.0] * len(ranked), m.gap))):
            out += self._row(game, i, entry, r)
        y = notes.y
        token = tokens_lower(game.rules.token)
        for j, (better, worse, why) in enumerate(ties):
            r = pygame.Rect(notes.x, y, notes.w, m.px(28))
            y += m.px(28)
            out.append(Label(f"end.tie{j}", r, text=self.t(f"end.tie_{why}", better=better,
                                                           worse=worse, tokens=token),
                             size=m.body, color=theme.WARNING, align="left"))
        if game.corrected:
            r = pygame.Rect(notes.x, y, notes.w, m.px(26))
            out.append(Label("end.corrected", r, text=self.t("end.corrected"), size=m.small,
                             color=theme.TEXT_DIM, align="left"))
        buttons = [("end.undo", "↶ " + self.t("button.undo"), theme.BUTTON,
                    lambda: self.app.post_action({"do": "undo"})),
                   ("end.fix", self.t("button.fix"), theme.BUTTON, self._fix),
                   ("end.rematch", self.t("button.rematch"), theme.PRIMARY, self.rematch)]
        if self.app.has_screen("wizard"):
            buttons.append(("end.new", self.t("button.new_game"), theme.OK,
                            lambda: self.app.open("wizard")))
        specs = [0.8, 0.8, 1.2, 1.2][:len(buttons)]
        for (name, words, color, fn), r in zip(buttons, cols(footer, specs, m.gap)):
            out.append(Button(name, r, text=words, size=m.big if r.w > m.px(170) else m.body,
                              color=color, on_tap=fn))
        return out

    def _row(self, game, i: int, entry, r: pygame.Rect) -> list[Widget]:
        m = self.m
        seat = game.seat_of(entry.name)
        p = game.players[seat]
        color = self.app.seat_colors[seat % len(self.app.seat_colors)]
        first = entry.place == 1
        out: list[Widget] = [Fill(f"end.row{i}", r, radius=12,
                                  color=theme.mix(theme.PANEL, color, 0.25 if first else 0.1),
                                  border=max(2, m.px(4 if first else 2)), border_color=color)]
        inner = inset(r, m.px(8), m.px(4))
        place, mid, pts = cols(inner, [r.h, 1.0, m.px(150)], m.gap)
        out.append(Label(f"end.place{i}", place, text=self.t("end.place", place=entry.place),
                         size=m.huge, bold=True, color=theme.SPECIALTY if first else theme.TEXT))
        name, detail = rows(mid, [0.55, 0.45])
        out.append(Label(f"end.name{i}", name, text=entry.name, size=m.big, bold=True,
                         align="left"))
        parts = []
        for part, n, w, points in breakdown(game, p):
            if part == "upgrades" and game.variant == "junior":
                continue
            parts.append(self.t(f"end.{part}_part", count=n, weight=_signed(w),
                                points=_signed(points, plus=False)))
        out.append(Label(f"end.detail{i}", detail, text="   ".join(parts), size=m.small,
                         color=theme.TEXT_DIM, align="left"))
        out.append(Label(f"end.score{i}", pts, text=self.t("end.points", score=entry.score),
                         size=m.big, bold=True, align="right"))
        return out

    def _fix(self) -> None:
        from .fix import FixScreen
        self.app.push(FixScreen(self.app))


def _signed(n: int, plus: bool = False) -> str:
    if n < 0:
        return "−" + str(-n)
    return ("+" if plus else "") + str(n)
