"""Runs at power-up on the Pico: wire the real parts to the scanner logic.

Everything that decides anything lives in scanapp.py; this file only builds
the SPI bus, the MFRC522, the LED and the USB link, then loops forever.
Press Ctrl-C in mpremote/Thonny to stop it and get the REPL back.
"""
import time

if not hasattr(time, "ticks_ms"):   # CPython running the host tests: fake clock
    import utime as time

import machine

import scanconf
from mfrc522 import MFRC522
from scanapp import ScannerApp, serve
from usbserial import open_usb


def make_led():
    """The on-board LED as an output Pin."""
    try:
        return machine.Pin(scanconf.LED_PIN, machine.Pin.OUT)
    except Exception:                # older firmware: no "LED" name
        return machine.Pin(scanconf.LED_FALLBACK_PIN, machine.Pin.OUT)


def make_reader():
    """The MFRC522 on SPI0 with its chip-select and reset pins."""
    spi = machine.SPI(scanconf.SPI_ID, baudrate=scanconf.SPI_BAUDRATE, polarity=0, phase=0,
                      sck=machine.Pin(scanconf.PIN_SCK), mosi=machine.Pin(scanconf.PIN_MOSI),
                      miso=machine.Pin(scanconf.PIN_MISO))
    cs = machine.Pin(scanconf.PIN_CS, machine.Pin.OUT, value=1)
    rst = machine.Pin(scanconf.PIN_RST, machine.Pin.OUT, value=1)
    return MFRC522(spi, cs, rst, sleep_ms=time.sleep_ms)


def build(port=None):
    """The scanner app and its link; ``port`` defaults to USB stdin/stdout."""
    if port is None:
        port = open_usb()
    app = ScannerApp(make_reader(), port.write, time, led=make_led(),
                     poll_ms=scanconf.POLL_MS, heartbeat_ms=scanconf.HEARTBEAT_MS,
                     health_ms=scanconf.HEALTH_MS, retry_ms=scanconf.RETRY_MS,
                     release_ms=scanconf.RELEASE_MS)
    return app, port


def run(port=None, steps=None):
    """Build and serve; ``steps`` limits the loop (tests), None = forever."""
    app, port = build(port)
    serve(app, port, time, scanconf.LOOP_IDLE_MS, steps)
    return app


if __name__ == "__main__":
    run()
