HELP = ("list the journal's games, or export one as a table script, JSON, CSV or a BG "
        "Stats link")


def add_arguments(p):
    p.add_argument("--db", help="journal (default: [journal] path from the config)")
    p.add_argument("--export", type=int, metavar="GAME", help="export this game")
    p.add_argument("--format", choices=("script", "json", "csv", "bgstats"), default="script",
                   help="export as a table script (default), the final state as JSON, the "
                        "players as CSV, or the BG Stats link of a finished game")


def main(args) -> int:
    import os

    from .. import history
    from ..cli import load_catalog, load_config
    cfg = load_config(args)
    db = args.db or os.path.expanduser(cfg.journal.path)
    # the catalog matters only for a journal of the previous version (schema 1)
    return history.run(db, args.export, args.format, location=cfg.bgstats.location,
                       catalog=lambda: load_catalog(cfg))
