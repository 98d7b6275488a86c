"""The table view's panel builders that need nothing but their inputs: a row of counts,
a seat token, a "+2" draw badge, a message box, the device icons, and the shorter
forms of a name that fit a box. ``TableView`` places them (``table_layout.py`` says
where).
"""
from __future__ import annotations

from collections.abc import Callable

import pygame

from .. import text, theme
from ..layout import Metrics, centered, cols, inset, rows
from ..widgets import (Button, Custom, Fill, Label, Stat, Widget, draw_lines, draw_seat_token,
                       seat_token_steps, text_width)


def stats_row(m: Metrics, prefix: str, game, p, rect: pygame.Rect, size: int) -> list[Widget]:
    """A player's likes, dislikes, tokens (and upgrades, cake cards) side by side."""
    token = game.rules.token
    items = [("like", p.likes), ("dislike", p.dislikes), (token, p.cookies)]
    if game.variant != "junior":
        items.append(("upgrade", len(p.upgrades)))
    if game.expansion is not None:
        items.append(("cake_card", p.cake_cards))
    out: list[Widget] = []
    cells = cols(rect, [1.0] * len(items), m.px(theme.TABLE_STAT_GAP))
    for (icon, value), r in zip(items, cells, strict=True):
        color = theme.DANGER if icon == "dislike" and value >= 4 else theme.TEXT
        out.append(Stat(f"{prefix}.{icon}", r, icon=icon, value=str(value), size=size,
                        color=color))
    return out


def seat_token(name: str, rect: pygame.Rect, seat: int, color) -> Widget:
    return Custom(name, rect, data=("seat", seat, tuple(color)),
                  paint_fn=lambda surface, r: draw_seat_token(surface, r, seat, color),
                  steps_fn=lambda r: seat_token_steps(r, seat))


def draw_badge(m: Metrics, name: str, rect: pygame.Rect, count: int) -> Widget:
    """"+2" in big type where a seat's drawn cards will go."""
    return Label(name, inset(rect, m.px(theme.TABLE_DRAW_BADGE_INSET)), text=f"+{count}",
                 size=m.must, bold=True, color=theme.TEXT_DARK, background=theme.WARNING,
                 radius=10, min_size=m.must, tight=True)


def message_box(m: Metrics, title: str, body: str,
                buttons: list[tuple[str, str, Callable[[], None], tuple]]) -> list[Widget]:
    """A dialog: a title, a body of up to three lines, a row of (name, words, on_tap,
    colour) buttons."""
    box = centered(m.rect, *map(m.px, theme.DIALOG_MESSAGE_BOX))
    out: list[Widget] = [Fill("dlg.bg", box, color=theme.PANEL, radius=16, border=3,
                              border_color=theme.PANEL_LINE, blocks=True)]
    inner = inset(box, m.px(theme.DIALOG_MESSAGE_PAD))
    t_rect, b_rect, btn_rect = rows(inner, [m.px(theme.DIALOG_MESSAGE_TITLE_H), 1.0, m.target],
                                    m.gap)
    out.append(Label("dlg.title", t_rect, text=title, size=m.big, bold=True))
    out.append(Label("dlg.body", b_rect, text=body, size=m.body, lines=3,
                     color=theme.TEXT_DIM))
    cells = cols(btn_rect, [1.0] * len(buttons), m.gap)
    for (name, words, fn, color), r in zip(buttons, cells, strict=True):
        out.append(Button(name, r, text=words, size=m.body, color=color, lines=2, on_tap=fn))
    return out


def fitting_name(name: str, width: int, size: int) -> str:
    """The longest form of ``name`` (whole, first name, initials) that fits ``width`` at
    ``size``: a name is shortened, never cut with an ellipsis."""
    forms = short_names(name)
    return next((f for f in forms if text_width(f, size, True) <= width), forms[-1])


def name_form(name: str, form: int) -> str:
    forms = short_names(name)
    return forms[min(form, len(forms) - 1)]


def short_names(name: str) -> list[str]:
    """Ways to write a name, longest first: the whole name, the first name (of
    "Maximiliano Fernández" or "Anne-Sophie"), then the initials. The name is first
    the one shown in the current language (``text.shown``: a seat colour's name the
    setup gave follows the language)."""
    name = text.shown(name)
    words = name.split() if len(name.split()) > 1 else [w for w in name.split("-") if w]
    out = [name]
    if len(words) > 1:
        out.append(words[0])
    initials = "".join(w[0].upper() for w in words) if len(words) > 1 else name[:2]
    if initials not in out:
        out.append(initials)
    return out


def device_bad(status: str) -> bool:
    return status not in ("connected", "back", "ok", "ready")


def device_painter(device: str, status: str):
    def paint(surface: pygame.Surface, rect: pygame.Rect) -> None:
        bad = device_bad(status)
        c = rect.center
        r = max(8, min(rect.w, rect.h) // 2 - 4)
        pygame.draw.circle(surface, theme.DANGER if bad else theme.OK, c, r)
        pygame.draw.circle(surface, theme.TEXT, c, r, 2)
        if device == "scanner":      # a card with a wave
            card = pygame.Rect(0, 0, r, round(r * 1.3))
            card.center = c
            pygame.draw.rect(surface, theme.TEXT, card, 2, border_radius=2)
            pygame.draw.arc(surface, theme.TEXT, card.inflate(r // 2, r // 2), -0.6, 0.6, 2)
        else:                        # a round push button
            pygame.draw.circle(surface, theme.TEXT, c, r // 2, 3)
        if bad:
            d = round(r * 0.7)
            draw_lines(surface, theme.TEXT, False, [(c[0] - d, c[1] - d), (c[0] + d, c[1] + d)], 3)
    return paint
