"""A ruling's cause (``companion.review.explain.Why``) as one sentence in a language.

The sentences are the locale files' ``[why]`` section; a parameter that is a ``Word``
reads as that locale word, ``Names`` as a list of names, a nested ``Why`` as its own
sentence, a tuple of them as a list, and a ``Rejection`` as the engine's reason in the
same language. No pygame: the touchscreen, the phone view and ``replay --explain`` use it.

``names`` (recorded name -> shown name, ``core.seat_colours.shown_names``): the players'
names as people see them in ``lang`` (a seat colour's name follows the language); the
``Why`` itself keeps the recorded names.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .explain import Names, Why, Word
from companion.core.rules.rejections import Rejection
from companion.core.seat_colours import shown_rejection
from companion.words import i18n


def _value(lang: str, v: Any, names: Mapping[str, str]) -> Any:
    if isinstance(v, Why):
        return why_text(lang, v, sentence=False, names=names)
    if isinstance(v, Word):
        return i18n.tr(lang, f"{v.section}.{v.id}")
    if isinstance(v, Names):
        return i18n.names_list(lang, [names.get(n, n) for n in v.names])
    if isinstance(v, Rejection):
        return i18n.rejection_text(lang, shown_rejection(v, names))
    if isinstance(v, tuple):
        return i18n.names_list(lang, [str(_value(lang, x, names)) for x in v])
    if isinstance(v, str):
        return names.get(v, v)
    return v


def why_text(lang: str, why: Why, sentence: bool = True,
             names: Mapping[str, str] | None = None) -> str:
    """The sentence of ``why`` in ``lang`` (``sentence``: with a capital first letter;
    ``names``: the players' names as shown)."""
    names = names or {}
    params = {k: _value(lang, v, names) for k, v in why.params.items()}
    if why.count is not None:
        params.setdefault("count", why.count)
    text = i18n.tr(lang, why.locale_key, **params)
    return text[:1].upper() + text[1:] if sentence else text
