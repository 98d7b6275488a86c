import threading

from companion.core import events as ev
from companion.core.catalog import Catalog
from companion.core.session import Session
from companion.core.loop import NotYourTurn, TableLoop, UnknownCard
from recorder import Recorder

SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"]}


def make(catalog=None, **kw):
    loop = TableLoop(Session(catalog=catalog), **kw)
    rec = Recorder()
    loop.subscribe(rec)
    loop.post(ev.TouchAction(SETUP))
    loop.drain()
    return loop, rec


def test_seat_tap_completes_the_oldest_order_and_hold_ends_the_turn():
    loop, rec = make()
    loop.post(ev.SeatTap(0))
    loop.post(ev.SeatHold(0))
    ups = loop.drain()
    assert ups[0].action == {"do": "complete"} and ups[0].happened[0].position == 2
    assert ups[1].action == {"do": "end_turn"} and loop.table.game.active == 1


def test_a_seat_that_is_not_active_changes_nothing_and_is_told():
    loop, rec = make()
    before = loop.table
    loop.post(ev.SeatTap(2))
    loop.post(ev.SeatHold(1))
    ups = loop.drain()
    assert loop.table is before
    for u, seat, name in zip(ups, (2, 1), ("Chloe", "Ben"), strict=False):
        assert u.seat == seat and not u.accepted
        assert u.rejection.text == f"{name} is not the active player"
        assert isinstance(u.happened[0], NotYourTurn) and u.happened[0].active == "Ana"


def test_an_empty_seat_is_rejected():
    loop, rec = make()
    loop.post(ev.SeatTap(3))
    u = loop.drain()[0]
    assert u.rejection.code == "empty_seat" and u.rejection.text == "nobody sits at seat 4"


def test_undo_button_tap_undoes_and_hold_redoes():
    loop, rec = make()
    loop.post(ev.SeatTap(0))
    loop.post(ev.UndoTap())
    loop.post(ev.UndoHold())
    ups = loop.drain()
    assert [u.happened[0].kind for u in ups] == ["order_completed", "undone", "redone"]
    assert loop.table.game.players[0].likes == 1


def test_scans_of_unknown_tags_ask_for_enrollment_and_enrolling_saves_the_catalog(tmp_path):
    path = str(tmp_path / "cards.toml")
    loop, rec = make(catalog=Catalog(), catalog_path=path)
    loop.post(ev.CardScanned("04AABB"))
    u = loop.drain()[0]
    assert [h.kind for h in u.happened] == ["card_identified", "unknown_card"]
    loop.post(ev.EnrollRequest("04AABB", "Test drink", ("coffee", "milk"), True))
    u = loop.drain()[0]
    assert u.happened[0].kind == "card_enrolled"
    assert Catalog.load(path).get("04AABB").specialty
    # now known and specialty: completing it gains a token
    loop.post(ev.CardScanned("04AABB"))
    u = loop.drain()[0]
    assert u.happened[0].kind == "order_completed" and u.happened[0].specialty
    assert not any(isinstance(h, UnknownCard) for h in u.happened)


def test_known_example_cards_do_not_ask_for_enrollment():
    loop, rec = make(catalog=Catalog.example())
    loop.post(ev.CardScanned("EXO001"))
    assert [h.kind for h in loop.drain()[0].happened] == ["card_identified"]


def test_touch_action_and_script_line_rejections_are_reported():
    loop, rec = make()
    loop.post(ev.TouchAction({"do": "spend_cookies", "count": 2}))
    loop.post(ev.ScriptLine('{"do": "fly"}', 7))
    loop.post(ev.ScriptLine('# comment', 8))
    ups = loop.drain()
    assert ups[0].rejection.text == "Ana has 0 rush tokens, not 2"
    assert ups[1].rejection.code == "unknown_action"
    assert ups[2].rejection is None and ups[2].action is None


def test_device_status_is_relayed_to_subscribers():
    loop, rec = make()
    loop.post(ev.DeviceStatus("scanner", "lost", "scanner unplugged"))
    u = loop.drain()[0]
    assert u.happened[0].kind == "device_status" and u.happened[0].status == "lost"


def test_a_failing_subscriber_does_not_stop_the_table():
    loop, rec = make()

    def broken(update):
        raise RuntimeError("screen exploded")
    loop.subscribers.insert(0, broken)
    loop.post(ev.SeatTap(0))
    loop.drain()
    assert rec.updates[-1].accepted and loop.table.game.players[0].likes == 1


def test_inputs_from_many_threads_are_applied_one_at_a_time_in_the_loop_thread():
    loop, rec = make()
    applied_in = []
    loop.subscribe(lambda u: applied_in.append(threading.current_thread().name))
    loop.start()
    threads = [threading.Thread(target=lambda: [loop.post(ev.SeatTap(0)) for _ in range(2)])
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rec.wait_for(lambda u: len(rec.updates) >= 7, timeout=5)
    loop.stop()
    assert set(applied_in) == {"table-loop"}
    assert loop.table.game.players[0].likes == 3      # only 3 orders to complete
    assert sum(1 for u in rec.updates[1:] if u.rejection and u.rejection.code == "queue_empty") == 3


def test_input_latency_is_measured_from_the_event_time():
    t = [100.0]
    loop, rec = make(clock=lambda: t[0])
    t[0] = 100.004
    loop.post(ev.SeatTap(0, at=100.001))
    u = loop.drain()[0]
    assert round(u.applied_at - u.posted_at, 6) == 0.003


def test_an_enrollment_that_cannot_be_saved_is_reported_and_not_half_applied(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    loop, rec = make(catalog=Catalog(), catalog_path=str(blocked / "cards.toml"))
    loop.post(ev.EnrollRequest("04AABB", "Test drink", ("coffee", "milk"), True))
    u = loop.drain()[0]
    assert u.rejection is not None and u.rejection.code == "storage_failed"
    assert loop.session.catalog.get("04AABB") is None


def test_dismissing_the_draw_prompt_is_relayed_to_every_subscriber():
    loop, rec = make()
    loop.post(ev.DismissDraws(seat=2))
    u = loop.drain()[0]
    assert u.happened[0].kind == "draws_dismissed" and u.happened[0].seat == 2
    assert u.action is None and u.rejection is None
