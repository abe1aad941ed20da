"""Tests of numerics.chain: exact identities, ranks, shared randomness, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from attnge.numerics.chain import (
    CHAIN_STEPS,
    MODEL_KEYS,
    chain_diagonals,
    chain_models,
    key_gram,
    psd_sqrt,
)
from attnge.numerics.sampling import ScoreDraw, draw_rng, normalizer, sample_scores
from attnge.theory.linear_model import sigma_f, sigma_G

SEED = 20240611


def _draw(ell, d_qk, draw=0, beta=1.0):
    rng = draw_rng(SEED, "test_chain", ell, draw)
    scores = sample_scores(ell, d_qk, rng)
    return scores, rng


def _rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def _numerical_rank(M, rtol=1e-10):
    s = np.linalg.svd(M, compute_uv=False)
    return int(np.sum(s > rtol * max(s[0], 1e-300))) if s[0] > 0 else 0


@pytest.fixture(
    scope="module", params=[(0.5, 150), (1.0, 200), (1.5, 260)], ids=lambda p: f"b{p[0]}-d{p[1]}"
)
def chain200(request):
    beta, d_qk = request.param
    scores, rng = _draw(200, d_qk, beta=beta)
    return beta, scores, chain_models(scores, beta, rng), chain_diagonals(scores, beta)


def test_keys_shapes_dtypes(chain200):
    _, _scores, models, diags = chain200
    assert tuple(models) == MODEL_KEYS
    for M in models.values():
        assert M.shape == (200, 200) and M.dtype == np.float64 and np.all(np.isfinite(M))
    assert diags.D.shape == diags.c.shape == (200,)
    assert CHAIN_STEPS[0] == ("M0", "Y") and CHAIN_STEPS[-1] == ("Y_lin_Q", "Y_lin_f")


def test_M0_is_centred_scaled_softmax(chain200):
    beta, scores, models, _ = chain200
    ell = scores.ell
    E = np.exp(beta * scores.S)
    A = E / E.sum(axis=1, keepdims=True)
    assert _rel(models["M0"], np.sqrt(ell) * (A - 1.0 / ell)) < 1e-12
    np.testing.assert_allclose(models["M0"].sum(axis=1), 0.0, atol=1e-12)


def test_M0_equals_Dinv_Y(chain200):
    _, _, models, diags = chain200
    assert _rel(models["M0"], models["Y"] / diags.D[:, None]) < 1e-12


def test_Y_definition_and_Y_equals_Yf_Pperp(chain200):
    beta, scores, models, _ = chain200
    ell = scores.ell
    p_perp = np.eye(ell) - np.full((ell, ell), 1.0 / ell)
    direct = np.exp(beta * scores.S - beta**2 / 2) @ p_perp / np.sqrt(ell)
    assert _rel(models["Y"], direct) < 1e-12
    assert _rel(models["Y"], models["Y_f"] @ p_perp) < 1e-13


def test_Yf_minus_Y_is_rank_one_D_minus_one_u(chain200):
    """Y^f − Y = Y^f P = (D − 𝟙) uᵀ exactly, since Y^f u = f(S)𝟙/ℓ = D − 𝟙."""
    _, scores, models, diags = chain200
    diff = models["Y_f"] - models["Y"]
    assert _numerical_rank(diff) == 1
    u = np.full(scores.ell, 1.0 / np.sqrt(scores.ell))
    assert _rel(diff, np.outer(diags.D - 1.0, u)) < 1e-12


def test_YQ_minus_Yf_is_rank_one_c(chain200):
    _, scores, models, diags = chain200
    diff = models["Y_Q"] - models["Y_f"]
    assert _numerical_rank(diff) == 1
    expected = -np.outer(np.ones(scores.ell), diags.c) / np.sqrt(scores.ell)
    np.testing.assert_array_equal(
        diff, (models["Y_f"] - diags.c / np.sqrt(scores.ell)) - models["Y_f"]
    )
    assert _rel(diff, expected) < 1e-14


def test_full_rank_steps_are_not_low_rank(chain200):
    """The rank checks can fail: M0 − Y and Y_Q − Y_lin_Q are of full rank."""
    _, _, models, _ = chain200
    assert _numerical_rank(models["M0"] - models["Y"]) > 100
    assert _numerical_rank(models["Y_Q"] - models["Y_lin_Q"]) > 100


def test_diagonals(chain200):
    beta, scores, _, diags = chain200
    np.testing.assert_array_equal(diags.D, normalizer(scores.S, beta))
    rho_diag = np.sum(scores.K**2, axis=1) / scores.d_qk
    np.testing.assert_allclose(diags.c, np.expm1(beta**2 * (rho_diag - 1) / 2), rtol=0, atol=1e-14)


def test_rng_order_G_then_Z():
    """G is the first ℓ×ℓ normal draw after the scores, Z the second."""
    beta = 1.0
    scores, rng = _draw(80, 60)
    models = chain_models(scores, beta, rng)
    _, replay = _draw(80, 60)
    G, Z = replay.standard_normal((80, 80)), replay.standard_normal((80, 80))
    rho = key_gram(scores.K)
    root = np.sqrt(80)
    assert _rel(models["Y_lin_Q"], G @ psd_sqrt(sigma_f(rho, beta)) / root) < 1e-13
    assert _rel(models["Y_lin_f"], G @ psd_sqrt(sigma_G(rho, beta)) / root) < 1e-13
    assert _rel(models["surrogate"], np.sqrt(np.expm1(beta**2)) * Z / root) < 1e-14


def test_reproducible():
    scores_a, rng_a = _draw(60, 40)
    scores_b, rng_b = _draw(60, 40)
    a = chain_models(scores_a, 0.8, rng_a)
    b = chain_models(scores_b, 0.8, rng_b)
    for key in MODEL_KEYS:
        np.testing.assert_array_equal(a[key], b[key])


@pytest.mark.slow
def test_lin_models_share_G():
    """‖Y^lin_Q − Y^lin_f‖_F/‖Y^lin_f‖_F at β = 1, ℓ = d_qk = 400.

    Measured ≈ 0.074 ± 0.002 over 8 draws (≈ 1.5/√ℓ at ℓ = 200, 400, 800); with
    independent G it would be ≈ √2. The bound 0.15 (twice the measured value) separates
    the two; the lower bound 0.03 says Σ_f and Σ_G really differ.
    """
    scores, rng = _draw(400, 400)
    models = chain_models(scores, 1.0, rng)
    ratio = _rel(models["Y_lin_Q"], models["Y_lin_f"])
    assert 0.03 < ratio < 0.15
    other = chain_models(scores, 1.0, np.random.default_rng(1))
    assert _rel(other["Y_lin_Q"], models["Y_lin_f"]) > 1.2


def test_column_means_match_c():
    """Given K, rows are i.i.d. with mean c and covariance Σ_f: a z-score along w = c − c̄."""
    beta, ell, d_qk, n_rows = 1.0, 150, 100, 3000
    rng = np.random.default_rng(11)
    K = rng.standard_normal((ell, d_qk))
    Q = rng.standard_normal((n_rows, d_qk))
    f = np.expm1(beta * (Q @ K.T) / np.sqrt(d_qk) - beta**2 / 2)
    scores = ScoreDraw(Q=Q[:ell], K=K, S=(Q[:ell] @ K.T) / np.sqrt(d_qk))
    c = chain_diagonals(scores, beta).c
    w = c - c.mean()
    sd = np.sqrt(w @ sigma_f(key_gram(K), beta) @ w / n_rows)
    means = f.mean(axis=0)
    assert abs(w @ (means - c)) < 5 * sd
    assert abs(w @ means) > 5 * sd  # c = 0 would be rejected: the check can fail


def test_psd_sqrt():
    rng = np.random.default_rng(3)
    B = rng.standard_normal((30, 10))
    sigma = B @ B.T  # rank 10: tiny negative eigenvalues from rounding
    root = psd_sqrt(sigma)
    np.testing.assert_array_equal(root, root.T)
    assert _rel(root @ root, sigma) < 1e-12
    assert np.linalg.eigvalsh(root)[0] > -1e-7
    with pytest.raises(ValueError, match="Sigma_x"):
        psd_sqrt(sigma - 0.1 * np.eye(30), name="Sigma_x")
    with pytest.raises(ValueError, match="sigma"):
        psd_sqrt(np.ones((2, 3)))


def test_bad_input():
    scores, rng = _draw(20, 10)
    for beta in (0.0, -1.0, np.nan, "a"):
        with pytest.raises(ValueError, match="beta"):
            chain_models(scores, beta, rng)
        with pytest.raises(ValueError, match="beta"):
            chain_diagonals(scores, beta)
    with pytest.raises(ValueError, match="draw"):
        chain_models(scores.S, 1.0, rng)
    with pytest.raises(ValueError, match="draw"):
        chain_models(ScoreDraw(Q=scores.Q, K=scores.K[:5], S=scores.S), 1.0, rng)
    with pytest.raises(ValueError, match="rng"):
        chain_models(scores, 1.0, 42)
    with pytest.raises(ValueError, match="K"):
        key_gram(np.ones(3))
