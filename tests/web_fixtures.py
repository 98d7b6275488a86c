"""A service on simulated hardware serving the phone view on a free local port."""
import pytest

from companion.appliance import config
from companion.core import events as ev
from companion.appliance.service import Service
from recorder import Recorder


def web_config(tmp_path, port: int = 0):
    cfg = config.defaults()
    cfg["journal"]["path"] = str(tmp_path / "state" / "journal.db")
    cfg["catalog"]["paths"] = [str(tmp_path / "cards.toml")]
    cfg["seats"]["driver"] = "simulated"
    cfg["pixels"]["driver"] = "simulated"
    cfg["pixels"]["segment_length"] = 4
    cfg["sound"]["enabled"] = False
    cfg["web"].update(bind="127.0.0.1", port=port, mdns=False,    # port 0: any free one
                      hosts=["coffee.example"])
    return cfg


@pytest.fixture(scope="module")
def service_with_web(tmp_path_factory):
    svc = Service(web_config(tmp_path_factory.mktemp("web")), headless=True)
    svc.start_outputs()
    svc.start_web()
    svc.loop.start()
    svc.start_inputs()
    assert svc.web is not None
    yield svc
    svc.shutdown()


def new_game(svc, setup: dict, seat_colors: tuple[str, ...] = ()) -> None:
    """Start ``setup`` on the service's table (with the wizard's ``seat_colors``, if any),
    ending first a game another test left running (a fifth dislike closes the shop; the
    round is played out)."""
    rec = Recorder()
    svc.loop.subscribe(rec)
    game = svc.session.table.game
    if game is not None and not game.game_over:
        svc.loop.post(ev.TouchAction({"do": "correct", "player": game.players[0].name,
                                      "dislikes": 5}))
        for _ in game.players:
            svc.loop.post(ev.TouchAction({"do": "end_turn"}))
    svc.loop.post(ev.TouchAction(setup, seat_colors=seat_colors))
    rec.wait_for(lambda u: u.accepted and u.action["do"] == "setup")
    svc.loop.subscribers.remove(rec)
