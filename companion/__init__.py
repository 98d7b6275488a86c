"""Coffee Rush Table Companion: the electronic bookkeeper beside the box."""
import os as _os
import sys as _sys

# pygame prints a banner on import; the service's log and the demo's output stay clean.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# Debian's python3-pygame (2.1.2, the Pi's) depends on numpy and imports it at `import
# pygame`, for pygame.surfarray and sndarray, which the companion never uses: about 210 M
# instructions of the Pi's cold start (issue 19). numpy counts as not installed, as in a
# venv on PyPI's pygame, which does not install it (unless something imported it before).
_sys.modules.setdefault("numpy", None)  # type: ignore[arg-type]  # (None: "not found")

__version__ = "0.1.0"

# every record's generated methods compiled once, not at each start (issue 19)
from companion import dataclass_code as _dataclass_code  # noqa: E402

_dataclass_code.install()
