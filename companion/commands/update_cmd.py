HELP = ("update the table to a new version built beside the running one (git from the "
        "clone's origin, or --tarball for an offline table), back to the old one if the new "
        "one does not come up; --rollback goes back by hand")

UNIT_CONFIG = "/etc/coffee-companion/config.toml"


def add_arguments(p):
    how = p.add_mutually_exclusive_group()
    how.add_argument("--tarball", metavar="FILE",
                     help="a release tarball (git archive of a clone) instead of git")
    how.add_argument("--rollback", action="store_true",
                     help="go back to the previous release (and its journal, if the update "
                          "migrated it)")
    how.add_argument("--boot-check", action="store_true",
                     help="(the unit runs it) go back if an update was cut off before the "
                          "new release was confirmed")
    how.add_argument("--requested", action="store_true",
                     help="(coffee-companion-update.service runs it) the update the "
                          "touchscreen or a paired phone asked for")
    how.add_argument("--status", action="store_true", help="the last update's outcome")
    p.add_argument("--from", dest="origin", metavar="URL",
                   help="the git repository to update from (default: where the installed "
                        "clone came from, kept in PREFIX/origin)")
    p.add_argument("--ref", help="a branch or tag of the origin (default: its default branch)")
    p.add_argument("--prefix", default=None, help="the program's folder "
                   "(default /opt/coffee-companion)")
    p.add_argument("--ready-limit", type=float, default=None,
                   help="seconds to wait for the new release's READY (default 180)")


def _journal_path(args) -> str | None:
    import os

    from companion.appliance import config
    from companion.appliance.config import ConfigError
    path = args.config or (UNIT_CONFIG if os.path.exists(UNIT_CONFIG) else None)
    try:
        cfg = config.load(path, required=bool(path))
    except ConfigError:
        return None                  # the journal is then left as it is: never guessed at
    return os.path.expanduser(cfg["journal"]["path"])


def _boot_check(args, layout) -> int:
    """The unit's ExecStartPre, when a pending mark is there: never in the table's way (a
    failure here would keep the service from starting at all)."""
    import sys

    from companion.appliance import updates
    try:
        outcome = updates.Updater(layout, updates.Systemd(), _journal_path(args)).boot_check()
    except Exception as exc:             # noqa: BLE001 - said, and the table starts anyway
        print(f"coffee-companion update --boot-check: {exc}", file=sys.stderr)
        return 0
    if outcome is not None:
        print(f"coffee-companion update: {outcome.message}", file=sys.stderr)
    return 0


def main(args) -> int:
    import json
    import os
    import sys

    from companion.appliance import updates
    layout = updates.Layout(args.prefix or updates.PREFIX)
    if args.status:
        status = updates.read_status(layout)
        print(json.dumps(status, indent=1) if status else "no update has run here yet")
        print(f"current: {layout.link('current')}, previous: {layout.link('previous')}")
        return 0
    if args.boot_check:
        return _boot_check(args, layout)
    if os.geteuid() != 0 and args.prefix is None:
        print("update: run it as root (sudo coffee-companion update): it writes "
              f"{layout.prefix} and restarts the service", file=sys.stderr)
        return 2
    journal = _journal_path(args)
    if args.requested and not updates.take_request(
            os.path.dirname(journal) if journal else updates.STATE_DIR):
        print("update: no update was requested", file=sys.stderr)
        return 0
    updater = updates.Updater(layout, updates.Systemd(), journal,
                              ready_limit=args.ready_limit or updates.READY_LIMIT)
    try:
        if args.rollback:
            outcome = updater.rollback()
        else:
            outcome = updater.update(args.origin, args.tarball, args.ref)
    except updates.UpdateError as exc:
        print(f"update: {exc}", file=sys.stderr)
        return 1
    print(outcome.message)
    return 0 if outcome.ok else 1
