"""The live service: ``coffee-companion run`` (what systemd starts on the Pi).

Builds everything from the configuration and wires it along the river:

    buttons, scanner, touchscreen --post--> TableLoop --Update--> screen, lights, sound, log

Each adapter is optional and chosen by config; one that cannot start (no GPIO,
no strip, no audio, no scanner plugged in yet) says so once, in words, and the
table carries on without it. The main thread runs the touchscreen when there
is a display, otherwise it just waits for a signal.

Stopping (SIGTERM from systemd, SIGINT from Ctrl-C, SIGHUP from a closed
terminal, or the screen's own exit) always takes the same path, within
``STOP_SECONDS`` whatever the table loop is doing: the inputs stop, then the
loop (it finishes at most the input in hand; queued inputs were never applied
nor acknowledged and are logged as dropped), the lights (dark), the sound,
the screen. The journal is closed last, and only once the loop's thread has
ended: closing SQLite under a thread that still uses it can crash the process.

The journal waits at most ``JOURNAL_BUSY_SECONDS`` for another program's
lock; then the table pauses (screen and lights say so) and resumes by itself.
"""
from __future__ import annotations

import logging
import os
import signal
import threading
from typing import Any
from collections.abc import Callable

from .cli import load_catalog
from .journal import Journal, JournalError
from .session import Session
from .table import LogSubscriber, TableLoop
from .seat_colours import every_seat, screen_rgb as seat_rgb

log = logging.getLogger("companion.service")

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
STOP_SECONDS = 3.0
"""A stop finishes within this long (systemd's stop timeout is longer)."""
LOOP_STOP_SECONDS = 1.5
"""Of which the table loop gets this long to put down the input in hand."""
JOURNAL_BUSY_SECONDS = 0.5
"""A write waits this long for another program's lock before the table pauses."""


def journal_path(cfg) -> str:
    path = os.path.expanduser(cfg["journal"]["path"])
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise JournalError(f"{path}: cannot create the folder {folder} ({exc.strerror})") from None
    return path


def _optional(what: str, build: Callable[[], Any]) -> Any:
    """Build an adapter; a failure is logged in words and the service goes on."""
    try:
        return build()
    except Exception as exc:  # noqa: BLE001 - an adapter must never take the table down
        log.warning("%s unavailable: %s", what, exc)
        return None


class Service:
    def __init__(self, cfg, headless: bool = False):
        self.cfg = cfg
        self.headless = headless
        self.stopping = threading.Event()
        self.journal = Journal(journal_path(cfg), busy_timeout=JOURNAL_BUSY_SECONDS)
        catalog = load_catalog(cfg, warn=lambda problem: log.warning(
            "card catalog: %s; its cards are not used (recorded games do not need them)",
            problem))
        self.session = Session(self.journal, catalog)
        paths = cfg["catalog"]["paths"]
        self.loop = TableLoop(self.session,
                              catalog_path=os.path.expanduser(paths[0]) if paths else None)
        self.log_words = LogSubscriber(language=cfg["game"]["language"])
        self.loop.subscribe(self.log_words)
        from .exports import PlayLink
        self.play_link = PlayLink(self.session, cfg["bgstats"]["location"])   # end screen's QR
        self.loop.subscribe(self.play_link)
        self.outputs: list = []
        self.inputs: list = []
        self.lights = self.sound = self.voice = None
        self.web = None                      # the phone view (companion.web), when served
        self.screen_on = False
        self._close_screen: Callable[[], None] | None = None
        self._stopped = False

    def start_outputs(self) -> None:
        from .lights.controller import build_lights
        from .sound import build_sound
        lights = _optional("lights", lambda: build_lights(self.cfg))
        if lights is not None:
            lights.attach(self.loop)
            self.outputs.append(lights.start())
        sound = _optional("sound", lambda: build_sound(self.cfg))
        if sound is not None:
            sound.attach(self.loop)
            self.outputs.append(sound.start())
        self.lights, self.sound = lights, sound
        from .mqtt.publisher import build_publisher
        mqtt = _optional("MQTT", lambda: build_publisher(self.cfg, self.session,
                                                         self.journal.path))
        if mqtt is not None:
            mqtt.attach(self.loop)
            self.outputs.append(mqtt.start())
        from .voice import build_voice
        self.voice = _optional("voice", lambda: build_voice(self.cfg, sound))
        if self.voice is not None:
            self.outputs.append(self.voice.attach(self.loop).start())

    def apply_settings(self, settings, _changed: str = "") -> None:
        """Touchscreen settings (volume, voice, LED brightness, turn timer) reach the outputs."""
        self.log_words.language = settings.language
        if self.voice is not None:
            self.voice.language = settings.language
            self.voice.enabled = settings.voice
        if self.sound is not None:
            self.sound.set_volume(settings.volume)
            self.sound.set_turn_timer(settings.turn_timer)
        if self.lights is not None:
            self.lights.set_brightness(settings.brightness)
            self.lights.set_turn_timer(settings.turn_timer)

    def show_seat_colors(self, names) -> None:
        """The running game's seat colours (names, recorded with its setup) on the lights;
        seats without a player keep their box colour."""
        if self.lights is not None and names:
            self.lights.set_seat_colors(every_seat(names))

    def _new_seat_colors(self, update) -> None:
        """Subscriber (loop thread, whose session it is): a new game's colours."""
        if any(h.kind == "game_started" for h in update.happened):
            self.show_seat_colors(self.session.seat_colors)
            if self.web is not None and self.session.seat_colors:
                self.web.live.set_colours(seat_rgb(self.session.seat_colors))

    def start_web(self) -> None:
        """The phone view on the LAN (``[web]``): one more adapter of the table loop. A
        port already taken gives one warning; the table plays on without it."""
        if not self.cfg["web"]["enabled"]:
            return
        from .web.app import PhoneView
        view = PhoneView(self.loop, self.cfg, journal_path(self.cfg),
                         devices=self.device_status,
                         colours=seat_rgb(self.session.seat_colors) or None,
                         play_link=self.play_link)
        if _optional("phone view", view.start):
            self.web = view
        else:                                # not served: it need not follow the table
            self.loop.subscribers.remove(view.live)

    def device_status(self) -> dict[str, str]:
        """Each device as the companion page shows it: ok, simulated, off, unavailable
        (what a device reports later, e.g. a scanner lost, the phone view adds)."""
        from .devices.buttons import Buttons
        from .devices.scanner import ScannerReader

        def state(on: bool, simulated: bool = False) -> str:
            return ("simulated" if simulated else "ok") if on else "unavailable"
        buttons = [d for d in self.inputs if isinstance(d, Buttons)]
        scanner = [d for d in self.inputs if isinstance(d, ScannerReader)]
        seats, pixels = self.cfg["seats"]["driver"], self.cfg["pixels"]["driver"]
        return {
            "buttons": "off" if seats == "none" else state(bool(buttons), seats == "simulated"),
            "scanner": "off" if not self.cfg["scanner"]["port"] else state(bool(scanner)),
            "lights": "off" if pixels == "none" else state(self.lights is not None,
                                                           pixels == "simulated"),
            "sound": "off" if not self.cfg["sound"]["enabled"] else state(self.sound is not None),
            "screen": "ok" if self.screen_on else "off",
        }

    def start_inputs(self) -> None:
        from .devices.buttons import Buttons
        from .devices.scanner import ScannerReader
        if self.cfg["seats"]["driver"] != "none":
            buttons = _optional("seat buttons",
                                lambda: Buttons.from_config(self.cfg, self.loop.post,
                                                           turn_now=self.loop.turn_now).start())
            if buttons is not None:
                self.inputs.append(buttons)
        scanner = ScannerReader.from_config(self.cfg, self.loop.post)
        if scanner.enabled:
            self.inputs.append(scanner.start())

    def on_stop_signal(self, handler: Callable[[], None] | None = None) -> None:
        """SIGTERM, SIGINT and SIGHUP all ask for the same clean stop."""
        def stop(signum, _frame) -> None:
            log.info("%s: stopping", signal.Signals(signum).name)
            self.stopping.set()
            if handler is not None:
                handler()
        for sig in STOP_SIGNALS:
            signal.signal(sig, stop)

    def run(self) -> int:
        self.on_stop_signal()
        game = self.session.table.game
        if game is not None:
            log.info("resumed game %s: %s, turn %s%s", self.session.game_id,
                     ", ".join(p.name for p in game.players), game.turn,
                     " (over)" if game.game_over else "")
        self.start_outputs()
        self.show_seat_colors(self.session.seat_colors)
        self.loop.subscribe(self._new_seat_colors)
        self.start_web()
        self.loop.start()
        self.start_inputs()
        try:
            if not self.headless and self._screen():
                return 0
            self._wait_for_signal()
            return 0
        finally:
            self.shutdown()

    def _screen(self) -> bool:
        """Run the touchscreen on this (main) thread; False when there is no display."""
        try:
            import pygame

            from .ui.app import App, display_available, open_display
        except ImportError as exc:
            log.warning("no touchscreen: %s", exc)
            return False
        display = self.cfg["display"]
        if not display_available(driver=display["driver"]):
            log.info("no display found: running without the touchscreen")
            return False
        try:
            surface = open_display(display)
        except pygame.error as exc:
            log.warning("the touchscreen could not open (%s): running without it", exc)
            return False
        from .ui.settings_store import settings_for
        app = App(self.loop, surface=surface, language=self.cfg["game"]["language"],
                  config=self.cfg)
        app.play_links = self.play_link
        if self.web is not None:             # Settings shows the phones' pairing code
            app.pairing, app.web_url = self.web.pairing, self.web.public_url
        self.screen_on = True
        settings = settings_for(app)          # the config's values, then the saved screen ones
        app.set_language(settings.language)
        self.apply_settings(settings)
        settings.subscribe(self.apply_settings)
        saved = self.session.seat_colors      # read before the loop's first input is handled
        if saved:
            app.seat_colors = seat_rgb(saved)
        self.on_stop_signal(lambda: pygame.event.post(pygame.event.Event(pygame.QUIT)))

        def close_screen() -> None:
            # only the display and fonts: the sound thread owned the mixer until now
            pygame.display.quit()
            pygame.font.quit()
        self._close_screen = close_screen      # last, by shutdown(): after loop and outputs
        app.run(should_stop=self.stopping.is_set)
        return True

    def _wait_for_signal(self) -> None:
        log.info("companion running headless; stop with SIGTERM")
        while not self.stopping.wait(3600):
            pass

    def shutdown(self) -> None:
        """The phone view, inputs, table loop, lights, sound, screen, then the journal
        (see the module docstring). Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        if self.web is not None:             # no phone can post while the rest stops
            _optional("closing the phone view", self.web.close)
        for device in self.inputs:
            _optional("closing an input", device.close)
        loop_ended = self.loop.halt(LOOP_STOP_SECONDS)
        for output in self.outputs:            # lights first: the LEDs go dark
            _optional("closing an output", output.close)
        if self._close_screen is not None:
            _optional("closing the screen", self._close_screen)
        if loop_ended:
            self.journal.close()
        else:   # still inside a write: the OS closes the file at exit; SQLite's WAL keeps it whole
            log.error("the journal is left open: the table loop is still busy")
        log.info("companion stopped")


def main(cfg, headless: bool = False, log_level: str | None = None) -> int:
    logging.basicConfig(level=(log_level or "INFO").upper(),
                        format="%(levelname)s %(name)s: %(message)s")
    return Service(cfg, headless).run()
