"""Tests of numerics.spectra against np.linalg.svd and hand-made examples."""

from __future__ import annotations

import numpy as np
import pytest

from attnge.numerics.spectra import (
    bulk,
    frobenius_normalised,
    kolmogorov_distance,
    moments,
    operator_norm,
    spectral_moments,
    squared_singular_values,
    top_singular_values,
)

SHAPES = [(7, 7), (5, 9), (9, 5), (1, 4), (40, 25)]


def _matrix(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape) / np.sqrt(shape[1])


@pytest.mark.parametrize("shape", SHAPES)
def test_squared_singular_values_match_svd(shape):
    M = _matrix(shape)
    s = np.linalg.svd(M, compute_uv=False)
    eigs = squared_singular_values(M)
    assert eigs.shape == (min(shape),)
    assert np.all(np.diff(eigs) <= 0) and np.all(eigs >= 0)
    np.testing.assert_allclose(eigs, s**2, rtol=0, atol=1e-10 * s[0] ** 2)


def test_squared_singular_values_rank_deficient_clipped():
    M = np.outer(np.arange(1.0, 7.0), np.ones(6))  # rank one
    eigs = squared_singular_values(M)
    assert eigs[0] == pytest.approx(np.sum(np.arange(1.0, 7.0) ** 2) * 6, rel=1e-13)
    assert np.all(eigs >= 0) and np.all(eigs[1:] < 1e-10 * eigs[0])


@pytest.mark.parametrize("shape", SHAPES)
def test_moments_from_traces_match_spectrum(shape):
    M = _matrix(shape, seed=1)
    s2 = np.linalg.svd(M, compute_uv=False) ** 2
    expected = np.array([np.sum(s2**q) / shape[0] for q in range(1, 8)])
    np.testing.assert_allclose(moments(M, 7), expected, rtol=1e-10)
    for q_max in (1, 2, 3):
        np.testing.assert_allclose(moments(M, q_max), expected[:q_max], rtol=1e-10)


def test_moments_normalised_by_rows():
    M = np.array([[3.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    np.testing.assert_allclose(moments(M, 3), [13 / 2, 97 / 2, 793 / 2])
    np.testing.assert_allclose(moments(M.T, 1), [13 / 3])


def test_spectral_moments_and_bulk():
    eigs = np.array([0.5, 10.0, 2.0, 1.0, 30.0])
    np.testing.assert_allclose(
        spectral_moments(eigs, 2), [43.5 / 5, (0.25 + 100 + 4 + 1 + 900) / 5]
    )
    np.testing.assert_allclose(spectral_moments(eigs, 2, remove_top=2), [3.5 / 3, 5.25 / 3])
    np.testing.assert_array_equal(bulk(eigs, r=2), [2.0, 1.0, 0.5])
    np.testing.assert_array_equal(bulk(eigs, r=0), [30.0, 10.0, 2.0, 1.0, 0.5])
    np.testing.assert_array_equal(bulk(eigs), [1.0, 0.5])


def test_spectral_moments_agree_with_moments():
    M = _matrix((30, 30), seed=2)
    np.testing.assert_allclose(
        spectral_moments(squared_singular_values(M), 4), moments(M, 4), rtol=1e-10
    )


def test_kolmogorov_distance_examples():
    a = np.array([0.3, 1.0, 2.5, 4.0])
    assert kolmogorov_distance(a, a[::-1]) == 0.0
    assert kolmogorov_distance([1.0, 2.0], [3.0, 4.0, 5.0]) == 1.0
    assert kolmogorov_distance([0.0, 1.0], [1.0, 2.0]) == 0.5
    assert kolmogorov_distance([0.0, 2.0], [1.0, 3.0]) == 0.5
    assert kolmogorov_distance([1.0], [1.0, 1.0, 2.0, 3.0]) == 0.5  # ties: F_b(1) = 1/2
    assert kolmogorov_distance([0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0]) == 0.5


def test_kolmogorov_distance_against_brute_force():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(37), rng.standard_normal(53) + 0.3
    # every point where a step can sit, and just left of it, by plain counting
    grid = np.concatenate([a, b, a - 1e-9, b - 1e-9, [-10.0, 10.0]])
    brute = np.max(np.abs((a[:, None] <= grid).mean(0) - (b[:, None] <= grid).mean(0)))
    assert kolmogorov_distance(a, b) == brute
    assert kolmogorov_distance(b, a) == brute


def test_norms():
    M = _matrix((12, 8), seed=3)
    assert operator_norm(M) == pytest.approx(np.linalg.svd(M, compute_uv=False)[0], rel=1e-12)
    assert frobenius_normalised(M) == pytest.approx(np.linalg.norm(M) / np.sqrt(12), rel=1e-14)
    assert frobenius_normalised(M) ** 2 == pytest.approx(moments(M, 1)[0], rel=1e-12)


def test_top_singular_values_by_lanczos():
    M = _matrix((300, 200), seed=4)
    exact = np.linalg.svd(M, compute_uv=False)
    assert top_singular_values(M, 3) == pytest.approx(exact[:3], rel=1e-12)
    assert top_singular_values(M, 2, rtol=1e-6) == pytest.approx(exact[:2], rel=1e-6)
    assert np.array_equal(top_singular_values(M, 2, 1e-6), top_singular_values(M, 2, 1e-6))
    rank_one = np.outer(np.arange(1.0, 301.0), np.linspace(-1, 1, 200))
    assert top_singular_values(rank_one)[0] == pytest.approx(np.linalg.norm(rank_one), rel=1e-14)
    small = M[:3, :3]                                   # min(n, p) <= k + 1: the spectrum
    assert top_singular_values(small, 2) == pytest.approx(np.linalg.svd(small)[1][:2])
    with pytest.raises(ValueError, match="k must be at most"):
        top_singular_values(M[:3, :3], 4)


@pytest.mark.parametrize(
    "bad",
    [np.ones(3), np.ones((0, 3)), np.array([[np.nan, 1.0]]), np.array([["a"]]), np.array([[1j]])],
)
def test_bad_matrix(bad):
    for fn in (squared_singular_values, operator_norm, frobenius_normalised,
               top_singular_values):
        with pytest.raises(ValueError, match="M"):
            fn(bad)
    with pytest.raises(ValueError, match="M"):
        moments(bad, 2)


def test_bad_counts_and_spectra():
    eigs = np.arange(4.0)
    for q_max in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="q_max"):
            moments(np.eye(2), q_max)
        with pytest.raises(ValueError, match="q_max"):
            spectral_moments(eigs, q_max)
    for r in (-1, 4, 2.0):
        with pytest.raises(ValueError, match="remove_top"):
            spectral_moments(eigs, 2, remove_top=r)
        with pytest.raises(ValueError, match="r must"):
            bulk(eigs, r=r)
    with pytest.raises(ValueError, match="eigs"):
        bulk(np.ones((2, 2)))
    with pytest.raises(ValueError, match="eigs_a"):
        kolmogorov_distance([], [1.0])
    with pytest.raises(ValueError, match="eigs_b"):
        kolmogorov_distance([1.0], [np.inf])


def test_row_gram_by_blocks_is_the_gram_matrix(monkeypatch):
    """Above SYRK_MAX entries the Gram matrix comes from row blocks (OpenBLAS's syrk
    crashes on large operands); the blocks give the same matrix."""
    from attnge.numerics import spectra

    A = np.random.default_rng(3).standard_normal((37, 23))
    whole = spectra.row_gram(A)
    monkeypatch.setattr(spectra, "SYRK_MAX", 100)        # blocks of 4 rows
    assert np.allclose(spectra.row_gram(A), whole, rtol=1e-13, atol=1e-13)
    assert np.allclose(spectra.squared_singular_values(A.T),
                       np.linalg.svd(A, compute_uv=False) ** 2, rtol=1e-12)
