"""The pixel strip layer: the real neopixel library down to its last write,
the simulated strip, and the seat segment layout."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.outputs.lights.pixels import (
           DEFAULT_PIN, FRAMES_KEPT, OFF, NeoPixelStrip, PixelStrip, PixelStripError, Segment,
           SimulatedStrip,
           contiguous_segments, map_segments, normalize_frame, scale_frame, validate_segments,
       )

# --- the real adafruit neopixel library ------------------------------------
#
# How the write is stubbed, and why there:
#
# neopixel.NeoPixel.show() -> adafruit_pixelbuf (brightness, GRB byte order)
#   -> NeoPixel._transmit(buf) -> neopixel_write.neopixel_write(pin, buf)
#   -> the platform backend's neopixel_write(pin, buf)  (rpi_ws281x on a Pi)
#
# On an ordinary Linux PC Blinka detects GENERIC_LINUX_PC: `board` has no
# D-pins, `digitalio.DigitalInOut` has no Pin class behind it, and importing
# `neopixel_write` raises NotImplementedError("Board not supported"). So
# nothing of the library can even be imported there. Blinka ships an
# OS-agnostic test board for exactly this (selected with BLINKA_OS_AGNOSTIC=1):
# real `board` pins, a real `digitalio.DigitalInOut`, and a backend whose
# neopixel_write(pin, buf) just discards the buffer. We select that board and
# replace only that backend function, the lowest Python-level step, just
# below `neopixel_write.neopixel_write` (patching the latter would not even
# work: neopixel.py binds it at import with `from neopixel_write import
# neopixel_write`). Everything above it -- NeoPixel, PixelBuf's brightness
# and byte ordering, the DigitalInOut pin setup, the neopixel_write
# dispatcher -- runs unmodified.
#
# Blinka detects the board once, when first imported, so the fixture imports
# it afresh (and puts back whatever was loaded before) to stay independent of
# test order.

_BLINKA_TOP_LEVEL = {"board", "digitalio", "microcontroller", "neopixel", "neopixel_write",
                     "adafruit_blinka", "adafruit_pixelbuf"}


def _loaded_blinka_modules():
    return [name for name in sys.modules if name.split(".")[0] in _BLINKA_TOP_LEVEL]


@pytest.fixture
def fresh_blinka(monkeypatch):
    """Make the next `import board`/`neopixel` detect the board from the environment."""
    saved = {name: sys.modules.pop(name) for name in _loaded_blinka_modules()}
    for var in ("BLINKA_OS_AGNOSTIC", "BLINKA_FORCEBOARD", "BLINKA_FORCECHIP"):
        monkeypatch.delenv(var, raising=False)
    try:
        yield monkeypatch
    finally:
        for name in _loaded_blinka_modules():
            del sys.modules[name]
        sys.modules.update(saved)


@pytest.fixture
def wire(fresh_blinka):
    """Blinka's OS-agnostic board with the backend write captured.

    Returns the list of (gpio, bytes) the library sent, one entry per write.
    """
    fresh_blinka.setenv("BLINKA_OS_AGNOSTIC", "1")
    import neopixel_write  # noqa: F401  (imports the agnostic backend)
    from adafruit_blinka.microcontroller.generic_agnostic_board import neopixel as backend

    sent = []
    fresh_blinka.setattr(backend, "neopixel_write",
                         lambda gpio, buf: sent.append((gpio, bytes(buf))))
    return sent


TEST_PIN = "NEOPIXEL"   # a data pin the OS-agnostic board has (it has no D10)


def test_bytes_on_the_wire_are_grb_and_brightness_scaled(wire):
    import board
    import digitalio

    strip = NeoPixelStrip(3, pin=TEST_PIN, brightness=0.5)
    assert wire == []                                  # nothing sent before show()
    assert strip.show([(255, 0, 0), (0, 255, 0), (10, 20, 30)]) is True
    assert len(wire) == 1
    gpio, buf = wire[0]
    #                  G    R   B    G   R  B    G   R   B
    assert buf == bytes([0, 127, 0, 127, 0, 0, 10, 5, 15])
    assert isinstance(gpio, digitalio.DigitalInOut)
    assert gpio._pin.id == board.NEOPIXEL.id
    assert gpio.direction is digitalio.Direction.OUTPUT
    assert strip.writes == 1


def test_full_brightness_sends_colors_unscaled(wire):
    strip = NeoPixelStrip(2, pin=TEST_PIN, brightness=1.0)
    strip.show([(1, 2, 3), (250, 128, 7)])
    assert wire[-1][1] == bytes([2, 1, 3, 128, 250, 7])


def test_same_frame_again_writes_nothing(wire):
    strip = NeoPixelStrip(2, pin=TEST_PIN, brightness=0.3)
    frame = [(200, 100, 50), (0, 0, 255)]
    assert strip.show(frame) is True
    assert strip.show(list(frame)) is False
    assert strip.show(tuple(tuple(c) for c in frame)) is False
    assert len(wire) == 1 and strip.writes == 1
    assert wire[0][1] == bytes([30, 60, 15, 0, 0, 76])     # 255 * 0.3 = 76.5, truncated
    assert strip.show([(0, 0, 255), (200, 100, 50)]) is True
    assert len(wire) == 2 and strip.writes == 2


def test_close_blanks_the_strip_and_releases_the_pin(wire):
    strip = NeoPixelStrip(2, pin=TEST_PIN, brightness=1.0)
    strip.show([(9, 9, 9), (9, 9, 9)])
    strip.close()
    assert wire[-1][1] == bytes(6)
    assert strip._pixels.pin._pin is None               # DigitalInOut deinitialised
    with pytest.raises(PixelStripError, match="closed"):
        strip.show([(1, 1, 1), (1, 1, 1)])
    strip.close()                                       # idempotent


def test_unknown_pin_names_the_usual_choices(wire):
    with pytest.raises(PixelStripError, match=r"no pin named 'D10'.*'D10'.*'D18'.*root"):
        NeoPixelStrip(4, pin=DEFAULT_PIN)
    assert wire == []


def test_on_a_plain_pc_the_strip_reports_it_cannot_run(fresh_blinka):
    # Force Blinka's generic-PC detection, whatever machine runs the tests.
    fresh_blinka.setenv("BLINKA_FORCEBOARD", "GENERIC_LINUX_PC")
    fresh_blinka.setenv("BLINKA_FORCECHIP", "GENERIC_X86")
    with pytest.raises(PixelStripError, match="cannot drive the LED strip here"):
        NeoPixelStrip(4)


def test_importing_the_module_does_not_import_blinka():
    code = textwrap.dedent("""
        import sys
        import companion.outputs.lights.pixels
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in
                        {"board", "neopixel", "neopixel_write", "digitalio", "adafruit_blinka"})
        print(",".join(loaded))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


colors = st.tuples(*[st.integers(0, 255)] * 3)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frame=st.lists(colors, min_size=5, max_size=5),
       brightness=st.sampled_from([0.0, 0.05, 0.3, 0.5, 0.77, 1.0]))
def test_simulated_strip_matches_the_real_library(wire, frame, brightness):
    real = NeoPixelStrip(5, pin=TEST_PIN, brightness=brightness)
    simulated = SimulatedStrip(5, brightness=brightness)
    real.show(frame)
    simulated.show(frame)
    grb = bytes(v for r, g, b in simulated.current for v in (g, r, b))
    assert wire[-1][1] == grb


# --- the simulated strip -----------------------------------------------------

def test_simulated_strip_records_scaled_frames_and_skips_repeats():
    strip = SimulatedStrip(2, brightness=0.5)
    assert strip.current == (OFF, OFF) and strip.writes == 0
    assert strip.show([(255, 10, 0), (4, 5, 6)]) is True
    assert strip.show([(255, 10, 0), (4, 5, 6)]) is False
    assert strip.show([(0, 0, 0), (4, 5, 6)]) is True
    assert strip.frames == [((127, 5, 0), (2, 2, 3)), ((0, 0, 0), (2, 2, 3))]
    assert strip.writes == 2
    with strip:
        pass
    assert strip.current == (OFF, OFF) and strip.writes == 3


def test_simulated_strip_keeps_only_the_latest_frames():
    """A simulated table runs for days: its record of frames stays bounded (issue 19)."""
    def frame(n: int) -> tuple:
        return ((n % 256, n // 256, 0),)
    strip = SimulatedStrip(1)
    shown = 5 * FRAMES_KEPT
    for n in range(shown):
        strip.show(list(frame(n)))
    assert strip.writes == shown
    assert FRAMES_KEPT <= len(strip.frames) <= 2 * FRAMES_KEPT
    assert strip.current == frame(shown - 1)
    assert strip.frames[-FRAMES_KEPT:] == [frame(n) for n in range(shown - FRAMES_KEPT, shown)]


def test_simulated_frames_share_their_colours():
    """The frames kept hold each colour once (a long day's record stays small)."""
    strip = SimulatedStrip(8, brightness=0.5)
    for n in range(60):
        strip.show([(200, 40, 0) if (i + n) % 2 else (0, 0, 255) for i in range(8)])
    colours = {id(c) for f in strip.frames for c in f}
    assert len(strip.frames) == 60 and len(colours) == 2
    assert strip.current[:2] == ((100, 20, 0), (0, 0, 127))


def test_frames_are_validated():
    strip = SimulatedStrip(3)
    with pytest.raises(ValueError, match="frame has 2 colors but the strip has 3 pixels"):
        strip.show([OFF, OFF])
    with pytest.raises(ValueError, match=r"pixel 1: color channels are integers 0-255"):
        strip.show([OFF, (0, 256, 0), OFF])
    with pytest.raises(ValueError, match=r"pixel 2: a color is an \(r, g, b\) triple"):
        strip.show([OFF, OFF, (1, 2)])
    with pytest.raises(ValueError, match="integers"):
        strip.show([OFF, OFF, (1.5, 2, 3)])
    assert strip.writes == 0 and strip.frames == []


@pytest.mark.parametrize("brightness", [-0.1, 1.01, 3])
def test_brightness_cap_must_be_a_fraction(brightness):
    with pytest.raises(ValueError, match="between 0 and 1"):
        SimulatedStrip(4, brightness=brightness)


def test_strip_needs_pixels_and_the_interface_is_abstract():
    with pytest.raises(ValueError, match="at least one pixel"):
        SimulatedStrip(0)
    with pytest.raises(TypeError):
        PixelStrip(4)


def test_normalize_and_scale_helpers():
    assert normalize_frame([[1, 2, 3]], 1) == ((1, 2, 3),)
    assert scale_frame([(255, 100, 3)], 0.3) == ((76, 30, 0),)


# --- seat segments -----------------------------------------------------------

RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)


def test_segments_place_seat_colors_in_order():
    segments = [Segment(seat=0, start=0, length=3), Segment(seat=1, start=4, length=2)]
    frame = map_segments(segments, {0: [RED, GREEN, BLUE], 1: [WHITE, RED]}, 7)
    assert frame == [RED, GREEN, BLUE, OFF, WHITE, RED, OFF]


def test_reversed_segment_runs_backwards():
    seg = Segment(seat=2, start=3, length=3, reversed=True)
    assert seg.positions() == [5, 4, 3]
    frame = map_segments([seg], {2: [RED, GREEN, BLUE]}, 6, fill=WHITE)
    assert frame == [WHITE, WHITE, WHITE, BLUE, GREEN, RED]


def test_seats_without_colors_get_the_fill():
    segments = [Segment(0, 0, 2), Segment(1, 2, 2, reversed=True)]
    assert map_segments(segments, {1: [RED, BLUE]}, 4) == [OFF, OFF, BLUE, RED]


def test_four_seats_of_sixteen_fill_a_64_pixel_strip():
    segments = [Segment(seat, seat * 16, 16, reversed=seat % 2 == 1) for seat in range(4)]
    seat_colors = {seat: [(seat, i, 0) for i in range(16)] for seat in range(4)}
    frame = map_segments(segments, seat_colors, 64)
    assert frame[0] == (0, 0, 0) and frame[15] == (0, 15, 0)
    assert frame[16] == (1, 15, 0) and frame[31] == (1, 0, 0)
    assert OFF not in frame[1:]


def test_contiguous_segments_follow_the_config_layout():
    assert contiguous_segments(3, 16, first_pixel=2, reversed=True) == [
        Segment(0, 2, 16, True), Segment(1, 18, 16, True), Segment(2, 34, 16, True)]
    with pytest.raises(ValueError, match=r"seat 2 \(start 34, length 16\) runs past the end "
                                         r"of the 48-pixel strip"):
        validate_segments(contiguous_segments(3, 16, first_pixel=2), 48)


def test_segment_past_the_end_of_the_strip():
    with pytest.raises(ValueError) as err:
        validate_segments([Segment(0, 0, 16), Segment(2, 40, 16)], 48)
    assert str(err.value) == ("pixel segment for seat 2 (start 40, length 16) runs past "
                              "the end of the 48-pixel strip")


def test_overlapping_segments_name_both_seats_and_the_leds():
    with pytest.raises(ValueError) as err:
        validate_segments([Segment(1, 12, 16), Segment(0, 0, 16)], 64)
    assert str(err.value) == ("pixel segments for seat 0 (LEDs 0-15) and seat 1 (LEDs 12-27) "
                              "overlap at LEDs 12-15; each LED can belong to one seat only")


def test_segment_inside_another_reports_the_inner_range():
    with pytest.raises(ValueError, match="overlap at LEDs 4-5;"):
        validate_segments([Segment(0, 0, 10), Segment(1, 4, 2)], 10)


def test_sharing_a_single_led_is_an_overlap():
    with pytest.raises(ValueError, match="overlap at LED 15;"):
        validate_segments([Segment(0, 0, 16), Segment(1, 15, 16)], 64)


def test_adjacent_segments_are_fine_and_come_back_sorted():
    segs = [Segment(1, 16, 16), Segment(0, 0, 16)]
    assert [s.seat for s in validate_segments(segs, 32)] == [0, 1]


@pytest.mark.parametrize("segments,message", [
    ([Segment(0, -1, 4)], r"seat 0 \(start -1, length 4\) starts before the first LED"),
    ([Segment(3, 0, 0)], r"seat 3 \(start 0, length 0\) is empty"),
    ([Segment(1, 0, 4), Segment(1, 8, 4)],
     r"seat 1 has two pixel segments \(start 0 and start 8\)"),
])
def test_invalid_segments(segments, message):
    with pytest.raises(ValueError, match=message):
        validate_segments(segments, 16)


def test_colors_must_match_the_layout():
    segments = [Segment(0, 0, 2)]
    with pytest.raises(ValueError, match="seat 0's segment has 2 LEDs but 3 colors"):
        map_segments(segments, {0: [RED, RED, RED]}, 4)
    with pytest.raises(ValueError, match=r"seat 5, which has no pixel segment "
                                         r"\(segments exist for seats 0\)"):
        map_segments(segments, {5: [RED, RED]}, 4)
    with pytest.raises(ValueError, match="seat 0: color channels"):
        map_segments(segments, {0: [RED, (0, 0, 300)]}, 4)


def test_mapped_frame_drives_a_strip():
    segments = [Segment(0, 0, 2), Segment(1, 2, 2, reversed=True)]
    strip = SimulatedStrip(4, brightness=1.0)
    strip.show(map_segments(segments, {0: [RED, RED], 1: [GREEN, BLUE]}, 4))
    assert strip.current == (RED, RED, BLUE, GREEN)
