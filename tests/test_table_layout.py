"""The table view's layout is pure geometry: every rectangle, at every size and player
count, without drawing anything."""
import itertools

import pygame
import pytest

from companion.outputs.screen import theme
from companion.outputs.screen.layout import Metrics
from companion.outputs.screen.table_layout import (active_banner_split, active_panel_layout,
                                                   footer_layout, header_layout,
                                                   other_head_split, other_panel_layout,
                                                   table_layout)

SIZES = [(800, 480), (1024, 600), (1280, 720), (1280, 800)]


def _apart(parts: list[pygame.Rect]) -> bool:
    return not any(a.colliderect(b) for a, b in itertools.combinations(parts, 2))


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_panel_part_is_inside_its_panel_and_apart(size, players):
    m = Metrics.of(size)
    lay = table_layout(size, players)
    assert lay.body.contains(lay.active) and all(lay.body.contains(o) for o in lay.others)
    act = active_panel_layout(m, lay.active, prompt=False)
    parts = [act.banner, *act.slots, act.hint, act.stats]
    assert all(lay.active.contains(p) for p in parts) and _apart(parts)
    assert act.banner.h >= m.target and act.banner.contains(act.banner_inner)
    assert max(s.w for s in act.slots) - min(s.w for s in act.slots) <= 1
    prompting = active_panel_layout(m, lay.active, prompt=True)
    assert prompting.hint.h == m.target > act.hint.h      # the prompt is a touch target
    for rect in lay.others:
        other = other_panel_layout(m, rect)
        parts = [other.stripe, other.head, *other.slots, other.stats]
        assert all(rect.contains(p) for p in parts) and _apart(parts)
        assert all(other.cards.contains(s) for s in other.slots)
        assert other.stripe.w >= theme.TABLE_STRIPE_MIN
        # a seat that draws: its "+N" in the name line; the cards and counts keep their width
        drawing = other_panel_layout(m, rect, m.px(70))
        assert [s.w for s in drawing.slots] == [s.w for s in other.slots]
        assert drawing.stats.w == other.stats.w
        assert drawing.head.h >= m.px(theme.TABLE_DRAW_BADGE_H)
        token, name, score, badge = other_head_split(m, drawing.head, m.px(90), m.px(70))
        assert badge is not None and drawing.head.contains(badge)
        assert _apart([token, name, badge, score, *drawing.slots, drawing.stats])


@pytest.mark.parametrize("size", SIZES)
def test_the_banner_lines_give_the_score_only_its_share(size):
    m = Metrics.of(size)
    act = active_panel_layout(m, table_layout(size, 4).active, prompt=False)
    token, name, score = active_banner_split(m, act.banner_inner, 10_000)
    assert score.w == act.banner_inner.w * 28 // 100 and name.w > score.w
    assert token.right <= name.x and name.right <= score.x
    token, name, score = active_banner_split(m, act.banner_inner, 40)
    assert score.w == 40 and score.right == act.banner_inner.right
    head = other_panel_layout(m, table_layout(size, 4).others[0]).head
    _, _, score, badge = other_head_split(m, head, 10_000)
    assert score.w == head.w * 45 // 100 and badge is None


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("closing", [False, True])
@pytest.mark.parametrize("devices", [0, 1, 2])
def test_the_header_makes_room_for_its_words(size, closing, devices):
    m = Metrics.of(size)
    rect = table_layout(size, 3).header
    hdr = header_layout(m, rect, closing, sign_words_w=120, info_words_w=150, devices=devices)
    parts = [p for p in (hdr.info, hdr.message, hdr.sign, hdr.devices, hdr.settings)
             if p is not None]
    assert all(rect.contains(p) for p in parts) and _apart(parts)
    assert (hdr.info is None) == closing and (hdr.devices is None) == (devices == 0)
    assert hdr.sign.w > 120 and hdr.settings.w >= m.target
    assert hdr.settings.right == rect.right - m.px(theme.TABLE_HEADER_PAD_X)
    if not closing:
        assert rect.w * 20 // 100 <= hdr.info.w <= rect.w * 36 // 100
    # a wide sign (ABIERTO) and long turn words: two device icons stand one over the other
    # where side by side they would leave a message beside the sign too little room
    wide = header_layout(m, rect, closing, sign_words_w=m.px(226), info_words_w=m.px(240),
                         devices=devices)
    for h in (hdr, wide):
        if devices > 1 and not closing:
            assert h.stacked or h.message.w >= m.px(theme.TABLE_MESSAGE_MIN_W)
            assert h.devices.w == round(rect.h * 0.62 * (1 if h.stacked else devices))
    assert wide.stacked == (closing or devices > 1)


@pytest.mark.parametrize("size", SIZES)
def test_the_footer(size):
    m = Metrics.of(size)
    lay = table_layout(size, 4)
    for cake_time, buttons in ((False, 5), (True, 6)):
        ft = footer_layout(m, lay.footer, cake_time)
        assert len(ft.slots) == buttons and _apart([*ft.slots, ft.end])
        assert ft.end.right == lay.footer.right and ft.end.w > ft.slots[0].w
        sized = footer_layout(m, lay.footer, cake_time, m.px(270))   # END TURN's words' room
        assert sized.end.w == m.px(270) and sized.end.right == lay.footer.right
        assert len(sized.slots) == buttons and _apart([*sized.slots, sized.end])
        assert min(s.w for s in sized.slots) >= m.target
