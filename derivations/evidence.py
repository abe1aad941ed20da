"""Evidence tables shared by the steps that read the chain sweep (``derivations.ledger_draws``).

A rate row fits log(mean over draws of a positive quantity) against log ℓ and judges
the slope by a rule:

- ``agree``:   |slope − predicted| ≤ max(t₄ se, tol)   (the rate is the predicted one)
- ``at most``: slope ≤ predicted + max(t₄ se, tol)     (at least as fast as a bound)
- ``at least``: slope ≥ predicted − max(t₄ se, tol)    (grows at least that fast)

t₄ is the T quantile, at the degrees of freedom of the slope's error (from draws − 1 at
each size, ``stats.fit_rate``), with the two-sided tail of |z| = 4: with few draws the
error is itself uncertain, and 4 se alone would pass for a stricter test than it is.

A value row judges a number: the mean at one size against its exact finite-size mean, or
the ℓ → ∞ value fitted from the sizes (``stats.extrapolate``) against the limit. Its T
statistic is put on the normal scale (``stats.normal_equivalent``) and passes when
|z| ≤ 4; it reports ``detectable`` = t₄·se/|predicted|, the smallest relative error of the
prediction it would detect (t₄: the T quantile with the two-sided tail of |z| = 4).

A value row that exists to reject a rival (``judging.Rival``: the value a wrong theory gives, as
the i.i.d. surrogate's gap 0 or an outlier at the bulk edge) passes only with the power to
reject it: its absolute detectable error t₄·se at most ``judging.RIVAL_SHARE`` of the distance
|predicted − rival|. With less, an agreeing row is INCONCLUSIVE and names the draws that
would give it that power (se shrinks as 1/√draws).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attnge import regimes as rg
from attnge.judging import (
    INCONCLUSIVE,
    NO_DRAWS,
    OUT_OF_REGIME,
    OVERFLOW,
    RATE_Z,
    VALUE_Z,
    Z_MAX,
    Rival,
    at,
    detectable,
)
from attnge.numerics import stats
from attnge.numerics.measure import RANK_RTOL, DrawMeasurement, Identities
from attnge.numerics.outliers import tilt_tail
from attnge.params import Params
from attnge.step import Table, fmt, pm, stouffer

Sweep = dict[int, list[DrawMeasurement]]
IDENTITY_TOL = 1e-10      # relative residual of an exact identity (float64 rounding)
SANITY = "code sanity check: holds by algebra on any draw, not evidence for the theory"


def mean_se(values: np.ndarray) -> tuple[float, float]:
    """Mean over draws and its standard error (0 with one draw)."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0


def per_size(sweep: dict[int, list], fn: Callable[[object], float]) -> list[np.ndarray]:
    """fn of every draw, one array per size (in size order): chain or law draws."""
    return [np.array([fn(m) for m in sweep[ell]], dtype=float) for ell in sorted(sweep)]


def rate_table(title: str, params: Params, note: str = "", sizes=None,
               size_name: str = "ell") -> Table:
    sizes = params.sizes if sizes is None else sizes
    return Table(title, ["quantity", *[f"{size_name}={ell}" for ell in sizes],
                         "fitted slope", "predicted", "rule"], note=note)


@dataclass(frozen=True)
class Slope:
    """The rule of a rate row: the fitted slope of the per-size means against ``predicted``.

    ``rule``: "agree" (|slope − limit| within the width), "at least" or "at most"; the
    width is the slope's t-quantile at RATE_Z plus ``tol``; ``limit``: the slope the rule
    compares with, when it is not the predicted one (a rule weaker than the prediction,
    e.g. a bound that holds only for bounded norms); ``judged`` False: shown, not judged.
    """

    predicted: float
    rule: str = "agree"
    tol: float = 0.1
    judged: bool = True
    limit: float | None = None
    rival: Rival | None = None
    """The slope a wrong theory gives (``PLATEAU``): an agreeing row whose width is not at
    most ``RIVAL_SHARE`` of the distance to it is INCONCLUSIVE (``Rival.power``)."""
    claim: bool = False
    """The row is its step's claim: its rival is the step's, recorded for
    ``StepResult.rival_ruled_out`` (a step whose claim does not rule it out, or cannot be
    fitted at sizes outside its regime, is INCONCLUSIVE); else the rival decides the row
    only."""


PLATEAU = Rival(0.0, "a plateau (slope 0: the difference does not vanish, as between two "
                     "models that differ in the limit)")
"""The rival of a chain step's distance: it does not shrink."""


@dataclass(frozen=True)
class Extrapolation:
    """The rule of a value row fitted to ℓ → ∞: m(ℓ) = m∞ + Σ b_k ℓ^{-p_k} (``powers``),
    m∞ judged against ``predicted`` within VALUE_Z (``judged`` False: shown only);
    ``scale``: what its ``detectable`` is relative to (default |predicted|)."""

    predicted: float
    powers: tuple[float, ...]
    judged: bool = True
    scale: float | None = None
    rival: Rival | None = None


def rate_row(table: Table, label: str, params: Params, values: list[np.ndarray],
             slope: Slope, sizes=None, regime=None) -> stats.Rate:
    """Add 'label: mean ± se per size, fitted slope ± se, predicted, rule' to a table,
    judged by ``slope``.

    ``regime`` (a ``derivations.regimes.Regime``): the slope is fitted on the largest sizes
    inside it (at least three; the others are shown, not fitted); with fewer, the row is
    INCONCLUSIVE and its rule says why and what would decide.
    """
    predicted, rule, tol, judged = slope.predicted, slope.rule, slope.tol, slope.judged
    sizes = list(params.sizes if sizes is None else sizes)
    first = 0 if regime is None else regime.first()
    if first is None:
        cells = [pm(*mean_se(v)) for v in values]
        table.add([label, *cells, "", fmt(predicted, 3),
                   f"{OUT_OF_REGIME}: {regime.why}; {regime.need_text}"], INCONCLUSIVE, NO_DRAWS,
                  regime.decides_from)
        if slope.claim:
            unfitted_rival(table, f"{label}, fitted slope", slope.rival)
        return stats.Rate(float("nan"), float("nan"))
    limit = predicted if slope.limit is None else slope.limit
    cells = [f"{pm(*mean_se(v))} (not fitted)" for v in values[:first]]
    means, ses = [], []
    for v in values[first:]:
        mean, se = mean_se(v)
        cells.append(pm(mean, se))
        means.append(mean)
        ses.append(se)
    values, sizes = values[first:], sizes[first:]
    note = f"; fitted on ell >= {sizes[0]} (below: {regime.why})" if first else ""
    dofs = [len(v) - 1 for v in values]
    if min(means) <= 0:
        table.add([label, *cells, "undefined (a mean is 0)", fmt(predicted, 3), rule + note],
                  False if judged else None)
        return stats.Rate(float("nan"), float("nan"))
    rate = stats.fit_rate(sizes, means, ses if min(ses) > 0 else None, dofs)
    table.add_series(label, "ell", sizes, means, ses, rate.slope, rate.se, predicted)
    width = rate.width(at(RATE_Z), tol)
    if rule == "agree":
        ok = abs(rate.slope - limit) <= width
        text = f"|slope - ({limit:g})| <= {width:.2g}"
    elif rule == "at least":
        ok = rate.slope >= limit - width
        text = f"slope >= {limit:g} - {width:.2g}"
    else:
        ok = rate.slope <= limit + width
        text = f"slope <= {limit:g} + {width:.2g}"
    needs = None
    if judged and slope.rival is not None:
        ok, why, needs = slope_rival(table, label, rate, ok, width, limit, slope)
        text += f"; {why}" if why else ""
    table.add([label, *cells, pm(rate.slope, rate.se), fmt(predicted, 3),
               (text if judged else f"reported ({text})") + note], ok if judged else None,
              needs)
    return rate


def slope_rival(table: Table, label: str, rate: stats.Rate, ok: bool, width: float,
                limit: float, slope: Slope) -> tuple[bool | str, str, float | None]:
    r"""Judge a fitted slope's power against ``slope.rival``: (verdict, why an agreeing row
    lacks the power ('' where it has it), the draws factor that would give it).
    A claim row records its rival for ``StepResult.rival_ruled_out``.

    The point the rival must be told from is the predicted slope, or, for a bound ("at
    most", "at least") whose fitted slope lies beyond it, away from the rival, the fitted
    slope: a moment difference falling as ℓ^{-0.93 ± 0.065} against the bound −1/2 is told
    from a plateau by 0.93, not by the bound's 0.5.

    .. math:: \mathrm{width} \le \mathrm{RIVAL\_SHARE}\,|\mathrm{point} - \mathrm{rival}|
    """
    rival, needs, why = slope.rival, None, ""
    point = limit
    if slope.rule != "agree" and abs(rate.slope - rival.value) > abs(limit - rival.value):
        point = rate.slope      # a bound met with room: the slope is what the rival must miss
    power, lacks, fields = rival.judged(width, point, rate.dof, at(RATE_Z))
    if ok is True and not power:        # the draws narrow t se, not the floor tol
        ok, why = INCONCLUSIVE, lacks
        needs = rival.draws_factor(width, point, slope.tol, rate.dof, at(RATE_Z))
    if slope.claim:
        table.values.append({"quantity": f"{label}, fitted slope", "estimate": rate.slope,
                             "se": rate.se, "predicted": limit, "width": width,
                             "passed": ok, **fields})
    return ok, why, needs


def identity_table(sweep: Sweep, names: list[str]) -> Table:
    """Exact identities: the largest relative residual over every size and draw, ``names``
    the fields of ``numerics.measure.Identities``.

    They hold by algebra whatever the law of S, so they can catch a bug in the code
    and nothing about the theory: the title says so.
    """
    table = Table(f"Exact identities (pass: relative residual <= {IDENTITY_TOL:g}; {SANITY})",
                  ["identity", "max relative residual (all sizes, draws)"])
    for name in names:
        worst = max(getattr(m.identities, name) for draws in sweep.values() for m in draws)
        table.add([Identities.LABELS[name], f"{worst:.2e}"], worst <= IDENTITY_TOL)
    return table


def rank_table(sweep: Sweep, key: str) -> Table:
    """Rank one: (Σ_{k≥2} s_k²)^{1/2} = (‖a − b‖_F² − s₁²)^{1/2} is rounding next to s₁."""
    table = Table(f"Rank one: the difference {key} beyond its s_1, (sum_(k>=2) s_k^2)^(1/2) / "
                  f"s_1 (pass: <= {RANK_RTOL:g} at every draw; {SANITY})",
                  ["ell", "max over draws"])
    for ell in sorted(sweep):
        worst = max(m.differences[key].rest for m in sweep[ell])
        table.add([ell, f"{worst:.2e}"], worst <= RANK_RTOL)
    return table


def moment_rows(table: Table, sweep: Sweep, params: Params, a: str, b: str, slope: Slope,
                regime=None) -> None:
    """|m_q(a) − m_q(b)|, q = 1..4, over the full spectrum and the bulk (top r removed);
    ``regime``: see :func:`rate_row`, or a function of q giving it."""
    for r in sorted({0, params.remove_top}):
        for q in range(1, 5):
            values = per_size(sweep, lambda m, q=q, r=r:
                              abs(m.moments(a, r)[q - 1] - m.moments(b, r)[q - 1]))
            where = "full" if r == 0 else f"bulk (top {r} removed)"
            rate_row(table, f"|m_{q}({a}) - m_{q}({b})|, {where}", params, values, slope,
                     regime=regime(q) if callable(regime) else regime)


def moment_bound_table(sweep: Sweep, a: str, b: str, kind: str) -> Table:
    """The perturbation bounds hold on every draw (docs/math.md §4).

    kind "frobenius": |Δm_q| ≤ 2q M^{2q−1} ‖a − b‖_F/√ℓ; kind "rank" (a − b of rank
    one, ``rank_table``): |Δm_q| ≤ 2 M^{2q}/ℓ; M = max(‖a‖, ‖b‖).
    """
    key = f"{a}->{b}"
    table = Table(f"Perturbation bound ({kind}) on every draw: |m_q({a}) - m_q({b})| <= bound "
                  f"({SANITY})",
                  ["q", "max over draws of |difference| / bound", "pass when"])
    for q in range(1, 5):
        worst = 0.0
        for ell, draws in sweep.items():
            for m in draws:
                M = np.sqrt(max(m.spectra[a][0], m.spectra[b][0]))
                diff = abs(m.moments(a)[q - 1] - m.moments(b)[q - 1])
                d = m.differences[key]
                if kind == "frobenius":
                    bound = 2 * q * M ** (2 * q - 1) * d.frob
                else:
                    bound = 2 * M ** (2 * q) / ell
                worst = max(worst, diff / bound)
        table.add([q, fmt(worst, 4), "<= 1"], worst <= 1 + 1e-9)
    return table


TAIL_ENTRIES = rg.TAIL_ENTRIES


def tail_entries(degree: int, beta: float, entries: int, d_qk: float = math.inf) -> float:
    r"""How many of ``entries`` scores are expected beyond the point where the entries that
    carry E X^degree sit (X = e^{βS − β²/2}; ``numerics.outliers.tilt_tail``).

    For Gaussian scores (``d_qk`` infinite) that point is S = pβ:

    .. math:: N\,P(\chi > p\beta) = \tfrac{N}{2}\operatorname{erfc}(p\beta/\sqrt2)

    and for S = q·k/√d_qk it is pβ/(1 − p²β²/d_qk), the tilt lengthening the queries too.
    A sample mean of a degree-p statistic is judged only where this is at least
    ``TAIL_ENTRIES``: below, the sample has not reached the entries that make the mean, so
    its mean and its standard error both fall short (at β = 3 and ℓ = 250, E f(S)² is
    missed by a factor of seven with a z of −10).
    """
    return entries * tilt_tail(degree, beta, d_qk)


def tail_untested(degree: int, beta: float, entries: int, d_qk: float = math.inf
                  ) -> str | None:
    """Why a degree-p sample mean over ``entries`` scores is not judged, or None."""
    reach = tail_entries(degree, beta, entries, d_qk)
    if reach >= TAIL_ENTRIES:
        return None
    where = "" if math.isinf(d_qk) else f" (d_qk = {d_qk:g})"
    return (f"not tested: {reach:.2g} of the {entries} entries expected beyond S = "
            f"{degree}beta{where}, which carry the mean (need {TAIL_ENTRIES:g}: "
            + (f"{TAIL_ENTRIES / reach:.2g} times the draws)" if reach > 0 else
               "beyond any number of draws)"))


def untested_per_size(params: Params, degree: int = 2) -> list[str | None]:
    """``tail_untested`` at each of the run's sizes, over its draws' ℓ² scores at that d_qk
    (for z rows of statistics of one chain draw)."""
    return [tail_untested(degree, params.beta, ell * ell * params.draws, params.d_qk(ell))
            for ell in params.sizes]


@dataclass(frozen=True)
class Estimate:
    """A measured value: its ``mean``, standard error ``se`` and the degrees of freedom
    ``dof`` of that error (inf: a normal error)."""

    mean: float
    se: float
    dof: float


def z_value(table: Table, row: list, label: str, estimate: Estimate, expected: float,
            scale: float | None = None, untested: str | None = None,
            z: float | None = None) -> float:
    """Append ``row`` + [z, detectable] judged at |z| <= Z_MAX, and record the value check.

    z is put on the normal scale (``stats.normal_equivalent``, ``dof`` = inf for a normal z);
    ``z`` given: that score on the normal scale instead (an exact tail, as for a count);
    ``detectable`` is relative to ``scale`` (default: ``expected``; give it when that is 0).
    ``untested``: why the row is shown without a verdict (nothing is recorded then).
    """
    mean, se, dof = estimate.mean, estimate.se, estimate.dof
    if z is None:
        z = stats.normal_equivalent((mean - expected) / se, dof)
    if untested:
        table.add(row + [f"{z:.3g} ({untested})", ""])
        return z
    det = detectable(se, dof, expected if scale is None else scale, at(Z_MAX))
    ok = abs(z) <= at(Z_MAX)
    table.add(row + [fmt(z, 3), f"{100 * det:.2g}%"], ok)
    table.values.append({"quantity": label, "estimate": mean, "se": se, "dof": dof,
                         "predicted": expected, "z": z, "detectable": det, "passed": ok})
    return z


def z_combined(table: Table, row: list, label: str, zs: list[float],
               relative_se: list[float]) -> None:
    """The Stouffer combination Σz/√n of the sizes' z, and what it detects: a relative
    error δ shared by the sizes moves it by δ Σ(1/rse_k)/√n, so δ = Z_MAX √n / Σ 1/rse_k."""
    combined = stouffer(zs)
    det = at(Z_MAX) * len(zs) ** 0.5 / sum(1 / r for r in relative_se)
    ok = abs(combined) <= at(Z_MAX)
    table.add(row + [f"{combined:.3g} (combined)", f"{100 * det:.2g}%"], ok)
    table.values.append({"quantity": f"{label}, all sizes combined", "z": combined,
                         "detectable": det, "passed": ok})


def z_rows(table: Table, label: str, sizes: list[int], values: list[np.ndarray],
           expected: list[float], variances: list[np.ndarray] | None = None,
           scales: list[float] | None = None,
           untested: list[str | None] | None = None) -> None:
    """z-tests of per-size means against expected values, then their Stouffer combination.

    Without ``variances`` the standard error is the spread over draws, so the score is a
    T statistic with draws − 1 dof, put on the normal scale (``stats.normal_equivalent``);
    with them (the variance of each draw's estimate, from its many i.i.d. rows) the pooled
    √(Σ var)/n and a normal z. ``scales``: what ``detectable`` is relative to, per size
    (default: the expected values). ``untested``: per size, why it is shown without a
    verdict (``tail_untested``), or None; those sizes stay out of the combination.
    """
    zs, rse = [], []
    for k, (ell, v, e) in enumerate(zip(sizes, values, expected)):
        if variances is None:
            (mean, se), dof = mean_se(v), len(v) - 1
        else:
            (mean, se), dof = stats.pool(list(v), list(variances[k])), math.inf
        if se == 0:
            table.add([label, ell, pm(mean, se), fmt(e, 8), "no standard error (1 draw)", ""])
            continue
        scale = e if scales is None else scales[k]
        why = None if untested is None else untested[k]
        if why:
            z_value(table, [label, ell, pm(mean, se), fmt(e, 8)], f"{label} at ell = {ell}",
                    Estimate(mean, se, dof), e, scale=scale, untested=why)
            continue
        zs.append(z_value(table, [label, ell, pm(mean, se), fmt(e, 8)], f"{label} at ell = {ell}",
                          Estimate(mean, se, dof), e, scale=scale))
        rse.append(se / abs(scale))
    if zs:
        z_combined(table, [label, "all", "", ""], label, zs, rse)


def z_table(title: str) -> Table:
    return Table(f"{title} (pass: |z| <= {at(Z_MAX):.3g} at each size and combined; z on the "
                 "normal scale; detectable: the relative error of the expected value the test "
                 "detects)",
                 ["statistic", "ell", "measured ± se", "expected", "z", "detectable"])


def rank_one_tables(sweep: Sweep, params: Params, a: str, b: str, shown: tuple[str, str],
                    operator_meaning: str) -> tuple[Table, Table, Table, Table]:
    """A rank-one step a → b: its rank, norms, rank-to-moment bound and moment differences.

    ``shown``: how a and b are written in labels; ``operator_meaning``: what the operator
    norm equals (it does not shrink).
    """
    key, diff = f"{a}->{b}", f"{shown[0]} - {shown[1]}"
    norms = rate_table(f"Norms of {diff} against ell (mean over draws)", params)
    # ‖D − 𝟙‖² and ‖c‖² are degree 2 in f(S): read where one draw reaches the scores that
    # carry E f(S)² (at d_qk ≤ 4β² that mean is infinite, and no size does)
    tails = rg.tails(params.beta, params.y, list(params.sizes))
    rate_row(norms, f"||{diff}||_F / sqrt(ell)", params,
             per_size(sweep, lambda m: m.differences[key].frob),
             Slope(-0.5, rival=PLATEAU, claim=True), regime=tails)
    rate_row(norms, f"||{diff}|| (= {operator_meaning}, does not shrink)", params,
             per_size(sweep, lambda m: m.differences[key].op), Slope(0.0), regime=tails)
    moments = rate_table("Moment differences (rank-one bound 2 M^2q / ell: slope -1 while "
                         "the norm M stays bounded; judged against -1/2, since outliers "
                         "move M at moderate ell)", params)
    moment_rows(moments, sweep, params, a, b,
                Slope(-1.0, "at most", 0.1, limit=-0.5, rival=PLATEAU),
                regime=rg.both(rg.mass(params.beta, params.y, list(params.sizes)), tails))
    return (rank_table(sweep, key), norms, moment_bound_table(sweep, a, b, "rank"),
            moments)


# --------------------------------------------------------------------------- value checks

def value_table(title: str) -> Table:
    z = at(VALUE_Z)
    return Table(f"{title} (pass: |z| <= {z:.3g}, z on the normal scale; detectable: the "
                 f"relative error of the prediction this check detects, t_{z:.3g} se/|pred|)",
                 ["quantity", "estimate ± se", "predicted", "z", "how estimated", "detectable"])


def value_row(table: Table, label: str, measured: Estimate, predicted: float, how: str,
              judged: bool = True, scale: float | None = None,
              rival: Rival | None = None) -> dict:
    """Judge ``measured`` (its mean ± se, with its dof) against ``predicted``.

    ``scale``: what ``detectable`` is relative to (default |predicted|; give it when the
    prediction is 0, e.g. a difference whose size is that of another quantity). ``rival``:
    the value this row exists to reject; an agreeing row without the power to reject it
    is INCONCLUSIVE (``Rival.power``).
    """
    estimate, se, dof = measured.mean, measured.se, measured.dof
    z = stats.normal_equivalent((estimate - predicted) / se, dof)
    det = detectable(se, dof, predicted if scale is None else scale, at(VALUE_Z))
    ok = abs(z) <= at(VALUE_Z)
    verdict = ok if judged else None
    rival_fields, needs = {}, None
    if rival is not None:
        width = stats.t_critical(at(VALUE_Z), dof) * se
        power, why, rival_fields = rival.judged(width, predicted, dof, at(VALUE_Z))
        if judged and ok and not power:
            verdict, how = INCONCLUSIVE, f"{how}; {why}"
            needs = rival.draws_factor(width, predicted, dof=dof, z=at(VALUE_Z))
    table.add([label, pm(estimate, se), fmt(predicted, 8), fmt(z, 3), how,
               f"{100 * det:.2g}%"], verdict, needs)
    value = {"quantity": label, "estimate": estimate, "se": se, "dof": dof,
             "predicted": predicted, "z": z, "how": how, "detectable": det,
             "passed": verdict, **rival_fields}
    table.values.append(value)
    return value


def fit_text(limit: stats.Limit) -> str:
    terms = " + ".join(f"b{k + 1} ell^-{p:.3g}" for k, p in enumerate(limit.powers))
    return (f"fit m(ell) = m_inf + {terms}, chi2 = {limit.chi2:.2g} on {limit.fit_dof} dof, "
            f"{limit.dof:.0f} dof for se")


def extrapolated(sizes, values: list[np.ndarray], powers: tuple[float, ...]) -> stats.Limit:
    """The ℓ → ∞ value of the per-size means of ``values`` (``stats.extrapolate``).

    The terms of ``powers`` are used as far as the sizes leave one degree of freedom to
    judge the fit (three sizes: m∞ + b₁ℓ^{-p₁} only).
    """
    means, variances, dofs = zip(*(stats.mean_variance(v) for v in values))
    return stats.extrapolate(sizes, means, variances, dofs,
                             powers[:max(1, len(sizes) - 2)])


def unfitted_rival(table: Table, quantity: str, rival: Rival | None) -> None:
    """A row that exists to reject ``rival`` and could not be judged (outside its regime,
    unfitted, without a standard error) has not ruled it out: its record says so, and its
    step cannot PASS on its other rows (``StepResult.rival_ruled_out``)."""
    if rival is not None:
        table.values.append({"quantity": quantity, "passed": INCONCLUSIVE,
                             **rival.record(False)})


def limit_row(table: Table, label: str, sizes, values: list[np.ndarray],
              target: Extrapolation, regime=None) -> stats.Limit | None:
    """Fit the ℓ → ∞ value of ``values`` and judge it by ``target``.

    ``regime`` (a ``derivations.regimes.Regime``): the fit takes the largest sizes inside it
    (at least three); with fewer, the row is INCONCLUSIVE, says why and what would decide,
    and None is returned.
    """
    predicted = target.predicted
    if regime is not None:
        first = regime.first()
        if first is None:
            mean, se = mean_se(values[-1])
            table.add([label, f"{pm(mean, se)} at {max(sizes)}", fmt(predicted, 8), "",
                       f"{OUT_OF_REGIME}: {regime.why}; {regime.need_text}", ""], INCONCLUSIVE,
                      NO_DRAWS, regime.decides_from)
            unfitted_rival(table, label, target.rival)
            return None
        if first:
            sizes, values = list(sizes)[first:], list(values)[first:]
            label = f"{label} (ell >= {sizes[0]}, the sizes in its regime)"
    bad = [ell for ell, v in zip(sizes, values) if not np.all(np.isfinite(v))
           or not np.isfinite(stats.mean_variance(v)[1])]
    if bad:
        why = (f"not fitted: a draw or its spread {OVERFLOW} at ell = "
               + ", ".join(map(str, bad)))
        table.add([label, "", fmt(predicted, 8), "", why, ""], INCONCLUSIVE, NO_DRAWS)
        unfitted_rival(table, label, target.rival)
        return None
    limit = extrapolated(sizes, values, target.powers)
    value_row(table, label, Estimate(limit.value, limit.se, limit.dof), predicted, fit_text(limit),
              target.judged, target.scale, target.rival)
    return limit


def exact_rows(table: Table, label: str, sizes, values: list[np.ndarray],
               expected: list[float], size_name: str = "ell") -> None:
    """Each size's mean against its exact mean, then the relative deviation of all sizes.

    The combined row estimates one relative bias δ (mean_ℓ = (1 + δ) expected_ℓ) by
    weighted least squares over the sizes; it is what a wrong formula shared by every size
    moves, and its ``detectable`` is relative.
    """
    ratios, weights, dofs = [], [], []
    for ell, v, e in zip(sizes, values, expected):
        mean, var, dof = stats.mean_variance(v)
        value_row(table, f"{label} at {size_name} = {ell}", Estimate(mean, var**0.5, dof), e,
                  f"mean over draws vs exact mean at this {size_name}")
        ratios.append(mean / e - 1)
        weights.append(e * e / var)
        dofs.append(dof)
    w = np.array(weights)
    delta = float(np.dot(w, ratios) / w.sum())
    se = float(w.sum() ** -0.5)
    a = (w / w.sum()) ** 2 / w          # Welch–Satterthwaite over the sizes
    dof = float(a.sum() ** 2 / np.sum(a**2 / np.array(dofs)))
    value_row(table, f"{label}, all sizes: relative deviation", Estimate(delta, se, dof), 0.0,
              "weighted mean of mean/exact - 1 over the sizes", scale=1.0)
