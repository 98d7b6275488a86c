"""Where the manual is read on this machine, offline: what ``--help``, ``doctor`` and their
fixes point at.

``install.sh`` links ``/opt/coffee-companion/manual`` to the running release's ``docs/``
(``current/src/docs``: the link follows every update and rollback) and
``/opt/coffee-companion/README.md`` to its README. In a clone (a laptop, a developer) the
manual is the clone's own ``docs/``.
"""
from __future__ import annotations

import os

INSTALLED = "/opt/coffee-companion/manual"
"""The manual install.sh puts on the table (docs/updates.md, "The manual on the table")."""


def folder() -> str:
    """The manual's folder here: the clone's ``docs/`` when the program runs from one, else
    the installed manual."""
    clone = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..",
                         "docs")
    if os.path.isfile(os.path.join(clone, "index.md")):
        return os.path.normpath(clone)
    return INSTALLED


def page(name: str) -> str:
    """Where the manual's page ``name`` (``updates.md``, ``firmware/README.md``) is read."""
    return os.path.join(folder(), name)
