"""What importing the companion brings in: Debian's pygame 2.1.2 (the Pi's) imports numpy at
`import pygame` when it can (issue 19: about 210 M instructions of the cold start); the
companion never uses numpy, so it counts as not installed (CI runs this on both pygames)."""
from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import companion
import pygame
import pygame.draw
print(sys.modules.get("numpy", "absent"), "pygame.surfarray" in sys.modules)
"""


def test_importing_the_companion_and_pygame_does_not_import_numpy() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          timeout=120, check=True)
    assert done.stdout.split() == ["None", "False"], done.stdout + done.stderr
