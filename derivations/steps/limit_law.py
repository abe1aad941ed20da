"""Step ``limit-law``: the spectrum of √ℓA⊥ converges to ν∞ = ρ ⊠ MP₁ (math.md §5).

ν∞ is the free Poisson law of rate 1 and jump law ρ (the law of θ₁ − θ₂ + θ₂x, x ~ MP_y):
its free cumulants are the moments of ρ. Moments by the non-crossing recursion, checked
against Lagrange inversion of the functional equation and quadrature of the density; the
right edge by the Stieltjes equation, checked against a closed-form route.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import sympy as sp

from derivations import evidence as ev
from derivations import sweep
from derivations.params import Params
from derivations.step import Step, Table, digits_agree, digits_text
from numerics import limit_density
from theory import limit_law as ll
from theory import outliers
from theory.symbols import beta, positive_beta, y

ID = "limit-law"
K = 4
EDGE_DPS = 30
MIN_EDGE_DIGITS = 12
MIN_DENSITY_DIGITS = 10
DENSITY_NODES = 96      # Gauss–Legendre nodes per support interval (32 give 7 digits at y = 2)


def moments_symbolic(order: int = K) -> list[sp.Expr]:
    """m_1..m_order of ν∞ in β and y."""
    t1, t2 = ll.from_beta(beta)
    return ll.limit_moments(order, t1, t2, y)


def latex() -> str:
    m = moments_symbolic(2)
    return (r"\nu_\infty = \rho \boxtimes \mathrm{MP}_1,\ \kappa_n(\nu_\infty) = "
            r"\mathbb{E}_\rho t^n,\quad m_1 = " + sp.latex(m[0]) + r",\ m_2 = " + sp.latex(m[1]))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    out: dict[str, sp.Expr | str] = {f"m_{q + 1}": m for q, m in enumerate(moments_symbolic())}
    out["right edge"] = r"z(m^*),\ z'(m^*) = 0,\ z(m) = -1/m + \int t/(1 + tm)\,d\rho(t)"
    return out


def limit_values(params: Params) -> tuple[np.ndarray, float]:
    """(m_1..m_K, right edge) of ν∞ at the run's β and y, as floats."""
    at = {beta: positive_beta(params.beta), y: sp.Rational(str(params.y))}
    moments = np.array([float(m.subs(at)) for m in moments_symbolic()])
    return moments, float(outliers.edge_point(params.beta, params.y)[1])


def routes_table(params: Params) -> Table:
    b, yy = positive_beta(params.beta), sp.Rational(str(params.y))
    t1, t2 = ll.from_beta(b)
    table = Table("Moments and edge of nu_infinity by independent routes",
                  ["quantity", "value", "second route", "agreement"])
    first = ll.limit_moments(K, t1, t2, yy)
    second = ll.limit_moments_functional(K, t1, t2, yy)
    with mp.workdps(20):
        density = limit_density.density_moments(list(range(1, K + 1)), t1, t2, yy,
                                                 n_nodes=DENSITY_NODES, dps=20)
    for q in range(K):
        same = sp.simplify(first[q] - second[q]) == 0
        dig = digits_agree(density[q], mp.mpf(sp.N(first[q], 30)))
        table.add([f"m_{q + 1}", mp.nstr(mp.mpf(sp.N(first[q], 20)), 15),
                   "functional equation (exact); density quadrature",
                   f"{'equal' if same else 'DIFFERENT'}; {digits_text(dig)} digits"],
                  same and dig >= MIN_DENSITY_DIGITS)
    with mp.workdps(EDGE_DPS):
        stieltjes_edge = limit_density.right_edge(t1, t2, yy, dps=EDGE_DPS)
        closed_edge = outliers.edge_point(params.beta, params.y, EDGE_DPS)[1]
        dig = digits_agree(stieltjes_edge, closed_edge)
        table.add(["right edge E", mp.nstr(stieltjes_edge, 20),
                   "closed-form Stieltjes transform of MP_y", f"{digits_text(dig)} digits"],
                  dig >= MIN_EDGE_DIGITS)
        table.add(["MP surrogate edge 4 theta1", mp.nstr(4 * (mp.e ** (mp.mpf(b.p) ** 2
                                                                      / b.q**2) - 1), 20),
                   "", f"ratio E/(4 theta1) = {mp.nstr(stieltjes_edge / (4 * (mp.e ** (mp.mpf(b.p) ** 2 / b.q**2) - 1)), 8)}"])
    return table


def check(params: Params) -> list[Table]:
    sw = sweep.chain_sweep(params)
    nu, edge = limit_values(params)
    rates = ev.rate_table("Convergence of sqrt(ell) A_perp to nu_infinity: |m_q - m_q(nu)| per "
                          "draw, and the bulk edge (leading order: slope -1 for moments, -2/3 "
                          "for the edge)", params)
    top = params.remove_top
    for r in sorted({0, top}):
        where = "full" if r == 0 else f"bulk (top {r} removed)"
        for q in range(1, K + 1):
            ev.rate_row(rates, f"|m_{q}(M0) - m_{q}(nu)|, {where}", params,
                        ev.per_size(sw, lambda m, q=q, r=r: abs(m.moments("M0", r)[q - 1]
                                                                 - nu[q - 1])),
                        -0.5, "at most", 0.1)
    ev.rate_row(rates, f"|lambda_{top + 1}(M0) - E| (bulk edge)", params,
                ev.per_size(sw, lambda m: abs(m.spectra["M0"][top] - edge)),
                -2 / 3, "at most", 0.2)
    largest = max(sw)
    mp_moments = [float(v) for v in ll.mp_surrogate_moments(
        K, sp.exp(positive_beta(params.beta) ** 2) - 1)]
    summary = Table(f"At ell = {largest}: moments of sqrt(ell) A_perp against nu_infinity and the "
                    "Marchenko-Pastur surrogate theta1 MP_1",
                    ["moment", "full ± se", "bulk ± se", "nu_infinity", "MP surrogate",
                     "rel. error to nu (full)", "rel. error to MP (full)"])
    for q in range(K):
        full = ev.mean_se(np.array([m.moments("M0")[q] for m in sw[largest]]))
        bulk = ev.mean_se(np.array([m.moments("M0", top)[q] for m in sw[largest]]))
        summary.add([f"m_{q + 1}", ev.pm(*full), ev.pm(*bulk), ev.fmt(nu[q], 8),
                     ev.fmt(mp_moments[q], 8), ev.fmt(full[0] / nu[q] - 1, 3),
                     ev.fmt(full[0] / mp_moments[q] - 1, 3)])
    full = np.array([np.mean([m.moments("M0")[q] for m in sw[largest]]) for q in range(K)])
    summary.note = (f"The moments of the full pipeline agree with nu_infinity to within "
                    f"{np.max(np.abs(full / nu - 1)):.1%} at ell = {largest} (and converge at the "
                    f"rates above); they miss the Marchenko-Pastur surrogate by up to "
                    f"{np.max(np.abs(full / np.array(mp_moments) - 1)):.0%}.")
    return [routes_table(params), rates, summary]


STEP = Step(
    id=ID,
    title="The limit law nu_infinity = rho [x] MP_1 and the convergence of sqrt(ell) A_perp",
    claim=("The squared singular values of sqrt(ell) A_perp converge to nu_infinity, the free "
           "Poisson law with jump law rho (theta1 - theta2 + theta2 x, x ~ MP_y): m_1 = theta1, "
           "m_2 = 2 theta1^2 + y theta2^2, ...; the bulk edge converges to the right edge E of "
           "nu_infinity."),
    latex=latex,
    derive=derive,
    check=check,
    validate=sweep.validate,
    method=("Moments by two symbolic routes and by quadrature of the density; the edge by the "
            "Stieltjes equation with quadrature of rho and by the closed-form transform of MP_y; "
            "on the shared draws, |m_q(M0) - m_q(nu)| (full and bulk) and the bulk edge gap "
            "against ell with fitted slopes; a summary at the largest size against nu_infinity "
            "and the MP surrogate."),
    failure=("routes disagreeing (moments not equal, fewer than 10 digits from the density or "
             "12 for the edge), or a moment error or the edge gap decaying slower than "
             "ell^-1/2."),
)
