"""The rules engine: apply(table, action) -> Accepted | Rejection.

Pure: no I/O, no clock, no randomness. The input table is never changed; an
accepted action returns a new table and what happened, in table terms.
Spec: ../shared/specs/table-script.md, "Rules the engine applies".
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Callable

from . import cakes
from .actions import UNDOABLE, Action
from .editions import CUPS, DISLIKES_TO_CLOSE, RULES, UPGRADE_COST, UPGRADE_TILES, VARIANTS
from .happenings import (CardIdentified, Corrected, Happening, OrderCompleted, Redone,
                         RankingChanged, ShopReopened, Stalled, TokensGained, TokensSpent,
                         Undone, UpgradeActivated)
from .rejections import Rejection, reject, token_id
from .scoring import ranking, winners
from .setup import start_game
from .state import Card, GameDraft, GameReads, PlayerDraft, PlayerReads, Table, push
from .turn import check_dislikes, close_shop, end_turn, is_stalled


@dataclass(frozen=True)
class Accepted:
    """An accepted action: the new table, what happened, and the action as it must be
    recorded: with every fact that decided it (a completion the card catalog made a
    specialty carries ``"specialty": true``), so it replays the same without the catalog."""
    table: Table
    happened: tuple[Happening, ...]
    action: Action


Outcome = Accepted | Rejection
NO_SPECIALTIES: frozenset[str] = frozenset()


def apply(table: Table, action: Action, specialty_tags: frozenset[str] = NO_SPECIALTIES,
          rules_version: str = RULES) -> Outcome:
    """Apply one validated action (see ``actions.parse_action``).

    ``specialty_tags``: tags the card catalog marks as specialty-menu orders.
    ``rules_version``: the table-script version a ``setup`` starts its game under (a
    running game keeps the version it was started under).
    """
    do = action["do"]
    if do == "setup":
        return _setup(table, action, rules_version)
    if do == "undo":
        return _undo(table)
    if do == "redo":
        return _redo(table)
    game = table.game
    if game is None:
        return reject("no_game")
    g = game.draft()
    result: list[Happening] | Rejection
    if do == "correct":
        result = _correct(g, action)
    elif game.game_over or g.active is None:        # only a game over has no active player
        return reject("game_over")
    else:
        result = _STEPS[do](g, g.players[g.active], action, specialty_tags)
    if isinstance(result, Rejection):
        return result
    stalled_before = is_stalled(game)
    if do != "end_turn" and not stalled_before and is_stalled(g):
        result.append(Stalled("all_queues_empty"))
    recorded = _as_recorded(action, result)
    # Any accepted action other than setup/undo/redo can be undone and clears redo.
    undo = push(table.undo, (game, recorded)) if do in UNDOABLE else table.undo
    new = Table(g.freeze(), undo, None)
    return Accepted(new, tuple(result), recorded)


def _as_recorded(action: Action, happened: list[Happening]) -> Action:
    """The action with the specialty that decided its completion written into it."""
    if action.get("specialty") is not True and any(
            isinstance(h, OrderCompleted) and h.specialty for h in happened):
        return {**action, "specialty": True}
    return action


def _setup(table: Table, a: Action, rules_version: str) -> Outcome:
    if table.game is not None and not table.game.game_over:
        return reject("game_running")
    started = start_game(a, rules_version)
    if isinstance(started, Rejection):
        return started
    game, happened = started
    return Accepted(Table(game, None, None), (happened,), a)


def _undo(table: Table) -> Outcome:
    if table.undo is None:
        return reject("nothing_to_undo")
    (before, action), rest = table.undo
    return Accepted(Table(before, rest, push(table.redo, action)), (Undone(action),),
                    {"do": "undo"})


def _redo(table: Table) -> Outcome:
    if table.redo is None:
        return reject("nothing_to_redo")
    action, rest = table.redo
    # The undone action was kept as recorded (its specialty resolved): no catalog now, so
    # a redo does what the journal's replay of "redo" does.
    again = apply(Table(table.game, table.undo, None), action)
    if isinstance(again, Rejection):      # cannot happen: same state, same action
        return again
    return Accepted(Table(again.table.game, again.table.undo, rest),
                    (Redone(action),) + again.happened, {"do": "redo"})


# --- the actions of a running game: each changes the draft ``g`` in place ---------
# ``me`` is the active player of ``g``: a running game always has one.

Step = Callable[[GameDraft, PlayerDraft, Action, frozenset[str]], "list[Happening] | Rejection"]


def _complete(g: GameDraft, me: PlayerDraft, a: Action, specialty_tags: frozenset[str]
              ) -> list[Happening] | Rejection:
    if me.order_count() == 0:
        return reject("queue_empty", player=me.name)
    if g.completed_this_turn >= CUPS:
        return reject("three_orders", player=me.name)
    slot = a.get("slot")
    if slot is not None and not me.queue[slot - 1]:
        return reject("slot_empty", player=me.name, slot=slot)
    picked = _order_to_complete(g, me, a)
    if isinstance(picked, Rejection):
        return picked
    pos, card = picked
    me.queue[pos].remove(card)
    me.likes += 1
    g.completed_this_turn += 1
    specialty = bool(a.get("specialty")) or (card.tag is not None and card.tag in specialty_tags)
    out: list[Happening] = [OrderCompleted(me.name, pos + 1, card.tag, specialty, card.cake)]
    if specialty:
        me.cookies += 1
        g.tokens_won_this_turn += 1
        out.append(TokensGained(me.name, 1, "specialty"))
    cakes.completed(me, card, out)
    if VARIANTS[g.variant].close_when_queue_empty and me.order_count() == 0:
        close_shop(g, "orders_done", me.name, out)
    return out


def _order_to_complete(g: GameDraft, me: PlayerDraft, a: Action
                       ) -> tuple[int, Card] | Rejection:
    """Which order ``complete`` takes: (position index, card). With ``cake``, the first
    with (or without) a cake; with ``card``, that card (in ``slot``, if named); else the
    first of ``slot``, or of the highest position holding one."""
    slot, tag = a.get("slot"), a.get("card")
    if "cake" in a:
        return _caked_or_not(g, me, slot, tag, a["cake"])
    if tag is None:
        pos = slot - 1 if slot is not None else max(i for i in range(4) if me.queue[i])
        return pos, me.queue[pos][0]
    found = me.find(tag)
    if slot is not None and found != slot - 1:
        return reject("card_not_in_slot", card=tag, slot=slot, player=me.name)
    if found is None:
        return reject("card_not_in_queue", card=tag, player=me.name)
    return found, next(c for c in me.queue[found] if c.tag == tag)


def _caked_or_not(g: GameDraft, me: PlayerDraft, slot: int | None, tag: str | None,
                  cake: bool) -> tuple[int, Card] | Rejection:
    """``complete`` with ``cake`` (1.2, Cake Time): the first order of ``slot`` with (or
    without) a cake, else of the highest position holding one; (position index, card)."""
    if g.expansion is None:
        return reject("not_cake_time")
    if tag is not None:
        return reject("cake_with_card")
    positions = [slot - 1] if slot is not None else [i for i in reversed(range(4))]
    for pos in positions:
        card = next((c for c in me.queue[pos] if c.cake == cake), None)
        if card is not None:
            return pos, card
    return reject("no_caked_order" if cake else "no_uncaked_order", player=me.name,
                  slot=slot or 0)


def _activate_upgrade(g: GameDraft, me: PlayerDraft, a: Action, _tags: frozenset[str]
                      ) -> list[Happening] | Rejection:
    u = a["upgrade"]
    refused = upgrade_refusal(g, me, u)
    if refused is not None:
        return refused
    me.likes -= UPGRADE_COST
    me.discarded_likes += UPGRADE_COST
    me.upgrades += (u,)
    g.upgraded_this_turn = True
    return [UpgradeActivated(me.name, u)]


def upgrade_refusal(g: GameReads, me: PlayerReads, u: str) -> Rejection | None:
    """Why the active player ``me`` of the running game ``g`` may not activate upgrade
    ``u`` now, or None: what ``activate_upgrade`` checks, asked without applying it (a
    screen offering UPGRADE asks it of every tile, on every update)."""
    tokens = token_id(g.rules.token)
    if not VARIANTS[g.variant].upgrades:
        return reject("upgrade_in_junior")
    if g.completed_this_turn or g.spent_this_turn:
        return reject("upgrade_too_late", player=me.name, tokens=tokens)
    if g.upgraded_this_turn:
        return reject("upgrade_once", player=me.name)
    if me.likes < UPGRADE_COST:
        return reject("upgrade_needs_likes", player=me.name, likes=me.likes)
    if u not in me.tiles:
        return reject("upgrade_not_tile", upgrade=u, player=me.name)
    if u in me.upgrades:
        return reject("upgrade_active", upgrade=u, player=me.name)
    if not g.open_tiles:
        return None
    if g.version.tiles_per_player:      # 1.3: a player board holds 4 tiles
        if len(me.upgrades) >= UPGRADE_TILES:
            return reject("upgrade_fifth_own_tile", upgrade=u, player=me.name,
                          tiles=tuple(me.upgrades))
        return None
    in_play = g.tiles_in_play()         # 1.2: 4 different ones in the whole game
    if u not in in_play and len(in_play) >= UPGRADE_TILES:
        return reject("upgrade_fifth_tile", upgrade=u, tiles=tuple(sorted(in_play)))
    return None


def _spend_cookies(g: GameDraft, me: PlayerDraft, a: Action, _tags: frozenset[str]
                   ) -> list[Happening] | Rejection:
    count = a["count"]
    if count > me.cookies:
        return reject("not_enough_tokens", player=me.name, have=me.cookies, count=count,
                      tokens=token_id(g.rules.token, me.cookies))
    may = g.spendable_tokens(me)
    if count > may:       # 1.2: tokens are spent while moving, before any order is completed
        return reject("tokens_won_this_turn", player=me.name, have=may, count=count,
                      won=g.tokens_won_this_turn, tokens=token_id(g.rules.token, may))
    me.cookies -= count
    g.spent_this_turn = True
    return [TokensSpent(me.name, count)]


def _end_turn(g: GameDraft, me: PlayerDraft, _a: Action, _tags: frozenset[str]) -> list[Happening]:
    return end_turn(g, g.players.index(me))


def _scan(g: GameDraft, me: PlayerDraft, a: Action, specialty_tags: frozenset[str]
          ) -> list[Happening] | Rejection:
    tag = a["tag"]
    if me.find(tag) is not None:
        completion = {"do": "complete", "card": tag}
        if "specialty" in a:
            completion["specialty"] = a["specialty"]
        return _complete(g, me, completion, specialty_tags)
    for p in g.players:
        if p.find(tag) is not None:
            return reject("scan_other_queue", tag=tag, owner=p.name, player=me.name)
    if tag in g.used_tags:
        return reject("scan_used", tag=tag)
    waiting = [(c.serial, p, i, j) for p in g.players for i, pos in enumerate(p.queue)
               for j, c in enumerate(pos) if c.tag is None]
    if not waiting:
        return reject("scan_nothing_waiting", tag=tag)
    serial, owner, i, j = min(waiting, key=lambda w: w[0])
    owner.queue[i][j] = replace(owner.queue[i][j], tag=tag)
    g.used_tags = g.used_tags | {tag}
    return [CardIdentified(owner.name, i + 1, tag)]


def _correct(g: GameDraft, a: Action) -> list[Happening] | Rejection:
    """``correct``: also after the game is over (then the ranking is recomputed)."""
    out: list[Happening] = []
    rules = VARIANTS[g.variant]
    if "deck" in a:
        if len(a) > 2:
            return reject("correct_deck_alone")
        out.append(Corrected(None, "deck", g.deck, a["deck"]))
        g.deck = a["deck"]
    else:
        counted = _correct_counts(g, a, out)
        if counted is not None:
            return counted
    g.corrected = True
    if g.game_over:
        ranked = ranking(g)
        out.append(RankingChanged(ranked, winners(ranked)))
    else:
        check_dislikes(g, out)
        if "deck" in a and g.deck == 0 and rules.order_surge:
            close_shop(g, "deck_empty", None, out)     # the deck ran out (spec 1.1)
        _reopen_if_no_reason(g, out)
    return out


def _correct_counts(g: GameDraft, a: Action, out: list[Happening]) -> Rejection | None:
    """A player's likes, dislikes, tokens or cake cards set by hand; None when done."""
    fields = [f for f in ("likes", "dislikes", "cookies", "cake_cards") if f in a]
    if fields and "player" not in a:
        return reject("correct_no_player", fields=tuple(fields))
    if not fields:
        return reject("correct_nothing")
    if "cake_cards" in fields and g.expansion is None:
        return reject("not_cake_time")
    if "dislikes" in a and not VARIANTS[g.variant].flow_of_time:
        return reject("junior_no_dislikes")
    seat = g.seat_of(a["player"])
    if seat is None:
        return reject("unknown_player", player=a["player"])
    p = g.players[seat]
    for f in fields:
        out.append(Corrected(p.name, f, getattr(p, f), a[f]))
        setattr(p, f, a[f])
    return None


def _reopen_if_no_reason(g: GameDraft, out: list[Happening]) -> None:
    """A correction is a miscount put right (1.2): in a running standard game, once the
    deck holds cards and nobody has 5 dislikes, a closed token turns back to open and the
    round is no longer the last."""
    if (g.token != "closed" or not g.version.correction_reopens
            or not VARIANTS[g.variant].order_surge or g.deck == 0
            or any(p.dislikes >= DISLIKES_TO_CLOSE for p in g.players)):
        return
    out.append(ShopReopened(g.closed_reason or "", _removed_reason_player(g, out)))
    g.token = "open"
    g.closed_reason = None


def _removed_reason_player(g: GameDraft, out: list[Happening]) -> str | None:
    """Whose count the correction changed (the player named in the correction)."""
    return next((h.player for h in out if isinstance(h, Corrected) and h.player), None)


_STEPS: dict[str, Step] = {
    "complete": _complete,
    "activate_upgrade": _activate_upgrade,
    "spend_cookies": _spend_cookies,
    "end_turn": _end_turn,
    "scan": _scan,
    "cake": lambda g, _me, a, _tags: cakes.put_cake(g, a),
    "play_cake_card": lambda g, me, _a, _tags: cakes.play_cake_card(g, me),
}
