"""The demo on the screen (SDL dummy driver): the bots play a whole game through
the table loop while the App draws it, and the game is the same one the
terminal demo plays with that seed. Without a display the terminal demo runs."""
import io
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from companion.appliance import demo  # noqa: E402
from companion.outputs.screen.app import display_available  # noqa: E402
from ui_touch import needs_dejavu  # noqa: E402


def _turns(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if line.startswith(("Turn", "  ", "Game over", "Final ranking"))]


@needs_dejavu
def test_screen_demo_plays_the_same_game_as_the_terminal_demo():
    headless = io.StringIO()
    demo.run("original", 3, seed=4, out=headless)
    shown, err = io.StringIO(), io.StringIO()
    rc = demo.run_screen("original", 3, seed=4, speed=100, out=shown, err=err,
                         stop_when_over=True)
    assert rc == 0, err.getvalue()
    assert "Final ranking:" in shown.getvalue()
    assert _turns(shown.getvalue()) == _turns(headless.getvalue())


def test_display_detection():
    assert not display_available({"SDL_VIDEODRIVER": "dummy", "DISPLAY": ":0"})
    assert display_available({"DISPLAY": ":0"})
    assert display_available({"WAYLAND_DISPLAY": "wayland-0"})
