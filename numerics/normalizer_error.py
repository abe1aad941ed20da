"""‖M0 − Y‖_F at finite d_qk: the normaliser's error, to first order in its fluctuation.

M0 − Y = (D⁻¹ − I)Y, so ‖M0 − Y‖²_F/ℓ is the mean over rows of (1/D_ii − 1)² ‖Y_i‖². Given
the query, v = ‖q‖²/d_qk ~ χ²_d/d, the row's f_j = e^{βS_j − β²/2} are i.i.d. with mean
μ_v = e^{β²(v−1)/2} and variance σ_v² = e^{β²(2v−1)} − e^{β²(v−1)}; D_ii is their mean and
‖Y_i‖² their sample variance. To first order in D_ii − μ_v (variance σ_v²/ℓ),

    P(ℓ) = E_v[(1/μ_v − 1)² σ_v²] + E_v[σ_v⁴/μ_v⁴]/ℓ,

each term a sum of E_v e^{tv} = (1 − 2t/d)^{−d/2} (infinite for 2t ≥ d). As d = ℓ/y → ∞,
ℓP(ℓ) → θ₁(θ₁ + yβ⁴/2): the first term is the spread of the rows' means, β⁴yθ₁/(2ℓ), the
second θ₁²/ℓ. At small d_qk the first falls faster than 1/ℓ (its (1 − 2t/d)^{−d/2} factors
settle), which steepens ‖M0 − Y‖_F against ℓ: the local slope of √P tells where the
O(ℓ^{−1/2}) rate can be read.
"""

from __future__ import annotations

import math

import mpmath as mp

DPS = 30


def _chi2_mgf(t: mp.mpf, d: int) -> mp.mpf:
    """E e^{tv} for v = χ²_d/d."""
    return mp.inf if 2 * t >= d else (1 - 2 * t / d) ** (-mp.mpf(d) / 2)


def leading_terms(beta: float, ell: int, d_qk: int) -> tuple[mp.mpf, mp.mpf]:
    """(E_v[(1/μ_v − 1)² σ_v²], E_v[σ_v⁴/μ_v⁴]): P(ℓ) is the first plus the second over ℓ.

    >>> a, b = leading_terms(1.0, 10**12, 10**12)   # d → ∞: a → 0, b → θ₁²
    >>> float(a) < 1e-9, abs(float(b) - math.expm1(1.0) ** 2) < 1e-9
    (True, True)
    """
    with mp.workdps(DPS):
        b2 = mp.mpf(beta) ** 2
        def E(t, c):
            return _chi2_mgf(t, d_qk) * mp.exp(c)          # E e^{tv + c}
        # (1/μ − 1)² = e^{−β²(v−1)} − 2e^{−β²(v−1)/2} + 1,  σ² = e^{β²(2v−1)} − e^{β²(v−1)}
        spread = mp.mpf(0)
        for t1, c1, s1 in ((-b2, b2, 1), (-b2 / 2, b2 / 2, -2), (0, 0, 1)):
            for t2, c2, s2 in ((2 * b2, -b2, 1), (b2, -b2, -1)):
                spread += s1 * s2 * E(t1 + t2, c1 + c2)
        # σ²/μ² = e^{β²v} − 1
        fluctuation = E(2 * b2, 0) - 2 * E(b2, 0) + 1
        return spread, fluctuation


def frobenius_squared(beta: float, ell: int, d_qk: int) -> float:
    """P(ℓ) ≈ E‖M0 − Y‖²_F/ℓ (module docstring); inf where a moment of v is infinite."""
    spread, fluctuation = leading_terms(beta, ell, d_qk)
    value = spread + fluctuation / ell
    return math.inf if mp.isinf(value) else float(value)


def local_slope(beta: float, y: float, ell: int) -> float:
    """d log √P / d log ℓ between ℓ and 2ℓ at d_qk = round(ℓ/y) (NaN where P is infinite)."""
    lo = frobenius_squared(beta, ell, max(1, round(ell / y)))
    hi = frobenius_squared(beta, 2 * ell, max(1, round(2 * ell / y)))
    if math.isinf(lo) or math.isinf(hi):
        return math.nan
    return math.log(hi / lo) / (2 * math.log(2))
