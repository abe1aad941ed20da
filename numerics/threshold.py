"""Measurements for the linearization threshold (docs/math.md §6), one draw at a time.

Temperature: β = c√(log ℓ), d_qk = ℓ/y. On one draw, √ℓA⊥ against the linear model
Y^lin_f = (βS + √(θ₁ − θ₂)Z)/√ℓ (same S): the relative difference of the mass m₁ (signed,
with a two-way jackknife variance) and the distances of the shapes m_q/m₁^q (q = 2..4),
the Kolmogorov distance of the bulks, the spread of the normalizer D_ii and |s₁²/E − 1|,
the largest squared singular value of √ℓA⊥ against the right edge E of ν∞. Each c has its
own scores. One-entry: the terms T_q of m_q made of one entry (no spectra, so cheap enough
to take by the dozen).

Order: d_qk = ℓ^α. On one draw of the keys, for Σ' = Σ_G (``lin_f``) and the truncations
Σ_f^{(k)} (k = 2, 3; exact diagonal): the mean-square size of the omitted terms
δ = ‖Σ_f − Σ'‖_F² / (ℓθ₁²) with its delete-one-key variance (judged against its exact
expectation, ``theory.threshold.order_distance``); and, on one shared G with N(0, 1/ℓ)
entries, the distances between the spectra of Y^lin_Q = GΣ_f^{1/2} and GΣ'^{1/2}:
Kolmogorov and W₂²/θ₁². The squared singular values of GΣ^{1/2} are the eigenvalues of
GΣGᵀ, so no square root is taken.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from attnge.numerics import spectra, stats
from attnge.numerics.chain import key_gram
from attnge.numerics.limit_density import right_edge
from attnge.numerics.sampling import attention, draw_rng, normalizer, sample_scores
from attnge.theory.exponential import thetas
from attnge.theory.inputs import d_qk
from attnge.theory.linear_model import sigma_f, sigma_f_truncated, sigma_G
from attnge.theory.threshold import ORDER_MODELS, first_omitted

MOMENTS = 4


def temperature_beta(c: float, ell: int) -> float:
    """β = c √(log ℓ)."""
    return c * math.sqrt(math.log(ell))


def order_d_qk(alpha: float, ell: int) -> int:
    """d_qk = round(ℓ^α), at least 1."""
    return max(1, round(ell**alpha))


def shape_distances(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """|s_q(a)/s_q(b) − 1|, s_q = m_q/m₁^q, q = 2..4: the shapes of two spectra.

    The shape is scale-free: a loss of mass that scales the whole spectrum leaves it alone,
    so the outliers' share of m_q is not cancelled by the mass the softmax loses.
    """
    ma, mb = (spectra.spectral_moments(s, MOMENTS) for s in (a, b))
    out = {}
    for q in range(2, MOMENTS + 1):
        out[f"m{q}/m1^{q}"] = float(abs((ma[q - 1] / ma[0]**q) / (mb[q - 1] / mb[0]**q) - 1))
    return out


def mass_difference(m0: np.ndarray, lin: np.ndarray) -> tuple[float, float]:
    """r − 1, r = m₁(M₀)/m₁(Y), signed, and its variance (two-way jackknife over entries).

    m₁ = ‖M‖_F²/ℓ. The ratio's variance is, to first order, that of the mean of
    G_ij = ℓ(M₀,ij² − r Y_ij²) (whose mean is 0) over m₁(Y)², from ``stats.two_way_mean``
    (entries share their query and their key).
    """
    ell = m0.shape[0]
    G, lin_squared = m0 * m0, lin * lin
    m1_m0, m1_lin = float(G.sum()) / ell, float(lin_squared.sum()) / ell
    ratio = m1_m0 / m1_lin
    lin_squared *= ratio
    G -= lin_squared
    G *= ell
    _, variance = stats.two_way_mean(G)
    return ratio - 1, variance / m1_lin**2


@lru_cache(maxsize=1024)
def _edge(theta1: float, theta2: float, y: float) -> float:
    """The right edge E of ν∞ (``right_edge``, 15 digits): one root-finding per (c, ℓ), not
    per draw."""
    return float(right_edge(theta1, theta2, y, dps=15))


def measure_temperature(c: float, ell: int, y: float, seed: int, draw: int,
                        remove_top: int = 3) -> dict[str, float]:
    """One draw at β = c√(log ℓ): √ℓA⊥ against Y^lin_f, and the normalizer.

    The mass difference ``m1`` is signed (its mean over draws is compared with its exact
    mean) and comes with its variance ``m1 var``; the rest are distances (≥ 0).
    """
    beta = temperature_beta(c, ell)
    d = d_qk(ell, y)
    rng = draw_rng(seed, f"threshold-temperature c={c!r}", ell, draw)   # its own scores per c
    scores = sample_scores(ell, d, rng)
    root = math.sqrt(ell)
    m0 = attention(scores.S, beta) * root - 1 / root
    theta1, theta2 = thetas(beta)
    lin = (beta * scores.S + math.sqrt(theta1 - theta2) * rng.standard_normal((ell, ell))) / root
    s_m0, s_lin = spectra.squared_singular_values(m0), spectra.squared_singular_values(lin)
    D = normalizer(scores.S, beta)
    edge = _edge(theta1, theta2, ell / d)
    out = dict(zip(("m1", "m1 var"), mass_difference(m0, lin)))
    out.update(shape_distances(s_m0, s_lin))
    out["kolmogorov"] = spectra.kolmogorov_distance(spectra.bulk(s_m0, remove_top),
                                                    spectra.bulk(s_lin, remove_top))
    out["sd(D)"] = float(np.std(D))
    out["s1^2/E"] = float(abs(s_m0[0] / edge - 1))   # 0 when no outlier leaves the bulk
    return out


def one_entry_terms(m0: np.ndarray, theta1: float) -> dict[str, float]:
    """T_q = Σ_ij M0_ij^{2q} / (ℓθ₁^q), q = 3, 4: the terms of m_q(M0) = tr((M0M0ᵀ)^q)/ℓ
    made of a single entry, over the scale θ₁^q of m_q (``theory.threshold.one_entry_exponents``).
    """
    ell = m0.shape[0]
    square = m0 * m0
    power = square * square
    out = {}
    for order in range(2, MOMENTS):
        power *= square
        out[f"one-entry m{order + 1}"] = float(power.sum()) / (ell * theta1**(order + 1))
    return out


def measure_one_entry(c: float, ell: int, y: float, seed: int, draw: int) -> dict[str, float]:
    """One draw at β = c√(log ℓ), d_qk = ℓ/y: the one-entry terms T_q of √ℓA⊥ (no spectra)."""
    beta = temperature_beta(c, ell)
    rng = draw_rng(seed, f"threshold-one-entry c={c!r}", ell, draw)
    root = math.sqrt(ell)
    m0 = attention(sample_scores(ell, d_qk(ell, y), rng).S, beta) * root - 1 / root
    return one_entry_terms(m0, thetas(beta)[0])


def measure_order(alpha: float, ell: int, beta: float, seed: int, draw: int) -> dict[str, float]:
    """One draw at d_qk = ℓ^α: what Σ_G and the truncations Σ_f^{(k)} leave out of Σ_f.

    .. math:: \\delta = \\frac{\\lVert \\Sigma_f - \\Sigma' \\rVert_F^2}{\\ell\\,\\theta_1^2},
              \\qquad W_2^2 = \\frac{1}{\\ell}\\sum_i (\\lambda_i - \\lambda'_i)^2
              \\ \\text{(sorted eigenvalues of } G\\Sigma G^\\top, G\\Sigma' G^\\top).

    By Hoffman–Wielandt, W₂² ≤ ‖G(Σ_f − Σ')Gᵀ‖_F²/ℓ ≤ ‖G‖⁴ θ₁² δ: where δ → 0 the spectra
    of the models meet. Returned: δ, its variance, W₂²/θ₁² and the Kolmogorov distance.
    """
    d = order_d_qk(alpha, ell)
    rng = draw_rng(seed, "threshold-order", ell, draw)
    scores = sample_scores(ell, d, rng)
    rho = key_gram(scores.K, scores.d_qk)
    G = rng.standard_normal((ell, ell)) / math.sqrt(ell)
    theta1 = thetas(beta)[0]
    covariances = {"lin_Q": sigma_f(rho, beta), "lin_f": sigma_G(rho, beta)}
    covariances.update({name: sigma_f_truncated(rho, beta, first_omitted(name) - 1)
                        for name in ORDER_MODELS if name != "lin_f"})
    spectrum = {name: np.sort(np.linalg.eigvalsh(G @ S @ G.T)) for name, S in covariances.items()}
    out = {}
    for name in ORDER_MODELS:
        value, variance = stats.key_sum((covariances["lin_Q"] - covariances[name]) ** 2)
        out[f"frobenius {name}"] = value / theta1**2
        out[f"frobenius {name} var"] = variance / theta1**4
        out[f"wasserstein {name}"] = float(np.mean((spectrum["lin_Q"] - spectrum[name]) ** 2)
                                           / theta1**2)
        out[f"kolmogorov {name}"] = spectra.kolmogorov_distance(spectrum["lin_Q"], spectrum[name])
    return out
