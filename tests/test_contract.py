"""The loop's typed contract with its outputs (issue 21, docs/architecture.md).

``Happening`` is a closed union; each output matches it and ends in ``assert_never``.
The proof that this is enforced, not just written: add a happening to the union (mypy's
``--shadow-file``, the real file untouched) and mypy must name every output that does
not handle it yet, and nothing else.
"""
from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from companion.core.rules import happenings as hp
from timing import scaled

ROOT = Path(__file__).resolve().parent.parent
HAPPENINGS = ROOT / "companion/core/rules/happenings.py"

#: Every output that turns happenings into something a player sees or hears, or a hub reads.
OUTPUTS = {
    "companion/words/i18n.py",            # the screen's and the log's words
    "companion/outputs/sound/cues.py",
    "companion/outputs/lights/controller.py",
    "companion/outputs/voice.py",
    "companion/outputs/web/pages.py",          # the phone view's news
    "companion/outputs/mqtt/publisher.py",     # which happenings change a published result
}


def _records() -> set[type]:
    seen, todo = set(), list(hp.Record.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        seen.add(cls)
    return seen


def test_the_union_holds_every_happening_class_and_only_those():
    assert set(get_args(hp.Happening)) == _records()
    assert len(hp.KINDS) == len(set(hp.KINDS)) == len(_records())
    for cls in get_args(hp.Happening):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen, cls


def test_isinstance_of_the_union_tells_a_happening_from_anything_else():
    assert isinstance(hp.TurnChanged("Ben", "Ana", 2), hp.Happening)
    assert isinstance(hp.TablePaused(), hp.Happening)
    assert not isinstance(hp.RankEntry("Ana", 3, 3, 0, 1), hp.Happening)


def _with_a_new_happening(source: str) -> str:
    """happenings.py with one more happening, ``Spilled``, in the union."""
    anchor = "@dataclass(frozen=True)\nclass DrawsDismissed(Record):"
    union_end = "| DrawsDismissed | GameEndedEarly | GameBroughtBack)"
    assert anchor in source and union_end in source, "happenings.py changed shape: update me"
    source = source.replace(anchor, '@dataclass(frozen=True)\nclass Spilled(Record):\n'
                            '    kind: ClassVar[str] = "spilled"\n\n\n' + anchor)
    return source.replace(union_end, "| DrawsDismissed | GameEndedEarly | GameBroughtBack\n"
                          "    | Spilled)")


EVERY_OUTPUT = """\
from companion.outputs.lights.controller import LightsController
from companion.outputs.mqtt.publisher import MqttPublisher
from companion.outputs import Output
from companion.outputs.sound.player import SoundPlayer
from companion.core.loop import LogSubscriber
from companion.outputs.voice import Voice
from companion.outputs.web.live import LiveTable


def every_output(a: LightsController, b: SoundPlayer, c: Voice, d: MqttPublisher,
                 e: LiveTable, f: LogSubscriber) -> list[Output]:
    return [a, b, c, d, e, f]
"""
"""Type-checked with the rest: each output implements ``outputs.Output``."""


def test_a_new_happening_fails_mypy_in_every_output_until_each_handles_it(tmp_path):
    shadow = tmp_path / "happenings.py"
    shadow.write_text(_with_a_new_happening(HAPPENINGS.read_text(encoding="utf-8")),
                      encoding="utf-8")
    outputs = tmp_path / "every_output.py"
    outputs.write_text(EVERY_OUTPUT, encoding="utf-8")
    cache = ROOT / ".mypy_cache" / "contract-test"   # its own (mypy ignores it): warm after one run
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-error-summary",
         "--shadow-file", str(HAPPENINGS), str(shadow), "companion", str(outputs)],
        cwd=ROOT, capture_output=True, text=True, timeout=scaled(240))
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    about_spilled = {line.split(":", 1)[0] for line in errors
                     if '"assert_never"' in line and '"Spilled"' in line}
    assert about_spilled == OUTPUTS, done.stdout + done.stderr
    # in the outputs, nothing but the new happening (elsewhere, a library's own stubs may
    # differ from the ones CI's mypy run checks the tree with: Debian's pygame 2.1.2 in the
    # arm64 root has older ones)
    others = [line for line in errors if '"Spilled"' not in line
              and line.split(":", 1)[0] in OUTPUTS | {str(shadow), str(outputs)}]
    assert not others, "mypy errors that are not about the new happening:\n" + "\n".join(others)



# --- the snapshot the loop publishes ---------------------------------------------------------

def _surged_table():
    """Ana (red, chosen at setup) completes an order and ends her turn: Ben and Chloe draw."""
    from companion.core import events as ev
    from companion.core.catalog import Catalog
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    loop = TableLoop(Session(None, Catalog.example()))
    loop.post(ev.TouchAction({"do": "setup", "edition": "original",
                              "players": ["Ana", "Ben", "Chloe"], "start": "Ana"},
                             seat_colors=("green", "red", "blue")))
    loop.post(ev.SeatTap(0))
    loop.post(ev.SeatHold(0))
    return loop, ev, loop.drain()


def test_every_update_carries_the_loops_snapshot_of_the_table_after_it():
    loop, ev, updates = _surged_table()
    for u in updates:
        assert u.snapshot is not None and u.snapshot.table is u.table
        assert u.snapshot.version == u.version
    last = updates[-1].snapshot
    assert last is loop.snapshot and last.seat_colours == ("green", "red", "blue")
    assert last.draws.pending is not None
    assert last.draws.pending.draws == (("Ben", 1), ("Chloe", 1))
    assert [last.draws.shown_for(s) for s in range(3)] == [True, True, True]
    with pytest.raises(dataclasses.FrozenInstanceError):
        last.paused = True                                         # type: ignore[misc]


def test_a_dismissed_draw_prompt_is_worked_out_once_and_lasts_its_turn():
    loop, ev, _ = _surged_table()
    loop.post(ev.DismissDraws(seat=1))
    draws = loop.drain()[0].snapshot.draws
    assert draws.dismissed == {1} and not draws.everyone and draws.any_dismissed
    assert (draws.shown_for(1), draws.shown_for(2)) == (False, True)
    loop.post(ev.DismissDraws())
    draws = loop.drain()[0].snapshot.draws
    assert draws.everyone and not draws.shown_for(2)
    loop.post(ev.SeatHold(1))                                      # Ben's turn ends
    draws = loop.drain()[-1].snapshot.draws
    assert not draws.any_dismissed                                 # a new prompt, or none


def test_the_snapshot_keeps_each_devices_last_report_and_the_pause():
    from companion.core.rules.happenings import DeviceStatusChanged, TablePaused, TableResumed
    loop, ev, _ = _surged_table()
    loop.post(ev.DeviceStatus("scanner", "lost", "unplugged"))
    snap = loop.drain()[0].snapshot
    assert snap.device("scanner") == "lost" and snap.device("lights") is None
    paused = snap.after(snap.table, snap.version, (TablePaused("held"),), None, ())
    assert paused.paused and paused.device("scanner") == "lost"
    back = paused.after(snap.table, snap.version,
                        (TableResumed(), DeviceStatusChanged("scanner", "connected")), None, ())
    assert not back.paused and back.device("scanner") == "connected"
    assert back.draws is snap.draws                                # the same table: not redone


# --- one output interface, one list ----------------------------------------------------------

class _Probe:
    """A minimal output: records what the list does with it."""
    name = "probe"

    def __init__(self, calls: list):
        self.calls = calls

    def start(self, snapshot=None):
        self.calls.append(("start", snapshot))
        return self

    def on_update(self, update):
        self.calls.append(("update", update))

    def close(self):
        self.calls.append(("close", None))

    def status(self):
        return "ok"


def test_the_outputs_list_starts_with_the_snapshot_hands_every_update_and_closes_in_order():
    from companion.outputs import Output, Outputs
    loop, ev, _ = _surged_table()
    calls: list = []
    first, second = _Probe(calls), _Probe(calls)
    second.name = "second"
    outputs = Outputs(loop)
    assert isinstance(first, Output)
    outputs.start(first)
    outputs.start(second)
    assert calls == [("start", loop.snapshot), ("start", loop.snapshot)]
    loop.post(ev.DismissDraws())
    u = loop.drain()[0]
    assert calls[2:] == [("update", u), ("update", u)]
    assert outputs.status() == {"probe": "ok", "second": "ok"} and len(outputs) == 2
    outputs.close()
    assert [c for c, _ in calls[4:]] == ["close", "close"] and len(outputs) == 0
    loop.post(ev.DismissDraws())
    loop.drain()
    assert len(calls) == 6                                 # closed: no longer handed updates



class _Named(_Probe):
    def __init__(self, calls, name):
        super().__init__(calls)
        self.name = name

    def close(self):
        self.calls.append(("close", self.name))


def test_an_output_on_the_main_thread_closes_after_the_others_whatever_its_start_order():
    """The touchscreen starts before the lights and sound (they start behind its first
    frame) but closes after them: their threads may use pygame until they are closed."""
    from companion.outputs import Outputs
    loop, _, _ = _surged_table()
    calls: list = []
    outputs = Outputs(loop)
    outputs.start(_Named(calls, "log"))
    outputs.start(_Named(calls, "screen"), main_thread=True)
    outputs.start(_Named(calls, "lights"))
    outputs.start(_Named(calls, "sound"))
    outputs.close()
    assert [n for c, n in calls if c == "close"] == ["log", "lights", "sound", "screen"]


def test_the_touchscreen_is_an_output_that_follows_the_table_once_started():
    import pygame

    from companion.outputs import Output, Outputs
    from companion.outputs.screen import screenshots
    from companion.outputs.screen.app import App
    screenshots._init_pygame()
    loop, ev, _ = _surged_table()
    app = App(loop, surface=pygame.Surface((800, 480)))
    assert isinstance(app, Output) and app.on_update not in loop.subscribers
    loop.post(ev.SeatTap(1))          # Ben completes an order: a table the App was not built on
    loop.drain()
    assert app.version != loop.snapshot.version
    outputs = Outputs(loop)
    assert outputs.start(app, main_thread=True) is app
    assert app.version == loop.snapshot.version and app.table is loop.snapshot.table
    assert app.on_update in loop.subscribers and outputs.status() == {"screen": "ok"}
    outputs.close()
    assert app.status() == "closed" and app.on_update not in loop.subscribers


def test_the_service_starts_every_configured_output_through_the_one_list(tmp_path):
    from companion.appliance import config
    from companion.appliance.service import Service
    cfg = config.defaults()
    cfg["journal"]["path"] = str(tmp_path / "games.db")
    cfg["pixels"]["driver"] = "simulated"
    cfg["sound"]["enabled"] = True
    cfg["web"]["enabled"] = False
    svc = Service(cfg, headless=True)
    try:
        svc.start_outputs()
        names = [o.name for o in svc.outputs]
        assert names[:3] == ["log", "lights", "sound"], names
        assert svc.outputs.status()["lights"] == "simulated"
        assert all(o.on_update in svc.loop.subscribers for o in svc.outputs)
    finally:
        svc.shutdown()
    assert len(svc.outputs) == 0
