"""Step ``threshold``: where linearization stops (docs/math.md §6), quick sweeps.

Temperature β = c√(log ℓ): each distance between √ℓA⊥ and the linear model (and the
normalizer's spread) is predicted to scale as ℓ^{s(c)}; its threshold c* solves s(c*) = 0
(``theory.threshold``); the mass m₁ (at every size) and the normalizer's spread (its
slopes) are also judged against their exact means at the same sizes. Order d_qk = ℓ^α:
the k-th Hadamard term of Σ_f matters for α ≤ 1/k; the mean-square size δ of the terms a
model omits is judged against its exact expectation at the same sizes, whose threshold
drifts to 1/k as ℓ grows. Measured thresholds: where the fitted slope against ℓ crosses
zero.
"""

from __future__ import annotations

import sympy as sp

from attnge.context import current
from attnge.params import Params
from attnge.step import Step, Table
from attnge.theory import threshold as th
from attnge.threshold import audit
from attnge.threshold.modes import MODES

ID = "threshold"


def latex() -> str:
    t = th.temperature_thresholds()
    return (r"\beta = c\sqrt{\log \ell}:\ c^*_{D} = " + sp.latex(t["sd(D)"])
            + r",\ c^*_{m_1} = " + sp.latex(t["m1"])
            + r",\ c^*_{m_q/m_1^q} = " + sp.latex(th.moment_threshold())
            + r",\ c^*_{\mathrm{bulk}} = " + sp.latex(t["kolmogorov"])
            + r",\ c^*_{s_1} = " + sp.latex(t["s1^2/E"])
            + r";\quad d_{qk} = \ell^\alpha:\ \alpha^*_k = 1/k")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    out: dict[str, sp.Expr | str] = {f"slope s(c) of {n}": e
                                     for n, e in th.temperature_exponents().items()}
    out.update({f"c* of {n}": v for n, v in th.temperature_thresholds().items()})
    for order in th.ONE_ENTRY_ORDERS:
        for reading, expr in th.one_entry_exponents(order).items():
            out[f"slope of the one-entry term of m{order}, {reading} reading"] = expr
        out.update({f"c* of the one-entry term of m{order}, {reading} reading": v
                    for reading, v in th.one_entry_thresholds(order).items()})
    out["order: slope of the k-th Hadamard term's distance"] = th.order_exponent()
    out.update({f"alpha* for k = {j}": th.order_threshold(j) for j in (2, 3, 4)})
    out.update({f"E delta is finite for d_qk > (model {m})": th.order_distance_bound(m)
                for m in th.ORDER_MODELS})
    return out


def _sweeps(params: Params) -> list[tuple[audit.Sweep, dict]]:
    """Each mode's quick sweep and its draws, measured once per run context."""
    out = []
    for mode in MODES.values():
        sweep = audit.Sweep(mode, seed=params.seed, **mode.ledger)
        out.append((sweep, current().sweep((ID, mode.name, params.seed),
                                           lambda sweep=sweep: audit.run(sweep, None))))
    return out


def check(params: Params) -> list[Table]:
    tables = []
    for sweep, done in _sweeps(params):
        tables += audit.tables(sweep, audit.quantities(sweep, done))
    return tables


def validate(params: Params) -> None:
    for mode in MODES.values():
        audit.Sweep(mode, seed=params.seed, **mode.ledger)


STEP = Step(
    id=ID,
    title=("The linearization threshold: temperature beta = c sqrt(log ell) and order "
           "d_qk = ell^alpha"),
    claim=("At beta = c sqrt(log ell) the normalizer's spread stops shrinking at c* = 1; the "
           "mass m_1 of sqrt(ell) A_perp departs from the linear model's at c* = sqrt(2/3), "
           "where entries reach X ~ ell and A_ij <= 1 saturates; the shape m_q/m_1^q departs "
           "at c*_q = 1 - sqrt((q-1)/(2q)) (1/2, 0.423, 0.388 for q = 2..4), where the largest "
           "entry's outlier carries a share of m_q: the typical value of the one-entry term "
           "of m_q, not its mean (which crosses at 1/sqrt(2q) but is carried by scores beyond "
           "the largest of ell^2 once qc > 1); the bulk departs at c* = 1/sqrt(2) (where "
           "entries as large as its scale hold a share of the variance) and outliers leave "
           "the bulk for c > 1 - 1/sqrt(2); "
           "at d_qk = ell^alpha the k-th Hadamard term of Sigma_f must be kept for alpha <= 1/k; "
           "at finite ell the size of the omitted terms stops shrinking below 1/k (where its "
           "exact mean puts it) and the bulk's distance above 1/k (where the rank count "
           "C(d_qk+k-1, k) of the k-th term stops outgrowing ell)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=validate,
    method=("Quick sweeps (temperature: c in 0.2..1.2, ell = 250..1000, 3 draws, its own "
            "scores per c; one-entry: c = 0.3, 0.4, 0.5, ell = 250..1000, 16 draws; order: "
            "alpha in 0.2..0.9, ell = 250..1000, beta = 0.35, 2 draws; seeded by the run's "
            "seed): "
            "per grid value the log-log slope of each distance against ell, and the grid "
            "value where it crosses zero, with the slope errors carried through the "
            "interpolation and its model error; decided (PASS or FAIL) when that "
            "uncertainty is at most 0.1, else INCONCLUSIVE with the draws that would decide. "
            "Order: delta = ||Sigma_f - Sigma'||_F^2/(ell theta1^2) (se: delete-one-key "
            "jackknife) against its exact expectation (a closed form in beta, d_qk, ell) at "
            "the same sizes. Temperature: m_1 against its exact mean (a Laplace-transform "
            "integral of one softmax row) at every size, its slopes and its crossing; sd(D)'s "
            "slopes against the exact mean of its square where that concentrates "
            "(ell^(4c^2-2) < 0.1); the shapes, s_1^2/E and sd(D) crossings against their "
            "exponents with the first correction of the largest entry. One-entry: the "
            "slopes of T_q = sum_ij M0_ij^(2q)/(ell theta1^q) (geometric means over draws) "
            "against its typical and its mean reading where they differ by >= 3 se. "
            "`attnge threshold --full` runs the full grids."),
    failure=("a judged measured threshold (temperature: normalizer, m_1, m_2..m_4 shapes, bulk, "
             "outliers; one-entry: T_2..T_4) farther from its prediction than its "
             "uncertainty, or no crossing on the grid; a slope of delta farther than max(4 se, "
             "0.1), or of m_1 or sd(D) farther than 4 se, from its exact mean's; m_1 farther "
             "than 4 se from its exact mean at some size; a slope of T_q farther than 3 se "
             "from its typical reading; or a crossing that differs from the exact one by more "
             "than its uncertainty."),
)
