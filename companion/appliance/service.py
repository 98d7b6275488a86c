"""The live service: ``coffee-companion run`` (what systemd starts on the Pi).

Builds everything from the configuration and wires it along the river:

    buttons, scanner, touchscreen --post--> TableLoop --Update--> screen, lights, sound, log

Each adapter is optional and chosen by config; one that cannot start (no GPIO,
no strip, no audio, no scanner plugged in yet) says so once, in words, and the
table carries on without it. The main thread runs the touchscreen when there
is a display, otherwise it just waits for a signal.

Start-up order: the config, the journal (checked before anything is read from or
written to it), the resumed game, the table loop, the screen's first frame, READY=1;
only then the lights, sound, voice, MQTT, the phone view and the buttons and scanner,
on a thread of their own while the screen already answers (their imports are about
a third of a start). A fault page shown before the table starts them first, so the
lights blink the fault.

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

import atexit
import functools
import logging
import os
import threading
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from . import faults, heap, logs
from .config import Config, ConfigError
from companion.core.events import CatalogLoaded, SettingsChanged
from companion.core.journal import Journal, JournalError
from .notify import Notifier
from .stop_signals import StopSignals, wait_for_stop
from companion.core.session import Session
from companion.outputs import Outputs
from companion.core.loop import LogSubscriber, TableLoop, Update
from companion.core.seat_colours import screen_rgb as seat_rgb

if TYPE_CHECKING:                        # pygame loads with the screen, not before
    from companion.core.catalog import Catalog
    from companion.outputs.lights.controller import LightsController
    from companion.outputs.sound import SoundPlayer
    from companion.outputs.screen.app import App
    from companion.outputs.screen.settings_store import Settings
    from companion.outputs.voice import Voice
    from companion.outputs.web.app import PhoneView

log = logging.getLogger("companion.appliance.service")
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


def status_line(table) -> str:
    """What `systemctl status` shows while the table runs, in words."""
    game = table.game
    if game is None:
        return "waiting for a new game (start one on the touchscreen)"
    if game.game_over:
        return "game over: " + ", ".join(p.name for p in game.players)
    rnd = (game.turn - 1) // len(game.players) + 1
    closed = ", shop closed: final round" if game.token == "closed" else ""
    return f"{game.active_player.name}'s turn, round {rnd}{closed}"


class Service:
    #: the inputs' clock (a simulated table's, in the demo: mock-pin presses take no time)
    input_clock: Callable[[], float] = staticmethod(time.monotonic)
    #: how long a configured display may take to appear before it counts as missing
    display_grace: float = 10.0
    #: where the releases are (issue 41: docs/updates.md); the tests' own folder
    update_prefix: str = "/opt/coffee-companion"

    def __init__(self, cfg, headless: bool = False, notifier: Notifier | None = None,
                 catalog: Catalog | None = None, stop_signals: StopSignals | None = None):
        """``catalog``: the cards to know instead of ``[catalog]`` (the demo's example
        catalog). ``stop_signals``: the handlers installed already, handed over by the
        start-up (``Startup``), so that no stop signal falls between its and ours."""
        heap.for_a_long_day()           # before the first thread (the log's, the loop's)
        self.cfg = cfg
        self.headless = headless
        self.notifier = notifier or Notifier()
        #: the last 100 log lines from the start on, for the phone's Companion page
        from companion.outputs.web.live import LogTail
        self.log_tail = LogTail()
        logging.getLogger().addHandler(self.log_tail)
        self.stopping = threading.Event()
        self.journal = Journal(journal_path(cfg), busy_timeout=JOURNAL_BUSY_SECONDS)
        self.catalog_problems: list = []     # broken catalog files, for the screen
        try:
            self.session = Session(self.journal,
                                   catalog if catalog is not None else self._catalog())
        except BaseException:             # a game that does not replay: the fault page
            self.journal.close()          # (the lock goes too: Try again can open it)
            raise
        paths = cfg["catalog"]["paths"]
        self.loop = TableLoop(self.session,
                              catalog_path=os.path.expanduser(paths[0]) if paths else None)
        self.outputs = Outputs(self.loop)    # every output of the loop, in start order
        self.log_words = LogSubscriber(language=cfg["game"]["language"])
        self.outputs.start(self.log_words)
        self.loop.subscribe(self._settings_reached)
        self._watch(self.loop)
        from companion.review.play_link import PlayLink
        #: asks a worker for a finished game's BG Stats link (the snapshot carries it)
        self.play_link = PlayLink(self.loop, cfg["bgstats"]["location"])
        self.loop.subscribe(self.play_link)
        self.inputs: list = []
        self.lights: LightsController | None = None
        self.sound: SoundPlayer | None = None
        self.voice: Voice | None = None
        self.web: PhoneView | None = None    # the phone view (companion.outputs.web), when served
        self.screen_on = False
        self.app: App | None = None          # the touchscreen, once it is up
        self.settings: Settings | None = None    # the screen's settings, once it is up
        self._adapters = threading.Lock()    # held while the adapters start
        self._adapters_started = False
        self._starter: threading.Thread | None = None
        self._stop_signals = stop_signals or StopSignals()
        self._stop_signals.also(lambda _signum: self.stopping.set())
        self._stopped = False

    def _catalog(self):
        """The catalogs; a file that cannot be read is left out (its cards are unknown,
        recorded games do not need them) and kept in ``catalog_problems``."""
        def problem(exc) -> None:
            log.warning("card catalog: %s; its cards are not used (recorded games do not "
                        "need them)", exc)
            self.catalog_problems.append(exc)
        from companion.core.catalog import Catalog
        return Catalog.configured(self.cfg.catalog.paths, self.cfg.catalog.example, problem)

    def _watch(self, loop: TableLoop) -> None:
        """systemd: WATCHDOG=1 from the table loop's own thread, STATUS= on each change."""
        if not self.notifier.enabled:
            return
        if self.notifier.ping_every:
            loop.heartbeat = self.notifier.watchdog
            loop.heartbeat_every = self.notifier.ping_every

        def status(update: Update) -> None:     # on the loop's thread: its snapshot
            shared = update.snapshot if update.snapshot is not None else loop.snapshot
            self.notifier.status(status_line(shared.table))
        loop.subscribe(status)

    def ready(self) -> None:
        """The journal is resumed and the screen is up (or there is none by choice)."""
        self.notifier.ready(status_line(self.loop.snapshot.table))

    def start_outputs(self) -> None:
        """The lights, sound, MQTT and voice (those configured and available), each
        started with the loop's snapshot in the one list of outputs."""
        from companion.outputs.lights.controller import build_lights
        from companion.outputs.sound import build_sound
        lights = _optional("lights", lambda: build_lights(self.cfg))
        sound = _optional("sound", lambda: build_sound(self.cfg, quiet=logs.native_stderr_quiet))
        self.lights, self.sound = lights, sound
        from companion.outputs.mqtt.publisher import build_publisher
        mqtt = _optional("MQTT", lambda: build_publisher(self.cfg, self.loop.snapshot,
                                                         self.journal.path))
        from companion.outputs.voice import build_voice
        self.voice = _optional("voice", lambda: build_voice(self.cfg, sound))
        for output in (lights, sound, mqtt, self.voice):
            if output is not None:
                self.outputs.start(output)

    def start_adapters(self) -> None:
        """The outputs, the phone view and the inputs, once (see ``run``); a stop asked
        meanwhile ends it after the adapter in hand."""
        with self._adapters:
            if self._adapters_started:
                return
            self._adapters_started = True
            for start in (self.start_outputs, self.start_web, self.start_inputs):
                if self.stopping.is_set():
                    return
                start()
                if start == self.start_outputs and self.settings is not None:
                    self.apply_settings(self.settings)   # the screen's, set before they were up
            if self.app is not None and self.web is not None:   # Settings shows the code
                self.app.web_url = self.web.public_url
                self.app.pairing = self.web.pairing
            if self.app is not None and self.voice is not None:  # hints are said aloud too
                self.app.speak = self.voice.say

    def _start_adapters_behind(self) -> None:
        """The first frame is on the display: READY=1, then the adapters on a thread of
        their own, so that the screen answers taps while they start."""
        self.ready()
        self._starter = threading.Thread(target=self.start_adapters, name="service-start",
                                         daemon=True)
        self._starter.start()

    def apply_settings(self, settings, changed: str = "") -> None:
        """Touchscreen settings (language, volume, voice, LED brightness, turn timer) go to
        the table loop as an input, from whichever thread changed them: the loop applies
        them and the outputs learn of them from its update (``_settings_reached``)."""
        self.loop.post(SettingsChanged(settings.language, settings.voice, settings.volume,
                                       settings.brightness, settings.turn_timer, changed))

    def _settings_reached(self, update: Update) -> None:
        """Subscriber (the loop's thread, the one writer of what follows): the settings
        the loop applied reach the log, the voice, the sound and the lights."""
        s = update.event
        if not isinstance(s, SettingsChanged):
            return
        self.log_words.language = s.language
        if self.voice is not None:
            self.voice.language = s.language
            self.voice.enabled = s.voice
        if self.sound is not None:
            self.sound.set_volume(s.volume)
            self.sound.set_turn_timer(s.turn_timer)
        if self.lights is not None:
            self.lights.set_brightness(s.brightness)
            self.lights.set_turn_timer(s.turn_timer)

    def start_web(self) -> None:
        """The phone view on the LAN (``[web]``): one more adapter of the table loop. A
        port already taken gives one warning; the table plays on without it."""
        if not self.cfg["web"]["enabled"]:
            return
        from companion.outputs.web.app import PhoneView
        view = PhoneView(self.loop, self.cfg, journal_path(self.cfg),
                         devices=self.device_status,
                         colours=seat_rgb(self.loop.snapshot.seat_colours) or None,
                         report=self.help_report, request_update=self._update_request(),
                         log_tail=self.log_tail)
        if _optional("phone view", view.start):
            self.web = view
            self.outputs.start(view.live)    # served: it follows the table from now

    def device_status(self) -> dict[str, str]:
        """Each device as the companion page shows it: ok, simulated, off, unavailable
        (what a device reports later, e.g. a scanner lost, the phone view adds)."""
        from companion.devices.buttons import Buttons

        def state(on: bool, simulated: bool = False) -> str:
            return ("simulated" if simulated else "ok") if on else "unavailable"
        buttons = [d for d in self.inputs if isinstance(d, Buttons)]
        seats, pixels = self.cfg["seats"]["driver"], self.cfg["pixels"]["driver"]
        return {
            "buttons": "off" if seats == "none" else state(bool(buttons), seats == "simulated"),
            "scanner": "off" if not self.cfg["scanner"]["port"] else state(self._scanning()),
            "lights": "off" if pixels == "none" else state(self.lights is not None,
                                                           pixels == "simulated"),
            "sound": "off" if not self.cfg["sound"]["enabled"] else state(self.sound is not None),
            "screen": "ok" if self.screen_on else "off",
        }

    def _scanning(self) -> bool:
        """Whether the configured scanner's reader runs (only asked when one is configured:
        pyserial is imported for a scanner only)."""
        from companion.devices.scanner import ScannerReader
        return any(isinstance(d, ScannerReader) for d in self.inputs)

    def start_inputs(self) -> None:
        from companion.devices.buttons import Buttons
        if self.cfg["seats"]["driver"] != "none":
            buttons = _optional("seat buttons",
                                lambda: Buttons.from_config(self.cfg, self.loop.post,
                                                           clock=self.input_clock,
                                                           turn_now=self.loop.turn_now).start())
            if buttons is not None:
                self.inputs.append(buttons)
                buttons.on_code_asked = self.say_pairing_code
        if not self.cfg["scanner"]["port"]:      # no scanner at this table: no pyserial
            return
        from companion.devices.scanner import ScannerReader
        scanner = ScannerReader.from_config(self.cfg, self.loop.post, turn_now=self.loop.turn_now)
        if scanner.enabled:
            self.inputs.append(scanner.start())

    def say_pairing_code(self) -> None:
        """UNDO held long (``Buttons.CODE_HOLD_SECONDS``) on a table without a screen: the
        voice says the phones' pairing code, digit by digit. With a screen Settings shows
        it, and a café's table does not call its code out to the room. Never logged."""
        if self.screen_on or self.voice is None or self.web is None:
            return
        from companion.words.i18n import tr
        lang = self.voice.language
        self.voice.say(tr(lang, "web_pairing.code_heard", code=", ".join(self.web.pairing.code)),
                       lang)
        log.info("the phones' pairing code was said aloud (UNDO held)")

    def on_stop_signal(self, handler: Callable[[], None] | None = None) -> None:
        """SIGTERM, SIGINT and SIGHUP all ask for the same clean stop: ``stopping`` set, and
        ``handler`` (the screen's) called, on the stop signals' own thread (see
        stop_signals.py: the handler itself takes no lock). Only the main thread may set
        handlers; elsewhere a caller stops the service its own way."""
        if handler is not None:
            self._stop_signals.also(lambda _signum: handler())
        self._stop_signals.install()

    def run(self) -> int:
        self.on_stop_signal()
        game = self.session.table.game
        if game is not None:
            log.info("resumed game %s: %s, turn %s%s", self.session.game_id,
                     ", ".join(p.name for p in game.players), game.turn,
                     " (over)" if game.game_over else "")
        self.loop.start()
        try:
            # The first frame and READY=1 wait for nothing but the journal, the table loop
            # and the screen: the lights, sound, voice, MQTT, the phone view and the inputs
            # (with their imports, a third of a start) come right after it, on a thread
            # (issue 19). A fault page shown before the table starts them first: the
            # lights blink the fault.
            if not self.headless and self._screen():
                return 0
            self.start_adapters()
            self.ready()
            self._wait_for_signal()
            return 0
        finally:
            self.shutdown()

    def _screen(self) -> bool:
        """Run the touchscreen on this (main) thread; False when there is no display."""
        surface = self.open_window()
        if surface is None:
            return False
        if not self._fonts_ok(surface) or not self._catalog_ok(surface):
            return True
        self.app = self.build_app(surface)
        self.on_stop_signal(self.app.request_stop)
        self.run_app(self.app)
        return True

    def open_window(self):
        """The surface the touchscreen draws on, or None to run without one."""
        return self._open_screen(self.cfg["display"])

    def run_app(self, app: App) -> None:
        """The touchscreen's main loop, until the window closes or a stop."""
        app.run(should_stop=self.stopping.is_set, started=self._start_adapters_behind)

    def build_app(self, surface) -> App:
        """The touchscreen on ``surface``, wired to the table and the outputs' settings."""
        from companion.outputs.screen.app import App
        from companion.outputs.screen.settings_store import settings_for
        app = App(self.loop, surface=surface, language=self.cfg["game"]["language"],
                  config=self.cfg, on_display=True)   # the display, or the demo's part of it
        if self.web is not None:             # Settings shows the phones' pairing code
            app.pairing, app.web_url = self.web.pairing, self.web.public_url
        app.give_back = heap.give_back        # once the table is quiet
        self.screen_on = True
        settings = settings_for(app)          # the config's values, then the saved screen ones
        app.set_language(settings.language)
        self.settings = settings
        self.apply_settings(settings)
        settings.subscribe(self.apply_settings)
        if self.voice is not None:            # teaching's hints are said aloud too (or
            app.speak = self.voice.say        # once the outputs start behind the first frame)
        saved = self.loop.snapshot.seat_colours   # the loop's latest snapshot: what it shows
        if saved:
            app.seat_colors = seat_rgb(saved)
        self._wire_updates(app)
        # an output like the others, closed after them (their threads use pygame till then)
        return self.outputs.start(app, main_thread=True)

    def help_report(self, pairing) -> bytes:
        """``coffee-companion report`` for a paired phone: the pairing code on the screen
        now is blotted out too."""
        from companion import __version__
        from . import doctor, report
        return report.collect(self.cfg.path, True, doctor.System(), codes=[pairing.code],
                              program_version=__version__)

    def _update_request(self) -> Callable[[str], str | None] | None:
        """How the touchscreen and a paired phone ask for an update, or None where the
        program is not installed as releases (a laptop, the demo)."""
        from . import updates
        if updates.Layout(self.update_prefix).link("current") is None:
            return None
        state = os.path.dirname(journal_path(self.cfg))
        return lambda who: updates.request(state, who=who)

    def _wire_updates(self, app: App) -> None:
        """Where the program is installed as releases: Settings -> Update asks the update
        unit, and an update that went back is said on the screen (once)."""
        from . import updates
        ask = self._update_request()
        if ask is None:
            return
        layout = updates.Layout(self.update_prefix)
        state = os.path.dirname(journal_path(self.cfg))
        app.request_update = functools.partial(ask, "touchscreen")
        went_back = updates.unseen_rollback(layout, state)
        if went_back is not None:
            app.screen.toast(app.screen.t("settings.update_rolled_back",
                                          failed=went_back["failed_release"],
                                          running=went_back.get("running", "?")),
                             kind="warning", seconds=60)

    def _open_screen(self, display: dict):
        """The display surface; None to run without one. A display that is configured
        (a driver named) but missing is a fault: the lights blink it, the log and
        systemd's status say it, and the screen opens as soon as it appears. Early in a
        boot the display's driver may still be loading: for ``display_grace`` seconds a
        missing display is only looked for again (the appliance check's run 11: one boot
        in forty started the table before virtio-gpu's /dev/dri/card0 was there)."""
        from companion.outputs.screen.app import display_available, open_display
        driver = os.environ.get("SDL_VIDEODRIVER", "") or display["driver"]
        shown = None
        patient_until = time.monotonic() + self.display_grace
        while not self.stopping.is_set():
            problem = "no display device found"
            if display_available(driver=display["driver"]):
                try:
                    surface = open_display(display)
                    if shown is not None:
                        log.warning("the display is there now: the touchscreen opens")
                        self._show_fault(None)
                    return surface
                except RuntimeError as exc:          # pygame.error
                    problem = f"the display could not open ({exc})"
            if not driver or driver == "dummy":
                log.info("%s: running without the touchscreen", problem)
                return None
            if shown is None and time.monotonic() < patient_until:
                wait_for_stop(self.stopping, DISPLAY_GRACE_POLL)   # still appearing?
                continue
            if shown is None:
                self.start_adapters()                # the lights blink the fault
                shown = faults.display_fault(driver, problem)
                self._show_fault(shown)
                self.notifier.ready(shown.status())
            wait_for_stop(self.stopping, DISPLAY_RETRY_SECONDS)
        return None

    def _show_fault(self, fault) -> None:
        if fault is not None:
            log.error("%s", fault.status())
            self.notifier.status(fault.status())
        if self.lights is not None:
            self.lights.show_fault(fault is not None)

    def _fonts_ok(self, surface) -> bool:
        """A missing font is shown on the fault page first; False: stop was asked there."""
        from companion.words import fonts
        return self._fault_first(
            surface, lambda: faults.font_fault(self.cfg["game"]["language"], fonts.book().files),
            retry=lambda: fonts.set_book(None))          # look for fonts afresh

    def _catalog_ok(self, surface) -> bool:
        """A broken catalog file is shown on the fault page first: play without it, or
        fix it and Try again. False: stop was asked there."""
        def find():
            return (faults.catalog_fault(self.cfg, self.catalog_problems[0])
                    if self.catalog_problems else None)

        def retry() -> None:            # read the catalogs afresh; the loop swaps them in
            self.catalog_problems.clear()
            catalog = self._catalog()
            self.loop.post(CatalogLoaded(catalog, tuple(str(p) for p in self.catalog_problems)))
        return self._fault_first(surface, find, retry)

    def _fault_first(self, surface, find: Callable[[], Any], retry: Callable[[], None]) -> bool:
        """While ``find()`` reports a fault, show its page before the table: its safe action
        goes on to the table, Try again calls ``retry`` and looks again. False: a stop."""
        while (fault := find()) is not None:
            self.start_adapters()                    # the lights blink the fault
            self._show_fault(fault)
            choice = fault_page(fault, surface, self.cfg, self.notifier, self.stopping)
            self._show_fault(None)
            if choice is None:
                return False
            if choice != faults.RETRY:
                log.warning("going on despite: %s", fault.status())
                return True
            retry()
        return True

    def _wait_for_signal(self) -> None:
        log.info("companion running headless; stop with SIGTERM")
        # in short slices (found by the storage-fault tests: a stop that never came)
        while not wait_for_stop(self.stopping, 3600):
            pass

    def shutdown(self) -> None:
        """The phone view, inputs, table loop, lights, sound, screen, then the journal
        (see the module docstring). Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        self.notifier.stopping()
        self.stopping.set()                  # adapters still starting stop there
        if self._starter is not None:
            self._starter.join(STOP_SECONDS)
        if self.web is not None:             # no phone can post while the rest stops
            _optional("closing the phone view", self.web.close)
        for device in self.inputs:
            _optional("closing an input", device.close)
        loop_ended = self.loop.halt(LOOP_STOP_SECONDS)
        _optional("closing the BG Stats link's worker", self.play_link.close)
        self.outputs.close()                 # in start order (the LEDs go dark first), the
                                             # screen last: the sound thread used pygame
        if loop_ended:
            self.journal.close()
        else:   # still inside a write: the OS closes the file at exit; SQLite's WAL keeps it whole
            log.error("the journal is left open: the table loop is still busy")
        self._stop_signals.restore()
        log.info("companion stopped")
        logging.getLogger().removeHandler(self.log_tail)


DISPLAY_RETRY_SECONDS = 5.0
DISPLAY_GRACE_POLL = 0.25     # s between looks for a display still appearing at boot


def fault_page(fault, surface, cfg: Config | None, notifier: Notifier,
               stopping: threading.Event, config_path: str | None = None,
               act: Callable[[str], None] = lambda _choice: None) -> str | None:
    """Show ``fault`` on ``surface`` until a safe action works (returns it) or a stop
    (None). ``act(choice)`` carries the action out; an OSError it raises is shown
    on the page and the page stays."""
    from companion.words import fonts
    from companion.outputs.screen.screens.fault import FaultPage
    language = faults.screen_language(cfg, config_path)
    if language == "ko" and fonts.book().files.hangul is None:
        language = "en"                   # Korean cannot be drawn without its font
    page = FaultPage(fault, surface, language)

    def started() -> None:
        notifier.ready(fault.status())
    while True:
        choice = page.run(started=started, beat=notifier.watchdog,
                          beat_every=notifier.ping_every or 10.0, should_stop=stopping.is_set)
        if choice is None:
            return None
        try:
            act(choice)
            return choice
        except OSError as exc:
            log.error("%s failed: %s", choice, exc)
            page.failed(f"{exc.strerror or exc}")


def _start(load: Callable[[], Config], config_path: str | None, headless: bool,
           notifier: Notifier, stop_signals: StopSignals):
    """(config, Service, None) when the table can start, else (config or None, None,
    the StartupFault)."""
    try:
        cfg = load()
    except ConfigError as exc:
        return None, None, faults.config_fault(exc, config_path)
    try:
        return cfg, Service(cfg, headless, notifier, stop_signals=stop_signals), None
    except JournalError as exc:
        return cfg, None, faults.journal_fault(os.path.expanduser(cfg["journal"]["path"]), exc)


def main(cfg, headless: bool = False, log_level: str | None = None,
         config_path: str | None = None) -> int:
    """`coffee-companion run`. ``cfg``: the Config, or a function that loads it (so a
    broken config file at ``config_path`` is a fault on the screen, and Try again reads
    it again)."""
    handler = logs.setup(log_level)
    # under systemd: see companion/appliance/logs.py
    if logs.native_stderr_to_log(handler) is not None:
        listener = logs.behind_a_queue(handler)
        atexit.register(listener.stop)
    load = cfg if callable(cfg) else (lambda: cfg)
    return Startup(load, headless, config_path=config_path).run()


class Startup:
    """Start the table; while a start-up fault stops it, show the fault and wait."""

    def __init__(self, load: Callable[[], Config], headless: bool = False,
                 notifier: Notifier | None = None, config_path: str | None = None):
        self.load = load
        self.config_path = config_path
        self.headless = headless
        self.notifier = notifier or Notifier()
        self.stopping = threading.Event()
        self.lights = None
        self.surface = None
        self._stop_signals = StopSignals(lambda _signum: self.stopping.set())

    def run(self) -> int:
        shown = None
        # A SIGTERM, SIGINT or SIGHUP ends the fault page and the process cleanly; the
        # handlers go on to the service with the table (its stop joins ours), so a stop
        # asked while the service is being made is not lost (the arm64 check found a
        # service waiting for ever for a SIGTERM the start-up had taken in).
        self._stop_signals.install()
        svc = None
        try:
            while not self.stopping.is_set():
                cfg, svc, fault = _start(self.load, self.config_path, self.headless,
                                         self.notifier, self._stop_signals)
                if fault is None:
                    break
                if fault != shown:
                    log.error("%s", fault.status())
                    self.notifier.status(fault.status())
                    shown = fault
                self._fault_lights(cfg)
                if self.headless or not self._show(fault, cfg):
                    # no screen to show it on: the lights, the log and systemd's status
                    # say it; try again now and then (the file may be fixed meanwhile)
                    self.notifier.ready(fault.status())
                    self.notifier.watchdog()    # alive: retrying, not hung (a VM check's kill)
                    wait_for_stop(self.stopping, DISPLAY_RETRY_SECONDS)
        finally:
            self._close_fault_lights()
            if svc is None:
                self._stop_signals.restore()
        if svc is None:
            return 0                            # (stopped while a fault showed)
        if self.stopping.is_set():              # (asked before the service's own stop
            svc.shutdown()                      # joined ours: it has not started anything)
            return 0
        return svc.run()

    def _show(self, fault, cfg) -> bool:
        """The fault page until a way out is chosen; False when there is no screen."""
        surface = self._surface(cfg)
        if surface is None:
            return False

        def act(choice: str) -> None:
            if choice == faults.MOVE_JOURNAL_ASIDE:
                faults.move_journal_aside(fault.path)
        fault_page(fault, surface, cfg, self.notifier, self.stopping, self.config_path, act)
        return True

    def _surface(self, cfg):
        if self.surface is None:
            from .config import defaults
            from companion.outputs.screen.app import display_available, open_display
            display = (cfg or defaults())["display"]
            if not display_available(driver=display["driver"]):
                return None
            try:
                self.surface = open_display(display)
            except RuntimeError as exc:              # pygame.error
                log.error("the display could not open to show the fault: %s", exc)
                return None
        return self.surface

    def _fault_lights(self, cfg) -> None:
        if self.lights is None:
            from .config import defaults
            from companion.outputs.lights.controller import build_lights
            self.lights = _optional("lights", lambda: build_lights(cfg or defaults()))
            if self.lights is not None:
                self.lights.show_fault()
                self.lights.start()

    def _close_fault_lights(self) -> None:
        if self.lights is not None:
            _optional("closing the fault lights", self.lights.close)
            self.lights = None
