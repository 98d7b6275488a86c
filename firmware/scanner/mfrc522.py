"""A compact MFRC522 driver: just enough to read the UID of the card on the reader.

The MFRC522 (the blue "RC522" board) talks SPI. At the table it only has to
answer "which card was just put down?", so this driver does ISO 14443-A
WUPA, anticollision and SELECT over up to three cascade levels (4-byte
MIFARE Classic UIDs, 7-byte NTAG/Ultralight UIDs, 10-byte UIDs), then HLTA.
It does not authenticate or read card memory. With two cards in the field
at once the collision is not resolved: nothing is read until one is lifted.

Reader interface used by scanapp.ScannerApp (a PN532 driver could offer it too):
``model``, ``init() -> bool``, ``check() -> None or reason``, ``read_uid() -> bytes or None``.
"""
try:
    from micropython import const
except ImportError:  # CPython without the test shim
    def const(value):
        return value

# Registers (datasheet section 9)
_COMMAND = const(0x01)
_COM_IRQ = const(0x04)
_ERROR = const(0x06)
_FIFO_DATA = const(0x09)
_FIFO_LEVEL = const(0x0A)
_BIT_FRAMING = const(0x0D)
_MODE = const(0x11)
_TX_MODE = const(0x12)
_RX_MODE = const(0x13)
_TX_CONTROL = const(0x14)
_TX_ASK = const(0x15)
_MOD_WIDTH = const(0x24)
_RF_CFG = const(0x26)
_T_MODE = const(0x2A)
_T_PRESCALER = const(0x2B)
_T_RELOAD_H = const(0x2C)
_T_RELOAD_L = const(0x2D)
_VERSION = const(0x37)

# Commands
_CMD_IDLE = const(0x00)
_CMD_TRANSCEIVE = const(0x0C)
_CMD_SOFT_RESET = const(0x0F)

# Card (PICC) commands
PICC_REQA = const(0x26)
PICC_WUPA = const(0x52)
PICC_HLTA = const(0x50)
SEL_CL1 = const(0x93)
SEL_CL2 = const(0x95)
SEL_CL3 = const(0x97)
CASCADE_TAG = const(0x88)

_T_MODE_VALUE = const(0x80)   # timer starts after each transmission
# Timer: 13.56 MHz / (2 * 0xA9 + 1) = 40 kHz, reload 400 -> a card has 10 ms to answer.

KNOWN_VERSIONS = {0x91: "v1.0", 0x92: "v2.0", 0x88: "FM17522", 0x12: "clone", 0xB2: "FM17522"}


def crc_a(data):
    """ISO 14443-A CRC (CRC_A) of ``data``, as the two bytes to append (LSB first)."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes((crc & 0xFF, crc >> 8))


class MFRC522:
    """One MFRC522 on an SPI bus. ``cs`` and ``rst`` are output Pins (rst optional)."""

    model = "MFRC522"

    def __init__(self, spi, cs, rst=None, sleep_ms=None, wait_loops=2000):
        self._spi = spi
        self._cs = cs
        self._rst = rst
        self._sleep_ms = sleep_ms
        self._wait_loops = wait_loops
        self._one = bytearray(1)
        self._two = bytearray(2)
        self.version = 0
        self.stalled = False      # a transceive never finished: the chip is stuck
        cs.value(1)

    # -- register access: address byte (reg << 1), bit 7 set for a read
    # (preallocated buffers: no garbage per register access)
    def _write(self, reg, value):
        buf = self._two
        buf[0] = (reg << 1) & 0x7E
        buf[1] = value
        self._cs.value(0)
        self._spi.write(buf)
        self._cs.value(1)

    def _read(self, reg):
        buf = self._one
        buf[0] = ((reg << 1) & 0x7E) | 0x80
        self._cs.value(0)
        self._spi.write(buf)
        self._spi.readinto(buf, 0x00)
        self._cs.value(1)
        return buf[0]

    def _write_fifo(self, data):
        buf = self._one
        buf[0] = (_FIFO_DATA << 1) & 0x7E
        self._cs.value(0)
        self._spi.write(buf)
        self._spi.write(data)
        self._cs.value(1)

    def _pause(self, ms):
        if self._sleep_ms is not None:
            self._sleep_ms(ms)

    # -- health
    def init(self):
        """Reset and configure the chip, antenna on. True if it answers properly."""
        self.stalled = False
        if self._rst is not None:
            self._rst.value(0)
            self._pause(2)
            self._rst.value(1)
        self._pause(50)
        self._write(_COMMAND, _CMD_SOFT_RESET)
        self._pause(50)
        self.version = self._read(_VERSION)
        if self.version in (0x00, 0xFF):
            return False
        self._write(_TX_MODE, 0x00)        # no hardware CRC: we add CRC_A ourselves
        self._write(_RX_MODE, 0x00)
        self._write(_MOD_WIDTH, 0x26)
        self._write(_T_MODE, _T_MODE_VALUE)
        self._write(_T_PRESCALER, 0xA9)
        self._write(_T_RELOAD_H, 0x01)
        self._write(_T_RELOAD_L, 0x90)
        self._write(_TX_ASK, 0x40)         # 100 % ASK modulation
        self._write(_MODE, 0x3D)           # CRC preset 0x6363
        self._write(_RF_CFG, 0x70)         # receiver gain 48 dB: reads through sleeves
        self._write(_TX_CONTROL, self._read(_TX_CONTROL) | 0x03)   # antenna on
        return self.check() is None

    def check(self):
        """None if the chip answers and keeps its settings, else a short reason."""
        stalled, self.stalled = self.stalled, False
        version = self._read(_VERSION)
        if version == 0x00 or version == 0xFF:
            return "no_answer"
        if self._read(_T_MODE) != _T_MODE_VALUE or (self._read(_TX_CONTROL) & 0x03) != 0x03:
            return "config_lost"       # the chip reset itself (brown-out, loose RST)
        if stalled:
            return "timeout"           # answers, but a command never finished
        return None

    # -- talking to cards
    def _transceive(self, data, tx_bits=0):
        """Send ``data`` to the card, return its answer (bytes) or None."""
        self._write(_COMMAND, _CMD_IDLE)
        self._write(_COM_IRQ, 0x7F)                # clear all interrupt flags
        self._write(_FIFO_LEVEL, 0x80)             # flush the FIFO
        self._write_fifo(data)
        self._write(_BIT_FRAMING, tx_bits)
        self._write(_COMMAND, _CMD_TRANSCEIVE)
        self._write(_BIT_FRAMING, 0x80 | tx_bits)  # StartSend
        for _ in range(self._wait_loops):
            irq = self._read(_COM_IRQ)
            if irq & 0x30:                         # RxIRq or IdleIRq: an answer
                break
            if irq & 0x01:                         # TimerIRq: nobody answered
                return None
        else:
            self.stalled = True
            return None
        if self._read(_ERROR) & 0x1B:              # overflow, collision, parity, protocol
            return None
        count = self._read(_FIFO_LEVEL) & 0x7F
        if count == 0:
            return None
        return bytes([self._read(_FIFO_DATA) for _ in range(count)])

    def _anticollision(self, sel):
        answer = self._transceive(bytes((sel, 0x20)))
        if answer is None or len(answer) != 5:
            return None
        if answer[0] ^ answer[1] ^ answer[2] ^ answer[3] != answer[4]:
            return None                            # BCC wrong: damaged
        return answer

    def _select(self, sel, part):
        frame = bytes((sel, 0x70)) + part
        answer = self._transceive(frame + crc_a(frame))
        if answer is None or len(answer) != 3 or crc_a(answer[:1]) != answer[1:]:
            return None
        return answer[0]                           # SAK

    def _halt(self):
        frame = bytes((PICC_HLTA, 0x00))
        self._transceive(frame + crc_a(frame))     # a halted card stays silent

    def read_uid(self):
        """The UID (4, 7 or 10 bytes) of the card in the field, or None.

        WUPA also wakes a card halted by the previous read, so a card left on
        the reader answers every poll; the caller debounces.
        """
        if self._transceive(bytes((PICC_WUPA,)), 7) is None:
            return None
        uid = bytearray()
        for sel in (SEL_CL1, SEL_CL2, SEL_CL3):
            part = self._anticollision(sel)
            if part is None:
                return None
            sak = self._select(sel, part)
            if sak is None:
                return None
            if not sak & 0x04:                     # cascade bit clear: UID complete
                uid.extend(part[0:4])
                self._halt()
                return bytes(uid)
            if part[0] != CASCADE_TAG:
                return None
            uid.extend(part[1:4])
        return None
