"""Spectra, moments and distances of the squared singular values of a matrix.

For an n×p matrix M, ν(M) is the empirical law of the squared singular values, i.e. of
the eigenvalues of the Gram matrix of the smaller side (M Mᵀ if n ≤ p, else MᵀM).
Spectra come from the eigenvalues of that Gram matrix (``syevd``, not ``svd``); moments
from traces of its powers where the whole spectrum is not needed. Moments are normalised
by the number of rows n, as the paper normalises by ℓ.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import svds

from attnge.theory.inputs import integer

__all__ = [
    "bulk",
    "frobenius_normalised",
    "kolmogorov_distance",
    "moments",
    "operator_norm",
    "spectral_moments",
    "squared_singular_values",
    "top_singular_values",
]


def _check_matrix(M: np.ndarray, name: str = "M") -> np.ndarray:
    M = np.asarray(M)
    if M.ndim != 2 or M.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (got shape {M.shape})")
    if not np.issubdtype(M.dtype, np.number) or np.iscomplexobj(M):
        raise ValueError(f"{name} must be a real numeric matrix (got dtype {M.dtype})")
    M = M.astype(np.float64, copy=False)
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} must have finite entries")
    return M


def _check_spectrum(eigs: np.ndarray, name: str = "eigs") -> np.ndarray:
    e = np.asarray(eigs)
    if e.ndim != 1 or e.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array (got shape {e.shape})")
    if not np.issubdtype(e.dtype, np.number) or np.iscomplexobj(e):
        raise ValueError(f"{name} must be real (got dtype {e.dtype})")
    e = e.astype(np.float64, copy=False)
    if not np.all(np.isfinite(e)):
        raise ValueError(f"{name} must have finite entries")
    return e


SYRK_MAX = 2**27
"""Operands above this many entries get their Gram matrix by row blocks: OpenBLAS's
``syrk`` (NumPy's ``A @ A.T``) crashes on large ones (numpy/numpy#19685; ℓ = 16384 here)."""


def row_gram(A: np.ndarray) -> np.ndarray:
    """A Aᵀ: one ``syrk``, or row blocks A[i:j] Aᵀ (``gemm``) for an operand over ``SYRK_MAX``."""
    if A.size <= SYRK_MAX:
        return A @ A.T
    n = A.shape[0]
    W = np.empty((n, n))
    step = max(1, SYRK_MAX // A.shape[1])
    for i in range(0, n, step):
        np.matmul(A[i:i + step], A.T, out=W[i:i + step])
    return W


def _gram(M: np.ndarray) -> np.ndarray:
    """Gram matrix of the smaller side: M Mᵀ if n ≤ p, else Mᵀ M."""
    return row_gram(M if M.shape[0] <= M.shape[1] else M.T)


def squared_singular_values(M: np.ndarray) -> np.ndarray:
    """The squared singular values of M, sorted descending, clipped at 0.

    Parameters
    ----------
    M : array_like, shape (n, p)

    Returns
    -------
    numpy.ndarray, shape (min(n, p),)

    Notes
    -----
    .. math:: s_k(M)^2 = \\lambda_k(M M^\\top) = \\lambda_k(M^\\top M),

    from ``eigvalsh`` (LAPACK ``syevd``) of the Gram matrix of the smaller side; rounding
    can make the smallest ones slightly negative, hence the clip. NumPy's LAPACK, not
    SciPy's: the two bundle their own OpenBLAS, whose idle threads spin, and alternating
    between them on two cores made the many small spectra of a sweep up to five times
    slower.

    Examples
    --------
    >>> squared_singular_values([[3.0, 0.0], [0.0, 2.0]]).tolist()
    [9.0, 4.0]
    """
    M = _check_matrix(M)
    eigs = np.linalg.eigvalsh(_gram(M))[::-1]
    return np.clip(eigs, 0.0, None)


def moments(M: np.ndarray, q_max: int) -> np.ndarray:
    """Spectral moments m_q = tr((M Mᵀ)^q)/n, q = 1..q_max, from traces.

    Parameters
    ----------
    M : array_like, shape (n, p)
        n is the number of rows (the normalisation).
    q_max : int
        Highest order, ≥ 1.

    Returns
    -------
    numpy.ndarray, shape (q_max,)
        ``out[q - 1] = m_q``.

    Notes
    -----
    With W the Gram matrix of the smaller side (same nonzero spectrum),

    .. math:: m_q = \\frac{1}{n}\\operatorname{tr}(W^q), \\qquad
              \\operatorname{tr} W^{2a} = \\|W^a\\|_F^2,\\quad
              \\operatorname{tr} W^{2a+1} = \\langle W^a, W^{a+1}\\rangle_F,

    so only the powers W, …, W^{⌈q_max/2⌉} are formed (symmetric, hence the Frobenius
    forms).

    Examples
    --------
    >>> moments([[3.0, 0.0], [0.0, 2.0]], 2).tolist()
    [6.5, 48.5]
    """
    M = _check_matrix(M)
    q_max = integer(q_max, "q_max", 1)
    W = _gram(M)
    powers = [W]
    while len(powers) < (q_max + 1) // 2:
        powers.append(powers[-1] @ W)
    out = np.empty(q_max)
    out[0] = np.trace(W)
    for q in range(2, q_max + 1):
        a = q // 2
        left = powers[a - 1]
        right = left if q % 2 == 0 else powers[a]
        out[q - 1] = np.vdot(left, right)
    return out / M.shape[0]


def spectral_moments(eigs: np.ndarray, q_max: int, remove_top: int = 0) -> np.ndarray:
    """Moments of a spectrum with its top values removed, normalised by the count kept.

    Parameters
    ----------
    eigs : array_like, shape (n,)
        A spectrum (e.g. ``squared_singular_values``), any order.
    q_max : int
        Highest order, ≥ 1.
    remove_top : int
        How many of the largest values to remove, 0 ≤ remove_top < n.

    Returns
    -------
    numpy.ndarray, shape (q_max,)

    Notes
    -----
    .. math:: m_q = \\frac{1}{n - r} \\sum_{k > r} \\lambda_{(k)}^q,

    λ_(1) ≥ λ_(2) ≥ … the sorted values, r = ``remove_top``.

    Examples
    --------
    >>> spectral_moments([1.0, 3.0, 100.0], 2, remove_top=1).tolist()
    [2.0, 5.0]
    """
    kept = _drop_top(eigs, remove_top, "remove_top")
    q_max = integer(q_max, "q_max", 1)
    return np.array([np.mean(kept**q) for q in range(1, q_max + 1)])


def clipped_moments(eigs: np.ndarray, q_max: int, clip_top: int) -> np.ndarray:
    r"""Moments of a spectrum whose top values are clipped to the next one.

    .. math:: m_q = \frac{1}{n}\Big(c\,\lambda_{(c+1)}^q + \sum_{k > c} \lambda_{(k)}^q\Big),
              \qquad c = \text{clip\_top}.

    All n values count, so the limit is that of the full spectrum; outliers above the bulk
    weigh no more than the edge, which keeps the spread of high moments small.

    >>> clipped_moments([1.0, 3.0, 100.0], 2, clip_top=1).tolist()
    [2.3333333333333335, 6.333333333333333]
    """
    kept = np.sort(_drop_top(eigs, clip_top, "clip_top"))[::-1]
    q_max = integer(q_max, "q_max", 1)
    n = kept.size + clip_top
    return np.array([(clip_top * kept[0]**q + np.sum(kept**q)) / n for q in range(1, q_max + 1)])


def bulk(eigs: np.ndarray, r: int = 3) -> np.ndarray:
    """The spectrum sorted descending with its top r values removed.

    Parameters
    ----------
    eigs : array_like, shape (n,)
    r : int
        How many of the largest values to remove, 0 ≤ r < n.

    Returns
    -------
    numpy.ndarray, shape (n - r,)

    Notes
    -----
    .. math:: \\{\\lambda_{(k)} : k > r\\}, \\qquad \\lambda_{(1)} \\ge \\lambda_{(2)} \\ge \\dots

    Examples
    --------
    >>> bulk([1.0, 5.0, 3.0, 2.0], r=1).tolist()
    [3.0, 2.0, 1.0]
    """
    return _drop_top(eigs, r, "r")


def _drop_top(eigs: np.ndarray, r: int, name: str) -> np.ndarray:
    e = _check_spectrum(eigs)
    r = integer(r, name, 0)
    if r >= e.size:
        raise ValueError(f"{name} must be smaller than the number of values {e.size} (got {r})")
    return np.sort(e)[::-1][r:]


def kolmogorov_distance(eigs_a: np.ndarray, eigs_b: np.ndarray) -> float:
    """Exact Kolmogorov distance sup_x |F_a(x) − F_b(x)| of two empirical laws.

    Parameters
    ----------
    eigs_a, eigs_b : array_like, 1-D
        Samples of the two laws (sizes may differ).

    Returns
    -------
    float
        In [0, 1].

    Notes
    -----
    .. math:: d_K(a, b) = \\sup_x |F_a(x) - F_b(x)|, \\qquad
              F_a(x) = \\frac{1}{n_a}\\#\\{k : a_k \\le x\\}.

    Both are right-continuous step functions that jump only at sample points, so the
    supremum is attained at a point of the merged sample; both are evaluated there
    (``searchsorted``, side ``right``) and the largest gap is exact.

    Examples
    --------
    >>> kolmogorov_distance([0.0, 1.0], [1.0, 2.0])
    0.5
    """
    a = np.sort(_check_spectrum(eigs_a, "eigs_a"))
    b = np.sort(_check_spectrum(eigs_b, "eigs_b"))
    grid = np.concatenate([a, b])
    F_a = np.searchsorted(a, grid, side="right") / a.size
    F_b = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(F_a - F_b)))


def operator_norm(M: np.ndarray) -> float:
    """The largest singular value ‖M‖ = s₁(M).

    Notes
    -----
    .. math:: \\|M\\| = \\sqrt{\\lambda_{max}(W)},

    W the Gram matrix of the smaller side.

    Examples
    --------
    >>> operator_norm([[3.0, 0.0], [0.0, -4.0]])
    4.0
    """
    return float(np.sqrt(squared_singular_values(M)[0]))


def top_singular_values(M: np.ndarray, k: int = 1, rtol: float = 0.0) -> np.ndarray:
    """s₁(M) ≥ … ≥ s_k(M) by Lanczos (``scipy.sparse.linalg.svds``), without the spectrum.

    ``rtol``: the relative accuracy asked of ARPACK (0: machine precision). A value
    separated from the next one converges fast whatever ``rtol`` (a rank-one matrix's s₁
    in one step); ``rtol`` buys speed for the top of a bulk. The starting vector is fixed,
    so the result is reproducible. Small matrices (min(n, p) ≤ k + 1) use the spectrum.

    Examples
    --------
    >>> top_singular_values([[3.0, 0.0, 0.0], [0.0, -4.0, 0.0], [0.0, 0.0, 1.0]], 1).tolist()
    [4.0]
    """
    M = _check_matrix(M)
    k = integer(k, "k", 1)
    n = min(M.shape)
    if k > n:
        raise ValueError(f"k must be at most min(n, p) = {n} (got {k})")
    if n <= k + 1:
        return np.sqrt(squared_singular_values(M)[:k])
    v0 = np.random.default_rng(0).standard_normal(n)
    s = svds(M, k=k, tol=rtol, v0=v0, return_singular_vectors=False)
    return np.sort(s)[::-1]


def frobenius_normalised(M: np.ndarray) -> float:
    """‖M‖_F / √n, n the number of rows (the root of the first moment m₁).

    Notes
    -----
    .. math:: \\|M\\|_F/\\sqrt n = \\Big(\\frac1n \\sum_{ij} M_{ij}^2\\Big)^{1/2}

    Examples
    --------
    >>> frobenius_normalised([[2.0, 0.0], [0.0, 2.0]])
    2.0
    """
    M = _check_matrix(M)
    return float(np.linalg.norm(M) / np.sqrt(M.shape[0]))
