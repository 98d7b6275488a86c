"""fill_round_rect gives exactly the pixels of pygame.draw.rect(..., border_radius=r) on the
running pygame (the suite runs this on PyPI's pygame and again on Debian's 2.1.2)."""
from __future__ import annotations

import random

import pygame
import pytest

from companion.outputs.screen.widgets import fill_round_rect

BACKGROUND = (10, 20, 30, 40)


def _pixels(surface: pygame.Surface) -> bytes:
    return pygame.image.tostring(surface, "RGBA")


def _both_ways(plain: pygame.Surface, split: pygame.Surface, colour: tuple, rect: tuple,
               radius: int, clip: pygame.Rect | None) -> None:
    """The shape drawn by pygame on ``plain`` and split on ``split``, each on the background
    under ``clip``: the same pixels and the clip left as it was."""
    for surface in (plain, split):
        surface.set_clip(None)
        surface.fill(BACKGROUND)
        surface.set_clip(clip)
    pygame.draw.rect(plain, colour, rect, border_radius=radius)
    fill_round_rect(split, colour, rect, radius)
    case = (rect, radius, colour, clip)
    assert split.get_clip() == plain.get_clip(), case
    assert _pixels(split) == _pixels(plain), case


@pytest.mark.parametrize("flags, depth", [(0, 32), (0, 24), (0, 16), (pygame.SRCALPHA, 32)])
def test_fill_round_rect_draws_the_pixels_of_the_plain_call(flags: int, depth: int) -> None:
    rng = random.Random(19)
    plain = pygame.Surface((90, 70), flags, depth)
    split = plain.copy()
    for w in range(1, 46, 2):
        for h in range(1, 34, 3):
            for radius in range(0, 24, 1 if w < 20 else 3):
                pos = (rng.randrange(-6, 70), rng.randrange(-6, 55))   # some cut by an edge
                colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256),
                          rng.choice((255, 128, 0)))
                clip = None
                if rng.random() < 0.35:
                    clip = pygame.Rect(rng.randrange(0, 70), rng.randrange(0, 55),
                                       rng.randrange(1, 60), rng.randrange(1, 50))
                _both_ways(plain, split, colour, (*pos, w, h), radius, clip)


def test_fill_round_rect_takes_a_tuple_and_draws_its_corners_rounded() -> None:
    surface = pygame.Surface((40, 30))
    surface.fill((0, 0, 0))
    fill_round_rect(surface, (200, 100, 50), (5, 5, 30, 20), 6)
    assert surface.get_at((5, 5))[:3] == (0, 0, 0)            # a corner stays rounded
    assert surface.get_at((20, 15))[:3] == (200, 100, 50)     # the middle is filled
    assert surface.get_at((11, 5))[:3] == (200, 100, 50)      # the straight top edge


@pytest.mark.parametrize("flags, depth", [(0, 32), (0, 16), (pygame.SRCALPHA, 32)])
def test_fill_round_rect_of_a_shape_far_bigger_than_the_surface(flags: int, depth: int) -> None:
    """A panel's part drawn aside (widgets._shape_part): the whole shape at an offset on a
    surface a strip of it wide, cut by every edge; one colour, so its corners are copied
    from one stamp again and again."""
    rng = random.Random(20)
    plain = pygame.Surface((40, 26), flags, depth)
    split = plain.copy()
    colour = (120, 90, 60, 255)
    for _ in range(300):
        w, h, radius = rng.randrange(2, 520), rng.randrange(2, 340), rng.randrange(1, 16)
        pos = (rng.randrange(-w - 5, 45), rng.randrange(-h - 5, 30))
        clip = None
        if rng.random() < 0.3:
            clip = pygame.Rect(rng.randrange(0, 40), rng.randrange(0, 26),
                               rng.randrange(1, 30), rng.randrange(1, 20))
        _both_ways(plain, split, colour, (*pos, w, h), radius, clip)
