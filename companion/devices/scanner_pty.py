"""A simulated card scanner: a QR/barcode module on the far end of a pty pair.

The demo's scanner is no fake reader class: :class:`SimulatedScanner` opens a
pseudo-terminal pair and behaves like a plain QR/barcode module on its end of
the USB cable (``[scanner] mode = "plain"``): for each card put under it, it
sends the printed code and a carriage return, and it ignores what the host
writes (the companion's ``?HELLO``). The companion reads :attr:`port` (the
pty's other end, a real tty) with its ordinary
:class:`~companion.devices.scanner.ScannerReader` through pyserial, exactly as
it reads ``/dev/ttyACM0`` at a table.
"""
from __future__ import annotations

import contextlib
import os
import pty
import tty

DEMO_CODES = r"EX[OW][0-9]{3}"
"""``[scanner] plain_pattern`` for the example catalog's printed codes (EXO001, EXW001)."""


class SimulatedScanner:
    """A QR module on a pty; :attr:`port` is the path the companion opens."""

    def __init__(self) -> None:
        self.master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)

    def show(self, code: str) -> None:
        """A card whose printed code is ``code`` is held under the scanner."""
        os.write(self.master, code.encode("ascii") + b"\r")

    def close(self) -> None:
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
