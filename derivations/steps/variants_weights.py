"""Step ``weights-normalizer``: weight laws other than the Gaussian (issue 30).

The normalizer's exact finite-size mean and variance for i.i.d. uniform, Rademacher and
truncated-normal Q, K (``theory.weight_laws``), and the limit law's universality. Not in the
default run (``--steps weights-normalizer`` or ``--all``).
"""

from __future__ import annotations

import sympy as sp

from attnge import variants as va
from attnge.params import Params
from attnge.step import Step
from attnge.theory import weight_laws
from attnge.theory.symbols import beta, eps
from attnge.theory.variants import Variant

ID = "weights-normalizer"
CHOSEN = (Variant(weights="uniform"), Variant(weights="rademacher"),
          Variant(weights="truncated-normal"))


def latex() -> str:
    return (r"E D_{ii} = e^{-\beta^2/2}a(\beta/\sqrt{d_{qk}})^{d_{qk}},\ a(t) = E\,e^{tww'}"
            r" = 1 + \frac{\beta^4(\mu_4^2 - 3)}{24\,d_{qk}} + O(d_{qk}^{-2})")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    """κ₄, the expansions in 1/d_qk and, where SymPy finds them, a(t) and b(t) in closed form
    (the exact values at the run's sizes are the check's: its table of the normalizer)."""
    out: dict[str, sp.Expr | str] = {}
    d_qk = sp.Symbol("d_qk", positive=True)
    for v in CHOSEN:
        law = weight_laws.law_named(v.weights)
        out[f"kappa4 of {v.weights}"] = law.kappa4
        out[f"E D_ii of {v.weights} to O(1/d_qk)"] = weight_laws.mean_expansion(law).subs(
            eps, 1 / d_qk)
        out[f"Var D_ii of {v.weights} to O(1/d_qk)"] = weight_laws.variance_expansion(
            law).subs(eps, 1 / d_qk)
        closed = weight_laws.closed_ab(law)
        out[f"a(t), b(t) of {v.weights}"] = "no closed form (quadrature)" if closed is None \
            else str(closed)
    out["the first order is beta^4 (mu4^2 - 3)/24 for every law (to 25 digits)"] = str(all(
        abs(sp.N((weight_laws.mean_expansion(v.weights).coeff(eps) - beta**4 * (
            weight_laws.moment(weight_laws.law_named(v.weights), 4)**2 - 3) / 24
        ).subs(beta, 1), 40)) < 1e-25 for v in CHOSEN))
    return out


check, validate = va.ledger_step(
    "Weight laws: the normalizer and the bulk's moments", CHOSEN)


STEP = Step(
    id=ID,
    title="Weight laws: the normalizer's exact moments and the universality of nu_inf",
    claim=("For Q, K with i.i.d. entries of a symmetric unit-variance law w, "
           "E D_ii = e^{-beta^2/2} a(t)^d_qk and Var D_ii = e^{-beta^2}(a(2t)^d_qk/ell + "
           "(1 - 1/ell) b(t)^d_qk) - (E D_ii)^2 exactly, t = beta/sqrt(d_qk), a(t) = E e^{t w w'},"
           " b(t) = E M(tw)^2; E D_ii = 1 + beta^4((3 + kappa4)^2 - 3)/(24 d_qk) + ...; the "
           "limit law is nu_inf (universality, derived)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=validate,
    method=("a(t), b(t) by SymPy's integrals where it finds them (Gaussian, uniform, "
            "Rademacher) and by mpmath quadrature (every law), the first order in 1/d_qk from "
            "the law's moments alone; sampled: per size the mean and the sample variance over "
            "rows of D_ii against E D_ii and Var D_ii - Cov (4 standard errors), and the bulk's "
            "m_1, m_2 and W1 as in kernel-law."),
    failure=("a sampled mean or sample variance of D_ii farther than 4 standard errors from "
             "its exact mean at some size, or a bulk moment or W1 as in kernel-law."),
    default=False,
)
