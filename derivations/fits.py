"""The fit policy the steps share: the limit law's values at the run's β and y, the
finite-size terms of each fit, the regimes of sizes that a fit may read, and the rate rows
of a spectrum against its law.

A value fitted to ℓ → ∞ has the form m∞ + b ℓ^{-p₁} + c ℓ^{-p₂}; the powers are the
ones the theory gives for each reading (the full spectrum, the clipped bulk, the bulk edge).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from attnge import evidence as ev
from attnge import regimes as rg
from attnge.numerics.softmax_mass import expected_mass
from attnge.params import Params
from attnge.step import Table
from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh
from attnge.theory import outliers
from attnge.theory.laws import describe
from attnge.theory.symbols import beta, positive_beta, y

K = 4                           # moments m_1..m_K of every law
FULL_POWERS = (1.0, 2.0)        # m_q of the whole spectrum: m∞ + b/ℓ + c/ℓ²
CLIP_TOP = 2                    # the bulk: the top 2 of the spectrum clipped to the third
BULK_POWERS = (1.0, 5 / 3)      # clipping leaves (edge − λ_k) ~ ℓ^{-2/3} per value over ℓ
EDGE_POWERS = (2 / 3, 4 / 3)    # λ_{r+1}: the Tracy–Widom scale ℓ^{-2/3} and its square
MOMENT_SLOPE = -0.5             # slope rows: |m_q − m_q(ν)| decays at least this fast
EDGE_SLOPE = -2 / 3


def moments_symbolic(order: int = K) -> list[sp.Expr]:
    """m_1..m_order of ν∞ in β and y."""
    t1, t2 = ll.from_beta(beta)
    return ll.limit_moments(order, t1, t2, y)


def limit_values(params: Params) -> tuple[np.ndarray, float]:
    """(m_1..m_K, right edge) of ν∞ at the run's β and y, as floats."""
    at = {beta: positive_beta(params.beta), y: sp.Rational(str(params.y))}
    moments = np.array([float(m.subs(at)) for m in moments_symbolic()])
    return moments, float(outliers.edge_point(params.beta, params.y)[1])


def exact_m1(params: Params, ell: int) -> float:
    """E m₁(√ℓA⊥) at ℓ and d_qk, exactly (the mass a softmax row keeps, a Laplace integral)."""
    return expected_mass(params.beta, ell, params.d_qk(ell))


@dataclass(frozen=True)
class Regimes:
    """The regimes of the law's rows at the run's β, y and sizes (``derivations.regimes``):
    the full spectrum's, the bulk's with its cut (values clipped) and the bulk edge's with
    its cut (λ_(cut+1))."""

    full: rg.Regime
    bulk: rg.Regime
    clip: int
    edge: rg.Regime
    edge_cut: int

    @property
    def every(self) -> rg.Regime:
        """The sizes inside all three (what a rate row over every size needs)."""
        return rg.both(self.full, self.bulk, self.edge)


def regimes(params: Params, sizes, heads: int = 1) -> Regimes:
    """The outliers are an O(1/ℓ) term of the moments where ``rg.full`` admits a fit: there a
    fixed clip (``CLIP_TOP``) gives the same limit and keeps the most of the bulk; elsewhere
    the predicted outliers are clipped (``rg.bulk``). The bulk edge λ_(r+1) needs every
    outlier above it: its r is the prediction's (at least ``remove_top``) everywhere. Both
    read the bulk only where few outliers are still inside the edge's window
    (``rg.resolved``): as they leave it, neither a clip nor a cut keeps its form.
    ``heads``: h heads of ``sizes`` tokens each (the multi-head law's draws)."""
    b, yy = params.beta, params.y
    mass = rg.both(rg.mass(b, yy, sizes), rg.width(b, yy, sizes))
    full = rg.full(b, yy, sizes, heads)
    edge, edge_cut = rg.bulk(b, yy, sizes, params.remove_top, heads, rg.EDGE_SHARE)
    bulk, clip = (full, CLIP_TOP) if full.first() is not None else rg.bulk(b, yy, sizes,
                                                                          CLIP_TOP, heads)
    resolved = rg.resolved(b, yy, sizes, heads)
    return Regimes(rg.both(mass, full), rg.both(mass, bulk, resolved), clip,
                   rg.both(mass, edge, resolved), edge_cut)


def _at_most(cut: int, draw) -> int:
    """``cut``, or the last index of a spectrum it exceeds (only at sizes outside the regime,
    which no fit reads)."""
    return min(cut, draw.eigs.size - 1)


def rates_table(params: Params, law: dict, nu: np.ndarray, edge: float, shown: str,
                law_name: str, label: str, size_name: str, regime: rg.Regime | None = None,
                edge_cut: int | None = None) -> Table:
    """|m_q − m_q(ν)| (full spectrum and bulk) and the bulk edge's gap against the size, each
    with its fitted slope judged against a bound (the law draws ``law``, size → draws)."""
    sizes = sorted(law)
    rates = ev.rate_table(f"Convergence of {shown} to {law_name}: |m_q - m_q(nu)| per draw, and "
                          f"the bulk edge (bound: slope {MOMENT_SLOPE:g} for moments, "
                          f"{EDGE_SLOPE:.3g} for the edge)", params, sizes=sizes,
                          size_name=size_name)
    top = params.remove_top
    for r in sorted({0, top}):
        where = "full" if r == 0 else f"bulk (top {r} removed)"
        for q in range(1, K + 1):
            ev.rate_row(rates, f"|m_{q}({label}) - m_{q}(nu)|, {where}", params,
                        [np.array([abs(d.moments(K, r)[q - 1] - nu[q - 1]) for d in law[ell]])
                         for ell in sizes], ev.Slope(MOMENT_SLOPE, "at most", 0.1), sizes=sizes,
                        regime=regime)
    r = top if edge_cut is None else edge_cut
    ev.rate_row(rates, f"|lambda_{r + 1}({label}) - E| (bulk edge)", params,
                [np.array([abs(d.eigs[min(r, d.eigs.size - 1)] - edge) for d in law[ell]])
                 for ell in sizes], ev.Slope(EDGE_SLOPE, "at most", 0.2), sizes=sizes,
                regime=regime)
    return rates


def powers_text(p: tuple[float, ...], size: str = "ell") -> str:
    """The finite-size terms of a fit as text: 'ell^-1, ell^-2'."""
    return ", ".join(f"{size}^-{v:.3g}" for v in p)


def laws(b_value: float, y_value: float, heads: int, kind: str = "attention",
         sharing: str = "none", gamma_o: sp.Expr | None = None) -> tuple[mh.Law, mh.Law]:
    """(stated, matrix) layered laws of ``kind`` at β, y and h (γ_K = γ_V = h/y), from the
    one law description (``theory.laws``)."""
    law = describe(beta=b_value, y=sp.Rational(str(y_value)), heads=heads,
                   kind=kind, sharing=sharing, gamma_o=gamma_o)
    return tuple(law.layered(route) for route in mh.ROUTES)
