"""The exponential in the Hermite and Taylor bases (docs/math.md §2).

g(x) = e^{βx − β²/2} = Σ_k β^k He_k(x)/k!,   f(x) = g(x) − 1,   χ ~ N(0, 1),
θ₁ = E f(χ)² = e^{β²} − 1,   θ₂ = (E f′(χ))² = β²,   θ₁ − θ₂ = Σ_{k≥2} β^{2k}/k!.

Every coefficient is derived, not typed in: a Hermite coefficient is the Gaussian
integral E[h(χ) He_k(χ)]/k! computed in closed form (``theory.gaussian``), a Taylor
coefficient the k-th derivative at 0 over k!.
"""

from __future__ import annotations

from functools import cache

import sympy as sp
from sympy.codegen.rewriting import expm1_opt, optimize

from attnge.theory.gaussian import chi2_expectation, gaussian_expectation
from attnge.theory.inputs import integer
from attnge.theory.symbols import beta, k, x

TARGETS = ("exp", "g", "f")
"""exp: e^{βx};  g: e^{βx − β²/2};  f: e^{βx − β²/2} − 1."""


def target(name: str) -> sp.Expr:
    """The function of x (and β) named by ``name`` in ``TARGETS``."""
    g = sp.exp(beta * x - beta**2 / 2)
    funcs = {"exp": sp.exp(beta * x), "g": g, "f": g - 1}
    if name not in funcs:
        raise ValueError(f"target must be one of {', '.join(TARGETS)} (got {name!r})")
    return funcs[name]


@cache
def hermite_coefficient(n: int, name: str = "f") -> sp.Expr:
    """a_n = E[h(χ) He_n(χ)] / n!, so that h = Σ_n a_n He_n in L²(N(0, 1)).

    >>> hermite_coefficient(3, "f")
    beta**3/6
    >>> hermite_coefficient(0, "f"), hermite_coefficient(2, "exp")
    (0, beta**2*exp(beta**2/2)/2)
    """
    n = integer(n, "order")
    integral = gaussian_expectation(target(name) * sp.hermite_prob(n, x), x)
    return sp.powsimp(sp.expand(integral / sp.factorial(n)))


@cache
def taylor_coefficient(n: int, name: str = "f") -> sp.Expr:
    """t_n = h^{(n)}(0) / n!.

    >>> taylor_coefficient(2, "g")
    beta**2*exp(-beta**2/2)/2
    """
    n = integer(n, "order")
    return sp.diff(target(name), x, n).subs(x, 0) / sp.factorial(n)


def hermite_coefficients(order: int, name: str = "f") -> list[sp.Expr]:
    """[a_0, …, a_order] (see ``hermite_coefficient``)."""
    return [hermite_coefficient(n, name) for n in range(integer(order, "order") + 1)]


def taylor_coefficients(order: int, name: str = "f") -> list[sp.Expr]:
    """[t_0, …, t_order] (see ``taylor_coefficient``)."""
    return [taylor_coefficient(n, name) for n in range(integer(order, "order") + 1)]


@cache
def theta1() -> sp.Expr:
    """θ₁ = E f(χ)², derived as a Gaussian integral.

    >>> theta1()
    exp(beta**2) - 1
    """
    return sp.simplify(gaussian_expectation(target("f") ** 2, x))


@cache
def theta2() -> sp.Expr:
    """θ₂ = (E f′(χ))².

    >>> theta2()
    beta**2
    """
    return sp.simplify(gaussian_expectation(sp.diff(target("f"), x), x) ** 2)


def thetas(b: float) -> tuple[float, float]:
    """(θ₁, θ₂) at β = b as floats, evaluated from ``theta1()`` and ``theta2()``.

    The one numeric source of θ₁ and θ₂: the chain, the law, the threshold work, the
    tables and the figures call this (e^{β²} − 1 is evaluated with ``expm1``).

    >>> thetas(1.0)
    (1.718281828459045, 1.0)
    """
    return _numeric(theta1())(b), _numeric(theta2())(b)


def f_values(S, b: float):
    """f(S) = e^{βS − β²/2} − 1 elementwise (NumPy, ``expm1``), evaluated from ``target("f")``."""
    return _numeric(target("f"), (beta, x), "numpy")(b, S)


@cache
def _numeric(expr: sp.Expr, args=(beta,), modules: str = "math"):
    """A float function of ``expr``, keyed by the expression, e^u − 1 rewritten to expm1."""
    return sp.lambdify(args, optimize(expr, [expm1_opt]), modules=modules)


def nonlinear_variance() -> sp.Expr:
    """θ₁ − θ₂, the variance of the nonlinear part of f (the noise of Y^lin_f)."""
    return theta1() - theta2()


def parseval_series(start: int) -> sp.Sum:
    """Σ_{k ≥ start} k! a_k² = Σ_{k ≥ start} β^{2k}/k!, with a_k = β^k/k! (unevaluated)."""
    a_k = beta**k / sp.factorial(k)
    return sp.Sum(sp.simplify(sp.factorial(k) * a_k**2), (k, start, sp.oo))


def series_identities() -> dict[str, bool]:
    """Prove the series identities symbolically.

    - the general Hermite coefficient: a_n = β^n/n! for n = 1…12 (checked against
      the derived coefficients; the closed sum below relies on it);
    - Parseval: Σ_{k≥1} k! a_k² = θ₁;
    - the nonlinear remainder: Σ_{k≥2} k! a_k² = θ₁ − θ₂.
    """
    general = all(sp.simplify(hermite_coefficient(n, "f") - beta**n / sp.factorial(n)) == 0
                  for n in range(1, 13))
    s1 = parseval_series(1).doit()
    s2 = parseval_series(2).doit()
    return {
        "a_n = beta^n/n!": general,
        "sum_{k>=1} k! a_k^2 = theta1": sp.simplify(s1 - theta1()) == 0,
        "sum_{k>=2} k! a_k^2 = theta1 - theta2": sp.simplify(s2 - nonlinear_variance()) == 0,
    }


def hermite_remainder(n: int) -> sp.Expr:
    """r_n = E[(f − Σ_{k≤n} a_k He_k)²](χ) = θ₁ − Σ_{k=1}^{n} k! a_k² (exact)."""
    n = integer(n, "order")
    return theta1() - sum(sp.factorial(j) * hermite_coefficient(j, "f") ** 2
                          for j in range(1, n + 1))


def hermite_remainder_bound(n: int) -> sp.Expr:
    """r_n ≤ β^{2(n+1)} e^{β²} / (n+1)!.

    Notes
    -----
    Σ_{k>n} z^k/k! = z^{n+1}/(n+1)! Σ_{j≥0} z^j (n+1)!/(n+1+j)! ≤ z^{n+1} e^z/(n+1)!.
    """
    n = integer(n, "order")
    return beta ** (2 * n + 2) * sp.exp(beta**2) / sp.factorial(n + 1)


def taylor_remainder_bound(n: int, radius: sp.Expr) -> sp.Expr:
    """sup_{|x|≤R} |g(x) − Σ_{k≤n} t_k x^k| ≤ e^{−β²/2} (βR)^{n+1} e^{βR} / (n+1)!.

    Notes
    -----
    Lagrange: g − T_n = g^{(n+1)}(ξ) x^{n+1}/(n+1)!, g^{(n+1)} = β^{n+1} g, |ξ| ≤ R.
    """
    n = integer(n, "order")
    return sp.exp(-beta**2 / 2) * (beta * radius) ** (n + 1) * sp.exp(beta * radius) \
        / sp.factorial(n + 1)


def score_moments(d_qk: sp.Expr) -> dict[str, tuple[sp.Expr, sp.Expr]]:
    """Exact E f(S)² and E S f(S) for one score S = q·k/√d_qk, and their limits.

    Given q, S ~ N(0, v) with v = ‖q‖²/d_qk ~ χ²_{d_qk}/d_qk, so each moment is a
    Gaussian integral in χ followed by a chi-square expectation in v. Returns
    name → (exact value at d_qk, limit d_qk → ∞ = θ₁ resp. β).
    """
    v = sp.Symbol("v", positive=True)
    s = sp.sqrt(v) * x
    f_s = target("f").subs(x, s)
    out = {}
    for name, integrand, limit in (("E f(S)^2", f_s**2, theta1()), ("E S f(S)", s * f_s, beta)):
        given_v = gaussian_expectation(sp.expand(integrand), x)
        exact_value, _ = chi2_expectation(sp.expand(given_v), v, d_qk)
        out[name] = (exact_value, limit)
    return out
