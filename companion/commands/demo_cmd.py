import argparse

HELP = ("play a whole game of bots on simulated hardware (on the touchscreen when a "
        "display is available, else in the terminal)")


def _players(value: str):
    if value.isdigit():
        n = int(value)
        if not 2 <= n <= 4:
            raise argparse.ArgumentTypeError("Coffee Rush is for 2 to 4 players")
        return n
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not 2 <= len(names) <= 4:
        raise argparse.ArgumentTypeError("give 2 to 4 names separated by commas")
    return names


def add_arguments(p):
    p.add_argument("--edition", choices=("original", "winter"), default="original")
    p.add_argument("--variant", choices=("standard", "junior"), default="standard")
    p.add_argument("--expansion", choices=("cake_time",),
                   help="play with an expansion of the original game (Cake Time)")
    p.add_argument("--players", type=_players, default=3,
                   help="2-4, or names separated by commas (default 3)")
    p.add_argument("--seed", type=int, default=1, help="the same seed plays the same game")
    p.add_argument("--db", help="keep the game in this journal (default: temporary)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--screen", action="store_true",
                       help="show the game on the touchscreen / in a window")
    where.add_argument("--headless", action="store_true",
                       help="print the game in the terminal only (no window)")
    p.add_argument("--web", action="store_true",
                   help="also serve the phone view ([web] bind and port; without a display "
                        "the game plays in an invisible window until Ctrl-C)")
    p.add_argument("--teach", action="store_true",
                   help="teach the game as it is played: each rule explained, on the screen and "
                        "by voice, the first time it matters (the wizard's 'First game: teach "
                        "us')")
    p.add_argument("--speed", type=_speed, default=1.0,
                   help="bot pace on the screen: 1 = one input every 0.6 s, 2 = twice as fast")


def _speed(value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError("give a number, e.g. 1 or 2.5") from None
    if not 0.05 <= v <= 100:
        raise argparse.ArgumentTypeError("the speed must be between 0.05 and 100")
    return v


def main(args) -> int:
    import sys

    from companion.appliance import demo
    if args.variant == "junior" and args.edition != "winter":
        print("error: the Junior variant belongs to Coffee Rush: Winter (--edition winter)",
              file=sys.stderr)
        return 2
    if args.expansion is not None and args.edition != "original":
        print("error: Cake Time expands the original game (leave out --edition winter)",
              file=sys.stderr)
        return 2
    x = {"expansion": args.expansion, "teach": args.teach}
    from .cli import load_config
    cfg = load_config(args)
    lang = cfg["game"]["language"]
    if args.headless and not args.web:
        return demo.run(args.edition, args.players, args.seed, args.variant, args.db,
                        language=lang, **x)
    if args.web:
        from companion.outputs.screen.app import display_available
        if args.headless or not display_available(driver=cfg["display"]["driver"]):
            cfg["display"]["driver"] = "dummy"        # the phones are the screen
        return demo.run_screen(args.edition, args.players, args.seed, args.variant, args.db,
                               args.speed, cfg, web=True, **x)
    if not args.screen:
        from companion.outputs.screen.app import display_available
        if not display_available(driver=cfg["display"]["driver"]):
            return demo.run(args.edition, args.players, args.seed, args.variant, args.db,
                            language=lang, **x)
    return demo.run_screen(args.edition, args.players, args.seed, args.variant, args.db,
                           args.speed, cfg, **x)
