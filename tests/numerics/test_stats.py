"""Two-way standard errors are calibrated; rate fits recover known slopes."""

import math

import numpy as np
import pytest

from attnge.numerics import stats
from attnge.numerics.stats import fit_rate, jackknife_variance, pool, row_statistics, two_way_mean


def _two_way(rng, n, sa=1.0, sb=0.5, se=3.0):
    return 2 + sa * rng.standard_normal((n, 1)) + sb * rng.standard_normal((1, n)) \
        + se * rng.standard_normal((n, n))


def test_two_way_variance_matches_the_model():
    rng = np.random.default_rng(0)
    n = 60
    exact = 1.0 / n + 0.25 / n + 9.0 / n**2
    est = [two_way_mean(_two_way(rng, n))[1] for _ in range(200)]
    assert abs(np.mean(est) / exact - 1) < 0.05


def test_two_way_standard_error_is_calibrated():
    rng = np.random.default_rng(1)
    means, variances = zip(*(two_way_mean(_two_way(rng, 40)) for _ in range(400)))
    z = (np.array(means) - 2) / np.sqrt(variances)
    assert 0.85 < z.std() < 1.15


def test_row_statistics_mean_equals_two_way_mean():
    rng = np.random.default_rng(2)
    X = np.exp(rng.standard_normal((50, 50)))
    mean, var = row_statistics(X)["mean"]
    m2, v2 = two_way_mean(X)
    assert mean == pytest.approx(m2, rel=1e-12)
    assert var == pytest.approx(v2, rel=0.1)  # cell deletion differs by O(1/ℓ)


def test_row_variance_standard_error_is_calibrated():
    rng = np.random.default_rng(3)
    n = 100
    est, var = [], []
    for _ in range(300):  # i.i.d. rows: Var(D_i) = 1/ℓ exactly for unit cells
        v, s = row_statistics(rng.standard_normal((n, n)))["variance"]
        est.append(v)
        var.append(s)
    # the spread of the estimates against the root-mean estimated variance; (the z-scores
    # themselves are skewed: a chi-square-like estimate and its own error are correlated)
    assert 0.85 < np.std(est) / np.sqrt(np.mean(var)) < 1.15
    assert abs(np.mean(est) - 1 / n) < 3 * np.std(est) / np.sqrt(len(est))


def test_jackknife_and_pool():
    assert jackknife_variance(np.array([1.0, 1.0, 1.0])) == 0
    assert pool([1.0, 3.0], [4.0, 0.0]) == (2.0, 1.0)


def test_fit_rate_recovers_slope():
    sizes = [100, 200, 400, 800]
    values = [3 * s**-0.5 for s in sizes]
    rate = fit_rate(sizes, values)
    assert rate.slope == pytest.approx(-0.5, abs=1e-12) and rate.se < 1e-10
    noisy = fit_rate(sizes, [v * (1 + e) for v, e in zip(values, [0.01, -0.01, 0.02, 0])],
                     errors=[0.01 * v for v in values])
    assert noisy.agrees(-0.5) and not noisy.agrees(-1.0)


def test_fit_rate_error_dof_by_welch_satterthwaite():
    sizes = [1.0, np.e, np.e**2]                 # log-spaced: the middle size has no weight
    values = [1.0, 0.5, 0.25]
    errors = [0.01 * v for v in values]          # equal weights in log|v|
    assert fit_rate(sizes, values, errors).dof == math.inf
    assert fit_rate(sizes, values, errors, [2, 2, 2]).dof == pytest.approx(4.0)
    assert fit_rate(sizes, values, errors, [2, 100, 7]).dof == pytest.approx(
        4 / (1 / 2 + 1 / 7))


def test_fit_rate_needs_three_sizes():
    with pytest.raises(ValueError, match="sizes"):
        fit_rate([1, 2], [1, 2])


def test_key_sum_is_the_jackknife_over_deleted_keys():
    rng = np.random.default_rng(3)
    X = rng.random((7, 7))
    X = X + X.T
    value, variance = stats.key_sum(X)
    n = X.shape[0]
    loo = []
    for i in range(n):   # delete key i: row and column i; re-weight the two means
        Y = np.delete(np.delete(X, i, 0), i, 1)
        off = (Y.sum() - np.trace(Y)) / ((n - 1) * (n - 2))
        loo.append((n - 1) * off + np.trace(Y) / (n - 1))
    loo = np.array(loo)
    assert value == pytest.approx(X.sum() / n)
    assert variance == pytest.approx((n - 1) / n * ((loo - loo.mean()) ** 2).sum())
    with pytest.raises(ValueError, match="square"):
        stats.key_sum(np.ones((3, 4)))


def test_key_sum_variance_is_calibrated_for_a_function_of_two_keys():
    # X_jk = (x_j . x_k)^2 for Gaussian keys: the jackknife variance against the spread of
    # 300 independent draws
    rng = np.random.default_rng(4)
    values, variances = [], []
    for _ in range(300):
        x = rng.standard_normal((60, 5))
        v, var = stats.key_sum((x @ x.T) ** 2)
        values.append(v)
        variances.append(var)
    assert np.mean(variances) == pytest.approx(np.var(values, ddof=1), rel=0.2)


def test_poisson_z_is_exact_at_small_means_and_normal_at_large():
    from attnge.numerics.stats import poisson_z
    assert poisson_z(1, 0.0024) == pytest.approx(2.82, abs=0.01)     # normal: z = 20
    assert poisson_z(0, 0.5) == 0.0 and poisson_z(3, 0.0) == float("inf")
    assert poisson_z(1100, 1000.0) == pytest.approx(100 / 1000**0.5, rel=0.05)
    assert poisson_z(900, 1000.0) == pytest.approx(-100 / 1000**0.5, rel=0.05)
