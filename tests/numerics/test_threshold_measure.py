"""One draw of the order measurement: its keys, and the bound that ties δ to the spectra."""

from numerics.threshold import measure_order
from theory.threshold import ORDER_MODELS


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
