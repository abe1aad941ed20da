"""Input models: both routes give one prediction; the repeated-token identity holds exactly."""

import numpy as np
import pytest
import sympy as sp

from attnge.numerics import spectra
from attnge.numerics.sampling import attention
from attnge.theory import input_models as im

T1, T2, Y, V, B = sp.symbols("theta1 theta2 y v beta", positive=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(im.MODELS))
def test_free_probability_and_the_second_route_agree(name):
    a = im.moments(name, V, T1, T2, Y, B)
    b = im.moments_second_route(name, V, T1, T2, Y, B)
    assert [sp.simplify(p - q) for p, q in zip(a, b)] == [0, 0]


def test_the_closed_forms():
    assert im.moments("gaussian", V, T1, T2, Y) == (T1, sp.expand(2 * T1**2 + (Y + 2 * V) * T2**2))
    assert im.moments("repeated", 3, T1, T2, Y) == (T1, 6 * T1**2 + Y * T2**2)
    t1, t2, s2 = im.shared_mean_thetas(1, sp.Rational(1, 2))
    assert (t1, t2, s2) == (sp.exp(sp.Rational(1, 4)) - 1, sp.Rational(1, 4), sp.Rational(1, 4))


def test_repeated_tokens_blow_up_the_vocabulary_s_spectrum():
    """√ℓA⊥ of r copies of each of V tokens has the V×V attention's nonzero spectrum, times r:
    the identity the repeated model rests on, to rounding."""
    rng = np.random.default_rng(0)
    V_, r, d = 50, 3, 40
    Q, K = rng.standard_normal((V_, d)), rng.standard_normal((V_, d))
    tokens = rng.permutation(np.arange(V_ * r) % V_)
    small = attention(Q @ K.T / np.sqrt(d), 1.0)
    big = attention(Q[tokens] @ K[tokens].T / np.sqrt(d), 1.0)
    ell = V_ * r
    e_small = spectra.squared_singular_values(np.sqrt(V_) * (small - 1 / V_))
    e_big = np.sort(spectra.squared_singular_values(np.sqrt(ell) * (big - 1 / ell)))[::-1]
    assert np.allclose(e_big[:V_], r * np.sort(e_small)[::-1], rtol=1e-9, atol=1e-12)
    assert np.max(np.abs(e_big[V_:])) < 1e-10


def test_bad_input_models_are_refused():
    with pytest.raises(ValueError, match="inputs must be one of"):
        im.model_named("images")
