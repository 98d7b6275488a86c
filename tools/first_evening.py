"""A family's first evening, by touch, in a real window (issue 40's harness).

Run under a virtual X server at the Pi's 800 x 480:

    xvfb-run -a -s "-screen 0 800x480x24" .venv/bin/python tools/first_evening.py OUTDIR

For English and Korean and each box (the original game, Winter, the original with Cake
Time) it opens the touchscreen in an X11 window, starts "First game: teach us" and walks
the wizard by touch, then plays the whole game by touch as a new family would: reads
each hint and taps it away, taps the orders it can complete (up to three), taps the
draw prompt away, END TURN. Every tap is a finger event handed to the App as SDL
delivers it. After each tap it checks what issue 40 found hidden (a "+N" badge over a
card or a count, a hint or message over whose turn it is, the "why?" panel over END
TURN, a hint card hiding Cake Time's question or the draw prompt without saying so, or
the voice not saying it) and writes the window to OUTDIR at the moments worth looking at
(a hint over something waiting: ``hint-KEY-over-WHAT``). After Cake Time's game, REMATCH:
who starts, then the tiles drawn anew or the same four, and a new game that teaches only
what the family has not read. Exits 1 with the problems found, else 0.
"""
from __future__ import annotations

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "x11")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from companion.core.catalog import Catalog  # noqa: E402
from companion.core.loop import TableLoop  # noqa: E402
from companion.core.session import Session  # noqa: E402
from companion.outputs import Outputs  # noqa: E402
from companion.outputs.screen.app import App  # noqa: E402

SIZE = (800, 480)
BOXES = [("original", None, 3), ("winter", None, 2), ("original", "cake_time", 2)]
PANELS = {"act", "p0", "p1", "p2", "p3"}
COUNTS = {"pos1", "pos2", "pos3", "pos4", "like", "dislike", "rush_token", "cookie",
          "upgrade", "score", "name", "cake_card"}


class Family:
    def __init__(self, lang: str, outdir: str, tag: str):
        self.window = pygame.display.set_mode(SIZE)
        self.loop = TableLoop(Session(None, Catalog.example()))
        self.app = Outputs(self.loop).start(App(self.loop, surface=self.window, language=lang),
                                            main_thread=True)
        self.lang, self.outdir, self.tag = lang, outdir, tag
        self.problems: list[str] = []
        self.shots = 0
        self.said: list[str] = []           # what the voice was given to say
        self.app.speak = lambda words, lang: self.said.append(words)

    # --- fingers ---------------------------------------------------------------------

    def widgets(self) -> dict:
        self.app.screen.draw(self.app.surface)
        return {w.name: w for w in self.app.screen._widgets}

    def has(self, name: str) -> bool:
        return name in self.widgets()

    def touch(self, name: str) -> bool:
        w = self.widgets().get(name)
        if w is None or not getattr(w, "tappable", w.on_tap is not None):
            return False
        x, y = w.rect.center
        for kind in (pygame.FINGERDOWN, pygame.FINGERUP):
            self.app.handle(pygame.event.Event(kind, x=(x + 0.25) / SIZE[0],
                                               y=(y + 0.25) / SIZE[1], touch_id=1,
                                               finger_id=1, dx=0.0, dy=0.0, pressure=1.0))
        self.loop.drain()
        self.app.process_updates()
        self.app.draw()
        pygame.display.flip()
        pygame.event.pump()
        self.check(name)
        return True

    def shot(self, what: str) -> None:
        self.app.screen.invalidate()
        self.app.screen.draw(self.app.surface)
        pygame.display.flip()
        self.shots += 1
        path = os.path.join(self.outdir, f"{self.tag}-{self.shots:03d}-{what}.png")
        pygame.image.save(pygame.display.get_surface(), path)

    # --- what must never happen again ---------------------------------------------------

    def check(self, after: str) -> None:
        ws = self.widgets()
        counted = [w for n, w in ws.items() if n.count(".") == 1
                   and n.split(".")[0] in PANELS and n.split(".")[1] in COUNTS]
        for n, badge in ws.items():
            if n.startswith("draw.") and not n.endswith(".why"):
                for w in counted:
                    if badge.rect.colliderect(w.rect):
                        self.problems.append(f"{self.tag} after {after}: {n} covers {w.name}")
        name = ws.get("act.name")
        for n, w in ws.items():
            if name is not None and (n.startswith("toast.") or n == "teach.box") \
                    and w.rect.colliderect(name.rect):
                self.problems.append(f"{self.tag} after {after}: {n} covers whose turn")
            if n.startswith("toast."):           # a message never takes a button's tap
                for b in ws.values():
                    if b.name.startswith(("ft.", "dlg.")) and b.name != "dlg.shade" \
                            and b.on_tap is not None and w.rect.colliderect(b.rect):
                        self.problems.append(f"{self.tag} after {after}: {n} covers {b.name}")
        self.check_hint(after, ws)
        if getattr(self.app.screen, "waiting_under_hint", None) and "teach.box" in ws \
                and "teach.waits" not in ws:
            self.problems.append(f"{self.tag} after {after}: a hint card hides what waits "
                                 "under it without saying so")
        if "why.panel" in ws and "ft.end" in ws and ws["why.panel"].rect.colliderect(
                ws["ft.end"].rect):
            self.problems.append(f"{self.tag} after {after}: the why? panel covers END TURN")

    def check_hint(self, after: str, ws: dict) -> None:
        """A hint about other players leaves their panels in sight (unless it talks about
        the active player too, or Cake Time's question leaves positions 1-3 too short:
        ``teaching_view._beside_its_players``)."""
        hint, box, game = self.app.teaching.current, ws.get("teach.box"), self.app.table.game
        if hint is None or box is None or game is None \
                or getattr(self.app.screen, "question_band", None) is not None:
            return
        names = {hint.values.get("player"), *(hint.values.get("drawers") or ())}
        seats = [i for i, p in enumerate(game.players) if p.name in names]
        if game.active in seats:
            return
        for seat in seats:
            panel = ws.get(f"p{seat}.bg")
            if panel is not None and box.rect.colliderect(panel.rect):
                self.problems.append(f"{self.tag} after {after}: the hint {hint.key} covers "
                                     f"the panel of {game.players[seat].name}")

    # --- the evening ---------------------------------------------------------------------

    def start(self, edition: str, expansion: str | None, players: int) -> None:
        self.shot("start")
        self.touch("nogame.teach")
        self.touch(f"wz.edition.{expansion or edition}")
        self.touch("wz.next")
        self.touch(f"wz.count.{players}")
        self.touch("wz.next")
        self.touch("wz.colour_names")
        self.through_wizard("wizard")

    def through_wizard(self, shots: str) -> None:
        """NEXT to the wizard's end (the first player starts, where asked), each step
        written as ``shots-STEP``."""
        step = 0
        while self.has("wz.next") and step < 20:
            step += 1
            self.shot(f"{shots}-{getattr(self.app.screen, 'step', step)}")
            if self.has("wz.start.0"):
                self.touch("wz.start.0")
            self.touch("wz.next")

    def read_hints(self) -> None:
        while self.app.teaching.current is not None and self.has("teach.ok"):
            hint = self.app.teaching.current
            waits = self.app.screen.waiting_for(hint) if hasattr(
                self.app.screen, "waiting_for") else None
            self.shot(f"hint-{hint.key}" + (f"-over-{waits}" if waits else ""))
            if waits and len(self.app.teaching.queue) == 1:
                then = self.app.screen.t(f"teach.then_{waits}")
                if not self.said or not self.said[-1].endswith(then):
                    self.problems.append(f"{self.tag}: the voice did not say {then!r} after "
                                         f"the hint {hint.key}: {self.said[-1:]}")
            self.touch("teach.ok")

    def play(self, max_turns: int = 200) -> None:
        for turn in range(max_turns):
            game = self.app.table.game
            if game is None or game.game_over:
                break
            self.read_hints()
            for name in ("ban.cake.done",):          # Cake Time: no cake on the deck's back
                self.touch(name)
            if turn in (0, 3) or game.token == "closed":
                self.shot(f"turn{game.turn}")
            self.upgrade_and_spend(turn)
            if turn == 2 and game.expansion is not None:
                self.cake_by_fix()
            for _ in range(3):                       # the oldest orders, as a family would
                me = self.app.table.game.active_player
                slot = next((i + 1 for i in reversed(range(4)) if me.queue[i]), None)
                if slot is None or not self.touch(f"act.pos{slot}"):
                    break
                if self.has("dlg.plain"):            # an order with and without a cake
                    self.touch("dlg.plain")
                self.read_hints()
                if self.app.table.game.game_over:
                    break
            if self.app.table.game.game_over:
                break
            self.touch("act.pos3")                   # (an empty position: an answer)
            self.read_hints()
            self.touch("ft.end")
            self.read_hints()
            if self.has("ban.draw.who") and turn % 4 == 1:
                self.shot(f"draws{self.app.table.game.turn}")
                self.touch("draw.act.why") or any(
                    self.touch(f"draw.p{s}.why") for s in range(4))
                self.shot(f"why{self.app.table.game.turn}")
                self.touch("ft.redo")                # a tap elsewhere closes it
            if self.has("ban.draw.who"):
                self.touch("ban.draw.who")
        self.read_hints()
        self.shot("end")
        if self.touch("end.story"):
            self.shot("story")


    def cake_rematch(self) -> None:
        """Cake Time, after the game: REMATCH asks who starts, then shows four tiles drawn
        anew (the box's rule), with the last game's four on offer; the new game starts."""
        before = [list(p.tiles) for p in self.app.table.game.players]
        self.touch("story.back")                     # (from the story, back to the end)
        if not self.touch("end.rematch"):
            self.problems.append(f"{self.tag}: no REMATCH on the end screen")
            return
        self.shot("rematch-start")
        self.touch("wz.start.1")
        self.touch("wz.next")
        if getattr(self.app.screen, "step", None) != "upgrades" or not self.has("wz.draw.new"):
            self.problems.append(f"{self.tag}: the rematch did not offer to draw the tiles")
            return
        self.shot("rematch-drawn-again")
        self.touch("wz.draw.same")
        self.shot("rematch-same-four")
        self.touch("wz.draw.new")
        self.through_wizard("rematch")
        game = self.app.table.game
        if game is None or game.game_over:
            self.problems.append(f"{self.tag}: the rematch did not start")
            return
        again = [h.key for h in self.app.teaching.queue
                 if h.key in ("goal", "turn", "button", "scoring")]
        if again:
            self.problems.append(f"{self.tag}: the rematch taught again what the family "
                                 f"read: {again}")
        self.shot(f"rematch-first-turn{game.turn}")
        self.read_hints()
        self.shot(f"rematch-turn{game.turn}")
        print(f"{self.tag}: rematch tiles {before[0]} -> {list(game.players[0].tiles)}")

    def one_tap_opens(self, button: str, dialog_part: str) -> bool:
        """A footer button opens its dialog at the first tap (nothing over it took it)."""
        if not self.touch(button):
            return False
        if not self.has(dialog_part):
            self.problems.append(f"{self.tag}: {button} did not open its dialog at one tap")
            return False
        return True

    def upgrade_and_spend(self, turn: int) -> None:
        """Now and then an upgrade (then its score's "why?") and a token spent."""
        if turn % 3 == 2 and self.one_tap_opens("ft.upgrade", "dlg.cancel"):
            tile = sorted(n for n in self.widgets() if n.startswith("dlg.up."))[0]
            self.touch(tile)
            if self.has("dlg.cancel"):
                self.problems.append(f"{self.tag}: the tile {tile} took more than one tap")
            if self.touch("act.score.why"):
                self.shot(f"why-score{self.app.table.game.turn}")
                self.touch("ft.redo")                # a tap elsewhere closes it
        game = self.app.table.game
        if turn % 4 == 3 and game.active_player is not None \
                and game.spendable_tokens(game.active_player) \
                and self.one_tap_opens("ft.spend", "dlg.ok"):
            self.touch("dlg.ok")

    def cake_by_fix(self) -> None:
        """Cake Time: a cake put right by hand (Fix, Cakes…), shown at once."""
        if not (self.touch("ft.fix") and self.touch("dlg.ok") and self.touch("fix.cakes")):
            self.problems.append(f"{self.tag}: no way to Fix, Cakes…")
            return
        spot = next((n for n, w in sorted(self.widgets().items())
                     if n.startswith("fix.cake.") and n.count(".") == 3 and w.on_tap), None)
        if spot is not None:
            self.touch(spot)
            if not self.has(spot + ".cake"):
                self.problems.append(f"{self.tag}: the cake on {spot} does not show")
        self.shot("fix-cakes")
        self.touch("fix.cakes.done")
        self.touch("fix.cancel")


def main(outdir: str) -> int:
    os.makedirs(outdir, exist_ok=True)
    pygame.display.init()
    pygame.font.init()
    problems: list[str] = []
    for lang in ("en", "ko"):
        for edition, expansion, players in BOXES:
            tag = f"{lang}-{expansion or edition}"
            family = Family(lang, outdir, tag)
            family.start(edition, expansion, players)
            family.play()
            game = family.app.table.game
            if game is None or not game.game_over:
                family.problems.append(f"{tag}: the game did not end")
            elif expansion == "cake_time":
                family.cake_rematch()
            print(f"{tag}: {family.shots} screenshots, turn "
                  f"{game.turn if game else '-'}, {len(family.problems)} problem(s)")
            problems += family.problems
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "first-evening"))
