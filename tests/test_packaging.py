"""A plain (not editable) install has everything the table needs: the sound cues, the five
languages, the example catalog. The wheel is built from this tree and installed into a
folder of its own; the installed copy is then used from outside the repository."""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from companion.outputs.sound import CUE_IDS
from timing import scaled

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_installs_with_sounds_locales_and_catalog(tmp_path):
    src = tmp_path / "src"                 # a clean copy: no build/ left in the repository
    shutil.copytree(ROOT / "companion", src / "companion",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "sounds", src / "sounds")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    # what `pip wheel .` runs (PEP 517), without pip's start-up time
    subprocess.run([sys.executable, "-c", "import setuptools.build_meta as b; "
                    f"b.build_wheel({str(tmp_path)!r})"], check=True, timeout=scaled(120), cwd=src,
                   capture_output=True)
    wheel = next(tmp_path.glob("coffee_rush_companion-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"companion/sounds/{cue}.wav" for cue in CUE_IDS} <= names  # in the wheel
    locales = {f"companion/words/locales/{lang}.toml" for lang in ("en", "es", "pt", "it", "ko")}
    assert locales <= names
    site = tmp_path / "site"               # a pure-Python wheel installs by unpacking it
    zipfile.ZipFile(wheel).extractall(site)
    probe = """
import json, companion
from companion.outputs.sound import CUE_IDS, default_folder
from companion.words import i18n
from companion.core.catalog import Catalog
print(json.dumps({"at": companion.__file__,
                  "cues": sorted(c for c in CUE_IDS if (default_folder() / (c + ".wav")).is_file()),
                  "fault": [i18n.tr(l, "fault.try_again") for l in ("en", "es", "pt", "it", "ko")],
                  "cards": len(Catalog.example())}))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = f"import sys; sys.path.insert(0, {str(site)!r})\n" + probe
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env=env, timeout=scaled(60), check=True)
    got = json.loads(out.stdout)
    assert got["at"].startswith(str(site))                 # the installed copy, not this tree
    assert got["cues"] == sorted(CUE_IDS)
    assert got["fault"] == ["Try again", "Reintentar", "Tentar de novo", "Riprova", "다시 시도"]
    assert got["cards"] > 0
