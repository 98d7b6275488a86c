"""axe-core in a real browser: the serious and critical WCAG A/AA violations of a page.

axe-core's own script (``axe.min.js``) comes from the ``axe-playwright-python`` package
(test extras); it is injected into the page as it is and run there, by Playwright driving
Debian's Chromium. A screenshot of every checked state goes to ``$A11Y_SHOTS`` (a folder)
when it is set, so a person can look at what was checked.
"""
from __future__ import annotations

import os
import re
from importlib import resources

VIEWPORTS = {"360x740": {"width": 360, "height": 740}, "390x844": {"width": 390, "height": 844}}
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def axe_script() -> str:
    return resources.files("axe_playwright_python").joinpath("axe.min.js").read_text("utf-8")


def serious(page, name: str = "") -> list[str]:
    """Each serious or critical violation on the page as it is now, one line each (the
    rule, its help and the first few elements); a screenshot as ``name`` if asked."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())
    result = page.evaluate(
        "opts => axe.run(document, opts)",
        {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]})
    shots = os.environ.get("A11Y_SHOTS")
    if shots and name:
        os.makedirs(shots, exist_ok=True)
        page.screenshot(path=os.path.join(shots, re.sub(r"[^\w.-]", "_", name) + ".png"),
                        full_page=True)
    out = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            where = "; ".join(" ".join(n["target"]) + " " + (n.get("failureSummary") or "")
                              .replace("\n", " ")[:160] for n in v["nodes"][:4])
            out.append(f'{name}: {v["id"]} ({v["impact"]}): {v["help"]}: {where}')
    return out


def at_every_size(page, name: str) -> list[str]:
    """``serious`` at each phone size (the page resized, not reloaded: axe-core is injected
    once per page), and the page wider than none of them."""
    out = []
    for size, viewport in sorted(VIEWPORTS.items()):
        page.set_viewport_size(viewport)
        out += serious(page, f"{name}-{size}")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > viewport["width"]:
            out.append(f"{name}-{size}: the page is {width} px wide")
    return out
