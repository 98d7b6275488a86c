"""The ``coffee-companion`` command. Sub-commands import what they need lazily,
so ``replay`` never loads pygame or hardware libraries."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional


def _players(value: str):
    if value.isdigit():
        n = int(value)
        if not 2 <= n <= 4:
            raise argparse.ArgumentTypeError("Coffee Rush is for 2 to 4 players")
        return n
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not 2 <= len(names) <= 4:
        raise argparse.ArgumentTypeError("give 2 to 4 names separated by commas")
    return names


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="coffee-companion",
                                description="Coffee Rush table companion.")
    p.add_argument("--config", help="config file (TOML); see `config docs`")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    r = sub.add_parser("replay", help="replay a table script headlessly")
    r.add_argument("script", help="table script path, or - for standard input")
    r.add_argument("--json", action="store_true", help="print the final state as JSON")
    r.add_argument("--strict", action="store_true", help="stop with exit 1 at the first rejected line")
    r.add_argument("--db", help="journal to replay into (default: a temporary one)")

    h = sub.add_parser("history", help="list the journal's games, or export one")
    h.add_argument("--db", help="journal (default: [journal] path from the config)")
    h.add_argument("--export", type=int, metavar="GAME", help="export this game")
    h.add_argument("--format", choices=("script", "json"), default="script",
                   help="export as a table script (default) or the final state as JSON")

    d = sub.add_parser("demo", help="a whole game of bots on simulated hardware")
    d.add_argument("--edition", choices=("original", "winter"), default="original")
    d.add_argument("--variant", choices=("standard", "junior"), default="standard")
    d.add_argument("--players", type=_players, default=3,
                   help="2-4, or names separated by commas (default 3)")
    d.add_argument("--seed", type=int, default=1, help="the same seed plays the same game")
    d.add_argument("--db", help="keep the game in this journal (default: temporary)")

    c = sub.add_parser("config", help="check or show the configuration")
    c.add_argument("action", choices=("check", "show", "docs"))
    return p


def main(argv: Optional[list[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _config(args, required: bool = False):
    from . import config
    path = args.config or config.default_path()
    return config.load(path, required=required or bool(args.config))


def _catalog(cfg):
    from .catalog import Catalog
    cat = Catalog.load_many(cfg["catalog"]["paths"])
    if cfg["catalog"]["example"]:
        cat = Catalog([*Catalog.example().cards.values(), *cat.cards.values()])
    return cat


def _dispatch(args) -> int:
    from .catalog import CatalogError
    from .config import ConfigError
    try:
        if args.command == "replay":
            from . import replay
            catalog = _catalog(_config(args)) if args.config else None
            return replay.run(args.script, args.json, args.strict, args.db, catalog)
        if args.command == "history":
            from . import history
            cfg = _config(args)
            db = args.db or os.path.expanduser(cfg["journal"]["path"])
            return history.run(db, args.export, args.format)
        if args.command == "demo":
            from . import demo
            if args.variant == "junior" and args.edition != "winter":
                print("error: the Junior variant belongs to Coffee Rush: Winter (--edition winter)",
                      file=sys.stderr)
                return 2
            return demo.run(args.edition, args.players, args.seed, args.variant, args.db)
        if args.command == "config":
            from . import config
            if args.action == "docs":
                sys.stdout.write(config.docs())
                return 0
            cfg = _config(args)
            if args.action == "show":
                sys.stdout.write(config.show(cfg))
            else:
                print(f"{cfg.path or 'defaults'}: OK")
            return 0
    except ConfigError as exc:
        for problem in exc.problems:
            print(f"config error: {problem}", file=sys.stderr)
        return 2
    except CatalogError as exc:
        print(f"catalog error: {exc}", file=sys.stderr)
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
