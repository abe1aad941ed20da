"""The mpmath reference layer against textbook values."""

import mpmath as mp
import sympy as sp

from attnge.numerics.reference import chi2_integral, gaussian_integral, hermite_e


def test_hermite_e_against_sympy():
    t = sp.Symbol("t")
    for n in range(9):
        exact = mp.mpf(sp.N(sp.hermite_prob(n, t).subs(t, sp.Rational(7, 10)), 40))
        assert hermite_e(n, mp.mpf("0.7")) == exact \
            or abs(hermite_e(n, mp.mpf("0.7")) - exact) < 1e-12


def test_gaussian_integral_moments():
    with mp.workdps(30):
        assert abs(gaussian_integral(lambda s: s**4, 30) - 3) < 1e-28
        assert abs(gaussian_integral(lambda s: mp.exp(2 * s), 30, center=2) - mp.e**2) < 1e-26


def test_chi2_integral_moments():
    with mp.workdps(30):
        assert abs(chi2_integral(lambda v: v, 9, 30) - 1) < 1e-28
        assert abs(chi2_integral(lambda v: v**2, 9, 30) - (1 + mp.mpf(2) / 9)) < 1e-28


def test_precision_is_restored():
    before = mp.mp.dps
    gaussian_integral(lambda s: s, 50)
    assert mp.mp.dps == before
