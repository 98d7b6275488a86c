"""Every word on every screen is big enough, in every language, at 800 x 480 (issue 40).

Every scene of ``coffee-companion screenshots`` (the table's, Cake Time's, the finished
game's, each state of the wizard, settings, keyboard and enroll screens) is rendered in
en, es, pt, it and ko at 800 x 480, and every text drawn is checked: none is drawn below
the small type (``Metrics.small``, 17 px at 800 x 480: the footer's words, a message in
the top bar, a dialog's hint), except what ``DELIBERATELY_SMALL`` lists, each with why.
What every seat must read from 1.5 m is held to 6 mm by ``test_table_glance.py`` and
``test_table_footer.py``; this test is the floor under everything else.

It failed, before they were fixed, on a message's headline
beside ABIERTO (13-14 px) and on Cake Time's footer words (14 px in every language).
"""
from __future__ import annotations

import os
import re

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pytest  # noqa: E402

from companion.appliance.config import LANGUAGES  # noqa: E402
from companion.outputs.screen import text  # noqa: E402
from companion.outputs.screen.layout import Metrics  # noqa: E402
from companion.outputs.screen.screenshots import render_scene, sample_script, scene_jobs  # noqa: E402
from companion.outputs.screen.widgets import record_text  # noqa: E402

SIZE = (800, 480)

#: owner (a regular expression over the widget's name) -> why its words may be smaller
DELIBERATELY_SMALL = {
    r"(act|p\d)\.pos\d": "an order card's face as printed (its drink and its ingredients' "
                         "initials in their coloured discs): the card itself lies on the "
                         "table; the position's number, its count and position 4's "
                         "must-read count are drawn bigger",
    r"p\d\.seat": "the seat's number inside its shape on a side panel: the panel's colour, "
                  "the shape and the name beside it (at the small type or more) tell the "
                  "seat; the number is a third clue, as big as the token holds",
    r"wz\.m?board": "the names on the wizard's drawing of the board's squares (read at arm's "
                    "length while setting up, beside the board itself); each square's "
                    "colour and picture tell it",
}


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    text.set_language("en")


def deliberately_small(owner: str) -> bool:
    return any(re.fullmatch(pattern, owner) for pattern in DELIBERATELY_SMALL)


def too_small(lang: str) -> list[tuple]:
    """(scene, owner, size, text) of each word drawn below the small type in ``lang``."""
    m = Metrics.of(SIZE)
    found = []
    for name, prepare, start in scene_jobs(sample_script(), SIZE, lang):
        app = render_scene(start, prepare, SIZE, lang)
        app.screen.invalidate()
        with record_text() as texts:
            app.screen.draw(app.surface)
        found += [(name, r.owner, r.size, r.text) for r in texts
                  if r.size < m.small and r.text.strip() and not deliberately_small(r.owner)]
    return found


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_word_on_any_screen_is_below_the_small_type(lang):
    assert too_small(lang) == []


def test_the_allow_list_is_still_needed():
    """Each entry of ``DELIBERATELY_SMALL`` matches something drawn small (else it goes)."""
    m = Metrics.of(SIZE)
    used = set()
    for name, prepare, start in scene_jobs(sample_script(), SIZE, "es"):
        if not name.startswith(("table-draws", "wizard-board")):
            continue
        app = render_scene(start, prepare, SIZE, "es")
        app.screen.invalidate()
        with record_text() as texts:
            app.screen.draw(app.surface)
        used |= {p for r in texts for p in DELIBERATELY_SMALL
                 if r.size < m.small and re.fullmatch(p, r.owner)}
    assert used == set(DELIBERATELY_SMALL)


def test_a_long_message_without_a_headline_shows_its_first_words_at_the_small_type():
    """Beside ABIERTO a refusal with no ": " in it (a long name) once shrank to 13 px: now its
    first words that fit at the small type, and a "›" whose tap shows it whole."""
    from ui_touch import touch

    from companion.outputs.screen.screenshots import SCENES, make_app
    _, app = make_app(sample_script(), SIZE, "es")
    SCENES["table-reopened"][0](app)         # ABIERTO, the device icons beside it
    app.screen._toasts.clear()
    message = "Maximiliano Fernández no tiene pedidos en la pestaña 3 de su cola"
    app.screen.toast(message, near=(300, 250))
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    [shown] = [r for r in texts if r.owner == "toast.0"]
    assert shown.size >= Metrics.of(SIZE).small and "…" not in shown.text
    assert shown.wanted.endswith(" ›") and message.startswith(shown.wanted[:-2])
    assert len(shown.wanted) < len(message)
    touch(app, "toast.0")
    app.screen.invalidate()
    with record_text() as texts:
        app.screen.draw(app.surface)
    assert " ".join(" ".join(r.text for r in texts if r.owner == "toast.whole").split()) \
        == message


#: the table's messages in its top bar: a refusal by the finger, "Shop closed: ...", and a
#: message too long for the bar ("Shop open again: ...", its headline and a "›")
TOP_BAR_SCENES = ("table-toast", "table-closed", "table-reopened")


@pytest.mark.parametrize("size", [SIZE, (1024, 600)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_top_bars_message_is_as_big_as_the_turn_beside_it(lang, size):
    """A message in the top bar takes the body size or more (22 px at 800 x 480, as "Turn 10
    · Round 3" and the deck beside it), whole inside the bar; the refusal and "Shop closed:
    Chloe has 5 dislikes" in full, a longer one its headline (a tap shows it all). It was
    17-18 px in a shadowed card the bar's room held in two lines only so."""
    from companion.outputs.screen.screenshots import SCENES, make_app
    m = Metrics.of(size)
    for name in TOP_BAR_SCENES:
        _, app = make_app(sample_script(), size, lang)
        SCENES[name][0](app)
        [message] = app.screen.toasts
        app.screen.invalidate()
        with record_text() as texts:
            app.screen.draw(app.surface)
        [shown] = [r for r in texts if r.owner == "toast.0"]
        header = next(w for w in app.screen._widgets if w.name == "hdr.bg").rect
        where = (lang, name, shown.text, shown.size)
        assert shown.size >= m.body, where
        assert "…" not in shown.text and shown.box.contains(shown.rect), where
        assert header.contains(shown.rect), where
        if name != "table-reopened":
            assert shown.wanted == message, where
        else:
            assert shown.wanted.endswith(" ›") and message.startswith(shown.wanted[:-2]), where
