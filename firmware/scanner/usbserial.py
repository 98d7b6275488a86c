"""The USB serial link to the host: lines out on stdout, requests in from stdin.

On the Pico, MicroPython's stdin/stdout are the USB CDC port the Raspberry Pi
opens as /dev/ttyACM0. Reading must never block the scan loop, so stdin is
polled with a zero timeout before each character is read.
"""


class UsbSerial:
    """Non-blocking reads and plain writes on a pair of streams.

    ``poller`` is a ``select.poll()`` object with ``stdin`` registered for
    reading (see ``open_usb``); tests pass fakes for all three.
    """

    def __init__(self, stdin, stdout, poller, max_chars=64):
        self._stdin = stdin
        self._stdout = stdout
        self._poller = poller
        self._max_chars = max_chars

    def read_available(self):
        """The characters waiting on stdin (at most ``max_chars``), "" if none."""
        chars = []
        while len(chars) < self._max_chars and self._poller.poll(0):
            ch = self._stdin.read(1)
            if not ch:
                break
            if isinstance(ch, bytes):
                ch = chr(ch[0])
            chars.append(ch)
        return "".join(chars)

    def write(self, line):
        """Send one finished protocol line."""
        self._stdout.write(line)


def open_usb():
    """The real USB link: MicroPython's sys.stdin/sys.stdout."""
    import sys
    import select
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    return UsbSerial(sys.stdin, sys.stdout, poller)
