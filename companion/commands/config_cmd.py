HELP = "check or show the configuration, or print its reference (docs)"


def add_arguments(p):
    p.add_argument("action", choices=("check", "show", "docs"))


def main(args) -> int:
    import sys

    from .. import config
    from ..cli import load_config
    if args.action == "docs":
        sys.stdout.write(config.docs())
        return 0
    cfg = load_config(args)
    if args.action == "show":
        sys.stdout.write(config.show(cfg))
    else:
        print(f"{cfg.path or 'defaults'}: OK")
    return 0
