"""The App: the touchscreen's main loop, and the only code that touches pygame.

Threads::

    table loop thread                      main thread (pygame)
    -----------------                      --------------------
    TableLoop.handle(event)
      -> App.on_update(update)   --queue-->  App.step(): wait_events()
         + wake event, UPDATE event            -> process_updates(): screens' on_update
                                               -> screen.draw() -> display.update(rects)
    TableLoop.post(TouchAction)  <--post---  a tap on a widget -> app.post_action({...})

``App.step`` sleeps until an event or an update arrives (see ``wait_events``:
a threading.Event the loop thread sets, plus an unhurried SDL pump for
touches) and only uses a deadline while something must change by itself (a
toast running out). It draws only when a
screen says something changed, and hands only the changed rectangles to the
display. The UI never changes the game: every touch becomes a ``TouchAction``
for the table loop, and the screen redraws from the ``Update`` that comes back.

The App is one of the loop's outputs (``companion.outputs.Output``): the service starts it
in the one list, on the main thread (``Outputs.start(app, main_thread=True)``), so it is
subscribed there and closed after the outputs whose threads use what pygame opened.

Screens: ``show(screen)`` replaces the stack, ``push(screen)`` / ``pop()`` for
screens on top (dialogs, wizard, fix mode); ``open(name, **kwargs)`` builds a
screen listed in ``SCREENS``. Screens the table itself calls for (the end screen
when the game ends, enroll for a card no catalog knows) open by ``ROUTES``, the
one place that says which happening opens or closes which screen.
"""
from __future__ import annotations

import collections
import contextlib
import gc
import importlib
import importlib.util
import logging
import os
import queue
import random
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol
from collections.abc import Callable, Mapping, Sequence

import pygame

from companion.core import events as ev
from companion.core.rules.happenings import (CardEnrolled, DeviceStatusChanged, GameStarted,
                                             UnknownCard)
from companion.core import seat_colours
from companion.words import fonts
from companion.core.draw_prompt import Draws
from . import text
from .screens.base import Pointer, Screen
from .screens.table_view import TableView
from .teaching_view import Teaching

if TYPE_CHECKING:
    from companion.core.snapshot import Snapshot

log = logging.getLogger("companion.outputs.screen")

#: seconds the screen paints nothing ahead while the table loop answers an input it posted
ANSWER_WAIT_S = 0.5
#: seconds a finger on the glass keeps the screen still: nothing painted ahead, no quiet
#: step, no deadline's change (a toast going, a hint moving on) until it lifts, so the tap's
#: answer waits for no step in progress and nothing moves under the finger; a finger left
#: on the glass longer (a resting hand) no longer holds anything back
HELD_STILL_S = 1.0

#: the custom event that wakes the main thread when the table loop has an update
UPDATE_EVENT = pygame.USEREVENT + 7

class _Screens(Mapping[str, type[Screen]]):
    """Screen name -> class, each screen's module imported when the screen is first
    asked for: the first frame needs only the table view (issue 19's cold start)."""

    def __init__(self, where: dict[str, tuple[str, str]]):
        self._where = where

    def __getitem__(self, name: str) -> type[Screen]:
        module, cls = self._where[name]
        return getattr(importlib.import_module(module, __package__), cls)

    def loaded(self, name: str) -> type[Screen] | None:
        """The class, if its module is imported already (else no such screen is open)."""
        module, cls = self._where[name]
        found = sys.modules.get(importlib.util.resolve_name(module, __package__))
        return getattr(found, cls) if found is not None else None

    def __iter__(self):
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


#: screen name -> class; built as Class(app, **kwargs)
SCREENS = _Screens({
    "table": (".screens.table_view", "TableView"),
    "end": (".screens.end", "EndScreen"),
    "fix": (".screens.fix", "FixScreen"),
    "wizard": (".screens.setup_wizard", "WizardScreen"),
    "settings": (".screens.settings", "SettingsScreen"),
    "keyboard": (".keyboard", "KeyboardScreen"),
    "enroll": (".screens.enroll", "EnrollScreen"),
})


POINTER_EVENTS = (pygame.FINGERDOWN, pygame.FINGERUP, pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP)


def pointer_of(event: pygame.event.Event, size: tuple[int, int]) -> Pointer | None:
    """A finger or main mouse button going down or up, in window pixels (else None)."""
    t = event.type
    if t in (pygame.FINGERDOWN, pygame.FINGERUP):
        w, h = size
        pos = (min(w - 1, max(0, round(event.x * w))), min(h - 1, max(0, round(event.y * h))))
        return Pointer("down" if t == pygame.FINGERDOWN else "up", pos, "finger")
    if getattr(event, "touch", False) or event.button != 1:
        return None                     # SDL's copy of a touch, or not the main button
    return Pointer("down" if t == pygame.MOUSEBUTTONDOWN else "up", tuple(event.pos), "mouse")


def _game_over(table: Any) -> bool:
    return table.game is not None and table.game.game_over


@dataclass(frozen=True)
class Route:
    """Screen ``screen`` opens when ``opens(app, was_over)`` says so (after the screens
    took an update in), with the arguments ``kwargs(app)``, unless it is already open;
    it closes (wherever it is on the stack) when ``closes(app, was_over)`` says so.
    ``was_over``: whether the game was over before the update."""
    screen: str
    opens: Callable[[App, bool], bool]
    closes: Callable[[App, bool], bool] = lambda app, was_over: False
    kwargs: Callable[[App], dict] = lambda app: {}


#: which screen the table calls for, in this order
ROUTES: tuple[Route, ...] = (
    # a card no catalog knows: the enroll screen asks ("not now" / save), one tag at a time
    Route("enroll", opens=lambda app, was_over: bool(app.unknown_tags),
          kwargs=lambda app: {"tag": app.unknown_tags.pop(0)}),
    # the game ends: the end screen; an undo that reopens the game closes it again
    Route("end", opens=lambda app, was_over: _game_over(app.table) and not was_over,
          closes=lambda app, was_over: was_over and not _game_over(app.table)),
)


def on_raspberry_pi() -> bool:
    try:
        with open("/proc/device-tree/model", "rb") as fh:
            return b"Raspberry Pi" in fh.read()
    except OSError:
        return False


def display_available(env: Mapping[str, str] | None = None, driver: str = "") -> bool:
    """Whether a window can open here: a desktop session (X11/Wayland), or a
    Linux console with a DRM device (kmsdrm, as on Raspberry Pi OS Lite).

    ``driver`` is ``[display] driver`` from the config; SDL_VIDEODRIVER=dummy
    means no screen.
    """
    if env is None:
        env = os.environ
    driver = env.get("SDL_VIDEODRIVER", "") or driver
    if driver == "dummy":
        return False
    if driver == "offscreen":         # SDL draws into memory: tests and benchmarks
        return True
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return True
    drm = any(os.path.exists(f"/dev/dri/card{i}") for i in range(3))
    if driver in ("kmsdrm", "fbcon", "directfb"):
        return drm or os.path.exists("/dev/fb0")
    return drm and (env.get("TERM") == "linux" or on_raspberry_pi())


#: the window's icon (a desktop's title bar; a Pi's console shows none)
WINDOW_ICON = (150, 132, 112)


def open_display(display_cfg: dict, caption: str = "Coffee Rush companion") -> pygame.Surface:
    """Open the window (or the whole screen) as ``[display]`` in the config says.

    ``driver``: the SDL video driver ("" = SDL's choice, kmsdrm on Raspberry Pi
    OS Lite). ``fullscreen``: "on", "off", or "auto" (fullscreen on a Pi or a
    console driver, a window elsewhere). Raises ``pygame.error`` with SDL's
    message when no display can open.
    """
    driver = display_cfg.get("driver", "")
    if driver:
        os.environ["SDL_VIDEODRIVER"] = driver
    pygame.display.init()
    pygame.font.init()
    size = (int(display_cfg.get("width", 800)), int(display_cfg.get("height", 480)))
    mode = display_cfg.get("fullscreen", "auto")
    current = pygame.display.get_driver()
    full = mode == "on" or (mode == "auto" and (on_raspberry_pi()
                                                or current in ("kmsdrm", "fbcon", "directfb")))
    pygame.display.set_caption(caption)
    # a window icon of our own: without one, set_mode loads pygame's default icon through
    # pygame.pkgdata, which imports setuptools' pkg_resources where it is installed (on
    # the Pi: about 100 M instructions of the cold start, issue 19)
    icon = pygame.Surface((32, 32))
    icon.fill(WINDOW_ICON)
    pygame.display.set_icon(icon)
    if full:
        surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
        pygame.mouse.set_visible(False)
    else:
        surface = pygame.display.set_mode(size)
    return surface


class PhonePairing(Protocol):
    """What Settings shows of the phone view's pairing (``outputs.web``'s ``Pairing``)."""

    def shown(self) -> str: ...

    def phones(self) -> Sequence[Any]: ...

    def renew(self) -> object: ...

    def forget(self, phone_id: str) -> object: ...


#: seconds without a touch or an update before the C heap's free pages go back to the system
QUIET_SECONDS = 5.0


#: objects made and still alive since the last collection after which one is due even while
#: the table is busy (a few games' worth; a quiet table collects long before)
BUSY_COLLECTION = 200_000
#: seconds without a touch or an update before the collection looks at every object
LONG_QUIET_SECONDS = 60.0


def freeze_start_up() -> None:
    """A full collection, the objects of the start-up frozen (``gc.freeze``), and Python's
    automatic collection turned off (``gc.disable``): the screen collects when the table
    is quiet instead (``collect_when_quiet``). Done once, before the service says READY
    (``App.run``): part of the cold start.

    Why off: left on, the collector ran inside taps (each builds some 80 widgets and
    overflows the youngest generation's count every few taps), and it looked at the oldest
    generation too now and then, a step of up to 10 ms a tap could find in progress (issue
    38). Off, the screen collects the young generations once per frame, when its painting
    ahead is done (``App.work_ahead``): a few hundred objects each time. Within a game the
    table makes no cyclic garbage (``tests/test_gc.py``): objects without a cycle are
    freed by their reference counts at once, collector or not. The start-up's objects live
    as long as the service: frozen, no collection looks at them again."""
    gc.collect()
    gc.freeze()
    gc.disable()


def collect_when_quiet(long: bool = False) -> int:
    """Python's garbage collected while the table is idle: the objects made since the
    last such collection (the younger two generations: what survives moves to the oldest,
    so each look stays small however long the game's history grows), or, with ``long``
    (a minute of quiet), every object but the start-up's (a screen closed, such as the
    end screen with its buttons' callbacks, is a reference cycle to collect: nothing
    cyclic waits longer than that). Returns how many objects were collected."""
    found = gc.collect(2 if long else 1)
    if found:
        log.debug("garbage: %d objects in reference cycles collected", found)
    return found


def _setup_posted(action: Any) -> dict | None:
    """The setup the screen or a phone posted for the game that started, if any (a
    script's line reaches the screen without it: a rematch then starts from the game
    itself, ``end.setup_of``)."""
    return dict(action) if action and action.get("do") == "setup" else None


class App:
    """The touchscreen. ``loop`` is the ``TableLoop``; ``surface`` where to draw.
    Built from the loop's table; it follows the table once started as an output
    (``Outputs(loop).start(app, main_thread=True)``).

    ``surface``: the display surface (from ``open_display``) or any Surface (screenshots,
    tests). ``clock``: monotonic seconds (inject in tests). ``seat_colors``: the
    colour of each seat (red, blue, green, yellow unless the wizard chose others).
    """

    def __init__(self, loop: Any, surface: pygame.Surface | None = None,
                 size: tuple[int, int] = (800, 480), language: str = "en",
                 clock: Callable[[], float] = time.monotonic,
                 seat_colors: list | None = None, config: Any = None,
                 on_display: bool | None = None):
        if not pygame.font.get_init():
            pygame.font.init()
        self.loop = loop
        self.config = config
        self.clock = clock
        self.surface = surface if surface is not None else pygame.Surface(size)
        self.on_display = (on_display if on_display is not None
                           else pygame.display.get_init()
                           and self.surface is pygame.display.get_surface())
        self.table: Any = loop.table            # the table as the last update left it
        self.seat_colors = list(seat_colors or seat_colours.SCREEN_RGB)
        #: the draw prompt as the loop's last snapshot has it (what is due, who dismissed it)
        self.draws: Draws = loop.snapshot.draws
        self.version = loop.turn_now()          # ... and its version
        self.shown = self.version                  # the version last drawn
        self._finger: ev.TableVersion | None = None   # the table a finger landed on
        self._finger_at: float | None = None     # when it landed (the App's clock)
        self.devices: dict[str, str] = {}          # device -> last status ("lost", "back", ...)
        self.unknown_tags: list[str] = []           # cards no catalog knows, to enroll
        self.last_setup: dict | None = None      # the setup action of the running game
        self.last_touch: tuple[int, int] | None = None
        self.stack: list[Screen] = []
        self.running = True
        self.quit_on_escape = False                # the demo: Esc closes the window
        #: the randomness of the setup wizards this App opens (a starting player picked,
        #: Cake Time's tiles drawn); None: each its own. Tests inject a seeded one.
        self.rng: random.Random | None = None
        self.pairing: PhonePairing | None = None   # the phone view's pairing code (Settings)
        self.web_url: str | None = None         # where phones open the table
        #: asks for an update (Settings -> Update): returns a problem or None; None where
        #: the program is not installed as releases (a laptop, the demo)
        self.request_update: Callable[[], str | None] | None = None
        #: screens built and painted ahead for the tap that opens them (``prepare``)
        self.ahead_screens: dict[str, Screen] = {}
        self.display_updates = 0                   # how many times pixels went to the display
        self.frames = 0                            # how many draws changed something
        self._updates: queue.Queue[Any] = queue.Queue()
        self._wake = threading.Event()             # set by the loop thread on each update
        self._last_input = 0.0
        self.idle_poll = 0.020                     # s between SDL pumps on an idle screen
        self.active_poll = 0.002                   # ... for a moment after a touch
        self.active_window = 1.5
        self._own: collections.deque = collections.deque(maxlen=64)
        self._collected_at = -1     # the frame after which the garbage was last collected
        self._games_started = 0     # games started while this screen ran
        self._fonts_checked_at = 0  # ... when the type sizes not used since were closed
        self._posted_at: float | None = None    # when the newest input was posted (monotonic)
        self._answered: Any = None             # ... and the newest one the loop answered
        self._received = 0      # updates the loop handed over (written by the loop's thread)
        self._taken = 0         # ... and the screens took in (written by the main thread)
        #: says a sentence aloud, ``speak(text, lang)`` (the voice, when there is one)
        self.speak: Callable[[str, str], None] | None = None
        #: returns the C heap's free pages to the system (the service's ``heap.give_back``),
        #: called once the table is quiet (``give_back_when_quiet``)
        self.give_back: Callable[[], object] = lambda: None
        self.quiet_after = QUIET_SECONDS
        self.long_quiet_after = LONG_QUIET_SECONDS
        self._long_collected_at = -1           # ... and when every object was looked at
        self._active_at = self.clock()         # the newest touch or update taken in
        self._given_back_at = -1               # the frame count when it was last called
        text.set_language(language)
        self.teaching = Teaching(self)             # learn while playing (hints)
        self.show(TableView(self))
        self._route(was_over=False)

    # --- screens --------------------------------------------------------------------------

    @property
    def screen(self) -> Screen:
        return self.stack[-1]

    @property
    def size(self) -> tuple[int, int]:
        return self.surface.get_size()

    def show(self, screen: Screen) -> Screen:
        """Make ``screen`` the only screen (the home screen)."""
        gone, self.stack = self.stack, [screen]
        for s in gone:
            if s is not screen:
                s.closed()
        screen.layout(self.size)
        return screen

    def push(self, screen: Screen) -> Screen:
        """Show ``screen`` on top; ``pop()`` comes back to the one below."""
        self.stack.append(screen)
        screen.layout(self.size)
        return screen

    def pop(self, screen: Screen | None = None) -> None:
        """Close the top screen (or ``screen`` wherever it is); the home screen stays."""
        if screen is None:
            if len(self.stack) > 1:
                self.stack.pop().closed()
        elif screen in self.stack and len(self.stack) > 1:
            self.stack.remove(screen)
            if screen not in self.stack:
                screen.closed()
        self.screen.layout(self.size)

    def open(self, name: str, **kwargs: Any) -> Screen:
        """Push the screen called ``name`` (see ``SCREENS``): the one built ahead, if there
        is one (``prepare``)."""
        ready = None if kwargs else self.ahead_screens.pop(name, None)
        return self.push(ready if ready is not None else SCREENS[name](self, **kwargs))

    def prepare(self, name: str) -> Screen:
        """The screen called ``name``, built ahead for ``open`` (the end screen before the
        END TURN that ends the game: painted while the table is idle). Forgotten after the
        next update unless that update opened it."""
        screen = self.ahead_screens.get(name)
        if screen is None:
            screen = self.ahead_screens[name] = SCREENS[name](self)
        screen.layout(self.size)
        return screen

    def is_open(self, name: str) -> bool:
        """Whether the screen called ``name`` is anywhere on the stack."""
        cls = SCREENS.loaded(name)
        return cls is not None and any(type(s) is cls for s in self.stack)

    def set_language(self, lang: str) -> None:
        text.set_language(lang)
        for s in self.stack:
            s.layout(self.size)

    @property
    def seat_colors(self) -> list:
        """The seats' colours on the screen (RGB), in seat order."""
        return self._seat_colors

    @seat_colors.setter
    def seat_colors(self, colours: list) -> None:
        self._seat_colors = list(colours)
        self.follow_players()

    def follow_players(self) -> None:
        """Tell the words the table's players and seat colours: a name "Play with seat
        colours" gave shows in the screen's language (``text.shown``)."""
        game = getattr(self.table, "game", None)
        names = tuple(p.name for p in game.players) if game is not None else ()
        text.set_players(names, seat_colours.names_of(self.seat_colors[:len(names)]))

    def resize(self, size: tuple[int, int]) -> None:
        for s in self.stack:
            s.layout(size)

    # --- talking to the table loop ----------------------------------------------------------

    @property
    def catalog(self):
        return self.loop.session.catalog

    def post_action(self, action: dict, seat_colors: tuple = ()) -> None:
        """Ask the table loop to apply ``action`` (a table-script action); a setup's
        ``seat_colors`` (colour names) are recorded with it. It carries the version of
        the table on the screen (a finger's: the table it sees): the loop refuses it if
        that has gone stale."""
        seen = self.version if self._finger is None else self._finger
        event = ev.TouchAction(dict(action), at=self.clock(), seat_colors=tuple(seat_colors),
                               seen=seen)
        self._own.append(event)
        self._posted_at = time.monotonic()
        self.loop.post(event)

    def post(self, event: Any) -> None:
        """Post any input event (e.g. an ``EnrollRequest``) to the table loop."""
        self._own.append(event)
        self._posted_at = time.monotonic()
        self.loop.post(event)

    def is_own(self, update: Any) -> bool:
        """Whether ``update`` answers an input this screen posted."""
        return any(update.event is e for e in self._own)

    @property
    def awaiting_answer(self) -> bool:
        """An input this screen posted has no update from the table loop yet (for at most
        ``ANSWER_WAIT_S``): the screen paints nothing ahead meanwhile, as the loop's thread
        needs the interpreter (Python's GIL) to answer it and a step ahead would hold it."""
        posted = self._posted_at
        if posted is None:
            return False
        if self._answered is self._own[-1] or time.monotonic() - posted > ANSWER_WAIT_S:
            self._posted_at = None
            return False
        return True

    def last_posted(self) -> Any:
        """The newest input this screen posted (None before any): a screen tells by it
        whether a tap asked the table loop for something."""
        return self._own[-1] if self._own else None

    # --- the output: started with the loop's snapshot, then every update ------------------

    name = "screen"

    def start(self, snapshot: Snapshot | None = None) -> App:
        """The table as ``snapshot`` has it (on the main thread): a newer table than the one
        this App was built from (the loop moved on meanwhile) is shown afresh."""
        if snapshot is not None and snapshot.version != self.version:
            was_over = _game_over(self.table)
            self.table, self.draws, self.version = snapshot.table, snapshot.draws, snapshot.version
            self.follow_players()
            self.show(TableView(self))
            self._route(was_over)
        return self

    def status(self) -> str:
        """"ok" while the screen runs, "closed" once it is closed."""
        return "ok" if self.running else "closed"

    def on_update(self, update: Any) -> None:
        """Subscriber, on the table loop thread: queue the update and wake the main thread."""
        self._received += 1
        self._updates.put(update)
        self._wake.set()
        with contextlib.suppress(pygame.error):   # no display yet (screenshots, shutting down)
            pygame.event.post(pygame.event.Event(UPDATE_EVENT))

    def process_updates(self) -> int:
        """Hand every queued update to the screens (main thread). Returns how many."""
        n = 0
        while True:
            try:
                u = self._updates.get_nowait()
            except queue.Empty:
                if n:
                    self._active_at = self.clock()
                return n
            n += 1
            self._apply_update(u)
            self._taken += 1

    @property
    def catching_up(self) -> bool:
        """Updates the loop sent are not all taken in by the screens yet (any thread may
        ask: the demo's bots wait for a hint an update brings before they act again)."""
        return self._taken < self._received

    def _apply_update(self, u: Any) -> None:
        if self._own and u.event is self._own[-1]:
            self._answered = u.event          # (the newest input posted is answered)
        was_over = _game_over(self.table)
        self.table = u.table
        self.follow_players()
        if u.snapshot is not None:
            self.draws = u.snapshot.draws
        if u.version is not None:
            self.version = u.version
        self.teaching.on_update(u)
        for h in u.happened:
            if isinstance(h, DeviceStatusChanged):
                self.devices[h.device] = h.status
            elif isinstance(h, GameStarted):
                self._games_started += 1
                self.unknown_tags = []
                self.last_setup = _setup_posted(u.action)
            elif isinstance(h, UnknownCard) and h.tag not in self.unknown_tags:
                self.unknown_tags.append(h.tag)
            elif isinstance(h, CardEnrolled) and h.tag in self.unknown_tags:
                self.unknown_tags.remove(h.tag)
        for s in list(self.stack):
            s.on_update(u)
        self._route(was_over)
        self.teaching.say_due()          # what waits under its card is known now
        for s in self.ahead_screens.values():     # (built for a table that is gone now)
            s.closed()
        self.ahead_screens.clear()

    def _route(self, was_over: bool) -> None:
        """Open and close the screens the table calls for (``ROUTES``)."""
        for route in ROUTES:
            if route.closes(self, was_over):
                for s in [s for s in self.stack if type(s) is SCREENS.loaded(route.screen)]:
                    self.pop(s)
            elif not self.is_open(route.screen) and route.opens(self, was_over):
                self.open(route.screen, **route.kwargs(self))

    # --- pygame events ---------------------------------------------------------------------

    def handle(self, event: pygame.event.Event) -> None:
        """One pygame event: touches and clicks become ``Pointer``s for the screen."""
        t = event.type
        if t == UPDATE_EVENT:
            self.process_updates()
        elif t == pygame.QUIT:
            self.running = False
        elif t in POINTER_EVENTS:
            p = pointer_of(event, self.size)
            if p is not None:
                self._pointer(p)
        elif t == pygame.WINDOWSIZECHANGED:
            self.resize(self.size)
        elif t == pygame.WINDOWEXPOSED:
            self.screen.invalidate()
        elif t in (pygame.KEYDOWN, pygame.KEYUP, pygame.TEXTINPUT, pygame.TEXTEDITING):
            if (t == pygame.KEYDOWN and event.key == pygame.K_ESCAPE and self.quit_on_escape
                    and len(self.stack) == 1):
                self.running = False
                return
            self.screen.handle(event)

    def _pointer(self, p: Pointer) -> None:
        if p.kind == "down":
            self.last_touch = p.pos
            # a tap belongs to the table the finger landed on: the one last drawn while
            # a newer one waits to be drawn (an update taken in the same batch of events)
            self._finger = self.shown if self.screen.needs_draw else self.version
            self._finger_at = self.clock()
        try:
            self.screen.handle(p)
        finally:
            if p.kind == "up":
                self._finger = self._finger_at = None

    @property
    def finger_held(self) -> bool:
        """A finger (or the mouse's button) is down, for at most ``HELD_STILL_S``: the
        screen starts nothing of its own until it lifts (``idle_step``, ``tick``). The
        pressed look answered it going down; its tap is answered when it lifts, and that
        answer then waits for no step painted ahead (issue 38: a tap counted from its
        arrival)."""
        at = self._finger_at
        return at is not None and self.clock() - at < HELD_STILL_S

    # --- drawing and the main loop ----------------------------------------------------------

    def draw(self) -> list[pygame.Rect]:
        """Draw the top screen if it changed; push only changed areas to the display."""
        self.shown = self.version                  # on the screen from now on
        s = self.screen
        if not s.needs_draw:
            return []
        rects = s.draw(self.surface)
        if rects:
            self.frames += 1
            if self.on_display:
                pygame.display.update(rects)
                self.display_updates += 1
        return rects

    def tick(self) -> None:
        """What the clock changed (a toast's time up, a hint read): not while a finger is
        held (``finger_held``; it is done when the finger lifts)."""
        if self.finger_held:
            return
        self.teaching.tick(self.clock())
        deadline = self.screen.next_deadline()
        if deadline is not None and self.clock() >= deadline:
            self.screen.tick(self.clock())

    def wait_timeout_ms(self) -> int | None:
        """How long the main loop may sleep: None = until an event arrives."""
        deadline = min((d for d in (self.screen.next_deadline(),
                                    self.teaching.next_deadline()) if d is not None),
                       default=None)
        if deadline is None:
            return None
        held = self._finger_at
        if held is not None and self.finger_held:   # (not before the finger stops holding)
            deadline = max(deadline, held + HELD_STILL_S)
        return max(1, int((deadline - self.clock()) * 1000) + 1)

    def wait_events(self, timeout_ms: int | None = None) -> list:
        """Sleep until SDL has events, the table loop has an update, or ``timeout_ms``.

        Why not ``pygame.event.wait()``: pygame 2 implements it as a loop that
        pumps SDL every millisecond, which costs several % of a core on an idle
        screen (benchmarks/bench_ui.py). Here the main thread sleeps on a
        threading.Event that the loop thread's subscriber sets (updates wake it
        at once) and pumps SDL for touches every ``active_poll`` s for a moment
        after the last touch, every ``idle_poll`` s otherwise. Before it sleeps, the
        screen paints ahead (``work_ahead``), one small step between looks for input.
        """
        deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        while True:
            events = pygame.event.get()
            if events:
                self._last_input = time.monotonic()
                self._active_at = self.clock()
                return events
            if not self._updates.empty():
                return []
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return []
            if self.idle_step():
                continue        # one small step, then look for input again
            busy = now - self._last_input < self.active_window
            interval = self.active_poll if busy else self.idle_poll
            if deadline is not None:
                interval = min(interval, deadline - now)
            self._wake.wait(interval)
            self._wake.clear()

    def idle_step(self) -> str | None:
        """One small step of the screen's own work while no input waits: painted ahead
        (``work_ahead``: "ahead"), else a quiet table's (``give_back_when_quiet``: "quiet");
        None when there is none now. Nothing while the table loop answers this screen's
        input (``awaiting_answer``), and nothing while a finger is held (``finger_held``)."""
        if self.finger_held:
            return None
        if not self.awaiting_answer and self.work_ahead():
            return "ahead"
        if self.give_back_when_quiet():
            return "quiet"
        return None

    def work_ahead(self) -> bool:
        """One small step of what the top screen paints ahead while nothing waits (the
        frame the likeliest next tap shows, a veiled copy for a dialog): the tap then draws
        little. After a game started, the type sizes no text needed through the whole game
        before it are closed (``fonts.close_idle``: each holds about 0.2 MB of C memory, and
        most are opened for a few texts the screen's caches then draw without them; the
        memory goes back to the system once the table is quiet). Last, Python's young
        garbage is collected, once per frame (``collect_when_quiet``): what the frame and
        its painting ahead made, a few hundred objects (collected every 5 s of quiet, the
        objects of five inputs made one step of up to 10 ms, issue 38); or here once
        ``BUSY_COLLECTION`` objects have piled up, on a table never idle that long. False
        once nothing is left until the next draw."""
        if self.screen.work_ahead(self.surface):
            return True
        if self._games_started != self._fonts_checked_at:
            self._fonts_checked_at = self._games_started
            fonts.close_idle()
            return True
        if gc.isenabled():
            return False
        if self._collected_at != self.frames or gc.get_count()[0] >= BUSY_COLLECTION:
            self._collected_at = self.frames
            collect_when_quiet()
            return True
        return False

    def give_back_when_quiet(self) -> bool:
        """Once the table has been quiet for ``quiet_after`` seconds (no touch, no update)
        since frames were drawn, Python's young garbage is collected if the frame's painting
        ahead did not get to it (one step; the automatic collection is off,
        ``freeze_start_up``), then the C heap's free pages go back to
        the system (``give_back``, the next step), once each until the next frame; after
        ``long_quiet_after`` seconds, one more step collects looking at every object
        (``collect_when_quiet``). Between a game's taps and updates the heap fills with
        freed blocks among live ones, which stay resident until given back: the service
        sits about 1.5 MB lower between games that way (2026-11-27, the 500-game soak).
        Each step is counted with the idle steps (``benchmarks/callgrind_hot_paths.py``):
        a touch in that moment waits for it. True when a step was taken."""
        quiet = self.clock() - self._active_at
        if quiet >= self.long_quiet_after and self._long_collected_at != self.frames \
                and self._given_back_at == self.frames and not gc.isenabled():
            self._long_collected_at = self.frames   # a minute of quiet: every object
            collect_when_quiet(long=True)
            return True
        if self._given_back_at == self.frames or quiet < self.quiet_after:
            return False
        if self._collected_at != self.frames and not gc.isenabled():
            self._collected_at = self.frames     # first the garbage (a step of its own) ...
            collect_when_quiet()
            return True
        self._given_back_at = self.frames        # ... then the heap's free pages
        self.give_back()
        return True

    def step(self) -> None:
        """Wait for the next event or update (or the next animation deadline), handle, draw."""
        for e in self.wait_events(self.wait_timeout_ms()):
            self.handle(e)
        self.process_updates()
        self.tick()
        self.draw()

    def pump(self) -> None:
        """Handle whatever is pending without waiting (tests, screenshots), then draw."""
        if pygame.display.get_init():
            for e in pygame.event.get():
                self.handle(e)
        self.process_updates()
        self.tick()
        self.draw()

    def run(self, should_stop: Callable[[], bool] = lambda: False,
            started: Callable[[], None] = lambda: None) -> None:
        """The main loop, until the window closes or ``should_stop()``; ``started()`` once
        the first frame is on the display (the service then tells systemd it is ready)."""
        self.draw()
        if not gc.get_freeze_count():
            freeze_start_up()
        started()
        while self.running and not should_stop():
            self.step()

    def request_stop(self) -> None:
        """Ask the main loop to end, from any thread: ``run`` returns once the step in
        hand is done. Not from a signal handler itself: setting ``_wake`` takes its lock,
        which the interrupted main thread may hold (the stop signals' thread calls this,
        see appliance/stop_signals.py)."""
        self.running = False
        if pygame.display.get_init():
            pygame.event.post(pygame.event.Event(pygame.QUIT))
        self._wake.set()

    def close(self) -> None:
        """Close the window and the fonts, not the mixer (the sound thread owned it until
        now; call this after the outputs). Safe to call twice."""
        self.running = False
        pygame.display.quit()
        pygame.font.quit()
        # the cached fonts died with pygame.font: using one again crashes the process (every
        # font book forgets them, the summary's too)
        from companion.words import fonts
        from . import widgets
        fonts.forget_fonts()
        widgets.reset_fonts()
        fonts.set_book(None)
