"""The provenance of a result: version, environment, parameters, wall time and date."""

from __future__ import annotations

import platform
import sys
import time

import mpmath
import numpy
import sympy

from attnge import __version__


def provenance(parameters: dict, wall_s: float, **extra) -> dict:
    """Version, environment, parameters, wall time and date of a run."""
    return {
        "attnge": __version__,
        "python": sys.version.split()[0],
        "numpy": numpy.__version__, "sympy": sympy.__version__,
        "mpmath": mpmath.__version__,
        "platform": platform.platform(),
        "parameters": parameters,
        **extra,
        "wall_s": round(wall_s, 3),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
