"""What the service benchmarks share (cold start, instructions, memory): the table as
issue 19 measures it, a 200-game journal, the phone view and MQTT configured, against a
real Mosquitto on loopback, with simulated buttons and strip and SDL's offscreen video
and dummy audio drivers.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ``python -c`` this: ``coffee-companion run`` as systemd starts it (``python -m companion``
# without runpy's few lines), ending the process the moment READY=1 has been sent, so that
# an instruction count stops exactly at "first frame on screen and READY=1".
RUN_UNTIL_READY = """\
import os, sys
from companion.appliance import notify
_ready = notify.Notifier.ready
def ready(self, status=''):
    _ready(self, status)
    os._exit(0)
notify.Notifier.ready = ready
sys.argv = ['coffee-companion', '--config', os.environ['BENCH_CONFIG'], 'run']
from companion.commands.cli import main
sys.exit(main())
"""


def mosquitto(folder: str):
    """A real Mosquitto (Debian's) on a free loopback port, started; ``.stop()`` it."""
    sys.path.insert(0, ROOT)
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from tests.cafe_fixtures import Mosquitto
    os.makedirs(folder, exist_ok=True)
    return Mosquitto(folder).start()


def write_config(folder: str, journal: str, mqtt_port: int | None, web: bool = True,
                 extra: str = "") -> str:
    """The table's config file: the phone view on a free port, MQTT to ``mqtt_port``
    (None: no MQTT), the simulated buttons and light strip, sound (SDL's dummy audio
    driver) and voice on as by default."""
    config = os.path.join(folder, "config.toml")
    mqtt = f'host = "127.0.0.1"\nport = {mqtt_port}\n' if mqtt_port else 'host = ""\n'
    web_lines = "port = 0\nbind = \"127.0.0.1\"\n" if web else "enabled = false\n"
    with open(config, "w", encoding="utf-8") as fh:
        fh.write(f'[journal]\npath = "{journal}"\n[catalog]\npaths = []\nexample = true\n'
                 '[seats]\ndriver = "simulated"\n[pixels]\ndriver = "simulated"\n'
                 f'[display]\ndriver = "offscreen"\n[web]\n{web_lines}[mqtt]\n{mqtt}{extra}')
    return config


def child_env(**more: str) -> dict[str, str]:
    """The service's environment (run it with ``cwd=ROOT``, so that ``python -c`` imports
    this checkout's companion): SDL's offscreen video and dummy audio; byte code
    written and used (an installed companion has its .pyc files; without them each
    start compiles every module again)."""
    env = dict(os.environ, SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy",
               SDL_FRAMEBUFFER_ACCELERATION=os.environ.get("SDL_FRAMEBUFFER_ACCELERATION", "0"),
               PYGAME_HIDE_SUPPORT_PROMPT="1", **more)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
