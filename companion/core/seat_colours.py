"""The four player colours of the box, defined once: a name (what the journal records
with a game's setup), the colour the touchscreen, the phone view and exports paint, and
the colour the seat's LEDs show.

Seat 1 is red, seat 2 blue, seat 3 green, seat 4 yellow unless the setup says otherwise.
The screen's red and green are pulled apart in lightness and hue so that they stay
distinguishable with deuteranopia and protanopia (core/colour_vision.py,
tests/test_table_glance.py); the LEDs' are saturated, which is what reads on a strip.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class SeatColour:
    name: str
    screen: RGB
    led: RGB


SEAT_COLOURS: tuple[SeatColour, ...] = (
    SeatColour("red", screen=(200, 40, 40), led=(255, 0, 0)),
    SeatColour("blue", screen=(36, 113, 214), led=(0, 0, 255)),
    SeatColour("green", screen=(30, 190, 140), led=(0, 255, 0)),
    SeatColour("yellow", screen=(240, 190, 20), led=(255, 200, 0)),
)
NAMES: tuple[str, ...] = tuple(c.name for c in SEAT_COLOURS)
SCREEN_RGB: tuple[RGB, ...] = tuple(c.screen for c in SEAT_COLOURS)
LED_RGB: tuple[RGB, ...] = tuple(c.led for c in SEAT_COLOURS)
LED_BY_NAME: dict[str, RGB] = {c.name: c.led for c in SEAT_COLOURS}
SCREEN_BY_NAME: dict[str, RGB] = {c.name: c.screen for c in SEAT_COLOURS}


def screen_rgb(names: Iterable[str]) -> list[RGB]:
    """Seat colour names (as the journal records them) as the screen's RGB colours."""
    return [SCREEN_BY_NAME[n] for n in names]


def led_rgb(names: Iterable[str]) -> list[RGB]:
    """Seat colour names as the LEDs' RGB colours."""
    return [LED_BY_NAME[n] for n in names]


def every_seat(names: Iterable[str]) -> list[str]:
    """The colour (name) of every seat of the box: a game's colours for its players'
    seats, the box's order for the seats without a player."""
    chosen = list(names)
    return chosen + list(NAMES[len(chosen):])
