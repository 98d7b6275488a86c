"""The game's story in words (``companion.review.story`` keeps keys and params; the locale
files' ``[story]`` section has the sentences): one place for the end screen, the
phone view and the one-page summary."""
from __future__ import annotations

from .story import TurningPoint
from companion.words.i18n import names_list, tr, tr_count, upgrade_name


def point_text(lang: str, point: TurningPoint) -> str:
    """One turning point as a sentence in ``lang`` (without its round)."""
    p = point.kwargs
    if point.key == "surge":
        counts = {n for _, n in p["draws"]}
        if len(p["draws"]) > 1 and len(counts) == 1:      # "Ben and Chloe each drew 3"
            draws = tr_count(lang, "story.draw_each", counts.pop(),
                             players=names_list(lang, [who for who, _ in p["draws"]]))
        else:
            draws = names_list(lang, [tr_count(lang, "story.draw", n, player=who)
                                      for who, n in p["draws"]])
        return tr(lang, "story.surge", player=p["player"], count=p["count"], draws=draws)
    if point.key == "last_card":
        if p["player"] is None:
            return tr(lang, "story.last_card_fixed", turn=point.turn)
        return tr(lang, "story.last_card", player=p["player"], turn=point.turn)
    if point.key == "fifth_dislike" and p.get("fixed"):
        return tr(lang, "story.fifth_dislike_fixed", player=p["player"])
    if point.key == "fifth_dislike":
        return tr(lang, "story.fifth_dislike", player=p["player"])
    if point.key == "upgrade":
        return tr(lang, "story.upgrade", player=p["player"],
                  upgrade=upgrade_name(lang, p["upgrade"]))
    return tr(lang, f"story.{point.key}", **p)


def round_text(lang: str, point: TurningPoint) -> str:
    return tr(lang, "story.round", round=point.round)
