"""Every input is checked against the table its sender saw (``table.refusal``, the table
loop's one check): per input kind, what "stale" means, the words that say so, and that
a refused input changes nothing and writes nothing. Script lines are never stale."""
import json

import pytest

from companion.core import events as ev
from companion.core.events import Press, TableVersion
from companion.core.journal import Journal
from companion.core.session import Session
from companion.core.loop import NotYourTurn, TableLoop, refusal
from companion.words.i18n import rejection_text

SETUP = {"do": "setup", "edition": "original", "players": ["Ana", "Ben", "Chloe"],
         "start": "Ana"}


def make(journal=None):
    loop = TableLoop(Session(journal))
    loop.post(ev.TouchAction(SETUP))
    loop.drain()
    return loop


def apply(loop, *events):
    for e in events:
        loop.post(e)
    ups = loop.drain()
    assert all(u.accepted for u in ups), [u.rejection for u in ups]
    return ups


def check(loop, event):
    """The one check, on the table as the loop has it now."""
    return refusal(event, loop.table.game, loop.version)


def code(loop, event):
    found = check(loop, event)
    return None if found is None else found[0].code


# --- the version ----------------------------------------------------------------------------

def test_every_accepted_action_moves_the_version_and_a_refusal_does_not():
    loop = TableLoop(Session())
    assert loop.version == TableVersion(0, 0, None, None)           # no game yet
    apply(loop, ev.TouchAction(SETUP))
    assert loop.version == TableVersion(1, 0, 1, 0)                  # game 1, Ana's turn
    apply(loop, ev.SeatTap(0))
    assert loop.version == TableVersion(1, 1, 1, 0)
    apply(loop, ev.SeatHold(0))
    assert loop.version == TableVersion(1, 2, 2, 1)                  # Ben's turn
    apply(loop, ev.UndoTap())
    assert loop.version == TableVersion(1, 3, 1, 0)     # Ana's turn again, another table
    loop.post(ev.SeatTap(2))                            # refused: not Chloe's turn
    u = loop.drain()[0]
    assert not u.accepted and loop.version == TableVersion(1, 3, 1, 0) == u.version


def test_with_a_journal_the_version_is_the_journals_and_survives_a_restart(tmp_path):
    path = str(tmp_path / "journal.db")
    with Journal(path) as j:
        loop = make(j)
        apply(loop, ev.SeatTap(0), ev.SeatHold(0))
        version = loop.version
        assert (version.game, version.step) == (j.current_game_id, j.current_seq) == (1, 2)
    with Journal(path) as j:                            # the companion restarts
        assert TableLoop(Session(j)).version == version   # a phone's ETag still holds


def test_an_etag_names_the_version_and_reads_back():
    for v in (TableVersion(12, 57, 5, 0), TableVersion(3, 9, 20, None), TableVersion()):
        assert TableVersion.from_etag(v.etag) == v
    assert TableVersion(12, 57, 5, 0).etag == '"12.57.5.0"'
    for bad in ('12.57.5.0', '"12.57"', 'W/"12.57.5.0"', '"a.b.c.d"', "", '"1.2.3.4", "5"'):
        assert TableVersion.from_etag(bad) is None


# --- the one check, per input kind ----------------------------------------------------------

def test_a_touch_of_a_turn_is_stale_once_that_turn_has_ended():
    loop = make()
    seen = loop.version                                  # the screen shows Ana's turn
    apply(loop, ev.SeatTap(0))                           # Ana's tap: still her turn
    for action in ({"do": "end_turn"}, {"do": "complete", "slot": 1},
                   {"do": "correct", "player": "Ana", "likes": 3}):
        assert check(loop, ev.TouchAction(action, seen=seen)) is None
    apply(loop, ev.SeatHold(0))                          # Ana's hold ends her turn
    for action in ({"do": "end_turn"}, {"do": "complete"}, {"do": "spend_cookies", "count": 1},
                   {"do": "activate_upgrade", "upgrade": "barista"}, {"do": "play_cake_card"},
                   {"do": "correct", "player": "Ana", "likes": 3}):
        why, happened = check(loop, ev.TouchAction(action, seen=seen))
        assert (why.code, why.params, happened) == ("stale_turn", {"player": "Ben"}, ())
    assert check(loop, ev.TouchAction({"do": "end_turn"}, seen=loop.version)) is None
    assert check(loop, ev.TouchAction({"do": "end_turn"})) is None    # no version: as before


def test_an_undo_or_redo_is_stale_once_anything_happened_that_its_sender_never_saw():
    loop = make()
    apply(loop, ev.SeatTap(0))
    seen = loop.version
    apply(loop, ev.SeatTap(0))                           # the same turn, but not seen
    for event in (ev.TouchAction({"do": "undo"}, seen=seen),
                  ev.TouchAction({"do": "redo"}, seen=seen),
                  ev.UndoTap(seen=seen), ev.UndoHold(seen=seen)):
        assert code(loop, event) == "stale_table"
    assert code(loop, ev.UndoTap(seen=loop.version)) is None
    assert code(loop, ev.UndoTap()) is None


def test_a_new_game_is_stale_only_once_another_game_has_begun():
    loop = make()
    seen = loop.version
    apply(loop, ev.SeatTap(0), ev.SeatHold(0))
    setup = ev.TouchAction(SETUP, seen=seen)
    assert code(loop, setup) is None                     # the same game, later on
    finish(loop)
    assert code(loop, setup) is None                     # its end screen offers a new one
    apply(loop, ev.TouchAction(SETUP))                   # someone else started game 2
    assert code(loop, setup) == "stale_game"
    assert code(loop, ev.TouchAction({"do": "end_turn"}, seen=seen)) == "stale_game"
    assert code(loop, ev.UndoTap(seen=seen)) == "stale_game"


def test_a_phone_acts_only_on_exactly_the_table_it_showed():
    loop = make()
    seen = loop.version
    apply(loop, ev.SeatTap(0))                           # the same turn, one tap later
    assert code(loop, ev.WebAction({"do": "complete"}, seen=seen)) == "stale_table"
    apply(loop, ev.SeatHold(0))
    assert code(loop, ev.WebAction({"do": "end_turn"}, seen=seen)) == "stale_turn"
    assert code(loop, ev.WebAction({"do": "end_turn"}, seen=loop.version)) is None
    assert code(loop, ev.WebAction({"do": "end_turn"})) is None   # no If-Match: as before


def test_a_scan_is_stale_only_when_it_would_complete_an_order_of_an_ended_turn():
    loop = make()
    apply(loop, ev.CardScanned("CR0001"))                # names Ana's first card dealt
    seen = loop.version
    apply(loop, ev.SeatHold(0))                          # Ben's turn now
    again = ev.CardScanned("CR0001", seen=seen)          # the card read in Ana's turn
    assert code(loop, again) == "stale_turn"
    assert code(loop, ev.CardScanned("CR0002", seen=seen)) is None   # a new card: any time
    assert code(loop, ev.TouchAction({"do": "scan", "tag": "CR0001"}, seen=seen)) == "stale_turn"
    assert code(loop, ev.CardScanned("CR0001", seen=loop.version)) is None


def test_a_seat_press_belongs_to_the_seat_and_the_turn_it_began_in():
    loop = make()
    ana_turn = loop.version
    assert check(loop, ev.SeatHold(0, press=Press(0.0, ana_turn))) is None
    assert check(loop, ev.SeatHold(0, press=Press(0.0, ana_turn, overlapped=True)))[0].code \
        == "buttons_overlap"
    apply(loop, ev.TouchAction({"do": "end_turn"}))      # Ana's turn ended on the screen
    why, happened = check(loop, ev.SeatHold(0, press=Press(0.0, ana_turn)))   # her hold
    assert (why.code, why.params["player"], happened) == ("stale_turn", "Ben", ())
    why, happened = check(loop, ev.SeatTap(1, press=Press(0.0, ana_turn)))    # Ben, too early
    assert why.code == "not_your_turn" and happened == (NotYourTurn(1, "Ben", "Ana"),)
    assert check(loop, ev.SeatTap(1, press=Press(0.0, loop.version))) is None
    assert check(loop, ev.SeatTap(1)) is None            # the screen's or a script's seat tap


def finish(loop):
    """Ben's fifth dislike closes the shop; the round is played out."""
    apply(loop, ev.TouchAction({"do": "correct", "player": "Ben", "dislikes": 5}))
    assert loop.table.game.token == "closed"
    while not loop.table.game.game_over:
        apply(loop, ev.TouchAction({"do": "end_turn"}))


def test_after_the_game_ended_a_turns_input_says_so():
    loop = make()
    seen = loop.version
    finish(loop)
    assert code(loop, ev.TouchAction({"do": "end_turn"}, seen=seen)) == "stale_game_over"


@pytest.mark.parametrize("event", [ev.ScriptLine('{"do": "end_turn"}', 1),
                                   ev.DeviceStatus("scanner", "lost"), ev.DismissDraws(),
                                   ev.EnrollRequest("CR0001", "Latte", ("milk",))])
def test_inputs_without_a_sender_view_are_never_stale(event):
    loop = make()
    apply(loop, ev.SeatHold(0))
    assert check(loop, event) is None


# --- through the loop -----------------------------------------------------------------------

def test_a_stale_touch_changes_nothing_writes_nothing_and_says_so_in_every_language(tmp_path):
    with Journal(str(tmp_path / "journal.db")) as j:
        loop = make(j)
        screen_saw = loop.version                        # Ana's turn on the screen
        apply(loop, ev.SeatHold(0))                      # Ana's hold ends it
        before, lines = loop.table, j.latest_game()[1]
        loop.post(ev.TouchAction({"do": "end_turn"}, seen=screen_saw))   # a late touch
        u = loop.drain()[0]
        assert not u.accepted and u.rejection.code == "stale_turn"
        assert loop.table is before and loop.table.game.active == 1      # Ben plays on
        assert j.latest_game()[1] == lines                                 # nothing written
        assert [json.loads(x)["do"] for x in lines] == ["setup", "end_turn"]
    words = {lang: rejection_text(lang, u.rejection) for lang in ("en", "es", "pt", "it", "ko")}
    assert words["en"] == "Ben's turn had already begun"
    assert all("Ben" in w for w in words.values()) and len(set(words.values())) == 5


def test_queued_inputs_of_one_turn_still_apply_in_order_after_a_wait():
    """Presses made while the table waited (paused, or busy) all saw the same table:
    those of the turn that was running still apply; the ones after its end do not."""
    loop = make()
    seen = loop.version
    press = Press(0.0, seen)
    for e in (ev.SeatTap(0, press=press), ev.SeatTap(0, press=press),
              ev.SeatHold(0, press=press), ev.SeatTap(0, press=press),
              ev.TouchAction({"do": "complete"}, seen=seen)):
        loop.post(e)
    ups = loop.drain()
    assert [u.accepted for u in ups] == [True, True, True, False, False]
    assert [u.rejection.code for u in ups[3:]] == ["stale_turn", "stale_turn"]
    assert loop.table.game.players[0].likes == 2 and loop.table.game.active == 1


def test_a_touch_made_before_the_screen_showed_anas_hold_is_refused_on_the_screen():
    """Ana's hold ends her turn while a finger is already on End turn: the touch carries
    the table the screen showed (Ana's turn), so Ben's turn is not ended; the screen
    says why, near the finger."""
    from ui_touch import make_app, touch
    for lang, words in (("en", "Ben's turn had already begun"),
                        ("ko", "Ben 님의 차례가 이미 시작되었습니다")):
        loop, app = make_app(lang=lang, lines=[json.dumps(SETUP)])
        shown = app.version
        assert app.table.game.active == 0 and shown == loop.version
        loop.post(ev.SeatHold(0, press=Press(0.0, loop.turn_now())))
        loop.drain()                                     # applied; not yet on the screen
        assert app.version == shown and loop.version != shown
        touch(app, "ft.end")                             # the finger, on Ana's turn
        game = loop.table.game
        assert (game.active, game.turn) == (1, 2)        # Ben's turn goes on
        assert app.version == loop.version               # the screen caught up
        assert words in app.screen.toasts
        touch(app, "ft.end")                             # now it ends Ben's turn, as shown
        assert loop.table.game.active == 2


def test_a_finger_taps_the_frame_it_sees_even_when_the_update_came_in_the_same_events():
    """The screen took Ana's end of turn from the loop in the same batch of events as the
    finger's tap, before drawing it: the finger tapped the frame still showing Ana's
    turn, so its End turn is refused, not applied to Ben's."""
    import pygame
    from ui_touch import make_app, widget
    loop, app = make_app(lines=[json.dumps(SETUP)])
    end = widget(app, "ft.end").rect.center             # End turn, drawn in Ana's turn
    app.draw()
    loop.post(ev.SeatHold(0, press=Press(0.0, loop.turn_now())))
    loop.drain()
    app.process_updates()                                # taken, not yet drawn
    assert app.version == loop.version != app.shown and app.screen.needs_draw
    w, h = app.size
    for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
        app.handle(pygame.event.Event(kind, x=end[0] / w, y=end[1] / h, touch_id=1,
                                      finger_id=1, dx=0.0, dy=0.0, pressure=1.0))
    u = loop.drain()[0]
    assert u.rejection.code == "stale_turn" and loop.table.game.active == 1


def test_a_refused_touch_says_what_it_asked_and_why_in_its_why():
    from companion.review.explain import refusal as why_refused
    loop = make()
    seen = loop.version
    apply(loop, ev.SeatHold(0))
    loop.post(ev.TouchAction({"do": "end_turn"}, seen=seen))
    loop.post(ev.UndoTap(seen=seen))
    touch, undo = loop.drain()
    assert (touch.action, undo.action) == ({"do": "end_turn"}, {"do": "undo"})
    why = why_refused(touch.rejection, touch.action)
    assert why.key == "refused" and why.params["reason"].code == "stale_turn"
