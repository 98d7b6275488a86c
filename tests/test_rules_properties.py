"""Property tests over random sequences of legal and illegal table-script actions."""
import copy
import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.journal import Journal
from companion.core.rules import Rejection, Table, apply, parse_action, upgrade_refusal
from companion.core.rules.editions import CAKE_TIME_UPGRADES, WINTER_UPGRADES
from companion.core.rules.happenings import CakePlaced, CakesReturned, OrderCompleted
from companion.core.rules.state import stack_items
from companion.core.session import Session

NAMES = ["Ana", "Ben", "Chloe", "Dae"]
TAGS = ["T1", "T2", "T3", "T4", "T5", "T6"]
WEIGHTS = {"original": (1, 2, -1), "winter": (2, 5, -1)}

setups = st.builds(
    lambda edition, n, start, variant, ristretto: {
        "do": "setup", "edition": edition, "players": NAMES[:n], "start": NAMES[start % n],
        **({"variant": variant} if variant else {}),
        **({"ristretto_start": True} if ristretto else {})},
    st.sampled_from(["original", "winter"]), st.integers(2, 4), st.integers(0, 3),
    st.sampled_from([None, None, "junior"]), st.booleans())

cake_setups = st.builds(
    lambda n, start, ristretto, longer, two, tiles: {
        "do": "setup", "edition": "original", "players": NAMES[:n], "start": NAMES[start % n],
        "expansion": "cake_time", "ristretto_start": ristretto, "longer_game": longer,
        "two_drinks_one_cake": two, **({"upgrades": tiles} if tiles else {})},
    st.integers(2, 4), st.integers(0, 3), st.booleans(), st.booleans(), st.booleans(),
    st.sampled_from([None, ["break_time", "storage", "double_destination", "double_corners"]]))

actions = st.one_of(
    setups,
    st.just({"do": "complete"}).filter(lambda _: True),
    st.builds(lambda s: {"do": "complete", "slot": s}, st.integers(1, 4)),
    st.builds(lambda t: {"do": "complete", "card": t}, st.sampled_from(TAGS)),
    st.just({"do": "complete", "specialty": True}),
    st.just({"do": "end_turn"}), st.just({"do": "end_turn"}), st.just({"do": "end_turn"}),
    st.builds(lambda u: {"do": "activate_upgrade", "upgrade": u}, st.sampled_from(WINTER_UPGRADES)),
    st.builds(lambda c: {"do": "spend_cookies", "count": c}, st.integers(1, 3)),
    st.builds(lambda t: {"do": "scan", "tag": t}, st.sampled_from(TAGS)),
    st.builds(lambda n, k, v: {"do": "correct", "player": NAMES[n], k: v},
              st.integers(0, 3), st.sampled_from(["likes", "dislikes", "cookies"]),
              st.integers(0, 6)),
    st.builds(lambda v: {"do": "correct", "deck": v}, st.integers(0, 5)),
    st.just({"do": "undo"}), st.just({"do": "redo"}),
    st.just({"do": "complete", "slot": 0}),          # malformed value
    st.just({"do": "end_turn", "extra": 1}),         # unknown key
)

# Cake Time: the same actions plus cakes, cake cards and Break Time.
cake_actions = st.one_of(
    actions, cake_setups, *[st.just({"do": "end_turn"})] * 6,
    st.just({"do": "complete"}), st.just({"do": "complete"}),
    st.builds(lambda n: {"do": "cake", "player": NAMES[n]}, st.integers(0, 3)),
    st.builds(lambda n, s: {"do": "cake", "player": NAMES[n], "slot": s},
              st.integers(0, 3), st.integers(1, 4)),
    st.builds(lambda n, t: {"do": "cake", "player": NAMES[n], "card": t},
              st.integers(0, 3), st.sampled_from(TAGS)),
    st.just({"do": "play_cake_card"}),
    st.builds(lambda c: {"do": "complete", "cake": c}, st.booleans()),     # 1.2, no scanner
    st.builds(lambda c, s: {"do": "complete", "cake": c, "slot": s}, st.booleans(),
              st.integers(1, 4)),
    st.builds(lambda u: {"do": "activate_upgrade", "upgrade": u},
              st.sampled_from(CAKE_TIME_UPGRADES)),
    st.builds(lambda n, v: {"do": "correct", "player": NAMES[n], "cake_cards": v},
              st.integers(0, 3), st.integers(0, 3)),
)

sequences = st.lists(actions, min_size=1, max_size=60).map(
    lambda xs: [{"do": "setup", "edition": "original", "players": NAMES[:3]}] + xs)
cake_sequences = st.tuples(cake_setups, st.lists(cake_actions, min_size=25, max_size=60)).map(
    lambda t: [t[0]] + t[1])


def positions(game):
    return {c.serial: (p.name, i) for p in game.players for i, pos in enumerate(p.queue)
            for c in pos}


def cakes_on_cards(game):
    return 0 if game is None else sum(p.cakes() for p in game.players)


def cakes_moved(happened):
    """Cakes put on cards minus cakes back to the supply, by what the engine reported."""
    placed = sum(isinstance(h, CakePlaced) for h in happened)
    back = sum(h.cake for h in happened if isinstance(h, OrderCompleted))
    back += sum(h.count for h in happened if isinstance(h, CakesReturned))
    return placed - back


def check_invariants(game):
    if not game.corrected:
        assert game.total_cards() == game.rules.deck_size   # cards are conserved
        assert game.deck >= 0
    if game.expansion is None:                             # no cakes outside Cake Time
        assert cakes_on_cards(game) == 0 and all(p.cake_cards == 0 for p in game.players)
    assert all(p.cake_cards >= 0 for p in game.players)
    like, up, dis = WEIGHTS[game.edition]
    from companion.core.rules.view import table_json
    view = table_json(Table(game))
    for p, shown in zip(game.players, view["players"], strict=False):
        assert shown["score"] == p.likes * like + len(p.upgrades) * up + p.dislikes * dis
    if game.game_over:
        assert game.active is None and view["ranking"]
    else:
        assert 0 <= game.active < len(game.players)


def untouched(table):
    """What an action must leave as it was: the game, the stacks, the snapshots on top."""
    tops = [stack[0] for stack in (table.undo, table.redo) if stack is not None]
    return (copy.deepcopy(table.game), copy.deepcopy(tops), table.undo, table.redo)


def run(seq):
    """Apply a sequence checking the step properties; returns the final table and accepted list."""
    table = Table()
    accepted = []
    for raw in seq:
        action = parse_action(raw)
        # the stacks are immutable tuples: a copy of the games they can reach next is enough
        # (a deep copy of the whole history at every step made long games quadratic)
        before = untouched(table)
        out = action if isinstance(action, Rejection) else apply(table, action)
        if isinstance(out, Rejection):
            assert untouched(table) == before            # a rejected action changes nothing
            continue
        assert untouched(table) == before                # the input table was not mutated
        new = out.table
        do = action["do"]
        accepted.append(action)
        if new.game is not None:
            check_invariants(new.game)
        if do in ("complete", "activate_upgrade", "spend_cookies", "scan", "correct"):
            # only the flow of time moves cards down
            old, now = positions(table.game), positions(new.game)
            assert all(now[s] == old[s] for s in now if s in old)
        if do == "end_turn":
            old, now = positions(table.game), positions(new.game)
            active = table.game.active_player.name
            for s, (name, i) in now.items():
                if s in old and old[s][0] == name:
                    moved = name == active and table.game.variant != "junior"
                    assert i == old[s][1] + (1 if moved else 0)
        if do == "complete" and "cake" in action:
            # 1.2: the order taken has (or has not) a cake, the first such card of the
            # position named, else of the highest position holding one
            done = next(h for h in out.happened if isinstance(h, OrderCompleted))
            me = table.game.active_player
            assert done.cake == action["cake"]
            slots = [action["slot"]] if "slot" in action else \
                [i + 1 for i in reversed(range(4)) if any(c.cake == action["cake"]
                                                           for c in me.queue[i])][:1]
            assert done.position == slots[0]
            first = next(c for c in me.queue[done.position - 1] if c.cake == action["cake"])
            assert positions(new.game).get(first.serial) is None     # that very card went
        if do == "spend_cookies" and table.game.version.spend_waits_for_next_turn:
            # 1.2: never a token this turn's orders gave
            me = table.game.active_player
            assert action["count"] <= me.cookies - table.game.tokens_won_this_turn
            assert new.game.active_player.cookies >= new.game.tokens_won_this_turn
        if do not in ("setup", "undo", "redo"):
            # a cake is on exactly one card or in the supply: every move is reported
            assert cakes_on_cards(new.game) == cakes_on_cards(table.game) + \
                cakes_moved(out.happened)
            undone = apply(new, {"do": "undo"})
            assert not isinstance(undone, Rejection)
            assert undone.table.game == table.game        # undo restores the exact state
        table = new
    return table, accepted


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sequences)
def test_step_properties(seq):
    run(seq)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cake_sequences)
def test_cake_time_step_properties(seq):
    run(seq)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(sequences, cake_sequences))
def test_replaying_the_journal_gives_the_live_state(seq):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "j.db")
        with Journal(path, durable=False) as journal:
            live = Session(journal)
            for raw in seq:
                a = parse_action(raw)
                if not isinstance(a, Rejection):
                    live.apply(a)
        with Journal(path) as journal:
            resumed = Session(journal)
        assert resumed.table.game == live.table.game
        assert [g for g, _ in stack_items(resumed.table.undo)] == \
            [g for g, _ in stack_items(live.table.undo)]
        assert stack_items(resumed.table.redo) == stack_items(live.table.redo)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([{"do": "complete"}, {"do": "end_turn"}, {"do": "end_turn"}]),
                min_size=1, max_size=200), st.sampled_from(["original", "winter"]),
       st.integers(2, 4))
def test_legal_games_keep_every_invariant(seq, edition, n):
    table, _ = run([{"do": "setup", "edition": edition, "players": NAMES[:n]}] + seq)
    assert table.game is not None


spend_turns = st.lists(st.one_of(
    st.builds(lambda s: {"do": "complete", "specialty": s}, st.booleans()),
    st.builds(lambda s: {"do": "scan", "tag": f"S{s}", "specialty": True}, st.integers(1, 9)),
    st.builds(lambda c: {"do": "spend_cookies", "count": c}, st.integers(1, 4)),
    st.builds(lambda n, c: {"do": "correct", "player": NAMES[n], "cookies": c},
              st.integers(0, 2), st.integers(0, 3)),
    st.just({"do": "end_turn"})), min_size=5, max_size=60)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["original", "winter"]), st.integers(2, 3), spend_turns)
def test_a_spend_is_accepted_exactly_when_it_leaves_this_turns_tokens_unspent(edition, n, seq):
    """Table script 1.2 ``spend_cookies``, counted here from what the engine reported, not
    from its own bookkeeping: a spend is accepted if and only if it is at most the active
    player's tokens less those their orders gave this turn, whichever was recorded first."""
    from companion.core.rules.happenings import TokensGained, TurnChanged
    table = apply(Table(), {"do": "setup", "edition": edition, "players": NAMES[:n]}).table
    won = 0                                     # tokens this turn's orders gave, as reported
    for action in seq:
        game = table.game
        if game.game_over:
            break
        out = apply(table, action)
        if action["do"] == "spend_cookies":
            may = game.active_player.cookies - won
            assert isinstance(out, Rejection) == (action["count"] > may), (action, may)
        if isinstance(out, Rejection):
            continue
        for h in out.happened:
            if isinstance(h, TokensGained) and h.reason == "specialty":
                won += h.count
            elif isinstance(h, TurnChanged):
                won = 0
        table = out.table


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(sequences, cake_sequences))
def test_upgrade_refusal_answers_as_activating_the_upgrade_does(seq):
    """``upgrade_refusal`` (what the screen asks of every tile to offer UPGRADE) refuses
    exactly what applying ``activate_upgrade`` refuses, with the same rejection."""
    table = Table()
    for raw in seq:
        action = parse_action(raw)
        out = action if isinstance(action, Rejection) else apply(table, action)
        if not isinstance(out, Rejection):
            table = out.table
        game = table.game
        if game is None or game.game_over or game.active_player is None:
            continue
        me = game.active_player
        for u in sorted(set(WINTER_UPGRADES) | set(CAKE_TIME_UPGRADES) | set(me.tiles)):
            applied = apply(table, {"do": "activate_upgrade", "upgrade": u})
            refused = upgrade_refusal(game, me, u)
            assert refused == (applied if isinstance(applied, Rejection) else None)
