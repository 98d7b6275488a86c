"""The game's story at the end: each player's score round by round and the turning
points (``companion.review.story``), opened by the end screen's "Story" button.

The chart (``ui.story_chart``) takes most of the screen, the two or three turning points
that say most sit beside it, numbered like the flags on the chart, and under it each
seat's shape, name and points (the chart's key: colour, shape and number together).
"◀ Ranking" goes back; the screen closes by itself when the game is no longer over
(an undo, a new game)."""
from __future__ import annotations

from functools import partial
from typing import Any

import pygame

from companion.review.story import Story, TurningPoint, story_of
from companion.review.story_words import point_text, round_text
from .. import theme
from ..layout import cols, inset, rows
from companion.review.story_chart import ChartLook, paint_chart
from ..text import language, shown_names
from ..widgets import (Button, Custom, Fill, Label, Widget, draw_seat_token, draw_text,
                       text_width)
from .base import Screen
from .table_panels import fitting_name


class StoryScreen(Screen):
    def __init__(self, app: Any):
        super().__init__(app)
        self._story: tuple[object, Story | None] = (None, None)

    def story(self) -> Story | None:
        """The story of the app's table (worked out once per table), its players named as
        the screen shows them."""
        table = self.app.table
        if self._story[0] is not table:
            self._story = (table, story_of(table))
        story = self._story[1]     # its players named in the screen's language now
        return story.named(shown_names()) if story is not None else None

    def on_update(self, update) -> None:
        super().on_update(update)
        game = self.app.table.game
        if game is None or not game.game_over:
            self.app.pop(self)

    def build(self) -> list[Widget]:
        story = self.story()
        if story is None:
            return []
        m = self.m
        screen = inset(m.rect, m.margin)
        title, middle, legend = rows(screen, [m.bar, 1.0, m.px(theme.STORY_LEGEND_H)], m.gap)
        head, back = cols(title, [1.0, m.px(theme.STORY_BACK_W)], m.gap)
        out: list[Widget] = [
            Label("story.title", head, text=self.t("story.title"), size=m.big, bold=True,
                  align="left"),
            Button("story.back", back, text="◀ " + self.t("story.back"), size=m.body,
                   color=theme.PRIMARY, on_tap=lambda: self.app.pop(self)),
        ]
        points = story.highlights(3)
        if points:
            chart, side = cols(middle, [theme.STORY_CHART_SHARE, 1.0], m.gap)
        else:
            chart, side = middle, None
        out += self._chart(story, chart, points)
        if side is not None:
            out += self._points(points, side)
        out += self._legend(story, legend)
        return out

    # --- the chart ------------------------------------------------------------------------

    def _chart(self, story: Story, box: pygame.Rect, points) -> list[Widget]:
        m = self.m
        if story.round_count == 0:
            return [Label("story.too_short", box, text=self.t("story.too_short"),
                          size=m.body, lines=3, color=theme.TEXT_DIM, background=theme.PANEL,
                          radius=12, pad=m.px(12))]
        look = screen_look(text=m.px(theme.STORY_CHART_TEXT), line=m.px(theme.STORY_CHART_LINE),
                           marker=m.px(theme.STORY_CHART_MARKER),
                           flag=m.px(theme.STORY_CHART_FLAG))
        colours = tuple(self.app.seat_colors)
        flags = tuple(p.round for p in points)
        return [Custom("story.chart", box, data=(story.rounds, colours, flags, look),
                       paint_fn=partial(_paint_chart, story=story, colours=colours,
                                        look=look, flags=flags))]

    # --- the turning points ---------------------------------------------------------------

    def _points(self, points: tuple[TurningPoint, ...], box: pygame.Rect) -> list[Widget]:
        m = self.m
        lang = language()
        out: list[Widget] = []
        slots = rows(box, [1.0] * 3, m.gap)
        pad = m.px(theme.STORY_POINT_PAD)
        for i, (p, r) in enumerate(zip(points, slots, strict=False), 1):
            out.append(Fill(f"story.point{i}", r, color=theme.PANEL, radius=12))
            inner = inset(r, pad)
            badge, words = cols(inner, [m.px(theme.STORY_POINT_BADGE), 1.0], pad)
            badge.h = min(badge.h, badge.w)
            out.append(Custom(f"story.flag{i}", badge, data=i,
                              paint_fn=partial(_paint_flag, number=i)))
            when, sentence = rows(words, [m.px(theme.STORY_POINT_ROUND_H), 1.0])
            out.append(Label(f"story.round{i}", when, text=round_text(lang, p), size=m.small,
                             bold=True, color=theme.SPECIALTY, align="left"))
            out.append(Label(f"story.text{i}", sentence, text=point_text(lang, p), size=m.body,
                             lines=4, align="left", valign="top", min_size=m.px(14)))
        return out

    # --- the key: shape, name, points -----------------------------------------------------

    def _legend(self, story: Story, box: pygame.Rect) -> list[Widget]:
        m = self.m
        out: list[Widget] = []
        final = story.rounds[-1]
        for seat, (name, r) in enumerate(zip(story.players, cols(
                box, [1.0] * len(story.players), m.gap), strict=True)):
            colour = self.app.seat_colors[seat % len(self.app.seat_colors)]
            out.append(Fill(f"story.key{seat}", r, color=theme.PANEL, radius=10,
                            border=max(2, m.px(3)), border_color=colour))
            inner = inset(r, m.px(6))
            token, label, pts = cols(inner, [inner.h, 1.0, m.px(60)], m.px(6))
            out.append(Custom(f"story.key{seat}.token", token, data=(seat, colour),
                              paint_fn=partial(_paint_token, seat=seat, colour=colour)))
            out.append(Label(f"story.key{seat}.name", label,
                             text=fitting_name(name, label.w, m.px(16)), size=m.body,
                             bold=True, align="left", min_size=m.px(14)))
            out.append(Label(f"story.key{seat}.points", pts, text=str(final[seat]),
                             size=m.big, bold=True, align="right"))
        return out


class ScreenPen:
    """The chart's text on the touchscreen (``widgets``: its fonts, shrink-to-fit, text
    records)."""

    def write(self, surface, text, box, size, color, bold=False, align="center"):
        return draw_text(surface, text, box, size, color, bold, align)

    def width(self, text, size, bold=False):
        return text_width(text, size, bold)


SCREEN_PEN = ScreenPen()


def screen_look(text: int, line: int, marker: int, flag: int) -> ChartLook:
    """The chart's sizes (pixels) in the screen's theme colours."""
    return ChartLook(text=text, line=line, marker=marker, flag=flag, background=theme.PANEL,
                     grid=theme.PANEL_LINE, ink=theme.TEXT, dim=theme.TEXT_DIM,
                     outline=theme.TEXT_DARK, flag_color=theme.SPECIALTY,
                     flag_ink=theme.TEXT_DARK)


def _paint_chart(surface: pygame.Surface, rect: pygame.Rect, story: Story, colours, look,
                 flags) -> None:
    paint_chart(surface, rect, story, colours, look, SCREEN_PEN, flags)


def _paint_flag(surface: pygame.Surface, rect: pygame.Rect, number: int) -> None:
    side = min(rect.w, rect.h)
    pygame.draw.circle(surface, theme.SPECIALTY, rect.center, side // 2)
    draw_text(surface, str(number), rect, round(side * 0.7), theme.TEXT_DARK, True)


def _paint_token(surface: pygame.Surface, rect: pygame.Rect, seat: int, colour) -> None:
    draw_seat_token(surface, rect, seat, colour)

