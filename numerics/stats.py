"""Standard errors and fitted rates for sampled attention matrices.

Entries of one matrix are dependent: S_ij shares q_i with its row and k_j with its
column. Standard errors therefore come from a two-way (row and column) jackknife (or,
for functions of two keys, a delete-one-key jackknife), and independent draws are
pooled: SE = √(Σ_k var_k)/n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm, poisson
from scipy.stats import t as student_t


def two_way_mean(G: np.ndarray) -> tuple[float, float]:
    """The mean of an array's entries and its variance (two-way jackknife).

    Notes
    -----
    With G_ij = μ + a_i + b_j + e_ij, Var Ḡ = σ_a²/ℓ + σ_b²/ℓ' + σ_e²/(ℓℓ'). Deleting a
    row (column) gives s²_rows/ℓ (s²_cols/ℓ'), each of which also holds σ_e²/(ℓℓ');
    deleting a cell gives s²/(ℓℓ'), which removes the double count (see ``_combine``).
    """
    rows, cols = G.mean(axis=1), G.mean(axis=0)
    v_row, v_col = rows.var(ddof=1) / rows.size, cols.var(ddof=1) / cols.size
    return float(G.mean()), _combine(v_row, v_col, G.var(ddof=1) / G.size)


def _combine(v_row: float, v_col: float, v_cell: float) -> float:
    """V_row + V_col − V_cell, floored at V_row.

    The rows (queries) are independent given the keys, so the row jackknife V_row is in
    expectation at most the true variance; the floor only removes estimates that noise
    in V_col − V_cell made too small. (V_col alone is no such bound: deleting a key
    moves every D_i, and it also carries the query–key interaction.)
    """
    return float(max(v_row + v_col - v_cell, v_row))


ROW_STATISTICS = ("mean", "variance")
"""Statistics of D_1…D_n: the mean and the sample variance (1/(n − 1))."""


def _from_sums(name: str, n: int | np.ndarray, s1, s2):
    return s1 / n if name == "mean" else (s2 - s1**2 / n) / (n - 1)


def row_statistics(X: np.ndarray) -> dict[str, tuple[float, float]]:
    """Statistics of the row means D_i = (1/ℓ) Σ_j X_ij with their two-way variances.

    Returns name → (value, variance) for each of ``ROW_STATISTICS``.

    Notes
    -----
    Jackknife over rows (queries), columns (keys) and cells, V = V_row + V_col − V_cell,
    as in ``two_way_mean`` (to which it reduces for the mean). Deleting key j maps
    D_i ↦ (ℓD_i − X_ij)/(ℓ − 1) for every i; deleting cell (i, j) does so for row i.
    """
    n, m = X.shape
    D = X.mean(axis=1)
    Dc = D[:, None]
    Dk = (m * Dc - X) / (m - 1)  # column j: D without key j
    s1, s2 = D.sum(), (D**2).sum()
    sums = {
        "full": (n, s1, s2),
        "row": (n - 1, s1 - D, s2 - D**2),
        "key": (n, Dk.sum(axis=0), (Dk**2).sum(axis=0)),
        "cell": (n, s1 - Dc + Dk, s2 - Dc**2 + Dk**2),
    }
    out = {}
    for name in ROW_STATISTICS:
        t = {part: _from_sums(name, *args) for part, args in sums.items()}
        var = _combine(jackknife_variance(t["row"]), jackknife_variance(t["key"]),
                       jackknife_variance(t["cell"]))
        out[name] = (float(t["full"]), var)
    return out


def key_sum(X: np.ndarray) -> tuple[float, float]:
    """T = Σ_jk X_jk / ℓ for X_jk = h(key_j, key_k), and its delete-one-key variance.

    Notes
    -----
    T = (ℓ − 1) m_off + m_diag, the off-diagonal and diagonal means. Deleting key i
    re-estimates both from the other ℓ − 1 keys (row and column i gone), keeping the
    weights ℓ − 1 and 1, so every T_{−i} estimates E T.
    """
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if X.ndim != 2 or X.shape != (n, n) or n < 3:
        raise ValueError(f"X must be a square array of side >= 3 (got shape {X.shape})")
    diag = np.diagonal(X)
    off, rows = X.sum() - diag.sum(), X.sum(axis=0) + X.sum(axis=1) - 2 * diag
    m_off = (off - rows) / ((n - 1) * (n - 2))
    m_diag = (diag.sum() - diag) / (n - 1)
    return float(X.sum() / n), jackknife_variance((n - 1) * m_off + m_diag)


def jackknife_variance(leave_one_out: np.ndarray) -> float:
    """(N − 1)/N Σ_k (T_{−k} − T̄)² over the N leave-one-out values."""
    t = np.ravel(leave_one_out)
    n = t.size
    return float((n - 1) / n * ((t - t.mean()) ** 2).sum())


def pool(estimates: list[float], variances: list[float]) -> tuple[float, float]:
    """Average of independent draws and its standard error √(Σ var_k)/n."""
    n = len(estimates)
    return float(np.mean(estimates)), float(np.sqrt(np.sum(variances)) / n)


@dataclass(frozen=True)
class Rate:
    """A fitted log–log slope, its standard error and that error's degrees of freedom."""

    slope: float
    se: float
    dof: float = math.inf

    def width(self, z: float = 4.0, floor: float = 0.0) -> float:
        """max(t_z·se, floor), t_z the T quantile (``dof``) with the normal two-sided tail
        of z (t_z = z for an exact error)."""
        return max(t_critical(z, self.dof) * self.se, floor)

    def agrees(self, predicted: float, z: float = 4.0, floor: float = 0.0) -> bool:
        """|slope − predicted| ≤ ``width(z, floor)``."""
        return bool(abs(self.slope - predicted) <= self.width(z, floor))


def fit_rate(sizes: list[int] | np.ndarray, values: list[float] | np.ndarray,
             errors: list[float] | np.ndarray | None = None,
             dofs: list[float] | None = None) -> Rate:
    """Slope of log|value| against log(size).

    With standard errors of the values, a weighted fit whose slope error comes from
    them (errors of log|v| ≈ err/|v|), inflated by √(χ²/dof) when the fit is poor;
    without, ordinary least squares with the residual standard error. ``dofs``: the
    degrees of freedom of each error (draws − 1), which give the slope's error its own
    by Welch–Satterthwaite,

    .. math:: \\nu = \\Big(\\sum_k c_k\\Big)^2 \\Big/ \\sum_k \\frac{c_k^2}{\\nu_k},
              \\qquad c_k = a_k^2\\,\\sigma_k^2,\\ \\text{slope} = \\sum_k a_k \\log|v_k|;

    without them the error counts as exact (dof = ∞).
    """
    t = np.log(np.asarray(sizes, dtype=float))
    v = np.abs(np.asarray(values, dtype=float))
    if t.size < 3:
        raise ValueError(f"sizes must hold at least 3 sizes to fit a rate (got {t.size})")
    u = np.log(v)
    if errors is None:
        w = np.ones_like(t)
    else:
        w = (v / np.maximum(np.asarray(errors, dtype=float), 1e-300)) ** 2
    tm = np.sum(w * t) / np.sum(w)
    sxx = np.sum(w * (t - tm) ** 2)
    slope = np.sum(w * (t - tm) * u) / sxx
    resid = u - (np.sum(w * u) / np.sum(w) + slope * (t - tm))
    chi2_dof = np.sum(w * resid**2) / (t.size - 2)
    if errors is None:
        se = np.sqrt(chi2_dof / sxx)
    else:
        se = np.sqrt(max(chi2_dof, 1.0) / sxx)
    dof = math.inf
    if errors is not None and dofs is not None:
        c = (w * (t - tm) / sxx) ** 2 / w                # a_k² σ_k², σ_k² = 1/w_k
        spread = np.sum(c**2 / np.asarray(dofs, dtype=float))   # 0 when every dof is ∞
        dof = float(c.sum() ** 2 / spread) if spread > 0 else math.inf
    return Rate(float(slope), float(se), dof)


# --------------------------------------------------------------------------- value checks

def t_tail(t: float, dof: float) -> float:
    """P(|T| > t) for Student's T with ``dof`` degrees of freedom (∞: the normal law).

    Notes
    -----
    .. math:: P(|T| > t) = I_{\nu/(\nu + t^2)}(\nu/2, 1/2)

    (the regularized incomplete beta function), by ``scipy.stats.t``.
    """
    t = abs(float(t))
    if math.isinf(dof):
        return math.erfc(t / math.sqrt(2))
    return float(2 * student_t.sf(t, dof))


def normal_equivalent(t: float, dof: float) -> float:
    """The normal z with the same two-sided tail as a T statistic t with ``dof`` dof.

    A z-score whose standard error was estimated from few draws is a T statistic; this
    puts every check on one scale, so that one threshold means one false-alarm rate.
    """
    if math.isinf(dof) or t == 0:
        return float(t)
    p = t_tail(t, dof)
    if p <= 0:
        return math.copysign(math.inf, t)
    return math.copysign(float(norm.isf(p / 2)), t)


def poisson_z(observed: int, expected: float) -> float:
    """The normal z with the same two-sided tail as a Poisson count ``observed`` of mean
    ``expected`` (exact: the normal approximation (k − μ)/√μ is far off at small μ, where
    one count of mean 0.0024 would read z = 20 instead of 2.8)."""
    if expected <= 0:
        return 0.0 if observed == 0 else math.inf
    if observed >= expected:
        p, sign = float(poisson.sf(observed - 1, expected)), 1.0
    else:
        p, sign = float(poisson.cdf(observed, expected)), -1.0
    return sign * float(norm.isf(min(1.0, 2 * p) / 2))


def t_critical(z: float, dof: float) -> float:
    """The t whose two-sided T tail (``dof`` dof) equals that of the normal law at z."""
    if math.isinf(dof):
        return float(z)
    return float(student_t.isf(norm.sf(z), dof))


def mean_variance(values: np.ndarray) -> tuple[float, float, float]:
    """(mean, variance of the mean, degrees of freedom) of independent draws."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        raise ValueError(f"draws must hold at least 2 values for a standard error (got {v.size})")
    return float(v.mean()), float(v.var(ddof=1) / v.size), float(v.size - 1)


@dataclass(frozen=True)
class Limit:
    """An ℓ → ∞ value fitted from the sizes: m(ℓ) = value + Σ_k b_k ℓ^{−p_k}.

    ``se`` is scaled by √(χ²/fit_dof) when the fit is poorer than its errors allow (never
    shrunk); ``dof`` is the Welch–Satterthwaite degrees of freedom of the variance (from
    the draws behind each size's variance); ``chi2`` and ``fit_dof`` describe the fit.
    """

    value: float
    se: float
    dof: float
    chi2: float
    fit_dof: int
    powers: tuple[float, ...]
    log_powers: tuple[float, ...] = ()


def extrapolate(sizes, means, variances, dofs, powers: tuple[float, ...] = (1.0,),
                log_powers: tuple[float, ...] = ()) -> Limit:
    """Weighted least squares of m(ℓ) = m∞ + Σ_k b_k ℓ^{−p_k} + Σ_k c_k ℓ^{−q_k} log ℓ over
    the sizes.

    Parameters
    ----------
    sizes : the ℓ; at least len(powers) + len(log_powers) + 1 of them.
    means, variances : per size, the mean over draws and the variance of that mean.
    dofs : per size, the degrees of freedom of that variance (draws − 1, or ∞).
    powers : the exponents p_k of the finite-size terms.
    log_powers : the exponents q_k of finite-size terms ℓ^{−q_k} log ℓ (a harmonic number
        H_ℓ = log ℓ + γ + O(1/ℓ) over ℓ, as a causal mask's row lengths 1..ℓ give).

    Notes
    -----
    The fit is ``numpy.linalg.lstsq`` of the rows scaled by 1/se. m∞ = Σ_ℓ c_ℓ m̄_ℓ is linear
    in the size means (c the first row of the scaled design's pseudo-inverse, times 1/se),
    so Var m∞ = Σ c_ℓ² var_ℓ and its dof is (Σ a_ℓ)²/Σ (a_ℓ²/ν_ℓ), a_ℓ = c_ℓ² var_ℓ.
    """
    x = np.asarray(sizes, dtype=float)
    m = np.asarray(means, dtype=float)
    var = np.asarray(variances, dtype=float)
    terms = len(powers) + len(log_powers)
    if x.size < terms + 1:
        raise ValueError(f"sizes must hold at least {terms + 1} values to fit "
                         f"{terms} finite-size terms (got {x.size})")
    if np.any(var <= 0):
        raise ValueError("variances must be positive (every size needs a standard error)")
    X = np.column_stack([np.ones_like(x)] + [x ** -p for p in powers]
                        + [x ** -q * np.log(x) for q in log_powers])
    w = 1 / var
    root = np.sqrt(w)
    coef = np.linalg.lstsq(X * root[:, None], m * root, rcond=None)[0]
    c = np.linalg.pinv(X * root[:, None])[0] * root   # m∞ = c · m̄
    resid = m - X @ coef
    chi2 = float(np.sum(w * resid**2))
    fit_dof = int(x.size - X.shape[1])
    inflate = max(1.0, chi2 / fit_dof) if fit_dof > 0 else 1.0
    a = c**2 * var
    nu = np.asarray(dofs, dtype=float)
    dof = float(np.sum(a) ** 2 / np.sum(a**2 / nu)) if np.all(np.isfinite(nu)) else math.inf
    return Limit(float(coef[0]), float(math.sqrt(np.sum(a) * inflate)), dof, chi2, fit_dof,
                 tuple(powers), tuple(log_powers))
