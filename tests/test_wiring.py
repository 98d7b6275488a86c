"""One wiring: the App ends and closes the screen for the service (no pygame calls
outside the UI), seat colours come from one table, and the demo's configuration is
the service's with simulated drivers."""
import os
import threading

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from companion.appliance import config  # noqa: E402
from companion.core import seat_colours
from companion.core.catalog import Catalog  # noqa: E402
from companion.appliance.demo import demo_config  # noqa: E402
from companion.outputs.lights.patterns import Style  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.core.loop import TableLoop  # noqa: E402
from companion.outputs.screen import theme  # noqa: E402
from companion.outputs import Outputs  # noqa: E402
from companion.outputs.screen.app import App  # noqa: E402
from timing import scaled


def test_request_stop_from_another_thread_ends_the_screen_loop_and_close_closes_it():
    pygame.display.init()
    surface = pygame.display.set_mode((800, 480))
    loop = TableLoop(Session(None, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=surface), main_thread=True)
    # pygame's event queue belongs to the main thread: run here, stop from another thread
    stopper = threading.Timer(0.05, app.request_stop)
    stopper.start()
    app.run()                                         # returns: the test cannot hang on it
    stopper.join(scaled(2.0))
    assert not app.running
    app.close()
    assert not pygame.display.get_init()
    app.close()                                       # twice is harmless


def test_the_start_ups_objects_are_frozen_before_the_service_says_ready():
    """The full collection and ``gc.freeze`` are part of the start (before ``started``, which
    sends READY=1), not the first step painted ahead: that step was the largest idle step of
    all, and a first tap waited for it (issue 38)."""
    import gc
    pygame.display.init()
    surface = pygame.display.set_mode((800, 480))
    loop = TableLoop(Session(None, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=surface), main_thread=True)
    gc.unfreeze()
    frozen_when_ready = []
    try:
        app.run(should_stop=lambda: True, started=lambda: frozen_when_ready.append(
            (gc.get_freeze_count(), gc.isenabled())))
    finally:
        gc.unfreeze()
        gc.enable()
        app.close()
    # frozen, and the automatic collection off: the screen collects when the table is quiet
    assert frozen_when_ready and frozen_when_ready[0][0] > 0 and not frozen_when_ready[0][1]


def test_seat_colours_are_one_table_for_screen_and_leds():
    assert seat_colours.NAMES == ("red", "blue", "green", "yellow")
    assert theme.seat_rgb(["green", "red"]) == [seat_colours.SCREEN_BY_NAME["green"],
                                                seat_colours.SCREEN_BY_NAME["red"]]
    assert Style().seat_colors == seat_colours.LED_RGB
    assert seat_colours.LED_BY_NAME["yellow"] != seat_colours.SCREEN_RGB[3]
    # a 3-player game in its own colours: the empty seat keeps the box's order
    assert seat_colours.every_seat(["green", "red", "yellow"]) == [
        "green", "red", "yellow", "yellow"]
    assert Style(seat_colors=tuple(seat_colours.every_seat(["blue"]))).seat_colors[0] == (0, 0, 255)


def test_the_demo_runs_the_services_config_with_simulated_drivers(tmp_path):
    base = config.defaults()
    cfg = demo_config(base, 3, str(tmp_path / "demo.db"), web=False)
    assert cfg["seats"]["driver"] == "simulated" and cfg["pixels"]["driver"] == "simulated"
    assert cfg["seats"]["pins"] == base["seats"]["pins"][:3]          # one button a player
    assert cfg["seats"]["hold_seconds"] == config.SeatsSettings().hold_seconds
    assert cfg["journal"]["path"] == str(tmp_path / "demo.db")
    assert cfg["scanner"]["port"] == "" and cfg["mqtt"]["host"] == ""
    assert not cfg["web"]["enabled"]
    assert base["journal"]["path"] == config.defaults()["journal"]["path"]   # base unchanged
    no_buttons = demo_config(None, 3, str(tmp_path / "x.db"), buttons=False)
    assert no_buttons["seats"]["driver"] == "none"
