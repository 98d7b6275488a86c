"""``coffee-companion screenshots OUTDIR``: every screen as PNG, in every language and size."""
import argparse

HELP = "render every touchscreen screen to PNG files (no display needed)"


def _sizes(value: str):
    out = []
    for part in value.split(","):
        try:
            w, h = (int(x) for x in part.lower().strip().split("x"))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part!r} is not a size like 800x480 (width x height)") from None
        if not (320 <= w <= 3840 and 240 <= h <= 2160):
            raise argparse.ArgumentTypeError(f"{part}: sizes go from 320x240 to 3840x2160")
        out.append((w, h))
    return out


def _languages(value: str):
    from companion.appliance.config import LANGUAGES
    langs = [x.strip() for x in value.split(",") if x.strip()]
    bad = [x for x in langs if x not in LANGUAGES]
    if bad or not langs:
        raise argparse.ArgumentTypeError(
            f"unknown language {', '.join(bad) or '(none)'}; choose from {', '.join(LANGUAGES)}")
    return langs


def add_arguments(p):
    from companion.appliance.config import LANGUAGES
    p.add_argument("outdir", help="folder for the PNG files ({screen}-{lang}-{w}x{h}.png)")
    p.add_argument("--script", help="table script to start from (default: a built-in mid-game)")
    p.add_argument("--sizes", type=_sizes, default=[(800, 480), (1024, 600)],
                   help="sizes, e.g. 800x480,1024x600 (the default)")
    p.add_argument("--languages", type=_languages, default=list(LANGUAGES),
                   help=f"languages, e.g. en,es (default: all of {','.join(LANGUAGES)})")
    p.add_argument("--screens", help="only these screens, separated by commas")


def main(args) -> int:
    import os
    import sys
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    script = None
    if args.script:
        try:
            with open(args.script, encoding="utf-8") as fh:
                script = fh.read().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: cannot read the table script {args.script}: {exc}", file=sys.stderr)
            return 2
    from companion.outputs.screen.screenshots import render_all
    only = [s.strip() for s in args.screens.split(",")] if args.screens else None
    try:
        files = render_all(args.outdir, script, args.sizes, args.languages, only)
    except OSError as exc:
        print(f"error: cannot write to {args.outdir}: {exc}", file=sys.stderr)
        return 2
    print(f"{len(files)} screenshots in {args.outdir}")
    return 0
