"""Step ``causal-law``: the causal mask (docs/math.md §13).

Each row normalised over its first i entries and centred over them, scaled by √i; its causal
Gaussian model has m₂ → 3θ₁² + yθ₂²/2, the masked i.i.d. surrogate 3θ₁² (``theory.masks``).
Not in the default run (``--steps causal-law`` or ``--all``).
"""

from __future__ import annotations

import sympy as sp

from attnge import variants as va
from attnge.params import Params
from attnge.step import Step
from attnge.theory import masks
from attnge.theory.symbols import THETA1, THETA2, y
from attnge.theory.variants import Variant, predict

ID = "causal-law"
CHOSEN = (Variant(mask="causal"), Variant("relu", mask="causal"))


def latex() -> str:
    m1, m2 = masks.limit_moments("causal", THETA1, THETA2, y)
    return r"m_1 = " + sp.latex(m1) + r",\quad m_2 = " + sp.latex(m2)


def derive(params: Params) -> dict[str, sp.Expr | str]:
    out: dict[str, sp.Expr | str] = {
        "the causal profile's sums T, T_r, T_c, T_0": str(masks.MASKS["causal"].sums),
        "m2 of the causal Gaussian model (continuum route)":
            masks.limit_moments_continuum("causal", THETA1, THETA2, y)[1]}
    for v in CHOSEN:
        p = predict(v, params.beta, params.y)
        out[f"m2 of {v.label}"] = sp.Float(p.m2, 15)
        out[f"m2 of the i.i.d. surrogate, {v.label}"] = sp.Float(p.surrogate_m2, 15)
    return out


check, validate = va.ledger_step(
    "Causal mask: the bulk's moments and the distance to the causal "
    "Gaussian model", CHOSEN)


STEP = Step(
    id=ID,
    title="The causal mask: the causal Gaussian model, not the i.i.d. surrogate",
    claim=("With row i normalised over its first i entries and each row centred and scaled "
           "by sqrt(i), the bulk's m_1 -> theta1 and m_2 -> 3 theta1^2 + y theta2^2/2, as for "
           "the causal Gaussian model (the linear model with the mask and each row's own "
           "normaliser); the masked i.i.d. surrogate has m_2 = 3 theta1^2 (derived, not "
           "proved)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=validate,
    method=("m_2 from the profile's exact sums (T = ell(ell+1)/2, T_c = 2 ell - H_ell, "
            "T_0 = H_ell) and from the continuum profile 1[t <= s]/s, which must agree; "
            "sampled as in kernel-law against the causal Gaussian model on the same scores."),
    failure="a bulk moment or W1 as in kernel-law.",
    default=False,
)
