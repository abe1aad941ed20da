"""Input checks shared by every layer, and the one rule for d_qk.

Every number a user gives passes through one of these. Each raises ``ValueError`` with one
line naming the parameter and the accepted range, which the CLI prints (exit code 2).
``theory`` is the bottom of the house, so ``numerics`` and ``derivations`` import them too.

>>> integer("12", "draws", 1), positive(0.5, "beta"), d_qk(1000, 2.0)
(12, 0.5, 500)
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from numbers import Integral

import numpy as np


def number(value: object, name: str) -> float:
    """A finite real number (a numeric string, or a ratio such as "1/4", is accepted; a bool
    is not)."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a finite number (got {value!r})")
    try:
        if isinstance(value, str) and "/" in value:
            value = Fraction(value.strip())
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"{name} must be a finite number (got {value!r})") from None
    if not math.isfinite(out):
        raise ValueError(f"{name} must be a finite number (got {value!r})")
    return out


def positive(value: object, name: str) -> float:
    """A positive finite real number."""
    try:
        out = number(value, name)
    except ValueError:
        out = -1.0
    if not out > 0:
        raise ValueError(f"{name} must be a positive finite number (got {value!r})")
    return out


BETA_MAX = 6.0
"""The largest β any command accepts, so that every float64 stays finite: the fourth
moment E X⁴ ~ e^{6β²} of the normalizer (β < 10.9), m₄ ~ θ₁⁴ = e^{4β²} of the linear
model's spectrum (β < 13.3) and the tilted exponentials e^{βz + 3β²/2} of the softmax
mass. (The checks of a large β need d_qk > 64β² anyway: 6400 at β = 10.)"""

Y_MAX = 1000.0
"""The largest y = ℓ/d_qk any command accepts (the jump law's atom 1 − 1/y and its
edge are computed to the digits asked for up to there)."""


def beta(value: object, name: str = "beta") -> float:
    """β in (0, BETA_MAX]."""
    out = positive(value, name)
    if out > BETA_MAX:
        raise ValueError(f"{name} must be in (0, {BETA_MAX:g}] (got {value!r})")
    return out


def ratio(value: object, name: str = "y") -> float:
    """y = ℓ/d_qk in (0, Y_MAX]."""
    out = positive(value, name)
    if out > Y_MAX:
        raise ValueError(f"{name} must be in (0, {Y_MAX:g}] (got {value!r})")
    return out


def integer(value: object, name: str, least: int = 0, most: int | None = None) -> int:
    """An integer in [``least``, ``most``]: an int, a NumPy integer or a string of digits."""
    text = (f"{name} must be an integer >= {least} (got {value!r})" if most is None else
            f"{name} must be an integer from {least} to {most} (got {value!r})")
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(text)
    if isinstance(value, str):
        digits = value.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", digits):   # ASCII digits, one sign at most
            raise ValueError(text)
        out = int(digits)
    elif isinstance(value, Integral):
        out = int(value)
    else:
        raise ValueError(text)
    if out < least or (most is not None and out > most):
        raise ValueError(text)
    return out


UNITS = {"s": 1, "m": 60, "h": 3600}


def duration(value: object, name: str = "budget") -> float:
    """Seconds from a time such as 90, 90s, 20m or 1.5h (a positive number and at most one
    unit of s, m, h); ValueError naming ``name`` otherwise.

    >>> duration("20m"), duration("1.5h"), duration(45)
    (1200.0, 5400.0, 45.0)
    """
    text = f"{name} must be a positive time such as 90s, 20m or 1.5h (got {value!r})"
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([smh]?)\s*", str(value))
    if isinstance(value, bool) or match is None:
        raise ValueError(text)
    seconds = float(match.group(1)) * UNITS.get(match.group(2) or "s")
    if not 0 < seconds < math.inf:
        raise ValueError(text)
    return seconds


def d_qk(ell: int, y: float) -> int:
    """d_qk = round(ℓ/y), the query/key width of ℓ tokens at ratio y = ℓ/d_qk.

    The one rule of the project for d_qk; a y so large that ℓ/y rounds to 0 is refused
    (ValueError naming ``y``), never silently raised to 1.
    """
    out = round(ell / y)
    if out < 1:
        raise ValueError(f"y must be at most 2 ell so that d_qk = round(ell/y) >= 1 "
                         f"(got ell={ell}, y={y:g})")
    return out
