"""Random attention matrices at initialisation.

Q = X W^Q, K = X W^K with i.i.d. N(0, 1) weights, S = Q Kᵀ / √d_qk,
A = softmax(βS) row-wise, Z_i = Σ_j e^{βS_ij}, D_ii = Z_i / (ℓ e^{β²/2}).
For X with orthonormal rows, Q and K are independent ℓ×d_qk matrices with
i.i.d. N(0, 1) entries; that is what is sampled when no X is given.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np


def draw_rng(seed: int, step_id: str, ell: int, draw: int) -> np.random.Generator:
    """The generator of one draw, spawned from the run's seed.

    The stream depends only on (seed, step, ℓ, draw), never on which other steps,
    sizes or draws run, nor on how the work is split across processes.
    """
    key = (zlib.crc32(step_id.encode()), int(ell), int(draw))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(int(seed), spawn_key=key)))


def orthonormal_input(ell: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-random ℓ×d input X with orthonormal rows (X Xᵀ = I_ℓ), ℓ ≤ d."""
    if not 1 <= ell <= d:
        raise ValueError(f"d must be >= ell for orthonormal rows (got ell={ell}, d={d})")
    g = rng.standard_normal((d, ell))
    q, r = np.linalg.qr(g)
    return (q * np.sign(np.diag(r))).T


@dataclass(frozen=True)
class ScoreDraw:
    """One draw of queries, keys and scores S = Q Kᵀ / √d_qk.

    Q and K may be given in coordinates of a subspace that holds them all (``width``: the
    d_qk they stand for, when their own width is smaller): every quantity here depends on
    them through their Gram matrix only.
    """

    Q: np.ndarray
    K: np.ndarray
    S: np.ndarray
    width: int = 0

    @property
    def ell(self) -> int:
        return self.S.shape[0]

    @property
    def d_qk(self) -> int:
        return self.width or self.Q.shape[1]


BARTLETT_RATIO = 2
"""Above d_qk = 2ℓ, Q and K are drawn through the Bartlett factor of their Gram matrix."""


def bartlett_rows(rows: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` vectors in coordinates of a ``rows``-dimensional subspace, jointly distributed
    as ``rows`` i.i.d. N(0, I_d) vectors' Gram matrix requires (d ≥ rows).

    Bartlett: W = L Lᵀ ~ Wishart_p(d, I) for L lower triangular with L_ii² ~ χ²_{d−i}
    (i = 0 … p − 1) and N(0, 1) below the diagonal, all independent, so the rows of L have
    the Gram matrix of p Gaussian vectors in ℝ^d, in O(p²) draws instead of O(p d).
    ``scipy.stats.wishart`` samples W itself; the factor is what the scores need, and
    forming it from W would take a Cholesky factorisation more.
    """
    if d < rows:
        raise ValueError(f"d must be >= rows for the Bartlett factor (got d={d}, rows={rows})")
    L = np.tril(rng.standard_normal((rows, rows)), -1)
    L[np.diag_indices(rows)] = np.sqrt(rng.chisquare(d - np.arange(rows)))
    return L


def sample_scores(
    ell: int, d_qk: int, rng: np.random.Generator, X: np.ndarray | None = None
) -> ScoreDraw:
    """Sample Q, K and S = Q Kᵀ/√d_qk.

    Parameters
    ----------
    ell, d_qk : sizes (tokens, query/key width).
    rng : the draw's generator.
    X : optional ℓ×d input. ``None`` samples Q, K with i.i.d. N(0, 1) entries, which
        is the law of X W^Q, X W^K for any X with orthonormal rows; any other matrix
        is used as given (Q = X W^Q with W^Q of shape d×d_qk).

    Notes
    -----
    Without X and for d_qk > 2ℓ (y < 1/2) the 2ℓ queries and keys are drawn in coordinates
    of a 2ℓ-dimensional subspace (``bartlett_rows``): the same law of S, Q Qᵀ and K Kᵀ
    jointly, at O(ℓ³) cost instead of O(ℓ² d_qk).
    """
    if X is None and d_qk > BARTLETT_RATIO * ell:
        L = bartlett_rows(2 * ell, d_qk, rng)
        Q, K = L[:ell], L[ell:]
        return ScoreDraw(Q=Q, K=K, S=(Q @ K.T) / np.sqrt(d_qk), width=d_qk)
    if X is None:
        Q = rng.standard_normal((ell, d_qk))
        K = rng.standard_normal((ell, d_qk))
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != ell:
            raise ValueError(f"X must be a matrix with ell={ell} rows (got shape {X.shape})")
        Q = X @ rng.standard_normal((X.shape[1], d_qk))
        K = X @ rng.standard_normal((X.shape[1], d_qk))
    return ScoreDraw(Q=Q, K=K, S=(Q @ K.T) / np.sqrt(d_qk))


def log_normalizer(S: np.ndarray, beta: float) -> np.ndarray:
    """log Z_i = log Σ_j e^{βS_ij}, computed stably (max-shifted, in one ℓ×ℓ array)."""
    bs = beta * S
    m = bs.max(axis=1)
    bs -= m[:, None]
    return m + np.log(np.exp(bs, out=bs).sum(axis=1))


def normalizer(S: np.ndarray, beta: float) -> np.ndarray:
    """D_ii = Z_i / (ℓ e^{β²/2}), the diagonal of D."""
    return np.exp(log_normalizer(S, beta) - np.log(S.shape[1]) - beta**2 / 2)


def attention(S: np.ndarray, beta: float) -> np.ndarray:
    """A = softmax(βS) row-wise, stable at large β (each row sums to one), in one ℓ×ℓ array."""
    e = beta * S
    e -= e.max(axis=1, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=1, keepdims=True)
    return e


def scaled_perp(A: np.ndarray) -> np.ndarray:
    """M0 = √ℓA⊥ of a row-stochastic ℓ×ℓ A, in place: A⊥ = A − uuᵀ (u = 𝟙/√ℓ, Au = u).

    .. math:: \\sqrt\\ell A^\\perp = \\sqrt\\ell\\,A - \\mathbb{1}\\mathbb{1}^\\top/\\sqrt\\ell

    One order of operations for every path that measures M0 (the chain draws and the law
    draws), so that the same scores give the same bits wherever M0 is built.
    """
    root = np.sqrt(A.shape[1])
    A *= root
    A -= 1.0 / root
    return A
