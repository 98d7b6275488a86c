"""The four player colours of the box, defined once: a name (what the journal records
with a game's setup), the colour the touchscreen, the phone view and exports paint, and
the colour the seat's LEDs show.

Seat 1 is red, seat 2 blue, seat 3 green, seat 4 yellow unless the setup says otherwise.
The screen's red and green are pulled apart in lightness and hue so that they stay
distinguishable with deuteranopia and protanopia (core/colour_vision.py,
tests/test_table_glance.py); the LEDs' are saturated, which is what reads on a strip.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from companion.appliance.config import LANGUAGES
from companion.core.rules.rejections import Rejection
from companion.words.i18n import colour_name

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


def names_of(rgbs: Iterable[Iterable[int]]) -> list[str]:
    """The screen's RGB seat colours as names, in seat order ("" for a colour that is
    none of the box's: no colour's name is that seat's own)."""
    by_rgb = {rgb: name for name, rgb in SCREEN_BY_NAME.items()}
    return [by_rgb.get(tuple(c), "") for c in rgbs]    # type: ignore[arg-type]


def every_seat(names: Iterable[str]) -> list[str]:
    """The colour (name) of every seat of the box: a game's colours for its players'
    seats, the box's order for the seats without a player."""
    chosen = list(names)
    return chosen + list(NAMES[len(chosen):])


# --- the names "Play with seat colours" gave: shown in the table's language now -------------

def colour_words(colour: str) -> frozenset[str]:
    """Every name the setup's "Play with seat colours" can give a seat of ``colour``: the
    colour's name in each of the five languages ("Blue", "Azul", "Blu", "파랑")."""
    return _COLOUR_WORDS.get(colour, frozenset())


_COLOUR_WORDS: dict[str, frozenset[str]] = {
    c: frozenset(colour_name(lang, c) for lang in LANGUAGES) for c in NAMES}


def shown_name(lang: str, name: str, colour: str) -> str:
    """The name to show for a player recorded as ``name`` on a seat of ``colour``, in
    ``lang``. The journal keeps the name as it was given; only what people see follows
    the language: a name that is exactly its own seat's colour in one of the five
    languages (what "Play with seat colours" gives) shows as that colour in ``lang``
    ("Blue" on the blue seat is "파랑" in Korean). Any other name stays as it is: a
    player's own name, or another seat's colour ("Blue" on the red seat), which a player
    typed and the wizard never gives."""
    return colour_name(lang, colour) if name in colour_words(colour) else name


def shown_names(lang: str, names: Sequence[str], colours: Iterable[str] = ()
                ) -> dict[str, str]:
    """A game's players as shown in ``lang``: recorded name -> shown name, for every
    player. ``names``: the players in seat order; ``colours``: the game's seat colours as
    recorded (none: the box's order). A colour's name that would show like another
    player's name (a player called "빨강" on the blue seat, and "Red" on the red one)
    stays as recorded, so that no two players ever look alike."""
    seats = every_seat(colours)
    shown = {n: shown_name(lang, n, seats[i]) if i < len(seats) else n
             for i, n in enumerate(names)}
    taken = [s.casefold() for s in shown.values()] + [n.casefold() for n in names]
    return {n: s if s == n or taken.count(s.casefold()) == 1 else n for n, s in shown.items()}


@lru_cache(maxsize=32)
def game_names(lang: str, names: tuple[str, ...], colours: tuple[str, ...] = ()
               ) -> Mapping[str, str]:
    """``shown_names`` of one game, worked out once per language (read-only: shared by
    the outputs that ask again at every update)."""
    return MappingProxyType(shown_names(lang, names, colours))


def called_by_colour(names: Sequence[str], colours: Iterable[str] = ()) -> list[str | None]:
    """For each player (seat order), the colour of their seat when their name is that
    colour in one of the five languages (a name "Play with seat colours" gave), else None:
    what the café needs to count one seat colour as one, whatever language named it. As
    on the table, no two players come to look alike: when another player's name is that
    colour too (a player called "빨강" on the blue seat, "Red" on the red one), neither is
    taken as called by it."""
    seats = every_seat(colours)
    called = [seats[i] if i < len(seats) and n in colour_words(seats[i]) else None
              for i, n in enumerate(names)]
    return [c if c is None or sum(n in colour_words(c) for n in names) == 1 else None
            for c in called]


def names_again(lang: str, names: Sequence[str], colours: Iterable[str] = ()) -> list[str]:
    """The players of a new game at the same table (a rematch, or a new game with the
    same players), in seat order: a name "Play with seat colours" gave becomes its seat's
    colour in ``lang``, the language of the moment ("Red" set up in English is "빨강" once
    the table speaks Korean); a player's own name, or another seat's colour, stays as
    typed; and no two players come to look alike (``shown_names``). The one place every
    rematch and new-game path asks, so that the new game's setup records today's words."""
    shown = shown_names(lang, names, colours)
    return [shown[n] for n in names]


def same_table(players: Sequence[str], names: Sequence[str], colours: Iterable[str] = ()
               ) -> bool:
    """Whether ``players`` (a new game's, in seat order) are a game's ``names`` on seats
    of ``colours`` again: the same number, and seat by seat the same name or, for a seat
    called by its colour, that colour in any of the five languages (a rematch set up in
    another language)."""
    seats = every_seat(colours)
    return len(players) == len(names) <= len(seats) and all(
        p == n or (p in colour_words(seats[i]) and n in colour_words(seats[i]))
        for i, (p, n) in enumerate(zip(players, names, strict=True)))


#: the fields of the rules' happenings that hold a player's name (alone, in a list, or
#: first in a tuple: draws, deal), and the ranking's entries
_NAME_FIELDS = ("player", "previous", "active", "start")
_NAMES_FIELDS = ("players", "winners")
_FIRST_NAME_FIELDS = ("draws", "deal")


def shown_happening(h: Any, names: Mapping[str, str]) -> Any:
    """A happening whose players' names are as ``shown_names`` shows them (for the words
    people read and hear; the happening itself, and the journal, keep the recorded ones)."""
    if not is_dataclass(h) or isinstance(h, type) or all(k == v for k, v in names.items()):
        return h
    have = {f.name: getattr(h, f.name) for f in fields(h)}
    change: dict[str, Any] = {}
    for f in have.keys() & set(_NAME_FIELDS):
        if isinstance(have[f], str):
            change[f] = names.get(have[f], have[f])
    for f in have.keys() & set(_NAMES_FIELDS):
        change[f] = tuple(names.get(n, n) for n in have[f])
    for f in have.keys() & set(_FIRST_NAME_FIELDS):
        change[f] = tuple((names.get(x[0], x[0]), *x[1:]) for x in have[f])
    if "ranking" in have:
        change["ranking"] = tuple(replace(r, name=names.get(r.name, r.name))
                                  for r in have["ranking"])
    return replace(h, **change)


def shown_rejection(rejection: Rejection, names: Mapping[str, str]) -> Rejection:
    """A refusal naming its player as ``shown_names`` shows them (its words only)."""
    who = rejection.params.get("player")
    if isinstance(who, str) and names.get(who, who) != who:
        return Rejection(rejection.code, {**rejection.params, "player": names[who]})
    return rejection
