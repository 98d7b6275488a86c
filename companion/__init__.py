"""Coffee Rush Table Companion: the electronic bookkeeper beside the box."""

__version__ = "0.1.0"
