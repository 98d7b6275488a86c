"""What importing the companion brings in: Debian's pygame 2.1.2 (the Pi's) imports numpy at
`import pygame` when it can (issue 19: about 210 M instructions of the cold start); the
companion never uses numpy, so it counts as not installed (CI runs this on both pygames)."""
from __future__ import annotations

import os
import subprocess
import sys

CHECK = """
import sys
import companion
import pygame
import pygame.draw
print("numpy" in sys.modules, "pygame.surfarray" in sys.modules)
"""


def test_importing_the_companion_and_pygame_does_not_import_numpy() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split() == ["False", "False"], done.stdout + done.stderr


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
                          timeout=120, check=True)
    assert done.stdout.splitlines()[-1] == "(320, 240) []", done.stdout + done.stderr


UNUSED = """
import sys, warnings
warnings.simplefilter("error")          # pygame says nothing about the modules left out
import companion
import pygame
left_out = [n for n in ("pygame.scrap",) if n in sys.modules]
lazy = type(pygame.sprite).__name__
import pygame.scrap
import pygame.sprite
from companion.outputs.screen import widgets
shown = pygame.display.set_mode((40, 30))
copy, held = widgets._shape_copy(shown, pygame.Rect(0, 0, 40, 30), 6, (((200, 0, 0), 0),))
print(left_out, lazy, pygame.scrap.get_init.__name__, pygame.sprite.Group.__name__,
      copy.get_at((20, 15)) == copy.get_colorkey())
"""


def test_pygame_modules_the_companion_never_uses_are_left_out_and_import_when_asked() -> None:
    """pygame.scrap is not imported with pygame (about 0.5 MB of the service's memory,
    issue 19), pygame.sprite only when used; each works when imported. What the screen
    uses of pygame's optional modules works after `import companion` (its shape copies take
    pygame.mask and PixelArray: a filled shape's copy is hollow)."""
    done = subprocess.run([sys.executable, "-c", UNUSED], capture_output=True, text=True,
                          timeout=120, check=True, env={**os.environ, "SDL_VIDEODRIVER": "dummy"})
    assert done.stdout.split() == ["[]", "_LazyModule", "get_init", "Group", "True"], (
        done.stdout + done.stderr)
