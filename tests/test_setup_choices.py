"""The choices of a new game's setup without a screen: meeple order, the deal preview,
Cake Time's upgrade draw, the main board (printed and Winter's board chaos)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.core import board as boards
from companion.core.rules.editions import EDITIONS, UPGRADE_TILES, box_rules
from companion.core.setup_choices import SetupChoices, draw_upgrades, meeple_order


# --- the model on its own ---------------------------------------------------------------------

@pytest.mark.parametrize("count, start, order", [
    (4, 0, [3, 2, 1, 0]), (4, 2, [1, 0, 3, 2]), (3, 1, [0, 2, 1]), (2, 0, [1, 0, 1, 0]),
    (2, 1, [0, 1, 0, 1]),
])
def test_meeple_placement_order(count, start, order):
    md = SetupChoices("winter")
    md.set_count(count)
    md.start = start
    assert md.meeple_order() == order


def test_deal_preview_matches_the_engines_game_started():
    md = SetupChoices("winter")
    md.set_count(3)
    md.names[:3] = ["A", "B", "C"]
    md.start = 1
    game, started = md.preview()
    # Winter's book (table script 1.2): two each from B, then B's extra card
    assert started.deal == (("B", 1, 1), ("B", 2, 1), ("C", 1, 1), ("C", 2, 1), ("A", 1, 1),
                            ("A", 2, 1), ("B", 1, 1))
    assert game.deck == 90 - 10 - 7
    assert [len(p) for p in game.players[1].queue] == [2, 1, 0, 0]


def test_junior_cards_and_open_tiles_reach_the_setup_line():
    md = SetupChoices("winter")
    md.set_count(2)
    md.names[:2] = ["A", "B"]
    md.start = 0
    md.variant = "junior"
    assert "junior_cards" not in md.action()          # 2, the book's default
    md.junior_cards = 4
    assert md.action()["junior_cards"] == 4
    game, _ = md.preview()
    assert [len(p) for p in game.players[0].queue] == [4, 4, 4, 4]
    md.variant = "standard"
    assert "junior_cards" not in md.action() and "upgrades" in md.action()
    md.set_upgrade_mode("open")                       # decided at the table
    assert "upgrades" not in md.action() and md.problem("upgrades") is None
    game, _ = md.preview()
    assert game.open_tiles and len(game.players[0].tiles) == 6


# --- the board ---------------------------------------------------------------------------------

def test_printed_board_is_the_one_in_the_seeds_readme():
    b = boards.printed_board("original")
    assert b.cells[0] == ("ice", "caramel", "steam", "coffee")
    assert b.cells[3] == ("milk", "ice", "chocolate", "steam")
    assert {b.at(r, c) for r, c in boards.SPECIAL_SQUARES} == {"caramel", "water", "tea",
                                                                 "chocolate"}
    assert [b.at(r, c) for r, c in boards.CORNERS] == ["ice", "coffee", "milk", "steam"]
    w = boards.printed_board("winter")
    assert w.at(0, 1) == "fruit" and "caramel" not in str(w.cells)


@pytest.mark.parametrize("seed", [1000, 1234, 5555, 9999, 42])
def test_chaos_board_respects_the_snowflake_squares_and_the_tiles(seed):
    b = boards.chaos_board(seed)
    special = [b.at(r, c) for r, c in boards.SPECIAL_SQUARES]
    assert sorted(special) == sorted(EDITIONS["winter"].specialty_ingredients)
    others = [ing for r, c, ing in b.squares() if (r, c) not in boards.SPECIAL_SQUARES]
    assert Counter(others) == Counter({"coffee": 3, "milk": 3, "steam": 3, "ice": 3})
    assert b.seed == seed and b.edition == "winter"


def test_chaos_board_is_reproducible_by_seed():
    assert boards.chaos_board(2354) == boards.chaos_board(2354)
    layouts = {boards.chaos_board(s).cells for s in range(1000, 1040)}
    assert len(layouts) > 30          # different seeds, different boards


def test_seeds_come_from_the_injected_random_source():
    assert boards.new_seed(random.Random(9)) == random.Random(9).randint(1000, 9999)


# --- randomness only where a choice asks for it ----------------------------------------------

class CountingRandom(random.Random):
    """A seeded random source that counts the draws taken from it."""

    def __init__(self, seed: int):
        super().__init__(seed)
        self.draws = 0

    def random(self) -> float:
        self.draws += 1
        return super().random()

    def getrandbits(self, k: int) -> int:
        self.draws += 1
        return super().getrandbits(k)


def test_meeple_order_is_a_function_of_count_and_start():
    assert meeple_order(4, 1) == [0, 3, 2, 1]
    assert meeple_order(2, 1) == [0, 1, 0, 1]


def test_cake_time_upgrade_draw_takes_four_of_seven_in_the_rulebooks_order():
    upgrades = box_rules("original", "cake_time").upgrades
    assert len(upgrades) == 7
    drawn = draw_upgrades(upgrades, random.Random(5))
    assert len(drawn) == UPGRADE_TILES and len(set(drawn)) == UPGRADE_TILES
    assert drawn == sorted(drawn, key=upgrades.index)
    assert drawn == draw_upgrades(upgrades, random.Random(5))       # same seed, same tiles


def cake_time_choices(rng: random.Random) -> SetupChoices:
    md = SetupChoices("original", rng)
    md.set_edition("original", "cake_time")
    md.set_count(3)
    md.names[:3] = ["Ana", "Ben", "Chloe"]
    md.start = 1
    return md


def test_the_upgrade_tiles_are_drawn_once_when_the_wizard_reaches_them():
    rng = CountingRandom(2)
    md = cake_time_choices(rng)
    assert md.upgrade_mode == "draw" and md.drawn_tiles is None
    md.enter("start")
    assert rng.draws == 0 and md.tiles_of(None) == []        # looking draws nothing
    md.enter("upgrades")
    drawn = md.tiles_of(None)
    assert len(drawn) == UPGRADE_TILES and rng.draws > 0
    taken = rng.draws
    for step in ("upgrades", "options", "deal", "meeples"):
        md.enter(step)
        md.problem(step)
        md.action()
    assert rng.draws == taken and md.tiles_of(None) == drawn
    assert md.action()["upgrades"] == drawn


def test_each_players_own_tiles_draw_nothing_and_choosing_the_draw_again_draws_once():
    rng = CountingRandom(3)
    md = cake_time_choices(rng)
    md.set_upgrade_mode("each")
    md.enter("upgrades")
    assert rng.draws == 0
    md.set_upgrade_mode("draw")
    drawn, taken = md.tiles_of(None), rng.draws
    md.set_upgrade_mode("each")
    md.set_upgrade_mode("draw")
    assert md.tiles_of(None) == drawn and rng.draws == taken


def test_a_new_game_after_a_drawn_game_draws_again_and_offers_the_same_four():
    """The last game's drawn four (its setup line, list or object form) are not kept as
    drawn: the box's rule draws anew once the wizard reaches the tiles (by the injected
    randomness); the last four stay on offer, and going back and forth draws once."""
    last = ["double_meeples", "double_corners", "break_time", "storage"]
    names = ["Ana", "Ben", "Chloe"]
    for form in (last, {n: last for n in names}):
        rng = CountingRandom(3)
        md = cake_time_choices(rng)
        md.keep_tiles(form, names)
        assert md.upgrade_mode == "draw" and md.last_drawn == last
        assert md.drawn_tiles is None and not md.kept_draw and rng.draws == 0
        md.enter("upgrades")
        new = md.tiles_of(None)
        assert new == draw_upgrades(md.box.upgrades, random.Random(3)) != last
        taken = rng.draws
        md.keep_last_draw(True)
        assert md.kept_draw and md.tiles_of(None) == last == md.action()["upgrades"]
        md.keep_last_draw(False)
        assert md.tiles_of(None) == new == md.action()["upgrades"] and rng.draws == taken
    # each player's own tiles (Cake Time) and Winter's chosen ones are kept as they were
    md = cake_time_choices(random.Random(1))
    own = {"Ana": last, "Ben": ["double_meeples", "diagonal_movement", "double_corners",
                                "double_specialties"], "Chloe": last}
    md.keep_tiles(own, names)
    assert md.upgrade_mode == "each" and md.last_drawn is None
    winter = SetupChoices("winter", random.Random(1))
    winter.set_count(2)
    tiles = ["double_meeples", "diagonal_movement", "double_destination", "jump"]
    winter.keep_tiles(tiles, ["Ana", "Ben"])
    assert winter.tiles_of(None) == tiles and winter.last_drawn is None
    md.keep_last_draw(True)                           # nothing drawn to keep: no change
    assert md.upgrade_mode == "each" and not md.kept_draw


def test_the_board_rolls_its_seed_when_chaos_is_chosen_and_showing_it_rolls_nothing():
    rng = CountingRandom(4)
    md = SetupChoices("winter", rng)
    assert md.board() == boards.printed_board("winter") and rng.draws == 0
    md.set_board_mode("chaos")
    seed, taken = md.seed, rng.draws
    assert seed is not None and taken > 0
    assert md.board() == md.board() == boards.chaos_board(seed)
    md.set_board_mode("printed")
    md.set_board_mode("chaos")
    assert md.seed == seed and rng.draws == taken        # the same layout comes back
    md.roll_seed()
    assert md.board() == boards.chaos_board(md.seed)
