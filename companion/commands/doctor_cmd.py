HELP = ("check everything the table needs (config, files, pins, SPI, scanner, screen, fonts, "
        "sound, service user, systemd unit, clock): OK, WARN or FAIL, each with its fix")


def add_arguments(p):
    p.add_argument("--scanner-seconds", type=float, default=2.0,
                   help="how long to wait for the scanner's answer (default 2)")


def main(args) -> int:
    import os

    from companion.appliance import config, doctor
    path = args.config or config.default_path()
    named = bool(args.config or os.environ.get("COFFEE_COMPANION_CONFIG"))
    checks = doctor.run_checks(path, named, doctor.System(), args.scanner_seconds)
    print(doctor.report(checks))
    failed = sum(c.status == "FAIL" for c in checks)
    warned = sum(c.status == "WARN" for c in checks)
    print(f"\n{failed} FAIL, {warned} WARN, {len(checks) - failed - warned} OK")
    return doctor.exit_status(checks)
