"""The hub's pages as a person reads them: in which language, and with which words.

Pure functions, kept apart from the routes (``cafe.web``): the language a request asks for
(``?lang=``, then the browser's Accept-Language, then the hub's own), and a page's HTML
(the head, a language switch whose links keep the page, and every word the page's script
says, in that language)."""
from __future__ import annotations

import json
from html import escape
from importlib import resources

from companion.appliance.config import LANGUAGES
from companion.words.i18n import language_name, template, tr

WORDS = ("title", "leaderboard", "floor", "playing", "idle", "over", "offline", "online",
         "final_round", "needs_help", "round", "to_play", "elapsed", "no_tables", "month",
         "player", "games", "wins", "average", "points", "no_games", "winner",
         "help_device", "dev_scanner", "dev_buttons", "st_lost",
         "st_not_responding", "st_unavailable", "st_unsupported_firmware", "seconds",
         "minutes", "hours", "last_seen", "language", "score_one", "score_other")

# what both pages start with: the head, and the words and helpers their scripts share
HEAD = """<!doctype html>
<html lang="{{LANG}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Coffee Rush · {{VENUE}}</title>
<script>
const LANG = "{{LANG}}";
const W = {{WORDS}};
const say = (key, params={}) => (W[key] || key).replace(/\\{(\\w+)\\}/g, (_, k) => params[k] ?? "");
const sayCount = (key, count) => say(key + (count === 1 ? "_one" : "_other"), {count});
const esc = s => String(s).replace(/[&<>"']/g,
  c => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));
</script>
"""


def language_of(asked: str | None, accept_language: str, default: str) -> str:
    """``?lang=`` if it names one of the five languages, else the first of the browser's
    Accept-Language that does (by its weight), else the hub's ``default``."""
    if asked in LANGUAGES:
        return asked
    ranked = []
    for i, part in enumerate(accept_language.split(",")):
        code, _, weight = part.strip().partition(";")
        try:
            q = float(weight.strip()[2:]) if weight.strip().startswith("q=") else 1.0
        except ValueError:
            q = 0.0
        ranked.append((-q, i, code.strip().lower()[:2]))
    for q, _, code in sorted(ranked):
        if code in LANGUAGES and q < 0:
            return code
    return default if default in LANGUAGES else "en"


def switch(lang: str, path: str) -> str:
    """The language switch: a link per language to the same page."""
    links = "".join(f'<a href="{path}?lang={x}" hreflang="{x}" lang="{x}"'
                    + (' aria-current="true"' if x == lang else "")
                    + f">{escape(language_name(x))}</a>" for x in LANGUAGES)
    return f'<nav class="langs" aria-label="{escape(tr(lang, "cafe.language"))}">{links}</nav>'


def render(name: str, lang: str, venue: str) -> str:
    """The page ``name`` (``floor`` or ``leaderboard``) in ``lang``."""
    words = {w: template(lang, f"cafe.{w}") for w in WORDS}    # the script fills them
    doc = HEAD + resources.files("companion.cafe").joinpath(
        f"pages/{name}.html").read_text("utf-8")
    path = "./" if name == "floor" else "leaderboard"
    return (doc.replace("{{LANG}}", lang).replace("{{VENUE}}", escape(venue))
            .replace("{{SWITCH}}", switch(lang, path))
            .replace("{{WORDS}}", json.dumps(words, ensure_ascii=False).replace("<", "\\u003c")))
