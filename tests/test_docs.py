"""The README is a front page and the manual in docs/ stays true to the code (issue 42).

`mkdocs build --strict` (in .ci/run) checks links, anchors and that every page is in the
nav; these tests check what it cannot: the README's size and commands, alt text, that every
picture has a maker in tools/docs_screenshots.py, that each reader reaches their pages in
two clicks, and that every command the docs show still parses.
"""
import functools
import os
import re
import shlex

import pytest

from companion.commands import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DEMO = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/coffee-companion demo"
TESTS = ("python3 -m venv .venv && .venv/bin/pip install -e '.[test]' "
         "&& .venv/bin/python -m pytest -q")
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)", re.S)


def read(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def doc_files() -> list[str]:
    """The README and every page of the site (hardware/ and firmware/ through docs/)."""
    files = [README]
    for folder, _dirs, names in os.walk(os.path.join(ROOT, "docs"), followlinks=True):
        files += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    return files


def rel(path: str) -> str:
    return os.path.relpath(path, ROOT)


# --- the front page -------------------------------------------------------------------

def test_the_readme_is_a_front_page_with_one_picture():
    text = read(README)
    assert len(text.splitlines()) <= 200
    pictures = [m for m in LINK.finditer(text) if m.group(1)]
    assert len(pictures) == 1


def test_the_readme_quick_start_commands_are_the_ones_ci_runs():
    lines = [ln.strip() for ln in read(README).splitlines()]
    assert DEMO in lines and TESTS in lines
    ci = [ln.strip() for ln in read(os.path.join(ROOT, ".ci", "run")).splitlines()]
    assert TESTS in ci, ".ci/run must call exactly the README's test command"


def test_the_readme_links_lead_to_files_that_exist():
    for m in LINK.finditer(read(README)):
        target = m.group(3).split("#")[0]
        if target and not re.match(r"[a-z]+:", target):
            assert os.path.exists(os.path.join(ROOT, target)), target


def nav_sections() -> dict[str, list[str]]:
    """mkdocs.yml's nav: each top-level section's pages, its landing page first."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in read(os.path.join(ROOT, "mkdocs.yml")).split("\nnav:\n", 1)[1].splitlines():
        top = re.match(r"^  - ([^:]+):\s*(\S+\.md)?\s*$", line)
        if top:
            current = top.group(1)
            sections[current] = [top.group(2)] if top.group(2) else []
            continue
        page = re.match(r"^\s+- (?:[^:]+: )?(\S+\.md)\s*$", line)
        if page and current:
            sections[current].append(page.group(1))
    return sections


def links_of(path: str) -> set[str]:
    """The pages ``path`` links to, as paths under docs/."""
    here = os.path.dirname(path)
    out = set()
    for m in LINK.finditer(read(path)):
        target = m.group(3).split("#")[0]
        if target.endswith(".md") and not re.match(r"[a-z]+:", target):
            out.add(os.path.relpath(os.path.normpath(os.path.join(here, target)),
                                    os.path.join(ROOT, "docs")))
    return out


def test_every_reader_finds_their_pages_in_two_clicks_from_the_front_page():
    sections = nav_sections()
    assert {"Play", "Install", "Café", "Reference", "Develop"} <= set(sections)
    from_readme = links_of(README)
    for name, pages in sections.items():
        if name == "Home":
            continue
        landing, rest = pages[0], pages[1:]
        assert landing in from_readme, f"the README does not link to {name} ({landing})"
        shown = links_of(os.path.join(ROOT, "docs", landing))
        for page in rest:
            if page.startswith("records/") and "records/benchmarks.md" in shown:
                continue        # the records are reached from their first page's tab
            assert page in shown, f"{landing} does not link to {page}"


# --- pictures ------------------------------------------------------------------------------

def test_every_picture_has_alt_text_and_exists():
    for path in doc_files():
        text = read(path)
        assert "<img" not in text, f"{rel(path)}: use ![alt](file), with alt text"
        for m in LINK.finditer(text):
            if m.group(1):
                assert m.group(2).strip(), f"{rel(path)}: a picture without alt text"
                target = os.path.join(os.path.dirname(path), m.group(3))
                assert os.path.exists(target), f"{rel(path)}: {m.group(3)} is missing"


def test_every_docs_picture_is_made_by_the_screenshots_tool():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "docs_screenshots", os.path.join(ROOT, "tools", "docs_screenshots.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    used = tool.pictures_used()
    assert "table-en-800x480" in used and "cafe-floor" in used
    assert not [n for n in used if tool.maker_of(n) is None]
    kept = {f[:-4] for f in os.listdir(os.path.join(ROOT, "docs", "screenshots"))
            if f.endswith(".png")}
    assert kept == used, "docs/screenshots holds only the pictures the docs show"
    from companion.outputs.screen import screenshots
    known = set(screenshots.SCENES) | set(screenshots.CAKE_SCENES) | \
        set(screenshots.STORY_SCENES)
    for name in used:
        m = tool.SCREEN_NAME.match(name)
        if tool.maker_of(name) == "screens":
            assert m["screen"] in known or m["screen"].split("-")[0] in \
                screenshots.OTHER_SCREENS, f"no screen {m['screen']!r} for {name}"


# --- every command the docs show still parses -------------------------------------------

CODE_BLOCK = re.compile(r"```[^\n]*\n(.*?)```", re.S)


def code_lines(text: str) -> list[str]:
    """The lines of every code block: fenced, or indented four spaces after a blank line."""
    lines = []
    for m in CODE_BLOCK.finditer(text):
        lines += m.group(1).splitlines()
    text = CODE_BLOCK.sub("", text)
    block = False
    previous_blank = True
    for line in text.splitlines():
        if line.startswith("    ") and (block or previous_blank) and line.strip():
            block = True
            lines.append(line[4:])
        elif line.strip():
            block = False
        previous_blank = not line.strip()
    joined, out = "", []
    for line in lines:                      # a trailing backslash continues the command
        if line.rstrip().endswith("\\"):
            joined += line.rstrip()[:-1] + " "
            continue
        out.append(joined + line)
        joined = ""
    return out


def commands(line: str) -> list[list[str]]:
    """Each simple command of a shell line, comments and `sudo` left out."""
    line = re.sub(r"(^|\s)#.*$", "", line)
    out = []
    for part in re.split(r"&&|\|\||;|\|", line):
        try:
            words = shlex.split(part)
        except ValueError:
            continue
        while words and (words[0] == "sudo" or re.match(r"^[A-Z_]+=", words[0])):
            words = words[1:]
        for i in range(len(words) - 2, -1, -1):          # redirections: < in, > out, 2> err
            if re.fullmatch(r"\d?[<>]", words[i]):
                del words[i:i + 2]
        if words:
            out.append(words)
    return out


INLINE = re.compile(r"(?<!`)`([^`]+)`(?!`)")
RUNS = re.compile(r"^(sudo |\./install\.sh|install\.sh |\.ci/|coffee-companion |"
                  r"python3? (benchmarks|tools)/)")


def inline_commands(text: str) -> list[str]:
    """Commands written in the text's own lines (`coffee-companion enroll`, `sudo
    ./install.sh --uninstall`): inline code that starts like one."""
    text = CODE_BLOCK.sub("", text)
    spans = (" ".join(m.group(1).split()) for m in INLINE.finditer(text))
    return [span for span in spans if RUNS.match(span)]


def shown_commands(inline: bool = True) -> list[tuple[str, list[str]]]:
    return [(rel(path), words) for path in doc_files()
            for line in code_lines(read(path)) + (inline_commands(read(path)) if inline else [])
            for words in commands(line)]


def coffee_commands(inline: bool = True) -> list[tuple[str, list[str]]]:
    return [(where, words[1:]) for where, words in shown_commands(inline)
            if os.path.basename(words[0]) == "coffee-companion"]


@functools.cache
def parser():
    return cli.build_parser()


def sub_parser(name: str):
    return parser()._subparsers._group_actions[0].choices[name]


def test_the_docs_show_the_commands_a_reader_needs():
    shown = {next((a for a in args if a in cli.COMMANDS), None) for _, args in coffee_commands()}
    assert {"demo", "replay", "history", "cafe"} <= shown
    assert len(coffee_commands()) >= 15


@pytest.mark.parametrize("where,args", coffee_commands(inline=False),
                         ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_every_coffee_companion_command_in_a_code_block_parses(where, args, capsys):
    if any(a.startswith("[") for a in args):      # a synopsis: SCRIPT [--json] [--strict]
        return                                   # (its flags: the test below)
    try:
        parsed = parser().parse_args(args)
    except SystemExit as exit:
        pytest.fail(f"{where}: `coffee-companion {' '.join(args)}` does not parse: "
                    f"{capsys.readouterr().err.strip()} (exit {exit.code})")
    assert parsed is not None


def test_every_flag_of_a_coffee_companion_command_in_the_docs_exists():
    """In the text too: `coffee-companion demo --teach`, `replay --explain`."""
    for where, args in coffee_commands():
        name = next((a for a in args if a in cli.COMMANDS), None)
        assert name is not None or args[:1] in (["--version"], ["--help"]), \
            f"{where}: `coffee-companion {' '.join(args)}` names no command"
        if name is None:
            continue
        known = sub_parser(name)._option_string_actions
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", " ".join(args[args.index(name):])):
            assert flag in known, f"{where}: `coffee-companion {name}` has no {flag}"


def test_every_sub_command_the_docs_use_answers_help(capsys):
    used = {next((a for a in args if a in cli.COMMANDS), None) for _, args in coffee_commands()}
    for name in sorted(used - {None}):
        with pytest.raises(SystemExit) as exit:
            parser().parse_args([name, "--help"])
        assert exit.value.code == 0, name
        assert "usage: coffee-companion" in capsys.readouterr().out


SCRIPTS = {"install.sh": "install.sh"}


def script_of(word: str) -> str | None:
    """The repository's script a command's first word runs (install.sh, .ci/*, tools/*,
    benchmarks/*), or None."""
    word = word.removeprefix("./")
    for folder in (".ci/", "tools/", "benchmarks/"):
        if word.startswith(folder) and os.path.isfile(os.path.join(ROOT, word)):
            return word
    return SCRIPTS.get(word)


def test_every_flag_of_our_scripts_in_the_docs_exists():
    """`sudo ./install.sh --uninstall`, `.ci/check-appliance-vm --cuts 20`, `python
    benchmarks/bench_memory.py --games 500`: each flag shown is one the script reads."""
    checked = 0
    for where, words in shown_commands():
        if words[0] in ("python", "python3") or words[0].endswith("/python"):
            words = words[1:]
        script = script_of(words[0]) if words else None
        if script is None:
            continue
        source = read(os.path.join(ROOT, script))
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", " ".join(words[1:])):
            assert flag in source, f"{where}: {script} has no {flag}"
        checked += 1
    assert checked >= 5


# --- records apart from prose ---------------------------------------------------------------

def record_tables(path: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each Markdown table of a page: its header cells and its rows' cells."""
    tables, rows = [], []
    for line in read(path).splitlines() + [""]:
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split(" | ")])
        elif rows:
            if len(rows) > 2:
                tables.append((rows[0], rows[2:]))
            rows = []
    return tables


RECORDS = os.path.join(ROOT, "docs", "records")


@pytest.mark.parametrize("name", sorted(n for n in os.listdir(RECORDS)
                                        if n.endswith(".md") and n != "notes.md"))
def test_records_are_dated_tables_newest_first(name):
    """docs/records/: every run a row with its date, commit, machine and command; the
    newest first, so the page says at a glance where things stand."""
    dated = [t for t in record_tables(os.path.join(RECORDS, name))
             if any(h.startswith("date") for h in t[0])]
    assert dated, f"{name}: no table with a date column"
    for header, rows in dated:
        for column in ("commit", "machine", "command"):
            assert any(column in h for h in header), f"{name}: a table has no {column}"
        at = next(i for i, h in enumerate(header) if h.startswith("date"))
        days = [m.group(0) for row in rows
                if (m := re.match(r"\d{4}-\d\d-\d\d", row[at]))]
        assert days == sorted(days, reverse=True), f"{name}: rows not newest first: {days}"
