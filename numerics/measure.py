"""Everything the chain, limit-law, Perron and outlier steps measure on one draw.

One draw: Q, K, S, then every model of the chain (``numerics.chain``) from one stream.
The measurements keep numbers and spectra only (no ℓ×ℓ matrix survives), so a sweep
over sizes and draws holds O(ℓ) memory per draw.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from attnge.numerics import spectra
from attnge.numerics.chain import (
    MODEL_KEYS,
    chain_diagonals,
    gaussian_models,
    key_gram,
    score_models,
)
from attnge.numerics.law_draws import top_singular_value
from attnge.numerics.sampling import attention, draw_rng, sample_scores
from attnge.numerics.spike_norm import krylov_norm
from attnge.theory.exponential import thetas
from attnge.theory.linear_model import sigma_f, sigma_G

MOMENTS = 4                 # m_1 … m_4
RANK_RTOL = 1e-6            # rank one: what lies beyond s₁ is at most this, relative to s₁
OP_RTOL = 1e-6              # ARPACK accuracy of s₁ of a full-rank difference (rate rows)
RANK_ONE = ("Y->Y_f", "Y_f->Y_Q")   # the differences of rank one, whose s₁ is exact
SPECTRA = tuple(key for key in MODEL_KEYS if key != "surrogate")   # the models measured
MATRICES_PER_DRAW = 6       # ℓ×ℓ float64 arrays alive at the peak of one draw, besides Q, K:
                            # the first root (ρ, Σ_f, eigh's copy, eigenvectors, workspace 2),
                            # held to the measured peak by tests/numerics/test_measure.py
TOP_ENTRIES = 8             # largest entries of M0 (distinct rows and columns) kept


@dataclass
class Difference:
    """The difference of two consecutive models of the chain on one draw: ``op`` = s₁,
    ``frob`` = ‖A − B‖_F/√ℓ, ``rest`` = the part beyond s₁ relative to it, and ``bound``
    (M0 → Y only) = max_i |1/D_ii − 1|, the operator-norm bound's factor."""

    op: float
    frob: float
    rest: float
    bound: float | None = None


@dataclass
class Perron:
    """The Perron direction of one draw's A = softmax(βS): ``s1`` and ``s2`` of A, ``frob2``
    = ‖A‖_F² and ``s1_perp`` = s₁(A⊥) (set once the spectrum of √ℓA⊥ is known)."""

    s1: float
    s2: float
    frob2: float
    s1_perp: float = float("nan")


@dataclass(frozen=True)
class Identities:
    """The relative residuals, on one draw, of the identities that hold by algebra whatever
    the law of S (code sanity checks); ``LABELS`` names each as the tables print it."""

    rows_sum_to_one: float      # A 1 = 1 (max |row sum - 1|)
    frobenius: float            # ||A||_F^2 = 1 + ||A_perp||_F^2
    normalizer: float           # M0 = D^-1 Y
    projection: float           # Y = Y^f P_perp
    norm_d: float               # ||Y - Y^f|| = ||D - 1||
    norm_c: float               # ||Y^f - Y^Q|| = ||c||

    LABELS: ClassVar[dict[str, str]] = {
        "rows_sum_to_one": "A 1 = 1",
        "frobenius": "||A||_F^2 = 1 + ||A_perp||_F^2",
        "normalizer": "M0 = D^-1 Y",
        "projection": "Y = Y^f P_perp",
        "norm_d": "||Y - Y^f|| = ||D - 1||",
        "norm_c": "||Y^f - Y^Q|| = ||c||",
    }


@dataclass(frozen=True)
class Statistic:
    """A statistic of one draw: its ``mean`` over rows that are i.i.d. given K and the
    variance ``var`` of that mean (0 for a single number of the draw)."""

    mean: float
    var: float = 0.0


@dataclass(frozen=True)
class QuadraticForm:
    r"""The form :math:`r_i^\top W r_i` of the centred rows given K: ``centred`` is its mean
    minus ``expected`` = :math:`\operatorname{tr}(W\Sigma_f)` on the draw's keys."""

    centred: Statistic
    expected: float


@dataclass(frozen=True)
class Statistics:
    r"""What the chain steps read of one draw besides spectra and differences.

    ``projection_on_c``: :math:`\sum_j c_j f(S_{ij})/\|c\|^2` over rows (mean 1 iff
    :math:`E[f(S_{ij})|K] = c_j`); ``norm_d_squared`` = :math:`\|D - 1\|^2`,
    ``norm_c_squared`` = :math:`\|c\|^2`; the forms of the centred rows for W = I,
    :math:`uu^\top`, ρ; ``spike`` = :math:`u^\top(\Sigma_f - \Sigma_G)u` and
    ``spike_alone`` = :math:`\|(\Sigma_G + s\,uu^\top)^{1/2} - \Sigma_G^{1/2}\|` with s
    that spike, on the draw's keys.
    """

    projection_on_c: Statistic
    norm_d_squared: float
    norm_c_squared: float
    form_identity: QuadraticForm
    form_uu: QuadraticForm
    form_rho: QuadraticForm
    spike: float
    spike_alone: float


@dataclass
class DrawMeasurement:
    """Numbers measured on one draw at one size (see ``measure_draw``)."""

    ell: int
    d_qk: int
    spectra: dict[str, np.ndarray]                     # model → s² sorted descending
    identities: Identities
    differences: dict[str, Difference]                 # "A->B" → its Difference
    statistics: Statistics
    perron: Perron
    top_entries: np.ndarray = field(default_factory=lambda: np.zeros(0))
    top_norms: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    """Per top entry (i, j): r = ‖q_i‖²/d_qk and c = ‖k_j‖²/d_qk, its query's and key's."""
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
                   name: str = "sizes", copies: int = 1) -> None:
    """Refuse, before allocating, a size whose draw would not fit in available memory:
    ``matrices`` float64 ℓ×ℓ arrays and Q, K of ℓ×d_qk, ``copies`` draws at once (the
    error names ``name``)."""
    need = 8 * copies * (matrices * ell * ell + 2 * ell * d_qk)
    have = available_bytes()
    if need > have:
        at_once = f", {copies} draws at once" if copies > 1 else ""
        raise ValueError(
            f"{name}: ell={ell}{f' (d_qk={d_qk})' if d_qk else ''} "
            f"needs about {need / 2**30:.1f} GiB ({matrices} "
            f"float64 ell x ell matrices and Q, K{at_once}) but {have / 2**30:.1f} GiB is "
            "available; use smaller sizes")


def _residual(reference: np.ndarray, approximation: np.ndarray) -> float:
    """max|approximation − reference| / max|reference|; ``approximation`` (a temporary) is
    overwritten."""
    approximation -= reference
    return float(np.max(np.abs(approximation, out=approximation))
                 / max(-reference.min(), reference.max()))


def _difference(A: np.ndarray, B: np.ndarray, rtol: float) -> Difference:
    """op = s₁(A − B) (Lanczos), frob = ‖A − B‖_F/√ℓ and the rest beyond s₁ relative to it,

    .. math:: \\text{rest} = \\sqrt{\\|A - B\\|_F^2 - s_1^2}\\,/\\,s_1
              = \\Big(\\sum_{k \\ge 2} s_k^2\\Big)^{1/2}/s_1,

    0 exactly when A − B has rank one (rounding leaves about 1e-8 there).
    """
    diff = A - B
    frob2 = float(np.einsum("ij,ij->", diff, diff))
    if frob2 == 0.0:                                   # A = B: nothing for Lanczos to find
        return Difference(0.0, 0.0, 0.0)
    op = float(spectra.top_singular_values(diff, 1, rtol)[0])
    rest = np.sqrt(max(frob2 - op * op, 0.0)) / op if op > 0 else 0.0
    return Difference(op, float(np.sqrt(frob2 / A.shape[0])), float(rest))


def largest_entries(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|M_ij| of the k largest entries taken in distinct rows and columns (greedy), with
    their rows i and columns j."""
    A = np.abs(M)
    out, rows, cols = [], [], []
    for _ in range(min(k, *A.shape)):
        i, j = np.unravel_index(np.argmax(A), A.shape)
        out.append(A[i, j])
        rows.append(i)
        cols.append(j)
        A[i, :] = -1.0
        A[:, j] = -1.0
    return np.array(out), np.array(rows, dtype=int), np.array(cols, dtype=int)


def _mean_var(t: np.ndarray) -> tuple[float, float]:
    """Mean of i.i.d. values and the variance of that mean."""
    return float(t.mean()), float(t.var(ddof=1) / t.size)


DIFFERENCES = ("M0->Y", "Y->Y_f", "Y_f->Y_Q", "Y_lin_Q->Y_lin_f")
"""The differences whose norms a step reads: consecutive models of the chain, less
Y_Q → Y_lin_Q (independent randomness: only their spectra are compared)."""


def _perron(S: np.ndarray, beta: float) -> tuple[Perron, float]:
    """s₁(A) (power iteration), s₂(A) (Lanczos), ‖A‖_F² and the residual of A𝟙 = 𝟙,
    A = softmax(βS)."""
    A = attention(S, beta)
    s2 = spectra.top_singular_values(A, 2, OP_RTOL)[1]   # s₁ ≈ 1 is far from s₂: exact
    # s₁ as the law draws take it (``measure_law_draw`` on this stream gives these bits)
    perron = Perron(top_singular_value(A), float(s2), float(np.einsum("ij,ij->", A, A)))
    return perron, float(np.max(np.abs(A.sum(axis=1) - 1)))


def measure_draw(ell: int, d_qk: int, beta: float, seed: int, draw: int,
                 stream: str = "chain") -> DrawMeasurement:
    """Sample one draw of every model and measure it.

    Identities (relative max residuals; rounding only; code sanity checks, since they hold
    by algebra on any draw):
    M0 = D⁻¹Y, Y = Y^f P⊥, ‖Y − Y^f‖ = ‖D − 𝟙‖, ‖Y^f − Y^Q‖ = ‖c‖, ‖A‖_F² = 1 + ‖A⊥‖_F²,
    A𝟙 = 𝟙. Statistics of rows that are i.i.d. given K (value, variance of the mean):
    the projection r_i = Σ_j c_j f(S_ij)/‖c‖² (mean 1 iff E[f(S_ij)|K] = c_j) and the
    quadratic forms r_iᵀWr_i of the centred rows (mean tr WΣ_f) for W = I, uuᵀ, ρ.

    The models come one at a time (``numerics.chain.score_models``, then
    ``gaussian_models``) and each is dropped once its successor is measured, so that at
    most ``MATRICES_PER_DRAW`` ℓ×ℓ arrays are alive (besides Q and K).
    """
    rng = draw_rng(seed, stream, ell, draw)
    scores = sample_scores(ell, d_qk, rng)
    root = np.sqrt(ell)
    u = np.full(ell, 1 / root)
    D, c = chain_diagonals(scores, beta)               # D_ii, and c_j from the theory's formula
    norm_D, norm_c = float(np.linalg.norm(D - 1)), float(np.linalg.norm(c))
    perron, rows_residual = _perron(scores.S, beta)
    residuals = {"rows_sum_to_one": rows_residual}
    K = scores.K
    q_norms = np.einsum("ij,ij->i", scores.Q, scores.Q) / d_qk    # r_i = ‖q_i‖²/d_qk
    k_norms = np.einsum("ij,ij->i", K, K) / d_qk                  # c_j = ‖k_j‖²/d_qk
    spec, differences = {}, {}
    previous = None

    def visit(key: str, M: np.ndarray) -> None:
        nonlocal previous
        name = None if previous is None else f"{previous[0]}->{key}"
        if name in DIFFERENCES:
            differences[name] = _difference(previous[1], M, 0.0 if name in RANK_ONE else OP_RTOL)
        previous = (key, M)                 # the one before is dropped before the spectrum
        spec[key] = spectra.squared_singular_values(M)

    models = score_models(scores, beta)
    del scores                                         # S and Q go with the generator
    for key, M in models:
        if key == "M0":
            top, rows, cols = largest_entries(M, TOP_ENTRIES)
            top_norms = np.column_stack([q_norms[rows], k_norms[cols]])
            residuals["frobenius"] = abs(
                perron.frob2 - 1 - float(np.einsum("ij,ij->", M, M)) / ell
            ) / perron.frob2
        elif key == "Y":
            residuals["normalizer"] = _residual(previous[1], M / D[:, None])
        elif key == "Y_f":
            projected = np.outer(M @ u, -u)
            projected += M                                  # Y^f P⊥ = Y^f − (Y^f u) uᵀ
            residuals["projection"] = _residual(previous[1], projected)
            del projected
            # rows of f(S) are i.i.d. given K: the projection on c has mean 1
            projection_on_c = _mean_var((M @ c) * (root / norm_c**2))
        visit(key, M)
        if key == "Y":
            differences["M0->Y"].bound = float(np.max(np.abs(1 / D - 1))
                                                  * np.sqrt(spec["Y"][0]))
        del M
    perron.s1_perp = float(np.sqrt(spec["M0"][0] / ell))
    residuals["norm_d"] = abs(differences["Y->Y_f"].op - norm_D) / norm_D
    residuals["norm_c"] = abs(differences["Y_f->Y_Q"].op - norm_c) / norm_c

    # the centred rows r_i = √ℓ (Y^Q)_i given K: mean 0, covariance Σ_f
    rho = key_gram(K, d_qk)
    del K
    Sf = sigma_f(rho, beta)
    Y_Q = previous[1]
    uSu = float(u @ (Sf @ u))
    forms = {}
    for name, t, expected in (
            ("form_identity", np.einsum("ij,ij->i", Y_Q, Y_Q), np.trace(Sf)),
            ("form_uu", (Y_Q @ u) ** 2, uSu),
            ("form_rho", np.einsum("ij,ij->i", Y_Q, Y_Q @ rho), np.einsum("ij,ij->", rho, Sf))):
        mean, var = _mean_var(t * ell)
        forms[name] = QuadraticForm(Statistic(mean - float(expected), var), float(expected))
    spike = uSu - float(u @ (sigma_G(rho, beta) @ u))
    statistics = Statistics(
        projection_on_c=Statistic(*projection_on_c), norm_d_squared=norm_D**2,
        norm_c_squared=norm_c**2, **forms, spike=spike,
        # the spike alone on this draw's keys: ||(Sigma_G + s uu^T)^1/2 - Sigma_G^1/2||
        spike_alone=float(krylov_norm(rho, *thetas(beta), max(spike, 0.0))))
    del Y_Q
    previous = None
    models = gaussian_models(rho, Sf, beta, rng)      # Σ_f goes once its root is taken
    del rho, Sf
    for key, M in models:
        visit(key, M)
        del M
    return DrawMeasurement(ell=ell, d_qk=d_qk, spectra=spec, identities=Identities(**residuals),
                           differences=differences, statistics=statistics, perron=perron,
                           top_entries=top, top_norms=top_norms, normalizer=D)
