HELP = "the café hub: every table of a venue on one floor page and a monthly leaderboard"


def add_arguments(p):
    p.add_argument("--bind", help="address of the pages (default: [cafe] bind)")
    p.add_argument("--port", type=int, help="port of the pages (default: [cafe] port)")
    p.add_argument("--log-level", default="info",
                   choices=("debug", "info", "warning", "error"))


def main(args) -> int:
    import logging
    import sys
    import threading

    from companion.cafe.hub import Hub
    from companion.cafe.store import Store, StoreError
    from companion.cafe.web import build_app
    from .cli import load_config
    from companion.appliance.stop_signals import StopSignals, wait_for_stop
    from companion.outputs.web.server import BackgroundServer

    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    cfg = load_config(args)
    mqtt, cafe = cfg["mqtt"], cfg["cafe"]
    if not mqtt["host"]:
        print("the hub needs the broker: set [mqtt] host (and venue) in the config "
              "(see docs/mqtt.md)", file=sys.stderr)
        return 2
    try:
        store = Store(cafe["database"])
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    hub = Hub(mqtt, store).start()
    app = build_app(hub, cfg.game.language)
    server = BackgroundServer(app, args.bind or cafe["bind"], args.port or cafe["port"],
                              name="café floor page")
    server.on_stop(app.close)
    stopping = threading.Event()
    signals = StopSignals(lambda _signum: stopping.set())
    try:
        if not server.start():
            print(f"error: {server.error}", file=sys.stderr)
            return 2
        print(f"café hub for venue {hub.venue}: floor {server.url}/  "
              f"leaderboard {server.url}/leaderboard", flush=True)
        signals.install()            # SIGTERM, SIGINT or SIGHUP: a clean stop
        while not wait_for_stop(stopping, 3600):
            pass
        return 0
    finally:
        signals.restore()
        server.stop()
        hub.close()
        store.close()
