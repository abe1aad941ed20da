"""Gaussian and chi-square expectations in closed form.

Every expectation the theory needs is of a term p(x) e^{a x + b}, p a polynomial:

    E[p(χ) e^{aχ + b}] = e^{b + a²/2} E[p(χ + a)],   χ ~ N(0, 1)   (Cameron–Martin),

with E χ^j = (j − 1)!! for even j and 0 for odd j; for v = χ²_d / d,

    E[v^m e^{t v}] = M^{(m)}(t),   M(t) = (1 − 2t/d)^{−d/2},   finite iff t < d/2;

and for a pair of keys x, y ~ N(0, I_d), u = (|x|² + |y|²)/d and ρ = x·y/d,

    E[ρ^m e^{t u + s ρ}] = ∂_s^m M₂(t, s),   M₂ = ((1 − 2t/d)² − (s/d)²)^{−d/2},
    finite iff 2t + |s| < d.

This replaces ``sympy.stats`` (slow, and unreliable on these integrals).
"""

from __future__ import annotations

import sympy as sp


def _exponent(term: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """term = rest · e^{exponent}: return (rest, exponent), the exponentials' arguments summed."""
    factors = sp.Mul.make_args(term)
    rest = sp.Mul(*[f for f in factors if not isinstance(f, sp.exp)])
    return rest, sp.expand(sp.Add(*[f.args[0] for f in factors if isinstance(f, sp.exp)]))


def _split(term: sp.Expr, var: sp.Symbol) -> tuple[sp.Poly, sp.Expr, sp.Expr]:
    """term = p(var) e^{a var + b}: return (p, a, b)."""
    rest, exponent = _exponent(term)
    lin = sp.Poly(exponent, var)
    if lin.degree() > 1:
        raise ValueError(f"exponent must be linear in {var} (got {exponent})")
    poly = sp.Poly(rest, var)
    return poly, lin.coeff_monomial(var), lin.coeff_monomial(1)


def gaussian_moment(j: int) -> sp.Integer:
    """E χ^j for χ ~ N(0, 1): (j − 1)!! for even j, 0 for odd j."""
    return sp.Integer(0) if j % 2 else sp.factorial2(j - 1)


def gaussian_expectation(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """E[expr] with ``var`` ~ N(0, 1), for sums of polynomial × exp(linear) terms.

    Notes
    -----
    E[p(χ) e^{aχ + b}] = e^{b + a²/2} Σ_m p_m Σ_j C(m, j) a^{m−j} E χ^j.

    >>> from sympy import Symbol, exp
    >>> t, x = Symbol("t"), Symbol("x")
    >>> gaussian_expectation(x**2 * exp(t * x), x)
    (t**2 + 1)*exp(t**2/2)
    """
    groups: dict[tuple[sp.Expr, sp.Expr], sp.Poly] = {}
    for term in sp.Add.make_args(sp.expand(expr)):
        poly, a, b = _split(term, var)
        groups[(a, b)] = groups[(a, b)] + poly if (a, b) in groups else poly
    total = sp.Integer(0)
    for (a, b), poly in groups.items():
        coeffs = [c for _, c in poly.terms()]
        # one polynomial ring for a and the coefficients (the dummy keeps it non-empty)
        (a_poly, *c_polys, _), _ = sp.parallel_poly_from_expr([a, *coeffs, _DUMMY])
        h = _shifted_moments(a_poly, poly.degree())
        mean = sum((c * h[m] for ((m,), _), c in zip(poly.terms(), c_polys)), a_poly * 0)
        total += sp.exp(b + a**2 / 2) * mean.as_expr()
    return total


_DUMMY = sp.Dummy("t")


def _shifted_moments(a: sp.Poly, degree: int) -> list[sp.Poly]:
    """h_m = E(χ + a)^m for m ≤ degree: h_{m+1} = a h_m + m h_{m−1} (Stein)."""
    h = [a * 0 + 1, a]
    for m in range(1, degree):
        h.append(a * h[m] + m * h[m - 1])
    return h[: degree + 1]


def chi2_expectation(
    expr: sp.Expr, v: sp.Symbol, d: sp.Expr
) -> tuple[sp.Expr, list[sp.Expr]]:
    """E[expr] with v = χ²_d/d, for sums of polynomial × exp(linear) terms in v.

    Returns the expectation and the rates t of the exponentials e^{t v}; it is
    finite iff d > 2t for each of them (the existence conditions).

    Notes
    -----
    E[v^m e^{tv}] = (1 − 2t/d)^{−d/2 − m} Π_{i<m} (1 + 2i/d).

    >>> from sympy import Symbol, exp
    >>> v, d, t = Symbol("v"), Symbol("d", positive=True), Symbol("t")
    >>> chi2_expectation(v * exp(t * v), v, d)
    ((1 - 2*t/d)**(-d/2 - 1), [t])
    """
    total, rates = sp.Integer(0), []
    for term in sp.Add.make_args(sp.expand(expr)):
        poly, t, b = _split(term, v)
        if t != 0 and t not in rates:
            rates.append(t)
        for (m,), c in poly.terms():
            rising = sp.Mul(*[1 + sp.Integer(2 * i) / d for i in range(m)])
            total += c * sp.exp(b) * rising * (1 - 2 * t / d) ** (-d / 2 - m)
    return total, rates


def _split_pair(term: sp.Expr, u: sp.Symbol, rho: sp.Symbol) -> tuple[sp.Poly, sp.Expr, sp.Expr,
                                                                      sp.Expr]:
    """term = p(ρ) e^{t u + s ρ + b}: return (p, t, s, b)."""
    rest, exponent = _exponent(term)
    exponent = sp.Poly(exponent, u, rho)
    if exponent.total_degree() > 1:
        raise ValueError(f"exponent must be linear in {u}, {rho} (got {exponent.as_expr()})")
    poly = sp.Poly(rest, rho)
    if poly.free_symbols & {u}:
        raise ValueError(f"the prefactor must not depend on {u} (got {rest})")
    return (poly, exponent.coeff_monomial(u), exponent.coeff_monomial(rho),
            exponent.coeff_monomial(1))


def pair_expectation(
    expr: sp.Expr, u: sp.Symbol, rho: sp.Symbol, d: sp.Expr
) -> tuple[sp.Expr, list[tuple[sp.Expr, sp.Expr]]]:
    """E[expr] over a pair of keys x, y ~ N(0, I_d), with u = (|x|² + |y|²)/d, ρ = x·y/d.

    ``expr`` is a sum of p(ρ) e^{t u + s ρ + b} terms. Returns the expectation and the rates
    (t, s) of its exponentials; it is finite iff 2t + |s| < d for each of them.

    Notes
    -----
    Per coordinate, (x_i, y_i) has E e^{(t/d)(x_i² + y_i²) + (s/d) x_i y_i}
    = ((1 − 2t/d)² − (s/d)²)^{−1/2}; the d coordinates are independent, and ρ^m is
    brought down by ∂_s^m.

    >>> from sympy import Symbol
    >>> u, r, d = Symbol("u"), Symbol("rho"), Symbol("d", positive=True)
    >>> pair_expectation(r**2, u, r, d)[0]
    1/d
    """
    s = sp.Dummy("s")
    total, rates = sp.Integer(0), []
    for term in sp.Add.make_args(sp.expand(expr)):
        poly, t, rate, b = _split_pair(term, u, rho)
        if (t, rate) not in rates:
            rates.append((t, rate))
        mgf = ((1 - 2 * t / d) ** 2 - (s / d) ** 2) ** (-d / 2)
        for (m,), c in poly.terms():
            total += c * sp.exp(b) * sp.diff(mgf, s, m).subs(s, rate)
    return total, rates
