"""Step ``inputs-law``: inputs that are not orthonormal (docs/math.md §12).

Gaussian rows (G = XXᵀ Wishart), tokens sharing one direction, repeated tokens
(``theory.input_models``). Not in the default run (``--steps inputs-law`` or ``--all``).
"""

from __future__ import annotations

import sympy as sp

from attnge import variants as va
from attnge.params import Params
from attnge.step import Step
from attnge.theory import input_models
from attnge.theory.symbols import THETA1, THETA2, y
from attnge.theory.variants import Variant, predict

ID = "inputs-law"
CHOSEN = (Variant(inputs="gaussian", value=0.5), Variant(inputs="shared-mean", value=0.3),
          Variant(inputs="repeated", value=2))


def latex() -> str:
    g, r = sp.symbols("gamma r", positive=True)
    return (r"\text{gaussian: } m_2 = " + sp.latex(input_models.moments(
        "gaussian", g, THETA1, THETA2, y)[1]) + r";\ \text{repeated: } m_2 = "
        + sp.latex(input_models.moments("repeated", r, THETA1, THETA2, y)[1])
        + r";\ \text{shared-mean: } \nu = \nu_\infty(\beta(1-\alpha)) \boxtimes "
          r"\mathrm{law}(u^2)")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    out: dict[str, sp.Expr | str] = {}
    for v in CHOSEN:
        p = predict(v, params.beta, params.y)
        out[f"m1 of {v.label}"] = sp.Float(p.m1, 15)
        out[f"m2 of {v.label}"] = sp.Float(p.m2, 15)
        out[f"routes of {v.label}"] = p.route
    return out


check, validate = va.ledger_step(
    "Inputs: the bulk's moments and the distance to the Gaussian model", CHOSEN)


STEP = Step(
    id=ID,
    title="Inputs that are not orthonormal: Gaussian rows, a shared direction, repeated tokens",
    claim=("Gaussian rows (gamma = ell/d): m_1 = theta1, m_2 = 2 theta1^2 + (y + 2 gamma) "
           "theta2^2; rows sqrt(alpha) m + sqrt(1 - alpha) z_i: the bulk of F U, F the linear "
           "model at beta(1 - alpha) and U the column weights e^{beta sqrt(alpha(1-alpha)) b_j "
           "- sigma^2/2}, with one outlier; r repeats of each token: m_k = r^{k-1} m_k("
           "nu_inf(y/r)), m_2 = 2 r theta1^2 + y theta2^2 (derived, not proved)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=validate,
    method=("m_1, m_2 by free probability and by a second route (Wick's theorem given G; the "
            "column-weight profile averaged over u; the theorem's moments at y/r), which must "
            "agree; sampled as in kernel-law (shared-mean: against its Gaussian model F U on "
            "the draw's own column weights)."),
    failure="a bulk moment or W1 as in kernel-law.",
    default=False,
)
