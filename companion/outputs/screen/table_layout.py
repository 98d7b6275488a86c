"""Where every part of the table view goes, for 2 to 4 players at any screen size.

Pure geometry: rectangles from the screen size, the player count and (for the
parts that make room for words) the widths of those words, measured by the
caller. Nothing here draws or reads the game, so each rectangle can be tested
at every size (``tests/test_table_layout.py``). The sizes are the theme's
design pixels (``theme.TABLE_*``), scaled by ``Metrics.px``.

- ``table_layout(size, players)``: header, the active player's panel, one
  compact panel per other player, the footer.
- ``header_layout``: turn and deck (or the final round's message), the
  OPEN/CLOSED sign, the device icons, the settings button.
- ``active_panel_layout`` / ``other_panel_layout``: banner or name line, the
  four order positions, the hint line, the counts.
- ``footer_layout``: the small buttons and END TURN.

Each layout is worked out once per set of arguments and then remembered (the screen asks
at every redraw): callers must not change the rectangles they are given.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, TypeVar
from collections.abc import Callable

import pygame

from . import theme
from .layout import Metrics, cols, inset, rows

F = TypeVar("F", bound=Callable[..., Any])


def remembered(fn: F) -> F:
    """``fn`` worked out once per arguments (rectangles compared by value), at most a few
    hundred kept: the layouts are pure geometry."""
    got: dict[tuple, Any] = {}

    @functools.wraps(fn)
    def layout(*args: Any, **kwargs: Any) -> Any:
        key = (tuple(tuple(a) if isinstance(a, pygame.Rect) else a for a in args),
               tuple(sorted(kwargs.items())))
        hit = got.get(key)
        if hit is None:
            if len(got) > 256:
                got.clear()
            hit = got[key] = fn(*args, **kwargs)
        return hit
    return layout  # type: ignore[return-value]


@dataclass(frozen=True)
class TableLayout:
    """Where the table view's parts go.

    ``header``: turn, round, the OPEN/CLOSED sign, deck and devices.
    ``active``: the active player's big panel (cards to tap).
    ``others``: one compact panel per other player, in seat order after the active one.
    ``footer``: the action buttons.
    """
    header: pygame.Rect
    active: pygame.Rect
    others: list[pygame.Rect]
    footer: pygame.Rect

    @property
    def body(self) -> pygame.Rect:
        """The panels together: where banners go."""
        right = self.others[0].right if self.others else self.active.right
        return pygame.Rect(self.active.x, self.active.y, right - self.active.x, self.active.h)


@remembered
def table_layout(size: tuple[int, int], players: int) -> TableLayout:
    m = Metrics.of(size)
    screen = inset(m.rect, m.margin)
    header, body, footer = rows(screen, [m.bar, 1.0, m.bar], m.gap)
    others_n = max(0, players - 1)
    wide = m.width / max(1, m.height) >= 1.5
    share = 0.36 if wide else 0.40
    active, side = cols(body, [1.0 - share, share], m.gap)
    others = rows(side, [1.0] * others_n, m.gap) if others_n else []
    if others_n == 1:
        # two players: the other player's panel is only as tall as it needs to be
        others = [rows(side, [0.62, 0.38], m.gap)[0]]
    return TableLayout(header, active, others, footer)


@dataclass(frozen=True)
class HeaderLayout:
    """The top bar. ``info`` (turn and deck) is None in the final round, whose
    ``message`` takes its room; ``devices`` is None without device news; its icons are
    ``stacked`` one over the other (else side by side)."""
    info: pygame.Rect | None
    message: pygame.Rect
    sign: pygame.Rect
    devices: pygame.Rect | None
    settings: pygame.Rect
    stacked: bool = False


@remembered
def header_layout(m: Metrics, rect: pygame.Rect, closing: bool, sign_words_w: int,
                  info_words_w: int, devices: int) -> HeaderLayout:
    """``sign_words_w``: the width of OPEN/CLOSED at the must-read size;
    ``info_words_w``: of the turn or deck line, whichever is wider (unused while
    ``closing``, the final round); ``devices``: how many device icons. The icons stand
    side by side where the room left for a message is ``TABLE_MESSAGE_MIN_W`` wide or more,
    else one over the other (a wide sign, ABIERTO, once left a message 13 px type)."""
    inner = inset(rect, m.px(theme.TABLE_HEADER_PAD_X), m.px(theme.TABLE_HEADER_PAD_Y))
    # the sign's board leaves a fifth of the bar for its string and half its height
    # of margin around the word, which is drawn at the must-read size
    sign_w = sign_words_w + inner.h * 4 // 5 // 2 + m.px(theme.TABLE_SIGN_PAD)
    specs: list[int | float] = [] if closing else [0]
    specs += [1.0, sign_w]
    if devices:
        specs.append(0)
    specs.append(max(m.target, inner.h))       # the settings button
    if not closing:
        specs[0] = max(rect.w * 20 // 100,
                       min(rect.w * 36 // 100, info_words_w + m.px(theme.TABLE_INFO_PAD)))
    stacked = closing       # (while the final round needs the room)
    if devices and not closing:
        specs[3] = round(rect.h * 0.62 * devices)
        stacked = devices > 1 and cols(inner, specs, m.gap)[1].w < m.px(theme.TABLE_MESSAGE_MIN_W)
    if devices and stacked:
        specs[-2] = round(rect.h * (0.5 if closing else 0.62))
    parts = cols(inner, specs, m.gap)
    info = None if closing else parts.pop(0)
    message, sign = parts[0], parts[1]
    dev = parts[2] if devices else None
    return HeaderLayout(info, message, sign, dev, parts[-1], stacked)


@dataclass(frozen=True)
class ActivePanelLayout:
    """The active player's panel: ``banner`` (seat token, whose turn, score), the
    four order ``slots``, the ``hint`` line, the ``stats`` (likes, dislikes, ...) and, while
    Cake Time asks "Cake on the deck's back?", the ``question`` band under them."""
    banner: pygame.Rect
    banner_inner: pygame.Rect
    slots: list[pygame.Rect]
    hint: pygame.Rect
    stats: pygame.Rect
    question: pygame.Rect | None = None


@remembered
def active_panel_layout(m: Metrics, rect: pygame.Rect, prompt: bool,
                        question: int = 0) -> ActivePanelLayout:
    """``prompt``: the hint line holds the draw prompt, which a finger taps away;
    ``question``: the height of a band at the panel's foot for Cake Time's question (the
    cards give it room: a band across the panels once hid the draw prompt, the counts
    and the lowest side panel)."""
    inner = inset(rect, max(theme.TABLE_ACTIVE_PAD_MIN, m.px(theme.TABLE_ACTIVE_PAD)))
    banner_h = max(m.px(theme.TABLE_ACTIVE_BANNER_H), m.target)
    stat_h = max(m.px(theme.TABLE_ACTIVE_STATS_H), theme.TABLE_ACTIVE_STATS_MIN)
    hint_h = m.target if prompt else m.px(theme.TABLE_ACTIVE_HINT_H)
    gap = m.px(theme.TABLE_ACTIVE_ROW_GAP)
    banner, cards, hint, stats, *band = rows(
        inner, [banner_h, 1.0, hint_h, stat_h] + ([question] if question else []), gap)
    banner_inner = inset(banner, m.px(theme.TABLE_BANNER_PAD_X), m.px(theme.TABLE_BANNER_PAD_Y))
    return ActivePanelLayout(banner, banner_inner, cols(cards, [1.0] * 4, m.gap), hint, stats,
                             band[0] if band else None)


def active_banner_split(m: Metrics, banner_inner: pygame.Rect, score_w: int
                        ) -> tuple[pygame.Rect, pygame.Rect, pygame.Rect]:
    """The active banner's seat token, name and score (``score_w`` wide at most)."""
    token, name, score = cols(banner_inner,
                              [banner_inner.h * 4 // 5, 1.0,
                               min(banner_inner.w * 28 // 100, score_w)],
                              m.px(theme.TABLE_BANNER_GAP))
    return token, name, score


@dataclass(frozen=True)
class OtherPanelLayout:
    """A compact panel: the seat ``stripe``, the ``head`` line (token, name, score),
    the four order ``slots``, the ``stats``; ``cards`` holds the slots."""
    stripe: pygame.Rect
    head: pygame.Rect
    cards: pygame.Rect
    slots: list[pygame.Rect]
    stats: pygame.Rect


@remembered
def other_panel_layout(m: Metrics, rect: pygame.Rect, badge_w: int = 0) -> OtherPanelLayout:
    """``badge_w``: the seat draws: the "+N" goes in the name line, right of the name
    (which gives way: ``other_head_split``), the line as tall as the badge's must-read
    digits need. The four positions and the counts keep their whole width (a column
    left of them once made the cards too narrow to tell apart)."""
    inner = inset(rect, m.px(theme.TABLE_OTHER_PAD_X), m.px(theme.TABLE_OTHER_PAD_Y))
    stripe = pygame.Rect(inner.x, inner.y,
                         max(theme.TABLE_STRIPE_MIN, m.px(theme.TABLE_STRIPE_W)), inner.h)
    gap = m.px(theme.TABLE_OTHER_STRIPE_GAP)
    inner = pygame.Rect(stripe.right + gap, inner.y, inner.right - stripe.right - gap, inner.h)
    name_h = min(m.px(theme.TABLE_OTHER_NAME_MAX), max(m.px(theme.TABLE_OTHER_NAME_MIN),
                                                        inner.h * 30 // 100))
    if badge_w:
        name_h = max(name_h, m.px(theme.TABLE_DRAW_BADGE_H))
    stat_h = min(m.px(theme.TABLE_OTHER_STATS_MAX), max(m.px(theme.TABLE_OTHER_STATS_MIN),
                                                         inner.h * 25 // 100))
    head, cards, stats = rows(inner, [name_h, 1.0, stat_h], m.px(theme.TABLE_OTHER_ROW_GAP))
    slots = cols(cards, [1.0] * 4, m.px(theme.TABLE_OTHER_SLOT_GAP))
    return OtherPanelLayout(stripe, head, cards, slots, stats)


def other_head_split(m: Metrics, head: pygame.Rect, score_w: int, badge_w: int = 0
                     ) -> tuple[pygame.Rect, pygame.Rect, pygame.Rect, pygame.Rect | None]:
    """A compact panel's seat token, name, score (``score_w`` wide at most) and, while
    the seat draws, the "+N" badge (``badge_w`` wide) between the name and the score."""
    if not badge_w:
        token, name, score = cols(head, [head.h, 1.0, min(head.w * 45 // 100, score_w)],
                                  m.gap)
        return token, name, score, None
    # the line is as tall as the badge's digits: the token keeps the size it has without
    # them, so the name keeps the room it needs
    token_w = min(head.h, m.px(theme.TABLE_OTHER_NAME_MIN))
    token, name, badge, score = cols(head, [token_w, 1.0, min(head.w // 3, badge_w),
                                            min(head.w * 30 // 100, score_w)], m.gap)
    token = pygame.Rect(token.x, token.centery - token_w // 2, token_w, token_w)
    return token, name, score, badge


@dataclass(frozen=True)
class FooterLayout:
    """The small buttons (undo, redo, upgrade, spend, [cake card,] fix) and END TURN."""
    slots: list[pygame.Rect]
    end: pygame.Rect


@remembered
def footer_layout(m: Metrics, rect: pygame.Rect, cake_time: bool, end_w: int = 0,
                  words_w: tuple[int, ...] = ()) -> FooterLayout:
    """END TURN ``end_w`` wide (the room its words need at the must-read size in every
    language, measured by the caller; 0: a third of the row), the small buttons sharing the
    rest (each a picture over its word: ``footer_buttons.py``). ``words_w``: the room each
    small button's word needs (its widest language, with its margins): equal shares where
    each holds its word, else shares in proportion to them, a little closer together if the
    row is short of room at its usual gap (Cake Time's sixth button: "Deshacer" needs more
    room than "Usar"; equal shares once left every word there 14 px, the others 17)."""
    if end_w:
        small, end = cols(rect, [1.0, min(end_w, rect.w // 2)], m.gap)
    else:
        small, end = cols(rect, [0.72, 0.28] if cake_time else [0.68, 0.32], m.gap)
    n = 6 if cake_time else 5
    if len(words_w) != n or max(words_w) <= (small.w - (n - 1) * m.gap) // n:
        return FooterLayout(cols(small, [1.0] * n, m.gap), end)
    spare = small.w - sum(words_w)
    gap = max(1, min(m.gap, spare // (n - 1)))
    return FooterLayout(cols(small, [float(w) for w in words_w], gap), end)
