""""Why?" in the phone view: the explanations of what the table shows now, for the live
page (a "?" beside each ruling) and ``GET /api/why``.

Worked out on the web server's thread from the snapshot's rules table (the table loop
only hands the table over), once per snapshot.
"""
from __future__ import annotations

import threading
from typing import Any

from companion.core.seat_colours import names_of, shown_names
from companion.review.explain import Why, explanations, refusal
from companion.core.rules.happenings import NotYourTurn
from companion.review.why_text import why_text

_lock = threading.Lock()
_cache: dict[int, tuple[Any, dict[str, Why]]] = {}     # seq -> (snapshot, explanations)


def whys(snap: Any) -> dict[str, Why]:
    """target -> Why for the snapshot's table (the draws only while the table shows them),
    plus ``refusal`` when the snapshot's update was refused."""
    with _lock:
        hit = _cache.get(snap.seq)
        if hit is not None and hit[0] is snap:
            return hit[1]
    out: dict[str, Why] = {}
    if snap.rules_table is not None:
        pending: dict[str, int] = {}
        for player, count in snap.draws:
            pending[player] = pending.get(player, 0) + count
        out = explanations(snap.rules_table, pending)
    if snap.rejection is not None:
        active = next((h.active for h in snap.happened
                       if isinstance(h, NotYourTurn) and not h.overlapped), None)
        out = {**out, "refusal": refusal(snap.rejection, snap.action, active)}
    with _lock:
        if len(_cache) > 16:
            _cache.clear()
        _cache[snap.seq] = (snap, out)
    return out


def live_names(lang: str, snap: Any) -> dict[str, str]:
    """The players of the live table as the phone shows them in ``lang``: recorded name ->
    shown name (``core.seat_colours.shown_names``: a name "Play with seat colours" gave
    follows the language). The table's JSON, the actions and the "why?" targets and
    parameters keep the recorded names."""
    players = snap.table.get("players") or []
    return shown_names(lang, [p["name"] for p in players], names_of(snap.colours))


def why_json(snap: Any, lang: str) -> dict:
    """What ``GET /api/why`` answers: each target's key, parameters (as recorded) and
    sentence (with the names as shown)."""
    names = live_names(lang, snap)
    return {"seq": snap.seq, "language": lang,
            "explanations": {target: {**w.as_dict(), "text": why_text(lang, w, names=names)}
                             for target, w in whys(snap).items()}}
