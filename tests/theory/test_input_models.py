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


GAMMA, GAMMA_O, N = sp.symbols("gamma gamma_O n", positive=True)


def test_the_layer_output_s_mean_eigenvalue_by_two_routes():
    """Freeness (γ_O(θ₁ + γθ₂) for Gaussian rows, γ_Oθ₁ for orthonormal ones) and the exact
    Wick expectation of the Gaussian model's m₁ at finite n, taken to n → ∞ with n/d = γ and
    d_O/n = γ_O, agree exactly; other inputs are refused by name."""
    free = im.output_m1("gaussian", GAMMA, T1, T2, GAMMA_O)
    assert free == sp.expand(GAMMA_O * (T1 + GAMMA * T2))
    exact = im.output_m1_exact(N, N / GAMMA, GAMMA_O * N, T1, T2)
    assert sp.simplify(sp.limit(exact, N, sp.oo) - free) == 0
    assert im.output_m1("orthonormal", None, T1, T2, GAMMA_O) == GAMMA_O * T1
    with pytest.raises(ValueError, match="inputs must be one of orthonormal, gaussian"):
        im.output_m1("repeated", 2, T1, T2, GAMMA_O)


def test_the_exact_trace_product_of_a_wishart_matrix():
    """d³E[tr G tr G²] of ``output_m1_exact`` against a sampled mean (n = 7, d = 5, 40000
    Wishart matrices): within 4 se, and the product of the means E tr G · E tr G², which the
    count of coinciding rows corrects, is rejected."""
    n, d = 7, 5
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((40000, n, d))
    W = np.einsum("bij,bik->bjk", Z, Z)
    product = np.trace(W, axis1=1, axis2=2) * np.einsum("bij,bji->b", W, W)
    mean, se = product.mean(), product.std() / np.sqrt(product.size)
    t1, t2 = sp.Rational(3), sp.Rational(1)      # m₁ = (d_O/n³)(θ₂ E[trG trG²] + 2n²)
    exact = im.output_m1_exact(n, d, n**3, t1, t2) - 2 * n**2
    assert abs(mean / d**3 - float(exact)) <= 4 * se / d**3
    means = n * d * n * d * (n + d + 1) / d**3       # E tr G · E tr G², without the correction
    assert abs(mean / d**3 - means) > 10 * se / d**3
