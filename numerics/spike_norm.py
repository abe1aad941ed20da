r"""The limit of ‖Y^lin_Q − Y^lin_f‖: the square-root difference of a rank-one spike.

Y^lin_Q − Y^lin_f = G(Σ_f^{1/2} − Σ_G^{1/2})/√ℓ with one shared G. Σ_f − Σ_G is s·uuᵀ
(u = 𝟙/√ℓ, s = yβ⁴/2, :func:`theory.spike.strength`) plus parts of vanishing operator
norm, and ‖GM/√ℓ‖ → ‖M‖ for an M of bounded Frobenius norm, so the limit is the norm of

.. math:: M = (\Sigma + s\,uu^\top)^{1/2} - \Sigma^{1/2}

on the cyclic space of u under Σ = Σ_G, which is L²(ρ) with Σ the multiplication by λ and u
the constant 1: ρ, the law of θ₁ − θ₂ + θ₂x, x ~ MP_y, is the spectral measure of Σ_G along u
(the eigenvectors of KKᵀ are Haar, u is fixed). M is not of rank one: Σ has a spread
spectrum, and ‖M‖ > √(θ₁ + s) − √θ₁, the value of a scalar Σ = θ₁ (0.1938 against 0.1786 at
β = y = 1). Two routes compute ‖M‖, sharing nothing but ρ's definition:

* ``"integral"`` (:func:`integral_route`): M = ∫₀^∞ c(t) w_t w_tᵀ dt
  (:func:`theory.spike.weight`), so its eigenvalues are those of the kernel
  √(c(t)c(r)) ⟨w_t, w_r⟩ on (0, ∞), whose Gram entries are divided differences of the
  Stieltjes transform g(t) = ∫ dρ(λ)/(λ + t) (by quadrature against the MP density,
  ``numerics.limit_density``); Nyström with Gauss–Legendre nodes in t = σu²/(1 − u)².
* ``"jacobi"`` (:func:`jacobi_route`): L²(ρ) in the orthonormal polynomials of MP_y, where
  x is the Jacobi matrix J (:func:`theory.spike.mp_jacobi`) and u is e₀; Σ = (θ₁ − θ₂)I + θ₂J
  truncated to N × N, and M from the Sylvester equation Σ^{1/2}M + M(Σ + s e₀e₀ᵀ)^{1/2} =
  s e₀e₀ᵀ (no cancellation, so even s ≪ θ₁ keeps its digits).

Each route doubles its size until two levels agree to ``rtol``. :func:`krylov_norm` takes the
same Sylvester step on one sampled ρ (its Jacobi matrix along u by Lanczos): the spike alone
at finite ℓ, which the step fits to ℓ → ∞.

Examples
--------
>>> a, b = (operator_limit(1.718281828459045, 1, 1, 0.5, route) for route in ROUTES)
>>> round(a, 8), abs(a - b) < 1e-10
(0.19381683, True)
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp

from attnge.numerics.limit_density import _law
from attnge.theory import spike

ROUTES = ("integral", "jacobi")
_DPS = 30
_MAX_NODES = 1024

__all__ = ["ROUTES", "integral_route", "jacobi_route", "krylov_norm", "operator_limit"]


def _converged(level, rtol: float, start: int, name: str) -> float:
    """Double the size from ``start`` until two levels agree to ``rtol``."""
    n, previous = start, level(start)
    while n < _MAX_NODES:
        n *= 2
        value = level(n)
        if abs(value - previous) <= rtol * abs(value):
            return value
        previous = value
    raise ArithmeticError(f"the {name} route did not converge with {_MAX_NODES} nodes")


def integral_route(theta1: float, theta2: float, y: float, s: float,
                   rtol: float = 1e-11) -> float:
    r"""‖M‖ as the top eigenvalue of the kernel :math:`\sqrt{c(t)c(r)}\,\langle w_t, w_r\rangle`.

    Notes
    -----
    :math:`\langle w_t, w_r\rangle = \int d\rho/((\lambda + t)(\lambda + r)) =
    (g(t) - g(r))/(r - t)`, and :math:`-g'(t)` on the diagonal;
    :math:`c(t) = s\sqrt t/(\pi(1 + s\,g(t)))`.
    """
    with mp.workdps(_DPS):
        law = _law(theta1, theta2, y)
        scale = mpmath.mpf(theta1)

        def level(n: int) -> float:
            x, w = np.polynomial.legendre.leggauss(n)
            ts, weights = [], []
            for xi, wi in zip(x, w):
                u = (mpmath.mpf(xi) + 1) / 2
                ts.append(scale * (u / (1 - u)) ** 2)
                weights.append(mpmath.mpf(wi) / 2 * scale * 2 * u / (1 - u) ** 3)
            g = [law.integrate_many(lambda lam, t=t: (1 / (lam + t), 1 / (lam + t) ** 2))
                 for t in ts]
            c = [spike.weight_value(s, t, gt) for t, (gt, _) in zip(ts, g)]
            root = [mpmath.sqrt(ci * wi) for ci, wi in zip(c, weights)]
            K = np.empty((n, n))
            for i in range(n):
                K[i, i] = float(root[i] ** 2 * g[i][1])
                for j in range(i):
                    gram = (g[i][0] - g[j][0]) / (ts[j] - ts[i])
                    K[i, j] = K[j, i] = float(root[i] * root[j] * gram)
            return float(np.linalg.eigvalsh(K)[-1])

        return _converged(level, rtol, 24, "integral")


def _root_difference_norm(T: np.ndarray, theta1: float, theta2: float, s: float) -> float:
    r"""‖M‖ for Σ = (θ₁ − θ₂)I + θ₂T, T a (truncated) Jacobi matrix of x, u = e₀.

    With :math:`\Sigma^{1/2} = U\,\mathrm{diag}(a)U^\top` and
    :math:`(\Sigma + s e_0e_0^\top)^{1/2} = V\,\mathrm{diag}(b)V^\top`, the Sylvester equation
    :math:`\Sigma^{1/2}M + M(\Sigma + s e_0e_0^\top)^{1/2} = s e_0e_0^\top` gives
    :math:`M = U\,[(U^\top s e_0e_0^\top V)_{ij}/(a_i + b_j)]\,V^\top`.
    """
    sigma = (theta1 - theta2) * np.eye(T.shape[0]) + theta2 * T
    spiked = sigma.copy()
    spiked[0, 0] += s
    a, U = np.linalg.eigh(sigma)
    b, V = np.linalg.eigh(spiked)
    a, b = np.sqrt(np.clip(a, 0, None)), np.sqrt(np.clip(b, 0, None))
    M = U @ (s * np.outer(U[0], V[0]) / (a[:, None] + b[None, :])) @ V.T
    return float(np.linalg.eigvalsh((M + M.T) / 2)[-1])


def _tridiagonal(diagonal: np.ndarray, off: np.ndarray) -> np.ndarray:
    return np.diag(diagonal) + np.diag(off, 1) + np.diag(off, -1)


def jacobi_route(theta1: float, theta2: float, y: float, s: float,
                 rtol: float = 1e-12) -> float:
    r"""‖M‖ with T the Jacobi matrix of MP_y (:func:`theory.spike.mp_jacobi`) truncated to
    N × N (:func:`_root_difference_norm`)."""
    first, rest, off = (float(v) for v in spike.mp_jacobi(y))

    def level(n: int) -> float:
        T = _tridiagonal(np.r_[first, np.full(n - 1, rest)], np.full(n - 1, math.sqrt(off)))
        return _root_difference_norm(T, theta1, theta2, s)

    return _converged(level, rtol, 16, "jacobi")


def krylov_norm(rho: np.ndarray, theta1: float, theta2: float, s: float,
                steps: int = 64) -> float:
    r"""‖(Σ_G + s uuᵀ)^{1/2} − Σ_G^{1/2}‖ for one sampled ρ, Σ_G = θ₂ρ + (θ₁ − θ₂)I, u = 𝟙/√ℓ.

    Lanczos on (ρ, u), with full reorthogonalisation, gives the Jacobi matrix of ρ's spectral
    measure along u (exact once the Krylov space is whole; ``steps`` = 64 keeps 1e-12 of the
    norm over the grid of the tests); then :func:`_root_difference_norm`. O(steps · ℓ²).
    """
    ell = rho.shape[0]
    basis = np.empty((min(steps, ell), ell))
    basis[0] = 1 / np.sqrt(ell)
    diagonal, off = [], []
    for k in range(basis.shape[0]):
        w = rho @ basis[k]
        diagonal.append(float(basis[k] @ w))
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)          # twice is enough (Kahan)
        w -= basis[:k + 1].T @ (basis[:k + 1] @ w)
        norm = float(np.linalg.norm(w))
        if k + 1 == basis.shape[0] or norm <= 1e-12 * max(abs(diagonal[0]), 1.0):
            break
        off.append(norm)
        basis[k + 1] = w / norm
    T = _tridiagonal(np.array(diagonal), np.array(off[:len(diagonal) - 1]))
    return _root_difference_norm(T, theta1, theta2, s)


def operator_limit(theta1: float, theta2: float, y: float, s: float,
                   route: str = "integral") -> float:
    r"""lim ‖Y^lin_Q − Y^lin_f‖ = ‖(Σ + s uuᵀ)^{1/2} − Σ^{1/2}‖ on L²(ρ), by ``route``.

    Parameters
    ----------
    theta1, theta2 : float
        θ₁ > θ₂ ≥ 0: ρ is the law of θ₁ − θ₂ + θ₂x, x ~ MP_y.
    y : float
        ℓ/d_qk.
    s : float
        The spike's strength, s ≥ 0 (yβ⁴/2 for the softmax chain).
    route : {"integral", "jacobi"}

    Returns
    -------
    float

    Notes
    -----
    :math:`\|M\|` with :math:`M = (\Sigma + s\,uu^\top)^{1/2} - \Sigma^{1/2}`; see the
    module docstring.
    """
    if route not in ROUTES:
        raise ValueError(f"route must be one of {', '.join(ROUTES)} (got {route!r})")
    for name, v in (("theta1", theta1), ("y", y)):
        if not (math.isfinite(v) and v > 0):
            raise ValueError(f"{name} must be a positive finite number (got {v!r})")
    if not (math.isfinite(s) and s >= 0):
        raise ValueError(f"s must be a non-negative finite number (got {s!r})")
    if not 0 <= theta2 < theta1:
        raise ValueError(f"theta2 must be in [0, theta1) (got theta1={theta1!r}, "
                         f"theta2={theta2!r})")
    if s == 0:
        return 0.0
    run = integral_route if route == "integral" else jacobi_route
    return run(float(theta1), float(theta2), float(y), float(s))
