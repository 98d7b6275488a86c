import pytest

from companion.core.rules import Table, parse_line
from companion.core.rules.rejections import ENGLISH, Rejection
from rules_helpers import DONE, END, play, player, queue_sizes, rejected, setup

SCAN = lambda tag: {"do": "scan", "tag": tag}  # noqa: E731


def test_complete_defaults_to_the_oldest_position_first_card():
    t, h = play(setup(), DONE)
    assert queue_sizes(t.game, "Ana") == [2, 0, 0, 0] and player(t.game, "Ana").likes == 1
    assert h[-1].position == 2 and not h[-1].specialty
    t, _ = play(DONE, table=t)
    assert queue_sizes(t.game, "Ana") == [1, 0, 0, 0]
    assert [c.serial for c in player(t.game, "Ana").queue[0]] == [2]


def test_complete_by_slot_and_by_card():
    t, _ = play(setup(), SCAN("A1"), SCAN("A2"))
    assert [c.tag for c in player(t.game, "Ana").queue[0]] == ["A1", "A2"]
    t2, h = play({"do": "complete", "card": "A2"}, table=t)
    assert [c.tag for c in player(t2.game, "Ana").queue[0]] == ["A1"]
    t3, h = play({"do": "complete", "slot": 1}, table=t)
    assert [c.tag for c in player(t3.game, "Ana").queue[0]] == ["A2"]
    t4, _ = play({"do": "complete", "slot": 1, "card": "A2"}, table=t)
    assert player(t4.game, "Ana").likes == 1


def test_complete_rejections():
    t, _ = play(setup(), SCAN("A1"))
    assert rejected(t, {"do": "complete", "slot": 3}).code == "slot_empty"
    assert rejected(t, {"do": "complete", "card": "ZZ"}).code == "card_not_in_queue"
    assert rejected(t, {"do": "complete", "slot": 2, "card": "A1"}).code == "card_not_in_slot"
    assert rejected(t, {"do": "complete", "slot": 5}).code == "bad_value"
    assert rejected(t, {"do": "complete", "slot": True}).code == "wrong_type"
    t, _ = play(DONE, DONE, DONE, table=t)
    assert rejected(t, DONE).text == "Ana has no orders to complete"
    assert rejected(Table(), DONE).code == "no_game"


@pytest.mark.parametrize("edition", ["original", "winter"])
def test_specialty_by_flag_or_catalog_gains_a_token(edition):
    t, _ = play(setup(edition), {"do": "complete", "specialty": True})
    base = 1 if edition == "winter" else 0
    assert player(t.game, "Ana").cookies == base + 1
    t, _ = play(setup(edition), SCAN("SPEC"), tags=frozenset({"SPEC"}))
    t, h = play({"do": "complete", "card": "SPEC"}, table=t, tags=frozenset({"SPEC"}))
    assert h[0].specialty and player(t.game, "Ana").cookies == base + 1


def test_activate_upgrade_rules_in_the_spec_order():
    t, _ = play(setup("winter", ["Ana", "Ben"], upgrades=["jump", "double_meeples",
                                                           "double_corners", "diagonal_movement"]))
    assert rejected(t, {"do": "activate_upgrade", "upgrade": "jump"}).text == \
        "Ana needs 3 likes to upgrade (has 0)"
    t, _ = play({"do": "correct", "player": "Ana", "likes": 7, "cookies": 3}, table=t)
    assert rejected(t, {"do": "activate_upgrade", "upgrade": "double_specialties"}).code == \
        "upgrade_not_tile"
    t2, h = play({"do": "activate_upgrade", "upgrade": "jump"}, table=t)
    ana = player(t2.game, "Ana")
    assert ana.likes == 4 and ana.upgrades == ("jump",) and ana.discarded_likes == 3
    again = {"do": "activate_upgrade", "upgrade": "double_meeples"}
    assert rejected(t2, again).code == "upgrade_once"
    # after completing an order, or spending cookies, it is too late this turn
    t3, _ = play(DONE, table=t)
    assert rejected(t3, {"do": "activate_upgrade", "upgrade": "jump"}).code == "upgrade_too_late"
    t4, _ = play({"do": "spend_cookies", "count": 1}, table=t)
    assert rejected(t4, {"do": "activate_upgrade", "upgrade": "jump"}).text.endswith(
        "before completing orders or spending cookies")
    # next turn of Ana: an already active upgrade is rejected, another is fine
    t5, _ = play(END, END, table=t2)
    assert rejected(t5, {"do": "activate_upgrade", "upgrade": "jump"}).code == "upgrade_active"
    t6, _ = play({"do": "activate_upgrade", "upgrade": "double_meeples"}, table=t5)
    assert len(player(t6.game, "Ana").upgrades) == 2


def test_upgrades_rejected_in_junior():
    t, _ = play(setup("winter", ["Ana", "Ben"], variant="junior"),
                {"do": "correct", "player": "Ana", "likes": 5})
    assert rejected(t, {"do": "activate_upgrade", "upgrade": "jump"}).code == "upgrade_in_junior"


def test_spend_cookies():
    t, _ = play(setup("winter", ["Ana", "Ben"]))
    assert rejected(t, {"do": "spend_cookies", "count": 2}).text == "Ana has 1 cookie, not 2"
    assert rejected(t, {"do": "spend_cookies", "count": 0}).code == "bad_value"
    t, h = play({"do": "spend_cookies", "count": 1}, table=t)
    assert player(t.game, "Ana").cookies == 0 and h[0].kind == "tokens_spent"
    t, _ = play(setup("original", ["Ana", "Ben"]))
    assert "rush tokens" in rejected(t, {"do": "spend_cookies", "count": 1}).text


def test_junior_closes_when_a_queue_empties_and_has_no_surge_or_flow():
    t, _ = play(setup("winter", ["Ana", "Ben", "Chloe"], variant="junior"))
    deck = t.game.deck
    t, _ = play(DONE, END, table=t)
    assert t.game.deck == deck and queue_sizes(t.game, "Ana") == [2, 2, 2, 1]
    assert queue_sizes(t.game, "Ben") == [2, 2, 2, 2]
    t, _ = play(END, END, table=t)  # Ben, Chloe
    t, h = play(*[DONE] * 3, END, END, END, *[DONE] * 3, END, END, END, table=t)
    assert t.game.token == "open"            # at most 3 orders a turn (table script 1.1)
    t, h = play(DONE, table=t)
    assert t.game.token == "closed"
    assert h[-1].kind == "shop_closed" and h[-1].reason == "orders_done"
    t, h = play(END, END, table=t)     # Ana, Ben, then Chloe is last
    assert h[-1].kind == "final_turn_begins"
    t, h = play(END, table=t)
    assert t.game.game_over


def test_scan_identifies_in_deal_order_then_completes_in_the_active_queue():
    t, _ = play(setup(players=["Ana", "Ben"], start="Ben"))
    for tag in ["B1", "B2", "B3", "A1", "A2"]:
        t, h = play(SCAN(tag), table=t)
        assert h[0].kind == "card_identified"
    assert [[c.tag for c in pos] for pos in player(t.game, "Ben").queue] == \
        [["B1", "B2"], ["B3"], [], []]
    assert [[c.tag for c in pos] for pos in player(t.game, "Ana").queue] == \
        [["A1"], ["A2"], [], []]
    assert rejected(t, SCAN("A1")).text == "card A1 is in Ana's queue, not Ben's"
    assert rejected(t, SCAN("NEW")).code == "scan_nothing_waiting"
    t, h = play(SCAN("B2"), table=t)
    assert h[0].kind == "order_completed" and h[0].tag == "B2"
    assert rejected(t, SCAN("B2")).text == "card B2 was already used in this game"
    assert rejected(t, {"do": "scan", "tag": ""}).code == "bad_value"


def test_correct():
    t, h = play(setup(), {"do": "correct", "player": "Ben", "likes": 2, "cookies": 4})
    assert player(t.game, "Ben").likes == 2 and [x.field for x in h[1:]] == ["likes", "cookies"]
    t, _ = play({"do": "correct", "deck": 10}, table=t)
    assert t.game.deck == 10
    assert rejected(t, {"do": "correct", "deck": 3, "player": "Ben"}).code == "correct_deck_alone"
    assert rejected(t, {"do": "correct", "player": "Ben"}).code == "correct_nothing"
    assert rejected(t, {"do": "correct", "player": "Zed", "likes": 1}).code == "unknown_player"
    assert rejected(t, {"do": "correct", "player": "Ben", "likes": -1}).code == "bad_value"
    assert rejected(Table(), {"do": "correct", "deck": 3}).code == "no_game"
    t, h = play({"do": "correct", "player": "Chloe", "dislikes": 5}, table=t)
    assert t.game.token == "closed" and h[-1].kind == "shop_closed"


def test_undo_redo():
    t0, _ = play(setup())
    assert rejected(t0, {"do": "undo"}).code == "nothing_to_undo"
    assert rejected(t0, {"do": "redo"}).code == "nothing_to_redo"
    t1, _ = play(DONE, END, table=t0)
    t2, h = play({"do": "undo"}, table=t1)        # the whole end_turn goes back
    assert h[0].kind == "undone" and h[0].action == END
    assert t2.game == play(DONE, table=t0)[0].game
    t3, _ = play({"do": "undo"}, table=t2)
    assert t3.game == t0.game
    assert rejected(t3, {"do": "undo"}).code == "nothing_to_undo"
    t4, h = play({"do": "redo"}, {"do": "redo"}, table=t3)
    assert t4.game == t1.game and h[0].kind == "redone"
    # any other accepted action clears what can be redone
    t5, _ = play({"do": "undo"}, END, table=t4)
    assert rejected(t5, {"do": "redo"}).code == "nothing_to_redo"
    # a rejected action does not clear redo
    t6, _ = play({"do": "undo"}, table=t4)
    rejected(t6, {"do": "complete", "slot": 4})
    play({"do": "redo"}, table=t6)


def test_undo_does_not_cross_a_setup():
    t, _ = play(setup(players=["Ana", "Ben"]), {"do": "correct", "deck": 0}, END, END)
    assert t.game.game_over
    t, _ = play(setup(), table=t)
    assert rejected(t, {"do": "undo"}).code == "nothing_to_undo"


@pytest.mark.parametrize("line,code", [
    ("{not json", "bad_json"),
    ("[1, 2]", "not_object"),
    ('{"tag": "x"}', "missing_do"),
    ('{"do": "dance"}', "unknown_action"),
    ('{"do": 3}', "unknown_action"),
    ('{"do": "end_turn", "now": true}', "unknown_key"),
    ('{"do": "spend_cookies", "count": "2"}', "wrong_type"),
    ('{"do": "spend_cookies", "count": 1.0}', "wrong_type"),
    ('{"do": "spend_cookies"}', "missing_key"),
    ('{"do": "scan", "tag": null}', "wrong_type"),
    ('{"do": "complete", "specialty": 1}', "wrong_type"),
])
def test_malformed_lines(line, code):
    r = parse_line(line)
    assert isinstance(r, Rejection) and r.code == code
    assert r.text  # every code has an English message


def test_blank_and_comment_lines_are_skipped():
    assert parse_line("") is None and parse_line("   ") is None
    assert parse_line("  # a comment") is None


def test_every_rejection_code_has_a_message_without_missing_parameters():
    import string
    for code, template in ENGLISH.items():
        names = [f for _, f, _, _ in string.Formatter().parse(template) if f]
        Rejection(code, {n: "x" for n in names}).text  # noqa: B018 - must not raise


# --- table script 1.2 --------------------------------------------------------------------

def _setup_12(*actions, table=None):
    """Actions applied under table script 1.2 (a game recorded then keeps its rules)."""
    from companion.core.rules import Accepted, apply, parse_action
    t = table or Table()
    for a in actions:
        out = apply(t, parse_action(a), rules_version="1.2")
        assert isinstance(out, Accepted), (a, out)
        t = out.table
    return t


def test_open_tiles_under_1_2_any_of_the_editions_four_at_most_in_the_game():
    likes = [{"do": "correct", "player": n, "likes": 9} for n in ("Ana", "Ben", "Chloe")]
    t = _setup_12(setup("winter"), *likes, {"do": "activate_upgrade", "upgrade": "jump"}, END,
                  {"do": "activate_upgrade", "upgrade": "double_destination"}, END,
                  {"do": "activate_upgrade", "upgrade": "double_corners"}, END,
                  {"do": "activate_upgrade", "upgrade": "diagonal_movement"}, END)
    assert t.game.rules_version == "1.2"
    assert t.game.tiles_in_play() == {"jump", "double_destination", "double_corners",
                                      "diagonal_movement"}
    rej = rejected(t, {"do": "activate_upgrade", "upgrade": "double_meeples"})
    assert rej.code == "upgrade_fifth_tile" and "jump" in rej.text
    t, _ = play({"do": "activate_upgrade", "upgrade": "jump"}, table=t)
    assert player(t.game, "Ben").upgrades == ("double_destination", "jump")  # in play: fine


def test_open_tiles_four_per_player_two_players_may_flip_five_kinds():
    """Table script 1.3: Ana flips 4 kinds, then Ben flips a fifth kind (his own board's);
    Ana's fifth tile is refused (a player board holds 4)."""
    ana_tiles = ["jump", "double_destination", "double_corners", "diagonal_movement"]
    t, _ = play(setup("winter", ["Ana", "Ben"]),
                *[{"do": "correct", "player": n, "likes": 30} for n in ("Ana", "Ben")])
    assert t.game.rules_version == "1.3"
    for u in ana_tiles:
        t, _ = play({"do": "activate_upgrade", "upgrade": u}, END, END, table=t)
    t, _ = play(END, {"do": "activate_upgrade", "upgrade": "double_meeples"}, table=t)
    assert player(t.game, "Ben").upgrades == ("double_meeples",)
    assert len(t.game.tiles_in_play()) == 5
    t, _ = play(END, table=t)                             # Ana again
    rej = rejected(t, {"do": "activate_upgrade", "upgrade": "double_specialties"})
    assert rej.code == "upgrade_fifth_own_tile" and "Ana" in rej.text and "jump" in rej.text


def test_tiles_named_are_not_capped_by_the_game():
    tiles = {"Ana": ["jump", "double_destination", "double_corners", "double_meeples"],
             "Ben": ["diagonal_movement", "double_specialties", "double_corners", "jump"]}
    t, _ = play(setup("winter", ["Ana", "Ben"], upgrades=tiles),
                {"do": "correct", "player": "Ana", "likes": 9},
                {"do": "correct", "player": "Ben", "likes": 9},
                {"do": "activate_upgrade", "upgrade": "jump"}, END,
                {"do": "activate_upgrade", "upgrade": "diagonal_movement"}, END,
                {"do": "activate_upgrade", "upgrade": "double_destination"}, END,
                {"do": "activate_upgrade", "upgrade": "double_specialties"}, END,
                {"do": "activate_upgrade", "upgrade": "double_meeples"})
    assert len(t.game.tiles_in_play()) == 5 and not t.game.open_tiles


@pytest.mark.parametrize("spend_first", [True, False])
def test_tokens_won_this_turn_wait_for_the_next_turn(spend_first):
    spend = {"do": "spend_cookies", "count": 1}
    special = {"do": "complete", "specialty": True}
    t, _ = play(setup("original", ["Ana", "Ben"]), {"do": "correct", "player": "Ana",
                                                     "cookies": 1})
    if spend_first:       # the token she had is spent while moving, then a specialty order
        t, _ = play(spend, special, table=t)
    else:                 # recorded the other way round: the same token is spendable
        t, _ = play(special, spend, table=t)
    assert player(t.game, "Ana").cookies == 1 and t.game.spendable_tokens(
        player(t.game, "Ana")) == 0
    rej = rejected(t, spend)
    assert rej.code == "tokens_won_this_turn" and rej.params["have"] == 0
    assert "next turn" in rej.text
    t, _ = play(END, END, spend, table=t)           # her next turn: it is hers to spend
    assert player(t.game, "Ana").cookies == 0


def test_a_1_1_game_spends_this_turns_tokens():
    from companion.core.rules import apply
    out = apply(Table(), setup("original", ["Ana", "Ben"]), rules_version="1.1")
    t, _ = play({"do": "complete", "specialty": True}, {"do": "spend_cookies", "count": 1},
                table=out.table)
    assert player(t.game, "Ana").cookies == 0


def test_a_correction_that_removes_the_fifth_dislike_reopens_the_shop():
    t, h = play(setup(), {"do": "correct", "player": "Ben", "dislikes": 5})
    assert t.game.token == "closed" and h[-1].kind == "shop_closed"
    t, h = play({"do": "correct", "player": "Ben", "dislikes": 4}, table=t)
    assert t.game.token == "open" and t.game.closed_reason is None
    assert h[-1].kind == "shop_reopened" and h[-1].reason == "five_dislikes"
    assert h[-1].player == "Ben"
    # the round is no longer the last: Chloe's turn ends and Ana plays again
    t, _ = play(END, END, END, table=t)
    assert not t.game.game_over and t.game.active == 0


def test_a_correction_keeps_the_shop_closed_while_a_reason_remains():
    t, _ = play(setup(), {"do": "correct", "player": "Ben", "dislikes": 5},
                {"do": "correct", "player": "Chloe", "dislikes": 6},
                {"do": "correct", "player": "Ben", "dislikes": 0})
    assert t.game.token == "closed"                  # Chloe still has 6
    t, _ = play({"do": "correct", "deck": 0}, {"do": "correct", "player": "Chloe",
                                                "dislikes": 1}, table=t)
    assert t.game.token == "closed"                  # the deck is still empty
    t, h = play({"do": "correct", "deck": 3}, table=t)
    assert t.game.token == "open" and h[-1].kind == "shop_reopened" and h[-1].player is None


def test_junior_and_1_1_games_are_not_reopened():
    t, _ = play(setup("winter", ["Ana", "Ben"], variant="junior"),
                {"do": "correct", "deck": 0})
    from companion.core.rules import apply
    out = apply(Table(), setup(), rules_version="1.1")
    t, _ = play({"do": "correct", "player": "Ben", "dislikes": 5},
                {"do": "correct", "player": "Ben", "dislikes": 0}, table=out.table)
    assert t.game.token == "closed"


def _caked_table():
    # Ana: position 1 [A1 no cake, A2 cake], position 2 [A3 cake]
    return play(setup("original", ["Ana", "Ben"], expansion="cake_time"),
                SCAN("A1"), SCAN("A2"), SCAN("A3"),
                {"do": "cake", "player": "Ana", "slot": 1},
                {"do": "cake", "player": "Ana", "card": "A3"})[0]


def test_complete_names_the_order_with_or_without_a_cake():
    t = _caked_table()
    t2, h = play({"do": "complete", "slot": 1, "cake": True}, table=t)
    assert h[0].tag == "A2" and h[0].cake and player(t2.game, "Ana").cake_cards == 2
    t2, h = play({"do": "complete", "slot": 1, "cake": False}, table=t)
    assert h[0].tag == "A1" and not h[0].cake
    t2, h = play({"do": "complete", "cake": False}, table=t)    # highest position with one
    assert h[0].tag == "A1"
    t2, h = play({"do": "complete", "cake": True}, table=t)
    assert h[0].tag == "A3"
    assert rejected(t, {"do": "complete", "slot": 2, "cake": False}).code == "no_uncaked_order"
    assert rejected(t, {"do": "complete", "card": "A1", "cake": False}).code == \
        "cake_with_card"
    plain = play(setup("original", ["Ana", "Ben"]))[0]
    assert rejected(plain, {"do": "complete", "cake": True}).code == "not_cake_time"
