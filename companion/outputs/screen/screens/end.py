"""The end screen: who won, each score's breakdown, and why ties went the way they did.

Scores follow the edition's weights (``game.rules``: like, upgrade and
dislike points); the order and the tie explanations come from
``companion.core.rules.scoring`` (``ranking`` and ``tie_break``), never recomputed
here. REMATCH opens the setup wizard with the same players, edition, variant, options and
upgrade tiles, asking who starts (and, for four tiles Cake Time's rule drew, showing four
drawn anew or the same four); NEW GAME opens the setup wizard.

Beside the ranking, the finished game's BG Stats link as a QR code, as the table
loop's snapshot carries it (``snapshot.Snapshot.play_link``: made on a worker once the
game is over, so it appears a moment after the ranking); a phone scans it and BG Stats
opens with the play filled in. A tap on the code
shows it on the whole screen, for phones further away.
"""
from __future__ import annotations

from functools import partial

import functools
from typing import Any

import pygame

from companion.core.rules.editions import JUNIOR_CARDS
from companion.core.rules.scoring import breakdown, ranking, tie_break, winners
from .. import theme
from ..layout import cols, inset, rows
from ..text import join_names, tokens_lower
from ..widgets import Button, Custom, Fill, Label, Stat, Widget, text_width
from .base import Screen
from .table_panels import fitting_name
from .why_panel import WhyTargets, end_targets


def setup_of(game) -> dict:
    """The setup action that starts the same game again (for a rematch)."""
    action: dict = {"do": "setup", "edition": game.edition,
                    "players": [p.name for p in game.players],
                    "start": game.players[game.start].name, "variant": game.variant}
    if game.variant != "junior" and not game.open_tiles:   # (open: none were named)
        action["upgrades"] = {p.name: list(p.tiles) for p in game.players}
    elif game.junior_cards != JUNIOR_CARDS[0]:
        action["junior_cards"] = game.junior_cards
    if game.ristretto_start:
        action["ristretto_start"] = True
    if game.expansion is not None:       # Cake Time and its optional rules
        action.update(expansion=game.expansion, longer_game=game.longer_game,
                      two_drinks_one_cake=game.two_drinks_one_cake)
    return action


class EndScreen(WhyTargets):
    def __init__(self, app: Any):
        super().__init__(app)
        shared = app.loop.snapshot       # frozen, any thread may read it: the link, if
        #: the BG Stats link of the table on show (None until the worker made it)
        self.link: str | None = (shared.play_link       # it was made for the table shown
                                 if shared.version == app.version else None)

    def on_update(self, update) -> None:
        self.why_update(update)          # the next action closes a "why?" panel
        if update.snapshot is not None:
            self.link = update.snapshot.play_link
        super().on_update(update)

    def rematch(self) -> None:
        """The same table again: the wizard, filled in with this game's box, players,
        colours, options and upgrade tiles, opens at who starts (the books choose the
        starter anew), then goes on past the tiles and options it keeps (BACK shows them)
        to the board, the deal and the meeples, as for any game; as the phone's REMATCH
        (``outputs.web.pages.rematch_line``). Four tiles Cake Time's rule drew are not
        kept: the tiles' step shows four drawn anew, or the same four at a tap."""
        game = self.app.table.game
        if not self.app.last_setup:
            self.app.last_setup = setup_of(game)
        wizard = self.app.open("wizard")
        # the tiles are kept as chosen, but four the box's rule drew (Cake Time): drawn
        # again, as a new game by the books does, the step offering the same four instead
        drawn = wizard.model.last_drawn is not None and wizard.model.upgrade_mode == "draw"
        wizard.kept = frozenset({"options"} if drawn else {"upgrades", "options"})
        if "start" in wizard.steps:
            wizard.go("start")

    def build(self) -> list[Widget]:
        game = self.app.table.game
        if game is None:
            return []
        m = self.m
        ranked = ranking(game)
        won = winners(ranked)
        ties = tie_break(ranked)
        screen = inset(m.rect, m.margin)
        tie_h = (m.px(theme.END_TIE_LINE_H) * len(ties)
                 + (m.px(theme.END_CORRECTED_LINE_H) if game.corrected else 0))
        link = self.link
        title, middle, footer = rows(screen, [m.bar, 1.0, m.bar], m.gap)
        board, notes = rows(middle, [1.0, tie_h], m.gap if tie_h else 0)
        qr_box = None
        if link:      # the BG Stats code on a page of its own: the ranking keeps the width
            title, qr_box = cols(title, [1.0, m.px(theme.END_QR_BUTTON_W)], m.gap)
        head, who, gear = cols(title, [0.34, 0.66, title.h], m.gap)
        out: list[Widget] = [
            # two lines where one cannot hold it whole ("Fin de la partida" beside the
            # BG Stats button was cut: "Fin de la par…")
            Label("end.title", head, text=self.t("end.title"), size=m.huge, bold=True,
                  align="left", lines=2, min_size=m.small),
            # Settings from here too: its pairing code, before anyone starts a new game
            Button("end.settings", gear, text="⚙", size=m.big,
                   on_tap=lambda: self.app.open("settings")),
        ]
        if len(won) == 1:
            seat = game.seat_of(won[0])
            color = self.app.seat_colors[seat % len(self.app.seat_colors)]
            out.append(Label("end.winner", who, text=self.t("end.winner", player=won[0]),
                             size=m.huge, bold=True, color=theme.readable_on(color),
                             background=color, radius=12, pad=m.px(theme.END_BANNER_PAD)))
        else:
            out.append(Label("end.winner", who, text=self.t("end.shared", players=join_names(
                list(won))), size=m.big, bold=True, color=theme.TEXT_DARK,
                background=theme.SPECIALTY, radius=12, pad=m.px(theme.END_BANNER_PAD)))
        lines = rows(board, [1.0] * len(ranked), m.gap)
        for i, (entry, r) in enumerate(zip(ranked, lines, strict=True)):
            out += self._row(game, i, entry, r)
        y = notes.y
        token = tokens_lower(game.rules.token)
        for j, (better, worse, why) in enumerate(ties):
            r = pygame.Rect(notes.x, y, notes.w, m.px(theme.END_TIE_LINE_H))
            y += m.px(theme.END_TIE_LINE_H)
            out.append(Label(f"end.tie{j}", r, text=self.t(f"end.tie_{why}", better=better,
                                                           worse=worse, tokens=token),
                             size=m.body, color=theme.WARNING, align="left"))
        if game.corrected:
            r = pygame.Rect(notes.x, y, notes.w, m.px(theme.END_CORRECTED_LINE_H))
            out.append(Label("end.corrected", r, text=self.t("end.corrected"), size=m.small,
                             color=theme.TEXT_DIM, align="left"))
        if link and qr_box is not None:
            out += self._qr(link, qr_box)
        buttons = [("end.undo", "↶ " + self.t("button.undo"), theme.BUTTON,
                    lambda: self.app.post_action({"do": "undo"})),
                   ("end.fix", self.t("button.fix"), theme.BUTTON, self._fix),
                   *self._story_button(),
                   ("end.rematch", self.t("button.rematch"), theme.PRIMARY, self.rematch),
                   ("end.new", self.t("button.new_game"), theme.OK,
                    lambda: self.app.open("wizard"))]
        specs = [0.95, 0.75, 0.9, 1.1, 1.1] if len(buttons) == 5 else [0.8, 0.8, 1.2, 1.2]
        for (name, words, color, fn), r in zip(buttons, cols(footer, specs, m.gap), strict=True):
            size = m.big if r.w > m.px(theme.END_BIG_BUTTON_W) else m.body
            out.append(Button(name, r, text=words, size=size, color=color, on_tap=fn))
        out += self.why_widgets(out, end_targets(len(ties)))     # a touch on a tie: why
        return out

    def _row(self, game, i: int, entry, r: pygame.Rect) -> list[Widget]:
        m = self.m
        seat = game.seat_of(entry.name)
        p = game.players[seat]
        color = self.app.seat_colors[seat % len(self.app.seat_colors)]
        first = entry.place == 1
        out: list[Widget] = [Fill(f"end.row{i}", r, radius=12,
                                  color=theme.mix(theme.PANEL, color, 0.25 if first else 0.1),
                                  border=max(2, m.px(theme.END_ROW_BORDER[0 if first else 1])),
                                  border_color=color)]
        inner = inset(r, *map(m.px, theme.END_ROW_PAD))
        # the breakdown in the table's own icons and numbers, as big as what every seat
        # must read (6 mm at 800 x 480, the same in every language): "♥ 6  ⇧ 2×2  ✕ 3×−1"
        size = m.must
        parts = []
        for part, n, w, _points in breakdown(game, p):
            value = str(n) if w == 1 else f"{n}×{_signed(w)}"
            width = size + 4 + text_width(value, size, True) + m.gap
            parts.append((_ICONS[part], value, width))
        total = f"= {_signed(entry.score)}"
        place_w = text_width(self.t("end.place", place=entry.place), m.huge, True) + m.gap
        widths = [sum(w for *_, w in parts), text_width(total, size, True) + m.gap]
        if inner.h >= m.big + size + 2 * m.gap:       # room for two lines: the name whole
            top, bottom = rows(inner, [1.0, 1.0], m.gap)
            place, name = cols(top, [place_w, 1.0], m.gap)
            _, detail, pts = cols(bottom, [place_w, *widths], m.gap)
        else:
            place, name, detail, pts = cols(inner, [place_w, 1.0, *widths], m.gap)
        out.append(Label(f"end.place{i}", place, text=self.t("end.place", place=entry.place),
                         size=m.huge, bold=True, color=theme.SPECIALTY if first else theme.TEXT))
        name_min = m.px(theme.END_NAME_MIN_TYPE)
        out.append(Label(f"end.name{i}", name, text=fitting_name(entry.name, name.w, name_min),
                         size=m.big, bold=True, align="left", min_size=name_min))
        x = detail.x
        for icon, value, width in parts:
            color = theme.DANGER if icon == "dislike" and value != "0" and not \
                value.startswith("0×") else theme.TEXT
            cell = pygame.Rect(x, 0, width - m.gap, min(detail.h, size))
            cell.centery = detail.centery      # (the icon is as wide as the cell is high)
            out.append(Stat(f"end.{icon}{i}", cell, icon=icon, value=value, size=size,
                            color=color, tight=True))
            x += width
        out.append(Label(f"end.score{i}", pts, text=total, size=size, bold=True,
                         align="right", min_size=size, tight=True))
        return out

    def _qr(self, link: str, box: pygame.Rect) -> list[Widget]:
        """"BG Stats" beside the winner: its QR code on a page of its own (as big as the
        screen allows), so the ranking and its breakdown keep the whole width."""
        return [Button("end.qr", box, text="BG Stats", size=self.m.body,
                       color=theme.BUTTON, on_tap=lambda: self.app.push(QrScreen(self.app, link)))]

    # --- the game's story (screens/story.py) -------------------------------------------------

    def _story_button(self) -> list[tuple]:
        """"Story": the score round by round and the turning points, on a page of its own."""
        return [("end.story", self.t("story.button"), theme.UPGRADE_PURPLE, self.open_story)]

    def open_story(self) -> None:
        from .story import StoryScreen
        self.app.push(StoryScreen(self.app))

    def _fix(self) -> None:
        from .fix import FixScreen
        self.app.push(FixScreen(self.app))


class QrScreen(Screen):
    """The BG Stats code as big as the screen allows (a tap on the end screen's code);
    any tap goes back."""

    def __init__(self, app: Any, link: str):
        super().__init__(app)
        self.link = link

    def build(self) -> list[Widget]:
        m = self.m
        side = min(m.rect.w, m.rect.h)
        square = pygame.Rect(0, 0, side, side)
        square.center = m.rect.center
        close = lambda: self.app.pop(self)      # noqa: E731
        return [Button("qr.back", m.rect, text="", color=theme.WHITE, on_tap=close),
                Custom("qr.code", square, data=self.link, on_tap=close,
                       paint_fn=partial(paint_qr, text=self.link))]


@functools.lru_cache(maxsize=2)    # this game's link, on the end screen and full screen
def qr_surface(text: str, side: int) -> pygame.Surface:
    """A white square of ``side`` pixels filled by the QR code of ``text`` (with a quiet
    zone of two modules): every module as big as the square allows, even when that is
    not a whole number of pixels (modules then differ by one pixel; scanners read
    that, and a bigger code reads from further away)."""
    from companion.review import bgstats
    modules = [list(row) for row in bgstats.qr(text).matrix_iter(border=2)]
    n = len(modules)
    # a byte a pixel: the same pixels where it is drawn, a quarter of the memory kept between
    # games (issue 19: 0.72 MB at 800 x 480). Pure white and black are in the palette pygame
    # gives every 8-bit surface; its own palette could not be set without a display (pygame
    # 2.1.2's set_palette, Bookworm's, needs pygame.display initialised)
    small = pygame.Surface((n, n), depth=8)
    small.fill(theme.WHITE)
    for y, row in enumerate(modules):
        for x, dark in enumerate(row):
            if dark:
                small.set_at((x, y), theme.BLACK)
    return pygame.transform.scale(small, (side, side))     # nearest neighbour: sharp edges


def paint_qr(surface: pygame.Surface, rect: pygame.Rect, text: str) -> None:
    surface.blit(qr_surface(text, min(rect.w, rect.h)), rect)


_ICONS = {"likes": "like", "upgrades": "upgrade", "dislikes": "dislike"}


def _signed(n: int, plus: bool = False) -> str:
    if n < 0:
        return "−" + str(-n)
    return ("+" if plus else "") + str(n)
