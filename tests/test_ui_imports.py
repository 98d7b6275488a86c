"""What opening the display brings in (CI runs this on both pygames)."""
from __future__ import annotations

import subprocess
import sys
from timing import scaled

OPEN = """
import sys
import pygame.pkgdata
asked = []
get_resource = pygame.pkgdata.getResource
pygame.pkgdata.getResource = lambda *args: asked.append(args) or get_resource(*args)
from companion.outputs.screen.app import open_display
surface = open_display({"driver": "dummy", "fullscreen": "off", "width": 320, "height": 240})
print(surface.get_size(), asked)
"""


def test_opening_the_display_loads_no_default_icon() -> None:
    """Without an icon of its own, set_mode loads pygame's (getResource), and pygame 2.1.2
    imports pygame.pkgdata for it, which imports setuptools' pkg_resources where that is
    installed (on the Pi: about 250 M instructions of the cold start, issue 19)."""
    done = subprocess.run([sys.executable, "-c", OPEN], capture_output=True, text=True,
                          timeout=scaled(120), check=True)
    assert done.stdout.splitlines()[-1] == "(320, 240) []", done.stdout + done.stderr
