"""||M0 - Y||_F at finite d_qk, to first order in the normaliser's fluctuation: against its
d_qk -> inf limit theta1 (theta1 + y beta^4 / 2) / ell and against sampled attention."""

import math

import numpy as np
import pytest

from attnge.numerics.chain import score_models
from attnge.numerics.normalizer_error import frobenius_squared, local_slope
from attnge.numerics.sampling import sample_scores


@pytest.mark.parametrize("beta, y", [(0.5, 1.0), (1.0, 4.0), (1.0, 16.0)])
def test_the_large_d_limit_is_theta1_times_the_normaliser_variance(beta, y):
    ell = 10**9
    theta1 = math.expm1(beta * beta)
    limit = theta1 * (theta1 + y * beta**4 / 2) / ell
    assert frobenius_squared(beta, ell, round(ell / y)) == pytest.approx(limit, rel=1e-6)


def test_the_leading_terms_match_sampled_attention():
    """beta = 0.5, y = 4, ell = 400 (d_qk = 100, where the spread of the rows' means is a third
    of the total): 20 draws within 3 se and 5%."""
    beta, ell, d = 0.5, 400, 100
    rng = np.random.default_rng(3)
    values = []
    for _ in range(20):
        models = score_models(sample_scores(ell, d, rng), beta)
        M0 = next(models)[1].copy()
        Y = next(models)[1]
        values.append(float(np.sum((M0 - Y) ** 2)) / ell)
    mean, se = np.mean(values), np.std(values, ddof=1) / np.sqrt(len(values))
    predicted = frobenius_squared(beta, ell, d)
    assert abs(mean - predicted) <= max(3 * se, 0.05 * predicted)


def test_small_d_steepens_the_rate_and_infinite_moments_give_no_slope():
    assert local_slope(1.0, 1.0, 250) == pytest.approx(-0.5, abs=0.02)
    assert local_slope(1.0, 16.0, 250) < -0.8
    assert math.isnan(local_slope(3.0, 16.0, 250))        # 2 beta^2 = 18 >= d_qk = 16
