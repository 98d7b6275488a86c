"""The ``coffee-companion`` command.

Each sub-command lives in its own module, listed in ``COMMANDS``; a module
provides ``HELP``, ``add_arguments(parser)`` and ``main(args) -> int``. Modules
are imported only when their command runs, except for building the parser,
which imports just the small command modules (so ``replay`` never loads pygame
or hardware libraries).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:             # each command imports what it needs, when it runs
    from .catalog import Catalog
    from .config import Config

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
}


def version() -> str:
    """The installed package's version (the one pip knows), else the source tree's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        return installed("coffee-rush-companion")
    except PackageNotFoundError:
        from . import __version__
        return __version__


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="coffee-companion",
                                description="Coffee Rush table companion.")
    p.add_argument("--config", help="config file (TOML); see `coffee-companion config docs`")
    p.add_argument("--version", action="version", version=f"coffee-companion {version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        mod = importlib.import_module(module)
        cmd = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(cmd)
        cmd.set_defaults(_module=mod)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .catalog import CatalogError
    from .config import ConfigError
    from .journal import JournalError
    try:
        return args._module.main(args)
    except ConfigError as exc:
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
    from . import config
    path = args.config or config.default_path()
    named = bool(args.config or os.environ.get("COFFEE_COMPANION_CONFIG"))
    return config.load(path, required=required or named)


def load_catalog(cfg: Config, warn=None) -> Catalog:
    """The user's catalogs, plus the bundled example one when the config asks.

    A catalog file that cannot be read never stops the companion: ``warn`` (default:
    a line on standard error) is told, and its cards are simply unknown. Recorded
    games do not depend on the catalog, which only names cards and marks new
    completions as specialties."""
    from .catalog import Catalog
    if warn is None:
        def warn(problem):
            print(f"catalog warning: {problem}; its cards are not used", file=sys.stderr)
    cat = Catalog.load_many(cfg.catalog.paths, on_error=warn)
    if cfg.catalog.example:
        cat = Catalog([*Catalog.example().cards.values(), *cat.cards.values()])
    return cat


if __name__ == "__main__":
    sys.exit(main())
