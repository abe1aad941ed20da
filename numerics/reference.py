"""A plain mpmath reference layer: Gaussian and chi-square integrals by quadrature.

Deliberately follows the definitions (an integral against a density), so that it can
check the closed forms of ``theory`` without reusing them. Every function takes
``dps`` and works inside ``mp.workdps``; nothing changes mpmath's globals.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath as mp


def hermite_e(n: int, t: mp.mpf) -> mp.mpf:
    """He_n(t) by the recurrence He_{n+1} = t He_n − n He_{n−1} (probabilists')."""
    h0, h1 = mp.mpf(1), t
    if n == 0:
        return h0
    for m in range(1, n):
        h0, h1 = h1, t * h1 - m * h0
    return h1


def gaussian_integral(func: Callable[[mp.mpf], mp.mpf], dps: int = 40,
                      center: float = 0.0, guard: int = 15) -> mp.mpf:
    """∫ func(t) φ(t) dt, φ the standard normal density, by Gauss–Legendre quadrature.

    ``center`` is where the integrand's mass sits besides 0 (e.g. β for integrands
    weighted by e^{βt}, 2β for e^{2βt}); the integral runs over [min(0, c) − 16,
    max(0, c) + 16] in pieces of width ≤ 8, so the neglected Gaussian tails are below
    e^{−128} ≈ 10^{−56} relative. ``guard`` extra digits absorb the cancellation in
    Hermite polynomials of high order.
    """
    with mp.workdps(dps + guard):
        c = mp.mpf(center)
        lo, hi = min(0, c) - 16, max(0, c) + 16
        pieces = int(mp.ceil((hi - lo) / 8))
        pts = [lo + (hi - lo) * i / pieces for i in range(pieces + 1)]
        norm = 1 / mp.sqrt(2 * mp.pi)
        val = mp.quad(lambda t: func(t) * mp.exp(-t * t / 2) * norm, pts,
                      method="gauss-legendre")
    with mp.workdps(dps):
        return +val


def chi2_integral(func: Callable[[mp.mpf], mp.mpf], d: int, dps: int = 40) -> mp.mpf:
    """E func(v) for v = χ²_d/d, by quadrature against its Gamma(d/2, 2/d) density."""
    with mp.workdps(dps + 10):
        k = mp.mpf(d) / 2
        log_norm = k * mp.log(k) - mp.loggamma(k)
        dens = lambda v: mp.exp(log_norm + (k - 1) * mp.log(v) - k * v)  # noqa: E731
        sd = mp.sqrt(mp.mpf(2) / d)
        pts = [0] + [p for p in (1 - 8 * sd, 1 - 4 * sd, 1, 1 + 4 * sd, 1 + 8 * sd) if p > 0] \
            + [mp.inf]
        val = mp.quad(lambda v: func(v) * dens(v), pts)
    with mp.workdps(dps):
        return +val
