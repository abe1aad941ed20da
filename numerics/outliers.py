"""How many entries of √ℓA⊥ exceed a level: the expected number of outliers.

An entry of M0 = √ℓA⊥ is (e^{βS_ij − β²/2}/D_ii − 1)/√ℓ with D_ii = 1 + O(ℓ^{−1/2}), so
to leading order it exceeds a > 0 iff S_ij > τ = (log(1 + a√ℓ) + β²/2)/β. Given the
query, S_ij ~ N(0, v) with v = χ²_{d_qk}/d_qk, hence the exact finite-d_qk tail

    P(S_ij > τ) = E_v Φ̄(τ/√v),   E #{entries > a} = ℓ² P(S_ij > τ).

The entries of one row share their query (of one column, their key), so given one entry
above τ the expected number of others above τ in its row and column is

    2(ℓ − 1) E_v[Φ̄(τ/√v)²] / E_v[Φ̄(τ/√v)],

which is 2(ℓ − 1)P(S_ij > τ) as d_qk → ∞ (v → 1) and larger at small d_qk, where a long
query or key carries several large scores: then the spikes are not isolated. A query or key
longer than r* or c* (``theory.outliers.long_thresholds``) makes an outlier of its own, with
no large entry: ℓ P(v > r*) + ℓ P(v > c*) of them are expected.
"""

from __future__ import annotations

import math

from scipy import integrate, optimize, special
from scipy.stats import chi2

WINDOW = (-40, -16, -8, -4, -2, -1, 0, 1, 2, 4, 8, 16, 40)
"""Breakpoints of ``mixture_tail``'s quadrature, in widths of its integrand about the mode."""


def mixture_tail(at: float, d_qk: int, power: int = 1) -> float:
    r"""E_v[Φ̄(at/√v)^power] for v = χ²_{d_qk}/d_qk, in float64.

    In s = log v the integrand, Jacobian included, is

    .. math:: e^{g(s)},\qquad g(s) = p\log\bar\Phi(a e^{-s/2}) + k s - k e^{s} + k\log k
              - \log\Gamma(k),\quad k = d_{qk}/2,

    concave in s (log Φ̄ is concave and decreasing, a e^{−s/2} convex), so it has one mode s₀
    and falls off at least as fast as a Gaussian of its curvature there. The quadrature
    (``scipy.integrate.quad``, relative 1e-11) runs over ±40 widths about s₀ in pieces
    (``WINDOW``), where e^{g − g(s₀)} has fallen below e^{−800}; the scale e^{g(s₀)} is taken
    out, so a tail of 1e−300 keeps its digits. Kept by hand on purpose: the tail of the
    variance-gamma law of q·k has no routine in SciPy, and a fixed grid about v = 1 (the
    mpmath route this replaces) misses the mass that a deep tail tilts to long queries
    (63% at τ = 25, d_qk = 12). ``tests/numerics/test_entries_above.py`` checks it against
    mpmath quadrature on a dense grid about the mode.
    """
    k = d_qk / 2

    def g(s: float) -> float:  # g less its constant; k(s − e^s) as −k(expm1(s) − s) − k
        return power * special.log_ndtr(-at * math.exp(-s / 2)) - k * (math.expm1(s) - s)

    s0 = optimize.minimize_scalar(lambda s: -g(s), bounds=(-30.0, 30.0), method="bounded",
                                  options={"xatol": 1e-10}).x
    top, eps = g(s0), 1e-4
    width = 1 / math.sqrt(max(-(g(s0 + eps) - 2 * top + g(s0 - eps)) / eps**2, 1e-12))
    points = [s0 + j * width for j in WINDOW]
    # the scaled integrand peaks at 1 and integrates to about 2.5 widths: an absolute 1e-13
    # widths is a relative 4e-14 of the whole, and keeps the far pieces (< e^-8) from chasing
    # their rounding
    total = sum(integrate.quad(lambda s: math.exp(g(s) - top), lo, hi, epsabs=1e-13 * width,
                               epsrel=1e-11, limit=100)[0]
                for lo, hi in zip(points, points[1:]))
    return total * math.exp(top + _log_norm(k))


def _log_norm(k: float) -> float:
    """k log k − k − log Γ(k): the log of the χ²_{2k}/(2k) density's constant, less its e^{−k}.

    Two large terms cancel; from k = 50 on, Stirling's series (error below k^{−7}/1680 < 1e−15)
    keeps all its digits where ``gammaln`` would lose eight at d_qk = 10⁷.
    """
    if k < 50:
        return k * math.log(k) - k - float(special.gammaln(k))
    return (0.5 * math.log(k / (2 * math.pi)) - 1 / (12 * k) + 1 / (360 * k**3)
            - 1 / (1260 * k**5))


def score_tail(tau: float, d_qk: int) -> float:
    """P(S_ij > τ) for S_ij = q·k/√d_qk, q, k i.i.d. N(0, I_{d_qk}): E_v Φ̄(τ/√v)."""
    return mixture_tail(tau, d_qk)


def tilt_tail(degree: int, beta: float, d_qk: float = math.inf) -> float:
    """P(S > pβv*): the share of scores beyond the point where those that carry E e^{pβS} sit.

    For Gaussian scores (``d_qk`` infinite) e^{pβS} tilts N(0, 1) to N(pβ, 1): v* = 1 and
    the share is erfc(pβ/√2)/2. For S = q·k/√d_qk, S ~ N(0, v) given v ~ χ²_d/d, the tilt
    also lengthens v: its Gamma(d/2, 2/d) law becomes one of mean v* = 1/(1 − p²β²/d), and
    S sits about pβv*, so the share is E_v Φ̄(pβv*/√v); 0 where p²β² ≥ d (the mean is
    infinite).
    """
    tilt = degree * beta
    if math.isinf(d_qk):
        return 0.5 * math.erfc(tilt / math.sqrt(2))
    if tilt * tilt >= d_qk:
        return 0.0
    return mixture_tail(tilt / (1 - tilt * tilt / d_qk), int(d_qk))


def _tau(a: float, ell: int, beta: float) -> float:
    return (math.log1p(a * math.sqrt(ell)) + beta**2 / 2) / beta


def partners_per_entry(a: float, ell: int, d_qk: int, beta: float) -> float:
    """2(ℓ − 1) E_v[Φ̄(τ/√v)²]/E_v[Φ̄(τ/√v)]: the expected number of other entries above a
    in the row and column of an entry above a (τ, v as for ``score_tail``)."""
    t = _tau(a, ell, beta)
    one = mixture_tail(t, d_qk)
    if one == 0:
        return 0.0
    return 2 * (ell - 1) * mixture_tail(t, d_qk, power=2) / one


def expected_long(ell: int, d_qk: int, r_star: float, c_star: float) -> float:
    """ℓ(P(v > r*) + P(v > c*)), v = χ²_{d_qk}/d_qk: the expected number of queries and keys
    long enough to make an outlier of their own (``theory.outliers.long_thresholds``)."""
    return float(ell * (chi2.sf(r_star * d_qk, d_qk) + chi2.sf(c_star * d_qk, d_qk)))


def expected_entries_above(a: float, ell: int, d_qk: int, beta: float) -> float:
    """ℓ² P(S_ij > (log(1 + a√ℓ) + β²/2)/β): the expected count of entries of M0 above a."""
    return ell * ell * score_tail(_tau(a, ell, beta), d_qk)
