"""Exact finite-size means, evaluated at the run's sizes, and which sizes the draws can judge
them at (the heavy tails of e^{pβS} need d_qk and enough scores)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import mpmath as mp
import sympy as sp

from attnge import evidence as ev
from attnge import regimes as rg
from attnge.numerics.measure import DrawMeasurement
from attnge.params import Params
from attnge.step import Table
from attnge.theory.symbols import beta, d_qk, ell, positive_beta


def untested(p: int, params: Params, scores: bool = True) -> list[str | None]:
    """Per size, why a degree-p mean of X_ij over the run's draws (ℓ² scores each) is not
    judged, or None: d_qk at most ``regimes.tail_bound`` (no consistent standard error), or
    (``scores``: a mean over the scores themselves, not over Gaussian entries whose variance
    is one such mean) the draws short of the scores that carry it
    (``evidence.tail_untested`` at d_qk)."""
    bound = rg.tail_bound(p, params.beta)
    return [f"not tested: d_qk <= {bound:g}, heavy tails" if params.d_qk(L) <= bound else
            ev.tail_untested(p, params.beta, L * L * params.draws, params.d_qk(L))
            if scores else None for L in params.sizes]


@cache
def _mpmath_function(expr: sp.Expr):
    return sp.lambdify((beta, ell, d_qk), expr, "mpmath")


def evaluate(expr: sp.Expr, b: float, ell_value, d_value) -> mp.mpf:
    """expr at β = b (exact rational), ℓ, d_qk, at the working precision."""
    r = positive_beta(b)
    return _mpmath_function(expr)(mp.mpf(r.p) / r.q, mp.mpf(ell_value), mp.mpf(d_value))


def norm_rows(table: Table, sw: ev.Sweep, params: Params, label: str,
              statistic: Callable[[DrawMeasurement], float], formula: sp.Expr,
              degree: int) -> None:
    """z-tests of a per-draw squared norm against its exact mean, where the tails allow
    (:func:`untested`); ``statistic`` reads it from a draw."""
    values = ev.per_size(sw, statistic)
    tested = []
    for k, (L, why) in enumerate(zip(params.sizes, untested(degree, params))):
        if why is None:
            tested.append(k)
        else:
            table.add([label, L, ev.pm(*ev.mean_se(values[k])), "", why, ""])
    ev.z_rows(table, label, [params.sizes[k] for k in tested], [values[k] for k in tested],
              [float(evaluate(formula, params.beta, params.sizes[k],
                                         params.d_qk(params.sizes[k]))) for k in tested])
