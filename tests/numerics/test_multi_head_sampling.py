"""Sampled multi-head attention and the layer's output."""

import numpy as np
import pytest

from attnge.numerics import multi_head as nm
from attnge.numerics.law_draws import measure_law_draw
from attnge.theory.exponential import thetas


def test_one_head_draws_what_the_single_head_law_draw_draws():
    a = measure_law_draw(120, 60, 1.0, 3, 2)
    b = nm.measure_heads_draw(120, 60, 1.0, 3, 2, heads=1)
    assert np.max(np.abs(a.eigs - b.eigs)) <= 1e-12 * a.eigs[0]
    assert abs(a.s1 - b.s1) <= 1e-12 and abs(a.frob2 - b.frob2) <= 1e-12


def test_perron_value_of_several_heads_from_the_identity():
    """s₁(A)² = λ_max(hP + A⊥A⊥ᵀ) against the top singular value of [A_1, A_2] itself."""
    from attnge.numerics.sampling import attention, draw_rng, sample_scores
    d = nm.measure_heads_draw(80, 40, 1.0, 0, 0, heads=2)
    rng = draw_rng(0, "law", 80, 0)
    A = np.hstack([attention(sample_scores(80, 40, rng).S, 1.0) for _ in range(2)])
    assert abs(d.s1 - np.linalg.norm(A, 2)) <= 1e-10
    assert abs(d.frob2 - np.sum(A * A)) <= 1e-10


@pytest.mark.parametrize("sharing, kv, d_v", [("none", None, 20), ("mqa", 1, 20),
                                              ("kv", None, 20), ("none", None, 90)])
def test_the_gaussian_model_has_its_exact_mean_eigenvalue(sharing, kv, d_v):
    """E m₁(n^-1/2 MHA^G) = γ_O θ₁ for independent V (exactly, at any n); with K = V the
    layer's m₁ is larger (θ₂ n/d_K more). d_V = 90 > n draws W_r V itself (not Z(VᵀV)^1/2)."""
    shape = nm.Shape(n=60, heads=3, d_k=d_v, d_v=d_v, d_o=40, kv_heads=kv, sharing=sharing)
    draws = [nm.measure_output_draw(shape, 1.0, 0, k) for k in range(30)]
    m1 = np.array([np.mean(d.gaussian) for d in draws])
    expected = shape.gammas[2] * thetas(1.0)[0]
    if sharing == "kv":
        assert m1.mean() > expected * 1.5
    else:
        assert abs(m1.mean() - expected) <= 5 * m1.std(ddof=1) / np.sqrt(m1.size)
    assert all(d.softmax.size == d.gaussian.size == 60 for d in draws)


def test_draws_are_reproducible_and_streams_independent():
    shape = nm.Shape(n=40, heads=2, d_k=10, d_v=10, d_o=30)
    a, b = (nm.measure_output_draw(shape, 1.0, 5, 1) for _ in range(2))
    assert np.array_equal(a.softmax, b.softmax) and np.array_equal(a.gaussian, b.gaussian)
    c = nm.measure_output_draw(shape, 1.0, 5, 2)
    assert not np.array_equal(a.softmax, c.softmax)


def test_relative_w1_of_sorted_spectra():
    assert nm.relative_w1(np.array([3.0, 1.0]), np.array([1.5, 2.0]), 2.0) == pytest.approx(0.375)


@pytest.mark.parametrize("kwargs, match", [
    ({"sharing": "mqa", "kv_heads": 3}, "kv_heads must divide heads"),
    ({"sharing": "none", "kv_heads": 2}, "kv_heads must equal heads"),
    ({"sharing": "kv", "d_v": 7}, "d_v must equal d_k"),
    ({"sharing": "gqa"}, "sharing must be"),
    ({"d_o": 0}, "d_o must be"),
])
def test_bad_shapes_are_refused(kwargs, match):
    base = {"n": 40, "heads": 4, "d_k": 10, "d_v": 10, "d_o": 30}
    with pytest.raises(ValueError, match=match):
        nm.Shape(**{**base, **kwargs})


def test_memory_guard_refuses_a_layer_that_cannot_fit():
    with pytest.raises(ValueError, match="GiB"):
        nm.require_output_memory(nm.Shape(n=10**6, heads=1, d_k=1, d_v=1, d_o=1))


def test_wide_layers_give_the_spectra_of_the_direct_product_in_law(monkeypatch):
    """h d_V = 120 > 2n = 60 and d_O = 80 >= 2n: the Bartlett route against W^O multiplied out
    (``WIDE_RATIO`` raised): m_1, m_2 of both spectra and their distance agree within 4 se over
    40 draws each, and m_1 of the Gaussian model is gamma_O theta1."""
    shape = nm.Shape(n=30, heads=2, d_k=60, d_v=60, d_o=80)

    def stats():
        rows = [[np.mean(d.softmax), np.mean(d.softmax**2), np.mean(d.gaussian),
                 np.mean(d.gaussian**2), nm.relative_w1(d.softmax, d.gaussian, 1.0)]
                for d in (nm.measure_output_draw(shape, 1.0, 3, k) for k in range(40))]
        return np.mean(rows, axis=0), np.std(rows, axis=0, ddof=1) / np.sqrt(len(rows))

    wide, wide_se = stats()
    monkeypatch.setattr(nm, "WIDE_RATIO", 10**9)
    direct, direct_se = stats()
    assert not np.allclose(wide, direct)                 # two routes, not one
    assert np.all(np.abs(wide - direct) <= 4 * np.sqrt(wide_se**2 + direct_se**2))
    assert wide[2] == pytest.approx(shape.gammas[2] * thetas(1.0)[0], rel=0.05)


@pytest.mark.parametrize("inputs", nm.INPUTS)
def test_the_rivals_leave_the_layer_and_its_model_as_they_were(inputs):
    """With ``rivals`` the fresh-noise model and the surrogate come from their own generator
    and the same W_r: the softmax and Gaussian spectra keep their bytes (not wide), the fresh
    model's m₁ is the model's γ_O θ₁ and the surrogate's too, in mean over draws."""
    shape = nm.Shape(n=48, heads=2, d_k=12, d_v=12, d_o=40)
    plain = nm.measure_output_draw(shape, 1.0, 4, 0, inputs=inputs, d=64)
    both = nm.measure_output_draw(shape, 1.0, 4, 0, rivals=True, inputs=inputs, d=64)
    assert np.array_equal(plain.softmax, both.softmax)
    assert np.array_equal(plain.gaussian, both.gaussian)
    assert not np.array_equal(both.fresh, both.gaussian)
    if inputs == "orthonormal":
        draws = [nm.measure_output_draw(shape, 1.0, 4, k, rivals=True) for k in range(30)]
        for key in ("fresh", "surrogate"):
            m1 = np.array([np.mean(getattr(d, key)) for d in draws])
            expected = shape.gammas[2] * thetas(1.0)[0]
            assert abs(m1.mean() - expected) <= 5 * m1.std(ddof=1) / np.sqrt(m1.size)


@pytest.mark.parametrize("sharing, kv", [("none", None), ("mqa", 1)])
def test_the_gaussian_model_on_gaussian_inputs_has_its_exact_mean_eigenvalue(sharing, kv):
    """With Gaussian inputs (n = 40 > d = 24) E m₁(n^-1/2 MHA^G) is ``theory.input_models
    .output_m1_exact`` (Wick's theorem, exact at every n): 1500 draws agree within 4 se, and
    reject the orthonormal inputs' γ_Oθ₁ (the rival: G = XXᵀ taken for I) by far."""
    from attnge.theory.input_models import output_m1_exact
    shape = nm.Shape(n=40, heads=2, d_k=10, d_v=10, d_o=30, kv_heads=kv, sharing=sharing)
    m1 = np.array([np.mean(nm.measure_output_draw(shape, 0.8, 0, k, inputs="gaussian",
                                                   d=24).gaussian) for k in range(1500)])
    t1, t2 = thetas(0.8)
    se = m1.std(ddof=1) / np.sqrt(m1.size)
    assert abs(m1.mean() - float(output_m1_exact(40, 24, 30, t1, t2))) <= 4 * se
    assert abs(m1.mean() - shape.gammas[2] * float(t1)) >= 30 * se


def test_gaussian_inputs_run_longer_than_wide_and_need_d():
    shape = nm.Shape(n=80, heads=2, d_k=8, d_v=8, d_o=32)
    draw = nm.measure_output_draw(shape, 1.0, 0, 0, inputs="gaussian", d=40)
    assert draw.softmax.size == draw.gaussian.size == 80
    with pytest.raises(ValueError, match="inputs must be one of"):
        nm.measure_output_draw(shape, 1.0, 0, 0, inputs="uniform")
    with pytest.raises(ValueError, match="d must be"):
        nm.measure_output_draw(shape, 1.0, 0, 0, inputs="gaussian")
