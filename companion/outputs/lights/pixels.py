"""The LED pixel strip: whole frames of colors out, one write per change.

A *frame* is a sequence of ``(r, g, b)`` tuples, 0-255 each, one per pixel of
the whole strip, position 0 being the first LED on the data line (the one
nearest the Pi). Light patterns build frames; a ``PixelStrip`` shows them:

* ``NeoPixelStrip`` drives a WS2812B strip through Adafruit's
  ``adafruit-circuitpython-neopixel`` library (on top of Blinka). ``neopixel``
  and ``board`` are imported only when one is created, so importing this
  module never loads Blinka.
* ``SimulatedStrip`` records every frame it is shown, for the demo and tests.

Both apply the configured brightness cap the same way (each channel multiplied
and truncated, as the neopixel library does) and skip a frame identical to the
last one shown; ``writes`` counts the frames actually written.

Each seat owns a run of LEDs, described by a ``Segment``; ``map_segments``
places per-seat color lists onto the strip, ``validate_segments`` checks a
layout with errors an installer can act on, and ``contiguous_segments`` builds
the usual layout of equal segments side by side.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from companion.appliance.config import PixelsSettings

Color = tuple[int, int, int]
Frame = Sequence[Color]

OFF: Color = (0, 0, 0)

_PIXELS = PixelsSettings()          # the config schema's defaults ([pixels])
#: GPIO10 (SPI0 MOSI): works without root once SPI is enabled (raspi-config).
#: "D18"/"D12" (PWM) and "D21" (PCM) also work but need root. See hardware/leds.md.
DEFAULT_PIN = _PIXELS.pin


class PixelStripError(RuntimeError):
    """The LED strip cannot be driven (no Pi, missing library, bad pin...)."""


def _check_brightness(brightness: float) -> float:
    value = float(brightness)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"pixel brightness must be between 0 and 1, got {brightness!r}")
    return value


def _check_color(color: Sequence[int], where: str) -> Color:
    try:
        r, g, b = color
    except (TypeError, ValueError):
        raise ValueError(f"{where}: a color is an (r, g, b) triple, got {color!r}") from None
    for channel in (r, g, b):
        if isinstance(channel, bool) or not isinstance(channel, int) or not 0 <= channel <= 255:
            raise ValueError(f"{where}: color channels are integers 0-255, got {color!r}")
    return (r, g, b)


def normalize_frame(frame: Frame, pixel_count: int) -> tuple[Color, ...]:
    """``frame`` as a tuple of validated ``(r, g, b)`` tuples of length ``pixel_count``."""
    colors = tuple(frame)
    if len(colors) != pixel_count:
        raise ValueError(f"frame has {len(colors)} colors but the strip has {pixel_count} pixels")
    return tuple(_check_color(c, f"pixel {i}") for i, c in enumerate(colors))


def scale_frame(frame: Iterable[Color], brightness: float) -> tuple[Color, ...]:
    """Each channel times ``brightness``, truncated: what the LEDs receive."""
    return tuple((int(r * brightness), int(g * brightness), int(b * brightness))
                 for r, g, b in frame)


class PixelStrip(ABC):
    """A strip of ``pixel_count`` RGB pixels shown one whole frame at a time.

    Subclasses implement ``_write`` (send an already validated frame) and may
    override ``_release``. ``writes`` counts frames actually written.
    """

    def __init__(self, pixel_count: int, brightness: float = 1.0) -> None:
        if isinstance(pixel_count, bool) or not isinstance(pixel_count, int) or pixel_count < 1:
            raise ValueError(f"a pixel strip needs at least one pixel, got {pixel_count!r}")
        self.pixel_count = pixel_count
        self.brightness = _check_brightness(brightness)
        self.writes = 0
        self._last: tuple[Color, ...] | None = None
        self._closed = False

    def show(self, frame: Frame) -> bool:
        """Show ``frame``; return False (and write nothing) if it is unchanged."""
        if self._closed:
            raise PixelStripError("the pixel strip is closed")
        colors = normalize_frame(frame, self.pixel_count)
        if colors == self._last:
            return False
        self._write(colors)
        self._last = colors
        self.writes += 1
        return True

    def set_brightness(self, brightness: float) -> None:
        """Change the brightness factor; the next frame is written even if its
        colours are unchanged, so the new level shows at once."""
        value = _check_brightness(brightness)
        if value != self.brightness:
            self.brightness = value
            self._last = None

    def blank(self) -> tuple[Color, ...]:
        """An all-off frame of the right length."""
        return (OFF,) * self.pixel_count

    def close(self) -> None:
        """Turn every pixel off and release the hardware. Idempotent."""
        if self._closed:
            return
        try:
            self.show(self.blank())
        finally:
            self._closed = True
            self._release()

    def __enter__(self) -> PixelStrip:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @abstractmethod
    def _write(self, colors: tuple[Color, ...]) -> None:
        """Send one validated, unscaled frame to the pixels."""

    def _release(self) -> None:  # noqa: B027 - an optional hook: most strips hold nothing
        """Free hardware resources; nothing to do by default."""


FRAMES_KEPT = 100


class SimulatedStrip(PixelStrip):
    """Records frames instead of lighting LEDs.

    ``frames`` holds the written frames after brightness scaling, i.e. the
    values a real strip would receive (in RGB order): the latest ``FRAMES_KEPT`` at
    least (at most twice as many); ``writes`` counts them all.
    """

    def __init__(self, pixel_count: int, brightness: float = 1.0) -> None:
        super().__init__(pixel_count, brightness)
        self.frames: list[tuple[Color, ...]] = []
        self._shared: dict[Color, Color] = {}

    @property
    def current(self) -> tuple[Color, ...]:
        """What the strip shows now (scaled); all off before the first frame."""
        return self.frames[-1] if self.frames else self.blank()

    def _write(self, colors: tuple[Color, ...]) -> None:
        # each colour kept once, shared by every frame that shows it (a frame of new
        # (r, g, b) tuples each time held about 0.7 MB at 200 frames of a 4-seat strip:
        # issue 19's memory, measured with this strip)
        shared = self._shared
        if len(shared) > 4096:
            shared.clear()
        self.frames.append(tuple(shared.setdefault(c, c)
                                 for c in scale_frame(colors, self.brightness)))
        if len(self.frames) > 2 * FRAMES_KEPT:      # a simulated table runs for days too
            del self.frames[:-FRAMES_KEPT]


class NeoPixelStrip(PixelStrip):
    """A WS2812B strip driven by ``neopixel.NeoPixel`` on a Raspberry Pi.

    ``pin`` is a ``board`` pin name: "D10" (SPI MOSI, no root needed with SPI
    enabled) by default, or "D18" (PWM, run as root). ``brightness`` is the
    cap from config, handed to the library's own brightness scaling.
    """

    def __init__(self, pixel_count: int, pin: str = DEFAULT_PIN,
                 brightness: float = _PIXELS.brightness) -> None:
        super().__init__(pixel_count, brightness)
        self.pin_name = pin
        try:
            import board
            import neopixel
        except (ImportError, NotImplementedError, RuntimeError) as exc:
            raise PixelStripError(
                f"cannot drive the LED strip here ({type(exc).__name__}: {exc}); on a Raspberry "
                "Pi install adafruit-circuitpython-neopixel and rpi-ws281x, or use the simulated "
                "strip") from exc
        board_pin = getattr(board, pin, None)
        if board_pin is None:
            raise PixelStripError(
                f"this board ({getattr(board, 'board_id', 'unknown')}) has no pin named {pin!r}; "
                "the LED data line is normally on 'D10' (GPIO10, SPI MOSI) or 'D18' (GPIO18, "
                "PWM, needs root)")
        self._pixels = neopixel.NeoPixel(board_pin, pixel_count, brightness=self.brightness,
                                         auto_write=False, pixel_order=neopixel.GRB)

    def set_brightness(self, brightness: float) -> None:
        super().set_brightness(brightness)
        self._pixels.brightness = self.brightness     # the library scales each write

    def _write(self, colors: tuple[Color, ...]) -> None:
        self._pixels[:] = list(colors)
        self._pixels.show()

    def _release(self) -> None:
        self._pixels.deinit()


# --- seat segments -----------------------------------------------------------

@dataclass(frozen=True)
class Segment:
    """The run of LEDs in front of one seat.

    ``start`` is the strip position of the segment's lowest-numbered LED and
    ``length`` its LED count. A seat's colors are listed in the seat's own
    order (e.g. left to right as the player sees them); set ``reversed`` when
    the strip runs the other way past that seat, so the first color lands on
    the segment's last LED.
    """
    seat: int
    start: int
    length: int
    reversed: bool = False

    @property
    def end(self) -> int:
        """One past the segment's highest strip position."""
        return self.start + self.length

    def positions(self) -> list[int]:
        """Strip positions for the seat's colors, first color first."""
        span = list(range(self.start, self.end))
        return span[::-1] if self.reversed else span

    def describe(self) -> str:
        return f"seat {self.seat} (start {self.start}, length {self.length})"


def contiguous_segments(seat_count: int, length: int, first_pixel: int = 0,
                        reversed: bool = False) -> list[Segment]:
    """Equal back-to-back segments: seat 0 from ``first_pixel``, then seat 1...

    The simple layout of the ``[pixels]`` config (segment_length, first_pixel,
    reverse); validate the result against the strip with ``validate_segments``.
    """
    return [Segment(seat, first_pixel + seat * length, length, reversed)
            for seat in range(seat_count)]


def _leds(start: int, end: int) -> str:
    """'LEDs 12-15', or 'LED 15' for a single one (``end`` exclusive)."""
    return f"LED {start}" if end - start == 1 else f"LEDs {start}-{end - 1}"


def validate_segments(segments: Iterable[Segment], pixel_count: int) -> list[Segment]:
    """Check a seat layout against a strip; return the segments sorted by start.

    Raises ``ValueError`` naming the seat and the LED numbers for: a negative
    start, an empty segment, a segment past the strip's end, a seat listed
    twice, and two segments sharing LEDs.
    """
    segments = list(segments)
    by_seat: dict[int, Segment] = {}
    for seg in segments:
        if seg.start < 0:
            raise ValueError(f"pixel segment for {seg.describe()} starts before the first LED; LED "
                             "positions count from 0 at the end wired to the Pi")
        if seg.length < 1:
            raise ValueError(f"pixel segment for {seg.describe()} is empty; give the number of "
                             "LEDs in front of that seat")
        if seg.end > pixel_count:
            raise ValueError(f"pixel segment for {seg.describe()} runs past the end of the "
                             f"{pixel_count}-pixel strip")
        if seg.seat in by_seat:
            raise ValueError(f"seat {seg.seat} has two pixel segments (start "
                             f"{by_seat[seg.seat].start} and start {seg.start}); "
                             "give each seat one segment")
        by_seat[seg.seat] = seg
    ordered = sorted(segments, key=lambda s: s.start)
    for before, after in pairwise(ordered):
        if after.start < before.end:
            raise ValueError(
                f"pixel segments for seat {before.seat} ({_leds(before.start, before.end)}) "
                f"and seat {after.seat} ({_leds(after.start, after.end)}) overlap at "
                f"{_leds(after.start, min(before.end, after.end))}; "
                "each LED can belong to one seat only")
    return ordered


def map_segments(segments: Iterable[Segment], seat_colors: Mapping[int, Sequence[Color]],
                 pixel_count: int, fill: Color = OFF) -> list[Color]:
    """Build a whole-strip frame from per-seat color lists.

    ``seat_colors[seat]`` lists exactly ``length`` colors for that seat's
    segment, in the seat's order; seats left out, and LEDs outside every
    segment, get ``fill``.
    """
    by_seat = {seg.seat: seg for seg in validate_segments(segments, pixel_count)}
    fill = _check_color(fill, "fill")
    frame = [fill] * pixel_count
    for seat, colors in seat_colors.items():
        seg = by_seat.get(seat)
        if seg is None:
            seats = ", ".join(str(s) for s in sorted(by_seat)) or "none"
            raise ValueError(f"colors given for seat {seat}, which has no pixel segment "
                             f"(segments exist for seats {seats})")
        colors = list(colors)
        if len(colors) != seg.length:
            raise ValueError(f"seat {seat}'s segment has {seg.length} LEDs but {len(colors)} "
                             "colors were given")
        for position, color in zip(seg.positions(), colors, strict=True):
            frame[position] = _check_color(color, f"seat {seat}")
    return frame
