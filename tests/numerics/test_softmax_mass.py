"""The exact mean mass of a softmax row: against mpmath, sampled rows and its exponent."""

import math

import numpy as np
import pytest

from attnge.numerics.softmax_mass import (
    chi2_nodes,
    expected_mass_difference,
    row_mass,
    row_mass_reference,
)
from attnge.theory import threshold as th


@pytest.mark.slow
def test_row_mass_against_mpmath_quadrature():
    # the reference at 12 digits (it agrees with row_mass to 2e-12; 15 digits took 20 s)
    assert row_mass(1.5, 200) == pytest.approx(float(row_mass_reference(1.5, 200, 12)),
                                               rel=1e-9)


def _sampled(beta, ell, rows=20_000):
    """Mean and se of sum_j A_j^2 over sampled softmax rows of N(0, 1) scores."""
    z = beta * np.random.default_rng(11).standard_normal((rows, ell))
    a = np.exp(z - z.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    mass = (a * a).sum(axis=1)
    return mass.mean(), mass.std(ddof=1) / math.sqrt(rows)


@pytest.mark.parametrize("beta, ell", [(0.7, 50), (2.0, 100), (3.0, 60), (6.0, 250),
                                       (8.0, 400)])
def test_row_mass_against_sampled_rows(beta, ell):
    # an independent route: sum_j A_j^2 over 20000 sampled softmax rows
    mass, se = _sampled(beta, ell)
    assert abs(mass - row_mass(beta, ell)) < 4 * se


def test_the_mean_field_mass_is_caught_by_the_samples():
    # the check can fail: replacing the other keys' sum by its mean, E[X^2/(X + ell - 1)^2],
    # misses the mean by far more than 4 se
    beta, ell = 2.0, 100
    mass, se = _sampled(beta, ell)
    z = np.linspace(-12, 12, 200_001)
    x = np.exp(beta * z - beta**2 / 2)
    mean_field = ell * np.sum(np.exp(-z * z / 2) * x * x / (x + ell - 1) ** 2) \
        * (z[1] - z[0]) / math.sqrt(2 * math.pi)
    assert abs(mass - mean_field) > 4 * se
    assert abs(mass - row_mass(beta, ell)) < 4 * se


def test_mass_difference_decays_with_the_derived_exponent():
    # c = 1/2: the first-order loss, ell^(2c^2 - 1); c = 0.7: the saturated share,
    # ell^(-t1^2/2) up to a slowly vanishing prefactor correction
    s = th.mass_exponent()

    def slope(cv, e):
        f = [abs(expected_mass_difference(cv * math.sqrt(math.log(10.0**k)), 10**k))
             for k in (e, e + 1)]
        return math.log10(f[1] / f[0])

    assert slope(0.5, 12) == pytest.approx(float(s.subs(th.c, 0.5)), abs=2e-3)
    gaps = [abs(slope(0.7, e) - float(s.subs(th.c, 0.7))) for e in (6, 9, 12)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.015


@pytest.mark.parametrize("d", [3, 40, 4000])
def test_chi2_nodes_integrate_the_moments_of_chi2_over_d(d):
    v, w = chi2_nodes(d)
    # E v^m = prod_{i<m} (1 + 2i/d) for v = chi^2_d/d
    for m in range(6):
        assert np.sum(w * v**m) == pytest.approx(math.prod(1 + 2 * i / d for i in range(m)),
                                                 rel=1e-12)


def test_mass_difference_at_finite_d_against_sampled_attention():
    # an independent route at small d_qk: m1 = sum_ij A_ij^2 - 1 of sampled attention matrices
    from attnge.numerics.sampling import attention, draw_rng, sample_scores
    beta, ell, d = 1.5, 100, 8
    values = []
    for draw in range(300):
        scores = sample_scores(ell, d, draw_rng(9, "mass", ell, draw))
        a = attention(scores.S, beta)
        values.append(((a * a).sum() - 1) / math.expm1(beta**2) - 1)
    mean, se = np.mean(values), np.std(values, ddof=1) / math.sqrt(len(values))
    assert abs(mean - expected_mass_difference(beta, ell, d)) < 4 * se
    assert abs(mean - expected_mass_difference(beta, ell)) > 4 * se   # d -> inf is wrong here


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="beta"):
        row_mass(-1.0, 10)
    with pytest.raises(ValueError, match="ell"):
        row_mass(1.0, 1)
