HELP = ("print the running table's pairing code, for a phone to control the table (root and "
        "the service's group only; see docs/phone-view.md)")


def add_arguments(p):
    p.add_argument("--db", help="the table's journal (default: [journal] path from the "
                                "config): the code is read beside it")


def main(args) -> int:
    import os
    import sys

    from companion.outputs.web.pairing import CODE_FILE, published_code
    from companion.words.i18n import tr
    from .cli import load_config
    cfg = load_config(args)
    lang = cfg["game"]["language"]
    db = args.db or os.path.expanduser(cfg["journal"]["path"])
    path = os.path.join(os.path.dirname(os.path.abspath(db)), CODE_FILE)
    try:
        data = published_code(path)
    except PermissionError:
        print(tr(lang, "web_pairing.cli_not_allowed"), file=sys.stderr)
        return 77                                   # EX_NOPERM
    except (FileNotFoundError, LookupError, ValueError):
        print(tr(lang, "web_pairing.cli_not_running"), file=sys.stderr)
        return 69                                   # EX_UNAVAILABLE
    except OSError as exc:
        print(f"{path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    code = data["code"]
    half = len(code) // 2
    print(tr(lang, "web_pairing.code_heard", code=f"{code[:half]} {code[half:]}"))
    if data.get("url"):
        print(tr(lang, "web_pairing.cli_open", url=data["url"],
                 control=tr(lang, "web.control")))
    return 0
