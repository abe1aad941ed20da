"""The spectrum of √ℓA⊥ and the Perron value of A on one draw (docs/math.md §5).

M0 = √ℓ(A − 𝟙𝟙ᵀ/ℓ) = √ℓA⊥ (A⊥ = A − uuᵀ, u = 𝟙/√ℓ, since A𝟙 = 𝟙), from one stream of
scores only: no model of the chain is built, so these draws are cheap enough to take
by the hundred at moderate ℓ. What survives a draw is O(ℓ) numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnge.numerics import spectra
from attnge.numerics.sampling import attention, draw_rng, sample_scores, scaled_perp
from attnge.theory.exponential import thetas

STREAM = "law"
POWER_TOL = 1e-15
POWER_STEPS = 200


@dataclass(frozen=True)
class LawDraw:
    """eigs: s_k(M0)², descending; s1: s₁(A); frob2: ‖A‖_F²."""

    ell: int
    eigs: np.ndarray
    s1: float
    frob2: float

    def moments(self, q_max: int, remove_top: int = 0) -> np.ndarray:
        return spectra.spectral_moments(self.eigs, q_max, remove_top)

    def clipped(self, q_max: int, clip_top: int) -> np.ndarray:
        return spectra.clipped_moments(self.eigs, q_max, clip_top)


def top_singular_value(A: np.ndarray) -> float:
    """s₁(A) by power iteration on AᵀA from 𝟙: A is near uuᵀ, so a few steps suffice
    (ten times faster than Lanczos at ℓ = 2000). Where the gap closes (large β: A near a
    permutation) and it has not converged in ``POWER_STEPS``, Lanczos finishes the job.

    .. math:: s_1(A)^2 = \\max_{\\|v\\| = 1} \\|A v\\|^2
    """
    v = np.full(A.shape[1], 1 / np.sqrt(A.shape[1]))
    value = 0.0
    for _ in range(POWER_STEPS):
        w = A.T @ (A @ v)
        new = float(v @ w)
        v = w / np.linalg.norm(w)
        if abs(new - value) <= POWER_TOL * new:
            return float(np.sqrt(new))
        value = new
    return float(spectra.top_singular_values(A, 1)[0])


def measure_law_draw(ell: int, d_qk: int, beta: float, seed: int, draw: int,
                     stream: str = STREAM) -> LawDraw:
    """Sample S, A = softmax(βS), and measure the spectrum of M0 = √ℓ(A − 𝟙𝟙ᵀ/ℓ).

    On ``stream="chain"`` it is, bit for bit, what the chain draw of the same (seed, ℓ,
    draw) measures of A and M0 (``numerics.measure.measure_draw``: the same scores, the same
    ``scaled_perp``, s₁ by the same ``top_singular_value``), at the cost of one spectrum.
    """
    rng = draw_rng(seed, stream, ell, draw)
    A = attention(sample_scores(ell, d_qk, rng).S, beta)
    frob2 = float(np.einsum("ij,ij->", A, A))
    s1 = top_singular_value(A)
    return LawDraw(ell, spectra.squared_singular_values(scaled_perp(A)), s1, frob2)


TRACE_MOMENTS_MATRICES = 4
"""ℓ×ℓ float64 arrays alive in :func:`trace_moments` besides Q and K: S, the model, its
Gram matrix and one power."""


def trace_moments(ell: int, d_qk: int, beta: float, seed: int, draw: int, q_max: int = 4,
                  stream: str = STREAM) -> dict[str, np.ndarray]:
    """m_1..m_q of M0 = √ℓA⊥ and of Y^lin_f on the same scores, from traces, no spectrum.

    Y^lin_f = (βS + √(θ₁ − θ₂) Z)/√ℓ has, given K, the law of GΣ_G^{1/2}/√ℓ (its rows are
    N(0, Σ_G)), so no square root is taken. The moments come from traces of powers of the
    Gram matrix (``spectra.moments``): at most six ℓ×ℓ arrays (Q, K, S, the model, its
    Gram matrix and one power), so that ℓ = d_qk = 16384 fits in 24 GiB. M0 is the matrix
    ``measure_law_draw`` measures on the same (seed, stream, ℓ, draw).
    """
    rng = draw_rng(seed, stream, ell, draw)
    S = sample_scores(ell, d_qk, rng).S
    out = {"M0": spectra.moments(scaled_perp(attention(S, beta)), q_max)}
    theta1, theta2 = thetas(beta)
    S *= beta
    Z = rng.standard_normal((ell, ell))
    Z *= np.sqrt(theta1 - theta2)
    S += Z
    del Z
    S /= np.sqrt(ell)
    out["Y_lin_f"] = spectra.moments(S, q_max)
    return out
