"""The exponential: exact symbolic results (SymPy equality) and a quadrature cross-check."""

import mpmath as mp
import pytest
import sympy as sp

from attnge.numerics.reference import gaussian_integral
from attnge.theory import exponential as ex
from attnge.theory.symbols import beta, d_qk


def test_hermite_coefficients_are_beta_power_over_factorial():
    for n in range(1, 16):
        assert ex.hermite_coefficient(n, "f") == beta**n / sp.factorial(n)
        assert ex.hermite_coefficient(n, "g") == beta**n / sp.factorial(n)
    assert ex.hermite_coefficient(0, "f") == 0
    assert ex.hermite_coefficient(0, "g") == 1
    assert sp.simplify(ex.hermite_coefficient(4, "exp")
                       - sp.exp(beta**2 / 2) * beta**4 / 24) == 0


def test_taylor_coefficients():
    assert ex.taylor_coefficient(0, "f") == sp.exp(-beta**2 / 2) - 1
    assert ex.taylor_coefficient(5, "exp") == beta**5 / 120
    assert ex.taylor_coefficient(3, "g") == beta**3 * sp.exp(-beta**2 / 2) / 6


def test_theta_and_series_identities():
    assert ex.theta1() == sp.exp(beta**2) - 1
    assert ex.theta2() == beta**2
    assert all(ex.series_identities().values())


def test_hermite_remainder_below_bound_and_by_quadrature():
    b = sp.Rational(3, 2)
    for n in range(0, 10):
        r = ex.hermite_remainder(n).subs(beta, b)
        assert 0 < r.evalf(30) <= ex.hermite_remainder_bound(n).subs(beta, b).evalf(30)
    with mp.workdps(30):
        B = mp.mpf(1.5)
        quad = gaussian_integral(lambda s: (mp.exp(B * s - B * B / 2) - 1 - B * s) ** 2, 30, 3)
        assert abs(quad - mp.mpf(sp.N(ex.hermite_remainder(1).subs(beta, b), 40))) < 1e-25


def test_score_moments_tend_to_theta1_and_beta():
    moments = ex.score_moments(d_qk)
    f2, limit = moments["E f(S)^2"]
    at = {beta: 1, d_qk: 10**8}  # evalf(subs=): no exact rational power of size 10^8
    value = f2.evalf(30, subs=at)
    assert abs(value - limit.subs(beta, 1).evalf(30)) < 1e-6
    sf, limit = moments["E S f(S)"]
    assert limit == beta
    assert abs(sf.evalf(30, subs=at) - 1) < 1e-7


@pytest.mark.parametrize("bad", [-1, 1.5, "two", True])
def test_bad_order(bad):
    with pytest.raises(ValueError, match="order"):
        ex.hermite_coefficients(bad)


def test_bad_target():
    with pytest.raises(ValueError, match="target"):
        ex.hermite_coefficient(2, "sin")
