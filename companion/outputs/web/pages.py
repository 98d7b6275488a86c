"""The phone view's pages as HTML, mobile first, in the five languages.

Pure functions from data to text: the live table from a ``Snapshot``, the
history from the journal's game records, the companion page from its facts.
Every word comes from the locale catalogs (``companion.words.i18n``); every value
is escaped. The few lines of script keep the live table current with
server-sent events, pair the phone once with the code (the token stays in an HttpOnly
cookie) and post actions.
"""
from __future__ import annotations

from html import escape
from typing import Any, assert_never
from collections.abc import Iterable

from companion import __version__
from companion.core.rules.happenings import (CakeCardGained, CakeCardPlayed, CakePlaced,
                                             CakesReturned, CardEnrolled, CardIdentified,
                                             CardsToDraw, Corrected, DeviceStatusChanged,
                                             DislikesTaken, DrawsDismissed, FinalTurnBegins,
                                             GameOver, GameStarted, Happening, NotYourTurn,
                                             OrderCompleted, OrdersMovedDown, RankingChanged,
                                             Redone, ShopClosed, ShopReopened, Stalled, TablePaused,
                                             TableResumed, TokensGained, TokensSpent, TurnChanged,
                                             UnknownCard, UpgradeActivated, Undone)
from companion.core.rules.scoring import ranking
from companion.core.seat_colours import SCREEN_RGB, screen_rgb
from companion.review.story import story_of
from companion.review.story_words import point_text, round_text
from companion.appliance.config import LANGUAGES
from companion.words.i18n import (happening_text, language_name, names_list, rejection_text,
                                  token_name, tr, tr_count, upgrade_name)
from .chart import key_svg, story_svg
from .routing import ERRORS
from companion.review.why_text import why_text
from .why import whys

SEAT_RGB = list(SCREEN_RGB)          # the touchscreen's seat colours

CSS = """
:root{--bg:#1c1816;--panel:#302a26;--line:#4e4640;--text:#faf6f0;--dim:#c4bab0;
--open:#2ea05a;--closed:#c82c2c;--warn:#f4a623;--card:#fcf6e8}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text);
font:16px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans KR",
"NanumGothic",sans-serif}
header{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;padding:.5rem .75rem;
background:var(--panel);position:sticky;top:0;z-index:2}
header b{margin-right:auto;font-size:1.05rem}nav a,.langs a{color:var(--text);padding:.35rem .5rem;
border-radius:.4rem;text-decoration:none}nav a.here{background:var(--line)}
.langs a{font-size:.8rem;color:var(--dim)}.langs a.here{color:var(--text);font-weight:700}
main{padding:.75rem;max-width:60rem;margin:auto}
.bar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:.6rem}
.sign{font-weight:800;padding:.25rem .6rem;border-radius:.4rem}.sign.open{background:var(--open)}
.sign.closed{background:var(--closed)}.warn{color:var(--warn);font-weight:700}
.draws{background:var(--warn);color:#181412;font-weight:700;padding:.6rem;border-radius:.5rem;
margin:.5rem 0}
.seats{display:grid;gap:.6rem;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr))}
.seat{background:var(--panel);border-radius:.6rem;padding:.6rem;border-left:.5rem solid var(--c)}
.seat.active{outline:3px solid var(--c)}.seat h2{margin:0;font-size:1.2rem;display:flex;
justify-content:space-between;gap:.5rem}.seat .pts{font-size:1.5rem}
.now{font-size:.8rem;background:var(--c);color:#fff;border-radius:.3rem;padding:.05rem .35rem}
.counts{display:flex;flex-wrap:wrap;gap:.2rem .8rem;color:var(--dim);margin:.3rem 0}
.counts b{color:var(--text)}
.queue{display:grid;grid-template-columns:repeat(4,1fr);gap:.3rem}.pos{background:#221d1a;
border-radius:.4rem;padding:.25rem;min-height:2.6rem;text-align:center;font-size:.75rem;color:var(--dim)}
.pos.p4{box-shadow:inset 0 0 0 2px #e64628}.card{display:inline-block;min-width:1.2rem;
background:var(--card);color:#181412;border-radius:.25rem;margin:.1rem;padding:0 .2rem;
font-weight:700}
.card.unknown{background:#ded4c4}
.card.cake::after{content:"";display:inline-block;width:.6rem;height:.6rem;border-radius:50%;
background:#e0609a;margin-left:.2rem;vertical-align:middle}
.upg{font-size:.8rem;color:var(--dim)}ol.rank{font-size:1.15rem}
ol.rank .won{color:var(--warn);font-weight:800}
.news{color:var(--dim);font-size:.9rem;margin-top:.6rem}.news li{margin:.15rem 0}
.ctl{background:var(--panel);border-radius:.6rem;padding:.6rem;margin-top:1rem}
.ctl summary{font-weight:700;cursor:pointer}.ctl input,.ctl button{font:inherit;padding:.55rem;
border-radius:.4rem;border:1px solid var(--line);margin:.2rem 0}.ctl input{width:100%;
background:#181412;color:var(--text)}
.ctl button{background:#564c44;color:var(--text);min-width:6rem}
.ctl .row{display:flex;flex-wrap:wrap;gap:.4rem}#msg{min-height:1.4rem;font-weight:700}
table.games{width:100%;border-collapse:collapse}table.games td,table.games th{text-align:left;
padding:.45rem;border-bottom:1px solid var(--line);vertical-align:top}
a.btn{display:inline-block;color:var(--text);background:#564c44;border-radius:.4rem;
padding:.35rem .6rem;margin:.15rem .15rem 0 0;text-decoration:none}a.btn.bg{background:#2471d6}
pre{white-space:pre-wrap;word-break:break-word;background:#181412;padding:.6rem;border-radius:.5rem;
font-size:.8rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .8rem}dt{color:var(--dim)}
#status{display:none}#status.lost{display:block;background:var(--closed);padding:.4rem .75rem}
details.why{display:inline-block;vertical-align:middle}details.why summary{list-style:none;
cursor:pointer;display:inline-block;width:1.5rem;height:1.5rem;line-height:1.5rem;
text-align:center;border-radius:50%;background:var(--line);color:var(--text);font-weight:800}
details.why summary::-webkit-details-marker{display:none}details.why[open]{display:block;
background:var(--card);color:#181412;border-radius:.5rem;padding:.4rem .6rem;margin:.3rem 0;
font-weight:400}details.why[open] summary{background:#181412;color:var(--card)}
@media(min-width:48rem){body{font-size:17px}}
svg.chart{width:100%;max-width:44rem;height:auto;display:block;margin:.4rem 0}
.keys{display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:.3rem 0 .8rem}
.keys span{display:inline-flex;align-items:center;gap:.35rem;font-weight:700}
ol.points{padding-left:0;list-style:none}ol.points li{display:flex;gap:.6rem;margin:.5rem 0}
ol.points .n{flex:none;width:1.7rem;height:1.7rem;border-radius:50%;background:var(--warn);
color:#181412;font-weight:800;display:flex;align-items:center;justify-content:center}
ol.points .r{display:block;color:var(--warn);font-weight:700;font-size:.85rem}
"""

LIVE_JS = """
const live=document.getElementById('live'),status=document.getElementById('status');
function follow(){const es=new EventSource('/api/events?lang='+document.documentElement.lang);
es.addEventListener('update',e=>{show(JSON.parse(e.data));status.className='';});
es.onerror=()=>{status.className='lost';};}
function show(d){live.innerHTML=d.html;live.dataset.seq=d.seq;live.dataset.version=d.version;}
follow();
const msg=document.getElementById('msg'),code=document.getElementById('code'),
pairBox=document.getElementById('pair');
function paired(yes){pairBox.hidden=yes;if(yes)localStorage.setItem('paired','1');
else localStorage.removeItem('paired');}
paired(localStorage.getItem('paired')==='1');
async function send(url,body,extra){msg.textContent='…';let r;try{r=await fetch(url,{
method:'POST',headers:Object.assign({'Content-Type':'application/json'},extra||{}),body:body});}
catch(err){msg.textContent=String(err);return null;}const d=await r.json().catch(()=>({}));
msg.textContent=d.message||r.statusText;msg.dataset.status=r.status;r.data=d;return r;}
async function act(line){const r=await send('/api/action',line,
{'If-Match':live.dataset.version});if(r&&r.status===401)paired(false);
if(r&&r.status===412&&r.data.html)show(r.data);}
const phoneName=document.getElementById('phonename');
async function pair(){const r=await send('/api/pair',JSON.stringify({code:code.value.trim(),
name:phoneName.value.trim()}));code.value='';if(r&&r.status===200)paired(true);}
document.getElementById('pairbtn').addEventListener('click',pair);
[code,phoneName].forEach(f=>f.addEventListener('keydown',e=>{if(e.key==='Enter')pair();}));
document.querySelectorAll('[data-do]').forEach(b=>b.addEventListener('click',
()=>act(JSON.stringify({do:b.dataset.do}))));
document.getElementById('send').addEventListener('click',()=>act(document.getElementById('line').value));
"""


def t(lang: str, key: str, **params: Any) -> str:
    return escape(tr(lang, key, **params))


def page(lang: str, here: str, title: str, body: str, script: str = "") -> str:
    nav = "".join(f'<a href="{href}?lang={lang}" class="{"here" if key == here else ""}">'
                  f'{t(lang, "web." + key)}</a>'
                  for key, href in (("live", "/"), ("history", "/history"),
                                    ("companion", "/companion")))
    path = {"live": "/", "history": "/history", "companion": "/companion"}[here]
    langs = "".join(f'<a href="{path}?lang={x}" hreflang="{x}" lang="{x}" '
                    f'class="{"here" if x == lang else ""}">{escape(language_name(x))}</a>'
                    for x in LANGUAGES)
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="color-scheme" content="dark"><title>{escape(title)}</title>'
            f'<style>{CSS}</style></head><body><header><b>{t(lang, "web.title")}</b>'
            f'<nav>{nav}</nav><span class="langs">{langs}</span></header>'
            f'<div id="status">{t(lang, "web.reconnecting")}</div>'
            f'<main>{body}</main>{f"<script>{script}</script>" if script else ""}</body></html>')


def _rgb(c) -> str:
    return "#{:02x}{:02x}{:02x}".format(*tuple(c))


def _why(lang: str, explained: dict, *targets: str) -> str:
    """A "?" that opens the sentence saying why (``companion.review.explain``) for each of
    ``targets`` the table explains now (one per different sentence); "" for none."""
    out, said = [], set()
    for w in (explained[x] for x in targets if x in explained):
        text = why_text(lang, w)
        if text not in said:
            said.add(text)
            out.append(f' <details class="why" data-why="{escape(w.target)}"><summary '
                       f'title="{t(lang, "why.title")}">?</summary>{escape(text)}</details>')
    return "".join(out)


def live_fragment(lang: str, snap: Any) -> str:
    """The live table: every seat's queue and counts, turn, sign, draws, ranking."""
    state, game = snap.table, snap.game
    if game is None or state["edition"] is None:
        return f'<p class="bar"><b>{t(lang, "table.no_game")}</b></p>' \
               f'<p>{t(lang, "table.start_hint")}</p>'
    explained = whys(snap)
    out = [_bar(lang, state, game, explained), _draws(lang, snap, explained)]
    if state["game_over"]:
        out.append(_ending(lang, snap, explained))
    out.append(_seats(lang, snap, explained))
    out.append(_news(lang, snap, explained))
    return "".join(out)


def _bar(lang: str, state: dict[str, Any], game: Any, explained: dict[str, Any]) -> str:
    """The turn, the shop's sign, the deck and the final round."""
    n = len(state["players"])
    out = ['<div class="bar">']
    if not state["game_over"]:
        turn = t(lang, "web.turn", turn=state["turn"], round=(state["turn"] - 1) // n + 1)
        out.append(f'<b>{turn}</b>')
    sign = state["token"]
    out.append(f'<span class="sign {sign}">{t(lang, "word." + sign)}</span>'
               + _why(lang, explained, "sign"))
    out.append(f'<span>{t(lang, "table.deck", count=state["deck"])}</span>')
    if sign == "closed" and not state["game_over"]:
        last = state["players"][game.last_seat]["name"]
        words = (tr(lang, "table.last_turn") if state["active"] == last
                 else tr(lang, "web.final_round", player=last))
        out.append(f'<span class="warn">{escape(words)}</span>' + _why(lang, explained, "final"))
    out.append("</div>")
    return "".join(out)


def _draws(lang: str, snap: Any, explained: dict[str, Any]) -> str:
    """Who draws how many cards now (the one model: ``draw_prompt``)."""
    if not (snap.draws or snap.draws_short):
        return ""
    who = tr(lang, "table.draw_join").join(tr(lang, "table.draw_one", player=p, count=c)
                                          for p, c in snap.draws)
    short = f' {t(lang, "table.draw_short")}' if snap.draws_short else ""
    return (f'<div class="draws">{t(lang, "table.draw_title")}: {escape(who)}{short}'
            + _why(lang, explained, *(f"draw:{p}" for p, _ in snap.draws)) + '</div>')


def _ending(lang: str, snap: Any, explained: dict[str, Any]) -> str:
    """The final ranking, its ties' reasons, and the story and BG Stats links."""
    state = snap.table
    out = [f'<h2>{t(lang, "end.title")}</h2><ol class="rank">']
    for r in state["ranking"]:
        won = ' class="won"' if r["name"] in state["winners"] else ""
        out.append(f'<li value="{r["place"]}"{won}>{escape(r["name"])} · '
                   f'{escape(tr_count(lang, "end.points", r["score"]))}</li>')
    out.append("</ol>")
    ties = [w for target, w in sorted(explained.items()) if target.startswith("tie:")]
    if ties:
        tokens = token_name(lang, state["edition"], 2)
        lines = [t(lang, "end." + w.key, better=w.params["better"],
                   worse=w.params["worse"], tokens=tokens)
                 + _why(lang, explained, w.target) for w in ties]
        out.append('<ul class="ties">' + "".join(f"<li>{x}</li>" for x in lines) + "</ul>")
    links = []
    if snap.game_id is not None:
        links.append(f'<a class="btn story" id="story" href="/history/{snap.game_id}'
                     f'?lang={lang}">{t(lang, "story.web_story")}</a>')
    if snap.bgstats:
        links.append(f'<a class="btn bg" id="bgstats" href="{escape(snap.bgstats)}" '
                     f'rel="noopener">{t(lang, "web.bgstats")}</a>')
    if links:
        out.append(f'<p>{"".join(links)}</p>')
    return "".join(out)


def _seats(lang: str, snap: Any, explained: dict[str, Any]) -> str:
    state = snap.table
    colours = list(snap.colours) + SEAT_RGB[len(snap.colours):]
    out = ['<div class="seats">']
    for seat, p in enumerate(state["players"]):
        out.append(_seat(lang, snap, explained, p, colours[seat % len(colours)], seat))
    out.append("</div>")
    return "".join(out)


def _seat(lang: str, snap: Any, explained: dict[str, Any], p: dict[str, Any], colour: Any,
          seat: int) -> str:
    """One seat: its name, points, counts, queue and upgrades."""
    edition, active = snap.table["edition"], p["name"] == snap.table["active"]
    out = [f'<section class="seat{" active" if active else ""}" '
           f'style="--c:{_rgb(colour)}" data-seat="{seat + 1}">'
           f'<h2><span>{escape(p["name"])}'
           + (f' <span class="now">{t(lang, "web.playing")}</span>' if active else "")
           + f'</span><span class="pts">{p["score"]}</span></h2>'
           f'<div class="counts"><span>{t(lang, "table.likes")} <b>{p["likes"]}</b></span>'
           f'<span>{t(lang, "table.dislikes")} <b>{p["dislikes"]}</b>'
           + _why(lang, explained, f"dislikes:{p['name']}") + '</span>'
           f'<span>{escape(token_name(lang, edition, p["cookies"]).capitalize())} '
           f'<b>{p["cookies"]}</b></span>'
           + (f'<span>{t(lang, "web.cake_cards")} <b>{p["cake_cards"]}</b></span>'
              if "cake_cards" in p else "") + '</div>']
    out.append('<div class="queue">')
    cakes = p.get("cakes") or [[False] * len(pos) for pos in p["queue"]]  # Cake Time
    for i, (pos, caked) in enumerate(zip(p["queue"], cakes, strict=True), 1):
        cards = "".join(_card(lang, snap, tag, cake)
                        for tag, cake in zip(pos, caked, strict=True))
        out.append(f'<div class="pos p{i}" title="{t(lang, "word.position", position=i)}">'
                   f'{i}<br>{cards}</div>')
    out.append("</div>")
    if p["upgrades"]:
        names = ", ".join(upgrade_name(lang, u) for u in p["upgrades"])
        out.append(f'<div class="upg">{t(lang, "table.upgrades")}: {escape(names)}</div>')
    out.append("</section>")
    return "".join(out)


def _news(lang: str, snap: Any, explained: dict[str, Any]) -> str:
    """What the last update did, in words, and why a refusal."""
    edition = snap.table["edition"]
    news = [happening_text(lang, h, edition) for h in snap.happened if in_news(h)]
    if snap.rejection is not None:
        news.append(rejection_text(lang, snap.rejection))
    if not news:
        return ""
    refused = _why(lang, explained, "refusal")
    return (f'<ul class="news" aria-live="polite"><b>{t(lang, "web.happened")}</b>'
            + "".join(f"<li>{escape(x)}</li>" for x in news if x) + refused + "</ul>")


def in_news(h: Happening) -> bool:
    """Whether the phone view's news lists a happening. Exhaustive: a new happening
    fails mypy until the phone view decides."""
    match h:
        case DeviceStatusChanged():
            return False                 # the companion page shows devices
        case (GameStarted() | CardIdentified() | OrderCompleted() | TokensGained()
              | TokensSpent() | UpgradeActivated() | CakePlaced() | CakeCardGained()
              | CakeCardPlayed() | CakesReturned() | CardsToDraw() | OrdersMovedDown()
              | DislikesTaken() | ShopClosed() | ShopReopened() | FinalTurnBegins()
              | TurnChanged() | GameOver() | RankingChanged() | Corrected() | Stalled()
              | Undone() | Redone() | NotYourTurn() | UnknownCard() | CardEnrolled()
              | TablePaused() | TableResumed() | DrawsDismissed()):
            return True
        case _:
            assert_never(h)


def _card(lang: str, snap, tag: str | None, cake: bool) -> str:
    """One order card: its drink (or tag) when identified, "?" until scanned; a dot
    when a cake sits on it (Cake Time)."""
    kind = "card" + ("" if tag else " unknown") + (" cake" if cake else "")
    title = f' title="{t(lang, "web.cake")}"' if cake else ""
    words = escape(snap.drinks.get(tag, tag)) if tag else "?"
    return f'<span class="{kind}"{title}>{words}</span>'


def live_page(lang: str, snap) -> str:
    buttons = "".join(f'<button type="button" data-do="{do}">{t(lang, key)}</button>'
                      for do, key in (("undo", "button.undo"), ("redo", "button.redo"),
                                      ("complete", "web.complete"),
                                      ("end_turn", "button.end_turn")))
    control = (f'<details class="ctl"><summary>{t(lang, "web.control")}</summary>'
               f'<div id="pair"><p>{t(lang, "web.code_hint")}</p>'
               f'<label>{t(lang, "web.code")} <input id="code" inputmode="numeric" '
               f'autocomplete="one-time-code" maxlength="7" enterkeyhint="go"></label>'
               f'<label>{t(lang, "web_pairing.phone_name")} <input id="phonename" '
               f'maxlength="40" autocomplete="nickname" enterkeyhint="go"></label>'
               f'<button type="button" id="pairbtn">{t(lang, "web.pair")}</button></div>'
               f'<div class="row">{buttons}</div>'
               f'<label>{t(lang, "web.line")} <input id="line" '
               f'placeholder=\'{{"do": "correct", "player": "…", "likes": 3}}\'></label>'
               f'<button type="button" id="send">{t(lang, "web.send")}</button>'
               f'<div id="msg" role="status"></div></details>')
    body = (f'<div id="live" data-seq="{snap.seq}" data-version="{escape(snap.etag)}">'
            f'{live_fragment(lang, snap)}</div>{control}')
    return page(lang, "live", tr(lang, "web.title"), body, LIVE_JS)


def history_page(lang: str, games: Iterable[Any], links: dict[int, str],
                 problem: str = "") -> str:
    """Every game, newest first, with its ranking and its downloads."""
    rows = []
    for g in sorted(games, key=lambda g: -g.id):
        if g.ranking:
            ranked = names_list(lang, [f'{r["place"]}. {r["name"]} ({r["score"]})'
                                       for r in g.ranking])
        else:
            ranked = tr(lang, "web.running")
        downloads = "".join(f'<a class="btn" download href="/history/{g.id}/{fmt}">{label}</a>'
                            for fmt, label in (("script", "script"), ("json", "JSON"),
                                               ("csv", "CSV")))
        if g.id in links:
            downloads += (f'<a class="btn bg" href="{escape(links[g.id])}" rel="noopener">'
                          f'{t(lang, "web.bgstats")}</a>')
        if g.ranking:                   # finished: its story and its one-page summary
            downloads = (f'<a class="btn story" href="/history/{g.id}?lang={lang}">'
                         f'{t(lang, "story.web_story")}</a>') + downloads
        when = g.started_at.replace("T", " ")[:16]
        rows.append(f'<tr id="game-{g.id}"><td>{g.id}</td><td>'
                    f'{escape(tr(lang, "edition." + g.edition))} · '
                    f'{escape(tr(lang, "variant." + g.variant))}<br>'
                    f'<small>{t(lang, "web.started", time=when)}</small></td>'
                    f'<td>{escape(ranked)}<br>{downloads}</td></tr>')
    body = (f'<h1>{t(lang, "web.history")}</h1>'
            + (f'<p class="warn">{escape(problem)}</p>' if problem else "")
            + (f'<table class="games">{"".join(rows)}</table>' if rows
               else f'<p>{t(lang, "web.no_games")}</p>'))
    return page(lang, "history", tr(lang, "web.history"), body)


def game_page(lang: str, record: Any, table: Any) -> str:
    """One game of the history: its ranking, then (once it is over) the score chart round
    by round as SVG, each seat's shape and name, the turning points, and the downloads
    with the one-page summary."""
    game = table.game
    story = story_of(table)
    names = record.seat_colors or []
    colours = list(screen_rgb(names)) + SEAT_RGB[len(names):]
    title = tr(lang, "story.summary_title", game=record.id)
    when = record.started_at.replace("T", " ")[:16]
    out = [f'<h1>{escape(title)}</h1><p><small>'
           f'{escape(tr(lang, "edition." + (record.expansion or record.edition)))} · '
           f'{escape(tr(lang, "variant." + record.variant))} · '
           f'{t(lang, "web.started", time=when)}</small></p>']
    over = game is not None and game.game_over and story is not None
    if over:
        out += _finished_story(lang, game, story, colours)
    else:
        out.append(f'<p>{t(lang, "story.web_not_finished")}</p>')
    out.append(_downloads(lang, record.id, over))
    return page(lang, "history", title, "".join(out))


def _finished_story(lang: str, game: Any, story: Any, colours: list) -> list[str]:
    """A finished game: its ranking, the chart round by round, its turning points."""
    out = ['<ol class="rank">']
    for r in ranking(game):
        out.append(f'<li value="{r.place}"{" class=won" if r.place == 1 else ""}>'
                   f'{escape(r.name)} · {escape(tr_count(lang, "end.points", r.score))}</li>')
    out.append("</ol>")
    out.append(f'<h2>{t(lang, "story.summary_chart")}</h2>')
    if story.round_count:
        out.append(story_svg(story, colours, lang, [p.round for p in story.points]))
        out.append('<div class="keys">' + "".join(
            f'<span data-seat="{seat + 1}">{key_svg(seat, colours[seat % len(colours)])}'
            f'{escape(name)}</span>' for seat, name in enumerate(story.players)) + "</div>")
    else:
        out.append(f'<p>{t(lang, "story.too_short")}</p>')
    if story.points:
        out.append(f'<h2>{t(lang, "story.summary_points")}</h2><ol class="points">')
        for i, p in enumerate(story.points, 1):
            out.append(f'<li data-key="{p.key}"><span class="n">{i}</span><span>'
                       f'<span class="r">{escape(round_text(lang, p))}</span>'
                       f'{escape(point_text(lang, p))}</span></li>')
        out.append("</ol>")
    return out


def _downloads(lang: str, game_id: int, over: bool) -> str:
    """The game's files: the script, JSON and CSV; a finished one also its summary."""
    downloads = [("script", "script"), ("json", "JSON"), ("csv", "CSV")]
    if over:
        downloads = [("pdf", tr(lang, "story.web_pdf")),
                     ("png", tr(lang, "story.web_png"))] + downloads
    return '<p class="downloads">' + "".join(
        f'<a class="btn" download id="dl-{fmt}" href="/history/{game_id}/{fmt}'
        f'{"?lang=" + lang if fmt in ("pdf", "png") else ""}">{escape(label)}</a>'
        for fmt, label in downloads) + "</p>"


def duration(seconds: float) -> str:
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return (f"{d} d " if d else "") + f"{h:02d}:{m:02d}:{s:02d}"


def companion_page(lang: str, uptime: float, devices: dict[str, str], log_lines: list[str],
                   config_text: str, url: str | None = None) -> str:
    rows = "".join(f'<dt>{t(lang, _device_key(name))}</dt>'
                   f'<dd data-device="{escape(name)}">{t(lang, "web.device_" + status)}</dd>'
                   for name, status in devices.items())
    body = (f'<h1>{t(lang, "web.companion")}</h1><dl>'
            f'<dt>{t(lang, "web.version")}</dt><dd id="version">{escape(__version__)}</dd>'
            f'<dt>{t(lang, "web.uptime_label")}</dt>'
            f'<dd id="uptime">{t(lang, "web.uptime", time=duration(uptime))}</dd>'
            + (f'<dt>{t(lang, "web.address")}</dt><dd>{escape(url)}</dd>' if url else "")
            + f'</dl><h2>{t(lang, "web.devices")}</h2><dl id="devices">{rows}</dl>'
            f'<h2>{t(lang, "web.log", count=len(log_lines))}</h2>'
            f'<pre id="log">{escape(chr(10).join(log_lines))}</pre>'
            f'<h2>{t(lang, "web.config")}</h2><pre id="config">{escape(config_text)}</pre>')
    return page(lang, "companion", tr(lang, "web.companion"), body)


def _device_key(name: str) -> str:
    return {"scanner": "device.scanner", "buttons": "device.buttons"}.get(
        name, f"web.device_{name}")


def error_text(lang: str, status: int) -> str:
    """What an error means, in words (never a server path)."""
    return tr(lang, f"web_error.{status}" if status in ERRORS else "web_error.other")


def error_page(lang: str, status: int, said: str | None = None) -> str:
    """The one page every error of the phone view answers with (``said``: what went
    wrong, when the status alone does not say it)."""
    said = error_text(lang, status) if said is None else said
    body = (f'<h1>{t(lang, "web_error.title")}</h1><p>{escape(said)}</p>'
            f'<p><a class="btn" href="/?lang={lang}">{t(lang, "web_error.back")}</a></p>')
    return page(lang, "live", tr(lang, "web_error.title"), body)
