"""Weight laws: exact moments, the normalizer's two routes, and its first order in 1/d_qk."""

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy.stats import truncnorm

from attnge.theory import normalizer as nz
from attnge.theory import weight_laws as wl
from attnge.theory.symbols import beta, d_qk, ell, eps


def test_every_law_has_unit_variance_and_its_fourth_cumulant():
    assert [wl.moment(law, 2) for law in wl.LAWS.values()] == [1, 1, 1, 1]
    assert wl.LAWS["gaussian"].kappa4 == 0
    assert wl.LAWS["uniform"].kappa4 == sp.Rational(-6, 5)
    assert wl.LAWS["rademacher"].kappa4 == -2
    # scipy's excess kurtosis of N(0, 1) cut at ±2 (rescaling does not change it)
    assert float(wl.LAWS["truncated-normal"].kappa4) == pytest.approx(
        float(truncnorm.stats(-2, 2, moments="k")), rel=1e-12)


def test_the_truncated_normals_scale_by_parts_is_sympys_integral():
    z = sp.Symbol("z", real=True)
    phi = sp.exp(-z**2 / 2)
    mass = sp.integrate(phi, (z, -wl.TRUNCATION, wl.TRUNCATION))
    second = sp.integrate(z**2 * phi, (z, -wl.TRUNCATION, wl.TRUNCATION))
    assert wl.truncated_sd() == sp.sqrt(sp.simplify(second / mass))
    assert float(wl.truncated_sd()) == pytest.approx(float(truncnorm.std(-2, 2)), rel=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gaussian", "uniform", "rademacher"])
def test_closed_forms_and_quadrature_agree(name):
    a = wl.normalizer_moments(name, 1, 100, 50, 25, "sympy")
    b = wl.normalizer_moments(name, 1, 100, 50, 25, "quadrature")
    assert a["route"] == "sympy" and b["route"] == "quadrature"
    for key in ("E D_ii", "Var D_ii", "Cov"):
        assert abs(a[key] - b[key]) < mpmath.mpf(10) ** -22 * abs(a[key])


def test_the_gaussian_law_gives_the_normalizer_of_the_theorem():
    got = wl.normalizer_moments("gaussian", sp.Rational(3, 2), 80, 40, 25)
    subs = {beta: sp.Rational(3, 2), d_qk: 40, ell: 80}
    assert abs(got["E D_ii"] - sp.N(nz.mean().subs(subs), 30)) < 1e-22
    assert abs(got["Var D_ii"] - sp.N(nz.variance().subs(subs), 30)) < 1e-22
    assert abs(got["Cov"] - sp.N(nz.row_covariance().subs(subs), 30)) < 1e-22


@pytest.mark.slow
@pytest.mark.parametrize("name", list(wl.LAWS))
def test_the_first_order_is_read_from_the_fourth_moment(name):
    law = wl.LAWS[name]
    first = wl.mean_expansion(law).coeff(eps)           # 30-digit Floats where not rational
    assert abs(sp.N((first - beta**4 * (wl.moment(law, 4) ** 2 - 3) / 24).subs(beta, 1), 40)) \
        < 1e-25
    d = 20000                                  # the exact mean at large d_qk, route two
    exact = wl.normalizer_moments(law, 1, 10, d, 30, "quadrature")["E D_ii"]
    assert float((exact - 1) * d) == pytest.approx(float(first.subs(beta, 1)), rel=1e-3)


@pytest.mark.parametrize("name", list(wl.LAWS))
def test_samples_have_the_law_s_moments(name):
    law = wl.LAWS[name]
    w = law.sample((400_000,), np.random.default_rng(1))
    assert abs(w.mean()) < 0.01 and abs(w.var() - 1) < 0.01
    assert np.mean(w**4) == pytest.approx(float(wl.moment(law, 4)), rel=0.02)


def test_bad_names_are_refused_in_one_line():
    with pytest.raises(ValueError, match="weights must be one of"):
        wl.law_named("laplace")


@pytest.mark.slow
@pytest.mark.parametrize("order", [0, 1, 2])
def test_the_gaussian_expansions_are_the_normalizer_s(order):
    """From the law's moments alone against theory.normalizer's expansion of its closed forms
    (another derivation, through (1 − a/d)^(−d/2)): equal as expressions."""
    assert sp.simplify(wl.variance_expansion("gaussian", order)
                       - nz.expansion("Var D_ii", order)) == 0
    assert sp.simplify(wl.mean_expansion("gaussian", order) - nz.expansion("E D_ii", order)) == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["uniform", "rademacher", "truncated-normal"])
def test_the_variance_s_first_order_matches_the_exact_variance(name):
    ell, d = 50, 20000
    series = wl.variance_expansion(name, 1).subs({beta: 1, sp.Symbol("ell", positive=True): ell})
    exact = wl.normalizer_moments(name, 1, ell, d, 30, "quadrature")["Var D_ii"]
    first = float(series.coeff(eps))
    assert float((exact - series.subs(eps, 0)) * d) == pytest.approx(first, rel=2e-3, abs=1e-9)
