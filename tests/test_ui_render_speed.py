"""The shortcuts taken for issue 19 (tap -> frame on a Pi Zero 2 W) change no result.

Widget keys read their compared field names once per class, screen metrics divide once,
and ``i18n.tr`` fills templates with ``str.format_map``: each must give exactly what the
slower form gave, for every class, size and template.
"""
from __future__ import annotations

import string
from dataclasses import dataclass, field, fields

import pygame
import pytest

from companion.ui import i18n, widgets
from companion.ui.layout import Metrics


def slow_key(w: widgets.Widget) -> tuple:
    return tuple(widgets._freeze(getattr(w, f.name)) for f in fields(w) if f.compare)


@dataclass(eq=False)
class _Twin(widgets.Fill):
    """A subclass with one field that counts and one that does not."""
    shade: int = 0
    note: str = field(default="", compare=False)


def test_widget_keys_match_the_dataclass_fields_of_each_class():
    r = pygame.Rect(1, 2, 30, 40)
    fill = widgets.Fill("a", r, radius=3)
    twin = _Twin("b", r, radius=3, shade=5, note="x")
    label = widgets.Label("c", r, text="hi", size=20)
    for w in (fill, twin, label, fill, twin):      # a second call uses the cached names
        assert w.key() == slow_key(w)
    assert twin.key() != widgets.Fill("b", r, radius=3).key()      # its own field counts
    quiet = _Twin("b", r, radius=3, shade=5, note="y")
    assert quiet.key() == twin.key()                                 # compare=False does not
    twin.shade = 6
    assert twin.key() == slow_key(twin) and twin.key() != quiet.key()


@pytest.mark.parametrize("size", [(800, 480), (1024, 600), (1280, 720), (1280, 800),
                                  (480, 320), (1920, 1080)])
def test_metrics_px_is_the_same_formula(size):
    m = Metrics.of(size)
    for design in (0, 0.5, 1, 3, 6, 7.5, 13, 44, 200, 480):
        assert m.px(design) == max(1, round(design * min(size[1] / 480, size[0] / 800)))


def test_format_map_fills_every_template_as_string_formatter_did():
    for lang in i18n.LANGUAGES:
        for key, template in i18n.catalog(lang).items():
            names = {f for _, f, _, _ in string.Formatter().parse(template) if f}
            params = {n: 7 for n in names}
            slow = string.Formatter().vformat(template, (), i18n._Params(params))
            assert i18n.tr(lang, key, **params) == slow, (lang, key)


def test_malformed_and_missing_still_fall_back(monkeypatch, caplog):
    monkeypatch.setitem(i18n.catalog("en"), "test.broken", "{0} and {")
    monkeypatch.setitem(i18n.catalog("en"), "test.named", "hello {who}")
    assert i18n.tr("en", "test.broken") == "{0} and {"
    assert i18n.tr("en", "test.named") == "hello {who}"
    assert i18n.tr("en", "test.named", who="Ana") == "hello Ana"
