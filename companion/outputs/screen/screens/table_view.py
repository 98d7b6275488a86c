"""The table view: the game in play, readable from across the table.

Top bar: turn and round, the deck, "final round" once the shop is closed, the
OPEN/CLOSED sign (the starting player token), scanner/buttons status.
Left: the active player's big panel in their seat colour: name banner, score,
their four order positions (tap one to complete that order), likes,
dislikes, tokens, upgrades. Right: a compact panel per other player.
Bottom: undo, redo, upgrade and spend (offered only when the engine would
accept them), fix, and the big END TURN button.

Banners over the panels: cards to draw after an order surge (until the new
cards are scanned or the banner is tapped away) and the stall warning.
Dialogs: pick an upgrade, count tokens to spend, the fix-mode guard. (A card no
catalog knows opens the enroll screen: ``App``'s routes.)

Nothing here decides a rule: legality is asked of the pure engine
(``companion.core.rules.apply`` on the current table), and every tap becomes a
``TouchAction`` for the table loop.
"""
from __future__ import annotations

import contextlib
from dataclasses import replace
from functools import partial

from typing import Any
from collections.abc import Callable, Iterator

import pygame

from companion.core import events as ev
from companion.core.draw_prompt import PendingDraws
from companion.core.rules import Accepted, apply, upgrade_refusal
from companion.core.rules.happenings import (DeviceStatusChanged, DrawsDismissed, GameStarted,
                                             GameBroughtBack, GameEndedEarly,
                                             Happening, NotYourTurn, OrderCompleted, ShopClosed,
                                             ShopReopened, TablePaused, TableResumed, TurnChanged)
from companion.core.rules.scoring import score
from companion.core.rules.turn import is_stalled
from companion.core.loop import Update, cake_completion, complete_action, mixed_cakes
from .. import theme
from ..layout import centered, cols, grid, inset, rows
from ..footer_buttons import IconButton
from ..table_layout import (FooterLayout, active_banner_split, active_panel_layout,
                            footer_layout, header_layout, other_head_split, other_panel_layout,
                            table_layout)
from .. import text
from ..text import drink_name, t_count, tokens_lower, upgrade_name
from ..widgets import (Button, Custom, Fill, Label, OpenSign, OrderCard, Shade, Widget,
                       common_size, stepper_buttons, text_width)
from .base import AHEAD_FRAMES, Screen
from .cake_table import CakeTable
from .why_panel import WhyTargets, table_targets
from ..teaching_view import area_for
from .table_panels import (device_bad, device_painter, draw_badge, fitting_name, message_box,
                           name_form, seat_token, short_names, stats_row)


class TableView(CakeTable, WhyTargets):
    def __init__(self, app: Any):
        super().__init__(app)
        # "upgrade", "spend", "fix_guard", "cake_choice", "cake_guess"
        self.dialog: str | None = None
        self.cake_slot = 1                   # the position "cake_choice"/"cake_guess" asks about
        # (seat, position, cake, turn) of the last order a seat button took by guessing
        # between orders with and without a cake; a touch on that position offers the other
        self._cake_guess: tuple[int, int, bool, int] | None = None
        self._cake_guess_note = ""           # what the screen said about that guess
        self.storage_fault: tuple[str, str] = ("", "")   # (full/read_only/failing, words)
        self._update_action: dict | None = None
        self.spend_count = 1
        self._dismissing = False    # the prompt tapped away, the loop's answer not yet here
        # the scan's frame ``predictions`` built (its cards' text is fitted ahead there)
        self._predicted: tuple[dict, list[Widget]] | None = None
        self._name_banner: pygame.Rect | None = None   # whose turn: toasts keep off it
        # the top bar's room for a message (between the turn and the sign): where toasts go
        self._message_room: pygame.Rect | None = None
        self.hint_spot: pygame.Rect | None = None    # the active player's positions 1-3
        self._hint_over_cards = False        # a hint card lies over them now
        # what waits under that card ("cake": Cake Time's question, "stalled": the words
        # of a table that cannot go on; None: nothing)
        self.waiting_under_hint: str | None = None
        self._taken: tuple | None = None    # (seat, position, until): just completed
        # (table after a plain completion, its action, until): "Specialty?" is offered; a
        # tap records that completion as a specialty order (undone, then done again)
        self._specialty: tuple[Any, dict, float] | None = None
        self._legal_table: Any = None
        self._legal: dict[str, bool] = {}
        self._panels: dict[_Key, list[Widget]] = {}    # kept widgets (panels), by content
        self._cake_badges: dict[tuple, Widget] = {}     # Cake Time's badges, by content
        self._question_widths: dict[tuple, tuple[int | None, int]] = {}   # (cake_table)
        self._closing = False       # the dialog posted its action: it goes with the answer
        self._dialog_targets: list[pygame.Rect] = []    # the open dialog's buttons (built)
        self._swap_due: float | None = None  # the final round's lines take turns then
        self._phase_shown = 0                  # ... and which of them shows now
        self._phase_ahead: int | None = None   # (the other, while built ahead)

    # --- updates ----------------------------------------------------------------------------

    #: how long a completed position stays marked
    TAKEN_SECONDS = 2.0
    #: how long "Specialty?" is offered after a completion the table could not tell
    SPECIALTY_SECONDS = 8.0

    def next_deadline(self) -> float | None:
        toast = super().next_deadline()
        taken = self._taken[2] if self._taken is not None else None
        special = self._specialty[2] if self._specialty is not None else None
        swap = self._final_swap()
        return min((t for t in (toast, taken, special, swap) if t is not None), default=None)

    def _final_swap(self) -> float | None:
        """When the final round's two big lines next take turns (None: not now)."""
        game = self.app.table.game
        if game is None or not self._final_takes_turns(game):
            return None
        return self._swap_due

    @staticmethod
    def _final_takes_turns(game) -> bool:
        """The final round before the last seat's turn: "Final round" and "Chloe plays
        last", as big as each other, take turns in the top bar (both at the must-read
        size do not fit its one line)."""
        return game.token == "closed" and not game.game_over and game.active is not None \
            and game.active != game.last_seat

    def _final_phase(self, game) -> int:
        """Which of the two lines shows now (0: "Final round"); when the other is due. While
        a dialog is open they stay as they were: nothing moves under its shade (a swap
        there painted the top bar, the shade over it and the dialog again: 4.8 M
        instructions at 800 x 480, over the 3.0 M a deadline's frame may take, issue 38)."""
        if not self._final_takes_turns(game):
            return 0
        if self._phase_ahead is not None:          # (the frame after the swap, ahead)
            return self._phase_ahead
        if self.dialog is not None:
            self._swap_due = None
            return self._phase_shown
        every = theme.TABLE_FINAL_SWAP_S
        now = self.app.clock() // every
        self._swap_due = (now + 1) * every
        self._phase_shown = int(now) % 2
        return self._phase_shown

    def tick(self, now: float) -> None:
        super().tick(now)
        if self._swap_due is not None and now >= self._swap_due:
            self._swap_due = None
            self.changed()        # (the header is kept: only its words are painted again)
        if self._specialty is not None and now >= self._specialty[2]:
            self._specialty = None
            self.changed()
        if self._taken is not None and now >= self._taken[2]:
            seat, position, _ = self._taken
            self._taken = None
            if not self._unmark(seat, position):
                self.changed()

    def _unmark(self, seat: int, position: int) -> bool:
        """The mark on a completed order goes: only that card changes, so it alone is
        drawn again (as a pressed look is), without building the screen again. False:
        the screen must be built (it is anyway, or the card is not on it as marked)."""
        game = self.app.table.game
        if self._changed or self._full or game is None:
            return False
        active = game.active if game.active is not None else game.last_seat
        name = f"act.pos{position}" if seat == active else f"p{seat}.pos{position}"
        for i, w in enumerate(self._widgets):
            if w.name == name:
                if not isinstance(w, OrderCard) or not w.highlight:
                    return False
                self._widgets[i] = replace(w, highlight=False)
                self._press_look(name)
                return True
        return False

    def _just_taken(self, seat: int, position: int) -> bool:
        return self._taken is not None and self._taken[:2] == (seat, position)

    @property
    def pending(self) -> PendingDraws | None:
        """The draws due now, as the loop's snapshot says (worked out once, on the loop's
        thread, for every output), unless the prompt was tapped away this turn."""
        draws = self.app.draws
        if draws.any_dismissed or self._dismissing:
            return None
        return draws.pending

    def on_update(self, update) -> None:
        self.changed()
        if self._closing:                # the dialog that posted goes with the answer
            self.dialog, self._closing = None, False
        game = update.table.game
        if any(isinstance(h, (TurnChanged, GameStarted)) for h in update.happened):
            self.drop_stale_toasts()
            self._taken = None       # the position marked last turn is history now
            self._cake_guess = None
        self.why_update(update)
        if update.rejection is not None:
            self._refused(update)
        elif update.accepted and self.dialog == "storage":
            self.dialog = None       # the card takes actions again: the fault has passed
        self.cake_update(update)
        self._update_action = update.action
        for h in update.happened:
            react = self._REACTIONS.get(type(h))
            if react is not None:
                react(self, h, game)
        self._specialty_update(update, game)
        if self._dialog_outdated(update, game):
            self.dialog = None

    def _dialog_outdated(self, update, game) -> bool:
        """An open dialog the update made pointless (nothing to upgrade, spend or complete
        now; a cake question from a turn that ended; a guess undone meanwhile)."""
        if (game is None or game.game_over or game.active is None) \
                and self.dialog in ("upgrade", "spend", "cake_choice", "cake_guess"):
            return True
        if self.dialog in ("cake_choice", "cake_guess") and any(
                isinstance(h, TurnChanged) for h in update.happened):
            return True
        return self.dialog == "cake_guess" and not self._guessed_at(self.cake_slot)

    #: refusals that are storage faults: said in a dialog that stays until OK (a toast is too
    #: small for what to do, and goes before a player has read it)
    STORAGE_FAULTS = {"storage_full": "full", "storage_read_only": "read_only",
                      "storage_failing": "failing"}

    def _refused(self, update) -> None:
        """A toast near the finger that was refused: whose turn it is, or why not."""
        kind = self.STORAGE_FAULTS.get(update.rejection.code)
        if kind is not None:
            self.storage_fault = (kind, self.rejection_text(update.rejection))
            self._open("storage")
            return
        near = self.app.last_touch if self.app.is_own(update) else None
        refused = next((h for h in update.happened if isinstance(h, NotYourTurn)), None)
        if refused is not None and refused.active and not refused.overlapped:
            self.toast(self.t("table.its_turn", player=refused.active), near=near)
        else:
            self.toast(self.rejection_text(update.rejection), near=near)

    def _on_game_started(self, h, game) -> None:
        self.dialog = None
        # a message about the last game (why its shop closed, held while a hint or the end
        # screen stood over it) is not the new game's: a quick rematch showed it at turn 1
        self._toasts.clear()

    def _on_draws_dismissed(self, h, game) -> None:
        self._dismissing = False    # the snapshot says it from now on

    def _on_order_completed(self, h, game) -> None:
        # mark the position taken, so a wrong one (a seat button's guess) is undone at once
        seat = game.seat_of(h.player) if game is not None else None
        if seat is not None:
            self._taken = (seat, h.position, self.app.clock() + self.TAKEN_SECONDS)
            rest = game.players[seat].queue[h.position - 1]
            action = self._update_action or {}
            guessed = action.get("do") == "complete" and "cake" not in action \
                and "card" not in action       # a seat button's (or a phone's) plain line
            if game.expansion is not None and h.tag is None and guessed \
                    and any(c.cake != h.cake for c in rest):
                # a guess between orders with and without a cake: say which, and let a
                # touch on that position offer the other one
                self._cake_guess = (seat, h.position, h.cake, game.turn)
                self._cake_guess_note = self.t("cake.took_caked" if h.cake else "cake.took_plain",
                                               player=h.player, position=h.position)
                self.toast(self._cake_guess_note, kind="info")

    def _on_shop_closed(self, h, game) -> None:
        self.toast(self.t(f"table.closed_because.{h.reason}", player=h.player or ""),
                   kind="warning", seconds=theme.TOAST_SHOP_CLOSED_S)

    def _on_shop_reopened(self, h, game) -> None:
        # the "Shop closed: ..." note goes; the sign on the screen is the table's (OPEN)
        gone = {self.t(f"table.closed_because.{h.reason}", player=p.name)
                for p in (game.players if game is not None else ())}
        self._toasts = [n for n in self._toasts if n.text not in gone]
        self.toast(self.t("happening.shop_reopened_deck" if h.player is None
                          else "happening.shop_reopened_dislikes", player=h.player or "",
                          open=self.t("word.open")),
                   kind="info", seconds=theme.TOAST_SHOP_CLOSED_S)

    def _on_table_paused(self, h, game) -> None:     # shown until the journal is free again
        self.toast(self.t("happening.table_paused"), kind="warning",
                   seconds=theme.TOAST_UNTIL_RESUMED_S)

    def _on_table_resumed(self, h, game) -> None:
        paused = self.t("happening.table_paused")
        self._toasts = [n for n in self._toasts if n.text != paused]
        self.toast(self.t("happening.table_resumed"), kind="info")

    def _on_game_ended_early(self, h, game) -> None:
        self.dialog = None
        self._toasts.clear()           # the start screen says it (``_no_game``)

    def _on_game_brought_back(self, h, game) -> None:
        self._toasts.clear()
        self.toast(self.t("happening.game_brought_back"), kind="info")

    def _on_device_status(self, h, game) -> None:
        if h.status == "garbled":
            self.toast(self.t(f"happening.device_{h.device}_garbled"), kind="warning",
                       seconds=theme.TOAST_GARBLED_S)
            return
        name = self.t(f"device.{h.device}")
        bad = device_bad(h.status)
        self.toast(self.t("device.lost" if bad else "device.back", device=name),
                   kind="warning" if bad else "info")

    #: what the table view does with a happening, by its kind
    _REACTIONS: dict[type[Happening], Callable[[TableView, Any, Any], None]] = {
        GameStarted: _on_game_started,
        DrawsDismissed: _on_draws_dismissed,
        OrderCompleted: _on_order_completed,
        ShopClosed: _on_shop_closed,
        ShopReopened: _on_shop_reopened,
        TablePaused: _on_table_paused,
        TableResumed: _on_table_resumed,
        GameEndedEarly: _on_game_ended_early,
        GameBroughtBack: _on_game_brought_back,
        DeviceStatusChanged: _on_device_status,
    }

    def _specialty_update(self, update, game) -> None:
        """A completion the table could not tell a specialty (no scan the card catalog
        knows; a touch, a seat button, the phone) offers "Specialty?" for a few seconds;
        anything else accepted takes the offer away."""
        action = update.action if update.accepted else None
        done = next((h for h in update.happened if isinstance(h, OrderCompleted)), None)
        if done is not None and action is not None and action.get("do") in ("complete", "scan") \
                and not done.specialty and game is not None and game.active is not None \
                and (done.tag is None or done.tag not in self.app.catalog.cards):
            self._specialty = (update.table, dict(action),
                               self.app.clock() + self.SPECIALTY_SECONDS)
        elif self._specialty is not None and update.table is not self._specialty[0]:
            self._specialty = None

    def specialty_offered(self) -> bool:
        """"Specialty?" is on the screen: the completion is still the last thing done."""
        offer = self._specialty
        return offer is not None and offer[0] is self.app.table and self.app.clock() < offer[2]

    def _make_specialty(self) -> None:
        """The order just completed was a specialty: that completion is undone and done
        again as a specialty order (one UNDO takes the whole completion back)."""
        if self.specialty_offered() and self._specialty is not None:
            action = {**self._specialty[1], "specialty": True}
            self.app.post_action({"do": "undo"})
            self.app.post_action(action)
        self._specialty = None
        self.changed()

    def scanner_at_table(self, game) -> bool:
        """A scanner is configured (it reports its state) or has identified cards in this
        game: only then does the table ask for the dealt cards to be scanned."""
        return "scanner" in self.app.devices or bool(game.used_tags)

    # --- what the engine would accept -------------------------------------------------------

    def accepts(self, action: dict) -> bool:
        """Whether the rules engine would accept ``action`` on the current table
        (asked once per table and action: tables are never changed in place)."""
        table = self.app.table
        if self._legal_table is not table:
            self._legal_table, self._legal = table, {}
        key = repr(sorted(action.items()))
        if key not in self._legal:
            self._legal[key] = isinstance(
                apply(table, action, self.app.catalog.specialty_tags), Accepted)
        return self._legal[key]

    def legal_upgrades(self) -> list[str]:
        return list(self._legal_upgrades())

    def can_upgrade(self) -> bool:
        """Whether the active player may activate any upgrade now (UPGRADE is offered):
        the engine is asked tile by tile until one is legal."""
        return any(True for _ in self._legal_upgrades())

    def _legal_upgrades(self) -> Iterator[str]:
        """The tiles the engine would let the active player activate now (asked without
        applying each: ``upgrade_refusal``, what ``activate_upgrade`` checks)."""
        game = self.app.table.game
        if game is None or game.game_over or game.active_player is None:
            return
        me = game.active_player
        yield from (u for u in me.tiles if u not in me.upgrades
                    and upgrade_refusal(game, me, u) is None)

    def can_spend(self) -> bool:
        """Spend is offered while the active player holds tokens; when none may be spent
        now (this turn's orders won them: table script 1.2) a touch says why."""
        game = self.app.table.game
        me = game.active_player if game is not None and not game.game_over else None
        return me is not None and me.cookies > 0

    def _spend_refusal(self, count: int) -> str | None:
        """Why the engine would refuse spending ``count`` now, in words (None: it would not)."""
        outcome = apply(self.app.table, {"do": "spend_cookies", "count": count})
        return None if isinstance(outcome, Accepted) else self.rejection_text(outcome)

    # --- actions ---------------------------------------------------------------------------

    def complete(self, slot: int) -> None:
        me = self.app.table.game.active_player
        if self._guessed_at(slot):      # a seat button guessed here: the other one instead?
            self.cake_slot = slot
            self._toasts = [n for n in self._toasts if n.text != self._cake_guess_note]
            self._open("cake_guess")
            return
        if mixed_cakes(me, slot):       # Cake Time: the order with the cake, or the other?
            self.cake_slot = slot
            self._open("cake_choice")
            return
        self.app.post_action(complete_action(me, slot))

    def _complete_cake(self, cake: bool) -> None:
        game = self.app.table.game
        me = game.active_player if game is not None else None
        if me is not None and any(c.cake == cake for c in me.queue[self.cake_slot - 1]):
            self.app.post_action(cake_completion(me, self.cake_slot, cake))
            self._close_with_answer()
            return
        self._open(None)

    def _guessed_at(self, slot: int) -> bool:
        """A seat button's guess at ``slot`` is still the last thing done this turn, and the
        position still holds an order of the other kind (with or without a cake)."""
        guess, table = self._cake_guess, self.app.table
        game = table.game
        if guess is None or game is None or game.active_player is None or table.undo is None:
            return False
        seat, position, cake, turn = guess
        (_, last), _ = table.undo
        return (game.active, game.turn, slot) == (seat, turn, position) \
            and last.get("do") == "complete" and "cake" not in last and "card" not in last \
            and any(c.cake != cake for c in game.active_player.queue[slot - 1])

    def _other_instead(self) -> None:
        """Undo the seat button's guess and complete the other order of that position."""
        if self._guessed_at(self.cake_slot) and self._cake_guess is not None:
            other = not self._cake_guess[2]
            self._cake_guess = None
            me = self.app.table.game.active_player
            self.app.post_action({"do": "undo"})
            self.app.post_action(cake_completion(me, self.cake_slot, other))
        self._open(None)

    def _other_too(self) -> None:
        """The player completed both: the other order of that position goes as well."""
        if self._guessed_at(self.cake_slot) and self._cake_guess is not None:
            other = not self._cake_guess[2]
            self._cake_guess = None
            self.app.post_action(cake_completion(self.app.table.game.active_player,
                                                 self.cake_slot, other))
        self._open(None)

    def _open(self, dialog: str | None) -> None:
        if dialog == "spend" and (why := self._spend_refusal(1)) is not None:
            # e.g. the only token was won by this turn's order: an answer to that touch
            self.toast(why, near=self.app.last_touch)
            return
        self.dialog = dialog
        if dialog == "spend":
            self.spend_count = 1
        self.changed()

    def _spend_change(self, delta: int) -> None:
        game = self.app.table.game
        top = game.active_player.cookies if game and game.active_player else 1
        want = max(1, min(top, self.spend_count + delta))
        why = self._spend_refusal(want) if want > self.spend_count else None
        if why is not None:            # more than may be spent now: say why, keep the count
            self.toast(why, near=self.app.last_touch)
            return
        self.spend_count = want
        self.changed()

    def _close_with_answer(self) -> None:
        """The dialog posted its action: it goes with the table loop's answer, which draws
        the table changed, once (not the table as it was, then again)."""
        self._closing = True

    def _spend_confirm(self) -> None:
        self.app.post_action({"do": "spend_cookies", "count": self.spend_count})
        self._close_with_answer()

    def _upgrade(self, u: str) -> None:
        self.app.post_action({"do": "activate_upgrade", "upgrade": u})
        self._close_with_answer()

    def _fix(self) -> None:
        self._open(None)
        self.app.open("fix")

    def _dismiss_draws(self) -> None:
        """Hide the prompt at once and tell the table loop, so the lights stop too."""
        self._dismissing = True
        self.changed()
        self.app.post(ev.DismissDraws())

    # --- the next frame, painted ahead -------------------------------------------------------

    veils_ahead = True          # UPGRADE, SPEND, FIX and the cake questions open dialogs

    def _parts_ahead(self, outcome: Accepted, answer: bool = False) -> Iterator[None]:
        """Build the parts of the frame the table shows after ``outcome`` (its header, each
        panel, the footer), one per step, each as the whole frame's building would (the
        update taken in, as if shown), and keep them (``_kept``): the frame's own building
        then finds them. Between the steps the screen is as it was. ``answer``: the
        outcome is the open dialog's answer (the dialog goes with it)."""
        if outcome.table.game is None:
            return
        update = Update(None, outcome.table, outcome.action, outcome.happened)

        def taken_in() -> None:
            self._closing = self._closing or answer
            self.on_update(update)
        yield from self._parts_as_if(outcome.table,
                                     self.app.draws.after(outcome.table, outcome.happened),
                                     taken_in)

    def _parts_as_if(self, table: Any, draws: Any, setup: Callable[[], None]) -> Iterator[None]:
        """Build the parts of the frame this screen shows for ``table`` (and ``draws``) once
        ``setup`` has changed it, one per step, and keep them (``_parts_ahead``)."""
        game = table.game
        lay = table_layout(self.size, len(game.players))
        active = game.active if game.active is not None else game.last_seat
        n = len(game.players)
        parts: list[Callable[[], object]] = [
            partial(self._header, game, lay.header),
            partial(self._active_panel, game, active, lay.active)]
        parts += [partial(self._other_panel, game, (active + 1 + i) % n, rect)
                  for i, rect in enumerate(lay.others)]
        parts.append(partial(self._footer, game, lay.footer))
        for part in parts:
            with self._as_if(table, draws):
                setup()
                part()
            yield

    def predictions(self) -> Iterator[tuple[Screen, list[Widget]] | None]:
        """The frames the predicted inputs show (``_predicted_actions``: while the draw
        prompt asks for a scan, the scan's first, then END TURN's; while a dialog is open,
        its answers'), each the pure engine's answer to the input on this table, taken in
        as the loop's update would be and built, with nothing applied or kept; or, when that
        input ends the game, the end screen the App will open (``App.prepare``). Painted
        while the table is idle. Each frame's parts are built one per step first (a None
        each): the whole frame at once was the longest step painted ahead (22 M
        instructions at 800 x 480, 4 players: a tap arriving as it began waited about
        37 ms on a Zero 2 W, issue 38)."""
        answers = self._dialog_answers()
        if not answers and not self._turn_on_show():
            return
        self._predicted = None
        for action in answers or self._predicted_actions():
            outcome = apply(self.app.table, action, self.app.catalog.specialty_tags)
            if not isinstance(outcome, Accepted) or outcome.table.game is None:
                continue
            yield None                  # (the engine's answer: a step of its own)
            if outcome.table.game.game_over:
                from ..app import SCREENS
                SCREENS["end"]      # (its module imported, the first time: a step of its own)
                yield None
                with self._as_if(outcome.table,
                                 self.app.draws.after(outcome.table, outcome.happened)):
                    end = self.app.prepare("end")
                    ws = end.widgets()
                yield end, ws
                continue
            yield from self._parts_ahead(outcome, answer=bool(answers))
            ws = self._frame_after(outcome, answer=bool(answers))
            if action["do"] == "scan":
                self._predicted = (action, ws)
            yield self, ws

    def _dialog_answers(self) -> list[dict]:
        """What the open dialog's buttons post (and close it with): each upgrade UPGRADE's
        dialog offers, the tokens SPEND's counts, a position with or without its cake;
        the first ``AHEAD_FRAMES`` are painted ahead. The frame such an answer shows
        changes much of the screen under the dialog (the panel, its cards' sizes, the
        footer): painted by the tap, 6.4-7.0 M instructions in Cake Time at 800 x 480,
        over the 6.0 M a tap may take (issue 38). Empty but while a turn is being played."""
        game = self.app.table.game
        if self.dialog is None or game is None or game.game_over or game.active is None:
            return []
        me = game.active_player
        answers: list[dict]
        if self.dialog == "upgrade":
            answers = [{"do": "activate_upgrade", "upgrade": u} for u in self._legal_upgrades()]
        elif self.dialog == "spend":
            answers = [{"do": "spend_cookies", "count": self.spend_count}]
        elif self.dialog == "cake_choice" and me is not None:
            answers = [cake_completion(me, self.cake_slot, cake) for cake in (True, False)
                       if any(c.cake == cake for c in me.queue[self.cake_slot - 1])]
        else:
            answers = []
        return answers[:AHEAD_FRAMES]

    def _predicted_actions(self) -> list[dict]:
        """The inputs whose frames are painted ahead whole: while the draw prompt asks for
        the dealt cards to be scanned, the scan (with a stand-in card, ``_scan_stand_in``),
        what comes next then, and END TURN, the costliest tap (every panel changes), in
        case a player ends the turn first; otherwise END TURN alone. (A table without a
        scanner, or a prompt tapped away: END TURN alone.)"""
        game, draws = self.app.table.game, self.app.draws
        pending = draws.pending
        if pending is not None and pending.serials and not draws.everyone \
                and self.scanner_at_table(game):
            stand_in = self._scan_stand_in()
            if stand_in is not None:
                return [{"do": "scan", "tag": stand_in}, {"do": "end_turn"}]
        return [{"do": "end_turn"}]

    def dialogs_ahead(self) -> Iterator[list[Widget]]:
        """UPGRADE's and SPEND's dialogs, when the footer offers them (and Cake Time's
        question of a position with and without a cake)."""
        if not self._turn_on_show():
            return
        for dialog, offered in (("upgrade", self.can_upgrade), ("spend", self.can_spend)):
            if offered():
                with self._as_if(self.app.table, self.app.draws):
                    self.dialog, self.spend_count = dialog, 1
                    ws = self.widgets()
                yield ws
        yield from self.cake_dialogs_ahead()

    def frames_warmed(self) -> Iterator[list[Widget] | None]:
        """The frames the active player's likeliest taps show (``_likely_actions``): the
        engine's answer to each, taken in as the loop's update would be and built, nothing
        applied or kept (their looks are painted ahead aside); then Cake Time's table once
        its cake question goes. Each frame's parts are built one per step first (a None
        each), as the predicted frames' are (``predictions``)."""
        if not self._turn_on_show():
            return
        yield from self._deadline_frame()
        predicted = self._predicted
        for action in self._likely_actions():
            if predicted is not None and action == predicted[0]:
                if action["do"] == "scan":      # (its frame is painted ahead whole)
                    yield from self._cards_ahead(predicted[1], action["tag"])
                continue
            outcome = apply(self.app.table, action, self.app.catalog.specialty_tags)
            if not isinstance(outcome, Accepted) or outcome.table.game is None \
                    or outcome.table.game.game_over:
                continue
            yield None
            yield from self._parts_ahead(outcome)
            ws = self._frame_after(outcome)
            yield ws
            if action["do"] == "scan":
                yield from self._cards_ahead(ws, action["tag"])
        yield from self.cake_frames_warmed()

    def _deadline_frame(self) -> Iterator[list[Widget] | None]:
        """The frame the table shows once its deadlines pass, if nothing comes before: a
        completed order's mark gone, the messages' time up, the final round's other line
        in the top bar. Its looks and text painted ahead aside, the deadline's frame
        copies them (painting the order card again took 3.0-3.4 M instructions in Cake
        Time at 800 x 480, and the first "Chloe plays last" was rendered then: 4.8 M, over
        the 3.0 M a deadline's frame may take, issue 38)."""
        if self._taken is None and self._swap_due is None and not self._toasts:
            return
        swap = self._swap_due is not None

        def past() -> None:
            self._taken = None
            self._toasts = [n for n in self._toasts if n.held and n.hold]
            if swap:
                self._phase_ahead = 1 - self._phase_shown
        table, draws = self.app.table, self.app.draws
        yield from self._parts_as_if(table, draws, past)
        with self._as_if(table, draws):
            past()
            ws = self.widgets()
        yield ws

    def _cards_ahead(self, ws: list[Widget], stand_in: str) -> Iterator[None]:
        """After the frame the next scan shows (``_scan_stand_in``): the text of every card
        that scan may name, fitted and rendered where the stand-in's card shows in ``ws``
        (``OrderCard.card_ahead``), a part per step. The cards: the catalog's of the game's
        edition not in play. Each is done once (the fits and renders are remembered): a
        scanned card's own paint then only copies its name and initials."""
        game, catalog = self.app.table.game, self.app.catalog
        info = catalog.get(stand_in)
        if info is None:
            return
        shown = drink_name(info.drink)
        slots = [w for w in ws if isinstance(w, OrderCard) and w.cards
                 and w.cards[-1] is not None and w.cards[-1][0] == shown]
        looked = 0
        for tag, card in catalog.cards.items():
            if card.edition != game.edition or tag in game.used_tags or tag == stand_in:
                continue
            face = (drink_name(card.drink), card.recipe, card.specialty)
            for w in slots:
                for _ in w.card_ahead(face):
                    yield None
            looked += 1
            if looked % 8 == 0:     # (a deck's cards found done already: a step per eight,
                yield None          # each laid out to look its text up)

    def _likely_actions(self) -> Iterator[dict]:
        """What the active player's likeliest taps post: completing each order (the tap
        made most; of a position with and without a cake, either, as its question's
        answer), each upgrade UPGRADE offers, one token spent, the cake card, UNDO."""
        table = self.app.table
        me = table.game.active_player
        for slot, cards in enumerate(me.queue, 1):
            if not cards or self._guessed_at(slot):
                continue                      # (a guess's question: an undo first)
            if mixed_cakes(me, slot):
                yield cake_completion(me, slot, True)
                yield cake_completion(me, slot, False)
            else:
                yield complete_action(me, slot)
        for u in self._legal_upgrades():
            yield {"do": "activate_upgrade", "upgrade": u}
        if self.can_spend():
            yield {"do": "spend_cookies", "count": 1}
        if table.game.expansion is not None and self.can_play_cake_card():
            yield {"do": "play_cake_card"}
        if table.undo is not None:
            yield {"do": "undo"}              # (a slip taken back: the old look, the mark kept)
        stand_in = self._scan_stand_in()
        if stand_in is not None:
            yield {"do": "scan", "tag": stand_in}

    def _scan_stand_in(self) -> str | None:
        """A tag for the frame the next scan shows, while a card waits for the scanner. A
        scan that names a panel's last unknown card ends its scan prompt (or its draw
        badge), and the panel's order slots change size: its frame painted them all again,
        16 M instructions on x86-64 where a scan otherwise costs 3-5 M (issue 38); the
        first scans of a game opened the type sizes a card's name needs. Painted ahead,
        the slots' looks at the new size are kept, the sizes are open, and the scan copies
        them. The stand-in is a card of the catalog from the game's edition that is not in
        play (its own slot is painted for nothing: the real card is another). None: no card
        waits, or the catalog has none to stand in."""
        game = self.app.table.game
        if not any(c.tag is None for p in game.players for pos in p.queue for c in pos):
            return None
        return next((tag for tag, card in self.app.catalog.cards.items()
                     if card.edition == game.edition and tag not in game.used_tags), None)

    def _frame_after(self, outcome: Accepted, answer: bool = False) -> list[Widget]:
        """The widgets of the frame the table shows once the engine's ``outcome`` (an
        action accepted, the game going on) is taken in; ``answer``: the open dialog's
        answer, which the dialog goes with."""
        update = Update(None, outcome.table, outcome.action, outcome.happened)
        with self._as_if(outcome.table, self.app.draws.after(outcome.table, outcome.happened)):
            self._closing = self._closing or answer
            self.on_update(update)
            return self.widgets()

    def _turn_on_show(self) -> bool:
        """A turn is being played and no dialog is open (what painting ahead predicts from)."""
        game = self.app.table.game
        return self.dialog is None and game is not None and not game.game_over \
            and game.active is not None

    @contextlib.contextmanager
    def _as_if(self, table: Any, draws: Any) -> Iterator[None]:
        """The app showing ``table`` (and ``draws``) for the block; then the app and this
        screen exactly as they were (whatever the block changed of them)."""
        app, kept = self.app, dict(self.__dict__)
        shown = app.table, app.draws
        app.table, app.draws = table, draws
        self._pressed = None
        try:
            yield
        finally:
            app.table, app.draws = shown
            self.__dict__.clear()
            self.__dict__.update(kept)

    # --- building the picture --------------------------------------------------------------

    def build(self) -> list[Widget]:
        game = self.app.table.game
        if game is None:         # a storage fault can refuse the very first setup too
            return self._no_game() + (self._storage_box() if self.dialog == "storage" else [])
        lay = table_layout(self.size, len(game.players))
        out: list[Widget] = []
        self.waiting_under_hint = None          # (the active panel finds it again)
        out += self._header(game, lay.header)
        active = game.active if game.active is not None else game.last_seat
        out += self._active_panel(game, active, lay.active)
        n = len(game.players)
        for i, rect in enumerate(lay.others):
            out += self._other_panel(game, (active + 1 + i) % n, rect)
        out += self._footer(game, lay.footer)
        body = lay.body
        out += self._banners(game, body)
        out += self.cake_widgets(game, out, body)
        if self.dialog is None:           # "why?": touch targets and the open explanation
            out += self.why_widgets(out, table_targets(game))
        dialog = self._dialog(game)
        self._dialog_targets = [w.rect for w in dialog if w.on_tap is not None
                                and not isinstance(w, Shade)]
        return out + dialog

    def _storage_box(self) -> list[Widget]:
        """A storage fault, named for what it is, with what to do; until OK or the next
        accepted action."""
        kind, words = self.storage_fault
        close = lambda: self._open(None)  # noqa: E731
        return [Shade("dlg.shade", self.m.rect, on_tap=close)] + message_box(
            self.m, self.t(f"fault.journal_title_{kind}"), words,
            [("dlg.ok", self.t("button.ok"), close, theme.PRIMARY)])

    def _no_game(self) -> list[Widget]:
        m = self.m
        w, h = theme.TABLE_NOGAME_BOX
        ended = self.app.loop.session.ended is not None     # "End this game": undoable
        button_h = m.target + m.px(theme.TABLE_NOGAME_BUTTON_PAD)
        box = centered(m.rect, m.px(w), m.px(h) + m.target + m.gap
                       + (button_h + m.gap if ended else 0))
        title, hint, first, button, *undo = rows(
            box, [1.0, 1.0, button_h, button_h] + ([button_h] if ended else []), m.gap)
        out: list[Widget] = []
        if ended:
            out.append(Button("nogame.undo", centered(undo[0], m.px(theme.TABLE_NOGAME_BUTTON_W)
                                                      * 2 + m.gap, undo[0].h),
                              text=self.t("table.undo_ended"), size=m.big, color=theme.WARNING,
                              on_tap=self._bring_back))
        out += [
            Label("nogame.title", title, text=self.t("table.no_game"), size=m.huge, bold=True),
            Label("nogame.hint", hint, text=self.t("happening.game_ended_early" if ended
                                                   else "teach.first_game_hint"), size=m.body,
                  color=theme.TEXT_DIM, lines=2),
            # start at once: the first game, taught as it is played
            Button("nogame.teach", centered(first, m.px(theme.TABLE_NOGAME_BUTTON_W) * 2
                                            + m.gap, first.h),
                   text=self.t("teach.first_game"), size=m.big, color=theme.PRIMARY,
                   on_tap=partial(self.app.open, "wizard", teach=True)),
        ]
        buttons = [("nogame.new", "button.new_game", theme.BUTTON, {"teach": False}),
                   # the language, before the wizard's words
                   ("nogame.settings", "button.settings", theme.BUTTON, None)]
        row = centered(button, m.px(theme.TABLE_NOGAME_BUTTON_W) * len(buttons) + m.gap, button.h)
        for (name, words, color, teach), r in zip(buttons, cols(row, [1.0] * len(buttons),
                                                                m.gap), strict=True):
            open_it = (partial(self.app.open, "wizard", **teach) if teach is not None
                       else partial(self.app.open, "settings"))
            out.append(Button(name, r, text=self.t(words), size=m.big, color=color,
                              on_tap=open_it))
        return out

    def _say_devices(self, said: tuple, near: tuple[int, int]) -> None:
        """A tap on the device icons beside the sign says what each is and how it is."""
        self.toast(" · ".join(self.t("device.lost" if device_bad(status) else "device.back",
                                     device=self.t(f"device.{device}"))
                              for device, status in said), near=near, kind="info")

    def _bring_back(self) -> None:
        """Undo "End this game" (Settings): the ended game runs again."""
        self.app.post(ev.BringBackGame(at=self.app.clock(), seen=self.app.version))

    def _header(self, game, rect: pygame.Rect) -> list[Widget]:
        """Turn, deck, the sign, the devices: kept while what they show is the same."""
        # a message takes the final round's words' place for its few seconds (it is the
        # news: "Shop closed: ..."); they come back when it goes
        message = bool(self._toasts) and self.dialog is None and game.token == "closed" \
            and not game.game_over
        key = ("header", tuple(rect), game.turn, len(game.players), game.deck, game.token,
               game.game_over, game.active, game.last_seat,
               game.players[game.last_seat].name, self._final_phase(game),
               tuple((d, self.app.devices[d]) for d in ("scanner", "buttons")
                     if d in self.app.devices), text.language(), self.m, message)
        got = self._kept(key, lambda: self._build_header(game, rect, message))
        self._message_room = next((w.rect for w in got if w.name == "hdr.room"), None)
        return got

    def _build_header(self, game, rect: pygame.Rect, message_shown: bool = False
                      ) -> list[Widget]:
        m = self.m
        out: list[Widget] = [Fill("hdr.bg", rect, color=theme.PANEL, radius=10)]
        devices = [d for d in ("scanner", "buttons") if d in self.app.devices]
        players = len(game.players)
        turn_words = self.t("table.turn_round", turn=game.turn,
                            round=(game.turn - 1) // players + 1)
        deck_words = self.t("table.deck", count=game.deck)
        closing = game.token == "closed" and not game.game_over
        sign_words = self.t("word.open" if game.token == "open" else "word.closed")
        info_w = 0 if closing else max(text_width(turn_words, m.body, True),
                                       text_width(deck_words, m.body))
        lay = header_layout(m, rect, closing, text_width(sign_words, m.must, True), info_w,
                            len(devices))
        out += self._header_words(game, rect, lay, turn_words, deck_words, message_shown)
        out.append(OpenSign("hdr.sign", lay.sign, is_open=game.token == "open", size=m.must,
                            text=sign_words))
        if lay.devices is not None:
            split = rows if lay.stacked else cols
            for d, r in zip(devices, split(lay.devices, [1.0] * len(devices)), strict=True):
                status = self.app.devices[d]
                out.append(Custom(f"hdr.dev.{d}", r, data=(d, status),
                                  paint_fn=device_painter(d, status)))
            # one finger-sized target over the icons: a tap says what they are and how
            area = lay.devices.inflate(max(0, theme.MIN_TARGET - lay.devices.w),
                                       max(0, theme.MIN_TARGET - lay.devices.h))
            said = tuple((d, self.app.devices[d]) for d in devices)
            out.append(Custom("hdr.devices", area.clamp(rect), data=said, paint_fn=_nothing,
                              on_tap=partial(self._say_devices, said, area.center)))
        out.append(Button("hdr.settings", lay.settings, text="⚙", size=m.big,
                          on_tap=lambda: self.app.open("settings")))
        return out

    def _header_words(self, game, rect: pygame.Rect, lay: Any, turn_words: str,
                      deck_words: str, message_shown: bool) -> list[Widget]:
        """The turn and the deck, or the final round's words; and the room where a message
        shows (the bar's free middle, or the final round's words' place, which they give
        it for its few seconds: whose turn it is stays under it on the last seat's turn),
        from the bar's top edge to its foot (``toast_style``: two lines of the body
        type)."""
        m = self.m
        out: list[Widget] = []
        message = lay.message
        takes_turns = self._final_takes_turns(game)
        over, under = rows(message, [max(1, message.h * 4 // 5), 1.0])
        room = message if lay.info is not None or takes_turns else over
        room = pygame.Rect(room.x, rect.y, room.w,
                           (rect.bottom if room is message else room.bottom) - rect.y)
        out.append(Fill("hdr.room", room, color=theme.PANEL))
        detail = Label("hdr.detail", under, text=turn_words, size=m.small, color=theme.TEXT_DIM,
                       align="left", tight=True, min_size=m.px(theme.TABLE_DETAIL_MIN))
        if lay.info is None and message_shown:
            if not takes_turns:
                out.append(detail)
        elif lay.info is None and takes_turns:
            # the final round takes the room of the turn and deck counts: "Final round" and
            # "Chloe plays last" take turns, each at the must-read size
            big = self.t("table.final_round") if self._final_phase(game) == 0 \
                else self._plays_last(game.players[game.last_seat].name, message.w)
            out.append(Label("hdr.final", message, text=big, size=m.must, bold=True,
                             tight=True, color=theme.WARNING, align="left", min_size=m.must))
        elif lay.info is None:      # the last seat's turn: "Last turn!", the turn under it
            out.append(Label("hdr.final", over, text=self.t("table.last_turn"), size=m.must,
                             bold=True, tight=True, color=theme.WARNING, align="left",
                             min_size=m.must))
            out.append(detail)
        else:
            top, bottom = rows(lay.info, [1.0, 1.0])
            out.append(Label("hdr.turn", top, text=turn_words, size=m.body, bold=True,
                             align="left"))
            out.append(Label("hdr.deck", bottom, text=deck_words, size=m.body,
                             color=theme.TEXT_DIM, align="left"))
        return out

    def _plays_last(self, name: str, room: int) -> str:
        """"Maximiliano Fernández plays last" if it fits the top bar at the must-read size;
        else "Last: Maximiliano Fernández", then both with shorter forms of the name."""
        words = ""
        for candidate in short_names(name):
            for key in ("table.plays_last", "table.last_player"):   # "Last: Chloe"
                words = self.t(key, player=candidate)
                if text_width(words, self.m.must, True) <= room:
                    return words
        return words

    def _cards(self, player) -> list[tuple]:
        cat = self.app.catalog
        out = []
        for pos in player.queue:
            cards = []
            for c in pos:
                info = cat.get(c.tag)
                cards.append(None if info is None else (drink_name(info.drink),
                                                          info.recipe, info.specialty))
            out.append(tuple(cards))
        return out

    def _active_panel(self, game, seat: int, rect: pygame.Rect) -> list[Widget]:
        """The active player's panel, kept while what it shows is the same: the frame a
        completion or END TURN painted ahead built it, and the tap finds it (the same
        players, prompt and mark, equal if not the same objects)."""
        pending = self.pending
        offer = self.specialty_offered()
        prompt = pending is not None or offer
        hint = self.app.teaching.current if getattr(self.app, "teaching", None) else None
        covered, question, self.waiting_under_hint = self._under_card(game, rect, hint)
        self._hint_over_cards = covered
        lay = active_panel_layout(self.m, rect, prompt, question)
        self._name_banner = lay.banner
        taken = self._taken[:2] if self._taken is not None else None
        me = game.players[seat]
        self.question_band = lay.question
        self._active_cards = lay.slots[0].unionall(lay.slots[1:])
        # the other players show only in which card a scan names next, while one of this
        # player's is not known: a cake or a scan on another's card leaves it be (asked
        # only of a table with a scanner)
        known = self.app.catalog.cards
        unknown = self.scanner_at_table(game) and any(
            c.tag not in known for pos in me.queue for c in pos)
        key = ("active", seat, tuple(rect),
               tuple(self.app.seat_colors[seat % len(self.app.seat_colors)]),
               game.game_over, game.active, game.edition, game.variant, game.expansion,
               game.rules.token, game.turn, me, self._scan_next(game) if unknown else None,
               pending, taken, offer, question, text.language(), self.m, self.app.catalog,
               covered)
        return self._kept(key, lambda: self._build_active_panel(game, seat, rect, covered,
                                                                 question))

    def waiting_for(self, hint) -> str | None:
        """What waits under ``hint``'s card on this table as it is now (``None``, "cake",
        "stalled" or "draws": ``teaching_view.WAITING``), worked out afresh: the voice
        asks before the next frame is built (``Teaching`` says what its button says)."""
        game = self.app.table.game
        if game is None or hint is None or self.dialog is not None:
            return None
        return self._under_card(game, table_layout(self.size, len(game.players)).active,
                                hint)[2]

    def _under_card(self, game, rect: pygame.Rect, hint) -> tuple[bool, int, str | None]:
        """Whether ``hint``'s card lies over the active panel ``rect``'s positions 1-3 and
        the line under them, the height of Cake Time's question band (0: none, or it waits
        under the card), and what waits under the card for it to say so
        (``teaching_view.WAITING``: the question, a stalled table's words, the draw
        prompt).

        Where a hint about another player goes when the side column has no room beside
        their panel (``teaching_view.area_for``): positions 1-3 and the line under them,
        whose words then give way (their right end once showed beside the card, cut), as
        tall as they are without Cake Time's question: the question waits under the card
        (at 800x480 its band left positions 1-3 362 x 98 px, a card's two lines of body
        type, and the card took the side column over the panel it talked about). The line
        under them holds the draw prompt ("Ben draws 1", the "+1"): it waits there too."""
        pending = self.pending
        prompt = pending is not None or self.specialty_offered()
        spot = active_panel_layout(self.m, rect, prompt, 0)
        self.hint_spot = pygame.Rect(spot.slots[0].x, spot.slots[0].y,
                                     spot.slots[2].right - spot.slots[0].x,
                                     spot.hint.bottom - spot.slots[0].y)
        covered = hint is not None and area_for(self, hint) == self.hint_spot
        asked = self.question_h(game, self._question_w(rect))
        if not covered:
            return False, asked, None
        waits = ("cake" if asked else "stalled" if is_stalled(game)
                 else "draws" if pending is not None else None)
        return True, 0, waits

    def _build_active_panel(self, game, seat: int, rect: pygame.Rect,
                            covered: bool = False, question: int = 0) -> list[Widget]:
        """``covered``: a hint card lies over positions 1-3 and the line under them (the
        line's words, cut at the card's edge, are not drawn); ``question``: the height of
        Cake Time's question band at the panel's foot (0: none, or it waits under the
        card)."""
        m = self.m
        me = game.players[seat]
        color = self.app.seat_colors[seat % len(self.app.seat_colors)]
        running = not game.game_over and game.active is not None
        out: list[Widget] = [
            Fill("act.bg", rect, color=theme.mix(theme.PANEL, color, 0.18), radius=14,
                 border=max(4, m.px(theme.TABLE_ACTIVE_BORDER)), border_color=color),
        ]
        offer = running and self.specialty_offered()
        lay = active_panel_layout(m, rect, self.pending is not None or offer, question)
        banner, hint, stats = lay.banner, lay.hint, lay.stats
        out.append(Fill("act.banner", banner, color=color, radius=10))
        fg = theme.readable_on(color)
        points = t_count("table.points", score(game.edition, me))
        # the score gives way to "Ben's turn" in full, if that is enough
        for score_size in (m.big, m.body, m.big):
            score_w = text_width(points, score_size, True) + m.px(theme.TABLE_SCORE_PAD)
            token, name_box, score_box = active_banner_split(m, lay.banner_inner, score_w)
            words = self._turn_words(me.name, name_box)
            if words == self.t("table.turn_of", player=me.name):
                break
        out.append(seat_token("act.seat", token, seat, color))
        self._name_banner = banner
        out.append(Label("act.name", name_box, text=words, size=m.must, bold=True, color=fg,
                         align="left", min_size=m.must, tight=True))
        out.append(Label("act.score", score_box, text=points, size=score_size, bold=True,
                         color=fg, align="right"))
        slots = lay.slots
        for i, (r, cs) in enumerate(zip(slots, self._cards(me), strict=False)):
            tap = (lambda n=i + 1: self.complete(n)) if running and cs else None
            out.append(OrderCard(f"act.pos{i + 1}", r, on_tap=tap, position=i + 1, cards=cs,
                                 size=m.body, seat_color=color, urgent_size=m.must,
                                 highlight=self._just_taken(seat, i + 1)))
        if not covered:
            out += self._hint_row(game, me, hint, offer)
        out += stats_row(self.m, "act", game, me, stats, m.big)
        return out

    def _question_w(self, rect: pygame.Rect) -> int:
        """How wide the cake question's band is in the active panel ``rect``."""
        return rect.w - 2 * max(theme.TABLE_ACTIVE_PAD_MIN, self.m.px(theme.TABLE_ACTIVE_PAD))

    def _hint_row(self, game, me, hint: pygame.Rect, offer: bool) -> list[Widget]:
        """The line under the active player's orders: the "+N" draws badge beside the words
        (never over a card or a count), then "Specialty?" (beside the draw prompt, if any),
        else the draw prompt, else what to tap or scan."""
        m, pending = self.m, self.pending
        out: list[Widget] = []
        drawing = pending.left_for(me) if pending is not None else 0
        if pending is not None and drawing:
            badge, hint = cols(hint, [self._badge_w(drawing), 1.0], m.gap)
            out.append(draw_badge(self.m, "draw.act", badge, drawing))
        if offer:
            prompt, hint = cols(hint, [1.0, 1.0], m.gap) if pending is not None else (hint, hint)
            out.append(Button("act.specialty", hint, size=m.small, bold=True, lines=2,
                              text=self.t("table.specialty_offer",
                                          token=self.t(f"token.{game.rules.token}_one")),
                              color=theme.SPECIALTY, on_tap=self._make_specialty))
            if pending is not None:
                out += self._draw_sentence(pending, prompt)
        elif pending is not None:
            out += self._draw_sentence(pending, hint)
        else:
            words = self.t("table.tap_card_hint" if me.order_count() else "table.no_orders")
            if self.scanner_at_table(game) and any(c is None for pos in self._cards(me)
                                                   for c in pos):
                words = self._scan_next(game)
            out.append(Label("act.hint", hint, text=words, size=m.small, color=theme.TEXT_DIM,
                             lines=2))
        return out

    def _scan_next(self, game) -> str:
        """Which card a scan names next: the oldest dealt card not yet identified, so the
        prompt follows each book's deal order (Winter's: two each, then one)."""
        waiting = [(c.serial, p.name, i + 1) for p in game.players
                   for i, pos in enumerate(p.queue) for c in pos if c.tag is None]
        if not waiting:
            return self.t("table.scan_dealt")
        _, player, position = min(waiting)
        return self.t("table.scan_next", player=player, position=position)

    def _other_panel(self, game, seat: int, rect: pygame.Rect) -> list[Widget]:
        """A compact panel, built again only when what it shows changed (a turn changes
        one or two of them): the same widgets, whose keys are then worked out once."""
        p = game.players[seat]
        pending = self.pending
        taken = self._taken[1] if self._taken is not None and self._taken[0] == seat else 0
        key = (p, seat, tuple(rect), tuple(self.app.seat_colors[seat % len(self.app.seat_colors)]),
               game.edition, game.variant, game.expansion, game.rules.token, self.app.catalog,
               pending.left_for(p) if pending is not None else 0, taken, text.language(),
               self.m)
        return self._kept(key, lambda: self._build_other_panel(game, seat, rect))

    def _kept(self, key: tuple, build: Callable[[], list[Widget]]) -> list[Widget]:
        """The widgets ``build`` makes, kept by ``key`` (everything they show) and used
        again while it is the same: built, and their keys worked out, once. The 64 last
        used are kept (the frames painted ahead while idle, END TURN's first, build up to
        a dozen frames' parts before the tap comes: 32 let END TURN's go)."""
        panels = self._panels
        hashed = _Key(key)
        got = panels.pop(hashed, None)
        if got is None:
            if len(panels) >= 64:
                del panels[next(iter(panels))]       # (the least recently used)
            got = build()
            for w in got:
                w.keep_key()
        else:
            for w in got:
                w.pressed = False                   # (a finger's press is the frame's own)
        panels[hashed] = got
        return got

    def _build_other_panel(self, game, seat: int, rect: pygame.Rect) -> list[Widget]:
        m = self.m
        p = game.players[seat]
        color = self.app.seat_colors[seat % len(self.app.seat_colors)]
        pre = f"p{seat}"
        out: list[Widget] = [Fill(f"{pre}.bg", rect, color=theme.PANEL, radius=12,
                                  border=max(2, m.px(theme.TABLE_OTHER_BORDER)),
                                  border_color=color)]
        pending = self.pending
        drawing = pending.left_for(p) if pending is not None else 0
        # a seat that draws: "+2" in its name line; its cards and counts keep their width
        lay = other_panel_layout(m, rect, self._badge_w(drawing) if drawing else 0)
        stats = lay.stats
        out.append(Fill(f"{pre}.stripe", lay.stripe, color=color, radius=4))
        points = t_count("table.points", score(game.edition, p))
        # while the seat draws, its score gives the name room for the "+N" beside it (the
        # name once shrank to "Ch"): a smaller type, still "2 pts", never a bare number
        score_size = m.px(theme.TABLE_OTHER_SCORE_MIN_TYPE) if drawing else m.big
        score_w = text_width(points, score_size, True) + m.px(theme.TABLE_SCORE_PAD)
        token, name_box, score_box, badge = other_head_split(
            m, lay.head, score_w, self._badge_w(drawing) if drawing else 0)
        out.append(seat_token(f"{pre}.seat", token, seat, color))
        name_min = m.px(theme.TABLE_OTHER_NAME_MIN_TYPE)
        out.append(Label(f"{pre}.name", name_box, size=m.big, bold=True, align="left",
                         text=fitting_name(p.name, name_box.w, name_min), min_size=name_min))
        out.append(Label(f"{pre}.score", score_box, text=points, size=score_size, bold=True,
                         align="right", min_size=m.px(theme.TABLE_OTHER_SCORE_MIN_TYPE)))
        for i, (r, cs) in enumerate(zip(lay.slots, self._cards(p), strict=False)):
            out.append(OrderCard(f"{pre}.pos{i + 1}", r, position=i + 1, cards=cs, compact=True,
                                 size=m.small, seat_color=color, urgent_size=m.must,
                                 highlight=self._just_taken(seat, i + 1)))
        out += stats_row(self.m, pre, game, p, stats, max(m.body, stats.h - 4))
        if drawing and badge is not None:
            out.append(draw_badge(self.m, f"draw.{pre}", badge, drawing))
        return out

    def _badge_w(self, count: int) -> int:
        """The width of a "+N" draw badge at the must-read size."""
        return text_width(f"+{count}", self.m.must, True) + 2 * self.m.px(theme.TABLE_DRAW_PAD) \
            + 2 * self.m.px(theme.TABLE_DRAW_BADGE_INSET)

    def _footer(self, game, rect: pygame.Rect) -> list[Widget]:
        """UNDO, REDO, UPGRADE, SPEND, FIX and END TURN (and Cake Time's card button): kept
        while what they show is the same."""
        table = self.app.table
        running = not game.game_over and game.active is not None
        cake_time = game.expansion is not None
        key = ("footer", tuple(rect), running, table.undo is not None,
               table.redo is not None, running and self.can_upgrade(),
               running and self.can_spend(), cake_time,
               cake_time and running and self.can_play_cake_card(),
               tuple(self.app.seat_colors[(game.active or 0) % len(self.app.seat_colors)]),
               text.language(), self.m)
        return self._kept(key, lambda: self._build_footer(game, rect))

    def _build_footer(self, game, rect: pygame.Rect) -> list[Widget]:
        m = self.m
        table = self.app.table
        running = not game.game_over and game.active is not None
        color = self.app.seat_colors[(game.active or 0) % len(self.app.seat_colors)]
        cake_time = game.expansion is not None
        lay = self.footer_rects(rect, cake_time)
        slots, end = lay.slots, lay.end
        labels = [self.t(k) for k in _FOOTER_KEYS]
        size = self.footer_type(slots, cake_time)
        small = partial(IconButton, size=size, icon_h=self.footer_icon_h(),
                        pad=m.px(theme.TABLE_FOOTER_WORD_PAD), ground=self.background)
        out: list[Widget] = [
            small("ft.undo", slots[0], text=labels[0], icon="undo",
                  enabled=table.undo is not None,
                  on_tap=lambda: self.app.post_action({"do": "undo"})),
            small("ft.redo", slots[1], text=labels[1], icon="redo",
                  enabled=table.redo is not None,
                  on_tap=lambda: self.app.post_action({"do": "redo"})),
        ]
        if running and self.can_upgrade():
            out.append(small("ft.upgrade", slots[2], text=labels[2], icon="upgrade",
                             color=theme.UPGRADE_PURPLE, on_tap=lambda: self._open("upgrade")))
        if running and self.can_spend():
            out.append(small("ft.spend", slots[3], text=labels[3], icon="spend",
                             color=theme.SPEND_BROWN, on_tap=lambda: self._open("spend")))
        if cake_time:
            out += self.cake_card_button(game, slots[4], small)
        out.append(small("ft.fix", slots[-1], text=labels[4], icon="fix",
                         on_tap=lambda: self._open("fix_guard")))
        if running:
            out.append(Button("ft.end", end, text=self.t("button.end_turn"), color=color,
                              size=m.must, tight=True, pad=m.px(theme.TABLE_FOOTER_LABEL_PAD),
                              outline=theme.TEXT,
                              on_tap=lambda: self.app.post_action({"do": "end_turn"})))
        return out

    def footer_rects(self, rect: pygame.Rect, cake_time: bool) -> FooterLayout:
        """The footer's buttons: END TURN as wide as its words need at the must-read size
        in every language ("Fine turno"), the small buttons sharing the rest as their words
        need it at the small type (``footer_layout``)."""
        m = self.m
        words = text.in_every_language("button.end_turn")
        end_w = max(text_width(w, m.must, True) for w in words) \
            + 2 * m.px(theme.TABLE_FOOTER_LABEL_PAD) + 4        # (and its outline)
        pad = 2 * m.px(theme.TABLE_FOOTER_WORD_PAD)
        words_w = tuple(max(text_width(w, m.small, True) for w in text.in_every_language(k))
                        + pad for k in _footer_keys(cake_time))
        return footer_layout(m, rect, cake_time, end_w, words_w)

    def footer_icon_h(self) -> int:
        """A small footer button's picture: 6 mm tall (31 px at 800 x 480), with a margin."""
        return self.m.px(theme.TABLE_FOOTER_ICON_H)

    def footer_type(self, slots: list[pygame.Rect], cake_time: bool = False) -> int:
        """The type size of the small buttons' words: the size at which every word fits
        under its picture in every language, so that no language reads smaller ("Deshacer"
        once took 14 px where "Undo" took 16), never larger than the small type."""
        m = self.m
        pad = m.px(theme.TABLE_FOOTER_WORD_PAD)
        return min(common_size(list(text.in_every_language(k)), slot.w - 2 * pad, m.small,
                               bold=True)
                   for k, slot in zip(_footer_keys(cake_time), slots, strict=True))

    def _banners(self, game, body: pygame.Rect) -> list[Widget]:
        m = self.m
        out: list[Widget] = []
        if is_stalled(game) and not self._hint_over_cards:
            # where the active player's orders would be (every queue is empty): never over
            # a count, a side panel or whose turn it is (it once lay across the panels' feet);
            # under a hint card over them it waits, as Cake Time's question does (the card
            # cut it at position 4)
            r = self._active_cards
            out.append(Label("ban.stall", r, text=self.t("table.stalled"), size=m.big, bold=True,
                             background=theme.DANGER, radius=12,
                             pad=m.px(theme.TABLE_BANNER_TEXT_PAD), lines=4, min_size=m.body))
        return out

    def _turn_words(self, name: str, box: pygame.Rect) -> str:
        """"Maximiliano Fernández's turn" if it fits at the must-read size; else a shorter
        form ("Maximiliano's turn", then the name alone, then initials): never cut."""
        size = self.m.must
        for candidate in short_names(name):
            for words in (self.t("table.turn_of", player=candidate), candidate):
                if text_width(words, size, True) <= box.w:
                    return words
        return short_names(name)[-1]

    def _draw_sentence(self, pending: PendingDraws, rect: pygame.Rect) -> list[Widget]:
        """Who draws how many, in words, where the hint goes; a tap hides it."""
        m = self.m
        for form in range(3):     # whole names, else first names, else initials
            who = self.t("table.draw_join").join(
                self.t("table.draw_one", player=name_form(p, form), count=n)
                for p, n in pending.draws)
            if pending.short:
                who = (who + ". " if who else "") + self.t("table.draw_short")
            room = rect.w - 2 * m.px(theme.TABLE_DRAW_PAD)
            if text_width(who, round(m.body * 0.6), True) <= room:
                break
        return [Label("ban.draw.who", rect, text=who, size=m.body, bold=True,
                      color=theme.TEXT_DARK, background=theme.WARNING, radius=8,
                      pad=m.px(theme.TABLE_DRAW_PAD), lines=2,     # (never cut: two lines)
                      on_tap=self._dismiss_draws)]

    def keep_clear(self) -> list[pygame.Rect]:
        banner = self._name_banner
        return [banner] if banner is not None and self.app.table.game is not None else []

    def toast_keep_clear(self) -> list[pygame.Rect]:
        """A message never covers the active player's panel (whose turn, cards, counts),
        the hint card or a footer button: "Shop closed: Red has 5 dislikes" once hid the
        cards it was about, and a message over SPEND once took the tap meant for it."""
        game = self.app.table.game
        if game is None or self.dialog is not None:     # nor a button of the open dialog
            return self.keep_clear() + (self._dialog_targets if self.dialog is not None
                                        else [])
        lay = table_layout(self.size, len(game.players))
        out = self.keep_clear() + [lay.active, lay.footer, *lay.others]
        room = self._message_room
        if room is not None:           # the top bar but its room for messages
            out += [r for r in (pygame.Rect(lay.header.x, lay.header.y, room.x - lay.header.x,
                                            lay.header.h),
                                pygame.Rect(room.right, lay.header.y,
                                            lay.header.right - room.right, lay.header.h),
                                pygame.Rect(room.x, lay.header.y, room.w, room.y - lay.header.y),
                                pygame.Rect(room.x, room.bottom, room.w,
                                            lay.header.bottom - room.bottom)) if r.w and r.h]
        return out

    def toast_style(self, rect: pygame.Rect) -> tuple[bool, int]:
        """A message in the top bar's room: flat, its words at the body size or more (22 px
        at 800x480, as the turn beside it; they were 17-18 px in a shadowed card)."""
        if rect == self._message_room:
            return True, self.m.body
        return super().toast_style(rect)

    def toast_room(self, width: int, height: int) -> pygame.Rect | None:
        """The top bar's room for a message, between the turn and the sign (in the final
        round, the final round's words give it their place for the message's few
        seconds): never over a card, a count, whose turn it is or a button ("Shop closed"
        once hid the lowest panel's cards at the foot of the side column)."""
        game = self.app.table.game
        if game is None or self.dialog is not None:
            return None
        return self._message_room

    def why_keep_clear(self) -> list[pygame.Rect]:
        """The "why?" panel also leaves END TURN in view (the next thing a player taps)."""
        game = self.app.table.game
        if game is None:
            return self.keep_clear()
        footer = table_layout(self.size, len(game.players)).footer
        return self.keep_clear() + [self.footer_rects(footer, game.expansion is not None).end]

    def toast(self, text: str, near: tuple[int, int] | None = None, kind: str = "error",
              seconds: float | None = None, hold: bool = True) -> None:
        """The newest message takes the top bar's room at once (the answer to a tap is never
        kept waiting); one it pushes aside waits, then shows for its whole time."""
        super().toast(text, near, kind, seconds, hold)
        if len(self._toasts) > 1:
            self._toasts.insert(0, self._toasts.pop())

    def nothing_here(self, pos: tuple[int, int]) -> None:
        """A tap on no button, card or number that does something: a short answer, so no
        tap goes unanswered (a disabled button, an empty position, another seat's cards)."""
        if self.app.table.game is not None and self.dialog is None:
            self.toast(self.t("table.nothing_here"), near=pos, kind="info",
                       seconds=theme.TOAST_NOTHING_S, hold=False)

    # --- dialogs -------------------------------------------------------------------------

    def _dialog(self, game) -> list[Widget]:
        """The open dialog over a veil (a tap on the veil closes it); none: nothing."""
        if self.dialog is None:
            return []
        if self.dialog == "storage":
            return self._storage_box()
        close = lambda: self._open(None)  # noqa: E731
        body = self._dialog_body(game, game.active_player, close)
        return [Shade("dlg.shade", self.m.rect, on_tap=close)] + body if body else []

    def _dialog_body(self, game, me, close) -> list[Widget]:
        if self.dialog == "fix_guard":
            out: list[Widget] = []
            out += message_box(self.m, self.t("fix.guard_title"), self.t("fix.guard_body"),
                                     [("dlg.cancel", self.t("button.cancel"), close, theme.BUTTON),
                                      ("dlg.ok", self.t("fix.open"), self._fix, theme.WARNING)])
            return out
        if me is None:
            return []
        if self.dialog == "upgrade":
            return self._upgrade_dialog(me, close)
        if self.dialog == "spend":
            return self._spend_dialog(game, me, close)
        out = []
        if self.dialog == "cake_choice":
            out += message_box(
                self.m, self.t("cake.choose_title", position=self.cake_slot),
                self.t("cake.choose_body"),
                [("dlg.cancel", self.t("button.cancel"), close, theme.BUTTON),
                 ("dlg.plain", self.t("cake.choose_plain"),
                  partial(self._complete_cake, False), theme.PRIMARY),
                 ("dlg.caked", self.t("cake.choose_caked"),
                  partial(self._complete_cake, True), theme.CAKE_PINK)])
        elif self.dialog == "cake_guess" and self._cake_guess is not None:
            took_cake = self._cake_guess[2]
            out += message_box(
                self.m, self.t("cake.guess_title_caked" if took_cake
                               else "cake.guess_title_plain", position=self.cake_slot),
                self.t("cake.guess_body_caked" if not took_cake else "cake.guess_body_plain",
                       position=self.cake_slot),
                [("dlg.cancel", self.t("button.cancel"), close, theme.BUTTON),
                 ("dlg.instead", self.t("cake.guess_instead"), self._other_instead,
                  theme.CAKE_PINK if not took_cake else theme.PRIMARY),
                 ("dlg.too", self.t("cake.guess_too"), self._other_too, theme.BUTTON)])
        return out

    def _upgrade_dialog(self, me, close) -> list[Widget]:
        """The active player's UPGRADE: one button per upgrade they may take."""
        m = self.m
        out: list[Widget] = []
        ups = self.legal_upgrades()
        box = centered(m.rect, m.px(theme.DIALOG_UPGRADE_W),
                       m.px(theme.DIALOG_UPGRADE_BASE_H)
                       + (len(ups) // 2 + 1) * m.px(theme.DIALOG_UPGRADE_ROW_H))
        out.append(Fill("dlg.bg", box, color=theme.PANEL, radius=16, border=3,
                        border_color=theme.PANEL_LINE, blocks=True))
        inner = inset(box, m.px(theme.DIALOG_PAD))
        title, body, buttons = rows(inner, [m.px(theme.DIALOG_UPGRADE_TITLE_H), 1.0, m.target],
                                    m.gap)
        out.append(Label("dlg.title", title, text=self.t("upgrade.title", player=me.name),
                         size=m.body, bold=True, lines=2))
        for u, r in zip(ups, grid(body, len(ups), 2, m.gap), strict=True):
            out.append(Button(f"dlg.up.{u}", r, text=upgrade_name(u), size=m.body, lines=2,
                              color=theme.UPGRADE_PURPLE, on_tap=partial(self._upgrade, u)))
        cancel = centered(buttons, m.px(theme.DIALOG_UPGRADE_CANCEL_W), buttons.h)
        out.append(Button("dlg.cancel", cancel,
                          text=self.t("button.cancel"), size=m.body, on_tap=close))
        return out

    def _spend_dialog(self, game, me, close) -> list[Widget]:
        """SPEND: how many tokens, with what waits for a later turn said."""
        m = self.m
        out: list[Widget] = []
        token = game.rules.token
        box = centered(m.rect, *map(m.px, theme.DIALOG_SPEND_BOX))
        out.append(Fill("dlg.bg", box, color=theme.PANEL, radius=16, border=3,
                        border_color=theme.PANEL_LINE, blocks=True))
        inner = inset(box, m.px(theme.DIALOG_PAD))
        title, hint, step, buttons = rows(inner, [m.px(theme.DIALOG_SPEND_TITLE_H),
                                                  m.px(theme.DIALOG_SPEND_HINT_H), 1.0,
                                                  m.target], m.gap)
        out.append(Label("dlg.title", title, size=m.body, bold=True, lines=2,
                         text=self.t("spend.title", player=me.name,
                                     tokens=tokens_lower(token))))
        waiting = me.cookies - game.spendable_tokens(me)
        out.append(Label("dlg.hint", hint, size=m.small, color=theme.TEXT_DIM, lines=3,
                         text=self.t("spend.hint") if not waiting else self.t(
                             "spend.hint_waiting", count=game.spendable_tokens(me),
                             waiting=waiting)))
        step_w, step_h = theme.DIALOG_SPEND_STEPPER
        out += stepper_buttons("dlg.count", centered(step, m.px(step_w),
                                                     max(m.target, m.px(step_h))),
                               self.spend_count, 1, me.cookies, self._spend_change, m.huge)
        cancel, ok = cols(buttons, [1.0, 1.0], m.gap)
        out.append(Button("dlg.cancel", cancel, text=self.t("button.cancel"), size=m.body,
                          on_tap=close))
        out.append(Button("dlg.ok", ok, text=self.t("button.confirm"), size=m.body,
                          color=theme.PRIMARY, on_tap=self._spend_confirm))
        return out


def _nothing(surface: pygame.Surface, rect: pygame.Rect) -> None:
    """A touch target that paints nothing (what it covers is drawn under it)."""


class _Key:
    """A kept part's key, its hash worked out once: the key holds whole players (hashing
    one hashes each of their cards), and the dict of kept parts asks for it up to three
    times (looked up, put back, the oldest let go)."""

    __slots__ = ("key", "hash")

    def __init__(self, key: tuple):
        self.key, self.hash = key, hash(key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.hash == other.hash and self.key == other.key


_FOOTER_KEYS = ("button.undo", "button.redo", "button.upgrade", "button.spend", "button.fix")


def _footer_keys(cake_time: bool) -> tuple[str, ...]:
    """The small buttons' words, in the footer's order (Cake Time's card before FIX)."""
    return _FOOTER_KEYS[:4] + ("cake.play",) + _FOOTER_KEYS[4:] if cake_time else _FOOTER_KEYS
