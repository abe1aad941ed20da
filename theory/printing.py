r"""Closed forms printed as a reader writes them: powers of e in descending order.

SymPy keeps Euler's number as ``E`` and :math:`e^{q}` as ``exp(q)``, and prints a sum of
them in its own term order (:math:`-56e^3 - 104e + 39 + 14e^4 + 112e^2`). :func:`readable`
writes every :math:`e^{q}` with a numeric q as a power of one symbol e, so that a sum prints
as a polynomial in e, highest power first (:func:`latex`).

Examples
--------
>>> import sympy as sp
>>> latex(sp.expand(14*sp.E**4 - 56*sp.E**3 + 112*sp.E**2 - 104*sp.E + 39))
'14 e^{4} - 56 e^{3} + 112 e^{2} - 104 e + 39'
>>> latex(sp.exp(sp.Rational(1, 4)) - 1)
'\\sqrt[4]{e} - 1'
"""

from __future__ import annotations

import sympy as sp

E = sp.Symbol("e", positive=True)
"""The symbol that stands for Euler's number in printing only."""

__all__ = ["E", "latex", "readable"]


def readable(expr: sp.Basic) -> sp.Basic:
    """``expr`` with Euler's number and every exp(q), q a number, as powers of :data:`E`
    (for printing: the result is not equal to ``expr`` as a SymPy object)."""
    if not isinstance(expr, sp.Basic):
        return expr
    expr = expr.replace(lambda a: isinstance(a, sp.exp) and a.args[0].is_number,
                        lambda a: sp.Pow(E, a.args[0], evaluate=False))
    return expr.xreplace({sp.E: E})     # subs would rewrite every exp(x) as a power of e


def latex(expr: sp.Basic) -> str:
    """LaTeX of ``expr`` with powers of e in descending order (:func:`readable`); an
    expression without a numeric power of e prints as SymPy prints it."""
    shown = readable(expr)
    return sp.latex(shown, order="lex") if isinstance(shown, sp.Basic) and shown.has(E) \
        else sp.latex(expr)
