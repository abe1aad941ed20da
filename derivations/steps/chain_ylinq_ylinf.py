"""Step ``YlinQ-Ylinf``: the covariance identified, Σ_f ≈ Σ_G = θ₂ρ + (θ₁ − θ₂)I (docs/math.md §4).

Both are GΣ^{1/2}/√ℓ with one shared G. Σ_f − Σ_G = Σ_{k≥2} a_k ∘ ρ^{∘k} plus diagonal
terms of order ρ_jj − 1 = O(d_qk^{−1/2}): ‖·‖_F/√ℓ = O(ℓ^{−1/2}). The k = 2 term keeps a
rank-one part: uᵀ(Σ_f − Σ_G)u → s = yβ⁴/2 (``theory.spike``). The square roots do not
keep it rank one (Σ_G has a spread spectrum along u), so ‖Y^lin_Q − Y^lin_f‖ tends to
‖(Σ + s uuᵀ)^{1/2} − Σ^{1/2}‖ on L²(ρ), computed by two routes (``numerics.spike_norm``);
being of bounded Frobenius norm, the difference moves no moment in the limit.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp

from attnge import chain_values, judging, ledger_draws
from attnge import evidence as ev
from attnge import regimes as rg
from attnge.numerics import spike_norm, stats
from attnge.params import Params
from attnge.step import Step, Table, digits_agree, digits_text, fmt, pm
from attnge.theory import exponential as ex
from attnge.theory import spike
from attnge.theory.symbols import beta, positive_beta, y

ID = "YlinQ-Ylinf"
KEY = "Y_lin_Q->Y_lin_f"
SPIKE = "u^T (Sigma_f - Sigma_G) u"
SPIKE_ALONE = "||(Sigma_G + s uu^T)^1/2 - Sigma_G^1/2||"
POWERS = (1.0, 2.0)
"""Finite-size terms of the extrapolated means: smooth functions of the spectral measure along
u and of 1/d_qk (the spike, the spike alone) and the top singular value of a spike over a
noise of operator norm O(ℓ^{-1/2}) (the operator norm) move by O(ℓ^{-1}); their O(ℓ^{-1/2})
fluctuations have mean zero."""
MIN_DIGITS = 8
REGIME = 0.1
"""A size is in the operator norm's asymptotic regime when the rest of Σ_f − Σ_G shifts the
top singular value, on average over its draws, by at most this share of the spike alone (a
measured rule: it reads no prediction)."""


def latex() -> str:
    return (r"\Sigma_G = \theta_2 \rho + (\theta_1 - \theta_2) I,\quad u^\top(\Sigma_f - "
            r"\Sigma_G)u \to s = " + sp.latex(spike.strength()) + r",\quad \|Y^{lin}_Q - "
            r"Y^{lin}_f\| \to \|(\Sigma + s\,uu^\top)^{1/2} - \Sigma^{1/2}\|_{L^2(\rho)},\ "
            r"(\Sigma + s\,uu^\top)^{1/2} - \Sigma^{1/2} = \int_0^\infty "
            + sp.latex(spike.weight()) + r"\, w_t w_t^\top dt")


def _value(expr: sp.Expr, params: Params) -> float:
    return float(expr.subs({beta: positive_beta(params.beta), y: sp.Rational(str(params.y))}))


@lru_cache(maxsize=16)
def _routes(theta1: float, theta2: float, ratio: float, s: float) -> dict[str, float]:
    return {route: spike_norm.operator_limit(theta1, theta2, ratio, s, route)
            for route in spike_norm.ROUTES}


def limits(params: Params) -> tuple[float, dict[str, float]]:
    """(s, the operator-norm limit by each route) at the run's β and y."""
    s = _value(spike.strength(), params)
    return s, _routes(*ex.thetas(params.beta), params.y, s)


def derive(params: Params) -> dict[str, sp.Expr | str]:
    routes = limits(params)[1]
    return {"Sigma_G": r"\theta_2 \rho + (\theta_1 - \theta_2) I",
            "lim u^T (Sigma_f - Sigma_G) u": spike.strength(),
            "lim ||Y_lin_Q - Y_lin_f||": (r"\|(\Sigma + s\,uu^\top)^{1/2} - "
                                          rf"\Sigma^{{1/2}}\|_{{L^2(\rho)}} = "
                                          rf"{routes['integral']:.12g}"),
            "c(t)": spike.weight()}


def routes_table(params: Params) -> Table:
    """The operator-norm limit by both routes, and the rank-one value it is not."""
    s, routes = limits(params)
    t1 = ex.thetas(params.beta)[0]
    table = Table(f"lim ||Y_lin_Q - Y_lin_f|| by two routes (beta = {params.beta:g}, "
                  f"y = {params.y:g}, s = {s:.6g}; agree to >= {MIN_DIGITS} digits)",
                  ["route", "value", "digits against the integral route"])
    table.add(["integral: Nystrom kernel sqrt(c(t)c(r))<w_t, w_r>, g by MP quadrature",
               f"{routes['integral']:.12g}", "—"])
    digits = digits_agree(routes["jacobi"], routes["integral"])
    table.add(["jacobi: Jacobi matrix of MP_y, Sylvester equation for the root difference",
               f"{routes['jacobi']:.12g}", digits_text(digits)], digits >= MIN_DIGITS)
    table.add(["(not the limit) Sigma scalar along u: sqrt(theta1 + s) - sqrt(theta1)",
               f"{(t1 + s) ** 0.5 - t1 ** 0.5:.12g}", ""])
    return table


def operator_rows(table: Table, sw: ev.Sweep, limit: float, params: Params) -> None:
    """Judge ‖Y^lin_Q − Y^lin_f‖ against ``limit`` on the sizes of its regime.

    Its shift over the spike alone on the same draw (``Statistics.spike_alone``), the part
    that the rest of Σ_f − Σ_G adds to the top singular value, must fade. The sizes where it
    is at most ``REGIME`` of the spike alone make the regime (``derivations.regimes.Regime``;
    its need: the ℓ where the fitted decay of the shift reaches that); the row FAILs when the
    shift grows with ℓ.
    """
    sizes = sorted(sw)
    full = ev.per_size(sw, lambda m: m.differences[KEY].op)
    alone = [float(np.mean(v)) for v in ev.per_size(sw, lambda m: m.statistics.spike_alone)]
    mean_shift = [float(np.mean(f)) - a for f, a in zip(full, alone)]
    share = [v / a for v, a in zip(mean_shift, alone)]
    label = "||Y_lin_Q - Y_lin_f||, ell -> inf"
    rate = stats.fit_rate(sizes, mean_shift) if min(mean_shift) > 0 else None
    if rate is not None and rate.slope > rate.width(judging.at(judging.RATE_Z)):
        how = (f"the shift over the spike alone grows with ell: {fmt(mean_shift[-1], 3)} at "
               f"ell = {sizes[-1]}, slope {fmt(rate.slope, 3)} ± {fmt(rate.se, 2)}")
        table.add([label, pm(*ev.mean_se(full[-1])), fmt(limit, 8), "", how, ""], False)
        return
    need = None        # where the fitted decay brings the share to REGIME (None: no decay)
    if rate is not None and rate.slope < 0:
        need = int(math.ceil(sizes[-1] * (share[-1] / REGIME) ** (-1 / rate.slope) / 50) * 50)
    regime = rg.Regime(tuple(v <= REGIME for v in share),
                       f"the rest of Sigma_f - Sigma_G shifts it by "
                       f"{', '.join(fmt(v, 2) for v in share)} of the spike alone at ell = "
                       f"{', '.join(map(str, sizes))} (a size counts within {REGIME:g})",
                       max(need, sizes[-1]) if need else need, params.beta)
    ev.limit_row(table, label, sizes, full, ev.Extrapolation(limit, POWERS),
                 regime=rg.both(regime, rg.key_norms(params.beta, params.y, sizes)))


def check(params: Params) -> list[Table]:
    sw = ledger_draws.chain_sweep(params)
    s, routes = limits(params)
    limit_op = routes["integral"]
    sizes = sorted(sw)

    def keys(q: int = 1) -> rg.Regime:
        """Every row reads Σ_f, heavy in the keys' norms; q-th moments are of degree q in it."""
        return rg.key_norms(params.beta, params.y, sizes, q)

    values = ev.value_table("The spike and the operator norm, fitted to ell -> inf")
    ev.limit_row(values, f"{SPIKE}, ell -> inf", sizes,
                 ev.per_size(sw, lambda m: m.statistics.spike), ev.Extrapolation(s, POWERS),
                 regime=keys())
    ev.limit_row(values, f"{SPIKE_ALONE} on the draw's keys (s its own), ell -> inf", sizes,
                 ev.per_size(sw, lambda m: m.statistics.spike_alone),
                 ev.Extrapolation(limit_op, POWERS), regime=keys())
    operator_rows(values, sw, limit_op, params)
    norms = ev.rate_table("Norms of Y^lin_Q - Y^lin_f (shared G) against ell (mean over draws)",
                          params)
    ev.rate_row(norms, "||Y_lin_Q - Y_lin_f||_F / sqrt(ell)", params,
                ev.per_size(sw, lambda m: m.differences[KEY].frob),
                ev.Slope(-0.5, "agree", rival=ev.PLATEAU, claim=True),
                regime=keys())
    moments = ev.rate_table("Moment differences (Frobenius bound: slope -1/2)", params)
    ev.moment_rows(moments, sw, params, "Y_lin_Q", "Y_lin_f",
                   ev.Slope(-0.5, "at most", 0.1, rival=ev.PLATEAU),
                   regime=keys)
    means = Table("The spike, mean over draws",
                  ["ell", SPIKE, SPIKE_ALONE, "||Y_lin_Q - Y_lin_f||"])
    for ell, draws in sw.items():
        means.add([ell, *(pm(*ev.mean_se(np.array([get(m) for m in draws]))) for get in (
            lambda m: m.statistics.spike, lambda m: m.statistics.spike_alone,
            lambda m: m.differences[KEY].op))])
    return [chain_values.values_table(sw, params, "Y_lin_f", "Y^lin_f"), routes_table(params),
            values, norms, means, moments,
            ev.moment_bound_table(sw, "Y_lin_Q", "Y_lin_f", "frobenius")]


STEP = Step(
    id=ID,
    title="Covariance identified: Sigma_f ~ Sigma_G = theta2 rho + (theta1 - theta2) I",
    claim=("With a shared G, ||Y^lin_Q - Y^lin_f||_F/sqrt(ell) = O(ell^-1/2); the k = 2 Hadamard "
           "term leaves a rank-one spike u^T(Sigma_f - Sigma_G)u -> s = y b^4/2, and the "
           "operator norm tends to ||(Sigma + s uu^T)^1/2 - Sigma^1/2|| on L^2(rho) (not "
           "sqrt(theta1 + s) - sqrt(theta1): Sigma_G is not scalar along u), while the "
           "moments differ by O(ell^-1/2)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate,
    sweeps=("chain",),
    method=(chain_values.method("Y^lin_f") +
            "The operator-norm limit by two routes (a Nystrom kernel from the Stieltjes "
            "transform of rho; the Jacobi matrix of MP_y with a Sylvester equation), which "
            "must agree. On the shared draws, fitted to ell -> inf (ell^-1, ell^-2): "
            "u^T(Sigma_f - Sigma_G)u against s; the spike alone on the draw's keys, "
            "||(Sigma_G + s uu^T)^1/2 - Sigma_G^1/2|| (Lanczos on rho from u), against the "
            "limit; ||Y_lin_Q - Y_lin_f|| against the limit on the sizes where the rest of "
            "Sigma_f - Sigma_G shifts it by at most 10% of the spike alone (INCONCLUSIVE, naming "
            "the sizes, where fewer than three do). The normalised Frobenius norm of the "
            "difference and |m_q(Y^lin_Q) - m_q(Y^lin_f)| against ell with a fitted slope; a "
            "code sanity check (it holds by algebra): the Frobenius-to-moment bound on every "
            "draw."),
    failure=(chain_values.FAILURE +
             "the two routes of the limit apart, the spike, the spike alone or the operator "
             "norm fitted to ell -> inf more than 4 se from its limit, a shift over the spike "
             "alone that does not fade, a Frobenius slope away from -1/2, a "
             "moment difference decaying slower than ell^-1/2, or a bound violated."),
)
