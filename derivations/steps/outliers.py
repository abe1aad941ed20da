"""Step ``outliers``: what makes the outliers of √ℓA⊥, where they sit, how they move.

A large score S_ij makes a large entry a = (e^{βS_ij − β²/2}/D_ii − 1)/√ℓ, a rank-one
spike a e_i e_jᵀ on top of a bulk with law ν∞. When a > a_c it makes one outlier at
λ(a) with λ m(λ)² = 1/a² (``theory.outliers``). The expected number of entries above a
is ℓ² P(S_ij > (log(1 + a√ℓ) + β²/2)/β) (``numerics.outliers``): it falls with ℓ (the
log-normal entries lose to the 1/√ℓ scaling) and rises steeply with β. Being O(1) in
number, they leave the limit law alone.

At finite d_qk the entry sits on a long query or key (r = ‖q_i‖²/d_qk, c = ‖k_j‖²/d_qk
above 1 by O(log ℓ/d_qk)), whose row and column of the bulk are larger than the rest and
lift the outlier (+8% at β = 1, y = 4, ℓ = 250); the entry's own row normaliser shrinks
the rest of its row by 1 − δ, δ = (1 + a√ℓ)/ℓ. The locations are judged against the
outlier given r, c and ℓ (``theory.outliers.conditional_location``), which is λ(a) at
r = c = 1 and ℓ = ∞, where every query and key tends as d_qk → ∞.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from attnge import evidence as ev
from attnge import judging, ledger_draws
from attnge import regimes as rg
from attnge.judging import INCONCLUSIVE, NO_DRAWS, OUT_OF_REGIME
from attnge.numerics import stats
from attnge.numerics.outliers import expected_entries_above
from attnge.params import Params
from attnge.step import Step, Table
from attnge.theory import outliers as th

ID = "outliers"
MARGIN = 5.0            # outliers counted above E(1 + MARGIN ℓ^{−2/3}): beyond the edge's
LOCATION_TOL = 0.05     # Tracy–Widom fluctuations
PROJECTION = (10**4, 10**5, 10**6, 10**7)
LOCATED = 8             # outliers to locate for a pooled location with a standard error
AT_EDGE = "outliers at the bulk edge E"     # the pooled location's rival
BETA_FACTORS = (0.75, 1.0, 1.25)


def latex() -> str:
    return (r"\lambda\, m_{\nu_\infty}(\lambda)^2 = a^{-2},\quad g(s) = "
            + sp.latex(th.jump_stieltjes()) + r",\quad \lambda(a) = s^2/a^2 \text{ at } "
            r"g(s) = a^{-2},\quad a_c = g(s^*)^{-1/2}")


def derive(params: Params) -> dict[str, sp.Expr | str]:
    s_star, E, a_c = th.edge_point(params.beta, params.y)
    return {"g(s)": th.jump_stieltjes(), "outlier of an entry a": r"\lambda = s^2/a^2,\ "
            r"g(s) = a^{-2}", "s*, E, a_c at the run's parameters":
            sp.Tuple(*[sp.Float(str(v), 12) for v in (s_star, E, a_c)])}


def level(ell: int, E: float) -> float:
    return E * (1 + MARGIN * ell ** (-2 / 3))


def regime(params: Params, sizes) -> rg.Regime:
    """Isolated spikes on a ν∞ bulk: the mass in its regime, the outliers O(1), not
    growing, and no two sharing a row or column (``derivations.regimes``); at β = 1.5
    dozens of them interact and the bulk around them has not reached ν∞, and at small
    d_qk a long key carries several."""
    return rg.both(rg.mass(params.beta, params.y, sizes),
                   rg.full(params.beta, params.y, sizes),
                   rg.isolated(params.beta, params.y, sizes))


def _undecided(table: Table, ell, reg: rg.Regime, width: int) -> None:
    table.add([ell, *[""] * (width - 2), f"{OUT_OF_REGIME}: {reg.why}; {reg.need_text}"],
              INCONCLUSIVE, NO_DRAWS, reg.decides_from)


def location_table(sw: ev.Sweep, params: Params, E: float) -> Table:
    table = Table("Where the outliers sit: the k-th largest s^2 of M0 against lambda(a_k | r_k, "
                  "c_k, ell) of the k-th largest entry (distinct rows and columns), given the "
                  "norms r, c of its query and key and its row's normaliser (lambda(a) at "
                  "r = c = 1, ell = inf), for predictions above "
                  f"E(1 + {MARGIN:g} ell^(-2/3)) (pass: mean relative error within "
                  f"max(t se, {LOCATION_TOL:g}) of 0, t the 4-sigma point of Student's t with "
                  f"n - 1 dof, which is what it detects; one outlier is not judged)",
                  ["ell", "outliers", "example (observed / predicted)",
                   "mean relative error ± se", "max |relative error|", "detectable"])
    reg = regime(params, sorted(sw))
    pooled, at_edge = [], []     # relative errors, and those of an outlier at the edge E
    for (ell, draws), inside in zip(sorted(sw.items()), reg.inside):
        if not inside:
            _undecided(table, ell, reg, len(table.columns))
            continue
        errors, example = [], ""
        for m in draws:
            predicted = [th.conditional_location(a, params.beta, params.y, r, c, ell)
                         for a, (r, c) in zip(m.top_entries, m.top_norms)]
            predicted = [p for p in predicted if p is not None and p > level(ell, E)]
            observed = m.spectra["M0"][:len(predicted)]
            errors += list(observed / np.array(predicted) - 1)
            at_edge += list(E / np.array(predicted) - 1)
            if predicted and not example:
                example = f"{observed[0]:.4g} / {predicted[0]:.4g}"
        pooled += errors
        if not errors:
            table.add([ell, 0, "", "", "", ""])
            continue
        _location_row(table, ell, errors, example)
    if pooled:
        _location_row(table, "all", pooled, "", judging.Rival(float(np.mean(at_edge)), AT_EDGE))
    elif any(reg.inside):
        per_draw = sum(expected_above_level(params, ell, E)
                       for ell, inside in zip(sorted(sw), reg.inside) if inside)
        draws = math.ceil(LOCATED / per_draw) if per_draw > 0 else judging.NO_DRAWS
        shown = f"{draws}" if draws < 10**6 else f"{draws:.2g}"      # 6.5e+11, not 12 digits
        need = (f"about {shown} draws per size would give {LOCATED}"
                if per_draw > 0 else "no outlier is expected at these sizes")
        table.add(["all", 0, "", "", "", f"no predicted outlier above the level in these "
                   f"draws: nothing tells the outliers from the bulk edge; {need}"],
                  INCONCLUSIVE, draws / params.draws)
        table.values.append({"quantity": "outlier location, mean relative error, all sizes",
                             "passed": INCONCLUSIVE, "rival": None,     # no outlier to place
                             "rival_name": AT_EDGE, "rules_out_rival": False})
    return table


def expected_above_level(params: Params, ell: int, E: float) -> float:
    """The expected number of outliers per draw above ``level(ell, E)``: of entries above the
    a whose outlier sits there (exact finite-d_qk score tail)."""
    a = th.entry_for_location(level(ell, E), params.beta, params.y)
    return expected_entries_above(a, ell, params.d_qk(ell), params.beta)


def _location_row(table: Table, ell, errors: list[float], example: str,
                  rival: judging.Rival | None = None) -> None:
    """Mean relative error of the locations, judged within max(t se, LOCATION_TOL) of 0, t the
    two-sided 4-sigma point of Student's t with n - 1 dof (one outlier's own error spreads by
    6-9% at these sizes, so a handful of them gives no reliable se; one gives none).
    ``rival``: the mean relative error of outliers sitting at the bulk edge instead, which
    the pooled row must have the power to reject (``judging.Rival.power``)."""
    n = len(errors)
    mean, se = ev.mean_se(np.array(errors))
    where = "all sizes" if ell == "all" else f"ell = {ell}"
    if n < 2:
        table.add([ell, n, example, ev.pm(mean, se), ev.fmt(abs(mean), 3),
                   "one outlier has no standard error: more draws decide"], INCONCLUSIVE)
        ev.unfitted_rival(table, f"outlier location, mean relative error, {where}", rival)
        return
    detectable = max(judging.detectable(se, n - 1, 1.0, judging.at(judging.VALUE_Z)), LOCATION_TOL)
    ok = abs(mean) <= detectable
    verdict, shown, extra, needs = ok, f"{100 * detectable:.2g}%", {}, None
    if rival is not None:
        z = judging.at(judging.VALUE_Z)
        power, why, extra = rival.judged(detectable, 0.0, n - 1, z)
        if ok and not power:    # the draws narrow t se, not the floor LOCATION_TOL
            needs = rival.draws_factor(detectable, 0.0, LOCATION_TOL, n - 1, z)
            if needs == judging.NO_DRAWS:
                why = (f"cannot rule out {rival.name} ({rival.value:.6g}): no number of draws "
                       f"does, its floor {LOCATION_TOL:g} being wider than "
                       f"{judging.RIVAL_SHARE:g} of the distance to it")
            verdict, shown = INCONCLUSIVE, f"{shown}; {why}"
    table.add([ell, n, example, ev.pm(mean, se),
               ev.fmt(float(np.max(np.abs(errors))), 3), shown], verdict, needs)
    table.values.append({"quantity": f"outlier location, mean relative error, {where}",
                         "estimate": mean, "se": se, "predicted": 0.0,
                         "detectable": detectable, "passed": verdict, **extra})


def count_table(sw: ev.Sweep, params: Params, E: float) -> Table:
    table = ev.z_table("How many: s^2 of M0 above E(1 + 5 ell^(-2/3)), summed over draws, "
                       "against the expected number of entries above the a that puts an "
                       "outlier there (Poisson: z from its exact tail)")
    zs, rse = [], []
    reg = regime(params, sorted(sw))
    for (ell, draws), inside in zip(sorted(sw.items()), reg.inside):
        if not inside:
            table.add(["count", ell, "", "", f"{OUT_OF_REGIME}: {reg.why}; {reg.need_text}",
                       ""], INCONCLUSIVE, NO_DRAWS, reg.decides_from)
            continue
        lam = level(ell, E)
        expected = len(draws) * expected_above_level(params, ell, E)
        observed = sum(int(np.sum(m.spectra["M0"] > lam)) for m in draws)
        if expected <= 0:
            table.add(["count", ell, str(observed), "0", "no outliers expected", ""],
                      observed == 0)
            continue
        se = float(np.sqrt(expected))                   # Poisson; its exact tail for z
        zs.append(ev.z_value(table, ["count", ell, str(observed), ev.fmt(expected, 4)],
                             f"count at ell = {ell}", ev.Estimate(observed, se, math.inf), expected,
                             z=stats.poisson_z(observed, expected)))
        rse.append(se / expected)
    if zs:
        ev.z_combined(table, ["count", "all", "", ""], "count", zs, rse)
    return table


def movement_table(params: Params) -> Table:
    sizes = list(params.sizes) + [L for L in PROJECTION if L > max(params.sizes)]
    table = Table("How they move: expected number of outliers per matrix (entries above a_c), "
                  f"y = {params.y:g}", ["beta", "a_c", *[f"ell={L:g}" for L in sizes]])
    for factor in BETA_FACTORS:
        b = params.beta * factor
        a_c = float(th.edge_point(b, params.y)[2])
        table.add([ev.fmt(b, 4), ev.fmt(a_c, 5),
                   *[ev.fmt(expected_entries_above(a_c, L, params.d_qk(L), b), 3)
                     for L in sizes]])
    return table


def share_table(sw: ev.Sweep, params: Params, E: float) -> Table:
    """The outliers' share of m_2 vanishes: O(1) values of size O(1) out of ℓ."""
    table = ev.rate_table("They do not move the limit law: the share of m_2 carried by the "
                          "values above E(1 + 5 ell^(-2/3)) (count O(1), so predicted slope -1)",
                          params)
    shares = [np.array([np.sum(s[s > level(ell, E)] ** 2) / np.sum(s**2)
                        for s in (m.spectra["M0"] for m in draws)]) for ell, draws in sw.items()]
    counts = [np.array([np.sum(m.spectra["M0"] > level(ell, E)) for m in draws], dtype=float)
              for ell, draws in sw.items()]
    if min(c.mean() for c in counts) > 0:
        ev.rate_row(table, "count per draw", params, counts,
                    ev.Slope(0.0, "at most", 0.25, judged=False))
    if min(v.mean() for v in shares) > 0:
        ev.rate_row(table, "share of m_2", params, shares, ev.Slope(-1.0, "at most", 0.25),
                    regime=regime(params, sorted(sw)))     # "count O(1)" is that regime
    else:
        table.add(["share of m_2 (no outliers at some size: nothing to move)",
                   *[ev.pm(*ev.mean_se(v)) for v in shares], "", "-1", ""])
    return table


def check(params: Params) -> list[Table]:
    sw = ledger_draws.chain_sweep(params)
    E = float(th.edge_point(params.beta, params.y)[1])
    return [location_table(sw, params, E), count_table(sw, params, E), movement_table(params),
            share_table(sw, params, E)]


STEP = Step(
    id=ID,
    title="Outliers of sqrt(ell) A_perp: one per large entry, at lambda(a), O(1) of them",
    claim=("Each entry a > a_c of sqrt(ell) A_perp makes one outlier at lambda(a), "
           "lambda m(lambda)^2 = 1/a^2 with m the Stieltjes transform of nu_infinity (at "
           "finite d_qk: given the norms r, c of its query and key, which tend to 1); the "
           "expected number is ell^2 P(S > (log(1 + a_c sqrt(ell)) + b^2/2)/b), which falls "
           "with ell and rises with b; they carry a vanishing share of the spectrum."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate,
    sweeps=("chain",),
    method=("On the shared draws: the largest entries of M0 in distinct rows and columns "
            "give predicted outliers (given their query's and key's norms), matched in order "
            "to the largest s^2; counts above "
            "E(1 + 5 ell^-2/3) against the expected number (exact finite-d_qk score tail, "
            "Poisson z); the expected count against ell and b; the outliers' share of m_2. "
            "The pooled location passes only with the power to reject its rival, outliers "
            f"at the bulk edge E (what it detects at most {judging.RIVAL_SHARE:g} of the distance "
            "to it), and draws without a predicted outlier are INCONCLUSIVE; either names the "
            "draws that would decide."),
    failure=("a mean relative location error beyond max(t se, 5 %) (t: Student's, n - 1 dof, "
             "4 sigma), a count more than 5 "
             "Poisson standard errors from its expectation, or the outliers' share of m_2 decaying "
             "slower than 1/ell."),
)
