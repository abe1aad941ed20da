"""Step ``Yf-YQ``: centring given the keys, Y^Q = Y^f − 𝟙cᵀ/√ℓ (docs/math.md §4).

Given K a row of S is N(0, ρ), ρ = KKᵀ/d_qk, so c_j = E[f(S_ij) | K] = e^{β²(ρ_jj−1)/2} − 1.
The difference has rank one and norm ‖c‖, with E‖c‖² = ℓ(m₁₁ − 2μ + 1) → yβ⁴/2
(μ, m₁₁ the normalizer moments): it does not shrink, the moments move by O(1/ℓ).
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from attnge import chain_values, ledger_draws
from attnge import evidence as ev
from attnge.exact_means import norm_rows
from attnge.numerics.reference import gaussian_integral
from attnge.params import Params
from attnge.step import Step, Table, digits_agree, digits_text
from attnge.theory import linear_model as lm
from attnge.theory import normalizer as nz
from attnge.theory.symbols import ell

ID = "Yf-YQ"
KEY = "Y_f->Y_Q"
DPS = 30
MIN_DIGITS = 20
RHO_POINTS = ("0.8", "1", "1.25")


def norm_squared() -> sp.Expr:
    """E‖c‖² = ℓ E c_j² = ℓ(m₁₁ − 2μ + 1), exact at finite d_qk (ρ_jj ~ χ²_d/d)."""
    return ell * (nz.cross_moment_X() - 2 * nz.mean_X() + 1)


def latex() -> str:
    return (r"c_j = \mathbb{E}[f(S_{ij}) \mid K] = " + sp.latex(lm.c_expr())
            + r",\quad \mathbb{E}\|c\|^2 = " + sp.latex(norm_squared()))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"c_j": lm.c_expr(), "Y^Q - Y^f": r"-\mathbb{1} c^\top/\sqrt{\ell} \text{ (rank one)}",
            "E ||c||^2": norm_squared()}


def c_table(params: Params) -> Table:
    """c(ρ_jj) from SymPy against quadrature of E f(√ρ_jj χ)."""
    table = Table(f"c_j = E[f(S_ij) | K] as a function of rho_jj: SymPy vs quadrature at {DPS} "
                  f"digits (pass: >= {MIN_DIGITS} digits)",
                  ["rho_jj", "c (SymPy)", "digits"])
    b = sp.Rational(str(params.beta))
    for r in RHO_POINTS:
        with mp.workdps(DPS + 5):
            B, rho = mp.mpf(b.p) / b.q, mp.mpf(sp.Rational(r).p) / sp.Rational(r).q
            quad = gaussian_integral(lambda t: mp.expm1(B * mp.sqrt(rho) * t - B**2 / 2), DPS,
                                     B * mp.sqrt(rho))
            sym = mp.mpf(sp.N(lm.c_expr().subs({lm.BETA: b, lm.RHO_JJ: sp.Rational(r)}), DPS + 5))
            dig = digits_agree(quad, sym)
            table.add([r, mp.nstr(sym, 15), digits_text(dig)], dig >= MIN_DIGITS)
    return table


def check(params: Params) -> list[Table]:
    sw = ledger_draws.chain_sweep(params)
    z = ev.z_table("Given K the rows are i.i.d.: the projection sum_j c_j f(S_ij)/||c||^2 has "
                   "mean 1 iff E[f(S_ij)|K] = c_j; ||c||^2 against its exact mean")
    values = ev.per_size(sw, lambda m: m.statistics.projection_on_c.mean)
    variances = ev.per_size(sw, lambda m: m.statistics.projection_on_c.var)
    ev.z_rows(z, "projection on c", list(params.sizes), values, [1.0] * len(values), variances,
              untested=ev.untested_per_size(params))
    norm_rows(z, sw, params, "||c||^2", lambda m: m.statistics.norm_c_squared,
              norm_squared(), 2)
    rank, norms, bound, moments = ev.rank_one_tables(sw, params, "Y_f", "Y_Q",
                                                     ("Y^f", "Y^Q"), "||c||")
    return [c_table(params), chain_values.values_table(sw, params, "Y_Q", "Y^Q"), z, norms,
            moments, ev.identity_table(sw, ["norm_c"]), rank, bound]

STEP = Step(
    id=ID,
    title="Centring given the keys: Y^Q = Y^f - 1 c^T / sqrt(ell), c_j = E[f(S_ij) | K]",
    claim=("c_j = E[f(S_ij) | K] = e^{b^2(rho_jj - 1)/2} - 1; Y^f - Y^Q = 1 c^T/sqrt(ell) has "
           "rank one and norm ||c||, E||c||^2 = ell(m_11 - 2 mu + 1) -> y b^4/2; the moments of "
           "Y^f and Y^Q differ by O(1/ell)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate,
    sweeps=("chain",),
    method=(chain_values.method("Y^Q") +
            "c(rho_jj) against mpmath quadrature; on the shared draws: the projection of the "
            "column means of f(S) on c (rows i.i.d. given K, so its standard error is the "
            "row spread), ||c||^2 against its exact mean, the norms of the difference and "
            "|m_q(Y^f) - m_q(Y^Q)| with fitted slopes; code sanity checks (they hold by "
            "algebra): the identity, the rank of the difference and the rank bound per draw."),
    failure=(chain_values.FAILURE +
             "fewer than 20 digits, an identity residual above 1e-10, a rank other than one, "
             "a z-score above 5, a Frobenius slope away from -1/2, or a moment difference "
             "decaying slower than ell^-1/2."),
)
