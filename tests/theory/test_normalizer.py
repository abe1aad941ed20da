"""The normalizer: exact moments, existence conditions and expansions."""

import mpmath as mp
import pytest
import sympy as sp

from attnge.numerics.reference import chi2_integral
from attnge.theory import normalizer as nz
from attnge.theory.exponential import theta1
from attnge.theory.symbols import beta, d_qk, ell, eps


def test_mean_and_variance_closed_forms():
    assert sp.simplify(nz.mean() - sp.exp(-beta**2 / 2) * (1 - beta**2 / d_qk) ** (-d_qk / 2)) == 0
    m2 = sp.exp(-beta**2) * (1 - 4 * beta**2 / d_qk) ** (-d_qk / 2)
    m11 = sp.exp(-beta**2) * (1 - 2 * beta**2 / d_qk) ** (-d_qk / 2)
    expected = m2 / ell + (1 - 1 / ell) * m11 - nz.mean() ** 2
    values = {beta: sp.Rational(7, 10), ell: 37, d_qk: 11}
    assert abs(sp.N((nz.variance() - expected).subs(values), 50)) < 1e-45


def test_existence_bounds():
    assert nz.existence_bounds() == {"E D_ii": beta**2, "Var D_ii": 4 * beta**2}


def test_leading_terms_of_the_expansions():
    assert nz.expansion("E D_ii", 1) == 1 + beta**4 * eps / 4
    var = nz.expansion("Var D_ii", 1)
    assert sp.simplify(var.coeff(eps, 0) - theta1() / ell) == 0
    assert sp.simplify(var.coeff(eps, 1).subs(ell, sp.oo) - beta**4 / 2) == 0
    assert nz.expansion("Cov(D_ii, D_jj)", 1) == beta**4 * eps / (2 * ell)


def test_mean_against_quadrature():
    with mp.workdps(30):
        quad = mp.exp(-0.5) * chi2_integral(lambda v: mp.exp(v / 2), 13, 30)
        exact = mp.mpf(sp.N(nz.mean().subs({beta: 1, d_qk: 13}), 40))
        assert abs(quad - exact) < 1e-25


def test_unknown_quantity():
    with pytest.raises(ValueError, match="quantity"):
        nz.expansion("E Z", 1)
