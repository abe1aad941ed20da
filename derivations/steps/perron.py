"""Step ``perron``: the Perron value of A and the rest of its spectrum (math.md §5).

A𝟙 = 𝟙, so A = uuᵀ + A⊥ with A⊥u = 0, and ‖A‖_F² = 1 + ‖A⊥‖_F² = 1 + m₁(M0) → 1 + θ₁
= e^{β²}. s₁(A)² − 1 is of order ‖Aᵀu − u‖² + ‖A⊥‖² = O(1/ℓ); s₂(A) ≤ s₁(A⊥) =
s₁(M0)/√ℓ = O(ℓ^{−1/2}) by interlacing (A − A⊥ has rank one).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations import evidence as ev
from derivations import sweep
from derivations.params import Params
from derivations.step import Step, Table
from theory import exponential as ex
from theory.symbols import beta, positive_beta

ID = "perron"


def frobenius_limit() -> sp.Expr:
    """lim ‖A‖_F² = 1 + θ₁ = e^{β²}."""
    return 1 + ex.theta1()


def latex() -> str:
    return (r"s_1(A) \to 1,\quad s_2(A) \le s_1(A_\perp) = O(\ell^{-1/2}),\quad \|A\|_F^2 = "
            r"1 + \|A_\perp\|_F^2 \to " + sp.latex(frobenius_limit()))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"lim ||A||_F^2": frobenius_limit(), "A": r"u u^\top + A_\perp,\ A_\perp u = 0"}


def check(params: Params) -> list[Table]:
    sw = sweep.chain_sweep(params)
    limit = float(frobenius_limit().subs(beta, positive_beta(params.beta)))
    order = Table("Interlacing on every draw: s_2(A) <= s_1(A_perp) <= s_1(A)",
                  ["ell", "max s_2(A)/s_1(A_perp)", "max s_1(A_perp)/s_1(A)"])
    for ell, draws in sw.items():
        r1 = max(m.perron["s2(A)"] / m.perron["s1(A_perp)"] for m in draws)
        r2 = max(m.perron["s1(A_perp)"] / m.perron["s1(A)"] for m in draws)
        order.add([ell, ev.fmt(r1, 6), ev.fmt(r2, 6)], r1 <= 1 + 1e-12 and r2 <= 1 + 1e-12)
    rates = ev.rate_table(f"Against ell (mean over draws); ||A||_F^2 -> e^(b^2) = {limit:.8g}",
                          params)
    ev.rate_row(rates, "s_1(A) - 1", params,
                ev.per_size(sw, lambda m: m.perron["s1(A)"] - 1), -1.0, "agree", 0.2)
    ev.rate_row(rates, "s_2(A)", params, ev.per_size(sw, lambda m: m.perron["s2(A)"]),
                -0.5, "agree", 0.1)
    ev.rate_row(rates, "| ||A||_F^2 - e^(b^2) |", params,
                ev.per_size(sw, lambda m: abs(m.perron["||A||_F^2"] - limit)), -1.0, "agree",
                0.3)
    values = Table("Mean over draws", ["ell", "s_1(A)", "s_2(A)", "sqrt(ell) s_2(A)",
                                       "||A||_F^2"])
    for ell, draws in sw.items():
        col = lambda key: np.array([m.perron[key] for m in draws])  # noqa: E731
        values.add([ell, ev.pm(*ev.mean_se(col("s1(A)"))), ev.pm(*ev.mean_se(col("s2(A)"))),
                    ev.pm(*ev.mean_se(np.sqrt(ell) * col("s2(A)"))),
                    ev.pm(*ev.mean_se(col("||A||_F^2")))])
    return [ev.identity_table(sw, ["A 1 = 1", "||A||_F^2 = 1 + ||A_perp||_F^2"]), order,
            rates, values]


STEP = Step(
    id=ID,
    title="Perron value: s_1(A) -> 1, s_2(A) -> 0, ||A||_F^2 -> e^(b^2)",
    claim=("A is row-stochastic: s_1(A) = 1 + O(1/ell), s_2(A) <= s_1(A_perp) = O(ell^-1/2), "
           "and ||A||_F^2 = 1 + ||A_perp||_F^2 -> 1 + theta1 = e^(b^2) at rate 1/ell."),
    latex=latex,
    derive=derive,
    check=check,
    validate=sweep.validate,
    method=("On the shared draws: the identities A 1 = 1 and ||A||_F^2 = 1 + ||A_perp||_F^2, "
            "interlacing on every draw, and s_1(A) - 1, s_2(A), | ||A||_F^2 - e^(b^2) | "
            "against ell with fitted slopes."),
    failure=("an identity residual above 1e-10, interlacing violated, or a slope away from "
             "its prediction (-1, -1/2, -1)."),
)
