"""Packages: everything under companion/, plus the top-level sounds/ as companion.sounds.

The WAVs live once, at the repository's top (sounds/, made by tools/make_sounds.py);
the wheel carries them in the package companion.sounds and an editable install finds them
through the same package name (importlib.resources.files("companion.sounds")).
"""
from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["companion*"]), "companion.sounds"],
    package_dir={"companion.sounds": "sounds"},
)
