"""Tests of numerics.measure: what one draw's differences say about their rank."""

import numpy as np

from numerics.measure import RANK_ONE, RANK_RTOL, measure_draw


def test_rank_one_differences_have_nothing_beyond_s1_and_the_others_do():
    m = measure_draw(120, 60, 1.0, seed=0, draw=0)
    for key, d in m.differences.items():
        if key in RANK_ONE:
            assert d["rest"] <= RANK_RTOL, key
        else:                                   # full rank: the check can fail
            assert d["rest"] > 0.5, key
    rank_one = m.differences["Y->Y_f"]                   # ‖M‖ = ‖M‖_F for rank one
    assert abs(rank_one["op"] / (rank_one["frob"] * np.sqrt(120)) - 1) < 1e-12


def test_top_singular_value_by_power_iteration_or_lanczos(monkeypatch):
    from numerics import law_draws
    from numerics.sampling import attention, draw_rng, sample_scores

    A = attention(sample_scores(200, 200, draw_rng(0, "t", 200, 0)).S, 1.0)
    exact = np.linalg.svd(A, compute_uv=False)[0]
    assert abs(law_draws.top_singular_value(A) / exact - 1) < 1e-14
    monkeypatch.setattr(law_draws, "POWER_STEPS", 1)       # no convergence: Lanczos
    assert abs(law_draws.top_singular_value(A) / exact - 1) < 1e-14
