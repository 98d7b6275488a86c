"""The setup wizard's place in ``app.SCREENS``; it lives in ``screens/setup_wizard.py``."""
from .setup_wizard import WizardModel, WizardScreen

__all__ = ["WizardModel", "WizardScreen"]
