"""Stand-ins for hardware the tests cannot have.

``micropython/`` holds modules that imitate the MicroPython runtime on the
scanner box's Raspberry Pi Pico (``machine``, ``micropython``, ``utime``)
plus a simulated MFRC522 reader with NFC tags (``sim_mfrc522``). Tests put
that folder and ``firmware/scanner`` on ``sys.path`` so the firmware modules
import exactly as they do on the Pico, but run under CPython.
"""
from pathlib import Path

MICROPYTHON_DIR = Path(__file__).resolve().parent / "micropython"
