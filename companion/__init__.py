"""Coffee Rush Table Companion: the electronic bookkeeper beside the box."""
import os as _os

# pygame prints a banner on import; the service's log and the demo's output stay clean.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__version__ = "0.1.0"

# every record's generated methods compiled once, not at each start (issue 19)
from companion import dataclass_code as _dataclass_code  # noqa: E402

_dataclass_code.install()
