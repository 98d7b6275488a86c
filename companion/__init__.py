"""Coffee Rush Table Companion: the electronic bookkeeper beside the box."""
import os as _os

# pygame prints a banner on import; the service's log and the demo's output stay clean
# (pygame's own documented switch).
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.1.0"
