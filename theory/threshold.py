"""Where linearization stops: predicted rates and thresholds (math.md §6).

Temperature, β = c√(log ℓ) (so e^{β²} = ℓ^{c²}). Each measured distance is predicted to
behave as ℓ^{s(c)}; the threshold c* is where s(c*) = 0 (it stops shrinking):

- normalizer: Var D_ii ≈ θ₁/ℓ = ℓ^{c²−1}, so sd(D_ii) ~ ℓ^{(c²−1)/2}: c* = 1;
- m₁ (and the bulk): m₁ = mean of X_ij² over ℓ² entries, X = e^{βS−β²/2}. Its mass sits
  at S ≈ 2β = 2c√(log ℓ), beyond the largest sampled score 2√(log ℓ) when c > 1; the
  missed share Φ̄(2(1 − c)√(log ℓ)) ~ ℓ^{−2(1−c)²}: c* = 1;
- m_q, q ≥ 2: the largest entry a = X_max/√ℓ, X_max = ℓ^{2c − c²/2}, adds a^{2q}/ℓ to m_q
  against m_q(ν∞) ~ θ₁^q: relative size ℓ^{g_q(c)}, g_q = 4qc − 2qc² − q − 1:
  c*_q = 1 − √((q − 1)/(2q)) (1/2, 0.4226, 0.3876 for q = 2, 3, 4);
- the largest singular value over the bulk edge E ~ θ₁: a²/θ₁ ~ ℓ^{4c − 2c² − 1}:
  c* = 1 − 1/√2 (the limit q → ∞ of c*_q).

Order, d_qk = ℓ^α: the k-th Hadamard power ρ^{∘k} of Σ_f has off-diagonal entries of
order d_qk^{−k/2}; as an ℓ×ℓ matrix its fluctuation has norm ε = √ℓ d_qk^{−k/2} =
ℓ^{(1−αk)/2}. A perturbation of norm ε moves the spectral law at second order (a free
convolution of width ε), so the Kolmogorov distance it causes is ~ ε² = ℓ^{1−αk}: negligible
iff α > 1/k, and the k-th term must be kept for α ≤ α*_k = 1/k.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

c, alpha = sp.symbols("c alpha", positive=True)
q, k = sp.symbols("q k", positive=True, integer=True)


def temperature_exponents() -> dict[str, sp.Expr]:
    """Predicted log–log slope s(c) of each measured quantity against ℓ at β = c√(log ℓ)."""
    out = {"sd(D)": (c**2 - 1) / 2, "m1": -2 * (1 - c) ** 2,
           "s1^2/E": 4 * c - 2 * c**2 - 1}
    for order in (2, 3, 4):
        out[f"m{order}"] = (4 * q * c - 2 * q * c**2 - q - 1).subs(q, order)
    return out


def moment_threshold() -> sp.Expr:
    """c*_q = 1 − √((q − 1)/(2q)), the root of 4qc − 2qc² − q − 1 below 1."""
    return 1 - sp.sqrt((q - 1) / (2 * q))


@lru_cache(maxsize=None)
def temperature_thresholds() -> dict[str, sp.Expr]:
    """c* with s(c*) = 0 for each quantity (the root in (0, 1])."""
    out = {}
    for name, s in temperature_exponents().items():
        roots = [r for r in sp.solve(sp.Eq(s, 0), c) if r.is_positive and r <= 1]
        out[name] = min(roots)
    out["kolmogorov"] = sp.Integer(1)   # the bulk moves with m1 and with the normalizer
    return out


def order_exponent() -> sp.Expr:
    """Log–log slope of the distance the k-th Hadamard term makes: ε² = ℓ^{1−αk}."""
    return 1 - alpha * k


def order_threshold(order: int) -> sp.Expr:
    """α*_k = 1/k: the root of 1 − αk."""
    return sp.solve(sp.Eq(order_exponent().subs(k, order), 0), alpha)[0]
