"""A finished game as a BG Stats play: the app's "create play" link and its QR code.

BG Stats opens ``https://app.bgstatsapp.com/createPlay.html?data=`` followed by
the URL-encoded JSON of one play and offers to save it. Apps that left out
``winner``, ``startPlayer``, ``highestWins`` or ``noPoints``, or sent ``bggId``
as a text, crashed BG Stats on some platforms, so every one of them is always
sent, with its JSON type (numbers as numbers, flags as true/false).

- ``sourcePlayId`` is stable and unique per game: this device's id, the
  journal's game number and the game's start time (a new journal restarts the
  numbers; the start time keeps two games apart).
- ``playDate`` is the game's start in UTC, ``yyyy-MM-dd HH:mm:ss``.
- ``location`` is ``[bgstats] location`` when set; no ``comments`` (the link
  stays short, so its QR code stays big enough to scan).
- ``board`` names the edition, the variant, the expansion and the options; ``role`` is the
  seat's colour.

Everything comes from the journal (the game's record and its replayed final
table), so the link is the same on the end screen, the history page and
``coffee-companion history --export N --format bgstats``.
"""
from __future__ import annotations

import hashlib
import json
import socket
from datetime import datetime, UTC
from typing import TYPE_CHECKING, Any
from collections.abc import Sequence
from urllib.parse import quote

from companion.core.seat_colours import SCREEN_RGB

if TYPE_CHECKING:        # segno loads with the first QR code, not with the service's start
    import segno

BGG_ID = 377061                    # Coffee Rush on BoardGameGeek
GAME_NAME = "Coffee Rush"
SOURCE_NAME = "Coffee Rush Table Companion"
LINK = "https://app.bgstatsapp.com/createPlay.html?data="
EDITION_NAMES = {"original": "Coffee Rush", "winter": "Coffee Rush: Winter"}
VARIANT_NAMES = {"standard": "Standard", "junior": "Junior Barista"}
EXPANSION_NAMES = {"cake_time": "Cake Time"}
# setup options worth a note in the play's board, as the setup line names them
OPTION_NAMES = {"ristretto_start": "Ristretto start", "longer_game": "longer game",
                "two_drinks_one_cake": "two drinks, one cake"}
# the box's player colours as the screen paints them (companion.core.seat_colours),
# seat 1 first by default; games saved before the red and green were tuned for colour-blind
# players keep the old shades in the journal, so those are named too
DEFAULT_COLOURS = list(SCREEN_RGB)
COLOUR_NAMES = {**dict(zip(DEFAULT_COLOURS, ("Red", "Blue", "Green", "Yellow"), strict=True)),
                (214, 48, 49): "Red", (39, 160, 82): "Green"}


class NotFinished(ValueError):
    """Only a finished game has a ranking to log."""


def device_id(machine_id_path: str = "/etc/machine-id") -> str:
    """A short, stable id of this device (never the machine id itself)."""
    try:
        with open(machine_id_path, "rb") as fh:
            seed = fh.read().strip()
    except OSError:
        seed = b""
    seed = seed or socket.gethostname().encode()
    return hashlib.sha256(b"coffee-rush-companion:" + seed).hexdigest()[:10]


def utc(iso: str) -> datetime:
    """A journal time (ISO 8601 with offset) as an aware UTC datetime."""
    t = datetime.fromisoformat(iso)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.astimezone(UTC)


def colour_names(colours: Sequence[Any] | None, count: int) -> list[str]:
    """Seat colours (RGB, as the screen keeps them) as names; the box's by default."""
    rgb = [tuple(c) for c in colours] if colours else []
    rgb += DEFAULT_COLOURS[len(rgb):]
    return [COLOUR_NAMES.get(c, "#{:02x}{:02x}{:02x}".format(*c)) for c in rgb[:count]]


def _player_id(name: str) -> str:
    return "p-" + hashlib.sha256(name.casefold().encode()).hexdigest()[:8]


def board(state: dict[str, Any], setup: dict[str, Any] | None = None) -> str:
    """Edition · variant · expansion · options, e.g. "Coffee Rush · Standard · Cake Time"."""
    setup = setup or {}
    parts = [EDITION_NAMES.get(state["edition"], state["edition"]),
             VARIANT_NAMES.get(state["variant"], state["variant"])]
    expansion = setup.get("expansion")
    if expansion:
        parts.append(EXPANSION_NAMES.get(expansion, expansion))
    parts += [words for key, words in OPTION_NAMES.items() if setup.get(key) is True]
    return " · ".join(parts)


def play(game_id: int, started_at: str, ended_at: str | None, state: dict[str, Any], *,
         device: str, colours: Sequence[Any] | None = None, location: str = "",
         setup: dict[str, Any] | None = None) -> dict[str, Any]:
    """The BG Stats play of one finished game.

    ``state`` is the game's final table as ``replay --json`` prints it
    (``companion.core.rules.view.table_json``), ``setup`` its setup action (the journal's
    first line: expansion and options), ``colours`` the seats' RGB colours.
    """
    if not state.get("game_over") or not state.get("ranking") or ended_at is None:
        raise NotFinished(f"game {game_id} is not finished: only a finished game can be logged")
    start, end = utc(started_at), utc(ended_at)
    minutes = max(1, round((end - start).total_seconds() / 60))
    places = {r["name"]: r for r in state["ranking"]}
    names = colour_names(colours, len(state["players"]))
    players = []
    for seat, p in enumerate(state["players"]):
        r = places[p["name"]]
        players.append({
            "name": p["name"],
            "sourcePlayerId": _player_id(p["name"]),
            "score": int(r["score"]),
            "rank": int(r["place"]),
            "winner": p["name"] in state["winners"],
            "startPlayer": p["name"] == state["start"],
            "role": names[seat],
        })
    out: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"coffee-rush-{device}-{game_id}-{start:%Y%m%d%H%M%S}",
        "playDate": f"{start:%Y-%m-%d %H:%M:%S}",
        "durationMin": minutes,
        "location": location,
        "board": board(state, setup),
        "game": {"name": GAME_NAME, "bggId": BGG_ID, "sourceGameId": "coffee-rush",
                 "highestWins": True, "noPoints": False},
        "players": players,
    }
    if not location:
        del out["location"]
    return out


def link(play_: dict[str, Any]) -> str:
    """The BG Stats link of a play: compact JSON, percent-encoded as UTF-8 like
    JavaScript's encodeURIComponent (accents and Hangul survive any scanner), except
    that ``:`` and ``,`` stay as they are (legal in a query, and a smaller QR code)."""
    data = json.dumps(play_, ensure_ascii=False, separators=(",", ":"))
    return LINK + quote(data, safe="-_.!~*'():,")


def qr(url: str) -> segno.QRCode:
    """The link as a QR code: low error correction, so the modules stay big."""
    import segno        # here: a start (PlayLink) needs no QR code before a game ends
    return segno.make_qr(url, error="l", boost_error=False)
