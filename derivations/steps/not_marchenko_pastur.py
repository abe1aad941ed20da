"""Step ``not-marchenko-pastur``: √ℓA⊥ is not the i.i.d. surrogate √θ₁Z/√ℓ (docs/math.md §5).

The surrogate θ₁·MP₁ has m₂ = 2θ₁² and edge 4θ₁; ν∞ has m₂ = 2θ₁² + yθ₂² and a larger
edge. The sampled gap is judged as a value (fitted to ℓ → ∞, against yθ₂²) that must
have the power to tell it from the surrogate's 0, and the surrogate's values are rejected
by the fitted ones; a rejection without the power to be made is INCONCLUSIVE, never a
PASS.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from attnge import evidence as ev
from attnge import judging, ledger_draws
from attnge.fits import EDGE_POWERS, FULL_POWERS, limit_values, regimes
from attnge.judging import INCONCLUSIVE
from attnge.params import Params
from attnge.step import Step, Table
from attnge.theory import exponential as ex
from attnge.theory import limit_law as ll
from attnge.theory.symbols import beta, positive_beta, y

ID = "not-marchenko-pastur"
SEPARATION = 5.0
POWER = 2 * SEPARATION     # a separation this large in se fails 5 se with p < 3e-7
SURROGATE_GAP = judging.Rival(0.0, "the i.i.d. surrogate's gap")


def gap() -> sp.Expr:
    """m₂(ν∞) − m₂(θ₁MP₁) = yθ₂²."""
    t1, t2 = ll.from_beta(beta)
    return sp.expand(ll.limit_moments(2, t1, t2, y)[1] - ll.mp_surrogate_moments(2, t1)[1])


def latex() -> str:
    return (r"m_2(\nu_\infty) - m_2(\theta_1 \mathrm{MP}_1) = " + sp.latex(gap())
            + r" > 0,\quad E(\nu_\infty) > 4\theta_1")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"m_2(nu) - m_2(MP surrogate)": gap(),
            "MP surrogate edge": ll.mp_edge(ex.theta1())}


def check(params: Params) -> list[Table]:
    law = ledger_draws.law_sweep(params)
    sizes, top = sorted(law), params.remove_top
    _, edge = limit_values(params)
    theta1 = ex.thetas(params.beta)[0]
    predicted_gap = float(gap().subs({beta: positive_beta(params.beta),
                                      y: sp.Rational(str(params.y))}))
    mp_m2, mp_edge = 2 * theta1**2, 4 * theta1
    m2 = [np.array([d.moments(2)[1] for d in law[ell]]) for ell in sizes]
    values = ev.value_table("The gap to the MP surrogate, fitted to ell -> inf")
    ev.limit_row(values, "m_2(M0) - 2 theta1^2, ell -> inf", sizes, [v - mp_m2 for v in m2],
                 ev.Extrapolation(predicted_gap, FULL_POWERS, rival=SURROGATE_GAP),
                 regime=regimes(params, sizes).full)
    reject = Table(f"The surrogate's values, rejected (pass: the fitted ell -> inf value exceeds "
                   f"the MP value by more than {SEPARATION:g} se; judged where the predicted "
                   f"separation is at least {POWER:g} se, so that correct code passes)",
                   ["statistic", "estimate ± se", "MP value", "nu_infinity", "separation (se)"])
    for label, per, mp_value, nu_value, powers in (
            ("m_2(M0), full", m2, mp_m2, mp_m2 + predicted_gap, FULL_POWERS),
            (f"bulk edge lambda_{top + 1}(M0)",
             [np.array([d.eigs[top] for d in law[ell]]) for ell in sizes], mp_edge, edge,
             EDGE_POWERS)):
        limit = ev.extrapolated(sizes, per, powers)
        sep = (limit.value - mp_value) / limit.se
        power = (nu_value - mp_value) / limit.se
        more = math.ceil((POWER / power) ** 2) if power > 0 else None
        text = ev.fmt(sep, 4) if power >= POWER else (
            f"{sep:.4g} (INCONCLUSIVE: the predicted separation is {power:.3g} se, under the "
            f"{POWER:g} that would reject the surrogate; "
            + (f"about {more}x the draws would)" if more else "larger sizes would)"))
        reject.add([label, ev.pm(limit.value, limit.se), ev.fmt(mp_value, 8),
                    ev.fmt(nu_value, 8), text],
                   sep > SEPARATION if power >= POWER else INCONCLUSIVE)
    growth = Table("m_2(M0) against the MP value 2 theta1^2 at each size (reported: the "
                   "separation in se grows like ell, a constant gap over errors of order 1/ell)",
                   ["ell", "draws", "m_2 ± se", "MP value", "separation (se)"])
    for ell, v in zip(sizes, m2):
        mean, se = ev.mean_se(v)
        growth.add([ell, v.size, ev.pm(mean, se), ev.fmt(mp_m2, 8), ev.fmt((mean - mp_m2) / se, 4)])
    return [values, reject, growth]


STEP = Step(
    id=ID,
    title="Not Marchenko-Pastur: sqrt(ell) A_perp against the i.i.d. surrogate theta1 MP_1",
    claim=("m_2 of sqrt(ell) A_perp exceeds the surrogate's 2 theta1^2 by y theta2^2 and its bulk "
           "edge exceeds 4 theta1; measured in standard errors the separation grows with ell."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate_law,
    sweeps=("law",),
    method=(f"On the law draws ({ledger_draws.LAW_TEXT}): the gap m_2(M0) - 2 theta1^2 fitted to "
            "ell -> inf against y theta2^2, with the relative error it detects (a pass needs "
            f"that error at most {judging.RIVAL_SHARE:g} of the gap, else INCONCLUSIVE); the "
            "fitted m_2 and bulk edge against the surrogate's 2 theta1^2 and 4 theta1 "
            f"(judged where nu_infinity's is at least {POWER:g} se away, else INCONCLUSIVE); "
            "m_2 against 2 theta1^2 at each size (reported)."),
    failure=(f"the fitted gap more than {judging.VALUE_Z:g} se (normal scale) from y theta2^2, or "
             f"the fitted m_2 or bulk edge within {SEPARATION:g} se of the surrogate's value "
             f"(judged where nu_infinity's is at least {POWER:g} se away)."),
)
