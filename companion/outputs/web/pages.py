"""The phone view's pages as HTML, mobile first, in the five languages.

Pure functions from data to text: the live table from a ``Snapshot``, the
history from the journal's game records, the companion page from its facts.
Every word comes from the locale catalogs (``companion.words.i18n``); every value
is escaped. The few lines of script keep the live table current with
server-sent events, pair the phone once with the code (the token stays in an HttpOnly
cookie) and post actions.
"""
from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape

from typing import Any, assert_never
from collections.abc import Iterable, Sequence

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
from companion.core.rules.happenings import GameBroughtBack, GameEndedEarly
from companion.core import setup_guide
from companion.core.rules.editions import (EXPANSION_OPTIONS, JUNIOR_CARDS, ORIGINAL_UPGRADES,
                                           UPGRADE_TILES, box_rules)
from companion.core.rules.scoring import ranking
from companion.core.rules.state import Game
from companion.core.seat_colours import (SCREEN_RGB, names_again, names_of, screen_rgb,
                                         shown_happening, shown_names, shown_rejection)
from companion.review.story import story_of
from companion.review.story_words import point_text, round_text
from companion.appliance.config import LANGUAGES
from companion.words.i18n import (drink_name, happening_text, language_name, names_list,
                                  rejection_text, token_name, tr, tr_count, upgrade_name)
from .chart import key_svg, story_svg
from .routing import ERRORS
from companion.review.why_text import why_text
from .why import live_names, whys

SEAT_RGB = list(SCREEN_RGB)          # the touchscreen's seat colours

CSS = """
:root{--bg:#1c1816;--panel:#302a26;--line:#4e4640;--text:#faf6f0;--dim:#c4bab0;
--open:#2ea05a;--closed:#c82c2c;--warn:#f4a623;--card:#fcf6e8;--ink:#181412}
*{box-sizing:border-box}[hidden]{display:none!important}body{margin:0;background:var(--bg);color:var(--text);
font:16px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans KR",
"NanumGothic",sans-serif;overflow-wrap:anywhere}
html:lang(ko) body{word-break:keep-all}
.sr{position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;
clip:rect(0 0 0 0);white-space:nowrap;border:0}
header{display:flex;flex-wrap:wrap;gap:.2rem .4rem;align-items:center;padding:.4rem .75rem;
background:var(--panel)}
header b{margin-right:auto;font-size:1.05rem}nav{display:flex;flex-wrap:wrap}
nav a{color:var(--text);padding:.6rem .5rem;border-radius:.4rem;text-decoration:none;
min-height:2.75rem}nav a.here{background:var(--line)}
nav.langs a{font-size:.85rem;color:var(--dim);padding:.6rem .35rem}
nav.langs a.here{color:var(--text);font-weight:700}
main{padding:.75rem;max-width:60rem;margin:auto}
h1.turn{font-size:1.5rem;margin:.1rem 0 .4rem}
.bar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-bottom:.6rem}
.sign{font-weight:800;padding:.25rem .6rem;border-radius:.4rem}
.sign.open{background:var(--open);color:var(--ink)}
.sign.closed{background:var(--closed);color:#fff}.warn{color:var(--warn);font-weight:700}
.draws{background:var(--warn);color:var(--ink);font-weight:700;padding:.6rem;border-radius:.5rem;
margin:.5rem 0}
.seats{display:grid;gap:.6rem;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr))}
.seat{background:var(--panel);border-radius:.6rem;padding:.6rem;border-left:.5rem solid var(--c)}
.seat.active{outline:3px solid var(--c)}.seat h2{margin:0;font-size:1.2rem;display:flex;
justify-content:space-between;align-items:center;gap:.5rem}.seat .pts{font-size:1.5rem}
.now{font-size:.8rem;background:var(--c);color:var(--on);border-radius:.3rem;padding:.05rem .35rem;
font-weight:700;white-space:nowrap}
.counts{display:flex;flex-wrap:wrap;align-items:center;gap:.2rem .8rem;color:var(--dim);
margin:.3rem 0}.counts b{color:var(--text)}
ol.queue{display:grid;grid-template-columns:repeat(4,1fr);gap:.3rem;list-style:none;padding:0;
margin:.3rem 0}.pos{background:#221d1a;border-radius:.4rem;padding:.25rem;min-height:2.6rem;
text-align:center;font-size:.75rem;color:var(--dim)}
.pos.p4{box-shadow:inset 0 0 0 2px #e64628}.card{display:inline-block;min-width:1.2rem;
background:var(--card);color:var(--ink);border-radius:.25rem;margin:.1rem;padding:0 .2rem;
font-weight:700}
.card.unknown{background:#ded4c4}
.card.cake::after{content:"";display:inline-block;width:.6rem;height:.6rem;border-radius:50%;
background:#b0306a;margin-left:.2rem;vertical-align:middle}
.upg{font-size:.8rem;color:var(--dim)}ol.rank{font-size:1.15rem}
ol.rank .won{color:var(--warn);font-weight:800}
.news{color:var(--dim);font-size:.9rem;margin-top:.6rem}.news h2{font-size:.9rem;margin:0}
.news ul{margin:.2rem 0;padding-left:1.2rem}.news li{margin:.15rem 0}
.dock{position:fixed;left:0;right:0;bottom:0;z-index:2;background:var(--panel);
border-top:1px solid var(--line);padding:.4rem max(.75rem,calc(50% - 29.25rem));
max-height:70vh;overflow-y:auto}body:has(.dock){padding-bottom:var(--dock,9rem)}
#msg{min-height:2.7em;white-space:pre-line;margin:0 0 .3rem;font-weight:700}
.ctl summary,.expert summary{font-weight:700;cursor:pointer;min-height:2.75rem;
padding:.6rem 0}
input,select,button{font:inherit;padding:.55rem;border-radius:.4rem;
border:1px solid #8a7e74;margin:.2rem 0;min-height:2.75rem}input,select{width:100%;
background:#181412;color:var(--text)}
input:is([type=checkbox],[type=radio]){width:auto;min-height:0;margin:0 .4rem 0 0}
button{background:#564c44;color:var(--text);min-width:6rem}
.row{display:flex;flex-wrap:wrap;gap:.4rem}
body:has(#live [data-phase=playing]) .over-only,
body:not(:has(#live [data-phase=playing])) .playing-only{display:none}
#newgame,#setup{background:var(--panel);border-radius:.6rem;padding:.6rem;margin-top:1rem}
#setup h2{margin:.2rem 0 .4rem;font-size:1.2rem}#setup h3{margin:.8rem 0 .2rem;font-size:1.05rem}
#setup p{margin:.2rem 0}ol.steps{padding-left:1.6rem;margin:.3rem 0}
ol.steps li{margin:.1rem 0}ol.steps label.check{align-items:flex-start;padding:.5rem 0}
ol.steps input{margin-top:.25rem}table.deal{width:100%;font-size:.85rem;table-layout:fixed}
table.deal thead td{width:22%}.cakemark{font-size:.75rem;color:var(--dim);white-space:nowrap}
.cakemark::before{content:"";display:inline-block;width:.55rem;height:.55rem;border-radius:50%;
background:#b0306a;margin-right:.15rem}
table.data.deal :is(th,td){padding:.3rem .2rem;text-align:center}
table.data.deal th[scope=row]{text-align:left;overflow-wrap:normal;word-break:keep-all}
#setup :is(h2,input,button){scroll-margin:4rem 0 calc(var(--dock,9rem) + 1rem)}
#newgame h2{margin:.2rem 0 .4rem;font-size:1.2rem}
#newgame :is(input,select,button){scroll-margin:4rem 0 calc(var(--dock,9rem) + 1rem)}
small.hint{display:block;color:var(--dim);margin:-.3rem 0 .4rem 1.6rem}
fieldset.tileset{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));
gap:0 .4rem}fieldset.tileset>:is(button,small){grid-column:1/-1}
fieldset.tileset>small.hint,#junior-hint{margin:.2rem 0}
fieldset{border:1px solid var(--line);
border-radius:.4rem;margin:.4rem 0}label.check{display:flex;align-items:center;min-height:2.75rem}
table.games{width:100%;border-collapse:collapse}table.games td,table.games th{text-align:left;
padding:.45rem;border-bottom:1px solid var(--line);vertical-align:top}
a.btn{display:inline-block;color:var(--text);background:#564c44;border-radius:.4rem;
padding:.6rem .6rem;margin:.15rem .15rem 0 0;text-decoration:none;min-height:2.75rem}
a.btn.bg{background:#1f5fb8}
pre{white-space:pre-wrap;word-break:break-word;background:#181412;padding:.6rem;border-radius:.5rem;
font-size:.8rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .8rem}dt{color:var(--dim)}
#status:empty{display:none}#status{background:var(--closed);color:#fff;padding:.4rem .75rem;
font-weight:700}
details.why{display:inline-block;vertical-align:middle}details.why summary{list-style:none;
cursor:pointer;display:inline-block;width:2.75rem;height:2.75rem;line-height:2.75rem;
text-align:center;border-radius:50%;background:var(--line);color:var(--text);font-weight:800}
details.why summary::-webkit-details-marker{display:none}details.why[open]{display:block;
background:var(--card);color:var(--ink);border-radius:.5rem;padding:.4rem .6rem;margin:.3rem 0;
font-weight:400}details.why[open] summary{background:#181412;color:var(--card)}
:focus-visible{outline:3px solid var(--warn);outline-offset:2px}
@media(min-width:48rem){body{font-size:17px}}
svg.chart{width:100%;max-width:44rem;height:auto;display:block;margin:.4rem 0}
.keys{display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:.3rem 0 .8rem}
.keys span{display:inline-flex;align-items:center;gap:.35rem;font-weight:700}
table.data{border-collapse:collapse;margin:.4rem 0}table.data th,table.data td{padding:.3rem .6rem;
border-bottom:1px solid var(--line);text-align:right}
ol.points{padding-left:0;list-style:none}ol.points li{display:flex;gap:.6rem;margin:.5rem 0}
ol.points .n{flex:none;width:1.7rem;height:1.7rem;border-radius:50%;background:var(--warn);
color:var(--ink);font-weight:800;display:flex;align-items:center;justify-content:center}
ol.points .r{display:block;color:var(--warn);font-weight:700;font-size:.85rem}
.status{font-size:1.2rem;font-weight:700}.status.bad{color:var(--warn)}
details.more{background:var(--panel);border-radius:.6rem;padding:0 .6rem;margin:.6rem 0}
details.more summary{font-weight:700;cursor:pointer;padding:.6rem 0;min-height:2.75rem}
"""

# The live page's script: follows the table (server-sent events), keeps focus and open
# "why?" panels across updates, says what changed in words (#msg, a polite live region,
# by the buttons), pairs the phone once and posts actions; after a game it set up (Start,
# or a setup line), shows the setup steps the table answered with (``setup_steps``; kept
# with their ticks for this game through a reload, in the tab's sessionStorage). ``W``:
# its words, in the page's language (``live_page``).
LIVE_JS = """
const live=document.getElementById('live'),status=document.getElementById('status'),
msg=document.getElementById('msg'),setupBox=document.getElementById('setup-box');
let seen=+live.dataset.seq;
function follow(){const es=new EventSource('/api/events?lang='+document.documentElement.lang);
es.addEventListener('update',e=>{show(JSON.parse(e.data));lost(false);});
es.onerror=()=>lost(true);}
function lost(yes){const t=yes?W.lost:'';if(status.textContent!==t)status.textContent=t;}
function keyOf(el){const d=el.closest('details[data-why]');
if(d&&el.tagName==='SUMMARY')return 'details[data-why="'+CSS.escape(d.dataset.why)+'"] > summary';
return el.id?'#'+CSS.escape(el.id):null;}
function show(d,quiet){const f=document.activeElement,key=f&&live.contains(f)?keyOf(f):null,
open=[...live.querySelectorAll('details[open][data-why]')].map(x=>x.dataset.why);
live.innerHTML=d.html;live.dataset.seq=d.seq;live.dataset.version=d.version;
open.forEach(w=>{const x=live.querySelector('details[data-why="'+CSS.escape(w)+'"]');
if(x)x.open=true;});
if(key){const x=live.querySelector(key);if(x)x.focus({preventScroll:true});}
else if(f&&setupBox.contains(f))f.scrollIntoView({block:'nearest'});
if(setupBox.dataset.seq&&d.seq>+setupBox.dataset.seq&&
!live.querySelector('[data-phase=playing]'))setupGone();
if(d.seq>seen){seen=d.seq;const s=said();if(s&&!quiet)msg.textContent=s;}}
function said(){return [...live.querySelectorAll('.news li')].map(li=>li.textContent).join('\\n');}
follow();
const dock=document.querySelector('.dock');new ResizeObserver(()=>{document.body.style
.setProperty('--dock',dock.offsetHeight+16+'px');const f=document.activeElement;
if(f&&f.closest('#newgame'))f.scrollIntoView({block:'nearest'});}).observe(dock);
const code=document.getElementById('code'),pairBox=document.getElementById('pair'),
ctl=document.getElementById('ctl');
function paired(yes){pairBox.hidden=yes;if(yes)localStorage.setItem('paired','1');
else localStorage.removeItem('paired');}
paired(localStorage.getItem('paired')==='1');
ctl.open=localStorage.getItem('ctl')==='1';
ctl.addEventListener('toggle',()=>localStorage.setItem('ctl',ctl.open?'1':'0'));
async function send(url,body,extra){msg.textContent='…';delete msg.dataset.status;let r;
try{r=await fetch(url,{method:'POST',headers:Object.assign({'Content-Type':'application/json'},
extra||{}),body:body});}catch(err){msg.textContent=W.offline;msg.dataset.status='offline';
return null;}const d=await r.json().catch(()=>null);msg.dataset.status=r.status;
r.data=d||{};if(r.status!==200||!url.endsWith('/action'))msg.textContent=
d&&d.message?d.message+(d.reason&&!d.message.includes(d.reason)?' '+d.reason:''):
W.failed.replace('{status}',r.status);
else if(msg.textContent==='…'&&live.dataset.version===d.version)msg.textContent=said()||d.message;
return r;}
async function act(line){const r=await send('/api/action',line,
{'If-Match':live.dataset.version});if(r&&r.status===401){paired(false);ctl.open=true;}
if(r&&r.status===412&&r.data.html)show(r.data,true);
if(r&&r.status===200&&r.data.setup)setupShow({html:r.data.setup,seq:r.data.seq,
game:gameOf(r.data.version)},true);}
pairBox.addEventListener('submit',async e=>{e.preventDefault();
const r=await send('/api/pair',JSON.stringify({code:code.value.trim(),
name:document.getElementById('phonename').value.trim()}));code.value='';
if(r&&r.status===200)paired(true);});
document.querySelectorAll('[data-do]').forEach(b=>b.addEventListener('click',
()=>act(JSON.stringify({do:b.dataset.do}))));
document.getElementById('send').addEventListener('click',()=>act(document.getElementById('line').value));
const ng=document.getElementById('newgame-form'),st=document.getElementById('starter'),
seats=[...ng.querySelectorAll('input[name=player]')],tl=document.getElementById('tiles'),
modes=[...ng.querySelectorAll('input[name=tiles]')],again=ng.querySelector('[data-again]');
let lastDraw=null;
function applies(x,m){const d=x.dataset,u=d.unless&&ng[d.unless];
if(x===again&&!lastDraw)return false;
return d.for.split(' ').includes(ng.edition.value)&&(!d.if||ng[d.if].checked)&&
(!u||u.disabled||!u.checked)&&(!d.mode||d.mode===m)&&(!d.seat||!!seats[+d.seat].value.trim())&&
!x.parentElement.closest('[hidden]');}
function reveal(x,m){x.hidden=!applies(x,m);
x.querySelectorAll('input,select,button').forEach(i=>{i.disabled=x.hidden;});}
function options(){const all=[...ng.querySelectorAll('[data-for]')];
all.filter(x=>!x.dataset.mode).forEach(x=>reveal(x));
const on=modes.filter(r=>!r.disabled);if(on.length&&!on.some(r=>r.checked))on[0].checked=true;
const m=(on.find(r=>r.checked)||{}).value;all.filter(x=>x.dataset.mode).forEach(x=>reveal(x,m));
tl.querySelectorAll('[data-seat]').forEach(g=>{g.querySelector('legend').textContent=
W.tiles_of.replace('{player}',seats[+g.dataset.seat].value.trim()||W.player_n.replace('{n}',
+g.dataset.seat+1));});tl.querySelectorAll('.tileset').forEach(counted);}
function picked(g){return [...g.querySelectorAll('input:checked')].map(b=>b.value);}
function counted(g){const c=g.querySelector('[data-count]'),
n=W.chosen.replace('{chosen}',picked(g).length);if(c.textContent!==n)c.textContent=n;}
function draw(g){const bs=[...g.querySelectorAll('input')],k=new Set();
while(k.size<+W.tiles)k.add(crypto.getRandomValues(new Uint32Array(1))[0]%bs.length);
bs.forEach((b,i)=>{b.checked=k.has(i);});counted(g);}
tl.addEventListener('change',e=>{if(e.target.name==='tiles')options();
else if(e.target.name==='again')drawAgain();else counted(e.target.closest('.tileset'));});
function drawAgain(){const g=tl.querySelector('.tileset[data-for=cake_time][data-mode=draw]');
if(ng.querySelector('input[name=again]:checked').value==='new'){draw(g);return;}
g.querySelectorAll('input').forEach(b=>{b.checked=lastDraw.includes(b.value);});counted(g);}
function boxes(n){return [...ng.querySelectorAll('input[name='+n+']')];}
function on(n){return boxes(n).some(b=>!b.disabled&&b.checked);}
function hints(){boxes('ristretto').forEach(b=>{const h=document.getElementById(
b.getAttribute('aria-describedby')),w=b.checked?W.ristretto_on:W.ristretto_off;
if(h.textContent!==w)h.textContent=w;});document.getElementById('junior-hint').textContent=
W.junior_hint.replace('{orders}',4*ng.junior_cards.value);}
tl.addEventListener('click',e=>{if(e.target.dataset.draw!==undefined)
draw(e.target.closest('.tileset'));});
ng.edition.addEventListener('change',options);
ng.addEventListener('change',e=>{if(e.target.name==='variant')options();hints();});
options();hints();
function typed(){return seats.map(i=>i.value.trim()).filter(x=>x);}
function opt(v,text,pick){const o=new Option(text,v);if(pick)o.dataset.pick=pick;return o;}
function starters(ask){const c=st.selectedOptions[0],pick=ask?'ask':c&&c.dataset.pick,
name=c&&!pick?c.value:null,names=[...new Set(typed())],os=names.map(n=>opt(n,n));
if(!os.length)os.push(opt('',W.first,'first'));if(pick==='ask')os.unshift(opt('',W.choose,'ask'));
os.push(opt('',W.random,'random'));st.replaceChildren(...os);
(os.find(o=>pick?o.dataset.pick===pick:o.value===name&&!o.dataset.pick)||os[0]).selected=true;}
seats.forEach(i=>i.addEventListener('input',()=>{starters();options();}));starters();
function keepTiles(s){const ed=ng.edition.value,ts=s.upgrades;lastDraw=null;
if(ed==='original')return;
const mode=ts===undefined?'open':Array.isArray(ts)?(ed==='cake_time'?'draw':'shared'):'each';
modes.forEach(r=>{r.checked=r.value===mode;});
tl.querySelectorAll('.tileset[data-for='+ed+']').forEach(g=>{const k=g.dataset.seat,
mine=k===undefined?(Array.isArray(ts)?ts:[]):(ts&&!Array.isArray(ts)&&ts[s.players[+k]])||[];
g.querySelectorAll('input').forEach(b=>{b.checked=mine.includes(b.value);});});
if(mode==='draw'){lastDraw=ts;ng.querySelector('input[name=again][value=new]').checked=true;
options();drawAgain();}}
document.getElementById('rematch').addEventListener('click',()=>{
const h=live.querySelector('[data-rematch]');if(!h)return;const s=JSON.parse(h.dataset.rematch);
ng.edition.value=s.expansion||s.edition;
seats.forEach((i,k)=>{i.value=s.players[k]||'';});
for(const [box,key] of [['ristretto','ristretto_start'],['two_drinks_one_cake'],['longer_game']])
boxes(box).forEach(b=>{b.checked=!!s[key||box];});
ng.querySelector('input[name=variant][value='+(s.variant||'standard')+']').checked=true;
ng.junior_cards.value=String(s.junior_cards||2);options();keepTiles(s);options();hints();
ctl.open=false;starters(true);st.focus();
msg.textContent=W.rematch_ready;});
function starter(names){const p=st.selectedOptions[0].dataset.pick;if(p==='ask')return null;
if(p==='random')return names[crypto.getRandomValues(new Uint32Array(1))[0]%names.length];
return p==='first'||!names.includes(st.value)?names[0]:st.value;}
ng.addEventListener('submit',e=>{e.preventDefault();const names=typed();
if(names.length<2||new Set(names).size!==names.length){msg.textContent=W.names_needed;return;}
const start=starter(names);if(start===null){msg.textContent=W.start_needed;st.focus();return;}
const s={do:'setup',edition:ng.edition.value==='winter'?'winter':'original',players:names,
start:start};
if(ng.edition.value==='cake_time')s.expansion='cake_time';
for(const [box,key] of [['ristretto','ristretto_start'],['two_drinks_one_cake'],['longer_game']])
if(on(box))s[key||box]=true;
if(!ng.junior.disabled&&ng.junior.checked){s.variant='junior';
if(+ng.junior_cards.value!==2)s.junior_cards=+ng.junior_cards.value;}
if(!tiled(s))return;act(JSON.stringify(s));});
function tiled(s){const m=(modes.find(r=>r.checked&&!r.disabled)||{}).value;
if(tl.hidden||!m||m==='open')return true;const each={};
for(const g of tl.querySelectorAll('.tileset:not([hidden])')){
if(m==='draw'&&!picked(g).length)draw(g);const u=picked(g),k=g.dataset.seat;
if(u.length!==+W.tiles){msg.textContent=k===undefined?g.querySelector('legend').textContent:
W.tiles_need.replace('{player}',seats[+k].value.trim());g.querySelector('input').focus();
return false;}if(k===undefined)s.upgrades=u;else each[seats[+k].value.trim()]=u;}
if(m==='each')s.upgrades=each;return true;}
function gameOf(v){return (v||'').split('.')[0];}
function setupShow(k,focus){setupBox.innerHTML=k.html;setupBox.dataset.seq=k.seq;
const boxes=[...setupBox.querySelectorAll('input')];(k.ticks||[]).forEach((on,i)=>{
if(boxes[i])boxes[i].checked=on;});
const keep=()=>sessionStorage.setItem('setup',JSON.stringify(Object.assign(k,
{ticks:boxes.map(b=>b.checked)})));keep();setupBox.onchange=keep;
if(focus)setupBox.querySelector('h2').focus();}
function setupGone(){setupBox.replaceChildren();delete setupBox.dataset.seq;
sessionStorage.removeItem('setup');}
try{const k=JSON.parse(sessionStorage.getItem('setup'));if(k&&k.game===gameOf(live.dataset
.version)&&live.querySelector('[data-phase=playing]'))setupShow(k,false);else setupGone();}
catch(err){setupGone();}
setupBox.addEventListener('click',e=>{if(e.target.id!=='setup-done')return;setupGone();
const h=live.querySelector('h1');h.tabIndex=-1;h.focus();});
"""


def t(lang: str, key: str, **params: Any) -> str:
    return escape(tr(lang, key, **params))


def page(lang: str, here: str, title: str, body: str, script: str = "",
         words: dict[str, str] | None = None) -> str:
    """A whole page: the header (title, pages, languages), the "connection lost" alert
    (filled by the live page's script), ``body`` and the script with its ``words``."""
    nav = "".join(f'<a href="{href}?lang={lang}"'
                  + (' class="here" aria-current="page"' if key == here else "")
                  + f'>{t(lang, "web." + key)}</a>'
                  for key, href in (("live", "/"), ("history", "/history"),
                                    ("companion", "/companion")))
    path = {"live": "/", "history": "/history", "companion": "/companion"}[here]
    langs = "".join(f'<a href="{path}?lang={x}" hreflang="{x}" lang="{x}"'
                    + (' class="here" aria-current="true"' if x == lang else "")
                    + f'>{escape(language_name(x))}</a>' for x in LANGUAGES)
    if script:
        said = json.dumps(words or {}, ensure_ascii=False).replace("<", "\\u003c")
        script = f"<script>const W={said};{script}</script>"
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="color-scheme" content="dark"><title>{escape(title)}</title>'
            f'<style>{CSS}</style></head><body><header><b>{t(lang, "web.title")}</b>'
            f'<nav aria-label="{t(lang, "phone.pages")}">{nav}</nav>'
            f'<nav class="langs" aria-label="{t(lang, "phone.languages")}">{langs}</nav>'
            f'</header><div id="status" role="alert"></div>'
            f'<main>{body}</main>{script}</body></html>')


def _rgb(c) -> str:
    return "#{:02x}{:02x}{:02x}".format(*tuple(c))


def _on(colour: Any) -> str:
    """The text colour that reads on ``colour`` (WCAG contrast): near-black or white,
    whichever stands out more."""
    def lum(c: Any) -> float:
        lin = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
               for v in tuple(c)[:3]]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    bg = lum(colour)
    dark = (bg + 0.05) / (lum((24, 20, 18)) + 0.05)
    return "#181412" if dark >= 1.05 / (bg + 0.05) else "#ffffff"


def _why_name(lang: str, w: Any, state: dict[str, Any], names: dict[str, str]) -> str:
    """What a "?" asks, in words: "Why does Ben draw 2?"."""
    kind, _, who = w.target.partition(":")
    who = names.get(who, who)
    if kind == "sign" and state.get("token"):
        return tr(lang, "phone.why_sign", sign=tr(lang, "word." + state["token"]))
    if kind == "final":
        return tr(lang, "phone.why_final")
    if kind == "draw":
        return tr(lang, "phone.why_draw", player=who, count=w.count)
    if kind == "dislikes":
        return tr(lang, "phone.why_dislikes", player=who)
    if kind == "tie" and {"better", "worse"} <= set(w.params):
        return tr(lang, "phone.why_tie", better=names.get(w.params["better"], w.params["better"]),
                  worse=names.get(w.params["worse"], w.params["worse"]))
    if kind == "refusal":
        return tr(lang, "phone.why_refusal")
    return tr(lang, "phone.why_other")


def _why(lang: str, explained: dict, *targets: str, state: dict[str, Any] | None = None,
         names: Names = None) -> str:
    """A "?" that opens the sentence saying why (``companion.review.explain``) for each of
    ``targets`` the table explains now (one per different sentence); "" for none. The
    button is named by its question ("Why does Ben draw 2?"); ``names``: the players'
    names as shown (``live_names``)."""
    out, said = [], set()
    names = names or {}
    for w in (explained[x] for x in targets if x in explained):
        text = why_text(lang, w, names=names)
        if text not in said:
            said.add(text)
            name = escape(_why_name(lang, w, state or {}, names))
            out.append(f' <details class="why" data-why="{escape(w.target)}"><summary '
                       f'title="{name}"><span aria-hidden="true">?</span>'
                       f'<span class="sr">{name}</span></summary>{escape(text)}</details>')
    return "".join(out)


Names = dict[str, str] | None


def live_fragment(lang: str, snap: Any) -> str:
    """The live table: every seat's queue and counts, turn, sign, draws, ranking."""
    state, game = snap.table, snap.game
    if game is None or state["edition"] is None:
        return f'<h1 class="turn" data-phase="none">{t(lang, "table.no_game")}</h1>' \
               f'<p>{t(lang, "table.start_hint")}</p>'
    explained = whys(snap)
    names = live_names(lang, snap)
    out = [_headline(lang, state, names, names_of(snap.colours), game),
           _bar(lang, state, game, explained, names), _draws(lang, snap, explained, names)]
    if state["game_over"]:
        out.append(_ending(lang, snap, explained, names))
    out.append(_seats(lang, snap, explained, names))
    out.append(_news(lang, snap, explained, names))
    return "".join(out)


def _headline(lang: str, state: dict[str, Any], names: dict[str, str],
              colours: Sequence[str] = (), game: Game | None = None) -> str:
    """Whose turn it is (or "Game over"), as the page's heading; it carries the phase
    (which buttons the page offers) and, once over, the rematch's setup line: the box,
    players and every option ``game`` was set up with (``rematch_line``)."""
    if not state["game_over"]:
        active = names.get(state["active"], state["active"])
        return (f'<h1 class="turn" data-phase="playing">'
                f'{t(lang, "phone.turn_of", player=active)}</h1>')
    line = escape(json.dumps(rematch_line(lang, state, colours, game), ensure_ascii=False))
    return f'<h1 class="turn" data-phase="over" data-rematch="{line}">{t(lang, "end.title")}</h1>'


def rematch_line(lang: str, state: dict[str, Any], colours: Sequence[str] = (),
                 game: Game | None = None) -> dict[str, Any]:
    """The setup line REMATCH fills the New game form with: the same box, the same
    players (a seat's colour name in the page's language, as the phone's reader sets the
    game up; with the seats' colours: the action's handler, ``same_table``) and every
    option of the finished ``game`` (the Ristretto start, Cake Time's optional rules,
    Junior's cards per position) and its upgrade tiles (where the box has more than four:
    a list when everyone had the same, else each player's, by the names shown; none when
    they were left to the table), as the touchscreen's rematch keeps them (Cake Time's
    drawn four: the page draws four anew unless the table keeps them, ``_draw_again``).
    No starter: the books choose who starts anew, and the page asks."""
    recorded = [p["name"] for p in state["players"]]
    again: dict[str, Any] = {"do": "setup", "edition": state["edition"],
                             "players": names_again(lang, recorded, colours)}
    if state["variant"] and state["variant"] != "standard":
        again["variant"] = state["variant"]
    if state["expansion"]:
        again["expansion"] = state["expansion"]
    if game is None:
        return again
    if game.ristretto_start:
        again["ristretto_start"] = True
    if game.expansion is not None:
        again.update({o: True for o in EXPANSION_OPTIONS[game.expansion] if getattr(game, o)})
    if game.variant == "junior" and game.junior_cards != JUNIOR_CARDS[0]:
        again["junior_cards"] = game.junior_cards
    tiles = _kept_tiles(game, again["players"])
    if tiles is not None:
        again["upgrades"] = tiles
    return again


def _kept_tiles(game: Game, players: list[str]) -> list[str] | dict[str, list[str]] | None:
    """The upgrade tiles ``game`` named, where its box has more than four: a list when
    everyone had the same, else each player's (``players``: their names as shown); None
    for none (Junior, the original's four, or tiles left to the table)."""
    if game.variant == "junior" or game.open_tiles or len(game.rules.upgrades) <= UPGRADE_TILES:
        return None
    tiles = [list(p.tiles) for p in game.players]
    if all(x == tiles[0] for x in tiles):
        return tiles[0]
    return dict(zip(players, tiles, strict=True))


def _bar(lang: str, state: dict[str, Any], game: Any, explained: dict[str, Any],
         names: dict[str, str]) -> str:
    """The turn, the shop's sign, the deck and the final round."""
    n = len(state["players"])
    out = ['<div class="bar">']
    if not state["game_over"]:
        turn = t(lang, "web.turn", turn=state["turn"], round=(state["turn"] - 1) // n + 1)
        out.append(f'<span>{turn}</span>')
    sign = state["token"]
    out.append(f'<span class="sign {sign}">{t(lang, "word." + sign)}</span>'
               + _why(lang, explained, "sign", state=state, names=names))
    out.append(f'<span>{t(lang, "table.deck", count=state["deck"])}</span>')
    if sign == "closed" and not state["game_over"]:
        last = state["players"][game.last_seat]["name"]
        words = (tr(lang, "table.last_turn") if state["active"] == last
                 else tr(lang, "web.final_round", player=names.get(last, last)))
        out.append(f'<span class="warn">{escape(words)}</span>'
                   + _why(lang, explained, "final", state=state, names=names))
    out.append("</div>")
    return "".join(out)


def _draws(lang: str, snap: Any, explained: dict[str, Any], names: dict[str, str]) -> str:
    """Who draws how many cards now (the one model: ``draw_prompt``)."""
    if not (snap.draws or snap.draws_short):
        return ""
    who = tr(lang, "table.draw_join").join(
        tr(lang, "table.draw_one", player=names.get(p, p), count=c) for p, c in snap.draws)
    short = f' {t(lang, "table.draw_short")}' if snap.draws_short else ""
    return (f'<div class="draws">{t(lang, "table.draw_title")}: {escape(who)}{short}'
            + _why(lang, explained, *(f"draw:{p}" for p, _ in snap.draws), state=snap.table,
                   names=names)
            + '</div>')


def _ending(lang: str, snap: Any, explained: dict[str, Any], names: dict[str, str]) -> str:
    """The final ranking, its ties' reasons, and the story and BG Stats links."""
    state = snap.table
    out = ['<ol class="rank">']
    for r in state["ranking"]:
        won = ' class="won"' if r["name"] in state["winners"] else ""
        out.append(f'<li value="{r["place"]}"{won}>{escape(names.get(r["name"], r["name"]))} · '
                   f'{escape(tr_count(lang, "end.points", r["score"]))}</li>')
    out.append("</ol>")
    ties = [w for target, w in sorted(explained.items()) if target.startswith("tie:")]
    if ties:
        tokens = token_name(lang, state["edition"], 2)
        lines = [t(lang, "end." + w.key, better=names.get(w.params["better"], w.params["better"]),
                   worse=names.get(w.params["worse"], w.params["worse"]), tokens=tokens)
                 + _why(lang, explained, w.target, state=state, names=names) for w in ties]
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


def _seats(lang: str, snap: Any, explained: dict[str, Any], names: dict[str, str]) -> str:
    state = snap.table
    colours = list(snap.colours) + SEAT_RGB[len(snap.colours):]
    out = ['<div class="seats">']
    for seat, p in enumerate(state["players"]):
        out.append(_seat(lang, snap, explained, p, colours[seat % len(colours)], seat,
                         names.get(p["name"], p["name"]), names))
    out.append("</div>")
    return "".join(out)


def _seat(lang: str, snap: Any, explained: dict[str, Any], p: dict[str, Any], colour: Any,
          seat: int, name: str, names: dict[str, str]) -> str:
    """One seat: its name (``name``, as shown), points, counts, queue and upgrades."""
    edition, active = snap.table["edition"], p["name"] == snap.table["active"]
    points = tr_count(lang, "end.points", p["score"])
    out = [f'<section class="seat{" active" if active else ""}" '
           f'style="--c:{_rgb(colour)};--on:{_on(colour)}" data-seat="{seat + 1}">'
           f'<h2><span>{escape(name)}'
           + (f' <span class="now">{t(lang, "web.playing")}</span>' if active else "")
           + f'</span><span class="sr">{t(lang, "phone.seat", player="", points=points)}</span>'
           f'<span class="pts" aria-hidden="true">{p["score"]}</span></h2>'
           f'<div class="counts"><span>{t(lang, "table.likes")} <b>{p["likes"]}</b></span>'
           f'<span>{t(lang, "table.dislikes")} <b>{p["dislikes"]}</b>'
           + _why(lang, explained, f"dislikes:{p['name']}", names=names) + '</span>'
           f'<span>{escape(token_name(lang, edition, p["cookies"]).capitalize())} '
           f'<b>{p["cookies"]}</b></span>'
           + (f'<span>{t(lang, "web.cake_cards")} <b>{p["cake_cards"]}</b></span>'
              if "cake_cards" in p else "") + '</div>']
    out.append(f'<ol class="queue" aria-label="{t(lang, "phone.queue", player=name)}">')
    cakes = p.get("cakes") or [[False] * len(pos) for pos in p["queue"]]  # Cake Time
    for i, (pos, caked) in enumerate(zip(p["queue"], cakes, strict=True), 1):
        cards = "".join(_card(lang, snap, tag, cake)
                        for tag, cake in zip(pos, caked, strict=True))
        out.append(f'<li class="pos p{i}"><span aria-hidden="true">{i}<br>{cards}</span>'
                   f'<span class="sr">{escape(_position_words(lang, snap, i, pos, caked))}'
                   f'</span></li>')
    out.append("</ol>")
    if p["upgrades"]:
        tiles = ", ".join(upgrade_name(lang, u) for u in p["upgrades"])
        out.append(f'<div class="upg">{t(lang, "table.upgrades")}: {escape(tiles)}</div>')
    out.append("</section>")
    return "".join(out)


def _news(lang: str, snap: Any, explained: dict[str, Any], names: dict[str, str]) -> str:
    """What the last update did, in words, and why a refusal."""
    edition = snap.table["edition"]
    news = [happening_text(lang, shown_happening(h, names), edition)
            for h in snap.happened if in_news(h)]
    if snap.rejection is not None:
        news.append(rejection_text(lang, shown_rejection(snap.rejection, names)))
    if not news:
        return ""
    refused = _why(lang, explained, "refusal", state=snap.table, names=names)
    return (f'<section class="news" aria-labelledby="news-h"><h2 id="news-h">'
            f'{t(lang, "web.happened")}</h2><ul>'
            + "".join(f"<li>{escape(x)}</li>" for x in news if x) + "</ul>"
            + (f"<div>{refused}</div>" if refused else "") + "</section>")


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
              | TablePaused() | TableResumed() | DrawsDismissed() | GameEndedEarly()
              | GameBroughtBack()):
            return True
        case _:
            assert_never(h)


def _position_words(lang: str, snap: Any, i: int, pos: list, caked: list) -> str:
    """A position of a queue as a screen reader says it: "Position 2: Latte, an order not
    scanned yet"."""
    if not pos:
        return tr(lang, "phone.pos_empty", position=i)
    cards = []
    for tag, cake in zip(pos, caked, strict=True):
        card = drink_name(lang, snap.drinks.get(tag, tag)) if tag else tr(lang, "phone.unscanned")
        cards.append(tr(lang, "phone.with_cake", card=card) if cake else card)
    return tr(lang, "phone.pos_cards", position=i, cards=", ".join(cards))


def _card(lang: str, snap, tag: str | None, cake: bool) -> str:
    """One order card: its drink (or tag) when identified, "?" until scanned; a dot
    when a cake sits on it (Cake Time)."""
    kind = "card" + ("" if tag else " unknown") + (" cake" if cake else "")
    title = f' title="{t(lang, "web.cake")}"' if cake else ""
    words = escape(drink_name(lang, snap.drinks.get(tag, tag))) if tag else "?"
    return f'<span class="{kind}"{title}>{words}</span>'


def live_page(lang: str, snap) -> str:
    """The live table, the New game form (while no game runs) and, at the bottom where
    the thumb is, what just happened in words and the table's controls."""
    def button(do: str, key: str, cls: str = "") -> str:
        return (f'<button type="button" data-do="{do}"'
                + (f' class="{cls}"' if cls else "") + f'>{t(lang, key)}</button>')
    buttons = (button("undo", "button.undo") + button("redo", "button.redo")
               + button("complete", "web.complete", "playing-only")
               + button("end_turn", "button.end_turn", "playing-only")
               + f'<button type="button" id="rematch" class="over-only" '
                 f'title="{t(lang, "phone.rematch_hint")}">{t(lang, "phone.rematch")}</button>')
    control = (f'<div class="dock"><p id="msg" role="status"></p>'
               f'<details class="ctl" id="ctl"><summary>{t(lang, "web.control")}</summary>'
               f'<form id="pair"><p>{t(lang, "web.code_hint")}</p>'
               f'<label>{t(lang, "web.code")} <input id="code" inputmode="numeric" '
               f'autocomplete="one-time-code" maxlength="7" enterkeyhint="go"></label>'
               f'<label>{t(lang, "web_pairing.phone_name")} <input id="phonename" '
               f'maxlength="40" autocomplete="nickname" enterkeyhint="go"></label>'
               f'<button type="submit" id="pairbtn">{t(lang, "web.pair")}</button></form>'
               f'<div class="row">{buttons}</div>'
               f'<details class="expert"><summary>{t(lang, "phone.expert")}</summary>'
               f'<label>{t(lang, "web.line")} <input id="line" '
               f'placeholder=\'{{"do": "correct", "player": "…", "likes": 3}}\'></label>'
               f'<button type="button" id="send">{t(lang, "web.send")}</button></details>'
               f'</details></div>')
    body = (f'<div id="live" data-seq="{snap.seq}" data-version="{escape(snap.etag)}">'
            f'{live_fragment(lang, snap)}</div><div id="setup-box"></div>{_new_game(lang)}'
            f'{control}')
    words = {"lost": tr(lang, "web.reconnecting"), "offline": tr(lang, "phone.offline"),
             "failed": tr(lang, "phone.failed", status="{status}"),
             "names_needed": tr(lang, "phone.names_needed"),
             "first": tr(lang, "phone.player_n", n=1), "random": tr(lang, "wizard.random"),
             "choose": tr(lang, "phone.start_choose"),
             "start_needed": tr(lang, "phone.start_needed"),
             "rematch_ready": tr(lang, "phone.rematch_ready"),
             "ristretto_on": tr(lang, "wizard.ristretto_hint"),
             "ristretto_off": tr(lang, "wizard.ristretto_hint_off"),
             "junior_hint": tr(lang, "wizard.junior_hint", orders="{orders}"),
             "tiles": str(UPGRADE_TILES), "player_n": tr(lang, "phone.player_n", n="{n}"),
             "tiles_of": tr(lang, "phone.tiles_of", player="{player}"),
             "chosen": tr(lang, "wizard.upgrades_chosen", chosen="{chosen}",
                          count=UPGRADE_TILES),
             "tiles_need": tr(lang, "wizard.upgrades_need", player="{player}",
                              count=UPGRADE_TILES)}
    return page(lang, "live", tr(lang, "web.title"), body, LIVE_JS, words)


def setup_steps(lang: str, game: Game, names: Names = None) -> str:
    """What the table does by hand once the phone's Start set a game up, as the wizard's
    steps walk it through on the touchscreen (``core.setup_guide``: the same words, from
    the game the table loop started): the starting player token, the board, the tiles
    left to the table, the deal (a table of each seat's positions) and the meeples. Ordered
    lists with a box to tick per step, and a button that puts them away (``LIVE_JS``);
    the deck left after the deal is said, not ticked (a count the companion keeps, which
    no family counts by hand: ``setup_guide.deck_left``), and so are tiles left to the
    table (nothing to do now); ``names``: the players' names as shown (``live_names``)."""
    names = names or {}
    before = [x for x in (setup_guide.start_token(lang, game),
                          setup_guide.board_hint(lang, game)) if x]
    tiles = setup_guide.open_tiles_hint(lang, game)      # (nothing to do now: said)
    heading = setup_guide.deal_heading(lang, game)
    notes = setup_guide.deal_steps(lang, game)
    deal = ([heading] if heading else []) + notes[:1]
    meeples = [names.get(p.name, p.name) for p in
               (game.players[seat] for seat in setup_guide.meeple_seats(game))]
    return (f'<section id="setup" aria-labelledby="setup-h">'
            f'<h2 id="setup-h" tabindex="-1">{t(lang, "phone.setup_title")}</h2>'
            f'<p>{t(lang, "phone.setup_hint")}</p>{_ticks(before)}'
            + (f'<p class="tiles">{escape(tiles)}</p>' if tiles else "")
            + f'<h3>{t(lang, "wizard.deal_title")}</h3>'
            f'{_ticks(deal, _deal_table(lang, game, names), notes[1:])}'
            f'<p class="deck">{escape(setup_guide.deck_left(lang, game))}</p>'
            f'<h3>{t(lang, "wizard.meeples_title")}</h3>'
            f'<p>{escape(setup_guide.meeples_hint(lang, len(game.players)))}</p>'
            f'{_ticks(meeples)}'
            f'<button type="button" id="setup-done">{t(lang, "phone.setup_done")}</button>'
            f'</section>')


def _ticks(steps: Sequence[str], after: str = "", more: Sequence[str] = ()) -> str:
    """An ordered list of ``steps`` (then ``more``), a box to tick on each; ``after``:
    what the last of ``steps`` shows below its words (the deal's table)."""
    items = [f'<li><label class="check"><input type="checkbox">{escape(x)}</label>'
             + (after if k == len(steps) - 1 else "") + "</li>"
             for k, x in enumerate(steps)]
    items += [f'<li><label class="check"><input type="checkbox">{escape(x)}</label></li>'
              for x in more]
    return f'<ol class="steps">{"".join(items)}</ol>' if items else ""


def _deal_table(lang: str, game: Game, names: dict[str, str]) -> str:
    """Each seat's cards in each position, from the starting player (a row each)."""
    # (the positions' numbers, as each seat's queue shows them: "Position 1" four times
    # over did not fit a phone's width; a screen reader says the words)
    head = "".join(f'<th scope="col"><span aria-hidden="true">{p}</span><span class="sr">'
                   f'{t(lang, "word.position", position=p)}</span></th>' for p in range(1, 5))
    rows = []
    for seat in setup_guide.deal_seats(game):
        name = game.players[seat].name
        cells = []
        for cards, cakes in setup_guide.dealt(game, seat):
            words = tr_count(lang, "wizard.deal_cards", cards) if cards else "–"
            cell = escape(words)
            if cakes:              # (in a narrow column: the cake under the cards, as a mark)
                cell = (f'<span aria-hidden="true">{cell}<br><span class="cakemark">'
                        f'{t(lang, "web.cake")}</span></span><span class="sr">'
                        f'{t(lang, "phone.with_cake", card=words)}</span>')
            cells.append(f'<td>{cell}</td>')
        rows.append(f'<tr><th scope="row">{escape(names.get(name, name))}</th>'
                    f'{"".join(cells)}</tr>')
    return (f'<table class="data deal"><caption class="sr">{t(lang, "wizard.deal_title")}'
            f'</caption><thead><tr><td></td>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _new_game(lang: str) -> str:
    """The New game form: edition, 2 to 4 players clockwise, the edition's options and who
    starts (the names typed, or picked at random by the page: the rules draw nothing). The
    page turns them into a setup line; REMATCH fills it with the last game's and asks who
    starts, as the touchscreen's wizard does."""
    editions = "".join(f'<option value="{e}">{t(lang, "edition." + e)}</option>'
                       for e in ("original", "winter", "cake_time"))
    players = "".join(f'<label>{t(lang, "phone.player_n", n=i)} <input name="player" '
                      f'autocomplete="off" maxlength="24"></label>' for i in range(1, 5))
    return (f'<section id="newgame" class="over-only" aria-labelledby="newgame-h">'
            f'<h2 id="newgame-h">{t(lang, "phone.new_game")}</h2>'
            f'<form id="newgame-form"><label>{t(lang, "phone.edition")} '
            f'<select name="edition">{editions}</select></label>'
            f'<fieldset><legend>{t(lang, "phone.players")}</legend>{players}</fieldset>'
            + _options(lang) + _tiles_choice(lang)
            + f'<label>{t(lang, "wizard.start_title")} <select name="start" id="starter">'
            f'<option value="" data-pick="first">{t(lang, "phone.player_n", n=1)}</option>'
            f'<option value="" data-pick="random">{t(lang, "wizard.random")}</option>'
            f'</select></label>'
            f'<button type="submit">{t(lang, "phone.start")}</button></form></section>')


def _options(lang: str) -> str:
    """Each box's options, as the wizard offers them (``LIVE_JS`` shows the box's own):
    the original game's one option, the Ristretto start, a box alone (no group around one
    box); Cake Time's Options (the Ristretto start and the expansion's optional rules) in a
    fieldset, as the wizard's options step; Winter's Variant (standard or Junior, and
    Junior's cards per position), a choice the wizard makes with the box. Each box's hint
    is tied to it (the Ristretto hint says what Off and On do, as the wizard's)."""
    def box(name: str, key: str, hint: str, hid: str, where: str = "") -> str:
        mark = " data-ristretto" if name == "ristretto" else ""
        return (f'<div class="option"{where}><label class="check"><input type="checkbox" '
                f'name="{name}" aria-describedby="{hid}">{t(lang, key)}</label>'
                f'<small class="hint" id="{hid}"{mark}>{t(lang, hint)}</small></div>')
    off = "wizard.ristretto_hint_off"
    cards = "".join(f'<option>{n}</option>' for n in range(JUNIOR_CARDS[0], JUNIOR_CARDS[1] + 1))
    variants = "".join(
        f'<label class="check"><input type="radio" name="variant" value="{v}"'
        + (' id="junior" aria-describedby="junior-hint"' if v == "junior" else " checked")
        + f'>{t(lang, "variant." + v)}</label>' for v in ("standard", "junior"))
    return (box("ristretto", "wizard.ristretto", off, "ristretto-hint",
                ' data-for="original"')
            + f'<fieldset data-for="cake_time"><legend>{t(lang, "wizard.options_title")}'
            f'</legend>{box("ristretto", "wizard.ristretto", off, "ristretto-hint-cake")}'
            + "".join(box(o, f"cake.{o}", f"cake.{o}_hint", f"{o}-hint")
                      for o in EXPANSION_OPTIONS["cake_time"]) + '</fieldset>'
            f'<fieldset data-for="winter"><legend>{t(lang, "wizard.variant_title")}</legend>'
            f'{variants}<div data-for="winter" data-if="junior">'
            f'<label>{t(lang, "wizard.junior_cards")} <select name="junior_cards" '
            f'aria-describedby="junior-hint">{cards}</select></label>'
            f'<small class="hint" id="junior-hint">'
            f'{t(lang, "wizard.junior_hint", orders=4 * JUNIOR_CARDS[0])}</small></div>'
            f'</fieldset>')


#: the boxes whose players choose 4 of more upgrade tiles: (form value, edition, expansion)
TILE_BOXES = (("winter", "winter", None), ("cake_time", "original", "cake_time"))


def _tiles_choice(lang: str) -> str:
    """The upgrade tiles, as the wizard's upgrade step asks them: the original game's four
    said (nothing to choose); Winter's 4 of 6 and Cake Time's 4 of 7 the same for everyone
    (Cake Time: drawn at random, by the box's rule: the page draws, or the table ticks
    what its starting player drew), each player's own, or decided at the table (none
    named, table script 1.3). Not in Junior (no upgrades). A fieldset of radio buttons,
    then a fieldset of boxes to tick per holder (``LIVE_JS`` shows the one that applies),
    the original four ticked at first as in the wizard (Cake Time's draw: none, the page
    draws at Start unless the table ticks what it drew)."""
    four = " · ".join(upgrade_name(lang, u) for u in ORIGINAL_UPGRADES)
    modes = [("shared", "winter", "wizard.upgrades_shared"),
             ("draw", "cake_time", "cake.upgrades_draw"),
             ("each", "winter cake_time", "wizard.upgrades_each"),
             ("open", "winter cake_time", "wizard.upgrades_open")]
    out = [f'<p data-for="original" id="tiles-original">{t(lang, "wizard.upgrades_original")}'
           f' <b>{escape(four)}</b></p>'
           f'<fieldset id="tiles" data-for="winter cake_time" data-unless="junior">'
           f'<legend>{t(lang, "wizard.upgrades_title")}</legend>']
    out += [f'<label class="check" data-for="{eds}"><input type="radio" name="tiles" '
            f'value="{mode}">{t(lang, key)}</label>' for mode, eds, key in modes]
    for form, edition, expansion in TILE_BOXES:
        box = box_rules(edition, expansion).upgrades
        out.append(f'<small class="hint" data-for="{form}" data-mode="open">'
                   f'{t(lang, "wizard.upgrades_open_hint", count=UPGRADE_TILES, total=len(box))}'
                   f'</small>')
        def boxes(ticked: Sequence[str], box: Sequence[str] = box) -> str:
            return "".join(f'<label class="check"><input type="checkbox" value="{u}"'
                           f'{" checked" if u in ticked else ""}>'
                           f'{escape(upgrade_name(lang, u))}</label>' for u in box)
        count = '<small class="hint" data-count></small>'
        draw = (f'<button type="button" data-draw>{t(lang, "phone.tiles_draw")}</button>'
                if expansion else "")
        mode = "draw" if expansion else "shared"
        if expansion:
            out.append(_draw_again(lang))
        out.append(f'<fieldset class="tileset" data-for="{form}" data-mode="{mode}"><legend>'
                   f'{t(lang, "wizard.upgrades_choose", count=UPGRADE_TILES, total=len(box))}'
                   f'</legend>{boxes(() if expansion else ORIGINAL_UPGRADES)}{draw}{count}'
                   f'</fieldset>')
        out += [f'<fieldset class="tileset" data-for="{form}" data-mode="each" '
                f'data-seat="{k}"><legend>'
                f'{t(lang, "phone.tiles_of", player=tr(lang, "phone.player_n", n=k + 1))}'
                f'</legend>{boxes(ORIGINAL_UPGRADES)}{count}</fieldset>' for k in range(4)]
    return "".join(out) + "</fieldset>"


def _draw_again(lang: str) -> str:
    """After a game whose tiles were drawn (REMATCH of Cake Time's draw: ``LIVE_JS`` shows
    it then): four drawn anew, as the box's rule does (the default; the page draws), or
    the last game's four again, as the touchscreen's wizard asks."""
    return (f'<fieldset data-for="cake_time" data-mode="draw" data-again hidden>'
            f'<legend>{t(lang, "cake.upgrades_draw")}</legend>'
            f'<label class="check"><input type="radio" name="again" value="new" checked>'
            f'{t(lang, "cake.upgrades_new")}</label>'
            f'<label class="check"><input type="radio" name="again" value="same" '
            f'aria-describedby="again-hint">{t(lang, "cake.upgrades_same")}</label>'
            f'<small class="hint" id="again-hint">{t(lang, "cake.upgrades_kept")}</small>'
            f'</fieldset>')


def history_page(lang: str, games: Iterable[Any], links: dict[int, str],
                 problem: str = "") -> str:
    """Every game, newest first, with its ranking and its downloads."""
    rows = []
    for g in sorted(games, key=lambda g: -g.id):
        if g.ranking:                   # (its players named as shown in ``lang``)
            shown = shown_names(lang, g.players, g.seat_colors or ())
            ranked = names_list(lang, [f'{r["place"]}. {shown.get(r["name"], r["name"])} '
                                       f'({r["score"]})' for r in g.ranking])
        else:
            ranked = tr(lang, "web.running")
        downloads = "".join(f'<a class="btn" download href="/history/{g.id}/{fmt}">{label}</a>'
                            for fmt, label in (("script", t(lang, "phone.script")),
                                               ("json", "JSON"), ("csv", "CSV")))
        if g.id in links:
            downloads += (f'<a class="btn bg" href="{escape(links[g.id])}" rel="noopener">'
                          f'{t(lang, "web.bgstats")}</a>')
        if g.ranking:                   # finished: its story and its one-page summary
            downloads = (f'<a class="btn story" href="/history/{g.id}?lang={lang}">'
                         f'{t(lang, "story.web_story")}</a>') + downloads
        when = local_time(g.started_at)
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
    names = record.seat_colors or []
    colours = list(screen_rgb(names)) + SEAT_RGB[len(names):]
    shown = shown_names(lang, [p.name for p in game.players] if game is not None else [],
                        names)
    story = story_of(table)
    story = story.named(shown) if story is not None else None
    title = tr(lang, "story.summary_title", game=record.id)
    when = local_time(record.started_at)
    out = [f'<h1>{escape(title)}</h1><p><small>'
           f'{escape(tr(lang, "edition." + (record.expansion or record.edition)))} · '
           f'{escape(tr(lang, "variant." + record.variant))} · '
           f'{t(lang, "web.started", time=when)}</small></p>']
    over = game is not None and game.game_over and story is not None
    if over:
        out += _finished_story(lang, game, story, colours, shown)
    else:
        out.append(f'<p>{t(lang, "story.web_not_finished")}</p>')
    out.append(_downloads(lang, record.id, over))
    return page(lang, "history", title, "".join(out))


def _finished_story(lang: str, game: Any, story: Any, colours: list,
                    names: dict[str, str]) -> list[str]:
    """A finished game: its ranking, the chart round by round, its turning points (its
    players ``names``d as shown in ``lang``; ``story``: named so already)."""
    out = ['<ol class="rank">']
    for r in ranking(game):
        out.append(f'<li value="{r.place}"{" class=won" if r.place == 1 else ""}>'
                   f'{escape(names.get(r.name, r.name))} · '
                   f'{escape(tr_count(lang, "end.points", r.score))}</li>')
    out.append("</ol>")
    out.append(f'<h2>{t(lang, "story.summary_chart")}</h2>')
    if story.round_count:
        out.append(story_svg(story, colours, lang, [p.round for p in story.points]))
        out.append('<div class="keys">' + "".join(
            f'<span data-seat="{seat + 1}">{key_svg(seat, colours[seat % len(colours)])}'
            f'{escape(name)}</span>' for seat, name in enumerate(story.players)) + "</div>")
        out.append(_story_table(lang, story))
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


def _story_table(lang: str, story: Any) -> str:
    """The chart's numbers as a table (what a screen reader reads, and anyone may open):
    a row per round, a column per player."""
    head = "".join(f'<th scope="col">{escape(name)}</th>' for name in story.players)
    rows = "".join(f'<tr><th scope="row">{r}</th>'
                   + "".join(f"<td>{v}</td>" for v in values) + "</tr>"
                   for r, values in enumerate(story.rounds) if r > 0)
    return (f'<details class="more" id="chart-data"><summary>{t(lang, "phone.chart_table")}'
            f'</summary><table class="data"><caption class="sr">{t(lang, "phone.chart_table")}'
            f'</caption><thead><tr><th scope="col">{t(lang, "phone.round")}</th>{head}</tr>'
            f'</thead><tbody>{rows}</tbody></table></details>')


def local_time(iso: str) -> str:
    """A journal's UTC time (ISO 8601) as the table's own clock shows it (the Pi's time
    zone, set by install or the wizard): "2026-11-28 14:05"."""
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def _downloads(lang: str, game_id: int, over: bool) -> str:
    """The game's files: the script, JSON and CSV; a finished one also its summary."""
    downloads = [("script", tr(lang, "phone.script")), ("json", "JSON"), ("csv", "CSV")]
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
                   config_text: str, url: str | None = None, can_update: bool = False) -> str:
    """A short status first (does everything work, version, uptime, address), then the
    devices, the last log lines and the settings, each folded; last, help and updates for
    a paired phone (``can_update``: the program is installed as releases)."""
    rows = "".join(f'<dt>{t(lang, _device_key(name))}</dt>'
                   f'<dd data-device="{escape(name)}">{t(lang, "web.device_" + status)}</dd>'
                   for name, status in devices.items())
    trouble = sum(status in ("lost", "unavailable") for status in devices.values())
    status = (tr_count(lang, "phone.status_problem", trouble) if trouble
              else tr(lang, "phone.status_ok"))
    body = (f'<h1>{t(lang, "web.companion")}</h1>'
            f'<p class="status{" bad" if trouble else ""}" id="summary">{escape(status)}</p><dl>'
            f'<dt>{t(lang, "web.version")}</dt><dd id="version">{escape(__version__)}</dd>'
            f'<dt>{t(lang, "web.uptime_label")}</dt>'
            f'<dd id="uptime">{t(lang, "web.uptime", time=duration(uptime))}</dd>'
            + (f'<dt>{t(lang, "web.address")}</dt><dd>{escape(url)}</dd>' if url else "")
            + f'</dl><details class="more"{" open" if trouble else ""}>'
            f'<summary>{t(lang, "web.devices")}</summary><dl id="devices">{rows}</dl></details>'
            f'<details class="more"><summary>{t(lang, "web.log", count=len(log_lines))}</summary>'
            f'<pre id="log">{escape(chr(10).join(log_lines))}</pre></details>'
            f'<details class="more"><summary>{t(lang, "web.config")}</summary>'
            f'<pre id="config">{escape(config_text)}</pre></details>'
            + _help_and_updates(lang, can_update))
    words = {key: tr(lang, "web." + key) for key in
             ("report_wait", "update_confirm", "update_asking")}
    words.update(offline=tr(lang, "phone.offline"),
                 failed=tr(lang, "phone.failed", status="{status}"))
    return page(lang, "companion", tr(lang, "web.companion"), body, HELP_JS, words)


# The companion page's script: the help report is a plain link (the browser downloads it;
# the words say it is coming), Update posts with fetch() (so the browser sends its Origin)
# after a confirmation; what the table answered goes to #help-msg, a polite live region.
# A phone the live page has not paired is told how to pair first.
HELP_JS = """
const hm=document.getElementById('help-msg'),up=document.getElementById('update'),
hint=document.getElementById('pair-first');
function say(t,status){hm.textContent=t;if(status===undefined)delete hm.dataset.status;
else hm.dataset.status=status;}
function paired(yes){hint.hidden=yes;if(!yes)localStorage.removeItem('paired');}
paired(localStorage.getItem('paired')==='1');
document.getElementById('report').addEventListener('click',()=>say(W.report_wait));
if(up)up.addEventListener('click',async()=>{if(!confirm(W.update_confirm))return;
up.disabled=true;say(W.update_asking);let r;
try{r=await fetch('/api/update?lang='+document.documentElement.lang,{method:'POST'});}
catch(err){say(W.offline,'offline');up.disabled=false;return;}
const d=await r.json().catch(()=>null);
say(d&&d.message?d.message:W.failed.replace('{status}',r.status),r.status);
if(r.status===401)paired(false);up.disabled=r.status===200;});
"""


def _help_and_updates(lang: str, can_update: bool) -> str:
    """A paired phone's help report (a download link) and Update (a button), their answers
    said in a live region; where the program is not installed as releases, why it cannot
    update itself instead of the button."""
    update = (f'<p><button type="button" id="update" aria-describedby="update-hint">'
              f'{t(lang, "web.update")}</button></p>'
              f'<p id="update-hint">{t(lang, "web.update_hint")}</p>' if can_update
              else f'<p id="update-none">{t(lang, "web.update_none")}</p>')
    return (f'<section aria-labelledby="help-title"><h2 id="help-title">{t(lang, "web.help")}'
            f'</h2><p id="pair-first" class="warn" hidden>{t(lang, "web.pair_first")}</p>'
            f'<p><a class="btn" id="report" href="/api/report?lang={lang}" '
            f'aria-describedby="report-hint">{t(lang, "web.report")}</a></p>'
            f'<p id="report-hint">{t(lang, "web.report_hint")}</p>{update}'
            f'<p id="help-msg" role="status" aria-live="polite"></p></section>')


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
