"""A simulated MFRC522 reader chip and ISO 14443-A tags, behind the fake ``machine`` SPI.

Enough of the chip for the firmware driver: SPI register access (address
byte ``reg << 1``, bit 7 = read), the FIFO, ComIrqReg/ErrorReg, the
Transceive command started by StartSend, SoftReset, the RST pin, VersionReg.
Tags follow the ISO 14443-3 state machine (IDLE, READY, ACTIVE, HALT) with
REQA/WUPA, anticollision and SELECT over 1-3 cascade levels, and HLTA.

Faults tests can inject: ``unplug()`` (MISO reads 0x00 or 0xFF, writes lost),
``plug_in()`` / ``brownout()`` (registers back to power-on defaults),
``stuck = True`` (a transceive never finishes).
"""
import machine

COMMAND, COM_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL, CONTROL, BIT_FRAMING = (
    0x01, 0x04, 0x06, 0x09, 0x0A, 0x0C, 0x0D)
TX_CONTROL, VERSION = 0x14, 0x37
CMD_IDLE, CMD_TRANSCEIVE, CMD_SOFT_RESET = 0x00, 0x0C, 0x0F

# Power-on values of the registers the driver looks at (datasheet table 20 ff.)
DEFAULTS = {COMMAND: 0x20, COM_IRQ: 0x14, CONTROL: 0x10, TX_CONTROL: 0x80,
            0x11: 0x3F, 0x15: 0x00, 0x24: 0x26, 0x26: 0x48, 0x2A: 0x00, 0x2B: 0x00}


def iso_crc_a(data):
    """CRC_A written bit by bit (reflected poly 0x8408, init 0x6363), LSB first."""
    crc = 0x6363
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return bytes([crc & 0xFF, crc >> 8])


def bcc(four):
    return four[0] ^ four[1] ^ four[2] ^ four[3]


class Tag:
    """An NFC tag: a MIFARE Classic (4-byte UID) or NTAG21x (7-byte UID) sticker."""

    def __init__(self, uid, atqa=None, sak=None):
        if len(uid) not in (4, 7, 10):
            raise ValueError("UIDs are 4, 7 or 10 bytes")
        self.uid = bytes(uid)
        self.atqa = atqa or (b"\x04\x00" if len(uid) == 4 else b"\x44\x00")
        self.sak = sak if sak is not None else (0x08 if len(uid) == 4 else 0x00)
        self.state = "IDLE"
        self.level = 1
        self.selects = 0          # completed selections, i.e. UID reads

    @classmethod
    def from_hex(cls, text, **kw):
        return cls(bytes.fromhex(text), **kw)

    def levels(self):
        """The 4 bytes the tag sends at each cascade level."""
        u = self.uid
        if len(u) == 4:
            return [u]
        if len(u) == 7:
            return [b"\x88" + u[0:3], u[3:7]]
        return [b"\x88" + u[0:3], b"\x88" + u[3:6], u[6:10]]

    def leave_field(self):
        self.state = "IDLE"      # unpowered: starts over next time

    def receive(self, data, tx_bits):
        """One frame from the reader; return the answer bytes or None (silence)."""
        if tx_bits == 7 and len(data) == 1:
            return self._short_frame(data[0])
        levels = self.levels()
        if (self.state == "READY" and len(data) == 2 and data[1] == 0x20
                and data[0] == (0x93, 0x95, 0x97)[self.level - 1]):
            part = levels[self.level - 1]
            return part + bytes([bcc(part)])
        if self.state == "READY" and len(data) == 9 and data[1] == 0x70:
            part = levels[self.level - 1]
            if (data[0] == (0x93, 0x95, 0x97)[self.level - 1] and data[2:6] == part
                    and data[6] == bcc(part) and data[7:9] == iso_crc_a(data[:7])):
                if self.level < len(levels):
                    self.level += 1
                    sak = 0x04
                else:
                    self.state = "ACTIVE"
                    self.selects += 1
                    sak = self.sak
                return bytes([sak]) + iso_crc_a(bytes([sak]))
        if self.state == "ACTIVE" and data == b"\x50\x00" + iso_crc_a(b"\x50\x00"):
            self.state = "HALT"
            return None
        # Anything unexpected: back to IDLE (or HALT), silently.
        self.state = "HALT" if self.state == "HALT" else "IDLE"
        return None

    def _short_frame(self, cmd):
        woken = ("IDLE",) if cmd == 0x26 else ("IDLE", "HALT") if cmd == 0x52 else ()
        if self.state in woken:
            self.state = "READY"
            self.level = 1
            return self.atqa
        if self.state != "HALT":
            self.state = "IDLE"
        return None


class SimMFRC522:
    """The reader chip. Attach it to a fake SPI bus and chip-select pin."""

    def __init__(self, version=0x92):
        self.version = version
        self.field = []           # tags currently on the antenna
        self.connected = True
        self.dead_value = 0x00
        self.stuck = False
        self.transceives = 0
        self._selected = False
        self._addr = None
        self._power_on()

    def attach(self, bus=0, cs=17, rst=None):
        """Wire the chip: SPI bus id, chip-select pin id, optional reset pin id."""
        machine.attach_spi_device(bus, self)
        machine.watch_pin(cs, self._chip_select)
        if rst is not None:
            machine.watch_pin(rst, self._reset_pin)
        return self

    # -- the test's hands
    def place(self, tag):
        if tag not in self.field:
            self.field.append(tag)
        return tag

    def remove(self, tag):
        if tag in self.field:
            self.field.remove(tag)
            tag.leave_field()

    def unplug(self, dead_value=0x00):
        """The reader's wires came loose: MISO reads ``dead_value``."""
        self.connected = False
        self.dead_value = dead_value

    def plug_in(self):
        """Wires back: the chip powers up again with default registers."""
        self.connected = True
        self._power_on()

    def brownout(self):
        """The chip reset itself: still answers, but lost its configuration."""
        self._power_on()

    @property
    def antenna_on(self):
        return self.regs[TX_CONTROL] & 0x03 == 0x03

    # -- SPI side
    def _power_on(self):
        self.regs = [0] * 64
        for reg, value in DEFAULTS.items():
            self.regs[reg] = value
        self.regs[VERSION] = self.version
        self.fifo = []
        for tag in self.field:
            tag.leave_field()

    def _chip_select(self, level):
        self._selected = level == 0
        self._addr = None

    def _reset_pin(self, level):
        if level == 1 and self.connected:
            self._power_on()

    def exchange(self, byte):
        if not self.connected:
            return self.dead_value
        if not self._selected:
            return 0xFF
        if self._addr is None:
            self._read_mode = bool(byte & 0x80)
            self._addr = (byte >> 1) & 0x3F
            return 0x00
        if self._read_mode:
            value = self._read(self._addr)
            self._addr = (byte >> 1) & 0x3F      # MOSI carries the next address
            return value
        self._write(self._addr, byte)
        return 0x00

    def _read(self, reg):
        if reg == FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0x00
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg, value):
        if reg == COMMAND:
            if value & 0x0F == CMD_SOFT_RESET:
                self._power_on()
                return
            self.regs[COMMAND] = value
        elif reg == COM_IRQ:
            if value & 0x80:
                self.regs[COM_IRQ] |= value & 0x7F
            else:
                self.regs[COM_IRQ] &= ~value & 0x7F
        elif reg == FIFO_LEVEL:
            if value & 0x80:
                self.fifo = []
        elif reg == FIFO_DATA:
            if len(self.fifo) < 64:
                self.fifo.append(value)
        elif reg == BIT_FRAMING:
            self.regs[BIT_FRAMING] = value & 0x7F
            if value & 0x80 and self.regs[COMMAND] & 0x0F == CMD_TRANSCEIVE:
                self._transceive(value & 0x07)
        elif reg != VERSION:
            self.regs[reg] = value

    def _transceive(self, tx_bits):
        self.transceives += 1
        data = bytes(self.fifo)
        self.fifo = []
        if self.stuck:
            return                                   # no interrupt, ever
        answers = []
        if self.antenna_on:
            for tag in list(self.field):
                answer = tag.receive(data, tx_bits)
                if answer is not None:
                    answers.append(answer)
        self.regs[ERROR] = 0
        if not answers:
            self.regs[COM_IRQ] |= 0x01               # TimerIRq: nobody answered
            return
        if any(answer != answers[0] for answer in answers):
            self.regs[ERROR] |= 0x08                 # CollErr
        self.fifo = list(answers[0])
        self.regs[COM_IRQ] |= 0x20                   # RxIRq
