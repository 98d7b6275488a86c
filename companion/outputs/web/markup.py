"""Text made safe inside the phone view's HTML and SVG.

``escape`` is the standard library's ``html.escape``, written out: ``import html`` also
loads ``html.entities`` (every named character of HTML5, for ``unescape``, which the
companion never needs): about 0.34 MB of the service's resident memory (issue 19).
"""
from __future__ import annotations


def escape(text: str, quote: bool = True) -> str:
    """``&``, ``<`` and ``>`` (and with ``quote`` both quotes) as character references,
    exactly as ``html.escape`` writes them."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if quote:
        text = text.replace('"', "&quot;").replace("'", "&#x27;")
    return text
