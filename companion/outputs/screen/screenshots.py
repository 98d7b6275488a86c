"""Render every screen to PNG files: ``{screen}-{lang}-{w}x{h}.png``.

Each scene starts from a table script (the built-in ``sample_game.jsonl``, a
mid-game with EXAMPLE catalog tags, or the caller's own script), played
through a real table loop and App, then takes the steps a table would (a
rejected touch, the shop closing, a tie at the end, ...) by posting inputs,
never by editing state. The screens of the setup wizard, settings, keyboard and
enroll are rendered too; a screen class may offer
``screenshot_states()`` -> [(suffix, callable)] to be rendered in each of its
states (e.g. each wizard step).

Runs without a screen: SDL's dummy video driver and an off-screen surface.
"""
from __future__ import annotations

import os
from importlib import resources
from collections.abc import Callable, Iterable

SIZES = [(800, 480), (1024, 600)]
SAMPLE = "sample_game.jsonl"
CAKE_SAMPLE = "sample_cake_game.jsonl"      # a Cake Time mid-game for the "cake" scenes


def sample_script(name: str = SAMPLE) -> list[str]:
    sample = resources.files("companion.outputs.screen").joinpath(name)
    return sample.read_text(encoding="utf-8").splitlines()


def _init_pygame() -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    import pygame
    pygame.display.init()
    pygame.font.init()


def make_app(lines: Iterable[str], size: tuple[int, int], lang: str = "en"):
    """A table loop (no journal) that played ``lines``, and an App drawing off-screen."""
    _init_pygame()
    import pygame

    from companion.core.catalog import Catalog
    from companion.core.events import ScriptLine
    from companion.core.session import Session
    from companion.core.loop import TableLoop
    from companion.outputs import Outputs
    from .app import App
    loop = TableLoop(Session(None, Catalog.example()))
    app = Outputs(loop).start(App(loop, surface=pygame.Surface(size), language=lang,
                                  clock=_FrozenClock()), main_thread=True)
    for n, line in enumerate(lines, 1):
        loop.post(ScriptLine(line, n))
    settle(app)
    return loop, app


class _FrozenClock:
    """Screenshots are stills: time stands still so toasts stay up."""
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def settle(app) -> None:
    """Let the loop apply everything queued and the screens take it in."""
    app.loop.drain()
    app.process_updates()


def tap_widget(app, name: str) -> bool:
    """Tap the widget called ``name`` on the top screen, as a finger would."""
    from .screens.base import Pointer
    app.screen.draw(app.surface)
    for w in app.screen._widgets:
        if w.name == name:
            app.last_touch = w.rect.center
            app.screen.handle(Pointer("down", w.rect.center))
            app.screen.handle(Pointer("up", w.rect.center))
            settle(app)
            return True
    return False


def act(app, action: dict) -> None:
    app.post_action(action)
    settle(app)


# --- scenes: name -> function(app) that brings the app into that state ----------------

def _draws(app):
    pass                                   # the script's last turn made players draw


def _table(app):
    app.screen._dismiss_draws()


def _toast(app):
    _table(app)
    game = app.table.game
    empty = next((i for i, pos in enumerate(game.active_player.queue) if not pos), 0)
    app.screen.draw(app.surface)
    slot = next(w for w in app.screen._widgets if w.name == f"act.pos{empty + 1}")
    app.last_touch = slot.rect.center
    act(app, {"do": "complete", "slot": empty + 1})


def _upgrade(app):
    _table(app)
    if not tap_widget(app, "ft.upgrade"):
        game = app.table.game
        me = game.active_player
        act(app, {"do": "correct", "player": me.name, "likes": max(3, me.likes)})
        tap_widget(app, "ft.upgrade")


def _spend(app):
    _table(app)
    tap_widget(app, "ft.spend")
    tap_widget(app, "dlg.count.plus")


def _fix_guard(app):
    _table(app)
    tap_widget(app, "ft.fix")


def _fix(app):
    _fix_guard(app)
    tap_widget(app, "dlg.ok")
    tap_widget(app, "fix.1.likes.plus")
    tap_widget(app, "fix.1.dislikes.plus")


def _enroll(app):
    _table(app)
    from companion.core.events import CardScanned
    app.loop.post(CardScanned("04A1B2C3D4"))
    settle(app)


def _closed(app):
    _table(app)
    from companion.core.events import DeviceStatus
    app.loop.post(DeviceStatus("scanner", "lost", "USB cable unplugged"))
    app.loop.post(DeviceStatus("buttons", "connected"))
    settle(app)
    app.screen._toasts.clear()
    game = app.table.game
    other = game.players[(game.active + 1) % len(game.players)]
    act(app, {"do": "correct", "player": other.name, "dislikes": 5})   # the shop closes


def finish_game(app) -> None:
    """Close the shop (5 dislikes for the active player) and end turns until the game is over."""
    g = app.table.game
    act(app, {"do": "correct", "player": g.active_player.name, "dislikes": 5})
    for _ in range(len(g.players) + 1):
        if app.table.game.game_over:
            break
        act(app, {"do": "end_turn"})


def make_tie(app) -> None:
    """After the game: correct the counts so seats 0 and 1 tie on points (seat 1 has more
    likes) and seats 2 and 3 tie on points, likes and tokens (a shared place)."""
    g = app.table.game
    e = g.rules
    lw, uw = e.like_points, e.upgrade_points
    p = g.players
    u = [len(x.upgrades) for x in p]
    a, k = 9, 0
    while lw * (1 + k) + (u[1] - u[0]) * uw < 0:
        k += 1
    plan = {p[0].name: (a, 0, 1), p[1].name: (a + 1 + k, lw * (1 + k) + (u[1] - u[0]) * uw, 1)}
    if len(p) > 3:
        d2 = max(0, (u[2] - u[3]) * uw)
        plan[p[2].name] = (4, d2, 2)
        plan[p[3].name] = (4, d2 + (u[3] - u[2]) * uw, 2)
    elif len(p) == 3:
        plan[p[2].name] = (2, 0, 0)
    for name, (likes, dislikes, cookies) in plan.items():
        act(app, {"do": "correct", "player": name, "likes": likes, "dislikes": dislikes,
                  "cookies": cookies})


def _end_tie(app):
    _table(app)
    finish_game(app)
    make_tie(app)


def _why_draws(app):
    """"Why?" after the script's order surge: a touch on another seat's "+N"."""
    app.screen._toasts.clear()
    app.screen.draw(app.surface)
    badge = next((w.name for w in app.screen._widgets
                  if w.name.startswith("draw.p") and w.name.endswith(".why")), "draw.act.why")
    tap_widget(app, badge)


def _why_closed(app):
    """"Why?" on the CLOSED sign."""
    _closed(app)
    app.screen._toasts.clear()
    tap_widget(app, "hdr.sign.why")


def _why_tie(app):
    """"Why?" on the end screen's first tie-break."""
    _end_tie(app)
    app.screen._toasts.clear()
    tap_widget(app, "end.tie0.why")


def _nogame(app):
    pass


def _teach(app):
    """A taught first game: the intro read, Ana completes two orders and ends her turn:
    the order surge is explained as it happens."""
    from .text import language
    names = ["민수", "지우", "서연"] if language() == "ko" else ["Ana", "Ben", "Chloe"]
    app.teaching.set_enabled(True)
    act(app, {"do": "setup", "edition": "original", "players": names, "start": names[0]})
    while tap_widget(app, "teach.ok"):
        pass
    act(app, {"do": "complete", "slot": 1})
    act(app, {"do": "complete", "slot": 1})
    act(app, {"do": "end_turn"})


def _fault_journal(app):
    """The start-up fault page for a damaged journal (companion/appliance/faults.py)."""
    from companion.outputs import MOVE_JOURNAL_ASIDE, StartupFault
    from .screens.fault import FaultScreen
    path = "/var/lib/coffee-companion/journal.db"
    app.push(FaultScreen(app, StartupFault(
        "journal", f"{path} is damaged or not a journal (file is not a database); it was "
        "left as it is", path, MOVE_JOURNAL_ASIDE, {"path": path})))


# --- table script 1.2 at the table (each starts from its own short game) ----------------

def _own_game(app, setup: dict) -> None:
    act(app, setup)
    tap_widget(app, "ban.cake.done")           # Cake Time: no cake on the deck's back
    app.screen._dismiss_draws()


_CAKE_2P = {"do": "setup", "edition": "original", "players": ["Ana", "Ben"],
            "expansion": "cake_time"}


def _cake_choice(app):
    """A touch on a position holding orders with and without a cake asks which."""
    _own_game(app, _CAKE_2P)
    act(app, {"do": "cake", "player": "Ana", "slot": 1})
    tap_widget(app, "act.pos1")


def _cake_guess(app):
    """A seat button's double tap took one of them: a touch on the position offers the
    other one, instead or as well."""
    from companion.core.events import SeatTap
    _cake_choice(app)
    tap_widget(app, "dlg.cancel")
    app.loop.post(SeatTap(0, count=2))
    settle(app)
    tap_widget(app, "act.pos1")


def _reopened(app):
    """Fix took the fifth dislike away: the shop is open again, and the screen says why."""
    _closed(app)
    g = app.table.game
    other = g.players[(g.active + 1) % len(g.players)]
    act(app, {"do": "correct", "player": other.name, "dislikes": 4})


def _spend_waiting(app):
    """A token won by this turn's order waits: Spend offers the rest and says why."""
    _own_game(app, {"do": "setup", "edition": "winter", "players": ["Ana", "Ben"]})
    act(app, {"do": "complete", "specialty": True})
    tap_widget(app, "ft.spend")


SCENES: dict[str, tuple[Callable, bool]] = {
    # name: (scene, starts from the script?)
    "table": (_table, True),
    "table-draws": (_draws, True),
    "table-toast": (_toast, True),
    "table-closed": (_closed, True),
    "table-upgrade": (_upgrade, True),
    "table-spend": (_spend, True),
    "table-enroll": (_enroll, True),
    "fix-guard": (_fix_guard, True),
    "fix": (_fix, True),
    "end-tie": (_end_tie, True),
    "table-why": (_why_draws, True),
    "table-why-closed": (_why_closed, True),
    "end-why": (_why_tie, True),
    "nogame": (_nogame, False),
    "fault-journal": (_fault_journal, False),
    "table-reopened": (_reopened, True),
    "table-spend-waiting": (_spend_waiting, False),
    "table-cake-choice": (_cake_choice, False),
    "table-cake-guess": (_cake_guess, False),
}
SCENES["table-teach"] = (_teach, False)      # a taught first game (companion/core/teaching.py)


def _taught_game_of_two(app, cake: bool) -> None:
    """A taught first game of two: Ana completes an order and ends her turn; the flow of
    time is explained over Ben's positions 1-3, beside Ana's panel, which it talks about.
    With Cake Time, Ben's draw asks "Cake on the deck's back?" first, and the question waits
    under the card, which lies over his positions 1-3 as tall as they are without it (its
    band once left them too short, and the card took the side column over Ana's panel)."""
    from .text import language
    names = ["민수", "지우"] if language() == "ko" else ["Ana", "Ben"]
    app.teaching.set_enabled(True)
    setup = {"do": "setup", "edition": "original", "players": names, "start": names[0]}
    act(app, dict(setup, expansion="cake_time") if cake else setup)
    while tap_widget(app, "teach.ok"):
        pass
    if cake:
        tap_widget(app, "ban.cake.done")
    act(app, {"do": "complete", "slot": 1})
    act(app, {"do": "end_turn"})
    while app.teaching.current is not None and app.teaching.current.key != "flow_of_time":
        tap_widget(app, "teach.ok")


SCENES["table-teach-two"] = (lambda app: _taught_game_of_two(app, cake=False), False)
SCENES["table-cake-teach-two"] = (lambda app: _taught_game_of_two(app, cake=True), False)


def _cake_question_next(app) -> None:
    """The taught game of two with Cake Time, one hint on: the last card before the cake
    question, whose "Got it" reads "Next: cake?" (every card over the question says it
    waits, in its pink with its cake)."""
    _taught_game_of_two(app, cake=True)
    while len(app.teaching.queue) > 1:
        tap_widget(app, "teach.ok")


SCENES["table-cake-teach-next"] = (_cake_question_next, False)


def _draws_next(app) -> None:
    """The taught game of two without Cake Time, one hint on: the last card before the
    2-player draw's prompt ("Ana draws 1"), which waits under it: its "Got it" reads
    "Next: draws" in the prompt's yellow with a card to draw."""
    _taught_game_of_two(app, cake=False)
    while len(app.teaching.queue) > 1:
        tap_widget(app, "teach.ok")


SCENES["table-teach-draws-next"] = (_draws_next, False)

def _cake_table(app):
    """Cake Time: the table answered the cake question for Ben's new card, then the
    draw prompt went away: cakes on orders, cake cards, the Cake card button."""
    tap_widget(app, "ban.cake.1")
    tap_widget(app, "ban.cake.done")
    app.screen._dismiss_draws()


def _cake_break_time(app):
    """Cake Time: Ana's turn comes round again; her Break Time would pay."""
    _cake_table(app)
    act(app, {"do": "end_turn"})
    tap_widget(app, "ban.cake.done")
    act(app, {"do": "end_turn"})
    tap_widget(app, "ban.cake.done")
    app.screen._dismiss_draws()


def _cake_fix(app):
    _cake_table(app)
    tap_widget(app, "ft.fix")
    tap_widget(app, "dlg.ok")
    tap_widget(app, "fix.1.cake_cards.plus")


# Scenes of the Cake Time sample (their file names contain "cake").
CAKE_SCENES: dict[str, Callable] = {
    "table-cake": _cake_table,
    "table-cake-draws": _draws,
    "table-cake-break-time": _cake_break_time,
    "fix-cake": _cake_fix,
}

# A whole game played to its end (the demo's bots): the end screen and its story.
FINISHED_SAMPLE = "sample_finished_game.jsonl"


def _end(app):
    """The game is over: the end screen, with its BG Stats link as a real table has it
    (the finished game recorded in a journal, its link made by the service's own worker
    function), so the screenshots show what players see."""
    import tempfile
    from companion.core.events import PlayLinkFound
    from companion.core.journal import Journal
    from companion.core.session import Session
    from companion.review.play_link import make_link
    with tempfile.TemporaryDirectory() as folder, \
            Journal(os.path.join(folder, "journal.db"), clock=lambda: 1_760_000_000.0) as j:
        session = Session(j)
        for line in sample_script(FINISHED_SAMPLE):
            session.apply_line(line)
        game_id = j.current_game_id
        record = j.game(game_id) if game_id is not None else None
        link = make_link(record, j.lines(game_id)) if record is not None else None
    app.loop.post(PlayLinkFound(app.loop.version, link))
    settle(app)


def _story(app):
    tap_widget(app, "end.story")


def _end_code(app):
    """"BG Stats" on the end screen: the code on a page of its own."""
    _end(app)
    tap_widget(app, "end.qr")


STORY_SCENES: dict[str, Callable] = {
    "end": _end,
    "end-code": _end_code,
    "story": _story,
}

OTHER_SCREENS = ["wizard", "settings", "keyboard", "enroll"]


def _other_screen_states(app, name: str) -> list[tuple[str, Callable]]:
    """Screen ``name`` as (file name, prepare(app)) pairs: one per state its
    ``screenshot_states()`` lists, or just the screen as it opens."""
    from .app import SCREENS
    cls = SCREENS[name]
    kwargs = {"tag": "04A1B2C3D4"} if name == "enroll" else {}
    try:
        probe = cls(app, **kwargs)
        suffixes = [suffix for suffix, _ in probe.screenshot_states()] \
            if hasattr(probe, "screenshot_states") else []
    except Exception:          # a screen still being written must not stop the others
        suffixes = []
    if not suffixes:
        return [(name, lambda app: app.open(name, **kwargs))]

    def prepare(suffix):
        def go(app):
            screen = app.open(name, **kwargs)
            for s2, put_in_state in screen.screenshot_states():
                if s2 == suffix:
                    put_in_state()
        return go
    return [(f"{name}-{suffix}" if suffix else name, prepare(suffix)) for suffix in suffixes]


def scene_jobs(lines: list[str], size: tuple[int, int], lang: str
               ) -> list[tuple[str, Callable, list[str]]]:
    """Every scene as (name, prepare(app), the script it starts from): the table's scenes,
    Cake Time's, the finished game's and each state of the other screens."""
    jobs: list[tuple[str, Callable, bool | str]] = [
        (name, fn, from_script) for name, (fn, from_script) in SCENES.items()]
    jobs += [(name, fn, CAKE_SAMPLE) for name, fn in CAKE_SCENES.items()]
    jobs += [(name, fn, FINISHED_SAMPLE) for name, fn in STORY_SCENES.items()]
    _, probe_app = make_app(lines, size, lang)
    for other in OTHER_SCREENS:
        for name, prep in _other_screen_states(probe_app, other):
            jobs.append((name, prep, True))
    return [(name, fn, sample_script(start) if isinstance(start, str) else
             lines if start else []) for name, fn, start in jobs]


def render_scene(start: list[str], prepare: Callable, size: tuple[int, int], lang: str):
    """An App that played ``start`` in ``lang`` and was brought into a scene by
    ``prepare``, its screen drawn whole."""
    _, app = make_app(start, size, lang)
    prepare(app)
    app.screen.invalidate()
    app.screen.draw(app.surface)
    return app


def render_all(outdir: str, script: list[str] | None = None,
               sizes: Iterable[tuple[int, int]] = SIZES, languages: Iterable[str] = ("en",),
               only: Iterable[str] | None = None, log: Callable[[str], None] = lambda s: None
               ) -> list[str]:
    """Write every scene at every size in every language; return the file names."""
    _init_pygame()
    import pygame
    lines = script if script is not None else sample_script()
    os.makedirs(outdir, exist_ok=True)
    written = []
    wanted = set(only) if only else None
    for lang in languages:
        for size in sizes:
            w, h = size
            for name, fn, start in scene_jobs(lines, size, lang):
                if wanted is not None and name not in wanted:
                    continue
                app = render_scene(start, fn, size, lang)
                path = os.path.join(outdir, f"{name}-{lang}-{w}x{h}.png")
                pygame.image.save(app.surface, path)
                written.append(path)
                log(path)
    return written
