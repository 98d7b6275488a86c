"""install.sh's release layout (issue 41), run for real on a temporary prefix: the first
install of the layout, the migration from today's one venv, an install of a new commit beside
the running one (previous kept, older ones pruned), a re-run of the same commit. Its shell
functions are taken from install.sh as they are; the venvs are real (`python3 -m venv`), only
pip's download and install of the package are left out (a .pth to the release's source)."""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PYTHON3 = f"""#!/bin/sh
# python3 -m venv ...: a real venv without pip, and a pip that puts the source on its path
if [ "$1 $2" = "-m venv" ]; then
    shift 2
    venv=""
    for a in "$@"; do case $a in -*) ;; *) venv=$a ;; esac; done
    {sys.executable} -m venv --without-pip "$venv" || exit 1
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
    cat > "$venv/bin/pip" <<X
#!/bin/sh
case " \\$* " in
  *" install "*) for a in "\\$@"; do
      case \\$a in */src|*/src\\[*) echo "\\${{a%%[*}}" > "$site/release.pth" ;; esac
    done ;;
  *) exit 1 ;;
esac
X
    chmod +x "$venv/bin/pip"
    printf '#!/bin/sh\\nexec "%s/bin/python" -m companion "$@"\\n' "$venv" \\
        > "$venv/bin/coffee-companion"
    chmod +x "$venv/bin/coffee-companion"
    exit 0
fi
exec {sys.executable} "$@"
"""


def functions() -> str:
    script = (ROOT / "install.sh").read_text(encoding="utf-8")
    start = script.index("release_name() {")
    end = script.index("\ninstall_release\n")
    return script[start:end]


def source_tree(tmp_path: Path, version: str) -> Path:
    """A clone with the program's package (the real one) at ``version``."""
    src = tmp_path / "clone"
    if not src.exists():
        shutil.copytree(ROOT / "companion", src / "companion",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ROOT / "constraints", src / "constraints")
        shutil.copy(ROOT / "README.md", src / "README.md")
        shutil.copytree(ROOT / "docs", src / "docs",
                        ignore=shutil.ignore_patterns("screenshots", "records"))
        for args in (["init", "-q", "-b", "main"], ["config", "user.email", "t@example.org"],
                     ["config", "user.name", "t"],
                     ["remote", "add", "origin", "https://example.org/coffee-rush.git"]):
            subprocess.run(["git", "-C", str(src), *args], check=True)
    init = src / "companion" / "__init__.py"
    init.write_text(re.sub(r'__version__ = "[^"]*"', f'__version__ = "{version}"',
                           init.read_text(encoding="utf-8")), encoding="utf-8")
    subprocess.run(["git", "-C", str(src), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(src), "commit", "-q", "-m", version], check=True)
    return src


def install(tmp_path: Path, src: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").write_text(PYTHON3)
    (bin_dir / "python3").chmod(0o755)
    prefix = tmp_path / "opt"
    script = f"""set -eu
say() {{ printf '==> %s\\n' "$*"; }}
die() {{ printf 'install.sh: %s\\n' "$*" >&2; exit 1; }}
PREFIX={prefix}; VENV=$PREFIX/current/venv; SRC={src}; ARCH=x86_64; EXTRA=pi
RELEASE=test; PY_WANTED={sys.version_info.major}.{sys.version_info.minor}
{functions().replace("/usr/local/bin", str(bin_dir))}
install_release
"""
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, cwd=str(src),
                         env=dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}"))
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def link(prefix: Path, name: str) -> str | None:
    p = prefix / name
    return os.readlink(p) if p.is_symlink() else None


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_install_sh_makes_the_release_layout_and_migrates_the_one_venv(tmp_path):
    prefix = tmp_path / "opt"
    (prefix / "venv" / "bin").mkdir(parents=True)        # today's layout: one venv
    src = source_tree(tmp_path, "0.1.0")
    said = install(tmp_path, src)
    commit = subprocess.run(["git", "-C", str(src), "rev-parse", "--short=10", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
    first = f"0.1.0-{commit}"
    assert link(prefix, "current") == f"releases/{first}"
    assert link(prefix, "previous") is None
    assert (prefix / "releases" / first / ".complete").exists()
    assert (prefix / "origin").read_text() == "https://example.org/coffee-rush.git\n"
    assert (prefix / "extras").read_text() == "\n"                  # a PC: no Pi extra
    assert "installed coffee-companion 0.1.0" in said
    # the service still runs from the old venv until install.sh restarts it from current:
    # finish_migration removes it then (after this function)
    assert (prefix / "venv").is_dir()
    assert "finish_migration" in (ROOT / "install.sh").read_text(encoding="utf-8")
    # the same commit again: nothing rebuilt, nothing switched
    again = install(tmp_path, src)
    assert f"release {first} is already built" in again
    assert link(prefix, "current") == f"releases/{first}"
    # a new commit: built beside, the running one kept as previous
    install(tmp_path, source_tree(tmp_path, "0.2.0"))
    second = os.path.basename(link(prefix, "current"))
    assert second.startswith("0.2.0-") and link(prefix, "previous") == f"releases/{first}"
    third_src = source_tree(tmp_path, "0.3.0")
    install(tmp_path, third_src)
    third = os.path.basename(link(prefix, "current"))
    assert sorted(os.listdir(prefix / "releases")) == sorted([second, third])   # pruned
    # an uncommitted change is a release of its own, never the commit's
    (third_src / "companion" / "__init__.py").write_text(
        (third_src / "companion" / "__init__.py").read_text() + "\n# changed\n")
    install(tmp_path, third_src)
    assert "-changed-" in os.path.basename(link(prefix, "current"))
    assert link(prefix, "previous") == f"releases/{third}"
    assert not (prefix / ".current.new").exists()
    assert stat.S_ISLNK(os.lstat(prefix / "current").st_mode)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_manual_is_installed_and_follows_the_running_release(tmp_path):
    """/opt/coffee-companion/manual and README.md: links into ``current``, so the manual
    read on the table offline is the running release's, after an update and a rollback
    too; the copy of README.md an older install.sh left is replaced."""
    prefix = tmp_path / "opt"
    prefix.mkdir()
    (prefix / "README.md").write_text("the README an older install.sh copied\n")
    src = source_tree(tmp_path, "0.1.0")
    said = install(tmp_path, src)
    assert link(prefix, "manual") == "current/src/docs"
    assert link(prefix, "README.md") == "current/src/README.md"
    assert (prefix / "manual" / "index.md").read_text(encoding="utf-8") == \
        (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert (prefix / "manual" / "updates.md").is_file()
    assert (prefix / "README.md").read_text(encoding="utf-8") == \
        (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"the manual: {prefix}/manual/index.md" in said
    # an update whose manual changed: the link shows the new one; back, the old one
    (src / "docs" / "updates.md").write_text("# Updates (0.2.0)\n", encoding="utf-8")
    install(tmp_path, source_tree(tmp_path, "0.2.0"))
    assert (prefix / "manual" / "updates.md").read_text() == "# Updates (0.2.0)\n"
    previous = link(prefix, "previous")
    os.replace(prefix / "previous", prefix / "current")        # what --rollback switches
    assert link(prefix, "current") == previous
    assert (prefix / "manual" / "updates.md").read_text(encoding="utf-8") == \
        (ROOT / "docs" / "updates.md").read_text(encoding="utf-8")
    assert not (prefix / ".manual.new").exists() and not (prefix / ".README.md.new").exists()


def test_help_and_doctor_point_at_the_manual_on_the_table(tmp_path, capsys, monkeypatch):
    """``coffee-companion --help`` names the manual's folder (the clone's docs/ here, the
    installed one on a table); doctor says whether the table has it."""
    from companion.appliance import doctor, manual, updates
    from companion.commands.cli import build_parser
    build_parser().print_help()
    shown = capsys.readouterr().out
    assert os.path.join(str(ROOT / "docs"), "index.md") in " ".join(shown.split())
    monkeypatch.setattr(manual, "__file__", str(tmp_path / "venv" / "companion" / "appliance"
                                                / "manual.py"))
    assert manual.page("updates.md") == "/opt/coffee-companion/manual/updates.md"
    root = tmp_path / "root"
    layout = updates.Layout(str(root / "opt" / "coffee-companion"))
    os.makedirs(layout.release("1.0-a") + "/src/docs")
    (Path(layout.release("1.0-a")) / ".complete").write_text("done\n")
    layout.switch("current", "1.0-a")
    system = doctor.System(str(root))
    checks = [c for c in doctor.check_release(system) if c.what == "manual"]
    assert [c.status for c in checks] == ["WARN"] and "install.sh" in checks[0].fix
    (Path(layout.release("1.0-a")) / "src" / "docs" / "index.md").write_text("# Manual\n")
    os.symlink("current/src/docs", layout.path("manual"))
    checks = [c for c in doctor.check_release(system) if c.what == "manual"]
    assert [(c.status, c.found) for c in checks] == [
        ("OK", "/opt/coffee-companion/manual/index.md")]
