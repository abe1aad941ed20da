"""Step ``not-marchenko-pastur``: √ℓA⊥ is not the i.i.d. surrogate √θ₁Z/√ℓ (math.md §5).

The surrogate θ₁·MP₁ has m₂ = 2θ₁² and edge 4θ₁; ν∞ has m₂ = 2θ₁² + yθ₂² and a larger
edge. The separation is a constant while the standard errors shrink as 1/ℓ, so measured
in standard errors it grows like ℓ.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations import evidence as ev
from derivations import sweep
from derivations.params import Params
from derivations.step import Step, Table
from derivations.steps.limit_law import limit_values
from theory import limit_law as ll
from theory.symbols import beta, positive_beta, y

ID = "not-marchenko-pastur"
SEPARATION = 5.0


def gap() -> sp.Expr:
    """m₂(ν∞) − m₂(θ₁MP₁) = yθ₂²."""
    t1, t2 = ll.from_beta(beta)
    return sp.expand(ll.limit_moments(2, t1, t2, y)[1] - ll.mp_surrogate_moments(2, t1)[1])


def latex() -> str:
    return (r"m_2(\nu_\infty) - m_2(\theta_1 \mathrm{MP}_1) = " + sp.latex(gap())
            + r" > 0,\quad E(\nu_\infty) > 4\theta_1")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"m_2(nu) - m_2(MP surrogate)": gap(), "MP surrogate edge": 4 * (sp.exp(beta**2) - 1)}


def _separation(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(mean difference, its standard error) of two independent sets of draws."""
    (ma, sa), (mb, sb) = ev.mean_se(a), ev.mean_se(b)
    return ma - mb, float(np.hypot(sa, sb))


def check(params: Params) -> list[Table]:
    sw = sweep.chain_sweep(params)
    _, edge = limit_values(params)
    top = params.remove_top
    b = positive_beta(params.beta)
    theta1 = float(sp.exp(b**2) - 1)
    predicted_gap = float(gap().subs({beta: b, y: sp.Rational(str(params.y))}))
    mp_m2 = 2 * theta1**2
    table = Table(f"sqrt(ell) A_perp against the MP surrogate (pass: separated by more than "
                  f"{SEPARATION:g} standard errors at every size)",
                  ["statistic", "ell", "M0 ± se", "surrogate ± se", "difference",
                   "predicted", "separation (se)"])
    separations: dict[str, list[np.ndarray]] = {}
    # the full m_2 carries the outliers' heavy tails: reported, not judged
    rows = [("m_2, full", lambda m, k: m.moments(k)[1], predicted_gap, False),
            (f"m_2, bulk (top {top} removed)", lambda m, k: m.moments(k, top)[1],
             predicted_gap, True),
            (f"bulk edge lambda_{top + 1}", lambda m, k: m.spectra[k][top], edge - 4 * theta1,
             True)]
    judged_labels = [label for label, *_, judged in rows if judged]
    for label, fn, predicted, judged in rows:
        seps = []
        for ell, draws in sw.items():
            a = np.array([fn(m, "M0") for m in draws])
            s = np.array([fn(m, "surrogate") for m in draws])
            diff, se = _separation(a, s)
            sep = diff / se if se > 0 else float("inf")
            seps.append(sep)
            table.add([label, ell, ev.pm(*ev.mean_se(a)), ev.pm(*ev.mean_se(s)),
                       ev.fmt(diff, 5), ev.fmt(predicted, 5), ev.fmt(sep, 4)],
                      sep > SEPARATION if judged else None)
        separations[label] = [np.array([v]) for v in seps]
    reject = Table(f"z of m_2(M0) against the MP value 2 theta1^2 (pass: the combined z over "
                   f"sizes exceeds {ev.Z_MAX:g}: the surrogate is rejected)",
                   ["statistic", "ell", "measured ± se", "MP value", "z"])
    zs = []
    for ell, draws in sw.items():
        mean, se = ev.mean_se(np.array([m.moments("M0")[1] for m in draws]))
        z = (mean - mp_m2) / se if se > 0 else float("inf")
        zs.append(z)
        reject.add(["m_2 (full)", ell, ev.pm(mean, se), ev.fmt(mp_m2, 8), ev.fmt(z, 4)])
    combined = ev.stouffer(zs)
    reject.add(["m_2 (full)", "all", "", "", f"{combined:.4g} (combined)"
                + (": MP rejected" if combined > ev.Z_MAX else "")], combined > ev.Z_MAX)
    growth = ev.rate_table("The separation (in standard errors) grows with ell "
                           "(predicted slope 1: a constant gap over errors of order 1/ell)",
                           params)
    finite = all(np.isfinite(v[0]) for seps in separations.values() for v in seps)
    if finite:
        for label, seps in separations.items():
            ev.rate_row(growth, f"separation of {label}", params, seps, 1.0, "at least", 0.5,
                        judged=label in judged_labels)
    return [table, reject] + ([growth] if finite else [])


STEP = Step(
    id=ID,
    title="Not Marchenko-Pastur: sqrt(ell) A_perp against the i.i.d. surrogate theta1 MP_1",
    claim=("m_2 of sqrt(ell) A_perp exceeds the surrogate's 2 theta1^2 by y theta2^2 and its bulk "
           "edge exceeds 4 theta1; measured in standard errors the separation grows with ell."),
    latex=latex,
    derive=derive,
    check=check,
    validate=sweep.validate,
    method=("On the shared draws (the surrogate sqrt(theta1) Z/sqrt(ell) is drawn with each): "
            "the differences of m_2 (full and bulk) and of the bulk edge, in standard errors "
            "over draws, at each ell and their growth; a z-test of m_2 against 2 theta1^2."),
    failure=("a separation below 5 standard errors at some size, the MP value of m_2 not "
             "rejected, or a separation that does not grow."),
)
