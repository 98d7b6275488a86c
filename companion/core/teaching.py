"""Learn while playing: which moment of a game teaches which rule.

The teaching sequence is data (``SEQUENCE``): each step names a hint (its words are
``teach.<key>`` in the locale files) and the moment that first calls for it, either a
happening of the rules engine (``on="order_completed"``) or a state of the table when a
turn begins (``on="turn_start"``, with a test such as "the active player may flip an
upgrade tile"). Nothing here draws or speaks: ``Teacher`` turns what the table loop
reports into the hints due now; the touchscreen shows them
(``companion/outputs/screen/teaching_view.py``)
and the voice says them.

Each hint is taught once per game. A hint counts as taught once its moment has come in
the game, whether the table had teaching on then or not, so which hints a game has
passed follows from the game alone: ``Teacher.replay`` plays the game's journal lines
again (the journal is the truth) and a restart or a resumed game teaches only what is
still to come, never the whole sequence again.

A table's next game (a rematch, a new game) teaches only what the table has not read yet:
``Teacher.carried``, the hints read in this session's earlier games (the screen keeps
them, ``teaching_view.Teaching.read``), count as taught from the new game's start. That is
the screen's memory, not the game's: nothing of it is journaled, a game replays the same.

Pure: no pygame, no clock, no I/O (the words come from ``companion.words.i18n``'s tables).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .rules import Accepted, Game, Rejection, Table, apply, parse_line
from .rules.editions import RULES
from .rules.happenings import GameStarted, Happening, TurnChanged
from companion.words import i18n

#: a hint: its key (``teach.<key>``) and the values its sentence names
Params = dict[str, Any]


@dataclass(frozen=True)
class Hint:
    key: str
    params: tuple = ()               # (name, value) pairs: hashable, comparable

    @property
    def values(self) -> Params:
        return dict(self.params)


@dataclass(frozen=True)
class Step:
    """Teach ``key`` the first time ``on`` happens (a happening's kind, or
    ``"turn_start"``: a turn begins), if ``only`` (a name in ``TESTS``) holds."""
    key: str
    on: str
    only: str | None = None


#: The teaching sequence: which moment first calls for which hint. Several hints due at
#: the same moment are shown in this order.
SEQUENCE: tuple[Step, ...] = (
    # before the first turn: the goal, what a turn is, the seat button
    Step("goal", on="game_started"),
    Step("turn", on="game_started"),
    Step("button", on="game_started"),
    # the first time each thing happens
    Step("order_completed", on="order_completed"),
    Step("cake", on="cake_placed"),
    Step("order_surge", on="cards_to_draw", only="order_surge"),
    Step("flow_of_time", on="orders_moved_down"),
    Step("dislike", on="dislikes_taken"),
    Step("two_player_draw", on="cards_to_draw", only="two_player_draw"),
    Step("shop_closed", on="shop_closed"),
    Step("scoring", on="game_over"),
    # states, when a turn begins (the first turn too)
    Step("upgrade", on="turn_start", only="can_upgrade"),
    Step("spend", on="turn_start", only="can_spend"),
)

#: A variant whose rules differ says it in its own words: (key, variant) -> key.
VARIANT_KEYS = {("turn", "junior"): "turn_junior"}

#: Every hint key the locale files must have (``teach.<key>``).
HINT_KEYS: tuple[str, ...] = tuple(dict.fromkeys(
    [s.key for s in SEQUENCE] + list(VARIANT_KEYS.values()) + ["order_surge_one"]))

#: The actions that move the game on: the next one of these dismisses the hints on the
#: screen (scanning the dealt cards or marking a cake does not).
DISMISSING = frozenset({"complete", "end_turn", "activate_upgrade", "spend_cookies",
                        "play_cake_card", "undo", "redo", "correct", "setup"})


# --- the tests and the sentences' values ---------------------------------------------------

def _can_upgrade(table: Table, h: Any) -> bool:
    """The active player may flip an upgrade tile now (the engine says so)."""
    game = table.game
    me = game.active_player if game is not None and not game.game_over else None
    if me is None:
        return False
    return any(isinstance(apply(table, {"do": "activate_upgrade", "upgrade": u}), Accepted)
               for u in me.tiles if u not in me.upgrades)


def _can_spend(table: Table, h: Any) -> bool:
    game = table.game
    if game is None or game.game_over or game.active_player is None:
        return False
    return game.spendable_tokens(game.active_player) > 0


TESTS: dict[str, Callable[[Table, Any], bool]] = {
    "order_surge": lambda table, h: h.reason == "order_surge" and bool(h.draws),
    "two_player_draw": lambda table, h: h.reason == "two_player_draw",
    "can_upgrade": _can_upgrade,
    "can_spend": _can_spend,
}


def _values(key: str, game: Game, h: Any) -> Params:
    """What the hint ``key`` names, from the happening ``h`` (None for a turn start) and
    the game after it."""
    out: Params = {"edition": game.edition}
    me = game.active_player if not game.game_over else None
    if key in ("upgrade", "spend") and me is not None:
        e = game.rules           # the score after an upgrade: likes paid, the tile's points
        out.update(player=me.name, likes=me.likes,
                   count=game.spendable_tokens(me), paid=3 * e.like_points,
                   tile=e.upgrade_points)
    elif key == "order_surge":
        drawers = [name for name, _ in h.draws]
        seat = game.seat_of(drawers[0]) or 0
        n = len(game.players)
        out.update(player=game.players[(seat - 1) % n].name, drawers=drawers,
                   count=max(c for _, c in h.draws))
    elif key == "two_player_draw":
        out.update(player=h.draws[0][0])
    elif key == "shop_closed":
        out.update(player=game.players[game.last_seat].name)
    elif key == "scoring":
        e = game.rules
        out.update(like=e.like_points, upgrade=e.upgrade_points, dislike=-e.dislike_points)
    elif h is not None and hasattr(h, "player"):
        out.update(player=h.player)
    return out


# --- the teacher ---------------------------------------------------------------------------

def _moment(step: Step, happened: list[Happening], table: Table,
            turn_start: bool) -> tuple[bool, Happening | None]:
    """Whether ``step``'s moment came with this update, and the happening that brought it
    (None at a turn's start)."""
    if step.on == "turn_start":
        return turn_start and TESTS[step.only or ""](table, None), None
    cause = next((h for h in happened if h.kind == step.on
                  and (step.only is None or TESTS[step.only](table, h))), None)
    return cause is not None, cause


def _hint(step: Step, game: Game, cause: Happening | None) -> Hint:
    """The hint ``step`` gives in this game (its variant's words, one drawer or more)."""
    key = VARIANT_KEYS.get((step.key, game.variant), step.key)
    values = _values(step.key, game, cause)
    if key == "order_surge" and len(values["drawers"]) == 1:
        key = "order_surge_one"
    return Hint(key, tuple(sorted((k, _frozen(v)) for k, v in values.items())))


@dataclass
class Teacher:
    """Which hints a game has passed (``taught``), and the new ones each update brings;
    ``carried``: the steps a new game counts as taught from its start (read before)."""
    taught: set[str] = field(default_factory=set)
    carried: frozenset[str] = frozenset()

    def observe(self, happened: Iterable[Happening], table: Table) -> list[Hint]:
        """The hints this update calls for (in ``SEQUENCE`` order), each marked taught.
        ``happened``: what one accepted action did; ``table``: the table after it."""
        happened = list(happened)
        if any(isinstance(h, GameStarted) for h in happened):
            self.taught = set(self.carried)  # a new game: all but what was read is to teach
        game = table.game
        if game is None:
            return []
        turn_start = any(isinstance(h, (GameStarted, TurnChanged)) for h in happened)
        out: list[Hint] = []
        for step in SEQUENCE:
            if step.key in self.taught:
                continue
            came, cause = _moment(step, happened, table, turn_start)
            if not came and step.on == "game_started" and turn_start:
                came = True           # an intro put away unread comes at the next turn
            if came:
                self.taught.add(step.key)
                out.append(_hint(step, game, cause))
        return out

    def forget(self, hint: Hint) -> None:
        """``hint`` was put away unread (the game moved on while it waited or showed): not
        taught, so it comes again at its next moment."""
        self.taught -= steps_of(hint)

    @classmethod
    def replay(cls, lines: Iterable[str], rules: str = RULES) -> Teacher:
        """The teacher of a game whose journal lines (setup first) are ``lines``: every
        hint whose moment came in them is taught. A line the engine refuses ends the
        replay there (the session would not have resumed such a game)."""
        teacher = cls()
        table = Table()
        for line in lines:
            action = parse_line(line)
            if action is None or isinstance(action, Rejection):
                continue
            outcome = apply(table, action, rules_version=rules)
            if isinstance(outcome, Rejection):
                break
            table = outcome.table
            teacher.observe(outcome.happened, table)
        return teacher


def steps_of(hint: Hint) -> set[str]:
    """The ``SEQUENCE`` step (or steps) whose hint ``hint`` is (its variant's words, one
    drawer or more)."""
    keys = {hint.key} | {step for (step, _variant), key in VARIANT_KEYS.items()
                         if key == hint.key}
    if hint.key == "order_surge_one":
        keys.add("order_surge")
    return keys & {s.key for s in SEQUENCE}


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


# --- words ---------------------------------------------------------------------------------

def hint_text(lang: str, hint: Hint, names: Mapping[str, str] | None = None) -> str:
    """The hint in ``lang``'s words (``names``: the players' names as shown, recorded
    name -> shown: ``seat_colours.shown_names``)."""
    names = names or {}
    v = hint.values
    edition = v.pop("edition", "original")
    count = v.get("count", 1)
    if isinstance(v.get("player"), str):
        v["player"] = names.get(v["player"], v["player"])
    if "drawers" in v:
        v["drawers"] = i18n.names_list(lang, [names.get(n, n) for n in v["drawers"]])
    v["token"] = i18n.token_name(lang, edition, count)
    v["tokens"] = i18n.token_name(lang, edition, 2)
    return i18n.tr(lang, f"teach.{hint.key}", **v)
