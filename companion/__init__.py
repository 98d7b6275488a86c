"""Coffee Rush Table Companion: the electronic bookkeeper beside the box."""
import os as _os
import sys as _sys

# pygame prints a banner on import; the service's log and the demo's output stay clean.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# Debian's python3-pygame (2.1.2, the Pi's) depends on numpy and imports it at `import
# pygame`, for pygame.surfarray and sndarray, which the companion never uses: about 210 M
# instructions of the Pi's cold start (issue 19). While pygame's own module runs, numpy
# counts as not installed (as in a venv on PyPI's pygame, which has no numpy); after it,
# numpy imports as ever (hypothesis, for one, looks for it).


class _PygameWithoutNumpy:
    """A finder ahead of the others, for pygame's first import only."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> object:
        if name != "pygame":
            return None
        _sys.meta_path.remove(_PygameWithoutNumpy)  # type: ignore[arg-type]  # (once)
        import importlib.util
        # pygame's own spec, from the finders after this one, to wrap its loader (not a
        # check that it is there: pygame is a dependency; without it, None goes on to
        # Python's own "No module named 'pygame'")
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or "numpy" in _sys.modules:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: object) -> None:
            _sys.modules["numpy"] = None  # type: ignore[assignment]  # (None: "not found")
            try:
                run(module)  # type: ignore[arg-type]
            finally:
                if "numpy" in _sys.modules and _sys.modules["numpy"] is None:
                    del _sys.modules["numpy"]

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "pygame" not in _sys.modules:
    _sys.meta_path.insert(0, _PygameWithoutNumpy)  # type: ignore[arg-type]

__version__ = "0.1.0"

# every record's generated methods compiled once, not at each start (issue 19)
from companion import dataclass_code as _dataclass_code  # noqa: E402

_dataclass_code.install()
