HELP = "check or show the configuration, or print its reference (docs)"


def add_arguments(p):
    p.add_argument("action", choices=("check", "show", "docs"))


def main(args) -> int:
    import sys

    from companion.appliance import config
    from .cli import load_config
    if args.action == "docs":
        sys.stdout.write(config.docs())
        return 0
    cfg = load_config(args)
    if args.action == "show":
        sys.stdout.write(config.show(cfg))
        return 0
    from companion.appliance.doctor import check_files, exit_status, report
    checks = check_files(cfg)                 # the catalogs, journal and disk it names
    print(report(checks))
    if exit_status(checks):
        print(f"{cfg.path or 'defaults'}: the settings are valid, but a file they name is not",
              file=sys.stderr)
        return 2
    print(f"{cfg.path or 'defaults'}: OK")
    return 0
