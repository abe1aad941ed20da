"""Masks and profiles: the causal sums, the two routes to the limit, the exact finite mean."""

import numpy as np
import pytest
import sympy as sp

from attnge.theory import masks, profiles

T1, T2, Y = sp.symbols("theta1 theta2 y", positive=True)


@pytest.mark.parametrize("ell", [1, 2, 7, 64, 300])
@pytest.mark.parametrize("name", list(masks.MASKS))
def test_closed_sums_are_the_profile_s(name, ell):
    mask = masks.MASKS[name]
    numeric = profiles.profile_sums(mask.weights(ell))
    closed = [float(sp.sympify(v).subs(masks._n, ell)) for v in mask.sums]
    assert numeric == pytest.approx(closed, rel=1e-12)


@pytest.mark.parametrize("name", list(masks.MASKS))
def test_exact_sums_and_continuum_give_one_limit(name):
    a = masks.limit_moments(name, T1, T2, Y)
    b = masks.limit_moments_continuum(name, T1, T2, Y)
    assert [sp.simplify(p - q) for p, q in zip(a, b)] == [0, 0]


def test_the_causal_limit_and_its_surrogate():
    assert masks.limit_moments("causal", T1, T2, Y) == (T1, 3 * T1**2 + Y * T2**2 / 2)
    assert masks.limit_moments("causal", T1, 0, Y)[1] == 3 * T1**2
    assert masks.limit_moments("none", T1, T2, Y) == (T1, 2 * T1**2 + Y * T2**2)


def test_the_exact_finite_mean_is_the_sampled_model_s():
    """Wick's sums against the masked linear model sampled at ℓ = 40 (1000 draws)."""
    ell, d, t1, t2 = 40, 20, 1.7, 1.0
    rng = np.random.default_rng(3)
    a = masks.MASKS["causal"].weights(ell)
    m2 = []
    for _ in range(1000):
        S = rng.standard_normal((ell, d)) @ rng.standard_normal((ell, d)).T / np.sqrt(d)
        Y_ = a * (np.sqrt(t2) * S + np.sqrt(t1 - t2) * rng.standard_normal((ell, ell)))
        G = Y_ @ Y_.T
        m2.append(np.sum(G * G) / ell)
    exact = float(masks.mean_moments("causal", ell, t1, t2, d)[1])
    assert exact == pytest.approx(profiles.mean_moments(a, t1, t2, d)[1], rel=1e-12)
    assert abs(np.mean(m2) - exact) < 4 * np.std(m2) / np.sqrt(len(m2))
    without = float(masks.mean_moments("causal", ell, t1, 0, d)[1])   # θ₂ dropped
    assert abs(np.mean(m2) - without) > 8 * np.std(m2) / np.sqrt(len(m2))
