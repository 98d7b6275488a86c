"""Why the companion changed a number or a sign by itself: one sentence per ruling.

Pure: no pygame, no I/O, no clock. Everything comes from what the journal recorded:
the action, the game before it and after it (the engine's undo history holds both for
every action of the running game, and a replay of the journal rebuilds it), and what
the engine says happened (re-applying a recorded action to the game before it gives
the same happenings: the engine is pure).

A ruling is a ``Why``: the thing on the table it explains (``target``), a key of the
locale files' ``[why]`` section and its parameters (names, numbers, ``Word`` ids, and
nested ``Why`` parts). ``companion.review.why_text.why_text`` says it in a language.

Targets (the same on the touchscreen, the phone view and ``replay --explain``):

- ``draw:NAME``      the "+N" badge of a player who must draw (order surge, 2-player draw)
- ``dislikes:NAME``  a player's dislike count (the flow of time, or a correction)
- ``sign``           the starting player token: why CLOSED (or OPEN again)
- ``final``          "Final round" / "Last turn!" and who plays last
- ``score:NAME``     a player's score once they flipped an upgrade tile: why it dropped
- ``tie:I``          the I-th tie-break of the final ranking (``scoring.tie_break``)
- ``refusal``        a refused press or touch: what was refused and why
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from companion.core.rules import Accepted, Rejection, Table, apply
from companion.core.rules.editions import DISLIKES_TO_CLOSE, JUNIOR_CARDS, POSITIONS, UPGRADE_COST
from companion.core.rules.happenings import (CardsToDraw, Corrected, DislikesTaken, FinalTurnBegins,
                                             GameOver, Happening, RankingChanged,
                                             ShopClosed, ShopReopened)
from companion.core.rules.rejections import token_id
from companion.core.rules.scoring import ranking, score, tie_break
from companion.core.rules.state import Game, iter_stack


@dataclass(frozen=True)
class Word:
    """A word of the locale files: ``[section] id`` (a token, ``word.closed``, an action)."""
    section: str
    id: str


@dataclass(frozen=True)
class Names:
    """Player names said as a list ("Ben and Chloe")."""
    names: tuple[str, ...]


@dataclass(frozen=True)
class Why:
    """One ruling's cause: ``key`` (in ``[why]``; with ``count``, ``key_one``/``key_other``)
    and its parameters. ``facts``: the numbers the sentence rests on, for checks."""
    target: str
    key: str
    params: dict[str, Any] = field(default_factory=dict)
    count: int | None = None
    facts: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def locale_key(self) -> str:
        if self.count is None:
            return f"why.{self.key}"
        return f"why.{self.key}_{'one' if self.count == 1 else 'other'}"

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON: the key and parameters (nested parts as objects)."""
        return {"target": self.target, "key": self.locale_key,
                "params": {k: _plain(v) for k, v in self.params.items()}}


def _plain(v: Any) -> Any:
    if isinstance(v, Why):
        return {"key": v.locale_key, "params": {k: _plain(x) for k, x in v.params.items()}}
    if isinstance(v, Word):
        return {"word": f"{v.section}.{v.id}"}
    if isinstance(v, Names):
        return list(v.names)
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Rejection):
        return {"rejection": v.code, "params": dict(v.params)}
    return v


CLOSED = Word("word", "closed")
OPEN = Word("word", "open")


# --- the rulings of one accepted action --------------------------------------------------

def happenings_of(before: Game | None, action: dict) -> tuple[Happening, ...]:
    """What ``action`` did to ``before`` (the engine is pure: the same as when it was
    played; a recorded action carries the specialty that decided it)."""
    outcome = apply(Table(before), action)
    return outcome.happened if isinstance(outcome, Accepted) else ()


def rulings(before: Game | None, action: dict, happened: tuple[Happening, ...],
            after: Game | None) -> list[Why]:
    """Every automatic ruling of one accepted action, in the order the engine made them.

    ``before``/``after``: the game before and after; ``action``: the action as applied
    (a redo's happenings are those of the action it redid)."""
    if before is None or after is None or action.get("do") == "setup":
        return []
    out: list[Why] = []
    for h in happened:
        ruling = _RULINGS.get(type(h))
        if ruling is not None:
            out += ruling(before, after, happened, h)
    return out


def _draws(before: Game, after: Game, happened: tuple[Happening, ...],
           h: CardsToDraw) -> list[Why]:
    """Who draws after an order surge, or the 2-player game's draw."""
    if h.reason == "order_surge":
        return _surge(before, h)
    return [Why(f"draw:{p}", "two_player_draw", {"player": p}, facts={"draws": n})
            for p, n in h.draws]


def _dislikes_taken(before: Game, after: Game, happened: tuple[Happening, ...],
                    h: DislikesTaken) -> list[Why]:
    return [_flow_of_time(before, after, h)]


def _corrected(before: Game, after: Game, happened: tuple[Happening, ...],
               h: Corrected) -> list[Why]:
    """A correction of a player's dislikes (other corrections say nothing)."""
    if h.field != "dislikes" or h.player is None:
        return []
    return [Why(f"dislikes:{h.player}", "dislikes_corrected",
                {"player": h.player, "before": h.before, "after": h.after},
                facts={"before": h.before, "after": h.after})]


def _shop_closed(before: Game, after: Game, happened: tuple[Happening, ...],
                 h: ShopClosed) -> list[Why]:
    return [_closed(before, after, happened, h)]


def _shop_reopened(before: Game, after: Game, happened: tuple[Happening, ...],
                   h: ShopReopened) -> list[Why]:
    return [_reopened(after, h)]


def _final_turn(before: Game, after: Game, happened: tuple[Happening, ...],
                h: FinalTurnBegins) -> list[Why]:
    """"Final round" (a game that ends at once has none)."""
    return [] if after.game_over else [final_round(after, h.player)]


def _ranked(before: Game, after: Game, happened: tuple[Happening, ...],
            h: Happening) -> list[Why]:
    return ties(after)


# happening type -> its rulings (happenings not listed make none)
_RULINGS: dict[type, Callable[[Game, Game, tuple[Happening, ...], Any], list[Why]]] = {
    CardsToDraw: _draws,
    DislikesTaken: _dislikes_taken,
    Corrected: _corrected,
    ShopClosed: _shop_closed,
    ShopReopened: _shop_reopened,
    FinalTurnBegins: _final_turn,
    GameOver: _ranked,
    RankingChanged: _ranked,
}


def _surge(before: Game, h: CardsToDraw) -> list[Why]:
    """Ana completed k orders, so the next one or two players each draw k (fewer if the
    deck runs short)."""
    seat = before.active if before.active is not None else 0
    n = len(before.players)
    k = before.completed_this_turn
    receivers = [before.players[(seat + i) % n].name for i in ((1,) if n == 2 else (1, 2))]
    got = dict(h.draws)
    deck = before.deck
    params: dict[str, Any] = {"player": before.players[seat].name}
    short: list[Why] = []
    left = None
    for r in receivers:
        take = got.get(r, 0)
        if take < k and left is None:
            left = deck
        if left is not None:
            short.append(Why("", "draws_part" if take else "draws_none",
                             {"player": r, "count": take}))
        deck -= take
    if len(receivers) == 1:
        key, params["drawer"] = "surge_single", receivers[0]
    else:
        key, params["drawers"] = "surge", Names(tuple(receivers))
    facts = {"completed": k, "deck_before": before.deck, "receivers": tuple(receivers),
             "draws": dict(got)}
    if left is not None:
        params["short"] = Why("", "surge_short", {"left": left, "draws": tuple(short)})
        key += "_short"
    # the same sentence answers a touch on any drawing seat's "+N"
    targets = [r for r in receivers if got.get(r)] or receivers[:1]
    return [Why(f"draw:{r}", key, params, count=k, facts=facts) for r in targets]


#: tokens in each box (000 "Contenido"; 001 "Components"): the companion does not limit them
TOKENS_IN_THE_BOX = 15


def _flow_of_time(before: Game, after: Game, h: DislikesTaken) -> Why:
    p = before.players[before.seat_of(h.player) or 0]
    token = Word("token", token_id(after.rules.token, h.count))
    params: dict[str, Any] = {"player": h.player, "total": h.total, "tokens": token}
    held = sum(q.cookies for q in after.players)
    key = "dislikes_flow"
    if held > TOKENS_IN_THE_BOX:        # more than the box holds: say whose rule that is
        key = "dislikes_flow_unlimited"
        params["own"] = Why("", "own_tokens", {
            "held": held, "box": TOKENS_IN_THE_BOX,
            "tokens_held": Word("token", token_id(after.rules.token, held))})
    return Why(f"dislikes:{h.player}", key, params, count=h.count,
               facts={"position_4": len(p.queue[3]), "before": p.dislikes, "after": h.total})


def _closed(before: Game, after: Game, happened: tuple[Happening, ...], h: ShopClosed) -> Why:
    """Why the shop closed: the deck ran out, a player has five dislikes, or (Junior
    Barista) a player's queue is empty."""
    facts = {"reason": h.reason, "deck_before": before.deck, "deck_after": after.deck,
             "dislikes": {p.name: p.dislikes for p in after.players}}
    if h.reason == "deck_empty":
        return _closed_deck_empty(before, happened, facts)
    if h.reason == "five_dislikes":
        return _closed_dislikes(after, happened, h.player or "", facts)
    # "orders_done": Junior Barista, the player's queue is empty
    each = (after.next_serial - 1) // (POSITIONS * len(after.players))
    if each > JUNIOR_CARDS[0]:          # more cards a position: the companion's own choice
        return Why("sign", "closed_orders_done_cards",
                   {"player": h.player or "", "closed": CLOSED, "cards": each,
                    "most": JUNIOR_CARDS[1]}, facts=facts)
    return Why("sign", "closed_orders_done", {"player": h.player or "", "closed": CLOSED},
               facts=facts)


def _closed_deck_empty(before: Game, happened: tuple[Happening, ...],
                       facts: dict[str, Any]) -> Why:
    """The deck ran out: corrected to 0, emptied by an order surge, or by the 2-player
    draw (a surge that took the deck's last cards is the cause even with a 2-player draw)."""
    if any(isinstance(c, Corrected) and c.field == "deck" for c in happened):
        return Why("sign", "closed_deck_corrected", {"closed": CLOSED}, facts=facts)
    active = before.players[before.active].name if before.active is not None else ""
    params = {"player": active, "closed": CLOSED}
    surge = _drawn(happened, "order_surge")
    two = _drawn(happened, "two_player_draw")
    if surge is not None and surge.draws and before.deck > 0 and (
            two is None or sum(n for _, n in surge.draws) == before.deck):
        return Why("sign", "closed_surge", params, count=before.deck, facts=facts)
    key = "closed_deck_empty" if two is None else "closed_two_player_draw"
    return Why("sign", key, params, facts=facts)


def _drawn(happened: tuple[Happening, ...], reason: str) -> CardsToDraw | None:
    """The draw for ``reason`` among ``happened``, if any."""
    return next((c for c in happened if isinstance(c, CardsToDraw) and c.reason == reason),
                None)


def _closed_dislikes(after: Game, happened: tuple[Happening, ...], player: str,
                     facts: dict[str, Any]) -> Why:
    """``player`` has five dislikes: just taken, set by a correction, or already had."""
    total = after.players[after.seat_of(player) or 0].dislikes
    if any(isinstance(c, DislikesTaken) and c.player == player for c in happened):
        key = "closed_dislikes"
    elif any(isinstance(c, Corrected) and c.player == player and c.field == "dislikes"
             for c in happened):
        key = "closed_dislikes_corrected"
    else:
        key = "closed_dislikes_has"
    return Why("sign", key, {"player": player, "total": total, "closed": CLOSED,
                             "most": DISLIKES_TO_CLOSE}, facts=facts)


def _reopened(after: Game, h: ShopReopened) -> Why:
    facts = {"deck_after": after.deck, "dislikes": {p.name: p.dislikes for p in after.players}}
    if h.player is None:
        return Why("sign", "reopened_deck", {"deck": after.deck, "open": OPEN}, facts=facts)
    return Why("sign", "reopened_dislikes", {"player": h.player, "open": OPEN,
                                             "most": DISLIKES_TO_CLOSE}, facts=facts)


def final_round(game: Game, playing: str | None = None) -> Why:
    """"Final round": the shop is closed, the round ends with the seat before the starting
    player; "Last turn!" while that seat plays."""
    last = game.players[game.last_seat].name
    start = game.players[game.start].name
    now = playing if playing is not None else (
        game.players[game.active].name if game.active is not None else None)
    key = "last_turn" if now == last else "final_round"
    return Why("final", key, {"last": last, "start": start, "closed": CLOSED},
               facts={"last_seat": game.last_seat, "start": game.start, "token": game.token})


def ties(game: Game) -> list[Why]:
    """Why each pair of neighbours with equal scores is ordered as it is."""
    ranked = ranking(game)
    by_name = {r.name: r for r in ranked}
    tokens = Word("token", token_id(game.rules.token, 2))
    out = []
    for i, (better, worse, why) in enumerate(tie_break(ranked)):
        a, b = by_name[better], by_name[worse]
        params: dict[str, Any] = {"better": better, "worse": worse, "score": a.score}
        if why == "likes":
            params.update(likes_better=a.likes, likes_worse=b.likes)
        elif why == "cookies":
            params.update(likes=a.likes, tokens=tokens, cookies_better=a.cookies,
                          cookies_worse=b.cookies)
        else:
            params.update(likes=a.likes, tokens=tokens, cookies=a.cookies, place=a.place)
        out.append(Why(f"tie:{i}", f"tie_{why}", params,
                       facts={"better": (a.score, a.likes, a.cookies, a.place),
                              "worse": (b.score, b.likes, b.cookies, b.place)}))
    return out


# --- a refused press or touch ----------------------------------------------------------

def refusal(rejection: Rejection, action: dict | None = None,
            active: str | None = None) -> Why:
    """A refusal's cause: whose turn it was for a seat's press, else what was refused and
    the engine's reason (``rejection`` is rendered in the reader's language)."""
    code, params = rejection.code, rejection.params
    if code == "not_your_turn" and active:
        return Why("refusal", "refused_not_your_turn",
                   {"player": params.get("player", ""), "active": active})
    if code == "buttons_overlap":
        return Why("refusal", "refused_overlap", {"player": params.get("player", "")})
    do = action.get("do") if isinstance(action, dict) else None
    if isinstance(do, str) and do in _ACTION_WORDS:
        return Why("refusal", "refused", {"action": Word("action", do), "reason": rejection})
    return Why("refusal", "refused_line", {"reason": rejection})


_ACTION_WORDS = ("setup", "complete", "activate_upgrade", "spend_cookies", "end_turn", "scan",
                 "correct", "undo", "redo", "cake", "play_cake_card")


# --- what the table shows now ----------------------------------------------------------

def history(table: Table) -> Iterator[tuple[Game, dict, Game]]:
    """(game before, action as recorded, game after) for every action of the running game
    still in effect (undone ones are not), newest first."""
    after = table.game
    for before, action in iter_stack(table.undo):
        if after is None:
            return
        yield before, action, after
        after = before


#: the last undo stacks asked about and whether the sign changed within them (id -> (stack,
#: changed), the newest last): a stack grows by one action at a time, so the next question
#: walks one step down to one of these. The screen asks about the tables it paints ahead too
#: (each likely tap's answer), so enough are kept for the table shown to stay among them.
_sign_changes: dict[int, tuple[tuple[Any, ...], bool]] = {}
_SIGN_CHANGES_KEPT = 64


def _sign_changed_within(stack: tuple[Any, ...]) -> bool:
    """Whether the sign differs between two successive games before the actions of the undo
    ``stack`` (each game before an action against the one before the next newer action)."""
    walked: list[tuple[Any, ...]] = []
    changed, node = False, stack
    while node is not None:
        known = _sign_changes.get(id(node))
        if known is not None and known[0] is node:
            changed = known[1]
            break
        walked.append(node)
        node = node[1]
    for node in reversed(walked):       # oldest first: each adds its step to what is below
        rest = node[1]
        changed = changed or (rest is not None and node[0][0].token != rest[0][0].token)
    _sign_changes.pop(id(stack), None)
    _sign_changes[id(stack)] = (stack, changed)
    while len(_sign_changes) > _SIGN_CHANGES_KEPT:
        del _sign_changes[next(iter(_sign_changes))]
    return changed


def shown(table: Table, pending: dict[str, int]) -> set[str]:
    """The targets ``explanations`` would explain now, found without replaying anything
    (the screen asks this at every update and works a sentence out only when touched)."""
    game = table.game
    if game is None:
        return set()
    out = {f"draw:{p}" for p, n in pending.items() if n}
    out |= {f"dislikes:{p.name}" for p in game.players if p.dislikes}
    if _sign_shown(table, game):
        out.add("sign")
    if game.token == "closed" and not game.game_over and game.active is not None:
        out.add("final")
    out |= {f"score:{p.name}" for p in game.players if p.upgrades}
    if game.game_over:
        out |= {f"tie:{i}" for i in range(len(tie_break(ranking(game))))}
    return out


def _sign_shown(table: Table, game: Game) -> bool:
    """The sign has a cause to tell: CLOSED, or flipped at some point of this game."""
    return game.token == "closed" or (table.undo is not None and (
        table.undo[0][0].token != game.token or _sign_changed_within(table.undo)))


def explanations(table: Table, pending: dict[str, int] | None = None) -> dict[str, Why]:
    """target -> Why for every number or sign the companion set by itself that the table
    shows now. ``pending``: who still has to draw (``draw_prompt.pending_draws``), so a
    "+N" badge is explained only while it is shown (None: whatever the last turn drew)."""
    game = table.game
    out: dict[str, Why] = {}
    if game is None:
        return out
    entries = list(history(table))
    out.update(_last_turn_draws(game, entries, pending))
    out.update(_dislikes_causes(game, entries))
    out.update(_sign_cause(entries))
    out.update(_upgrade_scores(game, entries))
    if game.token == "closed" and not game.game_over and game.active is not None:
        out["final"] = final_round(game)
    if game.game_over:
        out.update((w.target, w) for w in ties(game))
    return out


Entries = list[tuple[Game, dict, Game]]


def _rulings_of(before: Game, action: dict, after: Game) -> list[Why]:
    """The rulings of one recorded action (its happenings worked out again)."""
    return rulings(before, action, happenings_of(before, action), after)


def _last_turn_draws(game: Game, entries: Entries,
                     pending: dict[str, int] | None) -> dict[str, Why]:
    """The "+N" badges of the draws the turn that just ended made (those still pending)."""
    for before, action, after in entries:
        if before.turn < game.turn - 1:
            break
        if action.get("do") == "end_turn" and before.turn == game.turn - 1:
            out: dict[str, Why] = {}
            for w in _rulings_of(before, action, after):
                name = w.target.partition(":")[2]
                if w.target.startswith("draw:") and (pending is None or pending.get(name)):
                    out.setdefault(w.target, w)
            return out
    return {}


def _dislikes_causes(game: Game, entries: Entries) -> dict[str, Why]:
    """Each player's dislikes: the newest action that changed them."""
    out: dict[str, Why] = {}
    wanted = {p.name for p in game.players if p.dislikes > 0}
    for before, action, after in entries:
        if not wanted:
            break
        changed = {p.name for p, q in zip(before.players, after.players, strict=True)
                   if p.dislikes != q.dislikes and p.name in wanted}
        if not changed:
            continue
        for w in _rulings_of(before, action, after):
            if w.target.startswith("dislikes:") and w.target.partition(":")[2] in changed:
                out.setdefault(w.target, w)
        wanted -= changed
    return out


def _sign_cause(entries: Entries) -> dict[str, Why]:
    """The sign: the newest action that flipped it."""
    for before, action, after in entries:
        if before.token != after.token:
            sign = next((w for w in _rulings_of(before, action, after) if w.target == "sign"),
                        None)
            return {} if sign is None else {"sign": sign}
    return {}


def _upgrade_scores(game: Game, entries: Entries) -> dict[str, Why]:
    """The score of each player with an upgrade: the newest upgrade they flipped paid 3
    likes and scores the tile's points (Winter: 3 × 2 paid, +5), so it dropped by the
    difference, from the score before to the score after (the running game's history
    holds every action since its setup)."""
    out: dict[str, Why] = {}
    e = game.rules
    paid, tile = UPGRADE_COST * e.like_points, e.upgrade_points
    wanted = {p.name for p in game.players if p.upgrades}
    for before, action, after in entries:
        if not wanted:
            break
        if action.get("do") != "activate_upgrade" or before.active is None:
            continue
        me = before.players[before.active]
        if me.name not in wanted:
            continue
        wanted.discard(me.name)
        was, now = score(game.edition, me), score(game.edition, after.players[before.active])
        out[f"score:{me.name}"] = Why(
            f"score:{me.name}", "score_upgrade",
            {"player": me.name, "upgrade": Word("upgrade", str(action.get("upgrade"))),
             "likes": UPGRADE_COST, "paid": paid, "tile": tile, "before": was, "after": now},
            facts={"before": was, "after": now, "paid": paid, "tile": tile})
    return out
