"""The live service wired from config, on simulated hardware: a button press
travels through the table loop into the journal and out to the lights."""
import json

import pytest

from companion.appliance import config
from companion.core import events as ev
from companion.devices.mock_pins import Fingers
from companion.core.journal import Journal
from companion.appliance.service import Service
from recorder import Recorder
from timing import scaled


def wait_until(predicate, timeout=5.0):
    import threading
    import time
    deadline = time.monotonic() + scaled(timeout)
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.01)
    return True


@pytest.fixture
def cfg(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f"""
[journal]
path = "{tmp_path}/state/journal.db"
[catalog]
paths = ["{tmp_path}/cards.toml"]
example = true
[seats]
driver = "simulated"
pins = [17, 27, 22, 23]
undo_pin = 24
[pixels]
driver = "simulated"
segment_length = 4
[sound]
enabled = false
""", encoding="utf-8")
    return config.load(str(path), required=True)


def test_a_simulated_button_press_is_journaled_and_lit(cfg, tmp_path):
    svc = Service(cfg, headless=True)
    rec = Recorder()
    svc.loop.subscribe(rec)
    svc.start_outputs()
    svc.loop.start()
    svc.start_inputs()
    try:
        buttons = svc.inputs[0]
        fingers = Fingers.on(buttons).start()          # presses through the mock pins
        svc.loop.post(ev.TouchAction({"do": "setup", "edition": "winter",
                                      "players": ["Ana", "Ben", "Chloe"]}))
        rec.wait_for(lambda u: u.accepted and u.action["do"] == "setup")
        fingers.press(0)                                   # Ana taps: completes an order
        rec.wait_for(lambda u: u.accepted and u.action == {"do": "complete"})
        fingers.press(1)                                   # Ben is not active
        rec.wait_for(lambda u: u.seat == 1 and u.rejection is not None)
        fingers.press(0, seconds=1.2)                      # Ana holds: ends her turn
        rec.wait_for(lambda u: u.accepted and u.action == {"do": "end_turn"})
        fingers.close()
        # Ben and Chloe must draw: their segments blink, so frames keep coming
        assert wait_until(lambda: svc.lights.strip.writes > 2)
    finally:
        svc.shutdown()
    with Journal(str(tmp_path / "state" / "journal.db"), readonly=True) as j:
        lines = j.latest_game()[1]
    assert [json.loads(x)["do"] for x in lines] == ["setup", "complete", "end_turn"]
    # a restart resumes the same game
    again = Service(cfg, headless=True)
    try:
        game = again.session.table.game
        assert game.active == 1 and game.players[0].likes == 1
    finally:
        again.shutdown()


def test_settings_from_the_screen_reach_lights_and_sound(cfg):
    from companion.outputs.screen.settings_store import Settings
    svc = Service(cfg, headless=True)
    svc.start_outputs()
    try:
        svc.apply_settings(Settings(volume=0.2, brightness=0.1, turn_timer=60))
        svc.loop.drain()                     # the loop applies them (here, on this thread)
        assert svc.lights.wait_idle(timeout=scaled(5))
        assert svc.lights.strip.brightness == pytest.approx(0.1)
    finally:
        svc.shutdown()


def test_an_unusable_journal_folder_is_a_clear_error(tmp_path, cfg):
    from companion.core.journal import JournalError
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    cfg["journal"]["path"] = str(blocker / "journal.db")
    with pytest.raises(JournalError, match="cannot create the folder"):
        Service(cfg, headless=True)


def test_seat_colours_chosen_for_a_game_come_back_after_a_restart(cfg, monkeypatch):
    svc = Service(cfg, headless=True)
    rec = Recorder()
    svc.start_outputs()
    shown = []
    set_colors = svc.lights.set_seat_colors
    svc.lights.set_seat_colors = lambda c: (shown.append(list(c)), set_colors(c))
    svc.loop.subscribe(rec)                 # after the lights: rec sees the update last
    svc.loop.start()
    try:
        svc.loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                                      "players": ["Ana", "Ben", "Chloe"]},
                                     seat_colors=("green", "red", "yellow")))
        rec.wait_for(lambda u: u.accepted)
        assert shown[-1][:3] == ["green", "red", "yellow"]
    finally:
        svc.shutdown()
    again = Service(cfg, headless=True)
    try:
        assert again.session.seat_colors == ("green", "red", "yellow")
        assert again.loop.snapshot.seat_colours == ("green", "red", "yellow")
        asked = []
        from companion.outputs.lights.controller import LightsController
        set_colors = LightsController.set_seat_colors
        monkeypatch.setattr(LightsController, "set_seat_colors",
                            lambda self, c: (asked.append(list(c)), set_colors(self, c)))
        again.start_outputs()                    # the lights start with the snapshot's colours
        assert asked and asked[0][:3] == ["green", "red", "yellow"]
        assert again.journal.games()[-1].seat_colors == ["green", "red", "yellow"]
    finally:
        again.shutdown()


def test_a_stop_signal_landing_on_another_thread_still_stops_the_main_thread():
    """Python runs signal handlers on the main thread only; the kernel may hand SIGTERM to
    any thread. The main thread waits in short slices (``wait_for_stop``), so the handler
    runs within a fraction of a second instead of after an hour-long wait."""
    import signal as signal_mod
    import threading
    import time as time_mod

    from companion.appliance.stop_signals import SIGNAL_CHECK_SECONDS, wait_for_stop
    stopping = threading.Event()
    old = signal_mod.signal(signal_mod.SIGUSR1, lambda *_: stopping.set())
    try:
        sender = threading.Thread(target=lambda: signal_mod.pthread_kill(
            threading.get_ident(), signal_mod.SIGUSR1))      # delivered to that thread
        started = time_mod.monotonic()
        sender.start()
        assert wait_for_stop(stopping, scaled(30))       # not its whole 30 s:
        assert time_mod.monotonic() - started < scaled(10 * SIGNAL_CHECK_SECONDS)
        sender.join(scaled(5))
    finally:
        signal_mod.signal(signal_mod.SIGUSR1, old)
    assert not wait_for_stop(threading.Event(), 0.01)      # and it gives up when told


def test_a_stop_signal_s_handler_takes_no_lock_its_own_thread_may_hold(cfg):
    """Found under load: a service still alive half an hour after SIGTERM. The handler had
    interrupted the main thread inside ``stopping.wait``, just after that wait took the
    Event's lock back, and set the Event: it waited for a lock its own thread held. The
    handler may interrupt any code, so it takes no lock at all: not the Event's, not the
    screen's wake-up (the screen's stop), not the log's. Here it runs while all three are
    held; it returns at once, and the stop follows once they are let go."""
    import io
    import logging
    import signal
    import threading

    svc = Service(cfg, headless=True)
    screen_wake = threading.Event()
    logged = io.StringIO()
    log_handler = logging.StreamHandler(logged)
    companion_log = logging.getLogger("companion")
    level = companion_log.level
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)}
    try:
        companion_log.addHandler(log_handler)
        companion_log.setLevel(logging.INFO)     # the stop's log line reaches log_handler
        svc.on_stop_signal(screen_wake.set)       # as the screen's request_stop
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler)
        held = (svc.stopping._cond, screen_wake._cond, log_handler.lock)
        for lock in held:
            lock.acquire()
        try:
            interrupting = threading.Thread(target=handler, args=(signal.SIGTERM, None))
            interrupting.start()
            interrupting.join(scaled(5))
            returned = not interrupting.is_alive()
            assert not svc.stopping.is_set() and not screen_wake.is_set()
        finally:
            for lock in held:
                lock.release()
        assert returned, "the stop signal's handler waited for a lock"
        assert svc.stopping.wait(scaled(5)) and screen_wake.wait(scaled(5))
        assert "SIGTERM: stopping" in logged.getvalue()
    finally:
        for s, old in saved.items():
            signal.signal(s, old)
        companion_log.removeHandler(log_handler)
        companion_log.setLevel(level)
        svc.shutdown()


@pytest.mark.parametrize("when", ["while the service is made", "as it starts"])
def test_a_stop_asked_during_the_start_up_is_not_lost(cfg, monkeypatch, when):
    """Found by the arm64 check, then natively one start in a few dozen: a SIGTERM taken in
    by the start-up's handlers while the service was being made set the start-up's stop,
    not the service's, and the service then waited for ever. The start-up hands its
    handlers over to the service, whose stop joins them; a stop asked before then is
    passed on. (A guard ends the wait if the stop is lost, so the test cannot hang.)"""
    import os
    import signal
    import threading

    from companion.appliance import service as service_mod
    made: list = []
    real_init, real_run = Service.__init__, Service.run

    def init(self, *args, **kwargs):
        if when == "while the service is made":
            os.kill(os.getpid(), signal.SIGTERM)
        real_init(self, *args, **kwargs)
        made.append(self)

    def run(self) -> int:
        if when == "as it starts":
            os.kill(os.getpid(), signal.SIGTERM)
        return real_run(self)

    monkeypatch.setattr(Service, "__init__", init)
    monkeypatch.setattr(Service, "run", run)
    rescued = threading.Event()

    def guard() -> None:            # the stop lost: end the wait, and say so
        while not made:
            if rescued.wait(0.01):
                return
        if not made[0].stopping.wait(scaled(20)):
            rescued.set()
            made[0].stopping.set()
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)}
    watcher = threading.Thread(target=guard, daemon=True)
    watcher.start()
    try:
        assert service_mod.Startup(lambda: cfg, headless=True).run() == 0
    finally:
        if not made:
            rescued.set()
        watcher.join(scaled(30))
        for s, old in saved.items():
            assert signal.getsignal(s) == old       # the handlers as they were
            signal.signal(s, old)
    assert made and made[0].stopping.is_set() and made[0]._stopped
    assert not rescued.is_set(), "the stop asked during the start-up was lost"


def test_outputs_read_the_loops_snapshot_never_the_session(cfg, monkeypatch):
    """Every output (the lights, MQTT, the systemd status, the phone view's live table)
    learns the table from the loop's snapshot: the session is made unreadable from the
    moment they are built, except on the loop's own thread outside the outputs."""
    import socket
    import threading
    from companion.appliance.notify import Notifier
    from companion.core.session import Session
    from companion.outputs.web.live import LiveTable
    cfg["mqtt"]["host"] = "127.0.0.1"                # no broker there: MQTT stays offline
    cfg["mqtt"]["port"] = 9
    name = f"coffee-outputs-{id(cfg)}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(scaled(5))
    svc = Service(cfg, headless=True, notifier=Notifier({"NOTIFY_SOCKET": "@" + name}))
    readers: list[tuple[str, str]] = []
    in_output = threading.local()
    plain = Session.__getattribute__

    def guarded(session, attr):
        on_loop = threading.current_thread().name == "table-loop"     # the loop's own
        if not on_loop or getattr(in_output, "on", False):
            readers.append((threading.current_thread().name, attr))
            raise AttributeError(f"an output read Session.{attr}")
        return plain(session, attr)

    def as_output(fn):
        def call(update):
            in_output.on = True
            try:
                fn(update)
            finally:
                in_output.on = False
        return call

    rec = Recorder()
    try:
        monkeypatch.setattr(Session, "__getattribute__", guarded)
        svc.start_outputs()                              # lights and MQTT built here
        live = svc.outputs.start(LiveTable(svc.loop))
        svc.ready()                                      # READY=1 with the table's status
        assert sock.recv(200) == b"READY=1\nSTATUS=waiting for a new game (start one on " \
            b"the touchscreen)"
        kept = list(svc.loop.subscribers)
        svc.loop.subscribers[:] = [fn if fn is svc.play_link else as_output(fn) for fn in kept]
        svc.loop.subscribe(rec)
        assert svc.loop.start().name == "table-loop"
        svc.loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                                      "players": ["Ana", "Ben"]}))
        svc.loop.post(ev.TouchAction({"do": "end_turn"}))
        rec.wait_for(lambda u: u.accepted and u.action == {"do": "end_turn"})
        assert sock.recv(200) == b"STATUS=Ana's turn, round 1"
        assert sock.recv(200) == b"STATUS=Ben's turn, round 1"
        assert live.latest.table["active"] == "Ben"
        mqtt = next(o for o in svc.outputs if o.name == "MQTT")
        assert wait_until(lambda: mqtt.counts["events_skipped"] >= 2)   # its thread took them
        assert wait_until(lambda: svc.lights.strip.writes > 0)
        svc.loop.stop()
        svc.loop.subscribers[:] = kept
    finally:
        monkeypatch.setattr(Session, "__getattribute__", plain)
        svc.shutdown()
        sock.close()
    assert readers == []
