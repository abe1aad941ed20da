"""Every model of the chain √ℓA⊥ → Y → Y^f → Y^Q → Y^lin_Q → Y^lin_f, from one draw.

The definitions are the project's own (docs/math.md §4), with f(x) = e^{βx − β²/2} − 1,
u = 𝟙/√ℓ, P = uuᵀ, P⊥ = I − P and ρ = K Kᵀ/d_qk:

=========== ======================================= ==========================
key         model                                   relation to the previous
=========== ======================================= ==========================
M0          √ℓ A P⊥ = √ℓ (A − P)                    —
Y           e^{βS − β²/2} P⊥ / √ℓ                   M0 = D⁻¹ Y exactly
Y_f         f(S) / √ℓ                               Y = Y^f P⊥ (rank-one gap)
Y_Q         (f(S) − 𝟙cᵀ) / √ℓ, c_j = E[f(S_ij)|K]   rank-one gap
Y_lin_Q     G Σ_f^{1/2} / √ℓ                        new randomness (G)
Y_lin_f     G Σ_G^{1/2} / √ℓ                        same G as Y_lin_Q
surrogate   √θ₁ Z / √ℓ                              i.i.d. (Marchenko–Pastur)
=========== ======================================= ==========================

Y_lin_f has, given K, the law of (βS + √(θ₁ − θ₂) Z′)/√ℓ: the rows of both are
i.i.d. N(0, Σ_G). Sharing G with Y_lin_Q makes the norm of their difference
meaningful on one draw.

Randomness: G and Z are drawn from the ``rng`` passed to :func:`chain_models`, in this
fixed order: first G = ``rng.standard_normal((ℓ, ℓ))``, then Z =
``rng.standard_normal((ℓ, ℓ))``. Nothing else is drawn, so a draw is reproducible
from (draw, β, the state of rng).

Σ_f and c assume that, given K, the rows of Q have i.i.d. N(0, 1) entries (the case of
an input X with orthonormal rows); for another X they are the covariance of that case.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from attnge.numerics.sampling import ScoreDraw, attention, normalizer, scaled_perp
from attnge.numerics.spectra import row_gram
from attnge.theory.exponential import f_values, thetas
from attnge.theory.inputs import positive
from attnge.theory.linear_model import c_of_K, sigma_f, sigma_G

__all__ = [
    "CHAIN_STEPS",
    "MODEL_KEYS",
    "MODELS_MATRICES",
    "ChainDiagonals",
    "chain_diagonals",
    "chain_models",
    "gaussian_models",
    "key_gram",
    "psd_sqrt",
    "score_models",
]

MODEL_KEYS: tuple[str, ...] = ("M0", "Y", "Y_f", "Y_Q", "Y_lin_Q", "Y_lin_f", "surrogate")
"""The keys of :func:`chain_models`, in the order of the chain."""

CHAIN_STEPS: tuple[tuple[str, str], ...] = tuple(itertools.pairwise(MODEL_KEYS[:-1]))
"""Consecutive pairs of the chain, M0 → Y → … → Y_lin_f (the surrogate is no step)."""

MODELS_MATRICES = 11
"""ℓ×ℓ float64 arrays alive at the peak of :func:`chain_models` and a spectrum of one of its
models, besides Q and K (measured: peak resident memory of one draw at ℓ = d_qk = 1000)."""

NEGATIVE_EIGENVALUE_RTOL = 1e-10
"""Eigenvalues below −rtol·max|λ| of a covariance are an error, not rounding."""


class ChainDiagonals(NamedTuple):
    """The diagonal matrices of the exact identities, as vectors.

    D : D_ii = Z_i / (ℓ e^{β²/2}), so that M0 = D⁻¹ Y.
    c : c_j = E[f(S_ij) | K], so that Y^Q = Y^f − 𝟙cᵀ/√ℓ.
    """

    D: np.ndarray
    c: np.ndarray


def _check_draw(draw: ScoreDraw) -> None:
    if not isinstance(draw, ScoreDraw):
        raise ValueError(f"draw must be a ScoreDraw (got {type(draw).__name__})")  # noqa: TRY004
    ell = draw.S.shape[0]
    if draw.S.shape != (ell, ell) or draw.K.shape[0] != ell:
        raise ValueError(
            f"draw must have a square S and ℓ rows of K (got S {draw.S.shape}, K {draw.K.shape})"
        )


def key_gram(K: np.ndarray, d_qk: int = 0) -> np.ndarray:
    """ρ = K Kᵀ / d_qk, the conditional covariance of a row of S given K.

    ``d_qk``: the width K stands for, when K is given in coordinates of a smaller subspace
    (``numerics.sampling.ScoreDraw.width``); 0: K's own width.

    Notes
    -----
    .. math:: \\rho = K K^\\top / d_{qk}, \\qquad S_{i\\cdot} \\mid K \\sim N(0, \\rho).
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[1] == 0:
        raise ValueError(f"K must be a matrix with at least one column (got shape {K.shape})")
    rho = row_gram(K)
    rho /= d_qk or K.shape[1]
    return rho


def _key_variances(K: np.ndarray, d_qk: int = 0) -> np.ndarray:
    """ρ_jj = ‖k_j‖²/d_qk, the one computation of the diagonal used for c."""
    return np.einsum("ij,ij->i", K, K) / (d_qk or K.shape[1])


def psd_sqrt(
    sigma: np.ndarray, name: str = "sigma", rtol: float = NEGATIVE_EIGENVALUE_RTOL
) -> np.ndarray:
    """Symmetric square root of a positive semi-definite matrix, via ``eigh``.

    Parameters
    ----------
    sigma : numpy.ndarray, shape (n, n)
        Symmetric PSD matrix (only its lower triangle is read by ``eigh``).
    name : str
        The name used in the error message.
    rtol : float
        Eigenvalues in [−rtol·max|λ|, 0) are rounding and are clipped to 0; a more
        negative one raises.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        Σ^{1/2} = V diag(√λ) Vᵀ.

    Raises
    ------
    ValueError
        If ``sigma`` is not square or has a significantly negative eigenvalue.

    Notes
    -----
    .. math:: \\Sigma = V \\operatorname{diag}(\\lambda) V^\\top, \\qquad
              \\Sigma^{1/2} = V \\operatorname{diag}(\\sqrt{\\max(\\lambda, 0)}) V^\\top.
    """
    sigma = np.asarray(sigma, dtype=np.float64)
    if sigma.ndim != 2 or sigma.shape[0] != sigma.shape[1]:
        raise ValueError(f"{name} must be a square matrix (got shape {sigma.shape})")
    if not np.all(np.isfinite(sigma)):
        raise ValueError(f"{name} must have finite entries")
    lam, vecs = np.linalg.eigh(sigma)
    scale = np.max(np.abs(lam)) if lam.size else 0.0
    if lam.size and lam[0] < -rtol * scale:
        raise ValueError(
            f"{name} is not positive semi-definite: smallest eigenvalue {lam[0]:.3e} "
            f"(largest |eigenvalue| {scale:.3e}, tolerance {rtol:.0e} relative)"
        )
    vecs *= np.sqrt(np.sqrt(np.clip(lam, 0.0, None)))  # (V λ^{1/4})(V λ^{1/4})ᵀ = V λ^{1/2} Vᵀ
    return vecs @ vecs.T


def chain_diagonals(draw: ScoreDraw, beta: float) -> ChainDiagonals:
    """The vectors D (normalizer) and c (centring given K) of one draw.

    Parameters
    ----------
    draw : ScoreDraw
        One draw of Q, K, S.
    beta : float
        Inverse temperature, β > 0.

    Returns
    -------
    ChainDiagonals
        ``D`` of shape (ℓ,) and ``c`` of shape (ℓ,).

    Notes
    -----
    .. math:: D_{ii} = \\frac{1}{\\ell e^{\\beta^2/2}} \\sum_j e^{\\beta S_{ij}}, \\qquad
              c_j = e^{\\beta^2(\\rho_{jj} - 1)/2} - 1,\\ \\rho_{jj} = \\|k_j\\|^2/d_{qk}.
    """
    _check_draw(draw)
    beta = positive(beta, "beta")
    return ChainDiagonals(D=normalizer(draw.S, beta),
                          c=c_of_K(_key_variances(draw.K, draw.d_qk), beta))


def score_models(draw: ScoreDraw, beta: float) -> Iterator[tuple[str, np.ndarray]]:
    """M0, Y, Y^f, Y^Q of one draw, in the chain's order, each built when it is asked for.

    S is read up front (the draw is not kept): a consumer that drops its own references to
    the draw and keeps the previous model and the current one holds no more than that and
    Y^f (shared with the generator until Y^Q is built). Notes: see :func:`chain_models`.
    """
    _check_draw(draw)
    beta = positive(beta, "beta")
    S = draw.S
    root = np.sqrt(S.shape[0])
    c = c_of_K(_key_variances(draw.K, draw.d_qk), beta)
    del draw                        # S only, from here (Q and K go with the caller's refs)
    m0 = scaled_perp(attention(S, beta))
    y_f = f_values(S, beta)
    del S
    y_f /= root
    yield "M0", m0
    del m0
    yield "Y", y_f - y_f.mean(axis=1, keepdims=True)
    yield "Y_f", y_f
    yield "Y_Q", y_f - c[None, :] / root


def gaussian_models(rho: np.ndarray, sigma: np.ndarray, beta: float,
                    rng: np.random.Generator) -> Iterator[tuple[str, np.ndarray]]:
    """Y^lin_Q = GΣ_f^{1/2}/√ℓ, then Y^lin_f = GΣ_G^{1/2}/√ℓ, on one G = ``rng.standard_normal``.

    ``sigma`` is Σ_f (``sigma_f(rho, beta)``), released once its root is taken (a caller
    that keeps no reference of its own saves that array); ``rho`` gives Σ_G. Notes: see
    :func:`chain_models`.
    """
    beta = positive(beta, "beta")
    if not isinstance(rng, np.random.Generator):
        msg = f"rng must be a numpy.random.Generator (got {type(rng).__name__})"
        raise ValueError(msg)  # noqa: TRY004
    ell = rho.shape[0]
    root = np.sqrt(ell)
    # both roots before G is drawn: eigh's copy and workspace come while little else is alive
    sqrt_f = psd_sqrt(sigma, name="Sigma_f")
    del sigma
    sigma = sigma_G(rho, beta)
    del rho
    sqrt_g = psd_sqrt(sigma, name="Sigma_G")
    del sigma
    G = rng.standard_normal((ell, ell))
    y = G @ sqrt_f
    del sqrt_f
    y /= root
    yield "Y_lin_Q", y
    del y
    y = G @ sqrt_g
    del sqrt_g, G
    y /= root
    yield "Y_lin_f", y


def chain_models(draw: ScoreDraw, beta: float, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """All models of the chain, and the i.i.d. surrogate, on one draw.

    Parameters
    ----------
    draw : ScoreDraw
        One draw of Q, K, S (ℓ×ℓ scores).
    beta : float
        Inverse temperature, β > 0.
    rng : numpy.random.Generator
        Source of G, then Z (each ℓ×ℓ standard normal, in that order).

    Returns
    -------
    dict[str, numpy.ndarray]
        Keys ``MODEL_KEYS``; each value a float64 ℓ×ℓ matrix.

    Raises
    ------
    ValueError
        On a bad ``draw``, ``beta`` or ``rng``, or if Σ_f or Σ_G has a significantly
        negative eigenvalue.

    Notes
    -----
    .. math::
        M_0 = \\sqrt\\ell\\,(A - P),\\quad Y = e^{\\beta S - \\beta^2/2}P_\\perp/\\sqrt\\ell,\\quad
        Y^f = f(S)/\\sqrt\\ell,\\quad Y^Q = (f(S) - \\mathbb 1 c^\\top)/\\sqrt\\ell,

        Y^{lin}_Q = G\\Sigma_f^{1/2}/\\sqrt\\ell,\\quad
        Y^{lin}_f = G\\Sigma_G^{1/2}/\\sqrt\\ell,\\quad
        \\text{surrogate} = \\sqrt{\\theta_1}\\, Z/\\sqrt\\ell.

    M0 is computed from the softmax (``sampling.attention``), Y from f(S) (``expm1``)
    by removing row means, so that M0 = D⁻¹Y is a check, not a construction. The models
    come from :func:`score_models` and :func:`gaussian_models`, which build them one at a
    time (``numerics.measure`` keeps two alive).
    """
    _check_draw(draw)
    beta = positive(beta, "beta")
    rho = key_gram(draw.K, draw.d_qk)
    models = dict(score_models(draw, beta))
    models.update(gaussian_models(rho, sigma_f(rho, beta), beta, rng))
    ell = rho.shape[0]
    scale = np.sqrt(thetas(beta)[0]) / np.sqrt(ell)
    models["surrogate"] = rng.standard_normal((ell, ell)) * scale
    return models
