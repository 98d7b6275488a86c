HELP = ("write one archive to send to whoever helps you: versions, the OS, doctor, the last "
        "logs, the config (no passwords), the service's status and restarts; no games, names, "
        "pairing codes or tokens unless asked")


def add_arguments(p):
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write it (default: coffee-companion-report-<time>.tar.gz "
                        "here)")
    p.add_argument("--include-games", action="store_true",
                   help="add the journal (every game, with the players' names)")
    p.add_argument("--include-names", action="store_true",
                   help="keep the players' and phones' names in the logs and status")


def main(args) -> int:
    import os
    import sys
    import time

    from companion.appliance import config, doctor, report
    from companion.commands.cli import version
    path = args.config or config.default_path()
    named = bool(args.config or os.environ.get("COFFEE_COMPANION_CONFIG"))
    data = report.collect(path, named, doctor.System(), include_games=args.include_games,
                          include_names=args.include_names or args.include_games,
                          program_version=version())
    out = args.output or time.strftime("coffee-companion-report-%Y%m%d-%H%M%S.tar.gz",
                                       time.gmtime())
    try:
        with open(out, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        print(f"report: cannot write {out}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {out} ({len(data) // 1024 + 1} KB): send it to whoever helps you"
          + ("" if os.geteuid() == 0 else "\n(run it with sudo for the service's log)"))
    return 0
