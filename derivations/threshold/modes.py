"""The modes of the threshold audit: what each sweeps, measures, predicts and how it judges.

A ``Mode`` is one shape for all: its grid presets, the record schema of a stored draw, the
measurement of one draw, the quantities with their exact means or first-order finite-size
predictions, its pass rule and note, and any extra table. Three modes:

- ``temperature``: β = c√(log ℓ), √ℓA⊥ against Y^lin_f (mass, shapes, bulk, outliers,
  normalizer spread);
- ``one-entry``: β = c√(log ℓ), the one-entry terms T_q of m_q without spectra, by the
  dozen draws: which reading of them (their mean or their typical value) sets the shapes'
  thresholds;
- ``order``: d_qk = ℓ^α, what Σ_G and the truncations Σ_f^{(k)} leave out of Σ_f.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import sympy as sp

from attnge.judging import INCONCLUSIVE, NO_DRAWS, READING_Z, at
from attnge.numerics import stats
from attnge.numerics.softmax_mass import expected_mass_difference
from attnge.numerics.threshold import (
    measure_one_entry,
    measure_order,
    measure_temperature,
    order_d_qk,
    temperature_beta,
)
from attnge.step import Table
from attnge.theory import threshold as th
from attnge.theory.inputs import d_qk as rounded_d_qk
from attnge.threshold.fit import Quantity, crossing, fit, fit_exact, means


@dataclass(frozen=True)
class Mode:
    """One mode of the audit (see the module docstring)."""

    name: str
    variable: str                 # the grid's variable: c or alpha
    fixed: str                    # the sweep's fixed parameter: y or beta
    upward: bool                  # distances shrink below the threshold (temperature)
    domain: tuple[float, float]   # the grid lies in (low, high]
    quick: dict
    full: dict
    ledger: dict                  # the ``threshold`` step of ``verify``
    schema: str                   # bump when the measurement changes: old records not reused
    matrices: int                 # ℓ×ℓ float64 arrays alive in one draw
    result_keys: tuple[str, ...]  # a stored draw: {"key": str, "result": {these: numbers}}
    # the callables are named by the mode's name and schema, not by their addresses, so that a
    # sweep's repr (which names its draws in ``draw_store``) is the same in every process
    measure: Callable = field(repr=False)     # (sweep, value, ℓ, draw) -> {result: number}
    quantities: Callable = field(repr=False)  # (sweep, done) -> list[Quantity]
    judged: tuple[str, ...]
    note: str
    pass_rule: str
    check: Callable = field(default=lambda sweep: None, repr=False)   # refuse a grid it can't use
    extra_tables: Callable = field(default=lambda sweep, found: [], repr=False)
    signed: tuple[str, ...] = ()  # results that may be negative (the others are sizes)

    def bounds(self, name: str) -> tuple[float, float]:
        """The range of a stored result: a signed one is any finite number, the others are
        sizes (distances, one-entry terms, variances), and a Kolmogorov distance is at
        most 1."""
        if name in self.signed:
            return (-math.inf, math.inf)
        return (0.0, 1.0) if "kolmogorov" in name else (0.0, math.inf)


def _rates(sweep, done, name: str, grid, typical: bool = False):
    """Per grid value: the means and ses per size and the fitted slope."""
    out = []
    for v in grid:
        m, s, dofs = means(sweep.records(done, v), sweep.sizes, name, typical)
        out.append((m, s, fit(sweep.sizes, m, s, dofs)))
    return out


# ---------------------------------------------------------------------------- temperature

# The steepest slope each distance can show, whatever its derived term does: a Kolmogorov
# distance between ℓ-point spectra lives on the lattice 1/ℓ, and a moment of ℓ eigenvalues
# (a linear spectral statistic) fluctuates by O(1/ℓ) relative to its mean.
RESOLVED = {"kolmogorov": -1.0, "m2/m1^2": -1.0, "m3/m1^3": -1.0, "m4/m1^4": -1.0}
CORRECTED = ("sd(D)", "m3/m1^3", "m4/m1^4", "s1^2/E")
"""Judged against the first-order finite-size threshold (``th.temperature_exponents(κ)``).
Not m₂/m₁²: its threshold 1/2 is where the X⁴-tilt meets the largest score (qc = 1), the
junction of the mean and the largest-entry regimes, where the first correction has no
single form; it is judged on the limit."""
TYPICAL = ("m2/m1^2", "m3/m1^3", "m4/m1^4", "s1^2/E")
"""Read by their typical value (the geometric mean over draws, ``means(typical=True)``): their
thresholds are the typical reading's, the largest entry's outlier in a sample, while their
arithmetic mean is carried by rare draws (the mean reading) and its standard error does not
settle. On the full grid, m₄/m₁⁴'s slope at c = 0.5 had se 0.43 at 24 draws and 0.56 at 72
(c = 0.4, 0.5, 0.6); its typical crossing is 0.444 ± 0.026 and 0.446 ± 0.023."""
BOUNDED = ("m2/m1^2", "m3/m1^3", "m4/m1^4", "kolmogorov", "s1^2/E")
"""Distances whose prediction is the threshold of one term (the largest entry's outlier for
the shapes and s₁²/E, the Lindeberg share for the bulk) beside finite-size terms that shrink
below it (the moments' and edge's fluctuations, the lattice 1/ℓ): their crossing lies at or
above the prediction (``Quantity.lower_bound``). At ℓ ≤ 4000 those terms carry most of the
distance just above c*: m₄/m₁⁴ at c = 0.4 is 132%, 25%, 19%, 14% off the linear model at
ℓ = 500 … 4000 while the largest entry's share, measured alone by the one-entry mode, is
1–2%; the one-entry mode judges the term's own threshold."""


def exact_temperature(name: str, c: float, sizes: tuple[int, ...], y: float
                      ) -> list[float] | None:
    """A distance's exact mean at β = c√(log ℓ) and these sizes, where one is derived.

    m₁: E m₁(√ℓA⊥)/θ₁ − 1, signed (``numerics.softmax_mass``), at every c: m₁ is a sum of
    ℓ bounded row masses, so it concentrates. sd(D): the root of the exact mean of its
    square (``theory.normalizer``) where that square concentrates at the smallest size
    (``spread_concentrates_at``); None otherwise. Both at the measurement's
    d_qk = round(ℓ/y).
    """
    d = {ell: rounded_d_qk(ell, y) for ell in sizes}
    if name == "m1":
        return [expected_mass_difference(temperature_beta(c, ell), ell, d[ell])
                for ell in sizes]
    if name == "sd(D)" and th.spread_concentrates_at(c, min(sizes)):
        return [th.normalizer_spread(temperature_beta(c, ell), d[ell], ell) for ell in sizes]
    return None


SHAPE_ORDERS = {**{f"m{q}/m1^{q}": q for q in (2, 3, 4)},
                **dict(zip(th.ONE_ENTRY, th.ONE_ENTRY_ORDERS))}


def shape_competitor(name: str) -> float | None:
    """The one-entry mean's threshold 1/√(2q) beside a shape or one-entry row."""
    order = SHAPE_ORDERS.get(name)
    return None if order is None else float(th.one_entry_thresholds(order)["mean"])


def _temperature(sweep, done) -> list[Quantity]:
    exps, thresholds = th.temperature_exponents(), th.temperature_thresholds()
    finite_exps = th.temperature_exponents(th.log_log_slope(sweep.sizes))
    out = []
    for name in th.TEMPERATURE_QUANTITIES:
        rates, exact_rates, size_z = [], [], []
        for v, (m, s, rate) in zip(sweep.grid, _rates(sweep, done, name, sweep.grid,
                                                      typical=name in TYPICAL)):
            rates.append(rate)
            exact = exact_temperature(name, v, sweep.sizes, sweep.y)
            exact_rates.append(None if exact is None else fit_exact(sweep.sizes, exact, m, s))
            if name == "m1":   # a mean that concentrates, with a within-draw se
                size_z.append(max(abs(a - e) / b for a, e, b in zip(m, exact, s)))
        valid = float(th.valid_up_to(name))
        limit = [float(exps[name].subs(th.c, v)) if v <= valid else None for v in sweep.grid]
        if name in RESOLVED:
            limit = [None if p is None else max(p, RESOLVED[name]) for p in limit]
        finite = None
        if name == "m1":   # its exact mean is the distance at every c: it crosses too
            value, _, where = crossing(sweep.grid, [stats.Rate(r.slope, 0.0)
                                                    for r in exact_rates], upward=True)
            finite = (value, where)
        elif name in CORRECTED:
            value = th.finite_size_temperature_threshold(finite_exps[name])
            finite = None if value is None else (value, "first order in 1/log ell")
        out.append(Quantity(name, sweep.grid, rates,
                            [None if r is None else r.slope for r in exact_rates],
                            float(thresholds[name]), *crossing(sweep.grid, rates, upward=True),
                            finite=finite, limit_slopes=limit, size_z=size_z or None,
                            slope_floor=0.0, crossing_required=True, draws=sweep.draws,
                            competing=shape_competitor(name), approximate=name in CORRECTED,
                            lower_bound=name in BOUNDED))
    return out


def _temperature_check(sweep) -> None:
    from attnge.theory import inputs
    c_max = inputs.BETA_MAX / math.sqrt(math.log(max(sweep.sizes)))
    if sweep.grid[-1] > c_max:
        raise ValueError(f"grid must hold c <= {c_max:.3g} at these sizes, so that beta = "
                         f"c sqrt(log ell) <= {inputs.BETA_MAX:g} (got c = {sweep.grid[-1]:g})")


_TEMPERATURE_NOTE = (
    "sd(D) = the spread of the normalizer over rows; m1 = the mass, |mean over draws of "
    "m1/m1(lin) - 1| (signed per draw, with a two-way jackknife variance); mq/m1^q = the "
    "shape |(mq/m1^q)/(same for lin) - 1|. Every c has its own scores. Slopes in brackets: "
    "'= x' the exact mean's at these sizes (judged: m1 at all c, from one softmax row's "
    "Laplace integral, with z the largest |mean - exact mean|/se over the sizes; sd(D) "
    "where its square concentrates, ell^(4c^2-2) < 0.1), else the ell -> inf exponent "
    "(shapes: derived for c <= 2 - sqrt(2), where the largest entry X_max < ell). Thresholds "
    "'these sizes': m1 from its exact mean; sd(D), the m3, m4 shapes and s1^2/E from their "
    "exponents with the first correction of the largest entry (its Gumbel centring, "
    "-c kappa/4 per power of X_max, kappa the fitted slope of log log ell); kolmogorov has "
    "none (judged on the limit). 'competing': the one-entry mean's c* = 1/sqrt(2q), which "
    "the one-entry mode rules out. m1 loses the share of E X^2 in entries X ~ ell, where "
    "A_ij <= 1 saturates; kolmogorov (bulks, top 3 removed) the share of Var X in entries "
    "as large as the bulk's scale (Lindeberg), ell^(-t^2/2), t = (1-2c^2)/(2c). Printed "
    "limit slopes of kolmogorov and the shapes are capped at -1: a distance on the lattice "
    "1/ell, and the O(1/ell) fluctuation of a moment of ell eigenvalues. The shapes, "
    "kolmogorov and s1^2/E are judged one-sided (marked >=): their prediction is the "
    "threshold of one term, and the distance's other terms shrink below it, so the measured "
    "crossing lies at or above it; only a crossing below it FAILs. The shapes and s1^2/E are "
    "read by their typical value over draws (geometric mean), the value their thresholds "
    "describe; their arithmetic mean is carried by rare draws.")

TEMPERATURE = Mode(
    name="temperature", variable="c", fixed="y", upward=True, domain=(0.0, math.inf),
    quick={"grid": (0.2, 0.35, 0.5, 0.65, 0.8, 1.0, 1.2), "sizes": (250, 500, 1000, 2000),
           "draws": 2},
    full={"grid": (*(round(0.1 * i, 2) for i in range(1, 15)), 1.6, 1.8, 2.0),
          "sizes": (500, 1000, 2000, 4000), "draws": 8},
    ledger={"grid": (0.2, 0.35, 0.5, 0.65, 0.8, 1.0, 1.2), "sizes": (250, 500, 1000),
            "draws": 3},
    schema="v4", matrices=10,
    result_keys=("m1", "m1 var", "m2/m1^2", "m3/m1^3", "m4/m1^4", "kolmogorov", "sd(D)",
                 "s1^2/E"),
    measure=lambda sweep, c, ell, draw: measure_temperature(c, ell, sweep.y, sweep.seed, draw),
    signed=("m1",),               # the mass difference (measure_temperature)
    quantities=_temperature, judged=th.TEMPERATURE_QUANTITIES, note=_TEMPERATURE_NOTE,
    pass_rule="exact slopes within 4 se, m1 within 4 se of its exact mean at every size, and "
              "the measured threshold within its uncertainty of the predicted one (for these "
              "sizes where there is one; at or above it where marked >=)",
    check=_temperature_check)


# ---------------------------------------------------------------------------- one-entry

MAX_DOMINATED = 1.5
"""The readings of T_q are compared where qc ≥ this: T_q's entries have tail index 1/(qc)
at the largest entry's scale, so there the largest entry dominates the sum (index ≤ 2/3)
rather than sharing it with the next ones, as just above qc = 1."""


def _one_entry(sweep, done) -> list[Quantity]:
    kappa = th.log_log_slope(sweep.sizes)
    out = []
    for name, order in zip(th.ONE_ENTRY, th.ONE_ENTRY_ORDERS):
        readings = th.one_entry_exponents(order)
        rates = [r for _, _, r in _rates(sweep, done, name, sweep.grid, typical=True)]
        limit = [float(readings["typical"].subs(th.c, v)) for v in sweep.grid]
        finite = th.finite_size_temperature_threshold(
            th.one_entry_exponents(order, kappa)["typical"])
        out.append(Quantity(name, sweep.grid, rates, [None] * len(sweep.grid),
                            float(th.one_entry_thresholds(order)["typical"]),
                            *crossing(sweep.grid, rates, upward=True),
                            finite=None if finite is None else
                            (finite, "first order in 1/log ell"), limit_slopes=limit,
                            crossing_required=True, draws=sweep.draws,
                            competing=float(th.one_entry_thresholds(order)["mean"]),
                            approximate=True))
    return out


def readings_table(sweep, found: list[Quantity]) -> Table:
    """The one-entry terms' slopes against their two readings, where they differ.

    A row passes when the measured slope agrees with the typical reading (with its first
    correction) within ``READING_Z`` se and the two readings lie at least ``READING_Z`` se
    apart; fails when it disagrees with the typical one; else it is inconclusive. Per q a
    closing row: decided (PASS) when some row passes and none fails.
    """
    kappa = th.log_log_slope(sweep.sizes)
    table = Table(f"one-entry: which reading of T_q governs (slopes against ell at sizes "
                  f"{', '.join(map(str, sweep.sizes))}, {sweep.draws} draws, typical values "
                  f"= geometric means over draws; rows with qc >= {MAX_DOMINATED:g} and "
                  f"c <= 2 - sqrt(2))",
                  ["q", "c", "measured slope", "typical (these sizes)", "mean (ell -> inf)",
                   "z typical", "z mean", "readings apart (se)"],
                  note="typical = the largest entry's outlier, slope 4qc - 2qc^2 - q - 1 - "
                       "qc kappa/2; mean = the expectation, ell^{1-q} E X^{2q}/theta1^q, "
                       "slope (q-1)(2qc^2 - 1), carried by scores at 2qc sqrt(log ell), "
                       "beyond the largest of ell^2 (2 sqrt(log ell)) once qc > 1. They "
                       "differ by 2(qc - 1)^2.")
    by_name = {q.name: q for q in found}
    for name, order in zip(th.ONE_ENTRY, th.ONE_ENTRY_ORDERS):
        typical = sp.lambdify(th.c, th.one_entry_exponents(order, kappa)["typical"], "math")
        mean = sp.lambdify(th.c, th.one_entry_exponents(order)["mean"], "math")
        verdicts, needs = [], []
        for v, r in zip(sweep.grid, by_name[name].slopes):
            if order * v < MAX_DOMINATED or v > float(th.SATURATION):
                continue
            z_typ, z_mean = (r.slope - typical(v)) / r.se, (r.slope - mean(v)) / r.se
            apart = abs(typical(v) - mean(v)) / r.se
            z = at(READING_Z)
            verdict = False if abs(z_typ) > z else \
                True if apart >= z and abs(z_mean) > z else INCONCLUSIVE
            # both z's grow as √draws, the slopes kept: the draws that would set them past z
            need = (max(1.0, (z / apart) ** 2, (z / abs(z_mean)) ** 2) if z_mean and apart
                    else NO_DRAWS) if verdict == INCONCLUSIVE else None
            verdicts.append(verdict)
            needs.append(need)
            table.add([order, f"{v:g}", f"{r.slope:.3g} ± {r.se:.2g}", f"{typical(v):.3g}",
                       f"{mean(v):.3g}", f"{z_typ:.2g}", f"{z_mean:.3g}", f"{apart:.3g}"],
                      verdict, need)
        if verdicts:
            decided = False if False in verdicts else True if True in verdicts else INCONCLUSIVE
            table.add([order, "all", "typical governs" if decided is True else
                       "not decided" if decided == INCONCLUSIVE else "typical contradicted",
                       "", "", "", "", ""], decided,
                      min(n for n in needs if n is not None) if decided == INCONCLUSIVE else None)
    return table


ONE_ENTRY = Mode(
    name="one-entry", variable="c", fixed="y", upward=True,
    domain=(0.0, float(th.SATURATION)),
    quick={"grid": (0.3, 0.35, 0.4, 0.45, 0.5, 0.55), "sizes": (250, 500, 1000, 2000),
           "draws": 40},
    full={"grid": (0.3, 0.35, 0.4, 0.45, 0.5, 0.55), "sizes": (500, 1000, 2000, 4000),
          "draws": 40},
    ledger={"grid": (0.3, 0.4, 0.5), "sizes": (250, 500, 1000), "draws": 16},
    schema="v1", matrices=5, result_keys=th.ONE_ENTRY,
    measure=lambda sweep, c, ell, draw: measure_one_entry(c, ell, sweep.y, sweep.seed, draw),
    quantities=_one_entry, judged=th.ONE_ENTRY,
    note="one-entry mq = T_q = sum_ij M0_ij^(2q) / (ell theta1^q), the terms of m_q(sqrt(ell) "
         "A_perp) made of one entry, as a share of m_q's scale; the mean over draws is "
         "geometric (its typical value). Its threshold: where its slope crosses 0, against "
         "the typical reading's with the first correction (these sizes) and its limit "
         "1 - sqrt((q-1)/(2q)); 'competing': the mean reading's 1/sqrt(2q). The mean "
         "reading is not what a sample shows: its scores lie beyond the largest one.",
    pass_rule="the measured threshold within its uncertainty of the typical reading's for "
              "these sizes, and the slopes where the readings differ follow the typical one",
    extra_tables=lambda sweep, found: [readings_table(sweep, found)])


# ---------------------------------------------------------------------------- order

ORDER_STATISTICS = ("frobenius", "wasserstein", "kolmogorov")


def order_grid(sweep, model: str) -> tuple[float, ...]:
    """The α of the grid where δ's (and W₂²'s) standard error has finite variance.

    E δ is finite for d_qk > b (``order_distance_bound``), Var δ for d_qk > 2b, and the
    variance of its jackknife estimate for d_qk > 4b: the grid keeps those α.
    """
    bound = se_bound(sweep, model)
    return tuple(a for a in sweep.grid if order_d_qk(a, min(sweep.sizes)) > bound)


def se_bound(sweep, model: str) -> float:
    """4 × the bound of E δ at the sweep's β: below it δ's se has infinite variance."""
    return 4 * th.order_distance_bound_at(model, sweep.beta)


def _order(sweep, done) -> list[Quantity]:
    out = []
    for stat in ORDER_STATISTICS:
        for model in th.ORDER_MODELS:
            name, first = f"{stat} {model}", th.first_omitted(model)
            grid = sweep.grid if stat == "kolmogorov" else order_grid(sweep, model)
            rates, exact_rates = [], []
            for a, (m, s, rate) in zip(grid, _rates(sweep, done, name, grid)):
                rates.append(rate)
                if stat == "frobenius":   # the exact E δ, fitted with the same weights
                    exact = [th.expected_order_distance(model, sweep.beta, order_d_qk(a, ell),
                                                        ell) for ell in sweep.sizes]
                    exact_rates.append(fit_exact(sweep.sizes, exact, m, s))
                elif stat == "kolmogorov":   # the sign of −d log(N_k/ℓ)/d log ℓ
                    ds = tuple(order_d_qk(a, ell) for ell in sweep.sizes)
                    exact_rates.append(stats.Rate(-th.rank_exponent(first, sweep.sizes, ds),
                                                  0.0))
            finite = None
            if exact_rates:
                value, _, where = crossing(grid, [stats.Rate(r.slope, 0.0) for r in exact_rates],
                                           upward=False)
                finite = (value, where)
            pred = [r.slope for r in exact_rates] if stat == "frobenius" else [None] * len(grid)
            out.append(Quantity(name, grid, rates, pred, float(th.order_threshold(first)),
                                *crossing(grid, rates, upward=False), finite=finite,
                                upward=False, draws=sweep.draws,
                                approximate=stat == "kolmogorov"))   # the rank count
    return out


def _order_check(sweep) -> None:
    for model in th.ORDER_MODELS:
        if len(order_grid(sweep, model)) < 2:
            raise ValueError(f"grid must hold at least 2 alpha with d_qk = "
                             f"{min(sweep.sizes)}^alpha > {se_bound(sweep, model):g} for "
                             f"{model} at beta = {sweep.beta:g} (raise alpha or the "
                             f"sizes, or lower beta)")


DRIFT_DECADES = (3, 6, 9, 12)


def drift_table(sweep, found=None) -> list[Table]:
    """The exact finite-size threshold of δ between ℓ and 8ℓ, for ℓ = 10^3 … 10^12."""
    table = Table(f"order: the threshold of the exact E frobenius between ell and 8 ell "
                  f"(d_qk = ell^alpha, beta = {sweep.beta:g}) approaches 1/k",
                  ["ell", *[f"alpha* {m}" for m in th.ORDER_MODELS]])
    for e in DRIFT_DECADES:
        row = [th.finite_size_threshold(m, sweep.beta, 10.0**e, 8 * 10.0**e)
               for m in th.ORDER_MODELS]
        table.add([f"1e{e}", *["none" if a is None else f"{a:.4f}" for a in row]])
    table.add(["limit", *[str(th.order_threshold(th.first_omitted(m)))
                          for m in th.ORDER_MODELS]])
    return [table]


ORDER = Mode(
    name="order", variable="alpha", fixed="beta", upward=False, domain=(0.0, 1.0),
    quick={"grid": (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.75, 0.9),
           "sizes": (250, 500, 1000, 2000), "draws": 2},
    full={"grid": tuple(round(0.05 * i, 2) for i in range(3, 21)),
          "sizes": (500, 1000, 2000, 4000), "draws": 2},
    ledger={"grid": (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.75, 0.9),
            "sizes": (250, 500, 1000), "draws": 2},
    schema="v2", matrices=11,
    result_keys=tuple(f"{kind} {m}{suffix}" for m in th.ORDER_MODELS for kind, suffix in
                      (("frobenius", ""), ("frobenius", " var"), ("wasserstein", ""),
                       ("kolmogorov", ""))),
    measure=lambda sweep, a, ell, draw: measure_order(a, ell, sweep.beta, sweep.seed, draw),
    quantities=_order,
    judged=tuple(f"{s} {m}" for s in ("frobenius", "kolmogorov") for m in th.ORDER_MODELS),
    note="frobenius = ||Sigma_f - Sigma'||_F^2/(ell theta1^2), the mean-square size of "
         "what Sigma' leaves out of Sigma_f (the Hadamard terms from the first omitted k "
         "on; for lin_f also the key-norm factors s_j s_k and the diagonal of Sigma_G). "
         "Its exact mean at the same d_qk gives each predicted slope; its finite-d "
         "factors hold the crossing below 1/k, and the drift table shows it reach 1/k. "
         "kolmogorov (spectra of G Sigma G^T): the k-th term acts on the bulk through "
         "the share N_k(d_qk)/ell of directions it spans, N_k(d) = C(d+k-1, k), which "
         "stops growing with ell where alpha dlogN_k/dlogd = 1: above 1/k at finite "
         "d_qk, tending to 1/k. wasserstein (W2^2/theta1^2 <= ||G||^4 frobenius) is "
         "reported, not judged. d_qk = round(ell^alpha) in measurements and "
         "predictions alike; frobenius and wasserstein leave out grid values with "
         "d_qk <= 4 x the bound of E frobenius (their se has infinite variance there).",
    pass_rule="frobenius slopes within max(4 se, 0.1) of the exact ones, and the measured "
              "threshold within its uncertainty of the predicted one for these sizes "
              "where both cross 0",
    check=_order_check, extra_tables=drift_table)


MODES = {mode.name: mode for mode in (TEMPERATURE, ONE_ENTRY, ORDER)}


def mode_named(name) -> Mode:
    """The mode called ``name`` (a ``Mode`` passes through); ValueError naming the choices."""
    if isinstance(name, Mode):
        return name
    if name not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)} (got {name!r})")
    return MODES[name]
