"""Step ``kernel-law``: other attention kernels follow ν∞(θ₁[g], θ₂[g], y) (docs/math.md §10).

Not in the default run (``--steps kernel-law`` or ``--all``): it judges derivations by the
theorem's argument, not the theorem.
"""

from __future__ import annotations

import sympy as sp

from attnge import variants as va
from attnge.params import Params
from attnge.step import Step
from attnge.theory import kernels
from attnge.theory.variants import Variant, kernel_thetas, predict

ID = "kernel-law"
CHOSEN = (Variant("relu"), Variant("sigmoid"), Variant("square"))
"""ReLU(βS)/ℓ and sigmoid(βS)/ℓ (fixed normalisers), and x² normalised (θ₂ = 0: the i.i.d.
surrogate is exact)."""


def latex() -> str:
    return (r"\theta_1[g] = E f(\chi)^2,\quad \theta_2[g] = (E\,\chi f(\chi))^2,\quad "
            r"m_1 = \theta_1[g],\ m_2 = 2\theta_1[g]^2 + y\,\theta_2[g]^2")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    out: dict[str, sp.Expr | str] = {}
    for v in CHOSEN:
        t1, t2, route = kernel_thetas(v, params.beta)
        p = predict(v, params.beta, params.y)
        out[f"theta1[{v.label}] ({route})"] = sp.Float(t1, 15)
        out[f"theta2[{v.label}] ({route})"] = sp.Float(t2, 15)
        out[f"m2 of nu_inf for {v.label}"] = sp.Float(p.m2, 15)
        out[f"the i.i.d. surrogate is exact for {v.label}"] = str(
            kernels.surrogate_is_right(v.resolved, sp.nsimplify(params.beta)))
    return out


check, validate = va.ledger_step(
    "Kernels: the bulk's moments and the distance to the Gaussian model", CHOSEN)


STEP = Step(
    id=ID,
    title="Other kernels: ReLU, sigmoid and x^2 follow nu_inf(theta1[g], theta2[g], y)",
    claim=("For an entrywise kernel g with a row or a fixed normaliser, the chain of the theorem "
           "runs on the centred kernel f, so the bulk of sqrt(ell) A P_perp follows "
           "nu_inf(theta1[g], theta2[g], y), theta1 = E f(chi)^2, theta2 = (E chi f(chi))^2 "
           "(derived, not proved); an even g has theta2 = 0, where the i.i.d. surrogate is "
           "exact."),
    latex=latex,
    derive=derive,
    check=check,
    validate=validate,
    method=("theta1[g], theta2[g] by SymPy's Gaussian integrals (closed forms) and by mpmath "
            "quadrature, which must agree; each kernel sampled at the run's sizes and draws "
            "with its Gaussian model on the same scores (attnge variants): the bulk's m_1, m_2 "
            "fitted to ell -> inf (m + b/ell) against nu_inf's, and the relative W1 to the "
            "model against the line ell^-1/4."),
    failure=("a fitted m_1 or m_2 farther than 4 standard errors from nu_inf(theta1[g], "
             "theta2[g], y), or a W1 distance 4 standard errors above ell^-1/4."),
    default=False,
)
