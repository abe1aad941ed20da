"""Closed-form Gaussian and chi-square expectations against mpmath quadrature."""

import mpmath as mp
import pytest
import sympy as sp

from attnge.numerics.reference import chi2_integral, gaussian_integral
from attnge.theory.gaussian import (
    chi2_expectation,
    gaussian_expectation,
    gaussian_moment,
    pair_expectation,
)

x, v = sp.Symbol("x", real=True), sp.Symbol("v", positive=True)


def test_gaussian_moments_are_double_factorials():
    assert [gaussian_moment(j) for j in range(7)] == [1, 0, 1, 0, 3, 0, 15]


@pytest.mark.parametrize("expr", [
    x**4 * sp.exp(sp.Rational(3, 2) * x),
    (sp.exp(x / 2) - 1) ** 3,
    x * sp.exp(-x + 1) + x**2,
])
def test_gaussian_expectation_matches_quadrature(expr):
    exact = gaussian_expectation(expr, x)
    f = sp.lambdify(x, expr, "mpmath")
    with mp.workdps(30):
        quad = gaussian_integral(f, 30, center=2)
        assert abs(quad - mp.mpf(sp.N(exact, 40))) < mp.mpf(10) ** -25 * max(1, abs(quad))


def test_gaussian_expectation_refuses_nonlinear_exponent():
    with pytest.raises(ValueError, match="linear"):
        gaussian_expectation(sp.exp(x**2), x)


@pytest.mark.parametrize("d", [7, 40])
def test_chi2_expectation_matches_quadrature(d):
    expr = (v**2 + 3) * sp.exp(sp.Rational(1, 3) * v) + v
    exact, rates = chi2_expectation(expr, v, sp.Integer(d))
    assert rates == [sp.Rational(1, 3)]
    f = sp.lambdify(v, expr, "mpmath")
    with mp.workdps(30):
        quad = chi2_integral(f, d, 30)
        assert abs(quad - mp.mpf(sp.N(exact, 40))) < mp.mpf(10) ** -25 * abs(quad)


@pytest.mark.slow
def test_pair_expectation_against_quadrature_in_one_dimension():
    u, r = sp.symbols("u rho")
    d = sp.Symbol("d", positive=True)
    t, s, m = sp.Rational(1, 10), sp.Rational(3, 10), 3
    closed, rates = pair_expectation(r**m * sp.exp(t * u + s * r), u, r, d)
    assert rates == [(t, s)]
    phi = lambda z: mp.exp(-z**2 / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
    quad = mp.quad(lambda a, b: (a * b)**m * mp.exp(0.1 * (a**2 + b**2) + 0.3 * a * b)
                   * phi(a) * phi(b), [-14, 0, 14], [-14, 0, 14], maxdegree=5)
    assert abs(float(closed.subs(d, 1)) - float(quad)) < 1e-10 * abs(float(quad))


def test_pair_expectation_moments_and_bad_terms():
    u, r = sp.symbols("u rho")
    d = sp.Symbol("d", positive=True)
    # E (x.y)^4 = 3d(d + 2): rho = x.y/d
    assert sp.simplify(pair_expectation(r**4, u, r, d)[0] - 3 * (d + 2) / d**3) == 0
    with pytest.raises(ValueError, match="linear"):
        pair_expectation(sp.exp(u * r), u, r, d)
    with pytest.raises(ValueError, match="must not depend"):
        pair_expectation(u * sp.exp(r), u, r, d)
