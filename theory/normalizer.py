"""The softmax normalizer at finite size (docs/math.md §3).

D_ii = Z_i/(ℓ e^{β²/2}) = (1/ℓ) Σ_j X_ij,  X_ij = e^{βS_ij − β²/2}.  Given q_i the X_ij
are i.i.d. over j; given k_j they are i.i.d. over i. With v = χ²_{d_qk}/d_qk:

    μ   = E X            = E e^{β²v/2 − β²/2}      (exists iff d_qk > β²)
    m_2 = E X_ij²        = E e^{2β²v − β²}         (exists iff d_qk > 4β²)
    m_11 = E X_ij X_ij′  = E e^{β²v − β²}          (exists iff d_qk > 2β²)
    E D_ii = μ,   Var D_ii = m_2/ℓ + (1 − 1/ℓ) m_11 − μ²,
    Cov(D_ii, D_i′i′) = (m_11 − μ²)/ℓ   (rows share the keys; j = j′ terms only).
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from attnge.theory.gaussian import chi2_expectation, gaussian_expectation
from attnge.theory.symbols import beta, d_qk, ell, eps, x

_v = sp.Symbol("v", positive=True)


@cache
def _moment(kind: str) -> tuple[sp.Expr, list[sp.Expr]]:
    """E X (kind "X"), E X² ("X^2") or E X_ij X_ij′ ("XX'"), and the rates t of e^{tv}."""
    one = sp.exp(beta * sp.sqrt(_v) * x - beta**2 / 2)
    given_v = {
        "X": gaussian_expectation(one, x),
        "X^2": gaussian_expectation(sp.expand(one**2), x),
        "XX'": gaussian_expectation(one, x) ** 2,  # two keys, independent given q
    }[kind]
    return chi2_expectation(sp.expand(given_v), _v, d_qk)


def mean_X() -> sp.Expr:
    """μ = E e^{βS − β²/2} = e^{−β²/2}(1 − β²/d_qk)^{−d_qk/2}."""
    return _moment("X")[0]


def second_moment_X() -> sp.Expr:
    """m_2 = E e^{2βS − β²} = e^{−β²}(1 − 4β²/d_qk)^{−d_qk/2}."""
    return _moment("X^2")[0]


def cross_moment_X() -> sp.Expr:
    """m_11 = E X_ij X_ij′ (one query, two keys) = e^{−β²}(1 − 2β²/d_qk)^{−d_qk/2}."""
    return _moment("XX'")[0]


def existence_bounds() -> dict[str, sp.Expr]:
    """The bound b with each quantity finite iff d_qk > b: the largest 2t over its e^{tv}."""
    def bound(*kinds: str) -> sp.Expr:
        return sp.Max(*[2 * t for kind in kinds for t in _moment(kind)[1]])

    return {"E D_ii": bound("X"), "Var D_ii": bound("X", "X^2", "XX'")}


def mean() -> sp.Expr:
    """E D_ii = μ (exact at finite ℓ and d_qk)."""
    return mean_X()


def variance() -> sp.Expr:
    """Var D_ii = m_2/ℓ + (1 − 1/ℓ) m_11 − μ² (exact)."""
    return second_moment_X() / ell + (1 - 1 / ell) * cross_moment_X() - mean_X() ** 2


def row_covariance() -> sp.Expr:
    """Cov(D_ii, D_i′i′) = (m_11 − μ²)/ℓ for i ≠ i′ (exact)."""
    return (cross_moment_X() - mean_X() ** 2) / ell


def sample_variance_mean() -> sp.Expr:
    """E of the sample variance (1/(ℓ−1) Σ_i (D_ii − D̄)²) of one matrix: Var − Cov."""
    return variance() - row_covariance()


def _series_in_eps(expr: sp.Expr, order: int) -> sp.Expr:
    """Expand a function of d_qk in ε = 1/d_qk up to ε^order (ℓ kept exact).

    (1 − a/d)^{−d/2} = e^{a/2} exp(Σ_{m≥2} a^m ε^{m−1}/(2m)) is expanded through the
    logarithm, so no ``sympy.series`` of a composed exponential is needed.
    """
    def expand_power(power: sp.Pow) -> sp.Expr:
        base, exponent = power.args  # (1 − a/d)^{−κ d/2 + s}
        a = sp.simplify((1 - base) * d_qk)
        kappa = -2 * sp.expand(exponent).coeff(d_qk)
        shift = sp.simplify(exponent + kappa * d_qk / 2)
        if a.has(d_qk) or kappa.has(d_qk) or shift.has(d_qk):
            raise ValueError(f"cannot expand {power} in 1/d_qk")
        log_part = kappa * sum(a**m * eps ** (m - 1) / (2 * m) for m in range(2, order + 2))
        head = sp.exp(kappa * a / 2) * _exp_poly(sp.expand(log_part), order)
        tail = sp.series((1 - a * eps) ** shift, eps, 0, order + 1).removeO()
        return sp.expand(head * tail)

    powers = [p for p in expr.atoms(sp.Pow) if p.base.has(d_qk) and p.exp.has(d_qk)]
    replaced = expr.subs({p: expand_power(p) for p in powers}).subs(d_qk, 1 / eps)
    poly = sp.Poly(sp.expand(replaced), eps)
    return sum(c * eps**m for (m,), c in poly.terms() if m <= order)


def _exp_poly(h: sp.Expr, order: int) -> sp.Expr:
    """exp(h) to order ε^order for h = O(ε): g_0 = 1, n g_n = Σ_{j=1}^n j h_j g_{n−j}."""
    hc = sp.Poly(h, eps).all_coeffs()[::-1] + [0] * (order + 1)
    g = [sp.Integer(1)]
    for n in range(1, order + 1):
        g.append(sp.expand(sum(j * hc[j] * g[n - j] for j in range(1, n + 1)) / n))
    return sum(g[n] * eps**n for n in range(order + 1))


@cache
def expansion(quantity: str, order: int = 2) -> sp.Expr:
    """The expansion of a normalizer quantity in ε = 1/d_qk to ε^order, exact in 1/ℓ.

    >>> expansion("E D_ii", 1)
    beta**4*epsilon/4 + 1
    >>> expansion("Var D_ii", 0)
    exp(beta**2)/ell - 1/ell
    """
    if quantity not in QUANTITIES:
        raise ValueError(f"quantity must be one of {', '.join(QUANTITIES)} (got {quantity!r})")
    exact = QUANTITIES[quantity]()
    return sp.collect(sp.expand(_series_in_eps(exact, order)), eps)


QUANTITIES = {
    "E D_ii": mean,
    "Var D_ii": variance,
    "Cov(D_ii, D_jj)": row_covariance,
}
