r"""The rank-one spike of Σ_f − Σ_G and the square-root difference it makes (docs/math.md §4).

Given K, the k = 2 Hadamard term of Σ_f has off-diagonal mean a₂²·2!·E ρ_jk² = a₂²·2/d_qk,
which over ℓ entries is the spike s·uuᵀ, u = 𝟙/√ℓ, with

.. math:: s = 2!\,a_2^2\,y = y\beta^4/2 \qquad (a_2 = \beta^2/\sqrt 2 \text{ the Hermite weight}).

The square root of Σ + s uuᵀ is found from the integral form
:math:`X^{1/2} = \frac1\pi\int_0^\infty t^{-1/2} X (X + t)^{-1} dt` and Sherman–Morrison:

.. math:: (\Sigma + s\,uu^\top)^{1/2} - \Sigma^{1/2}
          = \int_0^\infty c(t)\, w_t w_t^\top\, dt, \qquad
          w_t = (\Sigma + t)^{-1}u,\quad c(t) = \frac{s\sqrt t}{\pi\,(1 + s\,g(t))},

:math:`g(t) = u^\top(\Sigma + t)^{-1}u`. A sum of rank-one terms, it is of rank one only when
Σ is scalar along u. For one scalar Σ = λ the formula is :func:`scalar_identity`, which SymPy
integrates back to √(λ + s) − √λ.

In the limit, u sees Σ_G through ρ (the law of θ₁ − θ₂ + θ₂x, x ~ MP_y). The orthonormal
polynomials of MP_y (mean one, variance y) have the Jacobi matrix :func:`mp_jacobi`; a test
checks that :math:`e_0^\top J^k e_0` are the Narayana moments of MP_y.

Examples
--------
>>> strength()
beta**4*y/2
>>> mp_jacobi(sp.Symbol("y"))
(1, y + 1, y)
"""

from __future__ import annotations

import mpmath
import sympy as sp

from attnge.theory import exponential as ex
from attnge.theory.symbols import y

__all__ = ["LAMBDA", "S", "T", "mp_jacobi", "scalar_identity", "strength", "weight",
           "weight_value"]

LAMBDA, S, T, G = sp.symbols("lambda s t g", positive=True)


def strength() -> sp.Expr:
    r"""s = lim uᵀ(Σ_f − Σ_G)u = 2! a₂² y, a₂ the k = 2 Hermite coefficient of f."""
    return ex.hermite_coefficient(2, "f") ** 2 * sp.factorial(2) * y


def weight() -> sp.Expr:
    r""":math:`c(t) = s\sqrt t/(\pi(1 + s g))`, with g = g(t) the symbol ``G``."""
    return S * sp.sqrt(T) / (sp.pi * (1 + S * G))


def weight_value(s, t, g):
    """:func:`weight` at numbers (mpmath)."""
    return s * mpmath.sqrt(t) / (mpmath.pi * (1 + s * g))


def scalar_identity() -> sp.Expr:
    r"""The integral form at a scalar Σ = λ, integrated by SymPy: :math:`\int_0^\infty c(t)\,
    (\lambda + t)^{-2} dt` with g = 1/(λ + t); it equals √(λ + s) − √λ."""
    integrand = weight().subs(G, 1 / (LAMBDA + T)) / (LAMBDA + T) ** 2
    return sp.simplify(sp.integrate(sp.simplify(integrand), (T, 0, sp.oo)))


def mp_jacobi(ratio: object) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""Jacobi parameters of MP with mean one and ratio y: ``(a_0, a_n, b_n^2)``.

    The monic orthogonal polynomials satisfy :math:`x p_n = p_{n+1} + a_n p_n + b_n^2 p_{n-1}`
    with :math:`a_0 = 1`, :math:`a_n = 1 + y` (n ≥ 1) and :math:`b_n^2 = y`: MP_y is the free
    Poisson law of rate 1/y and jump y, whose continued fraction is constant after its first
    level (its atom 1 − 1/y at 0 for y > 1 included).
    """
    r = sp.sympify(ratio)
    return sp.Integer(1), 1 + r, r
