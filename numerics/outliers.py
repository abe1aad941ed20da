"""How many entries of √ℓA⊥ exceed a level: the expected number of outliers.

An entry of M0 = √ℓA⊥ is (e^{βS_ij − β²/2}/D_ii − 1)/√ℓ with D_ii = 1 + O(ℓ^{−1/2}), so
to leading order it exceeds a > 0 iff S_ij > τ = (log(1 + a√ℓ) + β²/2)/β. Given the
query, S_ij ~ N(0, v) with v = χ²_{d_qk}/d_qk, hence the exact finite-d_qk tail

    P(S_ij > τ) = E_v Φ̄(τ/√v),   E #{entries > a} = ℓ² P(S_ij > τ).
"""

from __future__ import annotations

import mpmath as mp

from numerics.reference import chi2_integral

DPS = 20


def score_tail(tau: float, d_qk: int) -> float:
    """P(S_ij > τ) for S_ij = q·k/√d_qk, q, k i.i.d. N(0, I_{d_qk})."""
    with mp.workdps(DPS):
        t = mp.mpf(tau)
        return float(chi2_integral(lambda v: mp.erfc(t / mp.sqrt(2 * v)) / 2, d_qk, DPS))


def expected_entries_above(a: float, ell: int, d_qk: int, beta: float) -> float:
    """ℓ² P(S_ij > (log(1 + a√ℓ) + β²/2)/β): the expected count of entries of M0 above a."""
    tau = (mp.log(1 + a * mp.sqrt(ell)) + beta**2 / 2) / beta
    return ell * ell * score_tail(float(tau), d_qk)
