"""Enroll a card the catalog does not know: its drink, its recipe, specialty or not.

Opened for an ``UnknownCard`` tag (``app.open("enroll", tag=...)``). The drink
name is typed on the on-screen keyboard; the recipe is 2 to 4 ingredients of
the edition's eight, picked by tapping (the same ingredient may count twice:
tap it twice); a tap on a picked ingredient takes it back. The specialty
toggle is the yellow ribbon. SAVE posts an ``EnrollRequest`` to the table
loop, which adds the card to the catalog (and the catalog file).
"""
from __future__ import annotations

from typing import Any
from collections.abc import Callable

from companion.core.events import EnrollRequest
from companion.core.rules.editions import EDITIONS
from .. import theme
from ..chips import Chip
from companion.words.i18n import ingredient_name
from ..keyboard import KeyboardScreen, field_widgets
from ..layout import cols, grid, inset, rows
from ..text import language
from ..widgets import Button, Fill, Label, Widget
from .base import Screen

MIN_RECIPE, MAX_RECIPE = 2, 4
MAX_DRINK = 24


class EnrollScreen(Screen):
    def __init__(self, app: Any, tag: str = "", edition: str | None = None,
                 drink: str = "", recipe: tuple = (), specialty: bool = False):
        super().__init__(app)
        self.tag = tag
        game = getattr(app, "table", None) and app.table.game
        if edition is None:
            edition = game.edition if game is not None else _config_edition(app)
        self.edition = edition if edition in EDITIONS else "original"
        self.drink = drink
        self.recipe: list[str] = list(recipe)[:MAX_RECIPE]
        self.specialty = specialty

    # --- what the table does here ----------------------------------------------------------

    @property
    def ingredients(self) -> tuple[str, ...]:
        return EDITIONS[self.edition].ingredients

    def add(self, ingredient: str) -> None:
        if len(self.recipe) < MAX_RECIPE:
            self.recipe.append(ingredient)
        self.changed()

    def remove(self, index: int) -> None:
        if 0 <= index < len(self.recipe):
            del self.recipe[index]
        self.changed()

    def clear(self) -> None:
        self.recipe.clear()
        self.changed()

    def toggle_specialty(self) -> None:
        self.specialty = not self.specialty
        self.changed()

    def type_drink(self) -> None:
        def typed(text: str) -> None:
            self.drink = text
            self.changed()
        self.app.push(KeyboardScreen(self.app, title=self.t("enroll.type_drink"), text=self.drink,
                                     on_done=typed, max_len=MAX_DRINK))

    @property
    def problem(self) -> str | None:
        if not self.drink.strip():
            return self.t("enroll.need_drink")
        if not MIN_RECIPE <= len(self.recipe) <= MAX_RECIPE:
            return self.t("enroll.need_recipe")
        return None

    def save(self) -> None:
        problem = self.problem
        if problem:
            self.toast(problem, kind="warning")
            return
        self.app.post(EnrollRequest(self.tag, self.drink.strip(), tuple(self.recipe),
                                    self.specialty))
        self.app.pop(self)

    def later(self) -> None:
        self.app.pop(self)

    # --- drawing -----------------------------------------------------------------------------

    def build(self) -> list[Widget]:
        m = self.m
        lang = language()
        screen = inset(m.rect, m.margin)
        top, drink_row, recipe_row, picker, bottom = rows(
            screen, [m.bar, max(m.target, m.px(theme.ENROLL_DRINK_ROW_H)),
                     max(m.target, m.px(theme.ENROLL_RECIPE_ROW_H)), 1.0, m.bar], m.gap)
        title_box, tag_box = cols(top, [1.0, 0.8], m.gap)
        out: list[Widget] = [
            Label("en.title", title_box, text=self.t("enroll.screen_title"), size=m.huge,
                  bold=True, align="left"),
            Label("en.tag", tag_box, text=self.t("enroll.tag", tag=self.tag), size=m.body,
                  color=theme.TEXT_DIM, align="right"),
        ]
        label_w = round(screen.w * 0.22)
        drink_label, drink_field = cols(drink_row, [label_w, 1.0], m.gap)
        out.append(Label("en.drink_label", drink_label, text=self.t("enroll.drink"),
                         size=m.body, bold=True, align="left"))
        out += field_widgets("en.drink", drink_field, self.drink, self.t("enroll.type_drink"),
                             m.big, on_tap=self.type_drink)
        # the recipe so far: four slots, then Clear
        recipe_label, slots_box, clear_box = cols(
            recipe_row, [label_w, 1.0, m.px(theme.ENROLL_CLEAR_W)], m.gap)
        out.append(Label("en.recipe_label", recipe_label, text=self.t("enroll.recipe"),
                         size=m.small, bold=True, align="left", lines=2))
        for i, cell in enumerate(cols(slots_box, [1.0] * MAX_RECIPE, m.gap)):
            if i < len(self.recipe):
                ing = self.recipe[i]
                out.append(Chip(f"en.slot{i}", cell, icon=ing,
                                color=theme.PANEL_LINE, on_tap=self._remover(i)))
            else:
                out.append(Fill(f"en.slot{i}", cell, color=theme.PANEL_DIM, radius=10, border=2,
                                border_color=theme.PANEL_LINE))
        out.append(Button("en.clear", clear_box, text=self.t("enroll.clear"), size=m.body,
                          enabled=bool(self.recipe), on_tap=self.clear))
        # the edition's eight ingredients
        full = len(self.recipe) >= MAX_RECIPE
        cells = grid(picker, len(self.ingredients), 4, m.gap)
        for ing, cell in zip(self.ingredients, cells, strict=True):
            count = self.recipe.count(ing)
            out.append(Chip(f"en.ing.{ing}", cell, text=ingredient_name(lang, ing), size=m.body,
                            icon=ing, on=count > 0,
                            badge=count,
                            enabled=not full, on_color=theme.mix(theme.PRIMARY, theme.PANEL, 0.2),
                            lines=2, on_tap=self._adder(ing)))
        special_box, later_box, save_box = cols(bottom, [1.3, 0.8, 1.1], m.gap)
        out.append(Chip("en.specialty", special_box, text=self.t("enroll.specialty"),
                        size=m.body, on=self.specialty, ribbon=True, on_tap=self.toggle_specialty,
                        on_color=theme.mix(theme.SPECIALTY, theme.PANEL, 0.25)))
        out.append(Button("en.later", later_box, text=self.t("enroll.later"), size=m.big,
                          on_tap=self.later))
        out.append(Button("en.save", save_box, text=self.t("enroll.save"), size=m.big,
                          color=theme.PRIMARY if self.problem is None else theme.BUTTON,
                          on_tap=self.save))
        return out

    def _adder(self, ing: str) -> Callable[[], None]:
        return lambda: self.add(ing)

    def _remover(self, i: int) -> Callable[[], None]:
        return lambda: self.remove(i)

    def screenshot_states(self):
        def filled():
            self.drink = "Café bombón" if self.edition == "original" else "Winter mocha"
            self.recipe = ["coffee", "milk", "chocolate"]
            self.specialty = True
            self.changed()
        return [("", lambda: None), ("filled", filled)]


def _config_edition(app: Any) -> str:
    cfg: Any = getattr(app, "config", None)
    try:
        return cfg["game"]["edition"]
    except (KeyError, TypeError):
        return "original"
