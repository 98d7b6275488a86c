"""Protocol v2, the firmware half: build lines for the host, read its requests.

Every line the scanner sends looks like ``$TYPE,SEQ,FIELD...*CCCC`` + LF, where
CCCC is the CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of the text between
``$`` and ``*`` in four uppercase hex digits. See firmware/PROTOCOL.md. Pure
MicroPython: no hardware, no clock, so the host tests run it under CPython too.
"""

PROTOCOL_VERSION = 2
MAX_LINE = 80          # bytes from '$' to the CRC digits, LF excluded
SEQ_MAX = 65535        # 0 is the boot HELLO; after 65535 comes 1
MAX_REQUEST = 32       # longest host request line we keep, e.g. "?HELLO"
HELLO_REQUEST = "?HELLO"


def crc16(data):
    """CRC-16/CCITT-FALSE over bytes: poly 0x1021, init 0xFFFF, no reflection, no XOR out."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)) & 0xFFFF
    return crc


def clean_field(text, limit=24):
    """Make any text safe as a field: printable ASCII, no '$' '*' ',', short."""
    out = []
    for ch in str(text)[:limit]:
        if " " <= ch <= "~" and ch not in "$*,":
            out.append(ch)
        else:
            out.append("_")
    return "".join(out)


def frame(kind, seq, fields=()):
    """One protocol line, LF included. Fields must already be clean.

    If the line would exceed MAX_LINE the last field is shortened: the
    firmware never raises over an over-chatty error detail.
    """
    body = kind + "," + str(seq)
    for field in fields:
        body = body + "," + field
    room = MAX_LINE - 6          # '$', '*', four CRC digits
    if len(body) > room:
        body = body[:room]
    return "$%s*%04X\n" % (body, crc16(body.encode()))


def hex_uid(uid):
    """A UID (bytes) as the uppercase hex the SCAN line carries."""
    return "".join(["%02X" % b for b in uid])


class Sequence:
    """The sequence counter: 0 for the first line after boot, then 1..65535, 1..."""

    def __init__(self):
        self._next = 0

    def take(self):
        """The number for the line about to be sent."""
        seq = self._next
        self._next = 1 if seq >= SEQ_MAX else seq + 1
        return seq


class RequestReader:
    """Collects characters from the host into request lines.

    A request ends at CR or LF. Lines longer than MAX_REQUEST are dropped
    (counted in ``overflows``) up to the next line end.
    """

    def __init__(self):
        self._chars = []
        self._skipping = False
        self.overflows = 0

    def feed(self, text):
        """Take received characters; return the complete, stripped lines."""
        lines = []
        for ch in text:
            if ch == "\n" or ch == "\r":
                if not self._skipping:
                    line = "".join(self._chars).strip()
                    if line:
                        lines.append(line)
                self._chars = []
                self._skipping = False
            elif not self._skipping:
                if len(self._chars) >= MAX_REQUEST:
                    self._chars = []
                    self._skipping = True
                    self.overflows += 1
                else:
                    self._chars.append(ch)
        return lines
