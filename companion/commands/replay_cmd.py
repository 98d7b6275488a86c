from companion.core.rules.editions import RULES

HELP = ("replay a table script headlessly (the format: docs/table-script.md in the "
        "companion's source)")


def add_arguments(p):
    p.add_argument("script", help="table script path, or - for standard input")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print the final state as JSON")
    shown.add_argument("--explain", action="store_true",
                       help="print, for each line, why the companion ruled as it did (who "
                            "draws how many, dislikes, the shop closing, the final round, "
                            "tie-breaks) or why the line was refused")
    p.add_argument("--strict", action="store_true",
                   help="stop with exit status 1 at the first rejected line")
    p.add_argument("--db", help="journal to replay into (default: a temporary one)")
    p.add_argument("--rules", metavar="VERSION",
                   help="the table-script version the script's games follow (default the "
                        f"current one, {RULES}; a '# table-script 1.2' line in the script "
                        "does the same from that line on)")
    p.add_argument("--language", default="en", metavar="LANG",
                   help="the language of --explain: en, es, pt, it or ko (default en)")


def main(args) -> int:
    import sys

    from companion.review import replay
    from .cli import load_catalog, load_config
    from companion.appliance.config import LANGUAGES
    if args.language not in LANGUAGES:
        print(f"--language {args.language}: the companion speaks {', '.join(LANGUAGES)}",
              file=sys.stderr)
        return 2
    catalog = load_catalog(load_config(args)) if args.config else None
    # a --db journal of the previous version is migrated with the installation's catalog
    # (the one its games were played with), even when the script itself uses none
    return replay.run(args.script, args.json, args.strict, args.db, catalog,
                      migration_catalog=lambda: load_catalog(load_config(args)),
                      rules=args.rules, explain=args.language if args.explain else None)
