HELP = "write printable sheets of QR stickers for order cards (for a QR scanner)"


def add_arguments(p):
    p.add_argument("outdir", help="folder for the SVG pages, the PDFs and tags.txt")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--tags", metavar="FILE",
                     help="print these tags (one per line, # comments allowed)")
    src.add_argument("--count", type=int, default=80,
                     help="how many tags to make (default 80: the original box's order "
                          "cards; Winter has 90)")
    p.add_argument("--prefix", default="CR", help="start of each made-up tag (default CR)")
    p.add_argument("--start", type=int, default=1,
                   help="number of the first made-up tag, to continue an earlier sheet")
    p.add_argument("--paper", choices=("a4", "letter", "both"), default="both")


def main(args) -> int:
    import sys

    from companion.commands import label_sheets as labels
    papers = ("a4", "letter") if args.paper == "both" else (args.paper,)
    try:
        tags = (labels.read_tags(args.tags) if args.tags
                else labels.generated_tags(args.count, args.prefix, args.start))
        written = labels.write_sheets(args.outdir, tags, papers)
    except labels.LabelError as exc:
        print(f"labels: {exc}", file=sys.stderr)
        return 2
    print(f"{len(tags)} stickers, {tags[0]} to {tags[-1]}:")
    for path in written:
        print(f"  {path}")
    print("Print the PDF at 100 % (\"actual size\"), stick one sticker on the back of each "
          "order card, then run `coffee-companion enroll` to name their drinks.")
    return 0
