"""What every output sees after one update: a frozen snapshot the table loop publishes.

The loop works this out once per update, on its own thread, from what it owns (the
session, its version, its pause): the table, the seat colours chosen at setup, the
draw prompt (what is due and which seats dismissed it, ``draw_prompt.Draws``), the
devices' last reports, whether the table is paused and the finished game's BG Stats
link (made on a worker, ``play_link.PlayLink``; kept only for the table it was made
for). Outputs read the snapshot and the update's happenings, never the session
(docs/architecture.md, "The loop and its outputs").
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .catalog import Catalog
from .draw_prompt import Draws
from .events import TableVersion
from .rules.happenings import DeviceStatusChanged, Happening, TablePaused, TableResumed
from .rules.state import Table


@dataclass(frozen=True)
class Snapshot:
    """The table after one update, as every output shows it."""
    table: Table
    version: TableVersion
    game_id: int | None = None             # the journal's number of the game, if it has one
    seat_colours: tuple[str, ...] = ()     # colour names chosen at setup (seat order), if any
    draws: Draws = field(default_factory=Draws)
    devices: tuple[tuple[str, str], ...] = ()   # (device, status) as each last reported
    paused: bool = False                   # another program holds the journal's lock
    catalog: Catalog | None = None         # the cards known (a new one replaces it whole)
    play_link: str | None = None           # the finished game's BG Stats link, once made

    def device(self, name: str) -> str | None:
        """``name``'s last reported status, or None if it has reported none."""
        return dict(self.devices).get(name)

    def after(self, table: Table, version: TableVersion, happened: tuple[Happening, ...],
              game_id: int | None, seat_colours: tuple[str, ...],
              catalog: Catalog | None = None, play_link: str | None = None) -> Snapshot:
        """The next snapshot, once ``happened`` made ``table`` (``play_link``: the BG
        Stats link made for this very table, if any)."""
        devices, paused = dict(self.devices), self.paused
        for h in happened:
            if isinstance(h, DeviceStatusChanged):
                devices[h.device] = h.status
            elif isinstance(h, TablePaused):
                paused = True
            elif isinstance(h, TableResumed):
                paused = False
        draws = self.draws.after(table, happened, unchanged=table is self.table)
        return Snapshot(table, version, game_id, seat_colours, draws, tuple(devices.items()),
                        paused, catalog, play_link)
