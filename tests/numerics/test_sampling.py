"""Sampling: shapes, exact identities, stability, reproducibility, explicit inputs."""

import numpy as np
import pytest

from attnge.numerics.sampling import (
    attention,
    bartlett_rows,
    draw_rng,
    log_normalizer,
    normalizer,
    orthonormal_input,
    sample_scores,
)


def test_shapes_and_scaling():
    draw = sample_scores(50, 80, draw_rng(0, "t", 50, 0))
    assert draw.Q.shape == (50, 80) and draw.K.shape == (50, 80) and draw.S.shape == (50, 50)
    np.testing.assert_allclose(draw.S, draw.Q @ draw.K.T / np.sqrt(80), rtol=1e-14)
    assert (draw.ell, draw.d_qk) == (50, 80)


def test_attention_rows_and_normalizer_identity():
    S = sample_scores(60, 60, draw_rng(1, "t", 60, 0)).S
    beta = 1.3
    A = attention(S, beta)
    np.testing.assert_allclose(A.sum(axis=1), 1, atol=1e-14)
    D = normalizer(S, beta)
    # A_ij = e^{βS_ij} / Z_i and Z_i = ℓ e^{β²/2} D_ii
    expected = np.exp(beta * S) / (60 * np.exp(beta**2 / 2) * D[:, None])
    np.testing.assert_allclose(A, expected, rtol=1e-12)


def test_streams_reproducible_and_independent():
    a = sample_scores(30, 30, draw_rng(7, "step", 30, 0)).S
    b = sample_scores(30, 30, draw_rng(7, "step", 30, 0)).S
    c = sample_scores(30, 30, draw_rng(7, "step", 30, 1)).S
    d = sample_scores(30, 30, draw_rng(7, "other", 30, 0)).S
    assert np.array_equal(a, b)
    assert not np.allclose(a, c) and not np.allclose(a, d)


def test_explicit_orthonormal_input():
    rng = draw_rng(3, "t", 20, 0)
    X = orthonormal_input(20, 64, rng)
    np.testing.assert_allclose(X @ X.T, np.eye(20), atol=1e-13)
    draw = sample_scores(20, 16, rng, X=X)
    assert draw.S.shape == (20, 20)
    # with orthonormal X the scores have unit variance on average
    scores = np.concatenate([sample_scores(20, 200, draw_rng(4, "t", 20, i), X=X).S.ravel()
                             for i in range(20)])
    assert abs(scores.var() - 1) < 0.05


def test_gaussian_input_changes_the_law():
    rng = draw_rng(5, "t", 30, 0)
    X = rng.standard_normal((30, 60))  # rows of norm² ≈ 60, not orthonormal
    S = sample_scores(30, 50, rng, X=X).S
    assert S.var() > 100


def test_bad_input():
    with pytest.raises(ValueError, match="X must be a matrix with ell=5 rows"):
        sample_scores(5, 3, draw_rng(0, "t", 5, 0), X=np.ones((4, 3)))
    with pytest.raises(ValueError, match="d must be >= ell"):
        orthonormal_input(10, 5, draw_rng(0, "t", 10, 0))


def score_variance_z(sampler, draws: int = 6, ell: int = 200, d: int = 100) -> float:
    """z of the sampled E S_ij² against its exact value 1 (S = QKᵀ/√d_qk, i.i.d. N(0, 1)).

    Given K, the rows of S are i.i.d., so each draw gives one unbiased mean of S²; its
    spread over draws is the standard error.
    """
    means = np.array([np.mean(sampler(ell, d, draw_rng(11, "t", ell, k)).S ** 2)
                      for k in range(draws)])
    return float((means.mean() - 1) / (means.std(ddof=1) / np.sqrt(draws)))


def test_score_variance_is_one():
    assert abs(score_variance_z(sample_scores)) <= 5


def test_score_variance_catches_keys_ten_percent_wide():
    def wide_keys(ell, d, rng, X=None):
        draw = sample_scores(ell, d, rng, X)
        return type(draw)(Q=draw.Q, K=1.1 * draw.K, S=1.1 * draw.S)
    assert abs(score_variance_z(wide_keys)) > 5


def naive_attention(S, beta):
    """softmax(βS) without the row-max shift: overflows once βS exceeds ~709.78."""
    e = np.exp(beta * S)
    return e / e.sum(axis=1, keepdims=True)


def stable(attention_fn, S, beta) -> bool:
    A = attention_fn(S, beta)
    return bool(np.all(np.isfinite(A)) and np.allclose(A.sum(axis=1), 1))


def test_stable_beyond_the_overflow_point():
    S = sample_scores(40, 40, draw_rng(2, "t", 40, 0)).S
    beta = 400.0
    assert beta * S.max() > 710          # e^{βS} overflows float64 here
    with np.errstate(over="ignore", invalid="ignore"):
        assert not stable(naive_attention, S, beta)
    assert stable(attention, S, beta)
    assert np.all(np.isfinite(log_normalizer(S, beta)))
    np.testing.assert_array_equal(attention(S, beta).argmax(axis=1), S.argmax(axis=1))


def test_the_bartlett_factor_has_the_gram_law_of_gaussian_vectors():
    """Rows of L: W = L L^T ~ Wishart_p(d, I): E W = d I, Var W_ii = 2d, Var W_ij = d."""
    p, d, n = 3, 7, 6000
    rng = np.random.default_rng(2)
    factors = [bartlett_rows(p, d, rng) for _ in range(n)]
    W = np.array([L @ L.T for L in factors])
    mean, var = W.mean(axis=0), W.var(axis=0, ddof=1)
    se_mean = np.sqrt(np.where(np.eye(p) == 1, 2 * d, d) / n)
    assert np.all(np.abs(mean - d * np.eye(p)) <= 4 * se_mean)
    expected_var = np.where(np.eye(p) == 1, 2.0 * d, float(d))
    np.testing.assert_allclose(var, expected_var, rtol=0.1)
    with pytest.raises(ValueError, match="d must be >= rows"):
        bartlett_rows(5, 4, rng)


def test_scores_beyond_twice_ell_come_from_the_bartlett_factor_with_the_same_law():
    """d_qk = 13 > 2 ell = 10: Q, K in 10 coordinates, S with E S^2 = 1 and
    E S^4 = 3 + 6/d_qk, key norms with mean 1 and variance 2/d_qk."""
    ell, d = 5, 13
    rng = np.random.default_rng(4)
    draws = [sample_scores(ell, d, rng) for _ in range(8000)]
    assert draws[0].Q.shape == (5, 10) and draws[0].d_qk == 13
    S = np.concatenate([x.S.ravel() for x in draws])
    assert np.mean(S**2) == pytest.approx(1.0, abs=0.02)
    assert np.mean(S**4) == pytest.approx(3 + 6 / d, rel=0.05)
    norms = np.concatenate([np.einsum("ij,ij->i", x.K, x.K) / d for x in draws])
    assert norms.mean() == pytest.approx(1.0, abs=0.01)
    assert norms.var() == pytest.approx(2 / d, rel=0.05)
