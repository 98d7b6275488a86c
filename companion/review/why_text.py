"""A ruling's cause (``companion.review.explain.Why``) as one sentence in a language.

The sentences are the locale files' ``[why]`` section; a parameter that is a ``Word``
reads as that locale word, ``Names`` as a list of names, a nested ``Why`` as its own
sentence, a tuple of them as a list, and a ``Rejection`` as the engine's reason in the
same language. No pygame: the touchscreen, the phone view and ``replay --explain`` use it.
"""
from __future__ import annotations

from typing import Any

from .explain import Names, Why, Word
from companion.core.rules.rejections import Rejection
from companion.words import i18n


def _value(lang: str, v: Any) -> Any:
    if isinstance(v, Why):
        return why_text(lang, v, sentence=False)
    if isinstance(v, Word):
        return i18n.tr(lang, f"{v.section}.{v.id}")
    if isinstance(v, Names):
        return i18n.names_list(lang, v.names)
    if isinstance(v, Rejection):
        return i18n.rejection_text(lang, v)
    if isinstance(v, tuple):
        return i18n.names_list(lang, [str(_value(lang, x)) for x in v])
    return v


def why_text(lang: str, why: Why, sentence: bool = True) -> str:
    """The sentence of ``why`` in ``lang`` (``sentence``: with a capital first letter)."""
    params = {k: _value(lang, v) for k, v in why.params.items()}
    if why.count is not None:
        params.setdefault("count", why.count)
    text = i18n.tr(lang, why.locale_key, **params)
    return text[:1].upper() + text[1:] if sentence else text
