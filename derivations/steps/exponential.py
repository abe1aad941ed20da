"""Step ``exponential``: the Hermite and Taylor expansions of the exponential (docs/math.md §2).

Claim: e^{βx − β²/2} = Σ_k β^k He_k(x)/k!, θ₁ = E f(χ)² = e^{β²} − 1,
θ₂ = (E f′(χ))² = β², θ₁ − θ₂ = Σ_{k≥2} β^{2k}/k!. Checked against mpmath quadrature of
the defining Gaussian integrals and against the entries of sampled score matrices.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import sympy as sp

from attnge import evidence as ev
from attnge import judging, ledger_draws, parallel
from attnge.numerics import stats
from attnge.numerics.reference import gaussian_integral, hermite_e
from attnge.numerics.sampling import draw_rng, sample_scores
from attnge.params import Params
from attnge.step import Step, Table, digits_agree, digits_text, fmt, pm
from attnge.theory import exponential as ex
from attnge.theory.symbols import He, beta, d_qk, k, positive_beta, x

ID = "exponential"
DPS = 30                 # digits of the quadrature route
MIN_DIGITS = 25          # agreement required
MAX_ORDER = 12           # Hermite and Taylor orders checked
EXTRA_BETAS = (0.5, 2.0)  # besides the run's β
Z_MAX = judging.Z_MAX         # sampled moments: |measured − exact| ≤ Z_MAX standard errors
REMAINDER_ORDERS = (1, 2, 4, 8)
DEGREE = {"E f(S)^2": 2, "E S f(S)": 1}   # the power of e^{βS} that carries each moment
TAYLOR_RADIUS = 3


def latex() -> str:
    series = sp.Sum(beta**k * He(k, x) / sp.factorial(k), (k, 0, sp.oo))
    return (sp.latex(sp.Eq(ex.target("g"), series))
            + r",\quad \theta_1 = \mathbb{E} f(\chi)^2 = " + sp.latex(ex.theta1())
            + r",\quad \theta_2 = (\mathbb{E} f'(\chi))^2 = " + sp.latex(ex.theta2())
            + r",\quad \theta_1 - \theta_2 = " + sp.latex(ex.parseval_series(2)))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    n = sp.Symbol("n", integer=True, nonnegative=True)
    b = positive_beta(params.beta)
    out: dict[str, sp.Expr | str] = {
        f"Hermite coefficient a_{j} of f": ex.hermite_coefficient(j, "f") for j in range(5)}
    out.update({f"Taylor coefficient t_{j} of f": ex.taylor_coefficient(j, "f")
                for j in range(3)})
    out["theta1"] = ex.theta1()
    out["theta2"] = ex.theta2()
    out["theta1 - theta2"] = ex.nonlinear_variance()
    out[f"theta1, theta2 at beta = {params.beta:g}"] = sp.Tuple(
        ex.theta1().subs(beta, b), ex.theta2().subs(beta, b))
    out["Hermite remainder bound r_n"] = beta ** (2 * n + 2) * sp.exp(beta**2) \
        / sp.factorial(n + 1)
    out["E f(S)^2 at finite d_qk"] = ex.score_moments(d_qk)["E f(S)^2"][0]
    return out


def _betas(params: Params) -> list[float]:
    return [params.beta] + [b for b in EXTRA_BETAS if b != params.beta]


def _value(expr: sp.Expr, b: float) -> mp.mpf:
    """A SymPy expression in β evaluated at b (exact rational) to the working precision."""
    return mp.mpf(sp.N(expr.subs(beta, positive_beta(b)), mp.mp.dps))


def _hermite_by_quadrature(func, n: int, center: mp.mpf) -> mp.mpf:
    """a_n = E[h(χ) He_n(χ)]/n! by quadrature."""
    return gaussian_integral(lambda s: func(s) * hermite_e(n, s), DPS, center) / mp.factorial(n)


def coefficient_table(params: Params) -> Table:
    """Hermite and Taylor coefficients against quadrature and numeric differentiation."""
    table = Table(f"Coefficients vs mpmath at {DPS} digits (pass: ≥ {MIN_DIGITS} digits)",
                  ["beta", "coefficients", "second route", "min digits"])
    for b in _betas(params):
        with mp.workdps(DPS + 5):
            B = mp.mpf(positive_beta(b).p) / positive_beta(b).q
            g = lambda s: mp.exp(B * s - B * B / 2)  # noqa: E731
            rows = {
                f"Hermite of g = e^(bx-b^2/2), k <= {MAX_ORDER}": (
                    "quadrature E[g He_k]/k!",
                    [(_hermite_by_quadrature(g, n, B), ex.hermite_coefficient(n, "g"))
                     for n in range(MAX_ORDER + 1)]),
                "Hermite of f = g - 1, k <= 2": (
                    "quadrature E[f He_k]/k!",
                    [(_hermite_by_quadrature(lambda s: g(s) - 1, n, B),
                      ex.hermite_coefficient(n, "f")) for n in range(3)]),
                "Hermite of e^(bx), k <= 2": (
                    "quadrature E[e^(bx) He_k]/k!",
                    [(_hermite_by_quadrature(lambda s: mp.exp(B * s), n, B),
                      ex.hermite_coefficient(n, "exp")) for n in range(3)]),
                f"Taylor of f, k <= {MAX_ORDER}": (
                    "mpmath.taylor (numeric derivatives)",
                    list(zip(mp.taylor(lambda s: g(s) - 1, 0, MAX_ORDER),
                             ex.taylor_coefficients(MAX_ORDER, "f")))),
            }
            if b != params.beta:  # the other β: the full Hermite table only
                rows = dict(list(rows.items())[:1])
            for what, (route, pairs) in rows.items():
                digits = min(digits_agree(num, _value(sym, b)) for num, sym in pairs)
                table.add([fmt(b), what, route, digits_text(digits)],
                          digits >= MIN_DIGITS)
    return table


def theta_table(params: Params) -> Table:
    """θ₁, θ₂, θ₁ − θ₂ and the series identities."""
    table = Table(f"theta1, theta2 vs quadrature at {DPS} digits (pass: ≥ {MIN_DIGITS} digits)",
                  ["beta", "quantity", "symbolic", "quadrature", "digits"])
    for b in _betas(params):
        with mp.workdps(DPS + 5):
            B = mp.mpf(positive_beta(b).p) / positive_beta(b).q
            f = lambda s: mp.exp(B * s - B * B / 2) - 1  # noqa: E731
            quads = {
                "theta1 = E f^2": gaussian_integral(lambda s: f(s) ** 2, DPS, 2 * B),
                "theta2 = (E f')^2": gaussian_integral(lambda s: B * (f(s) + 1), DPS, B) ** 2,
                "theta1 - theta2 = E (f - b x)^2":
                    gaussian_integral(lambda s: (f(s) - B * s) ** 2, DPS, 2 * B),
            }
            symbolic = dict(zip(quads, (ex.theta1(), ex.theta2(), ex.nonlinear_variance())))
            for name, quad in quads.items():
                value = _value(symbolic[name], b)
                digits = digits_agree(quad, value)
                table.add([fmt(b), name, mp.nstr(value, 20), mp.nstr(quad, 20),
                           digits_text(digits)], digits >= MIN_DIGITS)
    for name, holds in ex.series_identities().items():
        table.add(["all", name, "proved (SymPy)" if holds else "FALSE", "", ""], holds)
    return table


def remainder_table(params: Params) -> Table:
    """Truncation remainders: exact, by quadrature, their bounds and the tightness."""
    table = Table("Truncation remainders (pass: quadrature agrees and remainder ≤ bound)",
                  ["series", "order n", "remainder (exact)", "quadrature", "bound",
                   "tightness"])
    b = params.beta
    with mp.workdps(DPS + 5):
        B = mp.mpf(positive_beta(b).p) / positive_beta(b).q
        g = lambda s: mp.exp(B * s - B * B / 2)  # noqa: E731
        for n in REMAINDER_ORDERS:
            coeffs = [_value(ex.hermite_coefficient(j, "f"), b) for j in range(n + 1)]
            f_n = lambda s: sum(c * hermite_e(j, s) for j, c in enumerate(coeffs))  # noqa: E731
            quad = gaussian_integral(lambda s: (g(s) - 1 - f_n(s)) ** 2, DPS, 2 * B)
            exact = _value(ex.hermite_remainder(n), b)
            bound = _value(ex.hermite_remainder_bound(n), b)
            ok = digits_agree(quad, exact) >= MIN_DIGITS - 5 and exact <= bound
            table.add(["Hermite, E(f - f_n)^2", n, mp.nstr(exact, 12), mp.nstr(quad, 12),
                       mp.nstr(bound, 12), fmt(float(exact / bound), 4)], ok)
        R = TAYLOR_RADIUS
        taylor = [_value(c, b) for c in ex.taylor_coefficients(max(REMAINDER_ORDERS), "g")]
        grid = [R * mp.mpf(i) / 200 for i in range(-200, 201)]
        for n in REMAINDER_ORDERS:
            worst = max(abs(g(s) - mp.polyval(taylor[n::-1], s)) for s in grid)
            bound = _value(ex.taylor_remainder_bound(n, R), b)
            table.add([f"Taylor, sup over |x| <= {R}", n, "", mp.nstr(worst, 12),
                       mp.nstr(bound, 12), fmt(float(worst / bound), 4)], worst <= bound)
    return table


def _entry_moments(ell: int, d: int, b: float, seed: int, draw: int) -> dict:
    """One draw's two-way means of f(S)² and S f(S) over its entries, with their variances."""
    S = sample_scores(ell, d, draw_rng(seed, ID, ell, draw)).S
    F = np.expm1(b * S - b * b / 2)
    return {"E f(S)^2": stats.two_way_mean(F * F), "E S f(S)": stats.two_way_mean(S * F)}


def sampled_table(params: Params) -> Table:
    """Entries of sampled score matrices: E f(S)², E S f(S) vs exact finite-d_qk values."""
    table = Table("Sampled entries vs exact finite-d_qk moments (pass: |z| ≤ "
                  f"{judging.at(Z_MAX):.3g}; detectable: the relative error of the exact value "
                  "the test detects); the "
                  "limits are theta1 and beta",
                  ["moment", "ell", "d_qk", "measured ± se", "exact at d_qk", "limit",
                   "measured - limit", "z", "detectable"])
    b = params.beta
    moments = ex.score_moments(d_qk)
    measured: dict[str, list[tuple[float, float]]] = {name: [] for name in moments}
    tasks = [(ell, params.d_qk(ell), b, params.seed, draw) for ell in params.sizes
             for draw in range(params.draws)]
    found = dict(parallel.measured(_entry_moments, tasks))
    for ell in params.sizes:
        per_draw: dict[str, list[tuple[float, float]]] = {name: [] for name in moments}
        for i, task in enumerate(tasks):
            if task[0] == ell:
                for name, value in found[i].items():
                    per_draw[name].append(value)
        for name in moments:
            est, var = zip(*per_draw[name])
            measured[name].append(stats.pool(list(est), list(var)))
    for name, (exact_expr, limit_expr) in moments.items():
        zs, rse = [], []
        limit = float(limit_expr.subs(beta, positive_beta(b)))
        for ell, (mean, se) in zip(params.sizes, measured[name]):
            d = params.d_qk(ell)
            exact = float(exact_expr.subs({beta: positive_beta(b), d_qk: d}))
            untested = ev.tail_untested(DEGREE[name], b, ell * ell * params.draws)
            z = ev.z_value(table, [name, ell, d, pm(mean, se), fmt(exact, 8), fmt(limit, 8),
                                   fmt(mean - limit, 3)], f"{name} at ell = {ell}",
                           ev.Estimate(mean, se, math.inf), exact, untested=untested)
            if untested is None:
                zs.append(z)
                rse.append(se / abs(exact))
        if zs:
            ev.z_combined(table, [name, "all", "", "", "", "", ""], name, zs, rse)
    return table


def check(params: Params) -> list[Table]:
    return [coefficient_table(params), theta_table(params), remainder_table(params),
            sampled_table(params)]


def validate(params: Params) -> None:
    params.require_d_qk(4 * params.beta**2, "E f(S)^2")
    ledger_draws.validate(params, ledger_draws.SAMPLE_MATRICES)


STEP = Step(
    id=ID,
    title="The exponential: Hermite and Taylor coefficients, theta1 and theta2",
    claim=("In the probabilists' Hermite basis e^{bx - b^2/2} = sum_k b^k He_k(x)/k!; for "
           "f = e^{bx - b^2/2} - 1 and a standard Gaussian chi, theta1 = E f^2 = e^{b^2} - 1, "
           "theta2 = (E f')^2 = b^2, and the nonlinear remainder theta1 - theta2 = "
           "sum_{k>=2} b^{2k}/k!; the entries of sampled score matrices have these moments "
           "in the limit."),
    latex=latex,
    derive=derive,
    check=check,
    validate=validate,
    method=(f"Hermite coefficients k <= {MAX_ORDER} at the run's beta and beta in "
            f"{EXTRA_BETAS} against mpmath Gauss-Legendre quadrature of E[h He_k]/k! at "
            f"{DPS} digits; Taylor coefficients against mpmath numeric derivatives; theta1, "
            "theta2 and the truncation remainders against quadrature; E f(S_ij)^2 and "
            "E S_ij f(S_ij) over the entries of sampled score matrices at each size against "
            "their exact values at finite d_qk (two-way jackknife standard errors). The "
            "exact values approach the limits at rate d_qk^{-1}."),
    failure=(f"fewer than {MIN_DIGITS} digits of agreement, a remainder above its bound, or "
             f"a sampled moment more than {Z_MAX:g} standard errors from its exact value "
             "(at one size or combined over sizes)."),
)
