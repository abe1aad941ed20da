"""Everything the chain, limit-law, Perron and outlier steps measure on one draw.

One draw: Q, K, S, then every model of the chain (``numerics.chain``) from one stream.
The measurements keep numbers and spectra only (no ℓ×ℓ matrix survives), so a sweep
over sizes and draws holds O(ℓ) memory per draw.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from numerics import spectra
from numerics.chain import MODEL_KEYS, chain_diagonals, chain_models, key_gram
from numerics.sampling import attention, draw_rng, sample_scores
from theory.linear_model import sigma_f, sigma_G

MOMENTS = 4                 # m_1 … m_4
RANK_RTOL = 1e-6            # rank one: what lies beyond s₁ is at most this, relative to s₁
OP_RTOL = 1e-6              # ARPACK accuracy of s₁ of a full-rank difference (rate rows)
RANK_ONE = ("Y->Y_f", "Y_f->Y_Q")   # the differences of rank one, whose s₁ is exact
SPECTRA = tuple(key for key in MODEL_KEYS if key != "surrogate")   # the models measured
MATRICES_PER_DRAW = 18      # ℓ×ℓ float64 arrays alive at the peak of one draw
TOP_ENTRIES = 8             # largest entries of M0 (distinct rows and columns) kept


@dataclass
class DrawMeasurement:
    """Numbers measured on one draw at one size (see ``measure_draw``)."""

    ell: int
    d_qk: int
    spectra: dict[str, np.ndarray]                     # model → s² sorted descending
    identities: dict[str, float]                       # name → relative residual
    differences: dict[str, dict[str, float]]           # "A->B" → {op, frob, rest, ...}
    statistics: dict[str, tuple[float, float]] = field(default_factory=dict)  # (value, var)
    perron: dict[str, float] = field(default_factory=dict)
    top_entries: np.ndarray = field(default_factory=lambda: np.zeros(0))
    normalizer: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def moments(self, model: str, remove_top: int = 0) -> np.ndarray:
        return spectra.spectral_moments(self.spectra[model], MOMENTS, remove_top)


def available_bytes() -> int:
    """MemAvailable of /proc/meminfo (physical memory when that is unreadable)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def require_memory(ell: int, matrices: int = MATRICES_PER_DRAW, d_qk: int = 0,
                   name: str = "sizes") -> None:
    """Refuse, before allocating, a size whose draw would not fit in available memory:
    ``matrices`` float64 ℓ×ℓ arrays and Q, K of ℓ×d_qk (the error names ``name``)."""
    need = 8 * (matrices * ell * ell + 2 * ell * d_qk)
    have = available_bytes()
    if need > have:
        raise ValueError(
            f"{name}: ell={ell}{f' (d_qk={d_qk})' if d_qk else ''} "
            f"needs about {need / 2**30:.1f} GiB ({matrices} "
            f"float64 ell x ell matrices and Q, K) but {have / 2**30:.1f} GiB is available; "
            "use smaller sizes")


def _relative(residual: np.ndarray, reference: np.ndarray) -> float:
    return float(np.max(np.abs(residual)) / np.max(np.abs(reference)))


def _difference(A: np.ndarray, B: np.ndarray, rtol: float) -> dict[str, float]:
    """op = s₁(A − B) (Lanczos), frob = ‖A − B‖_F/√ℓ and the rest beyond s₁ relative to it,

    .. math:: \\text{rest} = \\sqrt{\\|A - B\\|_F^2 - s_1^2}\\,/\\,s_1
              = \\Big(\\sum_{k \\ge 2} s_k^2\\Big)^{1/2}/s_1,

    0 exactly when A − B has rank one (rounding leaves about 1e-8 there).
    """
    diff = A - B
    frob2 = float(np.einsum("ij,ij->", diff, diff))
    op = float(spectra.top_singular_values(diff, 1, rtol)[0])
    rest = np.sqrt(max(frob2 - op * op, 0.0)) / op if op > 0 else 0.0
    return {"op": op, "frob": float(np.sqrt(frob2 / A.shape[0])), "rest": float(rest)}


def largest_entries(M: np.ndarray, k: int) -> np.ndarray:
    """|M_ij| of the k largest entries taken in distinct rows and columns (greedy)."""
    A = np.abs(M)
    out = []
    for _ in range(min(k, *A.shape)):
        i, j = np.unravel_index(np.argmax(A), A.shape)
        out.append(A[i, j])
        A[i, :] = -1.0
        A[:, j] = -1.0
    return np.array(out)


def _quadratic_forms(R: np.ndarray, W: np.ndarray | None) -> np.ndarray:
    """t_i = r_iᵀ W r_i for the rows r_i of R (W = None: the identity)."""
    return np.einsum("ij,ij->i", R, R if W is None else R @ W)


def _mean_var(t: np.ndarray) -> tuple[float, float]:
    """Mean of i.i.d. values and the variance of that mean."""
    return float(t.mean()), float(t.var(ddof=1) / t.size)


def measure_draw(ell: int, d_qk: int, beta: float, seed: int, draw: int,
                 stream: str = "chain") -> DrawMeasurement:
    """Sample one draw of every model and measure it.

    Identities (relative max residuals; rounding only; code sanity checks, since they hold
    by algebra on any draw):
    M0 = D⁻¹Y, Y = Y^f P⊥, ‖Y − Y^f‖ = ‖D − 𝟙‖, ‖Y^f − Y^Q‖ = ‖c‖, ‖A‖_F² = 1 + ‖A⊥‖_F²,
    A𝟙 = 𝟙. Statistics of rows that are i.i.d. given K (value, variance of the mean):
    the projection r_i = Σ_j c_j f(S_ij)/‖c‖² (mean 1 iff E[f(S_ij)|K] = c_j) and the
    quadratic forms r_iᵀWr_i of the centred rows (mean tr WΣ_f) for W = I, uuᵀ, ρ.
    """
    rng = draw_rng(seed, stream, ell, draw)
    scores = sample_scores(ell, d_qk, rng)
    M = chain_models(scores, beta, rng)
    root = np.sqrt(ell)
    D, c = chain_diagonals(scores, beta)               # D_ii, and c_j from the theory's formula
    u = np.full(ell, 1 / root)
    rho = key_gram(scores.K)

    identities = {
        "M0 = D^-1 Y": _relative(M["M0"] - M["Y"] / D[:, None], M["M0"]),
        "Y = Y^f P_perp": _relative(M["Y"] - (M["Y_f"] - np.outer(M["Y_f"] @ u, u)), M["Y"]),
    }
    differences = {}
    for a, b in zip(SPECTRA[:-1], SPECTRA[1:]):
        key = f"{a}->{b}"
        differences[key] = _difference(M[a], M[b], 0.0 if key in RANK_ONE else OP_RTOL)
    spec = {key: spectra.squared_singular_values(M[key]) for key in SPECTRA}
    differences["M0->Y"]["bound"] = float(np.max(np.abs(1 / D - 1)) * np.sqrt(spec["Y"][0]))
    norm_D = float(np.linalg.norm(D - 1))
    identities["||Y - Y^f|| = ||D - 1||"] = abs(differences["Y->Y_f"]["op"] - norm_D) / norm_D
    norm_c = float(np.linalg.norm(c))
    identities["||Y^f - Y^Q|| = ||c||"] = abs(differences["Y_f->Y_Q"]["op"] - norm_c) / norm_c

    # conditional mean and covariance given K, from rows that are i.i.d. given K
    F = M["Y_f"] * root
    statistics = {"projection on c": _mean_var(F @ c / norm_c**2),
                  "||D - 1||^2": (norm_D**2, 0.0), "||c||^2": (norm_c**2, 0.0)}
    R = M["Y_Q"] * root
    Sf = sigma_f(rho, beta)
    for name, W, expected in (("I", None, np.trace(Sf)), ("uu^T", None, u @ Sf @ u),
                              ("rho", rho, np.sum(rho * Sf))):
        t = (R @ u) ** 2 if name == "uu^T" else _quadratic_forms(R, W)
        mean, var = _mean_var(t)
        statistics[f"r^T {name} r"] = (mean - float(expected), var)
        statistics[f"r^T {name} r expected"] = (float(expected), 0.0)   # tr(W Σ_f)
    statistics["u^T (Sigma_f - Sigma_G) u"] = (float(u @ (Sf - sigma_G(rho, beta)) @ u), 0.0)
    del F, R, Sf, rho

    A = attention(scores.S, beta)
    sA = spectra.top_singular_values(A, 2, OP_RTOL)   # s₁ ≈ 1 is far from s₂: exact
    perron = {"s1(A)": float(sA[0]), "s2(A)": float(sA[1]),
              "||A||_F^2": float(np.sum(A * A)),
              "s1(A_perp)": float(np.sqrt(spec["M0"][0] / ell))}
    identities["A 1 = 1"] = float(np.max(np.abs(A.sum(axis=1) - 1)))
    identities["||A||_F^2 = 1 + ||A_perp||_F^2"] = abs(
        perron["||A||_F^2"] - 1 - float(np.sum(M["M0"] ** 2)) / ell) / perron["||A||_F^2"]
    top = largest_entries(M["M0"], TOP_ENTRIES)
    return DrawMeasurement(ell=ell, d_qk=d_qk, spectra=spec, identities=identities,
                           differences=differences, statistics=statistics, perron=perron,
                           top_entries=top, normalizer=D)
