"""The settings screen: language, volume and voice, light brightness, the turn timer
and teaching (on or off).

Every change goes to the App's ``Settings`` (``outputs/screen/settings_store.py``) at once
and is saved beside the journal; the language switches every screen
immediately. When no Korean font is installed, a hint names the package to
install (the same one the log names).
"""
from __future__ import annotations

import time
from functools import partial

from typing import Any
from collections.abc import Callable

import pygame

from companion.appliance.config import LANGUAGES
from companion.words import fonts
from .. import theme
from companion.words.i18n import language_name
from ..layout import centered, cols, inset, rows
from ..settings_store import Settings, settings_for
from ..widgets import Button, Custom, Fill, Label, Shade, Widget, common_size, fill_round_rect
from .base import Screen
from .table_panels import message_box
from companion.core.events import EndGame

TIMER_STEPS = (0, 30, 45, 60, 90, 120, 180, 240, 300)


def _level(surface: pygame.Surface, rect: pygame.Rect, value: float, color) -> None:
    """A level meter: ten bars, lit up to ``value`` (0-1)."""
    n = 10
    gap = max(2, rect.w // 80)
    w = (rect.w - gap * (n - 1)) / n
    lit = round(value * n)
    for i in range(n):
        h = round(rect.h * (0.35 + 0.65 * (i + 1) / n))
        bar = pygame.Rect(round(rect.x + i * (w + gap)), rect.bottom - h, max(2, round(w)), h)
        fill_round_rect(surface, color if i < lit else theme.PANEL_LINE, bar, 3)


class SettingsScreen(Screen):
    def __init__(self, app: Any):
        super().__init__(app)
        self.settings: Settings = settings_for(app)
        self.phones_open = False             # the list of paired phones, over the settings
        self.phones_page = 0                 # which four of them it shows
        #: "end" or "new" while "End this game" / "New game" asks to be sure, else None
        self.confirming: str | None = None

    # --- changes -------------------------------------------------------------------------

    def _save(self) -> None:
        store = getattr(self.app, "settings_store", None)
        if store is None:
            return
        problem = store.save(self.settings)
        if problem:
            self.toast(self.t("settings.save_failed", error=problem), kind="warning")

    def set_language(self, lang: str) -> None:
        if self.settings.set("language", lang):
            self.app.set_language(lang)
            self._save()
        self.changed()

    def step(self, name: str, delta: int) -> None:
        if name == "turn_timer":
            now = self.settings.turn_timer
            i = min(range(len(TIMER_STEPS)), key=lambda k: abs(TIMER_STEPS[k] - now))
            i = min(len(TIMER_STEPS) - 1, max(0, i + delta))
            value: float = TIMER_STEPS[i]
        else:
            value = round(getattr(self.settings, name) * 10 + delta) / 10
        if self.settings.set(name, value):
            self._save()
        self.changed()

    def toggle_voice(self) -> None:
        if self.settings.set("voice", not self.settings.voice):
            self._save()
        self.changed()

    def toggle_teaching(self) -> None:
        """Teaching on or off: the table explains each rule the first time it matters."""
        self.app.teaching.set_enabled(not self.settings.teaching)
        self.changed()

    def close(self) -> None:
        self.app.pop(self)

    def ask_update(self) -> None:
        """Settings -> Update: the same request a paired phone makes; the update unit
        builds the new version beside this one and restarts the table (docs/updates.md)."""
        problem = self.app.request_update()
        if problem:
            self.toast(self.t("settings.update_not_asked", error=problem), kind="warning")
        else:
            self.toast(self.t("settings.update_asked"), kind="info", seconds=8)

    # --- ending the game mid-play ----------------------------------------------------------

    def _game_running(self) -> bool:
        game = self.app.table.game
        return game is not None and not game.game_over

    def ask(self, what: str | None) -> None:
        """"End this game" / "New game": ask first (a tap by mistake costs a game)."""
        self.confirming = what
        self.changed()

    def end_game(self) -> None:
        """End the running game (journaled beside its lines; the table's Undo brings it
        back until the next game is set up); "New game" then opens the wizard."""
        what, self.confirming = self.confirming, None
        self.app.post(EndGame(at=self.app.clock(), seen=self.app.version))
        self.app.pop(self)
        if what == "new":
            self.app.open("wizard")

    def _confirm(self) -> list[Widget]:
        close = partial(self.ask, None)
        what = self.confirming or "end"
        return [Shade("set.confirm_shade", self.m.rect, on_tap=close)] + message_box(
            self.m, self.t(f"settings.{what}_game_title"), self.t("settings.end_game_body"),
            [("dlg.cancel", self.t("button.cancel"), close, theme.BUTTON),
             ("dlg.ok", self.t(f"settings.{what}_game"), self.end_game, theme.WARNING)])

    # --- drawing -------------------------------------------------------------------------

    def build(self) -> list[Widget]:
        m = self.m
        screen = inset(m.rect, m.margin)
        hint = fonts.hangul_missing()
        pairing = self.app.pairing            # the phone view's code, when it is served
        specs = ([m.bar, 1.25] + [1.0] * 3 + ([1.0] if pairing is not None else [])
                 + ([m.target] if hint else []))
        parts = rows(screen, specs, m.gap)
        top, body = parts[0], parts[1:5]
        update = self.app.request_update is not None      # installed as releases (issue 41)
        running = self._game_running()
        game_w = [m.px(theme.SETTINGS_GAME_W)] * 2 if running else []
        title_box, update_box, *game_boxes, done_box = cols(
            top, [1.0, m.px(theme.SETTINGS_DONE_W) if update else 0, *game_w,
                  m.px(theme.SETTINGS_DONE_W)], m.gap)
        out: list[Widget] = [
            Label("set.title", title_box, text=self.t("settings.title"), size=m.huge, bold=True,
                  align="left"),
            *[Button(f"set.{what}_game", box, text=self.t(f"settings.{what}_game"),
                     size=m.body, lines=2, color=theme.BUTTON, on_tap=partial(self.ask, what))
              for what, box in zip(("end", "new")[:len(game_boxes)], game_boxes, strict=True)],
            Button("set.done", done_box, text=self.t("settings.done"), size=m.big,
                   color=theme.PRIMARY, on_tap=self.close),
        ]
        if update:
            out.append(Button("set.update", update_box, text=self.t("settings.update"),
                              size=m.body, on_tap=self.ask_update))
        label_w = round(screen.w * 0.27)
        controls = self._rows(body, label_w, out)
        out += self._languages(controls[0])
        out += self._controls(controls)
        if pairing is not None:
            out += self._pairing(parts[5], label_w)
        if hint:
            out.append(Label("set.font_hint", parts[-1], background=theme.WARNING, radius=10,
                             text=self.t("settings.font_missing", command=fonts.INSTALL_COMMAND),
                             size=m.body, color=theme.TEXT_DARK, bold=True, lines=2, pad=m.gap))
        if pairing is not None and self.phones_open:
            out += self._phones()
        if self.confirming is not None and running:
            out += self._confirm()
        return out

    def _rows(self, body: list[pygame.Rect], label_w: int, out: list[Widget]
              ) -> list[pygame.Rect]:
        """The four settings rows with their labels (added to ``out``); their controls' boxes."""
        m = self.m
        for i, row in enumerate(body):
            out.append(Fill(f"set.row{i}", row, color=theme.PANEL, radius=12))
        labels = ["settings.language", "settings.volume", "settings.brightness",
                  "settings.turn_timer"]
        controls = []
        for i, (row, key) in enumerate(zip(body, labels, strict=False)):
            if i == 0:      # five languages need the whole width: the label goes above
                label_box, control = rows(inset(row, m.gap, m.gap // 2),
                                          [m.px(theme.SETTINGS_LABEL_H), 1.0], m.gap // 2)
            else:
                label_box, control = cols(inset(row, m.gap), [label_w, 1.0], m.gap)
            out.append(Label(f"set.label{i}", label_box, text=self.t(key),
                             size=m.small if i == 0 else m.body, bold=True, align="left",
                             lines=1 if i == 0 else 2))
            controls.append(control)
        return controls

    def _controls(self, controls: list[pygame.Rect]) -> list[Widget]:
        """Volume and voice, brightness, the turn timer and teaching."""
        m = self.m
        out: list[Widget] = []
        volume, voice = cols(controls[1], [1.0, m.px(theme.SETTINGS_VOICE_W)], m.gap)
        out += self._meter("volume", volume, self.settings.volume, theme.OK,
                           f"{round(self.settings.volume * 100)} %")
        on = self.settings.voice
        out.append(Button("set.voice", voice, size=m.body,
                          text=f"{self.t('settings.voice')}: "
                               f"{self.t('word.on' if on else 'word.off')}",
                          color=theme.OK if on else theme.BUTTON, on_tap=self.toggle_voice))
        out += self._meter("brightness", controls[2], self.settings.brightness, theme.WARNING,
                           f"{round(self.settings.brightness * 100)} %")
        timer = self.settings.turn_timer
        shown = (self.t("settings.timer_off") if timer == 0
                 else self.t("settings.seconds", seconds=timer))
        timer_box, teach_box = cols(controls[3], [1.0, m.px(theme.SETTINGS_VOICE_W)], m.gap)
        out += self._stepper("turn_timer", timer_box, shown, None,
                             timer > TIMER_STEPS[0], timer < TIMER_STEPS[-1])
        teach = self.settings.teaching
        out.append(Button("set.teaching", teach_box, size=m.body,
                          text=f"{self.t('teach.setting')}: "
                               f"{self.t('word.on' if teach else 'word.off')}",
                          color=theme.OK if teach else theme.BUTTON,
                          on_tap=self.toggle_teaching))
        return out

    def _pairing(self, row: pygame.Rect, label_w: int) -> list[Widget]:
        """The phones' pairing code, where to open the table, and "New code" (revokes)."""
        m = self.m
        label_box, code_box, new_box = cols(inset(row, m.gap),
                                            [label_w, 1.0, m.px(theme.SETTINGS_DONE_W)], m.gap)
        code_box, phones_box = cols(code_box, [1.0, m.px(theme.SETTINGS_DONE_W)], m.gap)
        code_top, url_box = rows(code_box, [0.62, 0.38])
        out: list[Widget] = [
            Fill("set.row_web", row, color=theme.PANEL, radius=12),
            Label("set.label_web", label_box, text=self.t("web.pairing"), size=m.body,
                  bold=True, align="left", lines=2),
            Label("set.pairing_code", code_top, text=self.app.pairing.shown(), size=m.big,
                  bold=True),
            Button("set.new_code", new_box, text=self.t("web.new_code"), size=m.body,
                   on_tap=self.new_code),
            Button("set.phones", phones_box, size=m.body, lines=2,
                   text=self.t("web.phones_button", count=len(self.app.pairing.phones())),
                   on_tap=partial(self.show_phones, True)),
        ]
        if self.app.web_url:
            out.append(Label("set.web_url", url_box, text=self.t("web.phones",
                                                                 url=self.app.web_url),
                             size=m.small, color=theme.TEXT_DIM))
        return out

    def new_code(self) -> None:
        self.app.pairing.renew()
        self.changed()

    def show_phones(self, shown: bool) -> None:
        self.phones_open = shown
        self.changed()

    def forget_phone(self, phone_id: str) -> None:
        self.app.pairing.forget(phone_id)
        self.changed()

    def phones_step(self, delta: int) -> None:
        self.phones_page += delta
        self.changed()

    PHONES_A_PAGE = 4

    def _seen(self, phone: Any) -> str:
        """When a paired phone last acted or opened the live table: the time today, else
        the date and time (the Pi's local time)."""
        seen = getattr(phone, "last_seen", 0.0)
        if not seen:
            return self.t("web_pairing.never_seen")
        at, today = time.localtime(seen), time.localtime()
        same_day = (at.tm_year, at.tm_yday) == (today.tm_year, today.tm_yday)
        return self.t("web_pairing.last_seen",
                      when=time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", at))

    def _phones(self) -> list[Widget]:
        """Every paired phone with its name and a "Forget" button (revokes its token), four
        at a time: ‹ and › page through more."""
        m = self.m
        every = self.app.pairing.phones()
        per = self.PHONES_A_PAGE
        pages = max(1, -(-len(every) // per))
        self.phones_page = max(0, min(self.phones_page, pages - 1))
        first = self.phones_page * per
        phones = every[first:first + per]
        box = centered(m.rect, m.rect.w * 4 // 5, m.rect.h * 4 // 5)
        close = partial(self.show_phones, False)
        out: list[Widget] = [Shade("set.phones_shade", m.rect, on_tap=close),
                             Fill("set.phones_bg", box, color=theme.PANEL, radius=16, border=3,
                                  border_color=theme.PANEL_LINE, blocks=True)]
        inner = inset(box, m.gap * 2)
        parts = rows(inner, [m.bar] + [1.0] * 4 + [m.target], m.gap)
        out.append(Label("set.phones_title", parts[0], text=self.t("web.phones_paired"),
                         size=m.big, bold=True, align="left"))
        if not phones:
            out.append(Label("set.phones_none", parts[1], text=self.t("web.no_phones"),
                             size=m.body, color=theme.TEXT_DIM, align="left"))
        for k, (phone, row) in enumerate(zip(phones, parts[1:5], strict=False)):
            name_box, forget_box = cols(row, [1.0, m.px(theme.SETTINGS_DONE_W)], m.gap)
            name_box, seen_box = rows(name_box, [0.6, 0.4])
            out.append(Label(f"set.phone.{k}", name_box, text=phone.name, size=m.body,
                             bold=True, align="left"))
            out.append(Label(f"set.phone_seen.{k}", seen_box, text=self._seen(phone),
                             size=m.small, color=theme.TEXT_DIM, align="left"))
            out.append(Button(f"set.forget.{k}", forget_box, text=self.t("web.forget"),
                              size=m.body, color=theme.WARNING,
                              on_tap=partial(self.forget_phone, phone.id)))
        if pages > 1:
            older, page, newer, done = cols(parts[-1], [m.target * 3 // 2, 1.0,
                                                        m.target * 3 // 2,
                                                        m.px(theme.SETTINGS_DONE_W)], m.gap)
            out.append(Button("set.phones_prev", older, text="‹", size=m.big,
                              enabled=self.phones_page > 0,
                              on_tap=partial(self.phones_step, -1)))
            out.append(Label("set.phones_page", page, size=m.body, color=theme.TEXT_DIM,
                             text=self.t("web.phones_page", first=first + 1,
                                         last=first + len(phones), count=len(every))))
            out.append(Button("set.phones_next", newer, text="›", size=m.big,
                              enabled=self.phones_page < pages - 1,
                              on_tap=partial(self.phones_step, 1)))
        else:
            done = centered(parts[-1], m.px(theme.SETTINGS_DONE_W), parts[-1].h)
        out.append(Button("set.phones_done", done, text=self.t("settings.done"), size=m.body,
                          color=theme.PRIMARY, on_tap=close))
        return out

    def _languages(self, rect: pygame.Rect) -> list[Widget]:
        m = self.m
        out: list[Widget] = []
        cells = cols(rect, [1.0] * len(LANGUAGES), m.gap)
        pad = max(6, cells[0].h // 6)
        size = common_size([language_name(x) for x in LANGUAGES], cells[0].w - 2 * pad - 4,
                           m.body, bold=True)
        for lang, cell in zip(LANGUAGES, cells, strict=False):
            chosen = lang == self.settings.language
            out.append(Button(f"set.lang.{lang}", cell, text=language_name(lang), size=size,
                              color=theme.PRIMARY if chosen else theme.BUTTON,
                              outline=theme.TEXT if chosen else None,
                              on_tap=self._pick(lang)))
        return out

    def _pick(self, lang: str) -> Callable[[], None]:
        return lambda: self.set_language(lang)

    def _meter(self, name: str, rect: pygame.Rect, value: float, color, shown: str):
        return self._stepper(name, rect, shown, (value, color), value > 0, value < 1)

    def _stepper(self, name: str, rect: pygame.Rect, shown: str, meter, can_down: bool,
                 can_up: bool) -> list[Widget]:
        m = self.m
        side = max(m.target, min(rect.h, m.px(theme.SETTINGS_STEPPER_MAX)))
        minus, middle, plus = cols(rect, [side, 1.0, side], m.gap)
        out: list[Widget] = [
            Button(f"set.{name}.minus", minus, text="−", size=m.big, enabled=can_down,
                   on_tap=lambda: self.step(name, -1)),
            Button(f"set.{name}.plus", plus, text="+", size=m.big, enabled=can_up,
                   on_tap=lambda: self.step(name, +1)),
        ]
        if meter is None:
            out.append(Label(f"set.{name}.value", middle, text=shown, size=m.big, bold=True))
            return out
        value, color = meter
        bar_box, text_box = cols(inset(middle, m.gap, m.px(theme.SETTINGS_METER_PAD)),
                                   [1.0, m.px(theme.SETTINGS_VALUE_W)], m.gap)
        out.append(Custom(f"set.{name}.meter", bar_box, data=(value, color),
                          paint_fn=partial(_level, value=value, color=color)))
        out.append(Label(f"set.{name}.value", text_box, text=shown, size=m.body, bold=True,
                         align="right"))
        return out

    def screenshot_states(self):
        def timer():
            self.settings.turn_timer = 90
            self.changed()
        def confirm_end():
            self.ask("end")
        return [("", lambda: None), ("timer", timer), ("end-game", confirm_end)]
