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
# So does pygame.scrap (the clipboard, about 0.5 MB resident measured with the service's
# other imports done; issue 19's memory), which the companion never uses: pygame's __init__
# takes it as optional (`pygame.scrap` becomes its placeholder, which raises
# NotImplementedError when used) without a word; after it, `import pygame.scrap` binds the
# real module. (pygame.mask and pygame.PixelArray are the screen's: its shape copies.)
# pygame.sprite, which the companion never uses either, is loaded lazily (importlib's
# LazyLoader: run on its first use).
_UNUSED_BY_PYGAME = ("numpy", "pygame.scrap")
_LAZY_IN_PYGAME = ("pygame.sprite",)


class _Lazily:
    """A finder ahead of the others while a ``lazily`` holds: the modules it names are
    loaded lazily (importlib's LazyLoader: the module runs on its first attribute use; for
    pure-Python modules only, which is what is asked)."""
    held: list[frozenset[str]] = []      # one entry a ``lazily`` holding (on any thread)

    @classmethod
    def find_spec(cls, name: str, path: object = None, target: object = None) -> object:
        if not any(name in names for names in list(cls.held)):
            return None
        import importlib.machinery
        import importlib.util
        spec = importlib.machinery.PathFinder.find_spec(name, path)  # type: ignore[arg-type]
        if spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = importlib.util.LazyLoader(spec.loader)
        return spec


class lazily:
    """``with lazily("pkg.part"): import pkg``: while it holds, the modules named that are
    imported (as a package's own modules import its parts) run only when first used; a
    part the companion never uses costs nothing (issue 19's memory)."""

    def __init__(self, *names: str) -> None:
        self.names = frozenset(names)

    def __enter__(self) -> None:
        _Lazily.held.append(self.names)
        if _Lazily not in _sys.meta_path:
            _sys.meta_path.insert(0, _Lazily)  # type: ignore[arg-type]

    def __exit__(self, *exc: object) -> None:
        _Lazily.held.remove(self.names)
        if not _Lazily.held and _Lazily in _sys.meta_path:
            _sys.meta_path.remove(_Lazily)  # type: ignore[arg-type]


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
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module: object) -> None:
            hidden = [n for n in _UNUSED_BY_PYGAME if n not in _sys.modules]
            for hide in hidden:
                _sys.modules[hide] = None  # type: ignore[assignment]  # (None: "not found")
            try:
                with lazily(*_LAZY_IN_PYGAME):
                    run(module)  # type: ignore[arg-type]
            finally:
                for hide in hidden:
                    if hide in _sys.modules and _sys.modules[hide] is None:
                        del _sys.modules[hide]

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "pygame" not in _sys.modules:
    _sys.meta_path.insert(0, _PygameWithoutNumpy)  # type: ignore[arg-type]

__version__ = "0.1.0"
