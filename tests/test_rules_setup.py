import pytest

from companion.core.rules import Table, apply
from companion.core.rules.editions import EDITIONS, ORIGINAL_UPGRADES, WINTER_UPGRADES
from rules_helpers import play, queue_sizes, rejected, setup, step

NAMES = ["Ana", "Ben", "Chloe", "Dae"]


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("edition,total,removed", [
    ("original", 80, {2: 0, 3: 0, 4: 0}), ("winter", 90, {2: 20, 3: 10, 4: 0})])
def test_standard_deal_and_deck(edition, total, removed, n):
    t, h = play(setup(edition, NAMES[:n]))
    g = t.game
    assert g.deck == total - removed[n] - (2 * n + 1)
    assert queue_sizes(g, "Ana") == [2, 1, 0, 0]
    for name in NAMES[1:n]:
        assert queue_sizes(g, name) == [1, 1, 0, 0]
    assert g.total_cards() == total
    cookies = 1 if edition == "winter" else 0
    assert all(p.cookies == cookies for p in g.players)
    assert h[0].kind == "game_started" and h[0].deck == g.deck


def test_deal_order_starts_with_the_starting_player_and_goes_clockwise():
    t, h = play(setup(players=["Ana", "Ben", "Chloe"], start="Ben"))
    assert h[0].deal == (("Ben", 1, 2), ("Ben", 2, 1), ("Chloe", 1, 1), ("Chloe", 2, 1),
                         ("Ana", 1, 1), ("Ana", 2, 1))
    serials = {p.name: [[c.serial for c in pos] for pos in p.queue] for p in t.game.players}
    assert serials["Ben"] == [[1, 2], [3], [], []]
    assert serials["Chloe"] == [[4], [5], [], []]
    assert serials["Ana"] == [[6], [7], [], []]
    assert t.game.active == 1 and t.game.last_seat == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_junior_deals_two_per_position_and_has_no_upgrades(n):
    t, h = play(setup("winter", NAMES[:n], variant="junior"))
    g = t.game
    assert all(queue_sizes(g, p.name) == [2, 2, 2, 2] for p in g.players)
    assert g.deck == 90 - {2: 20, 3: 10, 4: 0}[n] - 8 * n
    assert all(p.tiles == () for p in g.players)
    assert h[0].deal[0] == ("Ana", 1, 2)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ristretto_start(n):
    t, h = play(setup("original", NAMES[:n], ristretto_start=True, start=NAMES[1]))
    g = t.game
    assert g.deck == 80 - 4 - n - 1
    assert g.removed == 4 - n
    assert queue_sizes(g, NAMES[1]) == [2, 1, 0, 0]
    # the starting player's Ristretto card is first in position 1, the extra draw last
    start = g.players[1]
    assert [c.serial for c in start.queue[0]] == [1, 2 * n + 1]
    assert [c.serial for c in start.queue[1]] == [n + 1]
    assert g.total_cards() == 80


def test_upgrades_left_out_offer_the_editions_tiles_and_can_be_per_player():
    # table script 1.2: without "upgrades" any of the edition's tiles (1.1: the original 4)
    t, _ = play(setup("winter", ["Ana", "Ben"]))
    assert all(p.tiles == WINTER_UPGRADES for p in t.game.players) and t.game.open_tiles
    t, _ = play(setup("original", ["Ana", "Ben"], expansion="cake_time"))
    assert len(t.game.players[0].tiles) == 7 and "break_time" in t.game.players[0].tiles
    t, _ = play(setup("original", ["Ana", "Ben"]))
    assert all(p.tiles == ORIGINAL_UPGRADES for p in t.game.players)
    old = apply(Table(), setup("winter", ["Ana", "Ben"]), rules_version="1.1")
    assert all(p.tiles == ORIGINAL_UPGRADES for p in old.table.game.players)
    assert not old.table.game.open_tiles
    per = {"Ana": list(WINTER_UPGRADES[2:]), "Ben": list(WINTER_UPGRADES[:4])}
    t, _ = play(setup("winter", ["Ana", "Ben"], upgrades=per))
    assert t.game.players[0].tiles == tuple(WINTER_UPGRADES[2:])


@pytest.mark.parametrize("action,code", [
    (setup(players=["Ana"]), "player_count"),
    (setup(players=["A", "B", "C", "D", "E"]), "player_count"),
    (setup(players=["Ana", "Ana"]), "duplicate_name"),
    (setup(players=["Ana", "  "]), "empty_name"),
    (setup(players=["Ana", 3]), "empty_name"),
    (setup(start="Zed"), "unknown_start"),
    (setup(edition="summer"), "bad_edition"),
    (setup(variant="junior"), "bad_variant"),
    (setup("winter", variant="junior", upgrades=list(ORIGINAL_UPGRADES)), "junior_upgrades"),
    (setup("winter", ristretto_start=True), "ristretto_not_original"),
    (setup(upgrades=["jump", "double_meeples", "double_corners", "diagonal_movement"]),
     "upgrade_unknown"),
    (setup(upgrades=list(ORIGINAL_UPGRADES[:3])), "upgrade_count"),
    (setup(upgrades=["double_meeples"] * 4), "upgrade_twice"),
    (setup(upgrades={"Ana": list(ORIGINAL_UPGRADES)}), "upgrade_players"),
    ({"do": "setup", "players": ["Ana", "Ben"]}, "missing_key"),
    ({"do": "setup", "edition": "original", "players": "Ana,Ben"}, "wrong_type"),
])
def test_setup_rejections(action, code):
    from companion.core.rules import Table
    assert rejected(Table(), action).code == code


def test_setup_rejected_while_a_game_runs_but_accepted_after_it_ends():
    t, _ = play(setup(players=["Ana", "Ben"]))
    assert rejected(t, setup()).code == "game_running"
    t, _ = play({"do": "correct", "deck": 0}, {"do": "end_turn"}, {"do": "end_turn"}, table=t)
    assert t.game.token == "closed"
    t, _ = play({"do": "end_turn"}, table=t) if not t.game.game_over else (t, [])
    assert t.game.game_over
    t2, rej, _ = step(t, setup())
    assert rej is None and not t2.game.game_over and t2.undo is None


def test_edition_table_is_the_only_place_of_edition_facts():
    assert EDITIONS["original"].token == "rush_token" and EDITIONS["winter"].token == "cookie"
    assert "caramel" in EDITIONS["original"].ingredients
    assert "fruit" in EDITIONS["winter"].ingredients
    assert len(EDITIONS["winter"].upgrades) == 6


def test_box_facts_the_setup_wizard_reads_from_the_edition_table():
    original, winter = EDITIONS["original"], EDITIONS["winter"]
    # 2-player games need two meeples per player: the original box has them in red and blue
    assert original.colours_for(2) == ("red", "blue")
    assert original.colours_for(3) == ("red", "blue", "green", "yellow")
    assert winter.colours_for(2) == ("red", "blue", "green", "yellow")
    assert winter.chooses_upgrade_tiles and not original.chooses_upgrade_tiles
    assert winter.board_chaos and not original.board_chaos
    assert original.ristretto_start and not winter.ristretto_start


@pytest.mark.parametrize("n", [2, 3, 4])
def test_winter_deals_two_to_each_player_then_the_starting_players_extra_card(n):
    # 001 "Setup" step 6 (table script 1.2): clockwise from the starting player, position 1
    # then 2 for everyone, then the starting player's second position-1 card
    names = NAMES[:n]
    t, h = play(setup("winter", names, start=names[1]))
    order = [names[(1 + i) % n] for i in range(n)]
    expected = tuple(x for name in order for x in ((name, 1, 1), (name, 2, 1))) + (
        (names[1], 1, 1),)
    assert h[0].deal == expected
    serials = {p.name: [[c.serial for c in pos] for pos in p.queue] for p in t.game.players}
    assert serials[names[1]] == [[1, 2 * n + 1], [2], [], []]
    assert serials[order[1]] == [[3], [4], [], []]
    old = apply(Table(), setup("winter", names, start=names[1]), rules_version="1.1")
    assert [[c.serial for c in pos] for pos in old.table.game.players[1].queue] == \
        [[1, 2], [3], [], []]                  # a 1.1 game keeps the 1.1 deal


@pytest.mark.parametrize("cards", [2, 3, 4])
def test_junior_cards_in_each_position(cards):
    t, _ = play(setup("winter", ["Ana", "Ben", "Chloe"], variant="junior", junior_cards=cards))
    g = t.game
    assert all(queue_sizes(g, p.name) == [cards] * 4 for p in g.players)
    assert g.deck == 90 - 10 - 3 * 4 * cards and g.total_cards() == 90


@pytest.mark.parametrize("action,code", [
    (setup("winter", variant="junior", junior_cards=1), "bad_junior_cards"),
    (setup("winter", variant="junior", junior_cards=5), "bad_junior_cards"),
    (setup("winter", junior_cards=3), "junior_cards_not_junior"),
    (setup("original", junior_cards=2), "junior_cards_not_junior"),
])
def test_junior_cards_rejections(action, code):
    assert rejected(Table(), action).code == code
