"""Conditional mean and covariance of a row of f(S) given the keys, and its linear model.

Given K, a row of scores S_i· = q_i Kᵀ/√d_qk is N(0, ρ) with ρ = K Kᵀ/d_qk, and the
rows are i.i.d. This module derives, symbolically (SymPy Gaussian integrals, no
``sympy.stats``), for f(x) = e^{βx − β²/2} − 1:

- the centring c_j = E[f(S_ij) | K] as a function of β and ρ_jj;
- the conditional covariance Σ_f[j, k] = Cov(f(S_ij), f(S_ik) | K) as a function of
  β, ρ_jj, ρ_kk, ρ_jk (k plays the role of j');
- the Hadamard-power expansion Σ_f = Σ_{k≥1} a_k ∘ ρ^{∘k} and its coefficients;
- the linear covariance Σ_G = θ₂ ρ + (θ₁ − θ₂) I, θ₁ = e^{β²} − 1, θ₂ = β²;

and NumPy evaluators generated from those expressions by ``sympy.lambdify``. The
numeric helpers take a float β and a ρ matrix; they never sample.

The symbols are ``BETA`` (β > 0), ``RHO_JJ`` and ``RHO_KK`` (the variances ρ_jj, ρ_kk,
positive) and ``RHO_JK`` (the covariance ρ_jk, real).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import sympy as sp
from sympy.codegen.rewriting import expm1_opt, optimize

from attnge.theory import exponential as ex
from attnge.theory.inputs import positive

__all__ = [
    "BETA",
    "RHO_JJ",
    "RHO_JK",
    "RHO_KK",
    "c_expr",
    "c_of_K",
    "gaussian_mgf_2d",
    "hadamard_coefficient",
    "sigma_G",
    "sigma_G_expr",
    "sigma_f",
    "sigma_f_expr",
    "sigma_f_truncated",
    "standard_normal_mgf",
]

BETA = sp.Symbol("beta", positive=True)      # == theory.symbols.beta
RHO_JJ = sp.Symbol("rho_jj", positive=True)
RHO_KK = sp.Symbol("rho_kk", positive=True)
RHO_JK = sp.Symbol("rho_jk", real=True)

_U = sp.Symbol("u", real=True)
_Z = sp.Symbol("z", real=True)
_S = sp.Symbol("s", real=True)
_T = sp.Symbol("t", real=True)


# --------------------------------------------------------------------------- symbolic


@cache
def standard_normal_mgf() -> sp.Expr:
    """E e^{uχ} for χ ~ N(0, 1), as an expression in the symbol ``u``.

    Notes
    -----
    Computed by ``sympy.integrate`` of the defining integral

    .. math:: M(u) = \\int_{-\\infty}^{\\infty} e^{uz}\\, \\frac{e^{-z^2/2}}{\\sqrt{2\\pi}}\\, dz
              = e^{u^2/2}.
    """
    integral = sp.integrate(sp.exp(_U * _Z - _Z**2 / 2) / sp.sqrt(2 * sp.pi), (_Z, -sp.oo, sp.oo))
    return sp.simplify(integral)


def _mgf(u: sp.Expr) -> sp.Expr:
    return standard_normal_mgf().subs(_U, u)


@cache
def gaussian_mgf_2d() -> sp.Expr:
    """E e^{s x + t y} for (x, y) ~ N(0, [[ρ_jj, ρ_jk], [ρ_jk, ρ_kk]]), in s, t and the ρ's.

    Notes
    -----
    With the Cholesky factor x = √ρ_jj z₁, y = (ρ_jk/√ρ_jj) z₁ + √(ρ_kk − ρ_jk²/ρ_jj) z₂,
    z₁, z₂ i.i.d. N(0, 1), the expectation factorises into two one-dimensional integrals
    (``standard_normal_mgf``):

    .. math:: E\\, e^{sx + ty}
              = M\\big(s\\sqrt{\\rho_{jj}} + t\\rho_{jk}/\\sqrt{\\rho_{jj}}\\big)\\,
              M\\big(t\\sqrt{\\rho_{kk} - \\rho_{jk}^2/\\rho_{jj}}\\big)
              = e^{(\\rho_{jj}s^2 + 2\\rho_{jk}st + \\rho_{kk}t^2)/2}.

    The derivation needs a positive-definite covariance; the result is a polynomial
    exponent and holds on the closure (degenerate covariances) by continuity.
    """
    l11 = sp.sqrt(RHO_JJ)
    l21 = RHO_JK / l11
    l22 = sp.sqrt(RHO_KK - l21**2)
    product = _mgf(_S * l11 + _T * l21) * _mgf(_T * l22)
    exponent = sp.expand(sp.powsimp(product, combine="exp").args[0])
    return sp.exp(sp.factor_terms(exponent))


def _combine_exp(expr: sp.Expr) -> sp.Expr:
    """Products of exponentials merged into one, exponent collected in β."""
    expr = sp.powsimp(sp.expand(expr), combine="exp")
    return expr.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(sp.factor(e.args[0])))


@cache
def c_expr() -> sp.Expr:
    """The centring c_j = E[f(S_ij) | K] as an expression in β and ρ_jj.

    Notes
    -----
    S_ij ~ N(0, ρ_jj) given K, so with the 1-D Gaussian MGF

    .. math:: c_j = e^{-\\beta^2/2}\\, E\\, e^{\\beta S_{ij}} - 1
              = e^{\\beta^2(\\rho_{jj} - 1)/2} - 1.
    """
    mean_exp = sp.exp(-(BETA**2) / 2) * _mgf(BETA * sp.sqrt(RHO_JJ))
    return _combine_exp(mean_exp) - 1


@cache
def sigma_f_expr() -> sp.Expr:
    """The conditional covariance Σ_f[j, k] = Cov(f(S_ij), f(S_ik) | K).

    Notes
    -----
    With the bivariate Gaussian MGF at s = t = β (``gaussian_mgf_2d``),

    .. math:: \\Sigma_f[j,k] = e^{-\\beta^2} E\\, e^{\\beta(S_{ij} + S_{ik})}
              - (1 + c_j)(1 + c_k)
              = e^{\\beta^2(\\rho_{jj} + \\rho_{kk})/2 - \\beta^2}\\,
              \\big(e^{\\beta^2\\rho_{jk}} - 1\\big).

    The same expression gives the diagonal with ρ_kk = ρ_jk = ρ_jj.
    """
    joint = sp.exp(-(BETA**2)) * gaussian_mgf_2d().subs({_S: BETA, _T: BETA})
    means = (1 + c_expr()) * (1 + c_expr().subs(RHO_JJ, RHO_KK))
    cov = sp.factor(_combine_exp(joint) - _combine_exp(means))
    scale, dependent = cov.as_independent(RHO_JK, as_Add=False)
    return _combine_exp(scale) * dependent


def hadamard_coefficient(k: int) -> sp.Expr:
    """The coefficient a_k(β, ρ_jj, ρ_kk) of ρ_jk^k in Σ_f[j, k].

    Parameters
    ----------
    k : int
        The Hadamard power, k ≥ 0.

    Returns
    -------
    sympy.Expr
        a_k, so that Σ_f = Σ_{k≥0} a_k ∘ ρ^{∘k} entrywise (a_0 = 0).

    Notes
    -----
    Σ_f[j, k] is entire in ρ_jk; its Taylor coefficient is obtained by differentiation,

    .. math:: a_k = \\frac{1}{k!}\\,\\partial_{\\rho_{jk}}^k \\Sigma_f[j,k]\\big|_{\\rho_{jk}=0}
              = \\frac{\\beta^{2k}}{k!}\\, s_j s_k, \\qquad
              s_j = e^{\\beta^2(\\rho_{jj} - 1)/2} = 1 + c_j \\quad (k \\ge 1),

    i.e. Σ_f = Σ_{k≥1} (β^{2k}/k!) diag(s) ρ^{∘k} diag(s).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative integer (got {k!r})")
    return _hadamard_coefficient(int(k))


@cache
def _hadamard_coefficient(k: int) -> sp.Expr:
    return _combine_exp(_sigma_f_derivative(k).subs(RHO_JK, 0) / sp.factorial(k))


_DERIVATIVES: list[sp.Expr] = []


def _sigma_f_derivative(k: int) -> sp.Expr:
    """∂^k Σ_f[j,k] / ∂ρ_jk^k, one derivative at a time (kept compact, fast at large k)."""
    if not _DERIVATIVES:
        _DERIVATIVES.append(sigma_f_expr())
    while len(_DERIVATIVES) <= k:
        _DERIVATIVES.append(_combine_exp(sp.diff(_DERIVATIVES[-1], RHO_JK)))
    return _DERIVATIVES[k]


def sigma_G_expr(diagonal: bool = False) -> sp.Expr:
    """An entry of the linear covariance Σ_G = θ₂ ρ + (θ₁ − θ₂) I.

    Parameters
    ----------
    diagonal : bool
        ``False``: the off-diagonal entry θ₂ ρ_jk; ``True``: the diagonal entry
        θ₂ ρ_jj + θ₁ − θ₂.

    Notes
    -----
    .. math:: \\Sigma_G = \\theta_2\\,\\rho + (\\theta_1 - \\theta_2) I,
              \\qquad \\theta_1 = e^{\\beta^2} - 1,\\ \\theta_2 = \\beta^2.

    It is the covariance of a row of βS + √(θ₁ − θ₂) Z given K. When ρ_jj = 1 it equals
    the k ≤ 1 truncation of the Hadamard expansion of Σ_f with the exact diagonal θ₁.
    """
    t1, t2 = ex.theta1(), ex.theta2()      # in theory.symbols.beta, the same symbol as BETA
    if diagonal:
        return t2 * RHO_JJ + t1 - t2
    return t2 * RHO_JK


# --------------------------------------------------------------------------- numeric


def _lambdify(args: tuple[sp.Symbol, ...], expr: sp.Expr) -> Callable[..., np.ndarray]:
    """NumPy function of ``expr``, with e^x − 1 rewritten to expm1 for accuracy."""
    return sp.lambdify(args, optimize(expr, [expm1_opt]), modules="numpy")


@cache
def _c_numeric() -> Callable[..., np.ndarray]:
    return _lambdify((BETA, RHO_JJ), c_expr())


@cache
def _sigma_f_numeric() -> Callable[..., np.ndarray]:
    return _lambdify((BETA, RHO_JJ, RHO_KK, RHO_JK), sigma_f_expr())


@cache
def _hadamard_numeric(k: int) -> Callable[..., np.ndarray]:
    return _lambdify((BETA, RHO_JJ, RHO_KK), hadamard_coefficient(k))


def _sigma_G_numeric(diagonal: bool) -> Callable[..., np.ndarray]:
    return _lambdify_cached((BETA, RHO_JJ if diagonal else RHO_JK), sigma_G_expr(diagonal))


@cache
def _lambdify_cached(args: tuple[sp.Symbol, ...], expr: sp.Expr) -> Callable[..., np.ndarray]:
    """``_lambdify`` keyed by the expression (θ₁, θ₂ are read from their source each call)."""
    return _lambdify(args, expr)


def _check_rho_diag(rho_diag: np.ndarray, name: str = "rho_diag") -> np.ndarray:
    d = np.asarray(rho_diag, dtype=np.float64)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array (got shape {d.shape})")
    if not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise ValueError(f"{name} must have positive finite entries")
    return d


def _check_rho(rho: np.ndarray) -> np.ndarray:
    r = np.asarray(rho, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] != r.shape[1] or r.shape[0] == 0:
        raise ValueError(f"rho must be a non-empty square matrix (got shape {r.shape})")
    if not np.all(np.isfinite(r)):
        raise ValueError("rho must have finite entries")
    scale = np.max(np.abs(r))
    if np.max(np.abs(r - r.T)) > 1e-12 * scale:
        raise ValueError("rho must be symmetric")
    _check_rho_diag(np.diagonal(r), name="rho (diagonal)")
    return r


def c_of_K(rho_diag: np.ndarray, beta: float) -> np.ndarray:
    """The centring vector c_j = E[f(S_ij) | K], evaluated from ``c_expr``.

    Parameters
    ----------
    rho_diag : array_like, shape (ℓ,)
        The diagonal ρ_jj = ‖k_j‖²/d_qk (positive).
    beta : float
        Inverse temperature, β > 0.

    Returns
    -------
    numpy.ndarray, shape (ℓ,), float64

    Notes
    -----
    .. math:: c_j = e^{\\beta^2(\\rho_{jj} - 1)/2} - 1

    (evaluated with ``expm1``).

    Examples
    --------
    >>> c_of_K([1.0, 1.0], 0.7).tolist()
    [0.0, 0.0]
    """
    beta = positive(beta, "beta")
    d = _check_rho_diag(rho_diag)
    return np.asarray(_c_numeric()(beta, d), dtype=np.float64) * np.ones_like(d)


def sigma_f(rho: np.ndarray, beta: float) -> np.ndarray:
    """The conditional covariance Σ_f of a row of f(S) given K, evaluated from ``sigma_f_expr``.

    Parameters
    ----------
    rho : array_like, shape (ℓ, ℓ)
        ρ = K Kᵀ/d_qk (symmetric, positive diagonal).
    beta : float
        Inverse temperature, β > 0.

    Returns
    -------
    numpy.ndarray, shape (ℓ, ℓ), float64

    Notes
    -----
    .. math:: \\Sigma_f[j,k] = e^{\\beta^2(\\rho_{jj} + \\rho_{kk})/2 - \\beta^2}
              \\big(e^{\\beta^2\\rho_{jk}} - 1\\big)

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.isclose(sigma_f(np.eye(2), 1.0)[0, 0], np.e - 1))
    True
    """
    beta = positive(beta, "beta")
    r = _check_rho(rho)
    d = np.diagonal(r)
    return np.asarray(_sigma_f_numeric()(beta, d[:, None], d[None, :], r), dtype=np.float64)


def sigma_f_truncated(rho: np.ndarray, beta: float, k_max: int) -> np.ndarray:
    """Σ_f with its Hadamard expansion kept to order k_max off the diagonal, exact diagonal.

    Parameters
    ----------
    rho : array_like, shape (ℓ, ℓ)
        ρ = K Kᵀ/d_qk (symmetric, positive diagonal).
    beta : float
        Inverse temperature, β > 0.
    k_max : int
        Highest Hadamard power kept, k_max ≥ 0 (0 keeps only the diagonal).

    Returns
    -------
    numpy.ndarray, shape (ℓ, ℓ), float64

    Notes
    -----
    Off the diagonal,

    .. math:: \\Sigma_f^{(k_{max})}[j,k] = \\sum_{k'=1}^{k_{max}} a_{k'}\\, \\rho_{jk}^{k'},
              \\qquad a_{k'} = \\frac{\\beta^{2k'}}{k'!} s_j s_k,

    and on the diagonal the exact Σ_f[j, j] = e^{β²(ρ_jj − 1)}(e^{β²ρ_jj} − 1). Choice:
    the remainder Σ_{k'>k_max} a_{k'} ρ^{∘k'} is kept on the diagonal only. Then every
    entry of the row still has its exact variance, and the matrix stays positive
    semi-definite: the kept sum is PSD by the Schur product theorem and the diagonal
    remainder Σ_{k'>k_max} (β^{2k'}/k'!) s_j² ρ_jj^{k'} is ≥ 0. With ρ_jj = 1 and
    k_max = 1 this is exactly Σ_G.

    Examples
    --------
    >>> import numpy as np
    >>> rho = np.array([[1.0, 0.1], [0.1, 1.0]])
    >>> bool(np.allclose(sigma_f_truncated(rho, 1.0, 1), sigma_G(rho, 1.0)))
    True
    """
    beta = positive(beta, "beta")
    r = _check_rho(rho)
    if isinstance(k_max, bool) or not isinstance(k_max, (int, np.integer)) or k_max < 0:
        raise ValueError(f"k_max must be a non-negative integer (got {k_max!r})")
    d = np.diagonal(r)
    out = np.zeros_like(r)
    if k_max >= 1:
        power = np.ones_like(r)
        for k in range(1, int(k_max) + 1):
            power *= r
            out += _hadamard_numeric(k)(beta, d[:, None], d[None, :]) * power
    np.fill_diagonal(out, _sigma_f_numeric()(beta, d, d, d))
    return out


def sigma_G(rho: np.ndarray, beta: float) -> np.ndarray:
    """The linear covariance Σ_G = θ₂ ρ + (θ₁ − θ₂) I, evaluated from ``sigma_G_expr``.

    Parameters
    ----------
    rho : array_like, shape (ℓ, ℓ)
        ρ = K Kᵀ/d_qk (symmetric, positive diagonal).
    beta : float
        Inverse temperature, β > 0.

    Returns
    -------
    numpy.ndarray, shape (ℓ, ℓ), float64

    Notes
    -----
    .. math:: \\Sigma_G = \\beta^2 \\rho + (e^{\\beta^2} - 1 - \\beta^2)\\, I

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.isclose(sigma_G(np.eye(1), 1.0)[0, 0], np.e - 1))
    True
    """
    beta = positive(beta, "beta")
    r = _check_rho(rho)
    out = np.asarray(_sigma_G_numeric(False)(beta, r), dtype=np.float64) * np.ones_like(r)
    np.fill_diagonal(out, _sigma_G_numeric(True)(beta, np.diagonal(r)))
    return out
