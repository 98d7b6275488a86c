"""Fake of MicroPython's ``machine`` module: Pin and SPI with attachable devices.

Pin levels are kept per pin id, so two Pin objects for GP17 see the same
level, and devices can watch a pin (a chip select, a reset line). An SPI bus
passes every byte to the device attached to its bus id, which answers one
byte per byte clocked, as a real SPI slave does.
"""

_levels = {}          # pin id -> 0/1
_watchers = {}        # pin id -> [callback(level)]
_spi_devices = {}     # bus id -> device with exchange(byte) -> byte
pins = {}             # pin id -> the last Pin object made for it


def reset_fakes():
    """Forget all pins and devices (between tests)."""
    _levels.clear()
    _watchers.clear()
    _spi_devices.clear()
    pins.clear()


def watch_pin(pin_id, callback):
    """Call ``callback(level)`` whenever the pin's level changes."""
    _watchers.setdefault(pin_id, []).append(callback)


def attach_spi_device(bus_id, device):
    """Connect a simulated slave to SPI bus ``bus_id``."""
    _spi_devices[bus_id] = device


def level(pin_id):
    return _levels.get(pin_id, 0)


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, pin_id, mode=-1, pull=None, value=None):
        if not isinstance(pin_id, (int, str)):
            raise TypeError("pin id must be int or str")
        if isinstance(pin_id, str) and pin_id != "LED":
            raise ValueError(f"unknown pin name {pin_id!r}")
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self.history = []
        pins[pin_id] = self
        if value is not None:
            self.value(value)

    def value(self, new=None):
        if new is None:
            return level(self.id)
        new = 1 if new else 0
        self.history.append(new)
        if _levels.get(self.id) != new:
            _levels[self.id] = new
            for callback in _watchers.get(self.id, []):
                callback(new)
        return None

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class SPI:
    MSB = 0
    LSB = 1

    def __init__(self, bus_id, baudrate=1000000, polarity=0, phase=0, bits=8,
                 firstbit=0, sck=None, mosi=None, miso=None):
        self.id = bus_id
        self.baudrate = baudrate
        self.polarity = polarity
        self.phase = phase
        self.pins = (sck, mosi, miso)

    def _xfer(self, byte):
        device = _spi_devices.get(self.id)
        if device is None:
            return 0xFF                       # nothing on the bus: MISO floats high
        return device.exchange(byte) & 0xFF

    def write(self, buf):
        for byte in buf:
            self._xfer(byte)

    def read(self, nbytes, write=0x00):
        return bytes(self._xfer(write) for _ in range(nbytes))

    def readinto(self, buf, write=0x00):
        for i in range(len(buf)):
            buf[i] = self._xfer(write)

    def write_readinto(self, write_buf, read_buf):
        for i, byte in enumerate(write_buf):
            read_buf[i] = self._xfer(byte)


def unique_id():
    return b"\xe6\x61\x41\x04\x03\x2f\x2b\x28"
