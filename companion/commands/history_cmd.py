HELP = "list the journal's games, or export one as a table script or JSON"


def add_arguments(p):
    p.add_argument("--db", help="journal (default: [journal] path from the config)")
    p.add_argument("--export", type=int, metavar="GAME", help="export this game")
    p.add_argument("--format", choices=("script", "json"), default="script",
                   help="export as a table script (default) or the final state as JSON")


def main(args) -> int:
    import os

    from .. import history
    from ..cli import load_catalog, load_config
    cfg = load_config(args)
    db = args.db or os.path.expanduser(cfg["journal"]["path"])
    # the catalog matters only for a journal of the previous version (schema 1)
    return history.run(db, args.export, args.format, catalog=lambda: load_catalog(cfg))
