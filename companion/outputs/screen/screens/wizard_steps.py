"""The setup wizard's panels: one builder per step, body rectangle -> widgets.

A builder only lays out widgets from the wizard's state (``WizardScreen``:
its ``model``, a ``companion.core.setup_choices.SetupChoices``, and the screen's
own ``name_seat``, ``tile_seat``, random-start animation and recent names).
Every tap goes through a handler of the screen (``wizard.tap(change)``, or a
method such as ``pick_name``), which changes the model and asks for a redraw.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import pygame

from companion.core.board import Board
from companion.core.rules import Rejection
from companion.core.rules.editions import EDITIONS, JUNIOR_CARDS, ORIGINAL_UPGRADES, UPGRADE_TILES
from companion.core.rules.state import Game
from companion.core import seat_colours, setup_guide
from companion.core.setup_choices import COLOURS
from .. import theme
from ..board import draw_board
from ..cakes import cake_badge
from ..chips import Chip, Swatch
from companion.words.i18n import colour_name, ingredient_name, tr_count, upgrade_name
from ..layout import centered, cols, grid, inset, rows
from ..text import language
from ..widgets import Button, Custom, Fill, Label, Widget, text_width, wrap

if TYPE_CHECKING:
    from .setup_wizard import WizardScreen

#: the boxes of the edition step: (edition, expansion)
BOXES = (("original", None), ("original", "cake_time"), ("winter", None))
COLOUR_RGB = seat_colours.SCREEN_BY_NAME

TITLES = {"edition": "wizard.edition_title", "players": "wizard.players_title",
          "names": "wizard.names_title", "colours": "wizard.colours_title",
          "start": "wizard.start_title", "upgrades": "wizard.upgrades_title",
          "options": "wizard.options_title", "board": "wizard.board_title",
          "deal": "wizard.deal_title", "meeples": "wizard.meeples_title"}


def board_painter(shown: Board, words: dict[str, str]
                  ) -> Callable[[pygame.Surface, pygame.Rect], None]:
    """What a ``Custom`` widget calls to paint ``shown`` (ingredient names in ``words``)."""
    def paint(surface: pygame.Surface, rect: pygame.Rect) -> None:
        draw_board(surface, rect, shown, words)
    return paint


def edition(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    big, variant_row, hint_row = rows(
        body, [1.0, m.target + m.px(theme.WIZARD_ROW_PAD), m.px(theme.WIZARD_HINT3_H)], m.gap)
    out: list[Widget] = []
    for (ed, x), cell in zip(BOXES, cols(big, [1.0] * len(BOXES), m.gap), strict=True):
        key = x or ed
        out.append(Chip(f"wz.edition.{key}", cell, text=w.t(f"edition.{key}"),
                        size=m.huge, on=(md.edition, md.expansion) == (ed, x), lines=3,
                        on_color=theme.WINTER_BLUE if ed == "winter" else
                        theme.CAKE_PINK if x else theme.PRIMARY,
                        on_tap=w.tap(md.set_edition, ed, x)))
    if md.edition == "winter":
        label, choices = cols(variant_row, [0.35, 1.0], m.gap)
        out.append(Label("wz.variant_label", label, text=w.t("wizard.variant_title"),
                         size=m.body, bold=True, align="left"))
        for v, cell in zip(("standard", "junior"), cols(choices, [1.0, 1.0], m.gap), strict=True):
            out.append(Chip(f"wz.variant.{v}", cell, text=w.t(f"variant.{v}"),
                            size=m.body, on=md.variant == v,
                            on_tap=w.tap(setattr, md, "variant", v)))
        if md.variant == "junior":
            # Junior's "more cards once you are used to the game" (001 "Junior Barista
            # Variant"): 2, 3 or 4 cards in each position
            hint, label, counts = cols(hint_row, [1.0, 0.45, 0.55], m.gap)
            out.append(Label("wz.junior_hint", hint, size=m.small, color=theme.TEXT_DIM,
                             lines=3, align="left",
                             text=w.t("wizard.junior_hint", orders=4 * md.junior_cards)))
            out.append(Label("wz.junior_cards_label", label, size=m.small, lines=2,
                             text=w.t("wizard.junior_cards"), align="right"))
            low, high = JUNIOR_CARDS
            for n, cell in zip(range(low, high + 1),
                               cols(counts, [1.0] * (high - low + 1), m.gap), strict=True):
                out.append(Chip(f"wz.junior_cards.{n}", cell, text=str(n), size=m.body,
                                on=md.junior_cards == n,
                                on_tap=w.tap(setattr, md, "junior_cards", n)))
    return out


def players(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    body, teach_row = rows(body, [1.0, m.target], m.gap)
    # "First game: teach us": the table explains each rule the first time it matters
    out: list[Widget] = [Chip("wz.teach", centered(teach_row, min(teach_row.w, m.px(420)),
                                                   teach_row.h),
                              text=w.t("teach.first_game"), size=m.body, on=w.teach,
                              on_tap=w.tap(setattr, w, "teach", not w.teach))]
    area = inset(body, *(m.px(d) for d in theme.WIZARD_COUNT_INSET))
    tiles = cols(area, [1.0, 1.0, 1.0], m.px(theme.WIZARD_COUNT_GAP))
    for n, cell in zip((2, 3, 4), tiles, strict=True):
        # inside the selected tile's outline (a chip's edge is an 18th of its height)
        edge = max(2, cell.h // 18) + m.px(theme.WIZARD_CHIP_EDGE)
        number, unit = rows(inset(cell, edge, edge), [1.0, m.px(theme.WIZARD_COUNT_UNIT_H)], 0)
        ink = theme.readable_on(theme.PRIMARY if md.count == n else theme.BUTTON)
        out.append(Chip(f"wz.count.{n}", cell, text="", on=md.count == n,
                        on_tap=w.tap(md.set_count, n)))
        out.append(Label(f"wz.count.{n}.n", number, text=str(n),
                         size=m.px(theme.WIZARD_COUNT_DIGIT), bold=True, color=ink))
        out.append(Label(f"wz.count.{n}.unit", unit, text=w.t("wizard.players_unit"),
                         size=m.body, color=ink))
    return out


def names(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    left, right = cols(body, [0.44, 0.56], m.px(theme.WIZARD_SIDE_GAP))
    # start at once: every seat called by its colour, no typing (renamed by a tap later)
    left, colours_box = rows(left, [1.0, m.target], m.gap)
    out: list[Widget] = [Button("wz.colour_names", colours_box, text=w.t("teach.seat_colours"),
                                size=m.body, lines=2, color=theme.PANEL_LINE,
                                on_tap=w.colour_names)]
    for seat, cell in zip(md.seats, rows(left, [1.0] * md.count, m.gap), strict=True):
        name = md.names[seat]
        out.append(Chip(f"wz.seat.{seat}", cell,
                        text=name or w.t("wizard.seat", seat=seat + 1), size=m.big,
                        on=seat == w.name_seat, dot=w.seat_rgb(seat),
                        color=theme.BUTTON if name else theme.PANEL_DIM,
                        on_tap=w.tap(setattr, w, "name_seat", seat)))
    head, chips_box, tools = rows(right, [m.px(theme.WIZARD_HEADING_H), 1.0,
                                          m.target + m.px(theme.WIZARD_TOOLS_PAD)], m.gap)
    out.append(Label("wz.recent_title", head, text=w.t("wizard.recent"), size=m.body,
                     bold=True, align="left", color=theme.TEXT_DIM))
    used = {n.strip().casefold() for n in md.players if n}
    shown = w.recent[:12]
    if not shown:
        out.append(Label("wz.no_recent", chips_box, text=w.t("wizard.no_recent"),
                         size=m.body, color=theme.TEXT_DIM, lines=2))
    else:
        columns = 3 if len(shown) > 4 else 2
        n_rows = max(3, (len(shown) + columns - 1) // columns)
        cells = grid(chips_box, n_rows * columns, columns, m.gap)
        for k, name in enumerate(shown):
            out.append(Chip(f"wz.recent.{k}", cells[k], text=name, size=m.body,
                            enabled=name.casefold() not in used,
                            on_tap=partial(w.pick_name, name)))
    type_box, clear_box = cols(tools, [1.6, 1.0], m.gap)
    out.append(Button("wz.type", type_box, text="⌨  " + w.t("wizard.type_name"),
                      size=m.body, color=theme.PANEL_LINE, on_tap=w.type_name))
    out.append(Button("wz.clear", clear_box, text=w.t("wizard.clear"), size=m.body,
                      enabled=bool(md.names[w.name_seat]), on_tap=w.clear_name))
    return out


def colours(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    lang = language()
    offered = md.offered_colours()
    two_original = len(offered) == 2
    two_cake = md.count == 2 and md.expansion is not None
    parts = rows(body, [1.0, m.px(theme.WIZARD_NOTE_H)] if two_original or two_cake
                 else [1.0], m.gap)
    out: list[Widget] = []
    for seat, row in zip(md.seats, rows(parts[0], [1.0] * md.count, m.gap), strict=True):
        name_box, swatches = cols(row, [0.34, 1.0], m.gap)
        out.append(Label(f"wz.cname.{seat}", name_box, text=md.players[seat], size=m.big,
                         bold=True, align="left"))
        for colour, cell in zip(COLOURS, cols(swatches, [1.0] * 4, m.gap), strict=True):
            out.append(Swatch(f"wz.colour.{seat}.{colour}", cell, color=COLOUR_RGB[colour],
                              on=md.colours[seat] == colour, enabled=colour in offered,
                              text=colour_name(lang, colour), size=m.body,
                              on_tap=w.tap(md.set_colour, seat, colour)))
    if two_original or two_cake:
        out.append(Label("wz.colours_hint", parts[1],
                         text=w.t("cake.colours_two" if two_cake
                                  else "wizard.colours_two_original"),
                         size=m.small, color=theme.TEXT_DIM, lines=2))
    return out


def start(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    seats_box, tools = rows(body, [1.0, m.target + m.px(theme.WIZARD_ROW_PAD)], m.gap)
    out: list[Widget] = []
    for seat, cell in zip(md.seats, grid(seats_box, md.count, 2, m.gap), strict=True):
        lit = w.lit == seat if w.anim else md.start == seat
        out.append(Chip(f"wz.start.{seat}", cell, text=md.players[seat], size=m.huge,
                        on=lit, dot=w.seat_rgb(seat),
                        on_color=theme.mix(w.seat_rgb(seat), theme.PANEL, 0.15),
                        on_tap=None if w.anim else w.tap(setattr, md, "start", seat)))
    random_box, hint_box = cols(tools, [0.8, 1.2], m.gap)
    out.append(Button("wz.random", random_box, text=w.t("wizard.random"), size=m.body,
                      color=theme.PANEL_LINE, enabled=not w.anim,
                      on_tap=w.pick_random_start))
    if md.start is not None and not w.anim:
        out.append(Label("wz.start_hint", hint_box,
                         text=w.t("wizard.start_token", player=md.players[md.start],
                                  open=w.t("word.open")),
                         size=m.small, color=theme.TEXT_DIM, lines=2, align="left"))
    return out


def upgrades(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    """How the upgrade tiles are chosen (tabs), whose tiles (a tab per seat when each
    player has their own), the box's tiles, and a status line."""
    m, md = w.m, w.model
    each = md.upgrade_mode == "each"
    drawn = md.upgrade_mode == "draw"
    again = drawn and md.last_drawn is not None     # after a drawn game: new, or the same?
    status_h = theme.WIZARD_HINT_H if drawn or md.upgrade_mode == "open" \
        else theme.WIZARD_HEADING_H
    specs = [m.target + m.px(theme.WIZARD_TAB_PAD)] + ([m.target] if each or again else []) \
        + [1.0, m.px(status_h)]
    parts = rows(body, specs, m.gap)
    out = _upgrade_modes(w, parts[0])
    seat: int | None = None
    if each:
        seat = min(w.tile_seat, md.count - 1)
        out += _tile_tabs(w, parts[1], seat)
    elif again:
        out += _draw_again(w, parts[1])
    tiles = [] if md.upgrade_mode == "open" else md.tiles_of(seat)
    out += _tile_chips(w, parts[-2], tiles, seat)
    out.append(_upgrades_status(w, parts[-1], len(tiles)))
    return out


def _upgrade_modes(w: WizardScreen, row: pygame.Rect) -> list[Widget]:
    """A tab per way of choosing the tiles (the box decides between drawn and shared)."""
    m, md = w.m, w.model
    modes: tuple[tuple[str, str], ...] = (
        (("draw", "cake.upgrades_draw"), ("each", "cake.upgrades_each"))
        if md.box.upgrade_draw else (("shared", "wizard.upgrades_shared"),
                                     ("each", "wizard.upgrades_each")))
    modes += (("open", "wizard.upgrades_open"),)     # not named: any tile, 4 at most each (1.3)
    return [Chip(f"wz.tiles.{mode}", cell, text=w.t(words), lines=2,
                 size=m.body, on=md.upgrade_mode == mode,
                 on_tap=w.tap(md.set_upgrade_mode, mode))
            for (mode, words), cell in zip(modes, cols(row, [1.0] * len(modes), m.gap),
                                           strict=True)]


def _draw_again(w: WizardScreen, row: pygame.Rect) -> list[Widget]:
    """A new game after a game whose tiles were drawn: four drawn anew (the box's rule, the
    default) or the last game's four again."""
    m, md = w.m, w.model
    choices = ((False, "wz.draw.new", "cake.upgrades_new"),
               (True, "wz.draw.same", "cake.upgrades_same"))
    return [Chip(name, cell, text=w.t(words), size=m.body, on=md.kept_draw == keep,
                 on_tap=w.tap(md.keep_last_draw, keep))
            for (keep, name, words), cell in zip(choices, cols(row, [1.0, 1.0], m.gap),
                                                 strict=True)]


def _tile_tabs(w: WizardScreen, row: pygame.Rect, seat: int) -> list[Widget]:
    """A tab per seat whose tiles are shown ("…" until the seat has all of theirs)."""
    m, md = w.m, w.model
    out: list[Widget] = []
    for s, cell in zip(md.seats, cols(row, [1.0] * md.count, m.gap), strict=True):
        done = len(md.player_tiles[s]) == UPGRADE_TILES
        out.append(Chip(f"wz.tiletab.{s}", cell,
                        text=md.players[s] + ("" if done else " …"),
                        size=m.body, on=s == seat, dot=w.seat_rgb(s),
                        on_color=theme.mix(w.seat_rgb(s), theme.PANEL, 0.3),
                        on_tap=w.tap(setattr, w, "tile_seat", s)))
    return out


def _tile_chips(w: WizardScreen, box: pygame.Rect, tiles: list[str],
                seat: int | None) -> list[Widget]:
    """The box's tiles, ``tiles`` on; tapped to choose only while choosing by hand."""
    m, md = w.m, w.model
    lang = language()
    fixed = md.upgrade_mode in ("draw", "open")
    full = md.upgrade_mode == "open" or len(tiles) >= UPGRADE_TILES
    all_tiles = md.box.upgrades
    out: list[Widget] = []
    for u, cell in zip(all_tiles, grid(box, len(all_tiles), 3, m.gap), strict=True):
        on = u in tiles
        out.append(Chip(f"wz.tile.{u}", cell, text=upgrade_name(lang, u), size=m.body,
                        on=on, enabled=on or not (full or md.upgrade_mode == "draw"),
                        lines=2, on_color=theme.UPGRADE_PURPLE,
                        on_tap=None if fixed else w.tap(md.toggle_tile, seat, u)))
    return out


def _upgrades_status(w: WizardScreen, row: pygame.Rect, chosen: int) -> Label:
    """Who the tiles were drawn for, or how many to choose and how many are chosen."""
    m, md = w.m, w.model
    drawn = md.upgrade_mode == "draw"
    total = len(md.box.upgrades)
    if drawn and md.kept_draw:              # the last game's four, kept
        status = w.t("cake.upgrades_kept")
    elif drawn:           # the box's rule: the companion drew for the starting player
        status = w.t("cake.upgrades_drawn", player=md.players[md.start or 0])
    elif md.upgrade_mode == "open":
        status = w.t("wizard.upgrades_open_hint", count=UPGRADE_TILES, total=total)
    else:
        status = w.t("wizard.upgrades_choose", count=UPGRADE_TILES, total=total)
        status += "  ·  " + w.t("wizard.upgrades_chosen", chosen=chosen,
                                count=UPGRADE_TILES)
    return Label("wz.tiles_status", row, text=status, size=m.small,
                 color=theme.TEXT if drawn else theme.TEXT_DIM, align="left",
                 lines=2 if drawn or md.upgrade_mode == "open" else 1)


def options(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    if w.model.options:
        return expansion_options(w, body)
    m, md = w.m, w.model
    lang = language()
    toggle_row, hint_row, info_row, tiles_row = rows(
        body, [m.target + m.px(theme.WIZARD_SWITCH_PAD), m.px(theme.WIZARD_SWITCH_HINT_H),
               m.px(theme.WIZARD_INFO_H), 1.0], m.gap)
    name_box, switch_box = cols(toggle_row, [1.0, 0.5], m.gap)
    out: list[Widget] = [
        Label("wz.ristretto_label", name_box, text=w.t("wizard.ristretto"), size=m.big,
              bold=True, align="left"),
        Chip("wz.ristretto", switch_box,
             text=w.t("word.on") if md.ristretto else w.t("word.off"), size=m.big,
             on=md.ristretto, on_color=theme.OK, on_tap=w.tap(md.flip_ristretto)),
        Label("wz.ristretto_hint", hint_row, text=w.t(_ristretto_hint(md.ristretto)),
              size=m.small, color=theme.TEXT_DIM, lines=2, align="left"),
        Label("wz.tiles_info", info_row, text=w.t("wizard.upgrades_original"),
              size=m.small, color=theme.TEXT_DIM, align="left"),
    ]
    # the four tiles named, as a list (nothing to choose here: tiles drawn as buttons that
    # did nothing when tapped)
    tiles_box = rows(tiles_row, [1.0, 0.0], 0)[0]
    out.append(Label("wz.otiles", tiles_box, text=" · ".join(upgrade_name(lang, u)
                                                             for u in ORIGINAL_UPGRADES),
                     size=m.body, lines=2, bold=True, color=theme.UPGRADE_PURPLE_TEXT,
                     align="left", valign="top"))
    return out


def _ristretto_hint(on: bool) -> str:
    """What the switch does as it is now: while off, the words say so rather than read as
    an instruction to set cards aside."""
    return "wizard.ristretto_hint" if on else "wizard.ristretto_hint_off"


def expansion_options(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    """The Ristretto start and the expansion's optional rules: a switch and a hint each."""
    m, md = w.m, w.model
    toggles: list[tuple[str, str, str, bool, Callable[[], None]]] = [
        ("ristretto", "wizard.ristretto", _ristretto_hint(md.ristretto), md.ristretto,
         w.tap(md.flip_ristretto))]
    for o in md.options:
        toggles.append((o, f"cake.{o}", f"cake.{o}_hint", md.options[o],
                        w.tap(md.flip_option, o)))
    out: list[Widget] = []
    for block, (name, title, hint, on, flip) in zip(
            rows(body, [1.0] * len(toggles), m.gap), toggles, strict=True):
        top, hint_row = rows(block, [m.target, 1.0], 2)
        name_box, switch_box = cols(top, [1.0, 0.4], m.gap)
        out += [Label(f"wz.{name}_label", name_box, text=w.t(title), size=m.big,
                      bold=True, align="left"),
                Chip(f"wz.{name}", switch_box, text=w.t("word.on" if on else "word.off"),
                     size=m.big, on=on, on_color=theme.OK, on_tap=flip),
                Label(f"wz.{name}_hint", hint_row, text=w.t(hint), size=m.small,
                      color=theme.TEXT_DIM, lines=2, align="left", valign="top")]
    return out


def board(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    lang = language()
    board_box, side = cols(body, [body.h, 1.0], m.px(theme.WIZARD_SIDE_GAP))
    shown = md.board()
    words = {i: ingredient_name(lang, i) for i in EDITIONS["winter"].ingredients}
    out: list[Widget] = [Custom("wz.board", board_box, data=(shown.cells, shown.seed, lang),
                                paint_fn=board_painter(shown, words))]
    chip_h = m.target + m.px(theme.WIZARD_BOARD_CHIP_PAD)
    printed_box, chaos_box, seed_box, hint_box = rows(side, [chip_h, chip_h, chip_h, 1.0],
                                                      m.gap)
    out.append(Chip("wz.board.printed", printed_box, text=w.t("wizard.board_printed"),
                    size=m.body, on=md.board_mode == "printed",
                    on_tap=w.tap(md.set_board_mode, "printed")))
    out.append(Chip("wz.board.chaos", chaos_box, text=w.t("wizard.board_chaos"),
                    size=m.body, on=md.board_mode == "chaos", on_color=theme.WINTER_BLUE,
                    on_tap=w.tap(md.set_board_mode, "chaos")))
    if md.board_mode == "chaos":
        seed_label, shuffle = cols(seed_box, [1.0, 1.0], m.gap)
        out.append(Label("wz.seed", seed_label, text=w.t("wizard.board_seed", seed=md.seed),
                         size=m.body, bold=True, align="left"))
        out.append(Button("wz.shuffle", shuffle, text=w.t("wizard.board_shuffle"),
                          size=m.body, color=theme.PANEL_LINE, on_tap=w.tap(md.roll_seed)))
    out.append(Label("wz.board_hint", hint_box, text=w.t("wizard.board_hint"),
                     size=m.small, color=theme.TEXT_DIM, lines=3, align="left",
                     valign="top"))
    return out


def deal(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    """What to deal: the deck to build (or cards to remove), each seat's four positions
    from the starting player, and notes on the order and the rest of the setup."""
    m, md = w.m, w.model
    started = md.preview()
    if isinstance(started, Rejection):
        return []
    game, _ = started
    lang = language()
    heading = setup_guide.deal_heading(lang, game)
    notes = setup_guide.deal_notes(lang, game)
    top_h = m.px(theme.WIZARD_HEADING_H) * (2 if md.expansion else 1)
    line_h = theme.WIZARD_CAKE_DEAL_LINE_H if md.expansion else theme.WIZARD_DEAL_LINE_H
    # a note too long for one line of the small type takes two
    note_hs = [m.px(line_h) + (m.px(theme.WIZARD_NOTE_MORE_H)
                               if text_width(note, m.small) > body.w else 0) for note in notes]
    specs = ([top_h] if heading is not None else []) + [1.0, sum(note_hs)]
    parts = rows(body, specs, m.gap)
    out: list[Widget] = []
    if heading is not None:
        out.append(Label("wz.deal_removed", parts[0], text=heading, size=m.body,
                         color=theme.WARNING, bold=True, align="left", lines=2))
    out += _deal_table(w, game, parts[-2])
    note_lines = rows(parts[-1], note_hs, 0)
    for k, (note, line) in enumerate(zip(notes, note_lines, strict=True)):
        out.append(Label(f"wz.dealnote.{k}", line, text=note, size=m.small,
                         color=theme.TEXT_DIM, align="left", lines=2))
    return out


def _deal_table(w: WizardScreen, game: Game, table: pygame.Rect) -> list[Widget]:
    """A heading row of the four positions, then a row per seat from the starting player."""
    m, md = w.m, w.model
    order = setup_guide.deal_seats(game)
    lines = rows(table, [1.0] * (md.count + 1), max(2, m.gap // 2))
    name_w = round(table.w * 0.28)
    head = cols(lines[0], [name_w] + [1.0] * 4, m.gap)
    out: list[Widget] = []
    for p in range(4):
        out.append(Label(f"wz.dealhead.{p}", head[p + 1],
                         text=w.t("word.position", position=p + 1), size=m.small,
                         color=theme.URGENT if p == 3 else theme.TEXT_DIM, bold=True))
    for r, seat in enumerate(order, 1):
        cells = cols(lines[r], [name_w] + [1.0] * 4, m.gap)
        out.append(Chip(f"wz.dealname.{seat}", cells[0], text=md.players[seat], size=m.body,
                        dot=w.seat_rgb(seat), color=theme.PANEL))
        for p in range(4):
            out += _dealt(w, game, seat, p, cells[p + 1])
    return out


def _dealt(w: WizardScreen, game: Game, seat: int, p: int, cell: pygame.Rect) -> list[Widget]:
    """How many cards a seat's position gets ("–": none), a cake badge on cake cards."""
    m = w.m
    n, cakes = setup_guide.dealt(game, seat)[p]
    words = tr_count(language(), "wizard.deal_cards", n) if n else "–"
    colour = theme.TEXT_DARK if n else theme.TEXT_DIM
    if not cakes:
        return [Label(f"wz.deal.{seat}.{p}", cell, text=words, size=m.body, bold=bool(n),
                      background=theme.CARD if n else theme.PANEL_DIM, radius=8, color=colour)]
    # the words right of the cake at the cell's left edge (a margin that wide on both sides
    # once left "2 cartas" 16 px)
    badge_w = min(cell.h * 55 // 100, cell.w // 3) + m.px(6)
    out: list[Widget] = [
        Fill(f"wz.dealbg.{seat}.{p}", cell, color=theme.CARD, radius=8),
        Label(f"wz.deal.{seat}.{p}", pygame.Rect(cell.x + badge_w, cell.y, cell.w - badge_w,
                                                 cell.h),
              text=words, size=m.body, bold=True, color=colour, pad=m.px(2))]
    out.append(cake_badge(f"wz.dealcake.{seat}.{p}", cell, cakes, "left"))  # "two drinks,
    return out                                             # one cake" caps dealt cards


def meeples(w: WizardScreen, body: pygame.Rect) -> list[Widget]:
    m, md = w.m, w.model
    lang = language()
    left, board_box = cols(body, [1.0, body.h], m.px(theme.WIZARD_SIDE_GAP))
    order = md.meeple_order()
    hint = setup_guide.meeples_hint(lang, md.count)
    # as many lines of the small type as the hint takes (four at most)
    hint_lines = min(4, len(wrap(hint, m.small, left.w)))
    parts = rows(left, [m.px(theme.WIZARD_MEEPLE_HINT_LINE_H) * hint_lines
                        + m.px(theme.WIZARD_SIDE_GAP), 1.0], m.gap)
    out: list[Widget] = [Label("wz.meeples_hint", parts[0], text=hint, size=m.small,
                               color=theme.TEXT_DIM, lines=4, align="left")]
    meeple_rows = rows(parts[1], [1.0] * len(order), m.gap)
    for k, (seat, cell) in enumerate(zip(order, meeple_rows, strict=True)):
        out.append(Chip(f"wz.meeple.{k}", cell, text=f"{k + 1}.  {md.players[seat]}",
                        size=m.big, dot=w.seat_rgb(seat), color=theme.PANEL))
    shown = md.board()
    words = {i: ingredient_name(lang, i) for i in EDITIONS[md.edition].ingredients}
    out.append(Custom("wz.mboard", board_box, data=(shown.cells, shown.seed, lang),
                      paint_fn=board_painter(shown, words)))
    return out


#: step -> its panel builder
PANELS: dict[str, Callable[[WizardScreen, pygame.Rect], list[Widget]]] = {
    "edition": edition, "players": players, "names": names, "colours": colours,
    "start": start, "upgrades": upgrades, "options": options, "board": board, "deal": deal,
    "meeples": meeples}
