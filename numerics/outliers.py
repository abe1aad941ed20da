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

import mpmath as mp
from scipy.stats import chi2

from attnge.numerics.reference import chi2_integral

DPS = 20


def score_tail(tau: float, d_qk: int, dps: int = DPS) -> float:
    """P(S_ij > τ) for S_ij = q·k/√d_qk, q, k i.i.d. N(0, I_{d_qk}) (``dps`` digits)."""
    with mp.workdps(dps):
        t = mp.mpf(tau)
        return float(chi2_integral(lambda v: mp.erfc(t / mp.sqrt(2 * v)) / 2, d_qk, dps))


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
    at = tilt / (1 - tilt * tilt / d_qk)
    with mp.workdps(DPS):
        return float(chi2_integral(lambda v: mp.erfc(at / mp.sqrt(2 * v)) / 2, int(d_qk),
                                   DPS))


def _tau(a: float, ell: int, beta: float) -> mp.mpf:
    return (mp.log(1 + a * mp.sqrt(ell)) + mp.mpf(beta)**2 / 2) / beta


def partners_per_entry(a: float, ell: int, d_qk: int, beta: float) -> float:
    """2(ℓ − 1) E_v[Φ̄(τ/√v)²]/E_v[Φ̄(τ/√v)]: the expected number of other entries above a
    in the row and column of an entry above a (τ, v as for ``score_tail``)."""
    with mp.workdps(DPS):
        t = _tau(a, ell, beta)
        def tail(v):
            return mp.erfc(t / mp.sqrt(2 * v)) / 2
        one = chi2_integral(tail, d_qk, DPS)
        if one == 0:
            return 0.0
        return float(2 * (ell - 1) * chi2_integral(lambda v: tail(v) ** 2, d_qk, DPS) / one)


def expected_long(ell: int, d_qk: int, r_star: float, c_star: float) -> float:
    """ℓ(P(v > r*) + P(v > c*)), v = χ²_{d_qk}/d_qk: the expected number of queries and keys
    long enough to make an outlier of their own (``theory.outliers.long_thresholds``)."""
    return float(ell * (chi2.sf(r_star * d_qk, d_qk) + chi2.sf(c_star * d_qk, d_qk)))


def expected_entries_above(a: float, ell: int, d_qk: int, beta: float, dps: int = DPS
                           ) -> float:
    """ℓ² P(S_ij > (log(1 + a√ℓ) + β²/2)/β): the expected count of entries of M0 above a."""
    return ell * ell * score_tail(float(_tau(a, ell, beta)), d_qk, dps)
