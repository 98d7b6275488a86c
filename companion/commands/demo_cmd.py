import argparse

HELP = "play a whole game of bots on simulated hardware"


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
    p.add_argument("--players", type=_players, default=3,
                   help="2-4, or names separated by commas (default 3)")
    p.add_argument("--seed", type=int, default=1, help="the same seed plays the same game")
    p.add_argument("--db", help="keep the game in this journal (default: temporary)")


def main(args) -> int:
    import sys

    from .. import demo
    if args.variant == "junior" and args.edition != "winter":
        print("error: the Junior variant belongs to Coffee Rush: Winter (--edition winter)",
              file=sys.stderr)
        return 2
    return demo.run(args.edition, args.players, args.seed, args.variant, args.db)
