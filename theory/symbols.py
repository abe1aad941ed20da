"""The symbols of the theory and exact conversion of user numbers.

β (inverse temperature), x (a standard Gaussian variable χ), k (an order),
ℓ (tokens) and d_qk (query/key width) are positive SymPy symbols shared by every
module of ``theory``.
"""

from __future__ import annotations

import math
import re
from numbers import Real

import sympy as sp

from attnge.theory.inputs import BETA_MAX

beta = sp.Symbol("beta", positive=True)
x = sp.Symbol("x", real=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
ell = sp.Symbol("ell", positive=True)
d_qk = sp.Symbol("d_qk", positive=True)
y = sp.Symbol("y", positive=True)
eps = sp.Symbol("epsilon", positive=True)
THETA1, THETA2 = sp.symbols("theta1 theta2", positive=True)
H, GAMMA_K = sp.symbols("h gamma_K", positive=True)


def exact(value: Real | str | sp.Expr, name: str) -> sp.Expr:
    """A finite real number as an exact SymPy number (decimals become rationals).

    >>> exact(0.5, "beta")
    1/2
    >>> exact("1.1", "beta")
    11/10
    >>> exact("3/2", "gamma")
    3/2
    """
    if isinstance(value, sp.Expr):
        if not (value.is_real and value.is_finite):
            raise ValueError(f"{name} must be a finite real number (got {value})")
        return value
    if isinstance(value, str):
        if re.fullmatch(r"\s*[+-]?[0-9]+\s*/\s*[0-9]+\s*", value):     # a ratio, e.g. 3/2
            p, q = (int(v) for v in value.split("/"))
            if q == 0:
                raise ValueError(f"{name} must be a finite real number (got {value!r})")
            return sp.Rational(p, q)
        try:
            value = float(value)
        except ValueError:
            raise ValueError(f"{name} must be a finite real number (got {value!r})") from None
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number (got {value!r})")
    text = str(value) if isinstance(value, int) else repr(float(value))
    return sp.Rational(text)


def positive_beta(value: Real | str | sp.Expr) -> sp.Expr:
    """β as an exact positive number; ValueError naming ``beta`` otherwise."""
    b = exact(value, "beta")
    if not b.is_positive or b > BETA_MAX:
        raise ValueError(f"beta must be in (0, {BETA_MAX:g}] (got {float(b):g})")
    return b


class He(sp.Function):
    """He_k(x), the probabilists' Hermite polynomial, as an unevaluated symbol for claims."""

    nargs = 2

    def _latex(self, printer, exp=None) -> str:
        k_, x_ = (printer._print(a) for a in self.args)
        return rf"\mathrm{{He}}_{{{k_}}}\left({x_}\right)"
