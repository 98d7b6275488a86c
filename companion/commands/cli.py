"""The ``coffee-companion`` command.

Each sub-command lives in its own module, listed in ``COMMANDS``; a module
provides ``HELP``, ``add_arguments(parser)`` and ``main(args) -> int``. Modules
are imported only when their command runs: the parser of a command line that
names a command imports only that command's module (``run`` starts faster), the
full parser (``--help``, a mistyped command) imports every small command module;
none of them loads pygame or hardware libraries before it runs.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:             # each command imports what it needs, when it runs
    from companion.core.catalog import Catalog
    from companion.appliance.config import Config

COMMANDS = {
    "replay": "companion.commands.replay_cmd",
    "history": "companion.commands.history_cmd",
    "demo": "companion.commands.demo_cmd",
    "config": "companion.commands.config_cmd",
    "run": "companion.commands.run_cmd",
    "screenshots": "companion.commands.screenshots_cmd",
    "labels": "companion.commands.labels_cmd",
    "enroll": "companion.commands.enroll_cmd",
    "doctor": "companion.commands.doctor_cmd",
    "cafe": "companion.commands.cafe_cmd",
    "update": "companion.commands.update_cmd",
    "report": "companion.commands.report_cmd",
    "pair": "companion.commands.pair_cmd",
}


def version() -> str:
    """The installed package's version (the one pip knows), else the source tree's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("coffee-rush-companion")
    except PackageNotFoundError:
        from companion import __version__
        return __version__


class _Version(argparse.Action):
    """``--version``: the version is looked up only when asked (importlib.metadata is a
    noticeable part of a start on a small Pi)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help=None):
        super().__init__(option_strings, dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"coffee-companion {version()}")
        parser.exit()


def named_command(argv: list[str]) -> str | None:
    """The command a command line names, or None when it asks for help or the version
    first, or names none we know (the full parser then says what is wrong)."""
    rest = iter(argv)
    for arg in rest:
        if arg == "--config":
            next(rest, None)                  # its value
        elif arg.startswith("--config="):
            continue
        elif arg.startswith("-"):
            return None
        else:
            return arg if arg in COMMANDS else None
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``only``, that command's options and just the
    names of the others."""
    from companion.appliance import manual
    p = argparse.ArgumentParser(prog="coffee-companion",
                                description="Coffee Rush table companion.",
                                epilog=f"The manual, offline: {manual.page('index.md')} "
                                "(Markdown; doctor.md, faults.md and updates.md say what to "
                                "do when something is wrong).")
    p.add_argument("--config", help="config file (TOML); see `coffee-companion config docs`")
    p.add_argument("--version", action=_Version, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name)
            continue
        mod = importlib.import_module(module)
        cmd = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(cmd)
        cmd.set_defaults(_module=mod)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(named_command(argv)).parse_args(argv)
    from companion.core.catalog import CatalogError
    from companion.appliance.config import ConfigError
    from companion.core.journal import JournalError
    try:
        return args._module.main(args)
    except ConfigError as exc:
        if exc.toml is not None and exc.path is not None:
            # a file that is no TOML: said in our words, in the language its [game] names
            from companion.appliance.faults import screen_language
            from companion.words.i18n import toml_problem_text
            lang = screen_language(None, exc.path)
            print(f"config error: {toml_problem_text(lang, exc.path, exc.toml)}",
                  file=sys.stderr)
            return 2
        for problem in exc.problems:
            print(f"config error: {problem}", file=sys.stderr)
        return 2
    except CatalogError as exc:
        print(f"catalog error: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:
        print(f"journal error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def load_config(args, required: bool = False) -> Config:
    """The configuration named by --config or $COFFEE_COMPANION_CONFIG (either must
    exist), else the default file."""
    from companion.appliance import config
    path = args.config or config.default_path()
    named = bool(args.config or os.environ.get("COFFEE_COMPANION_CONFIG"))
    return config.load(path, required=required or named)


def load_catalog(cfg: Config, warn=None) -> Catalog:
    """The user's catalogs, plus the bundled example one when the config asks.

    A catalog file that cannot be read never stops the companion: ``warn`` (default:
    a line on standard error) is told, and its cards are simply unknown. Recorded
    games do not depend on the catalog, which only names cards and marks new
    completions as specialties."""
    from companion.core.catalog import Catalog
    if warn is None:
        def warn(problem):
            print(f"catalog warning: {problem}; its cards are not used", file=sys.stderr)
    return Catalog.configured(cfg.catalog.paths, cfg.catalog.example, warn)


if __name__ == "__main__":
    sys.exit(main())
