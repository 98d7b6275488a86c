"""Small helpers to drive the pure engine from table-script objects."""
from companion.core.rules import Rejection, Table, apply, parse_action


def step(table, action, tags=frozenset()):
    a = parse_action(action)
    if isinstance(a, Rejection):
        return table, a, ()
    out = apply(table, a, tags)
    if isinstance(out, Rejection):
        return table, out, ()
    return out.table, None, out.happened


def play(*actions, table=None, tags=frozenset()):
    """Apply actions in order; raise on any rejection. Returns (table, happenings)."""
    table = table or Table()
    happened = []
    for a in actions:
        table, rej, h = step(table, a, tags)
        if rej is not None:
            raise AssertionError(f"{a} rejected: {rej.text}")
        happened.extend(h)
    return table, happened


def rejected(table, action, tags=frozenset()):
    """The rejection code of an action that must be rejected."""
    new, rej, _ = step(table, action, tags)
    assert rej is not None, f"{action} was accepted"
    assert new is table
    return rej


def setup(edition="original", players=("Ana", "Ben", "Chloe"), **kw):
    return {"do": "setup", "edition": edition, "players": list(players), **kw}


def queue_sizes(game, name):
    p = next(p for p in game.players if p.name == name)
    return [len(pos) for pos in p.queue]


def player(game, name):
    return next(p for p in game.players if p.name == name)


END = {"do": "end_turn"}
DONE = {"do": "complete"}
