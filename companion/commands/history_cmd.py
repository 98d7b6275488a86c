HELP = ("list the journal's games, or export one as a table script, JSON, CSV, a BG "
        "Stats link, or a one-page summary (PNG or PDF)")


def add_arguments(p):
    from companion.appliance.config import LANGUAGES
    p.add_argument("--db", help="journal (default: [journal] path from the config)")
    p.add_argument("--export", type=int, metavar="GAME", help="export this game")
    p.add_argument("--format", choices=("script", "json", "csv", "bgstats"), default="script",
                   help="export as a table script (default), the final state as JSON, the "
                        "players as CSV, or the BG Stats link of a finished game")
    p.add_argument("--summary", metavar="PATH.pdf|PATH.png",
                   help="with --export: write the finished game's one-page summary (winner, "
                        "ranking, score chart round by round, turning points) to this file, "
                        "PDF or PNG by its ending")
    p.add_argument("--lang", choices=LANGUAGES, default=None,
                   help="the summary's language (default: [game] language from the config)")


def main(args) -> int:
    import os

    from companion.review import history
    from .cli import load_catalog, load_config
    cfg = load_config(args)
    db = args.db or os.path.expanduser(cfg.journal.path)
    # the catalog matters only for a journal of the previous version (schema 1)
    if args.summary is not None:
        return history.write_summary(db, args.export, args.summary,
                                     args.lang or cfg["game"]["language"])
    return history.run(db, args.export, args.format, location=cfg.bgstats.location,
                       catalog=lambda: load_catalog(cfg))
