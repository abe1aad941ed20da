r"""Exact polynomial rings over QQ for expressions with any numbers in them.

SymPy's ``sring`` picks its own generators: for θ₁ − θ₂ = e^{9/4} − 13/4 and e^{1/4} in one
list it takes e^{1/4} as the generator and then cannot write e^{9/4} in it (every β whose
β² is not an integer used to fail so). :class:`ExactRing` takes every sub-expression that is
not a polynomial in the symbols over QQ (an exponential, a square root, a float, π, …) as a
generator of its own, so that any parameters put together by ``+``, ``×`` and integer powers
live in a ring over QQ. Treating such atoms as independent symbols is exact: the ring's
arithmetic proves an identity of polynomials, which stays true on substituting any values.

Examples
--------
>>> import sympy as sp
>>> E = ExactRing([sp.exp(sp.Rational(9, 4)) - 1, sp.exp(sp.Rational(1, 4)), 1 / sp.Symbol("h")])
>>> E.to_sympy(E(sp.exp(sp.Rational(9, 4)) - 1) * E(sp.exp(sp.Rational(1, 4))))
-exp(1/4) + exp(5/2)
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from sympy import sring

__all__ = ["ExactRing"]


class ExactRing:
    """A polynomial ring over QQ that holds ``exprs`` (and anything built from their atoms).

    Parameters
    ----------
    exprs : sequence of numbers or sympy.Expr
        Its generators are their symbols (with 1/s for a symbol s in a denominator, as
        ``sring`` makes them) and one Dummy per other atom.

    Attributes
    ----------
    ring : sympy.polys.rings.PolyRing
    """

    def __init__(self, exprs: Sequence[object]) -> None:
        self._atoms: dict = {}
        plain = [self._symbolize(sympy.sympify(e)) for e in exprs] or [sympy.Integer(0)]
        self.ring, _ = sring(plain, domain=sympy.QQ)
        self._back = {d: a for a, d in self._atoms.items()}

    def _symbolize(self, expr: sympy.Expr) -> sympy.Expr:
        """``expr`` with each maximal non-polynomial sub-expression replaced by a Dummy."""
        if expr.is_Rational or expr.is_Symbol:
            return expr
        if expr.is_Add or expr.is_Mul:
            return expr.func(*(self._symbolize(arg) for arg in expr.args))
        if expr.is_Pow and expr.exp.is_Integer and (expr.exp >= 0 or expr.base.is_Symbol):
            return self._symbolize(expr.base) ** expr.exp   # 1/h: a generator of sring's
        if expr not in self._atoms:
            self._atoms[expr] = sympy.Dummy(f"a{len(self._atoms)}")
        return self._atoms[expr]

    @property
    def one(self):
        return self.ring.one

    @property
    def zero(self):
        return self.ring.zero

    def __call__(self, expr: object):
        """``expr`` as an element of the ring (its atoms must be among the ring's)."""
        return self.ring(self._symbolize(sympy.sympify(expr)))

    def to_sympy(self, element) -> sympy.Expr:
        """An element of the ring as a SymPy expression, its atoms put back, expanded."""
        return sympy.expand(self.ring.to_domain().to_sympy(element).xreplace(self._back))
