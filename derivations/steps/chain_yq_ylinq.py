"""Step ``YQ-YlinQ``: Gaussian rows with the conditional covariance Σ_f (docs/math.md §4).

Given K the rows of f(S) − 𝟙cᵀ are i.i.d. with mean 0 and covariance
Σ_f[j,k] = e^{β²(ρ_jj+ρ_kk)/2 − β²}(e^{β²ρ_jk} − 1); Y^lin_Q = GΣ_f^{1/2}/√ℓ replaces them
by Gaussian rows with that covariance. New randomness: the two are compared by spectral
distances only (moments, Kolmogorov distance of the bulks).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import sympy as sp

from attnge import chain_values, ledger_draws
from attnge import evidence as ev
from attnge import regimes as rg
from attnge.numerics import spectra
from attnge.numerics.reference import gaussian_integral
from attnge.params import Params
from attnge.step import Step, Table, digits_agree, digits_text
from attnge.theory import linear_model as lm
from attnge.theory.symbols import positive_beta

ID = "YQ-YlinQ"
DPS = 30
MIN_DIGITS = 20
RHO_POINTS = (("1", "1", "0.3"), ("0.9", "1.2", "-0.4"), ("1.1", "1.1", "1.1"))
FORMS = {"form_identity": ("I", "tr Sigma_f"), "form_uu": ("uu^T", "u^T Sigma_f u"),
         "form_rho": ("rho", "tr(rho Sigma_f)")}
"""The quadratic forms r^T W r of ``numerics.measure.Statistics``: W and the mean."""


def latex() -> str:
    return r"\Sigma_f[j,k] = " + sp.latex(lm.sigma_f_expr())


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"Sigma_f[j,k]": lm.sigma_f_expr(),
            "Hadamard coefficient a_1": lm.hadamard_coefficient(1),
            "Hadamard coefficient a_2": lm.hadamard_coefficient(2)}


def sigma_f_by_quadrature(B: mp.mpf, a: mp.mpf, b: mp.mpf, c: mp.mpf) -> mp.mpf:
    """Cov(f(S_j), f(S_k)) for (S_j, S_k) ~ N(0, [[a, c], [c, b]]), conditioning on S_j.

    S_k | S_j = √a x is N(c x/√a, b − c²/a), whose Gaussian MGF gives E[f(S_k) | x];
    the outer expectation over x is quadrature.
    """
    f = lambda s: mp.expm1(B * s - B**2 / 2)  # noqa: E731
    inner = lambda t: mp.expm1(B * c * t / mp.sqrt(a) + B**2 * (b - c * c / a) / 2  # noqa: E731
                               - B**2 / 2)
    center = B * (mp.sqrt(a) + c / mp.sqrt(a))
    joint = gaussian_integral(lambda t: f(mp.sqrt(a) * t) * inner(t), DPS, center)
    mean_j = gaussian_integral(lambda t: f(mp.sqrt(a) * t), DPS, B * mp.sqrt(a))
    mean_k = gaussian_integral(lambda t: f(mp.sqrt(b) * t), DPS, B * mp.sqrt(b))
    return joint - mean_j * mean_k


def sigma_table(params: Params) -> Table:
    table = Table(f"Sigma_f[j,k](rho_jj, rho_kk, rho_jk): SymPy vs quadrature at {DPS} digits "
                  f"(pass: >= {MIN_DIGITS} digits)",
                  ["rho_jj", "rho_kk", "rho_jk", "Sigma_f (SymPy)", "digits"])
    b = positive_beta(params.beta)
    for a, bb, c in RHO_POINTS:
        with mp.workdps(DPS + 5):
            vals = [mp.mpf(sp.Rational(v).p) / sp.Rational(v).q for v in (a, bb, c)]
            quad = sigma_f_by_quadrature(mp.mpf(b.p) / b.q, *vals)
            sym = mp.mpf(sp.N(lm.sigma_f_expr().subs(
                {lm.BETA: b, lm.RHO_JJ: sp.Rational(a), lm.RHO_KK: sp.Rational(bb),
                 lm.RHO_JK: sp.Rational(c)}), DPS + 5))
            dig = digits_agree(quad, sym)
            table.add([a, bb, c, mp.nstr(sym, 15), digits_text(dig)], dig >= MIN_DIGITS)
    return table


def check(params: Params) -> list[Table]:
    sw = ledger_draws.chain_sweep(params)
    z = ev.z_table("Given K the centred rows r_i of f(S) are i.i.d. with covariance Sigma_f: "
                   "mean of r_i^T W r_i minus its expectation tr(W Sigma_f)")
    # a row's form is degree 2 in f(S): judged where the draws reach the scores that carry it
    untested = ev.untested_per_size(params)
    for field, (name, label) in FORMS.items():
        def form(m, field=field):
            return getattr(m.statistics, field)
        ev.z_rows(z, f"r^T {name} r - {label}", list(params.sizes),
                  ev.per_size(sw, lambda m, form=form: form(m).centred.mean),
                  [0.0] * len(params.sizes),
                  ev.per_size(sw, lambda m, form=form: form(m).centred.var),
                  [float(np.mean(v)) for v in
                   ev.per_size(sw, lambda m, form=form: form(m).expected)],
                  untested=untested)
    dist = ev.rate_table("Spectral distances between Y^Q and Y^lin_Q (independent draws; "
                         "mean over draws)", params)
    r = params.remove_top
    # the mass in its regime, and each draw of f(S) holding the scores that carry its
    # covariance Sigma_f, which Y^lin_Q is built from
    spectra_regime = rg.both(rg.mass(params.beta, params.y, list(params.sizes)),
                             rg.tails(params.beta, params.y, list(params.sizes)))
    ev.rate_row(dist, f"Kolmogorov distance of the bulks (top {r} removed)", params,
                ev.per_size(sw, lambda m: spectra.kolmogorov_distance(
                    spectra.bulk(m.spectra["Y_Q"], r), spectra.bulk(m.spectra["Y_lin_Q"], r))),
                ev.Slope(-0.5, "at most", rival=ev.PLATEAU, claim=True),
                regime=spectra_regime)
    ev.moment_rows(dist, sw, params, "Y_Q", "Y_lin_Q",
                   ev.Slope(-0.5, "at most", 0.1, rival=ev.PLATEAU),
                   regime=spectra_regime)
    return [sigma_table(params), chain_values.values_table(sw, params, "Y_lin_Q", "Y^lin_Q"),
            z, dist]


STEP = Step(
    id=ID,
    title="Linearization given the keys: Y^lin_Q = G Sigma_f^{1/2} / sqrt(ell)",
    claim=("Given K the rows of f(S) - 1c^T are i.i.d. with covariance Sigma_f[j,k] = "
           "e^{b^2(rho_jj + rho_kk)/2 - b^2}(e^{b^2 rho_jk} - 1); Gaussian rows with that "
           "covariance have the same limiting spectrum: moments and the bulk's Kolmogorov "
           "distance converge to those of Y^lin_Q."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate,
    sweeps=("chain",),
    method=(chain_values.method("Y^lin_Q") +
            "Sigma_f against quadrature (conditioning on one score); on the shared draws: "
            "quadratic forms r_i^T W r_i for W = I, uu^T, rho, i.i.d. over rows given K, "
            "against tr(W Sigma_f); the Kolmogorov distance of the bulks and |m_q(Y^Q) - "
            "m_q(Y^lin_Q)| against ell with fitted slopes."),
    failure=(chain_values.FAILURE +
             "fewer than 20 digits, a quadratic form more than 5 standard errors from "
             "tr(W Sigma_f), or a spectral distance decaying slower than ell^-1/2."),
)
