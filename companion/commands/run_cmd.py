HELP = "run the companion at the table (the service systemd starts)"


def add_arguments(p):
    p.add_argument("--headless", action="store_true",
                   help="no touchscreen even if a display is available")
    p.add_argument("--log-level", default="info",
                   choices=("debug", "info", "warning", "error"))


def main(args) -> int:
    from .. import service
    from ..cli import load_config
    return service.main(load_config(args), args.headless, args.log_level)
