"""Step ``multi-head-law``: h heads, √(n/h)A⊥ → ν_{∞,h} = ρ(1/γ_K) ⊠ MP_{1/h} (docs/math.md
§7).

A = [A_1, …, A_h] (n × hn), γ_K = h d_K/n. Moments of ν_{∞,h} by the stated free product
(S-transforms) and by the Gaussian matrix model (free cumulants), checked against each other
exactly and against quadrature of the density; the right edge by walking up from the jump law
and by a double root of the law's algebraic curve. The sampled spectra judge the values: m₁
against its exact mean at each n, m₁..m₄ and the bulk edge fitted to n → ∞; s₁(A)/√h → 1 and
‖A‖_F²/h → e^{β²}; the same law for heads that share one key (multi-query). The claim is
the bulk's m₂: the step PASSes only where it would have rejected h i.i.d. surrogates
θ₁·MP_{1/h} (θ₂ = 0).
"""

from __future__ import annotations

from functools import lru_cache

import mpmath as mp
import numpy as np
import sympy as sp

from attnge import evidence as ev
from attnge import heads_draws, judging
from attnge import regimes as rg
from attnge.fits import (
    BULK_POWERS,
    CLIP_TOP,
    EDGE_POWERS,
    EDGE_SLOPE,
    FULL_POWERS,
    MOMENT_SLOPE,
    exact_m1,
    laws,
    powers_text,
    rates_table,
    regimes,
)
from attnge.judging import INCONCLUSIVE, MORE_NODES, NO_DRAWS
from attnge.numerics import multi_head_law as mhl
from attnge.params import Params
from attnge.step import Step, Table, digits_agree, digits_text
from attnge.theory import exponential as ex
from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh
from attnge.theory.symbols import GAMMA_K, THETA1, THETA2, H, positive_beta

ID = "multi-head-law"
K = 4
EDGE_DPS = 30
MIN_EDGE_DIGITS = 20
DENSITY_DPS = 10
MIN_DENSITY_DIGITS = 8


def gamma_k(params: Params) -> sp.Expr:
    """γ_K = h d_K/n = h/y (d_K = n/y per head)."""
    return params.heads / sp.Rational(str(params.y))


def sanity_m2() -> sp.Expr:
    """m₂(ν_{∞,h}) = (1 + 1/h)θ₁² + θ₂²/γ_K (docs/math.md §7)."""
    return (1 + 1 / H) * THETA1**2 + THETA2**2 / GAMMA_K


def latex() -> str:
    m = mh.law_moments("attention", 2, THETA1, THETA2, H, GAMMA_K)
    return (r"\nu_{\infty,h} = \rho(1/\gamma_K) \boxtimes \mathrm{MP}_{1/h},\quad m_1 = "
            + sp.latex(m[0]) + r",\ m_2 = " + sp.latex(sp.factor(m[1])))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    routes(params.beta, params.y, params.heads)
    m = mh.law_moments("attention", K, THETA1, THETA2, H, GAMMA_K)
    out: dict[str, sp.Expr | str] = {f"m_{q + 1}": sp.factor(v) for q, v in enumerate(m)}
    out["gamma_K"] = r"h d_K / n = " + sp.latex(gamma_k(params))
    return out


@lru_cache(maxsize=4)
def routes(b_value: float, y_value: float, heads: int) -> dict:
    """The moments, density moments and edge of ν_{∞,h} by every route."""
    stated, matrix = laws(b_value, y_value, heads)
    first, second = mh.moments(stated, K, "stated"), mh.moments(matrix, K, "matrix")
    t1, t2 = ll.from_beta(positive_beta(b_value))
    sanity = sanity_m2().subs({THETA1: t1, THETA2: t2, H: heads,
                               GAMMA_K: heads / sp.Rational(str(y_value))})
    with mp.workdps(DENSITY_DPS + 5):
        try:
            density = mhl.density_moments([1, 2], matrix, dps=DENSITY_DPS)
        except ArithmeticError as exc:   # the quadrature's 1024 nodes did not settle (seen
            density = str(exc)           # at beta = 1.5, y = 16, h = 2): the routes table says so
    with mp.workdps(EDGE_DPS):
        edge = mhl.right_edge(stated, dps=EDGE_DPS)
        curve = mhl.polynomial_edge(matrix, dps=EDGE_DPS)
    return {"moments": [(mp.mpf(sp.N(a, 30)), sp.expand(a - b) == 0) for a, b in
                        zip(first, second)],
            "density": density, "sanity": [sp.expand(m - sanity) == 0 for m in
                                          (first[1], second[1])],
            "edge": (edge, curve), "values": [float(a) for a in first]}


def routes_table(params: Params) -> Table:
    found = routes(params.beta, params.y, params.heads)
    table = Table(f"Moments and edge of nu_(inf,h) (h = {params.heads}, gamma_K = "
                  f"{float(gamma_k(params)):.6g}) by independent routes",
                  ["quantity", "value", "second route", "agreement"])
    for q, (value, same) in enumerate(found["moments"]):
        cells = [f"m_{q + 1}", mp.nstr(value, 15), "Gaussian matrix model (free cumulants)"]
        ok, needs = same, None
        text = "equal" if same else "DIFFERENT"
        density = found["density"]
        if isinstance(density, str):        # the quadrature of m_1, m_2 did not settle
            if q < 2:
                cells[2] += "; density quadrature"
                text += f"; quadrature undecided ({density}: {MORE_NODES})"
                ok, needs = (INCONCLUSIVE, NO_DRAWS) if ok else (ok, None)
        elif q < len(density):
            dig = digits_agree(density[q], value)
            cells[2] += "; density quadrature"
            text += f"; {digits_text(dig)} digits"
            ok = ok and dig >= MIN_DENSITY_DIGITS
        table.add(cells + [text], ok, needs)
    table.add(["m_2 = (1 + 1/h) theta1^2 + theta2^2/gamma_K", mp.nstr(found["moments"][1][0], 15),
               "both routes", "holds" if all(found["sanity"]) else "FAILS"], all(found["sanity"]))
    edge, curve = found["edge"]
    dig = digits_agree(curve, edge)
    table.add(["right edge E_h", mp.nstr(edge, 20), "double root of the algebraic curve",
               f"{digits_text(dig)} digits"], dig >= MIN_EDGE_DIGITS)
    return table


def limit_values(params: Params) -> tuple[np.ndarray, float]:
    """(m_1..m_K, right edge) of ν_{∞,h}, as floats."""
    found = routes(params.beta, params.y, params.heads)
    return np.array(found["values"]), float(found["edge"][0])


def surrogate_m2(params: Params) -> judging.Rival:
    """The rival of the law's claim: h i.i.d. surrogates, θ₁·MP_{1/h} (θ₂ = 0), whose
    m₂ = (1 + 1/h)θ₁² misses ν_{∞,h}'s by θ₂²/γ_K."""
    theta1 = ex.thetas(params.beta)[0]
    m2 = mh.law_moments("attention", 2, theta1, 0, params.heads, gamma_k(params))[1]
    return judging.Rival(float(m2), f"{params.heads} i.i.d. surrogates theta1 "
                                    f"MP_1/{params.heads}, m_2")


def _values(table: Table, draws: dict, params: Params, nu: np.ndarray, edge: float,
            label: str, full: bool) -> None:
    """m₁ against its exact mean; the bulk's m₁..m₄ fitted to n → ∞; with ``full`` (the
    step's own sweep), the full spectrum's m₁..m₄ and the bulk edge too, and the bulk's m₂
    is the claim that must reject h i.i.d. surrogates (``surrogate_m2``). The fits keep to
    their regimes (the single head's, ``fits.regimes``, for h heads of n tokens)."""
    sizes = sorted(draws)
    reg = regimes(params, sizes, params.heads)
    per = lambda fn: ev.per_size(draws, fn)  # noqa: E731
    ev.exact_rows(table, f"m_1({label}), full", sizes, per(lambda d: d.moments(1)[0]),
                  [exact_m1(params, n) for n in sizes], "n")
    if full:
        for q in range(1, K + 1):
            ev.limit_row(table, f"m_{q}({label}), full, n -> inf", sizes,
                         per(lambda d, q=q: d.moments(K)[q - 1]),
                         ev.Extrapolation(nu[q - 1], FULL_POWERS), regime=reg.full)
    rival = surrogate_m2(params) if full else None
    for q in range(1, K + 1):
        ev.limit_row(table, f"m_{q}({label}), bulk (top {reg.clip} clipped), n -> inf", sizes,
                     per(lambda d, q=q: d.clipped(K, min(reg.clip, d.eigs.size - 1))[q - 1]),
                     ev.Extrapolation(nu[q - 1], BULK_POWERS, rival=rival if q == 2 else None),
                     regime=reg.bulk)
    if full:
        r = reg.edge_cut
        ev.limit_row(table, f"bulk edge lambda_{r + 1}({label}), n -> inf", sizes,
                     per(lambda d: d.eigs[min(r, d.eigs.size - 1)]),
                     ev.Extrapolation(edge, EDGE_POWERS), regime=reg.edge)


def check(params: Params) -> list[Table]:
    law = heads_draws.law_sweep(params)
    sizes, h = sorted(law), params.heads
    nu, edge = limit_values(params)
    shown = f"sqrt(n/{h}) A_perp"
    values = ev.value_table(f"Values of nu_(inf,{h}) from the sampled spectra of {shown}, "
                            f"{h} independent heads of n = ell // {h} tokens")
    _values(values, law, params, nu, edge, shown, True)
    perron = ev.value_table(f"s_1(A)/sqrt(h) and ||A||_F^2/h, A = [A_1 .. A_{h}]")
    frob = ev.per_size(law, lambda d: d.frob2 / h)
    ev.exact_rows(perron, "||A||_F^2/h", sizes, frob, [1 + exact_m1(params, n) for n in sizes],
                  "n")
    limit = float(sp.exp(positive_beta(params.beta) ** 2))
    mass = rg.mass(params.beta, params.y, sizes)
    ev.limit_row(perron, "||A||_F^2/h, n -> inf", sizes, frob, ev.Extrapolation(limit, FULL_POWERS),
                 regime=mass)
    ev.limit_row(perron, "s_1(A)/sqrt(h), n -> inf", sizes,
                 ev.per_size(law, lambda d: d.s1 / np.sqrt(h)), ev.Extrapolation(1.0, FULL_POWERS),
                 regime=mass)
    tables = [routes_table(params), values, perron]
    if h > 1:
        mqa = ev.value_table(f"Multi-query: the {h} heads share one key; the same law "
                             f"nu_(inf,{h}) ({params.draws} draws at n_min/2 and the three "
                             "smallest n; m_1 and the bulk)")
        _values(mqa, heads_draws.mqa_sweep(params), params, nu, edge, f"{shown}, one key",
                False)
        tables.append(mqa)
    reg = regimes(params, sizes, h)
    rates = rates_table(params, law, nu, edge, shown, f"nu_(inf,{h})", "M", "n",
                        reg.every, reg.edge_cut)
    return tables + [rates]


STEP = Step(
    id=ID,
    title="Multi-head attention: sqrt(n/h) [A_1..A_h]_perp -> rho(1/gamma_K) [x] MP_1/h",
    claim=("With h heads of n tokens and key width d_K (gamma_K = h d_K/n), the squared singular "
           "values of sqrt(n/h) A_perp, A = [A_1 .. A_h], converge to nu_(inf,h) = rho(1/gamma_K) "
           "[x] MP_1/h: m_1 = theta1, m_2 = (1 + 1/h) theta1^2 + theta2^2/gamma_K; s_1(A)/sqrt(h) "
           "-> 1 and ||A||_F^2/h -> e^(b^2); heads sharing one key have the same law; h = 1 is "
           "the single head's nu_infinity."),
    latex=latex,
    derive=derive,
    check=check,
    validate=heads_draws.validate_law,
    sweeps=lambda params: ("law",) if params.heads == 1 else (),   # one head: the law's draws
    method=("Moments by the stated free product (S-transforms) and by the Gaussian matrix model "
            "(free cumulants, non-crossing recursion), exactly equal, and by quadrature of the "
            "density (the physical root of the law's algebraic curve); the right edge by walking "
            "up from the jump law and by a double root of the curve. On the attention draws "
            f"({heads_draws.LAW_TEXT}): m_1 against its exact mean at each n; m_1..m_4 fitted to "
            f"n -> inf (full: {powers_text(FULL_POWERS, 'n')}; bulk, top {CLIP_TOP} clipped: "
            f"{powers_text(BULK_POWERS, 'n')}) and the bulk edge "
            f"({powers_text(EDGE_POWERS, 'n')}) against nu_(inf,h); ||A||_F^2/h against its exact "
            "mean and e^(b^2), s_1(A)/sqrt(h) against 1; the same values for heads that share one "
            "key; |m_q - m_q(nu)| and the edge gap against n with fitted slopes. The bulk's "
            "m_2 is the claim: it passes only with the power to reject h i.i.d. surrogates "
            "(theta2 = 0: m_2 = (1 + 1/h) theta1^2; at most half the gap theta2^2/gamma_K "
            "detectable), and the step is INCONCLUSIVE without it."),
    failure=(f"routes disagreeing (moments not equal, fewer than {MIN_DENSITY_DIGITS} digits "
             f"from the density, {MIN_EDGE_DIGITS} for the edge), a value more than "
             f"{judging.VALUE_Z:g} se (normal scale) from its prediction, or a moment error "
             f"decaying slower than n^{MOMENT_SLOPE:g} or the edge gap slower than "
             f"n^{EDGE_SLOPE:.3g}."),
)
