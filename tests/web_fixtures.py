"""A service on simulated hardware serving the phone view on a free local port."""
import pytest

from companion import config
from companion.service import Service


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
