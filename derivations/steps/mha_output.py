"""Step ``mha-output``: the layer's output MHA⊥ against its law and its Gaussian model
(docs/math.md §7).

MHA⊥ = [A_1⊥V_1, …, A_h⊥V_h] W^O with Gaussian V and W^O: its spectrum (n eigenvalues of
MHA⊥MHA⊥ᵀ) tends to ν_{∞,h} ⊠ MP_{1/γ_V} ⊠ π_{γ_O}, the same for heads that share keys and
values (multi-query); with K = V tied, to D_{1/γ_V}π(μ_KV, h) ⊠ π_{γ_O}. The Gaussian model
n^{-1/2}MHA^G on the same Q, K, V, W^O has the same limit, and the two spectra meet on every
draw. Moments by two routes (stated free products, the Gaussian matrix model), edges by two.
The claim is the layer's m₂/m₁² − 1 for each way of sharing: the step PASSes only where it
would have rejected the same layer on i.i.d. surrogate heads (θ₂ = 0).
"""

from __future__ import annotations

from functools import lru_cache

import mpmath as mp
import sympy as sp

from attnge import evidence as ev
from attnge import heads_draws, judging
from attnge import regimes as rg
from attnge.fits import FULL_POWERS, exact_m1, laws, powers_text, regimes
from attnge.numerics import multi_head_law as mhl
from attnge.numerics import spectra
from attnge.numerics.multi_head import relative_w1
from attnge.params import Params
from attnge.step import Step, Table, digits_agree, digits_text
from attnge.theory import exponential as ex
from attnge.theory import multi_head as mh
from attnge.theory.symbols import GAMMA_K, THETA1, THETA2, H

ID = "mha-output"
K = 4
EDGE_DPS = 30
MIN_EDGE_DIGITS = 20
GAMMA_V, GAMMA_O = sp.symbols("gamma_V gamma_O", positive=True)
LAWS = {"none": "none", "mqa": "none", "kv": "kv"}   # the law each way of sharing has
SHOWN = {"none": "independent heads", "mqa": "multi-query (one key and value for all heads)",
         "kv": "tied keys and values (K = V)"}
DISTANCE_SLOPE = -0.5      # rel. W1 and Kolmogorov between the layer and its Gaussian model


def sanity() -> dict[str, tuple[str, sp.Expr, sp.Expr]]:
    """The sanity values of docs/math.md §7: (kind and sharing, index, stated value)."""
    t1, t2, h, gk, gv, go = THETA1, THETA2, H, GAMMA_K, GAMMA_V, GAMMA_O
    return {"output m_1 = gamma_O theta1": ("output none", 0, go * t1),
            "output m_2/m_1^2 - 1 = 1/h + 1/gamma_V + 1/gamma_O + theta2^2/(gamma_K theta1^2)":
                ("output none", "ratio", 1 / h + 1 / gv + 1 / go + t2**2 / (gk * t1**2)),
            "K = V: values m_1 = gamma_K theta1 + h theta2": ("values kv", 0, gk * t1 + h * t2),
            "K = V: output m_1 = gamma_O (theta1 + h theta2/gamma_K)":
                ("output kv", 0, go * (t1 + h * t2 / gk))}


def _sanity_holds(route: str) -> dict[str, bool]:
    """Each sanity value, checked symbolically on the moments of ``route``."""
    out = {}
    for name, (what, index, value) in sanity().items():
        kind, sharing = what.split()
        gv = GAMMA_K if sharing == "kv" else GAMMA_V
        m = mh.moments(mh.law(kind, THETA1, THETA2, H, GAMMA_K, gv, GAMMA_O, sharing, route),
                       2, route)
        found = m[1] / m[0] ** 2 - 1 if index == "ratio" else m[index]
        out[name] = sp.simplify(found - value.subs(GAMMA_V, gv)) == 0
    return out


def latex() -> str:
    m = mh.law_moments("output", 2, THETA1, THETA2, H, GAMMA_K, GAMMA_V, GAMMA_O)
    return (r"\nu_{\mathrm{MHA}^\perp} \to \nu_{\infty,h} \boxtimes \mathrm{MP}_{1/\gamma_V} "
            r"\boxtimes \pi_{\gamma_O},\quad m_1 = " + sp.latex(m[0]) + r",\ \frac{m_2}{m_1^2} - 1"
            r" = " + sp.latex(sp.expand(sp.simplify(m[1] / m[0] ** 2 - 1))))


def gamma_o(params: Params) -> sp.Expr:
    """γ_O = d_O/n = h d_V/n = h/y (d_O = h d_V)."""
    return params.heads / sp.Rational(str(params.y))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    routes(params.beta, params.y, params.heads)
    m = mh.law_moments("output", 2, THETA1, THETA2, H, GAMMA_K, GAMMA_V, GAMMA_O)
    kv = mh.law_moments("output", 1, THETA1, THETA2, H, GAMMA_K, GAMMA_K, GAMMA_O, "kv")
    return {"m_1": m[0], "m_2": sp.factor(m[1]), "m_1 (K = V)": sp.factor(kv[0]),
            "gamma_K = gamma_V = gamma_O": sp.latex(gamma_o(params))}


@lru_cache(maxsize=4)
def routes(b_value: float, y_value: float, heads: int) -> dict:
    """Per law (independent, K = V): moments by both routes and edges by both routes; the
    sanity values on both routes."""
    go = heads / sp.Rational(str(y_value))
    out = {"sanity": {route: _sanity_holds(route) for route in mh.ROUTES}}
    for sharing in ("none", "kv"):
        stated, matrix = laws(b_value, y_value, heads, "output", sharing, go)
        first, second = mh.moments(stated, K, "stated"), mh.moments(matrix, K, "matrix")
        with mp.workdps(EDGE_DPS):
            edge = mhl.right_edge(stated, dps=EDGE_DPS)
            curve = mhl.polynomial_edge(matrix, dps=EDGE_DPS)
        out[sharing] = {"moments": [(mp.mpf(sp.N(a, 30)), sp.expand(a - b) == 0)
                                    for a, b in zip(first, second)],
                        "values": [float(a) for a in first], "edge": (edge, curve)}
    values = laws(b_value, y_value, heads, "values", "kv")[0]
    out["kv values"] = [float(v) for v in mh.moments(values, 2, "stated")]
    return out


def routes_table(params: Params) -> Table:
    found = routes(params.beta, params.y, params.heads)
    g = float(gamma_o(params))
    table = Table(f"Moments and edges of the output laws (h = {params.heads}, gamma_K = gamma_V "
                  f"= gamma_O = {g:.6g}) by independent routes",
                  ["quantity", "value", "second route", "agreement"])
    for sharing in ("none", "kv"):
        law = "nu_(inf,h) [x] MP_1/gamma_V [x] pi_gamma_O" if sharing == "none" else \
            "D_(1/gamma_V) pi(mu_KV, h) [x] pi_gamma_O (K = V)"
        for q, (value, same) in enumerate(found[sharing]["moments"]):
            table.add([f"m_{q + 1} of {law}", mp.nstr(value, 15),
                       "Gaussian matrix model (free cumulants)", "equal" if same else
                       "DIFFERENT"], same)
        edge, curve = found[sharing]["edge"]
        dig = digits_agree(curve, edge)
        table.add([f"right edge of {law}", mp.nstr(edge, 20), "double root of the algebraic "
                   "curve", f"{digits_text(dig)} digits"], dig >= MIN_EDGE_DIGITS)
    for name in sanity():
        ok = all(found["sanity"][route][name] for route in mh.ROUTES)
        table.add([name, "", "both routes, symbolically", "holds" if ok else "FAILS"], ok)
    return table


@lru_cache(maxsize=8)
def surrogate_ratio(b_value: float, y_value: float, heads: int, sharing: str) -> judging.Rival:
    """The rival of the layer's claim: m₂/m₁² − 1 of the same layer on i.i.d. surrogate
    heads (θ₂ = 0), which misses the output law's by θ₂²/(γ_Kθ₁²) for independent heads
    (docs/math.md §7)."""
    g = heads / sp.Rational(str(y_value))          # γ_K = γ_V = γ_O = h/y, as ``routes``
    m = mh.law_moments("output", 2, ex.thetas(b_value)[0], 0, heads, g, g, g, LAWS[sharing])
    return judging.Rival(float(m[1] / m[0] ** 2 - 1),
                         "the layer on i.i.d. surrogate heads (theta2 = 0)")


def _moment_rows(table: Table, draws: dict, key: str, label: str, law: list[float],
                 sizes: list[int], regime: rg.Regime | None) -> None:
    for q in range(1, K + 1):
        ev.limit_row(table, f"m_{q}({label}), n -> inf", sizes,
                     ev.per_size(draws, lambda d, q=q: d.moments(key, K)[q - 1]),
                     ev.Extrapolation(law[q - 1], FULL_POWERS), regime=regime)


def _spread(m: list[float]) -> float:
    """m₂/m₁² − 1 of moments m₁, m₂."""
    return m[1] / m[0] ** 2 - 1


def values_table(params: Params, sharing: str, draws: dict) -> Table:
    found = routes(params.beta, params.y, params.heads)
    law = found[LAWS[sharing]]["values"]
    sizes = sorted(draws)
    g = [heads_draws.output_shape(params, n, sharing).gammas[2] for n in sizes]   # d_O/n
    table = ev.value_table(f"{SHOWN[sharing]}: the spectra of MHA_perp and of its Gaussian "
                           f"model n^-1/2 MHA^G on the same weights ({params.draws} draws per n)")
    if LAWS[sharing] == "none":
        ev.exact_rows(table, "m_1(MHA_perp)", sizes,
                      ev.per_size(draws, lambda d: d.moments("softmax", 1)[0]),
                      [go * exact_m1(params, n) for go, n in zip(g, sizes)], "n")
        ev.exact_rows(table, "m_1(n^-1/2 MHA^G)", sizes,
                      ev.per_size(draws, lambda d: d.moments("gaussian", 1)[0]),
                      [go * ex.thetas(params.beta)[0] for go in g], "n")
    # the softmax layer's rows are fitted where the heads' mass is in its regime and their
    # outliers have left the bulk edge's window (the heads' bulk, ``fits.regimes``): at
    # beta = 1, y = 1/16, n = 125..500 (4.5 outliers in the window) the layer's m2/m1^2 - 1
    # fell toward the law as n^-0.36 while its Gaussian model's fell as 1/n, and a fit
    # m_inf + b/n put it 4.2 se off the law
    layer = regimes(params, sizes, params.heads).bulk
    _moment_rows(table, draws, "softmax", "MHA_perp", law, sizes, layer)
    # the claim: the ratio cancels the output's scale, which V and W^O make fluctuate
    ev.limit_row(table, "m_2/m_1^2 - 1 (MHA_perp), n -> inf", sizes,
                 ev.per_size(draws, lambda d: _spread(d.moments("softmax", 2))),
                 ev.Extrapolation(_spread(law), FULL_POWERS,
                                  rival=surrogate_ratio(params.beta, params.y, params.heads,
                                                        sharing)), regime=layer)
    _moment_rows(table, draws, "gaussian", "n^-1/2 MHA^G", law, sizes, None)
    for q in range(1, K + 1):
        ev.limit_row(table, f"m_{q}(MHA_perp) - m_{q}(n^-1/2 MHA^G), same weights, n -> inf",
                     sizes, ev.per_size(draws, lambda d, q=q: d.moments("softmax", K)[q - 1]
                                        - d.moments("gaussian", K)[q - 1]),
                     ev.Extrapolation(0.0, FULL_POWERS, scale=law[q - 1]), regime=layer)
    if sharing == "kv":
        kv = found["kv values"]
        for q in (1, 2):
            ev.limit_row(table, f"m_{q}([A_r_perp V_r]) (K = V), n -> inf", sizes,
                         ev.per_size(draws, lambda d, q=q: d.moments("values", 2)[q - 1]),
                         ev.Extrapolation(kv[q - 1], FULL_POWERS), regime=layer)
    return table


def distances_table(params: Params, outputs: dict) -> Table:
    sizes = sorted(next(iter(outputs.values())))
    table = ev.rate_table(f"The layer against its Gaussian model on the same weights, every draw: "
                          f"relative W1 (mean |sorted eigenvalue difference| over the limit's "
                          f"mean eigenvalue) and Kolmogorov distance (bound: slope "
                          f"{DISTANCE_SLOPE:g})", params, sizes=sizes, size_name="n")
    found = routes(params.beta, params.y, params.heads)
    mass = rg.mass(params.beta, params.y, sizes)
    for sharing, draws in outputs.items():
        mean = found[LAWS[sharing]]["values"][0]
        ev.rate_row(table, f"relative W1, {sharing}", params,
                    ev.per_size(draws, lambda d, m=mean: relative_w1(d.softmax, d.gaussian, m)),
                    ev.Slope(DISTANCE_SLOPE, "at most", 0.1), sizes=sizes, regime=mass)
        ev.rate_row(table, f"Kolmogorov distance, {sharing}", params,
                    ev.per_size(draws, lambda d: spectra.kolmogorov_distance(d.softmax,
                                                                             d.gaussian)),
                    ev.Slope(DISTANCE_SLOPE, "at most", 0.1), sizes=sizes, regime=mass)
    return table


def check(params: Params) -> list[Table]:
    outputs = heads_draws.output_sweep(params)
    tables = [routes_table(params)]
    tables += [values_table(params, sharing, draws) for sharing, draws in outputs.items()]
    return tables + [distances_table(params, outputs)]


STEP = Step(
    id=ID,
    title="The layer's output: MHA_perp -> nu_(inf,h) [x] MP_1/gamma_V [x] pi_gamma_O, and its "
          "Gaussian model",
    claim=("With Gaussian V and W^O = G_O/sqrt(h d_V), the n eigenvalues of MHA_perp MHA_perp^T "
           "converge to nu_(inf,h) [x] MP_1/gamma_V [x] pi_gamma_O (gamma_V = h d_V/n, gamma_O = "
           "d_O/n): m_1 = gamma_O theta1, m_2/m_1^2 - 1 = 1/h + 1/gamma_V + 1/gamma_O + "
           "theta2^2/(gamma_K theta1^2); heads sharing keys and values have the same law, tied "
           "K = V the law D_(1/gamma_V) pi(mu_KV, h) [x] pi_gamma_O; the Gaussian model "
           "n^-1/2 MHA^G on the same weights has the same limit, its spectrum meeting the "
           "layer's."),
    latex=latex,
    derive=derive,
    check=check,
    validate=heads_draws.validate,
    method=("Moments by the stated free products (S-transforms) and by the Gaussian matrix "
            "model (compound free Poisson laws, free cumulants), exactly equal; the sanity "
            "values of the theory on both; right edges by walking up from the jump law and by "
            "a double root of the law's algebraic curve. On the layer's draws "
            f"({heads_draws.OUTPUT_TEXT}), for independent, multi-query and tied heads: m_1 of "
            "the layer and of its Gaussian model against their exact means at each n, m_1..m_4 "
            f"of both and their difference on the same weights fitted to n -> inf "
            f"({powers_text(FULL_POWERS, 'n')}) against the law (and 0); the "
            "relative W1 and Kolmogorov distance between the two spectra against n with "
            "fitted slopes. The layer's m_2/m_1^2 - 1 (fitted to n -> inf; the ratio cancels "
            "the scale that V and W^O make fluctuate) is the claim: each way of sharing passes "
            "only with the power to reject the same layer on i.i.d. surrogate heads (theta2 = "
            "0; at most half the gap detectable), and the step is INCONCLUSIVE without it."),
    failure=(f"routes disagreeing (moments not equal, a sanity value failing, fewer than "
             f"{MIN_EDGE_DIGITS} digits for an edge), a value more than {judging.VALUE_Z:g} se "
             f"(normal scale) from its prediction, or a distance decaying slower than "
             f"n^{DISTANCE_SLOPE:g}."),
)
