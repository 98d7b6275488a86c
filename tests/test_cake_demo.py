"""``coffee-companion demo --expansion cake_time``: the bots play Cake Time in the terminal
and on the screen (SDL dummy driver), the same game with the same seed."""
import io
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from companion.appliance import demo  # noqa: E402
from companion.commands import demo_cmd  # noqa: E402
from tests.test_ui_demo import _turns  # noqa: E402
from ui_touch import needs_dejavu  # noqa: E402


@needs_dejavu
def test_cake_time_demo_on_screen_plays_the_terminal_game():
    headless = io.StringIO()
    demo.run("original", 2, seed=3, out=headless, expansion="cake_time")
    text = headless.getvalue()
    assert text.startswith("Coffee Rush demo: Coffee Rush + Cake Time")
    assert "A cake on" in text and "+1 cake card" in text and "Final ranking:" in text
    shown, err = io.StringIO(), io.StringIO()
    rc = demo.run_screen("original", 2, seed=3, speed=100, out=shown, err=err,
                         stop_when_over=True, expansion="cake_time")
    assert rc == 0, err.getvalue()
    assert _turns(shown.getvalue()) == _turns(text)


def test_cake_time_is_refused_with_winter(capsys):
    import argparse
    p = argparse.ArgumentParser()
    demo_cmd.add_arguments(p)
    args = p.parse_args(["--edition", "winter", "--expansion", "cake_time", "--headless"])
    assert demo_cmd.main(args) == 2
    assert "Cake Time expands the original game" in capsys.readouterr().err
