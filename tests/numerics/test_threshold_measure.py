"""One draw of each threshold measurement: reproducible, within its bounds, its variances."""

import pytest

from attnge.numerics.threshold import measure_order
from attnge.theory.threshold import ORDER_MODELS


def test_order_draw_is_reproducible_and_within_the_hoffman_wielandt_bound():
    a = measure_order(0.6, 150, 0.35, seed=5, draw=1)
    assert a == measure_order(0.6, 150, 0.35, seed=5, draw=1)
    assert a != measure_order(0.6, 150, 0.35, seed=5, draw=2)
    for model in ORDER_MODELS:
        delta, var = a[f"frobenius {model}"], a[f"frobenius {model} var"]
        assert delta > 0 and var > 0 and 0 <= a[f"kolmogorov {model}"] <= 1
        # W2^2 <= ||G||^4 theta1^2 delta / theta1^2, and ||G|| <= 2 + 0.5 at ell = 150 (w.h.p.)
        assert a[f"wasserstein {model}"] <= 2.5**4 * delta


def test_truncations_leave_less_out_than_the_linear_model():
    a = measure_order(0.5, 120, 0.35, seed=0, draw=0)
    assert 0 < a["frobenius k=3"] < a["frobenius k=2"] < a["frobenius lin_f"]


def test_shapes_ignore_the_scale():
    import numpy as np

    from attnge.numerics.threshold import shape_distances
    rng = np.random.default_rng(2)
    a, b = rng.exponential(size=300), rng.exponential(size=300)
    same, scaled = shape_distances(a, b), shape_distances(0.5 * a, b)
    assert shape_distances(b, b) == {"m2/m1^2": 0.0, "m3/m1^3": 0.0, "m4/m1^4": 0.0}
    for q in (2, 3, 4):
        assert abs(scaled[f"m{q}/m1^{q}"] - same[f"m{q}/m1^{q}"]) < 1e-12
    # an outlier moves the shapes, most so the highest one
    spiked = np.append(b[:-1], 40.0)
    far = shape_distances(spiked, b)
    assert 0 < far["m2/m1^2"] < far["m3/m1^3"] < far["m4/m1^4"]


@pytest.mark.parametrize("c", [0.5, 1.2])
def test_mass_difference_variance_matches_the_spread_of_draws(c):
    # the within-draw (two-way jackknife) variance of m1(M0)/m1(lin) - 1 against the
    # spread of 40 independent draws (at c = 1.2 the ratio is far from 1), and its mean
    # against the exact one at the same d_qk
    import math

    import numpy as np

    from attnge.numerics.softmax_mass import expected_mass_difference
    from attnge.numerics.threshold import measure_temperature, temperature_beta
    ell = 120
    draws = [measure_temperature(c, ell, 1.0, seed=4, draw=k) for k in range(40)]
    values = np.array([r["m1"] for r in draws])
    within = np.mean([r["m1 var"] for r in draws])
    assert 0.5 < within / values.var(ddof=1) < 2
    se = math.sqrt(within / len(draws))
    exact = expected_mass_difference(temperature_beta(c, ell), ell, ell)
    assert exact < 0 and abs(values.mean() - exact) < 4 * se


def test_one_entry_terms_are_the_single_entry_sums():
    import numpy as np

    from attnge.numerics.threshold import one_entry_terms
    m0 = np.random.default_rng(3).standard_normal((7, 7))
    out = one_entry_terms(m0, 1.5)
    for order in (3, 4):
        assert out[f"one-entry m{order}"] == pytest.approx(
            float(np.sum(m0 ** (2 * order))) / (7 * 1.5**order), rel=1e-12)
