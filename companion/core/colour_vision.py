"""How the seat colours look to red-green colour-blind players, in numbers.

The box's seat colours (red, blue, green, yellow) are the game's own, so the
screen never relies on them alone: every seat also has its number and a
shape (``SEAT_SHAPES``) and the LEDs mark the active seat by motion. This
module checks the colours themselves too: ``simulate`` applies the
Machado, Oliveira & Fernandes (2009) matrices for full (severity 1.0)
deuteranopia and protanopia in linear RGB, and ``difference`` is the CIE76
colour difference (Delta E in CIELAB) of two colours. Tests require every
pair of seat colours to stay at least ``MIN_DELTA_E`` apart under both
simulations, on their own and as painted on the panel background.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

Color = tuple

#: Machado et al. 2009, severity 1.0, applied to linear RGB.
MACHADO = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
}

#: Two colours this far apart (Delta E 1976) are told apart at a glance.
MIN_DELTA_E = 20.0

#: The shape drawn beside each seat's number, seat 1 first (the LEDs and the
#: screen's colours follow the box; the shapes only need to differ).
SEAT_SHAPES = ("circle", "square", "triangle", "diamond")


def _linear(c: float) -> float:
    c /= 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _gamma(c: float) -> float:
    c = min(1.0, max(0.0, c))
    return 255.0 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(color: Color, kind: str) -> Color:
    """``color`` (sRGB 0-255) as seen with ``kind`` ("deuteranopia" or "protanopia")."""
    m = MACHADO[kind]
    lin = [_linear(v) for v in color[:3]]
    return tuple(round(_gamma(sum(m[i][j] * lin[j] for j in range(3)))) for i in range(3))


def lab(color: Color) -> tuple:
    r, g, b = (_linear(v) for v in color[:3])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def difference(a: Color, b: Color) -> float:
    """CIE76 Delta E between two sRGB colours."""
    return math.dist(lab(a), lab(b))


def closest_pair(colors: Sequence[Color], kind: str) -> tuple:
    """(Delta E, i, j) of the two colours that look most alike under ``kind``."""
    seen = [simulate(c, kind) for c in colors]
    return min((difference(seen[i], seen[j]), i, j)
               for i in range(len(seen)) for j in range(i + 1, len(seen)))
