"""The on-screen keyboard: names and drink names by touch, accents and Korean included.

Three layouts, switched by keys on the bottom row:

- ``latin``:   QWERTY with ñ and ç; the first letter of each word is capital
               (tap ⇧ for the opposite);
- ``accents``: á à â ã ä é è ê ë í ì î ï ó ò ô õ ö ú ù û ü ç ñ ' - and their
               capitals with ⇧;
- ``hangul``:  the standard Korean 2-beolsik (두벌식) layout. Jamo typed one by
               one are composed into syllables as on a phone: ㅁ ㅣ ㄴ ㅅ ㅜ →
               민수 (a final consonant moves to the next syllable when a vowel
               follows; double vowels ㅘ ㅝ ㅢ … and double finals ㄳ ㄺ ㅄ …
               combine). ⇧ gives ㅃ ㅉ ㄸ ㄲ ㅆ ㅒ ㅖ.

``HangulComposer`` is the composition logic alone (no pygame), ``Keyboard``
holds the text being typed and builds the key widgets, ``KeyboardScreen`` is
a whole screen: a prompt, the text field and the keys, with OK and Cancel.
A hardware keyboard works too (TEXTINPUT / backspace / return events).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pygame

from . import theme
from .layout import cols, inset, rows
from .screens.base import Screen
from .text import language
from .widgets import Button, Fill, Label, Widget

# --- Hangul composition -----------------------------------------------------------------

CHO = "ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ"
JUNG = "ㅏㅐㅑㅒㅓㅔㅕㅖㅗㅘㅙㅚㅛㅜㅝㅞㅟㅠㅡㅢㅣ"
JONG = ["", "ㄱ", "ㄲ", "ㄳ", "ㄴ", "ㄵ", "ㄶ", "ㄷ", "ㄹ", "ㄺ", "ㄻ", "ㄼ", "ㄽ", "ㄾ", "ㄿ",
        "ㅀ", "ㅁ", "ㅂ", "ㅄ", "ㅅ", "ㅆ", "ㅇ", "ㅈ", "ㅊ", "ㅋ", "ㅌ", "ㅍ", "ㅎ"]
VOWEL_PAIRS = {("ㅗ", "ㅏ"): "ㅘ", ("ㅗ", "ㅐ"): "ㅙ", ("ㅗ", "ㅣ"): "ㅚ", ("ㅜ", "ㅓ"): "ㅝ",
               ("ㅜ", "ㅔ"): "ㅞ", ("ㅜ", "ㅣ"): "ㅟ", ("ㅡ", "ㅣ"): "ㅢ"}
FINAL_PAIRS = {("ㄱ", "ㅅ"): "ㄳ", ("ㄴ", "ㅈ"): "ㄵ", ("ㄴ", "ㅎ"): "ㄶ", ("ㄹ", "ㄱ"): "ㄺ",
               ("ㄹ", "ㅁ"): "ㄻ", ("ㄹ", "ㅂ"): "ㄼ", ("ㄹ", "ㅅ"): "ㄽ", ("ㄹ", "ㅌ"): "ㄾ",
               ("ㄹ", "ㅍ"): "ㄿ", ("ㄹ", "ㅎ"): "ㅀ", ("ㅂ", "ㅅ"): "ㅄ"}
SPLIT_VOWEL = {v: pair for pair, v in VOWEL_PAIRS.items()}
SPLIT_FINAL = {f: pair for pair, f in FINAL_PAIRS.items()}


def is_consonant(ch: str) -> bool:
    return ch in CHO or ch in SPLIT_FINAL


def is_vowel(ch: str) -> bool:
    return ch in JUNG


def syllable(cho: str, jung: str, jong: str = "") -> str:
    """The precomposed syllable of an initial, a vowel and an optional final."""
    return chr(0xAC00 + (CHO.index(cho) * 21 + JUNG.index(jung)) * 28 + JONG.index(jong))


@dataclass
class HangulComposer:
    """Turns typed jamo into Hangul syllables (2-beolsik automaton).

    ``committed`` is finished text; ``cho``/``jung``/``jong`` the syllable being
    typed. ``text`` is what the field shows.
    """
    committed: str = ""
    cho: str = ""
    jung: str = ""
    jong: str = ""

    @property
    def composing(self) -> str:
        if self.cho and self.jung:
            return syllable(self.cho, self.jung, self.jong)
        return self.cho or self.jung

    @property
    def text(self) -> str:
        return self.committed + self.composing

    def commit(self) -> str:
        """Finish the syllable being typed; return the whole text."""
        self.committed += self.composing
        self.cho = self.jung = self.jong = ""
        return self.committed

    def type(self, jamo: str) -> None:
        if is_vowel(jamo):
            self._vowel(jamo)
        elif is_consonant(jamo):
            self._consonant(jamo)
        else:                       # anything else (space, a Latin letter) ends the syllable
            self.commit()
            self.committed += jamo

    def _consonant(self, c: str) -> None:
        if self.cho and self.jung:
            if not self.jong:
                if c in JONG:
                    self.jong = c
                    return
            elif (self.jong, c) in FINAL_PAIRS:
                self.jong = FINAL_PAIRS[(self.jong, c)]
                return
        self.commit()
        self.cho = c

    def _vowel(self, v: str) -> None:
        if self.jong:
            # the final consonant (or the second half of a double one) starts a new syllable
            first, moving = SPLIT_FINAL.get(self.jong, ("", self.jong))
            self.jong = first
            self.commit()
            self.cho, self.jung = moving, v
            return
        if self.jung:
            if (self.jung, v) in VOWEL_PAIRS:
                self.jung = VOWEL_PAIRS[(self.jung, v)]
                return
            self.commit()
            self.jung = v
            return
        self.jung = v          # after an initial (or alone)

    def backspace(self) -> None:
        """Take back the last jamo typed (or the last finished character)."""
        if self.jong:
            self.jong = SPLIT_FINAL.get(self.jong, ("",))[0]
        elif self.jung:
            self.jung = SPLIT_VOWEL.get(self.jung, ("",))[0]
        elif self.cho:
            self.cho = ""
        else:
            self.committed = self.committed[:-1]


# --- the keyboard -----------------------------------------------------------------------

LATIN = ["1234567890", "qwertyuiop", "asdfghjklñ", "⇧zxcvbnmç⌫"]
ACCENTS = ["áàâãäåæ'-.", "éèêëíìîïý&", "óòôõöøœúùû", "⇧üÿßšžčł⌫"]
HANGUL = ["1234567890", "ㅂㅈㄷㄱㅅㅛㅕㅑㅐㅔ", "ㅁㄴㅇㄹㅎㅗㅓㅏㅣ", "⇧ㅋㅌㅊㅍㅠㅜㅡ⌫"]
HANGUL_SHIFT = {"ㅂ": "ㅃ", "ㅈ": "ㅉ", "ㄷ": "ㄸ", "ㄱ": "ㄲ", "ㅅ": "ㅆ", "ㅐ": "ㅒ", "ㅔ": "ㅖ"}
SHIFT, BACKSPACE = "⇧", "⌫"


@dataclass
class Keyboard:
    """The text being typed and the layout shown; ``keys(rect, ...)`` builds the widgets."""
    text: str = ""
    max_len: int = 20
    layout: str = "latin"            # "latin", "accents" or "hangul"
    shift: bool | None = None     # None = automatic (capital at the start of a word)
    hangul: HangulComposer = field(default_factory=HangulComposer)
    too_long: bool = False           # the last key was refused: the text is full

    def __post_init__(self):
        self.hangul = HangulComposer(self.text)

    # --- state ------------------------------------------------------------------------

    @property
    def value(self) -> str:
        """The text as it stands (the syllable being composed included)."""
        return self.hangul.text

    @property
    def shifted(self) -> bool:
        if self.shift is not None:
            return self.shift
        v = self.value
        return self.layout != "hangul" and (not v or v.endswith((" ", "-")))

    def set_layout(self, layout: str) -> None:
        self.hangul.commit()
        self.layout = layout
        self.shift = None

    def label(self, key: str) -> str:
        if self.layout == "hangul":
            return HANGUL_SHIFT.get(key, key) if self.shifted else key
        if key.isalpha() and len(key) == 1:
            return key.upper() if self.shifted else key
        return key

    # --- typing -------------------------------------------------------------------------

    def press(self, key: str) -> None:
        """A key was tapped (its label as shown on the layout, before shift)."""
        self.too_long = False
        if key == SHIFT:
            self.shift = not self.shifted
            return
        if key == BACKSPACE:
            self.hangul.backspace()
            self.shift = None
            return
        ch = " " if key == "space" else self.label(key)
        if self._would_overflow(ch):
            self.too_long = True
            return
        if self.layout == "hangul" and (is_vowel(ch) or is_consonant(ch)):
            self.hangul.type(ch)
        else:
            self.hangul.commit()
            self.hangul.committed += ch
        if self.layout != "hangul":
            self.shift = None
        elif self.shift:
            self.shift = None          # a shifted jamo (ㅃ, ㅒ, ...) is one keystroke

    def type_text(self, text: str) -> None:
        """Text from a hardware keyboard (already composed by the system)."""
        for ch in text:
            if self._would_overflow(ch):
                self.too_long = True
                return
            self.hangul.commit()
            self.hangul.committed += ch

    def _would_overflow(self, ch: str) -> bool:
        before = self.value
        if len(before) < self.max_len:
            return False
        if self.layout == "hangul" and (is_vowel(ch) or is_consonant(ch)):
            trial = HangulComposer(self.hangul.committed, self.hangul.cho, self.hangul.jung,
                                   self.hangul.jong)
            trial.type(ch)
            return len(trial.text) > self.max_len
        return True

    def clear(self) -> None:
        self.hangul = HangulComposer()
        self.shift = None

    def result(self) -> str:
        """The finished text, spaces trimmed."""
        return " ".join(self.hangul.commit().split())

    # --- widgets ------------------------------------------------------------------------

    def rows(self) -> list[str]:
        return {"latin": LATIN, "accents": ACCENTS, "hangul": HANGUL}[self.layout]

    def keys(self, rect: pygame.Rect, gap: int, size: int, t: Callable[..., str],
             on_change: Callable[[], None], on_done: Callable[[], None],
             prefix: str = "kb") -> list[Widget]:
        """The key widgets filling ``rect``: the layout's rows, then
        [accents] [한글 / ABC] [space] [OK]. Each tap calls ``on_change`` (or ``on_done``)."""
        out: list[Widget] = []
        lines = self.rows()
        bands = rows(rect, [1.0] * (len(lines) + 1), gap)

        def tap(key: str) -> Callable[[], None]:
            def fn():
                self.press(key)
                on_change()
            return fn

        key_size = max(size, round(bands[0].h * (0.55 if self.layout == "hangul" else 0.48)))
        # one band more than letter rows: the last holds the action keys
        for r, (band, line) in enumerate(zip(bands, lines, strict=False)):
            cells = cols(band, [1.0] * 10, gap)
            keys = list(line)
            offset = (10 - len(keys)) / 2
            for c, key in enumerate(keys):
                cell = pygame.Rect(cells[0])
                cell.x = round(band.x + (c + offset) * (cells[0].w + gap))
                special = key in (SHIFT, BACKSPACE)
                face = theme.BUTTON_PRESSED if (key == SHIFT and self.shifted) else (
                    theme.PANEL_LINE if special else theme.BUTTON)
                out.append(Button(f"{prefix}.{r}.{c}", cell, text=self.label(key), size=key_size,
                                  color=face, bold=not special, on_tap=tap(key)))

        def switch(layout: str) -> Callable[[], None]:
            def fn():
                self.set_layout(layout)
                on_change()
            return fn

        bottom = cols(bands[-1], [1.5, 1.5, 4.5, 2.5], gap)
        other_latin = "latin" if self.layout == "accents" else "accents"
        accent_label = t("keyboard.latin") if self.layout == "accents" else t("keyboard.accents")
        script_label = t("keyboard.latin") if self.layout == "hangul" else t("keyboard.hangul")
        out.append(Button(f"{prefix}.accents", bottom[0], text=accent_label, size=size,
                          color=theme.PANEL_LINE, on_tap=switch(other_latin)))
        out.append(Button(f"{prefix}.script", bottom[1], text=script_label, size=size,
                          color=theme.PANEL_LINE,
                          on_tap=switch("latin" if self.layout == "hangul" else "hangul")))
        out.append(Button(f"{prefix}.space", bottom[2], text=t("keyboard.space"), size=size,
                          bold=False, on_tap=tap("space")))
        out.append(Button(f"{prefix}.ok", bottom[3], text=t("keyboard.done"), size=size,
                          color=theme.PRIMARY, on_tap=on_done))
        return out

    def key_name(self, label: str, prefix: str = "kb") -> str | None:
        """The widget name of the key showing ``label`` now (tests, scripted input)."""
        for r, line in enumerate(self.rows()):
            for c, key in enumerate(line):
                if self.label(key) == label or key == label:
                    return f"{prefix}.{r}.{c}"
        return None


def field_widgets(name: str, rect: pygame.Rect, text: str, placeholder: str, size: int,
                  on_tap: Callable[[], None] | None = None, caret: bool = False,
                  active: bool = False) -> list[Widget]:
    """A text field: a light box with the text (or a dim placeholder)."""
    face = theme.CARD if text else theme.mix(theme.CARD, theme.PANEL, 0.35)
    edge = theme.PRIMARY if active else theme.CARD_EDGE
    out: list[Widget] = [Fill(name, rect, color=face, radius=10, border=3, border_color=edge,
                              on_tap=on_tap)]
    shown = (text + ("|" if caret else "")) if text else placeholder
    color = theme.TEXT_DARK if text else theme.mix(theme.TEXT_DARK, face, 0.45)
    out.append(Label(name + ".text", inset(rect, max(8, rect.h // 5), 2), text=shown, size=size,
                     color=color, bold=bool(text), align="left"))
    return out


# --- the keyboard screen -----------------------------------------------------------------

class KeyboardScreen(Screen):
    """A whole screen for typing one text. ``on_done(text)`` gets the result on OK;
    Cancel (or OK with nothing typed) leaves without calling it when ``allow_empty``
    is false."""

    def __init__(self, app: Any, title: str = "", text: str = "",
                 on_done: Callable[[str], None] | None = None, max_len: int = 20,
                 layout: str | None = None, allow_empty: bool = False,
                 placeholder: str = ""):
        super().__init__(app)
        self.title = title
        self.on_done = on_done
        self.allow_empty = allow_empty
        self.placeholder = placeholder
        if layout is None:
            layout = "hangul" if language() == "ko" else "latin"
        self.keyboard = Keyboard(text=text, max_len=max_len, layout=layout)

    def build(self) -> list[Widget]:
        m = self.m
        screen = inset(m.rect, m.margin)
        top, field_row, keys = rows(screen, [m.bar, max(m.target, m.px(60)), 1.0], m.gap)
        title_box, cancel_box = cols(top, [1.0, m.px(150)], m.gap)
        out: list[Widget] = [
            Label("kb.title", title_box, text=self.title, size=m.big, bold=True, align="left"),
            Button("kb.cancel", cancel_box, text=self.t("keyboard.cancel"), size=m.body,
                   on_tap=self.cancel),
        ]
        out += field_widgets("kb.field", field_row, self.keyboard.value, self.placeholder,
                             m.big, caret=True, active=True)
        out += self.keyboard.keys(keys, m.gap, m.body, self.t, self._typed, self.done)
        return out

    def _typed(self) -> None:
        if self.keyboard.too_long:
            self.toast(self.t("keyboard.too_long", count=self.keyboard.max_len), kind="warning")
        self.changed()

    def handle(self, event: Any) -> None:
        if isinstance(event, pygame.event.EventType):
            if event.type == pygame.TEXTINPUT:
                self.keyboard.type_text(event.text)
                self._typed()
                return
            if event.type == pygame.KEYDOWN:
                if event.key == pygame.K_BACKSPACE:
                    self.keyboard.press(BACKSPACE)
                    self._typed()
                elif event.key in (pygame.K_RETURN, pygame.K_KP_ENTER):
                    self.done()
                elif event.key == pygame.K_ESCAPE:
                    self.cancel()
                return
        super().handle(event)

    def done(self) -> None:
        text = self.keyboard.result()
        if not text and not self.allow_empty:
            self.cancel()
            return
        self.app.pop(self)
        if self.on_done is not None:
            self.on_done(text)

    def cancel(self) -> None:
        self.app.pop(self)

    def screenshot_states(self):
        return [("", lambda: self._demo("latin", "Zoë Ñandú")),
                ("accents", lambda: self._demo("accents", "João")),
                ("hangul", lambda: self._demo("hangul", "민수"))]

    def _demo(self, layout: str, text: str) -> None:
        self.title = self.t("wizard.type_name")
        self.keyboard = Keyboard(text=text, max_len=20, layout=layout)
        self.changed()
