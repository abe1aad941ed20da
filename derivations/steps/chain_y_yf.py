"""Step ``Y-Yf``: the projection P⊥ dropped, Y = Y^f P⊥ (docs/math.md §4).

Y^f u = (D − 𝟙) (the row means of f(S)), so Y − Y^f = −(D − 𝟙)uᵀ has rank one and
‖Y − Y^f‖ = ‖D − 𝟙‖ exactly, with E‖D − 𝟙‖² = ℓ(Var D_ii + (E D_ii − 1)²) → θ₁ + yβ⁴/2:
it does not shrink, but its rank does not grow, so the moments move by O(1/ℓ).
"""

from __future__ import annotations

import sympy as sp

from attnge import chain_values, ledger_draws
from attnge import evidence as ev
from attnge.exact_means import norm_rows
from attnge.params import Params
from attnge.step import Step, Table
from attnge.theory import normalizer as nz
from attnge.theory.symbols import ell

ID = "Y-Yf"
KEY = "Y->Y_f"


def norm_squared() -> sp.Expr:
    """E‖D − 𝟙‖² = ℓ(Var D_ii + (E D_ii − 1)²), exact at finite ℓ and d_qk."""
    return ell * (nz.variance() + (nz.mean() - 1) ** 2)


def latex() -> str:
    return (r"Y = Y^f P_\perp,\quad Y - Y^f = -(D - \mathbb{1})u^\top,\quad "
            r"\mathbb{E}\|D - \mathbb{1}\|^2 = " + sp.latex(norm_squared()))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"Y - Y^f": r"-(D - \mathbb{1})\,u^\top \text{ (rank one)}",
            "E ||D - 1||^2": norm_squared()}


def check(params: Params) -> list[Table]:
    sw = ledger_draws.chain_sweep(params)
    z = ev.z_table("||Y - Y^f||^2 = ||D - 1||^2 against its exact mean over draws")
    norm_rows(z, sw, params, "||D - 1||^2", lambda m: m.statistics.norm_d_squared,
              norm_squared(), 2)
    rank, norms, bound, moments = ev.rank_one_tables(sw, params, "Y", "Y_f", ("Y", "Y^f"),
                                                     "||D - 1||")
    return [chain_values.values_table(sw, params, "Y_f", "Y^f"), z, norms, moments,
            ev.identity_table(sw, ["projection", "norm_d"]), rank, bound]

STEP = Step(
    id=ID,
    title="Projection dropped: Y = Y^f P_perp, a rank-one difference",
    claim=("Y = Y^f P_perp exactly; Y - Y^f = -(D - 1)u^T has rank one and norm ||D - 1||, "
           "whose square has mean ell(Var D_ii + (E D_ii - 1)^2) -> theta1 + y b^4/2; the "
           "moments of Y and Y^f differ by O(1/ell)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate,
    sweeps=("chain",),
    method=(chain_values.method("Y^f") +
            "||D - 1||^2 over draws against its exact finite-size mean (z-test, where "
            "d_qk > 64 b^2 so that its standard error is consistent); the norms and "
            "|m_q(Y) - m_q(Y^f)| against ell with fitted slopes; code sanity checks (they hold "
            "by algebra): the identities, Y - Y^f of rank one (its Frobenius norm beyond s_1) "
            "and the rank-to-moment bound on every draw."),
    failure=(chain_values.FAILURE +
             "an identity residual above 1e-10, a rank other than one, ||D - 1||^2 more than "
             "5 standard errors from its exact mean, a Frobenius slope away from -1/2, or a "
             "moment difference decaying slower than ell^-1/2."),
)
