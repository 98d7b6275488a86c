"""Topics and payloads of a table, shared by the publisher and the café hub.

Every topic starts ``coffee-rush/<venue>/<table>/`` (docs/mqtt.md):

- ``state``  retained JSON: the replay output (``table_json``) plus ``status``;
- ``events`` QoS 1 JSON: one accepted action and what happened, with game id and seq;
- ``result`` QoS 1 JSON: one finished game, from the journal;
- ``status`` retained text: ``online``, or ``offline`` (also the last will).
"""
from __future__ import annotations

import hashlib
import json
import queue
from datetime import datetime, UTC
from typing import Any

from companion.core.rules.state import Table
from companion.core.rules.view import table_json
from companion.core.seat_colours import called_by_colour

ROOT = "coffee-rush"
SCHEMA = 1
ONLINE, OFFLINE = "online", "offline"
# device statuses that need nobody's help; any other one ("lost", "unavailable",
# "not_responding", "paused", ...) puts the table on the floor page's help list
HEALTHY = frozenset({"ready", "connected", "back", "ok", "resumed"})


def topic(venue: str, table: str, leaf: str) -> str:
    return f"{ROOT}/{venue}/{table}/{leaf}"


def venue_filter(venue: str) -> str:
    """What a hub subscribes to: every table of the venue, every leaf."""
    return f"{ROOT}/{venue}/+/+"


def split(topic_name: str) -> tuple[str, str, str] | None:
    """(venue, table, leaf) of one of our topics, else None."""
    parts = topic_name.split("/")
    if len(parts) != 4 or parts[0] != ROOT:
        return None
    return parts[1], parts[2], parts[3]


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def dumps(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"),
                      default=list).encode("utf-8")


def state_payload(table: Table, *, venue: str, name: str, game_id: int | None,
                  seq: int | None, started_at: str | None, devices: dict,
                  updated_at: float, seat_colours: tuple[str, ...] = ()) -> dict:
    """The retained state: the replay's JSON plus what the floor page needs (in
    ``status``; ``seat_colours``: for each player, their seat's colour when they are
    called by it, else None, as in a result)."""
    state = table_json(table)
    game = table.game
    if game is None:
        phase = "idle"
    elif game.game_over:
        phase = "over"
    else:
        phase = "playing"
    n = len(game.players) if game else 0
    state["status"] = {
        "venue": venue, "table": name, "game": game_id, "seq": seq,
        "phase": phase,
        "started_at": started_at if game is not None else None,
        "turn": game.turn if game else 0,
        "round": (game.turn - 1) // n + 1 if game else 0,
        "active": state["active"],
        "shop": (game.token if game else "open").upper(),
        "final_round": bool(game and game.token == "closed" and not game.game_over),
        "devices": dict(devices),
        "needs_help": sorted(d for d, s in devices.items() if s not in HEALTHY),
        "updated_at": round(updated_at, 3),
        "seat_colours": called_by_colour([p["name"] for p in state["players"]], seat_colours),
    }
    return state


def event_payload(update, *, game_id: int | None, seq: int | None, at: float) -> dict:
    return {"game": game_id, "seq": seq, "at": iso(at), "action": update.action,
            "happened": [h.as_dict() for h in update.happened]}


def result_payload(record, *, venue: str, name: str, expansion: str | None) -> dict:
    """One finished game from the journal's games row (``journal.GameRecord``) and its
    setup line (the expansion played, e.g. ``cake_time``, or None)."""
    ranking = list(record.ranking or [])
    scores = {r["name"]: r["score"] for r in ranking}
    colours = called_by_colour(record.players, record.seat_colors or ())
    return {
        "schema": SCHEMA, "venue": venue, "table": name, "game": record.id,
        "edition": record.edition, "variant": record.variant, "expansion": expansion,
        # seat_colour: the player is called by their seat's colour (the café counts the
        # seat as one, whatever language named it); absent for a player's own name
        "players": [{"name": p, "score": scores.get(p)} | ({"seat_colour": c} if c else {})
                    for p, c in zip(record.players, colours, strict=True)],
        "ranking": ranking,
        "winners": [r["name"] for r in ranking if r.get("place") == 1],
        "started_at": record.started_at, "ended_at": record.ended_at,
    }


def next_batch(inbox: queue.Queue) -> list:
    """Wait for the next item of a worker's inbox, then take all that wait behind it
    (a burst is handled, and stored or published, as one)."""
    batch = [inbox.get()]
    while True:
        try:
            batch.append(inbox.get_nowait())
        except queue.Empty:
            return batch


def result_version(record) -> str:
    """Which version of a finished game this is (a correction after the end changes it):
    what the publisher keeps as acknowledged."""
    return digest({"ended_at": record.ended_at, "ranking": record.ranking,
                   "players": record.players})


def digest(payload: dict) -> str:
    """A short fingerprint of a payload (the hub tells duplicates by it)."""
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]
