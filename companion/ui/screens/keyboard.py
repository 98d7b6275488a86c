"""The keyboard screen's place in ``app.SCREENS``; it lives in ``companion/ui/keyboard.py``."""
from ..keyboard import KeyboardScreen

__all__ = ["KeyboardScreen"]
