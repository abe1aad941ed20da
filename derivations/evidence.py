"""Evidence tables shared by the steps that read the chain sweep (``derivations.sweep``).

A rate row fits log(mean over draws of a positive quantity) against log ℓ and judges
the slope by a rule:

- ``agree``:   |slope − predicted| ≤ max(4 se, tol)   (the rate is the predicted one)
- ``at most``: slope ≤ predicted + max(4 se, tol)     (at least as fast as a bound)
- ``at least``: slope ≥ predicted − max(4 se, tol)    (grows at least that fast)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from derivations.params import Params
from derivations.step import Table, fmt, pm, stouffer
from numerics import stats
from numerics.measure import DrawMeasurement

Sweep = dict[int, list[DrawMeasurement]]
IDENTITY_TOL = 1e-10      # relative residual of an exact identity (float64 rounding)
Z_MAX = 5.0
RATE_Z = 4.0


def mean_se(values: np.ndarray) -> tuple[float, float]:
    """Mean over draws and its standard error (0 with one draw)."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0


def per_size(sweep: Sweep, fn: Callable[[DrawMeasurement], float]) -> list[np.ndarray]:
    """fn of every draw, one array per size (in size order)."""
    return [np.array([fn(m) for m in sweep[ell]], dtype=float) for ell in sorted(sweep)]


def rate_table(title: str, params: Params, note: str = "") -> Table:
    return Table(title, ["quantity", *[f"ell={ell}" for ell in params.sizes],
                         "fitted slope", "predicted", "rule"], note=note)


def rate_row(table: Table, label: str, params: Params, values: list[np.ndarray],
             predicted: float, rule: str = "agree", tol: float = 0.1,
             judged: bool = True, limit: float | None = None) -> stats.Rate:
    """Add 'label: mean ± se per size, fitted slope ± se, predicted, rule' to a table.

    ``limit``: the slope the rule compares with, when it is not the predicted one (a rule
    weaker than the prediction, e.g. a bound that holds only for bounded norms).
    """
    limit = predicted if limit is None else limit
    cells, means, ses = [], [], []
    for v in values:
        mean, se = mean_se(v)
        cells.append(pm(mean, se))
        means.append(mean)
        ses.append(se)
    if min(means) <= 0:
        table.add([label, *cells, "undefined (a mean is 0)", fmt(predicted, 3), rule],
                  False if judged else None)
        return stats.Rate(float("nan"), float("nan"))
    rate = stats.fit_rate(params.sizes, means, ses if min(ses) > 0 else None)
    table.add_series(label, "ell", params.sizes, means, ses, rate.slope, rate.se, predicted)
    width = max(RATE_Z * rate.se, tol)
    if rule == "agree":
        ok = abs(rate.slope - limit) <= width
        text = f"|slope - ({limit:g})| <= {width:.2g}"
    elif rule == "at least":
        ok = rate.slope >= limit - width
        text = f"slope >= {limit:g} - {width:.2g}"
    else:
        ok = rate.slope <= limit + width
        text = f"slope <= {limit:g} + {width:.2g}"
    table.add([label, *cells, pm(rate.slope, rate.se), fmt(predicted, 3),
               text if judged else f"reported ({text})"], ok if judged else None)
    return rate


def identity_table(sweep: Sweep, names: list[str]) -> Table:
    """Exact identities: the largest relative residual over every size and draw."""
    table = Table(f"Exact identities (pass: relative residual <= {IDENTITY_TOL:g})",
                  ["identity", "max relative residual (all sizes, draws)"])
    for name in names:
        worst = max(m.identities[name] for draws in sweep.values() for m in draws)
        table.add([name, f"{worst:.2e}"], worst <= IDENTITY_TOL)
    return table


def rank_table(sweep: Sweep, key: str, predicted: int) -> Table:
    table = Table(f"Numerical rank of the difference {key} (singular values above "
                  "1e-6 s_1; pass: the predicted rank at every draw)",
                  ["ell", "ranks over draws", "predicted"])
    for ell in sorted(sweep):
        ranks = sorted({int(m.differences[key]["rank"]) for m in sweep[ell]})
        table.add([ell, ",".join(map(str, ranks)), predicted], ranks == [predicted])
    return table


def moment_rows(table: Table, sweep: Sweep, params: Params, a: str, b: str,
                predicted: float, rule: str, tol: float, judged: bool = True,
                limit: float | None = None) -> None:
    """|m_q(a) − m_q(b)|, q = 1..4, over the full spectrum and the bulk (top r removed)."""
    for r in sorted({0, params.remove_top}):
        for q in range(1, 5):
            values = per_size(sweep, lambda m, q=q, r=r:
                              abs(m.moments(a, r)[q - 1] - m.moments(b, r)[q - 1]))
            where = "full" if r == 0 else f"bulk (top {r} removed)"
            rate_row(table, f"|m_{q}({a}) - m_{q}({b})|, {where}", params, values,
                     predicted, rule, tol, judged, limit)


def moment_bound_table(sweep: Sweep, a: str, b: str, kind: str) -> Table:
    """The perturbation bounds hold on every draw (math.md §4).

    kind "frobenius": |Δm_q| ≤ 2q M^{2q−1} ‖a − b‖_F/√ℓ; kind "rank":
    |Δm_q| ≤ 2 rank(a − b) M^{2q}/ℓ; M = max(‖a‖, ‖b‖).
    """
    key = f"{a}->{b}"
    table = Table(f"Perturbation bound ({kind}) on every draw: |m_q({a}) - m_q({b})| <= bound",
                  ["q", "max over draws of |difference| / bound", "pass when"])
    for q in range(1, 5):
        worst = 0.0
        for ell, draws in sweep.items():
            for m in draws:
                M = np.sqrt(max(m.spectra[a][0], m.spectra[b][0]))
                diff = abs(m.moments(a)[q - 1] - m.moments(b)[q - 1])
                d = m.differences[key]
                if kind == "frobenius":
                    bound = 2 * q * M ** (2 * q - 1) * d["frob"]
                else:
                    bound = 2 * d["rank"] * M ** (2 * q) / ell
                worst = max(worst, diff / bound)
        table.add([q, fmt(worst, 4), "<= 1"], worst <= 1 + 1e-9)
    return table


def z_rows(table: Table, label: str, sizes: list[int], values: list[np.ndarray],
           expected: list[float], variances: list[np.ndarray] | None = None) -> None:
    """z-tests of per-size means against expected values, then their Stouffer combination.

    Without ``variances`` the standard error is the spread over draws; with them (the
    variance of each draw's estimate) the pooled √(Σ var)/n.
    """
    zs = []
    for k, (ell, v, e) in enumerate(zip(sizes, values, expected)):
        if variances is None:
            mean, se = mean_se(v)
        else:
            mean, se = stats.pool(list(v), list(variances[k]))
        if se == 0:
            table.add([label, ell, pm(mean, se), fmt(e, 8), "no standard error (1 draw)"])
            continue
        z = (mean - e) / se
        zs.append(z)
        table.add([label, ell, pm(mean, se), fmt(e, 8), fmt(z, 3)], abs(z) <= Z_MAX)
    if zs:
        combined = stouffer(zs)
        table.add([label, "all", "", "", f"{combined:.3g} (combined)"], abs(combined) <= Z_MAX)


def z_table(title: str) -> Table:
    return Table(f"{title} (pass: |z| <= {Z_MAX:g} at each size and combined)",
                 ["statistic", "ell", "measured ± se", "expected", "z"])


def rank_one_tables(sweep: Sweep, params: Params, a: str, b: str, shown: tuple[str, str],
                    operator_meaning: str) -> tuple[Table, Table, Table, Table]:
    """A rank-one step a → b: its rank, norms, rank-to-moment bound and moment differences.

    ``shown``: how a and b are written in labels; ``operator_meaning``: what the operator
    norm equals (it does not shrink).
    """
    key, diff = f"{a}->{b}", f"{shown[0]} - {shown[1]}"
    norms = rate_table(f"Norms of {diff} against ell (mean over draws)", params)
    rate_row(norms, f"||{diff}||_F / sqrt(ell)", params,
             per_size(sweep, lambda m: m.differences[key]["frob"]), -0.5, "agree")
    rate_row(norms, f"||{diff}|| (= {operator_meaning}, does not shrink)", params,
             per_size(sweep, lambda m: m.differences[key]["op"]), 0.0, "agree")
    moments = rate_table("Moment differences (rank-one bound 2 M^2q / ell: slope -1 while "
                         "the norm M stays bounded; judged against -1/2, since outliers "
                         "move M at moderate ell)", params)
    moment_rows(moments, sweep, params, a, b, -1.0, "at most", 0.1, limit=-0.5)
    return (rank_table(sweep, key, 1), norms, moment_bound_table(sweep, a, b, "rank"),
            moments)
