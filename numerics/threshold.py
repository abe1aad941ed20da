"""Measurements for the linearization threshold (math.md §6), one draw at a time.

Temperature: β = c√(log ℓ), d_qk = ℓ/y. On one draw, √ℓA⊥ against the linear model
Y^lin_f = (βS + √(θ₁ − θ₂)Z)/√ℓ (same S): relative differences of m_1..m_4, the
Kolmogorov distance of the bulks, the spread of the normalizer D_ii and |s₁²/E − 1|, the largest
squared singular value of √ℓA⊥ against the right edge E of ν∞.

Order: d_qk = ℓ^α. On one draw and one shared G: Y^lin_Q = GΣ_f^{1/2}/√ℓ against
Y^lin_f = GΣ_G^{1/2}/√ℓ and against Y^(k) = G(Σ_f^{(k)})^{1/2}/√ℓ, the Hadamard expansion
of Σ_f kept to order k (k = 2, 3): the Kolmogorov distance of the spectra and the relative
difference of m_2.
"""

from __future__ import annotations

import math

import numpy as np

from numerics import spectra
from numerics.chain import key_gram, psd_sqrt
from numerics.limit_density import right_edge
from numerics.sampling import attention, draw_rng, normalizer, sample_scores
from theory.linear_model import sigma_f, sigma_f_truncated, sigma_G

MOMENTS = 4
HADAMARD_ORDERS = (2, 3)


def temperature_beta(c: float, ell: int) -> float:
    """β = c √(log ℓ)."""
    return c * math.sqrt(math.log(ell))


def order_d_qk(alpha: float, ell: int) -> int:
    """d_qk = round(ℓ^α), at least 1."""
    return max(1, round(ell**alpha))


def _relative_moments(a: np.ndarray, b: np.ndarray) -> list[float]:
    ma, mb = (spectra.spectral_moments(s, MOMENTS) for s in (a, b))
    return [float(abs(x - y) / y) for x, y in zip(ma, mb)]


def measure_temperature(c: float, ell: int, y: float, seed: int, draw: int,
                        remove_top: int = 3) -> dict[str, float]:
    """One draw at β = c√(log ℓ): distances between √ℓA⊥ and Y^lin_f, and the normalizer."""
    beta = temperature_beta(c, ell)
    d = max(1, round(ell / y))
    rng = draw_rng(seed, "threshold-temperature", ell, draw)
    scores = sample_scores(ell, d, rng)
    root = math.sqrt(ell)
    m0 = attention(scores.S, beta) * root - 1 / root
    theta1, theta2 = math.expm1(beta**2), beta**2
    lin = (beta * scores.S + math.sqrt(theta1 - theta2) * rng.standard_normal((ell, ell))) / root
    s_m0, s_lin = spectra.squared_singular_values(m0), spectra.squared_singular_values(lin)
    D = normalizer(scores.S, beta)
    edge = float(right_edge(theta1, theta2, ell / d, dps=15))
    out = {f"m{q + 1}": v for q, v in enumerate(_relative_moments(s_m0, s_lin))}
    out["kolmogorov"] = spectra.kolmogorov_distance(spectra.bulk(s_m0, remove_top),
                                                    spectra.bulk(s_lin, remove_top))
    out["sd(D)"] = float(np.std(D))
    out["s1^2/E"] = float(abs(s_m0[0] / edge - 1))   # 0 when no outlier leaves the bulk
    return out


def measure_order(alpha: float, ell: int, beta: float, seed: int, draw: int) -> dict[str, float]:
    """One draw at d_qk = ℓ^α: Y^lin_Q against Y^lin_f and the truncations Y^(k), shared G."""
    d = order_d_qk(alpha, ell)
    rng = draw_rng(seed, "threshold-order", ell, draw)
    rho = key_gram(sample_scores(ell, d, rng).K)
    G = rng.standard_normal((ell, ell)) / math.sqrt(ell)
    spectrum = {}
    covariances = {"lin_Q": lambda: sigma_f(rho, beta), "lin_f": lambda: sigma_G(rho, beta)}
    for k in HADAMARD_ORDERS:
        covariances[f"k={k}"] = lambda k=k: sigma_f_truncated(rho, beta, k)
    for name, make in covariances.items():
        spectrum[name] = spectra.squared_singular_values(G @ psd_sqrt(make(), name=name))
    m2 = {name: spectra.spectral_moments(s, 2)[1] for name, s in spectrum.items()}
    out = {}
    for name in ("lin_f", *[f"k={k}" for k in HADAMARD_ORDERS]):
        out[f"kolmogorov {name}"] = spectra.kolmogorov_distance(spectrum["lin_Q"], spectrum[name])
        out[f"m2 {name}"] = float(abs(m2[name] - m2["lin_Q"]) / m2["lin_Q"])
    return out
