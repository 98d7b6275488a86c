HELP = "run the companion at the table (the service systemd starts)"


def add_arguments(p):
    p.add_argument("--headless", action="store_true",
                   help="no touchscreen even if a display is available")
    p.add_argument("--log-level", default="info",
                   choices=("debug", "info", "warning", "error"),
                   help="least important messages logged (default info; debug shows every "
                        "input). Under systemd each line carries its journald priority.")


def main(args) -> int:
    from companion.appliance import config, service
    from .cli import load_config
    # loaded by the service, so that a broken file is shown on the screen, not a restart loop
    return service.main(lambda: load_config(args), args.headless, args.log_level,
                        config_path=args.config or config.default_path())
