"""The exact E m₁ of the chain's models against quadrature of their defining integrals."""

import mpmath as mp
import pytest
import sympy as sp

from attnge.numerics.reference import chi2_integral
from attnge.theory import chain_means
from attnge.theory.symbols import beta, d_qk, ell

DPS = 25


def _given_v(b, v):
    """E[X | v] and E[X² | v] for X = e^{b√v x − b²/2}, x ~ N(0, 1) (the Gaussian MGF)."""
    return mp.exp(b * b * (v - 1) / 2), mp.exp(b * b * (2 * v - 1))


def _quadrature(model, b, L, d):
    """E m₁ from the definitions, conditioning on one row's (or column's) v = χ²_d/d.

    Given q_i (or k_j) the X of its row (column) are i.i.d. with E[X | v] = a(v) and
    E[X² | v] = s(v), and f = X − 1, so that E f² = E[s − 2a + 1];
    E(D_ii − 1)² = E[(s − a²)/ℓ + (a − 1)²] (ℓ i.i.d. terms given q_i);
    E Var(f | K) = E[s − a²]; the integrals over v by quadrature.
    """
    a = lambda v: _given_v(b, v)[0]  # noqa: E731
    s = lambda v: _given_v(b, v)[1]  # noqa: E731
    second = chi2_integral(lambda v: s(v) - 2 * a(v) + 1, d, DPS)
    if model == "Y_f":
        return second
    if model == "Y":
        return second - chi2_integral(lambda v: (s(v) - a(v) ** 2) / L + (a(v) - 1) ** 2, d, DPS)
    if model in ("Y_Q", "Y_lin_Q"):
        return chi2_integral(lambda v: s(v) - a(v) ** 2, d, DPS)
    return mp.expm1(b * b)


@pytest.mark.parametrize("model", chain_means.MODELS)
@pytest.mark.parametrize(("b", "L", "d"), [("1", 50, 40), ("3/4", 200, 400)])
def test_m1_against_quadrature(model, b, L, d):
    exact = chain_means.m1(model).subs({beta: sp.Rational(b), ell: L, d_qk: d})
    with mp.workdps(DPS):
        B = mp.mpf(sp.Rational(b).p) / sp.Rational(b).q
        quad = _quadrature(model, B, L, d)
        assert abs(mp.mpf(sp.N(exact, DPS)) / quad - 1) < mp.mpf(10) ** (-15)


def test_unknown_model_is_named():
    with pytest.raises(ValueError, match="model must be one of"):
        chain_means.m1("M0")
