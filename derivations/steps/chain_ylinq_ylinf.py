"""Step ``YlinQ-Ylinf``: the covariance identified, Σ_f ≈ Σ_G = θ₂ρ + (θ₁ − θ₂)I (docs/math.md §4).

Both are GΣ^{1/2}/√ℓ with one shared G. Σ_f − Σ_G = Σ_{k≥2} a_k ∘ ρ^{∘k} plus diagonal
terms of order ρ_jj − 1 = O(d_qk^{−1/2}): ‖·‖_F/√ℓ = O(ℓ^{−1/2}). The k = 2 term keeps a
rank-one part: uᵀ(Σ_f − Σ_G)u → a₂² ℓ E ρ_jk² = yβ⁴/2, so ‖Y^lin_Q − Y^lin_f‖ →
√(θ₁ + yβ⁴/2) − √θ₁ ≠ 0; being of finite rank, it moves no moment in the limit.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from derivations import chain_values
from derivations import evidence as ev
from derivations import ledger_draws
from derivations.params import Params
from derivations.step import Step, Table
from theory import exponential as ex
from theory.symbols import beta, positive_beta, y

ID = "YlinQ-Ylinf"
KEY = "Y_lin_Q->Y_lin_f"


def spike() -> sp.Expr:
    """lim uᵀ(Σ_f − Σ_G)u = a₂² y with a₂² = (β²/√2)² the k = 2 Hermite weight of f."""
    return ex.hermite_coefficient(2, "f") ** 2 * sp.factorial(2) * y


def operator_limit() -> sp.Expr:
    """lim ‖Y^lin_Q − Y^lin_f‖ = √(θ₁ + yβ⁴/2) − √θ₁ (the rank-one part of Σ_f − Σ_G)."""
    return sp.sqrt(ex.theta1() + spike()) - sp.sqrt(ex.theta1())


def latex() -> str:
    return (r"\Sigma_G = \theta_2 \rho + (\theta_1 - \theta_2) I,\quad u^\top(\Sigma_f - "
            r"\Sigma_G)u \to " + sp.latex(spike()) + r",\quad \|Y^{lin}_Q - Y^{lin}_f\| \to "
            + sp.latex(operator_limit()))


def derive(params: Params) -> dict[str, sp.Expr | str]:
    return {"Sigma_G": r"\theta_2 \rho + (\theta_1 - \theta_2) I",
            "lim u^T (Sigma_f - Sigma_G) u": spike(),
            "lim ||Y_lin_Q - Y_lin_f||": operator_limit()}


def _value(expr: sp.Expr, params: Params) -> float:
    return float(expr.subs({beta: positive_beta(params.beta), y: sp.Rational(str(params.y))}))


def check(params: Params) -> list[Table]:
    sw = ledger_draws.chain_sweep(params)
    limit_spike, limit_op = _value(spike(), params), _value(operator_limit(), params)
    norms = ev.rate_table(
        "Norms of Y^lin_Q - Y^lin_f (shared G) against ell (mean over draws)", params,
        note=f"predicted limits: u^T(Sigma_f - Sigma_G)u -> {limit_spike:.6g}, "
             f"||Y_lin_Q - Y_lin_f|| -> {limit_op:.6g}")
    ev.rate_row(norms, "||Y_lin_Q - Y_lin_f||_F / sqrt(ell)", params,
                ev.per_size(sw, lambda m: m.differences[KEY]["frob"]), -0.5, "agree")
    ev.rate_row(norms, f"| ||Y_lin_Q - Y_lin_f|| - {limit_op:.4g} |", params,
                ev.per_size(sw, lambda m: abs(m.differences[KEY]["op"] - limit_op)),
                -0.5, "at most")
    ev.rate_row(norms, f"| u^T(Sigma_f - Sigma_G)u - {limit_spike:.4g} |", params,
                ev.per_size(sw, lambda m: abs(m.statistics["u^T (Sigma_f - Sigma_G) u"][0]
                                              - limit_spike)), -0.5, "at most")
    moments = ev.rate_table("Moment differences (Frobenius bound: slope -1/2)", params)
    ev.moment_rows(moments, sw, params, "Y_lin_Q", "Y_lin_f", -0.5, "at most", 0.1)
    means = Table("The spike, mean over draws", ["ell", "u^T(Sigma_f - Sigma_G)u",
                                                 "||Y_lin_Q - Y_lin_f||"])
    for ell, draws in sw.items():
        means.add([ell, ev.pm(*ev.mean_se(np.array(
            [m.statistics["u^T (Sigma_f - Sigma_G) u"][0] for m in draws]))),
            ev.pm(*ev.mean_se(np.array([m.differences[KEY]["op"] for m in draws])))])
    return [chain_values.values_table(sw, params, "Y_lin_f", "Y^lin_f"), norms, means, moments,
            ev.moment_bound_table(sw, "Y_lin_Q", "Y_lin_f", "frobenius")]


STEP = Step(
    id=ID,
    title="Covariance identified: Sigma_f ~ Sigma_G = theta2 rho + (theta1 - theta2) I",
    claim=("With a shared G, ||Y^lin_Q - Y^lin_f||_F/sqrt(ell) = O(ell^-1/2); the k = 2 Hadamard "
           "term leaves a rank-one spike u^T(Sigma_f - Sigma_G)u -> y b^4/2, so the operator "
           "norm tends to sqrt(theta1 + y b^4/2) - sqrt(theta1), while the moments differ by "
           "O(ell^-1/2)."),
    latex=latex,
    derive=derive,
    check=check,
    validate=ledger_draws.validate,
    method=(chain_values.method("Y^lin_f") +
            "On the shared draws: the normalised Frobenius norm of the difference, the gaps of "
            "the operator norm and of u^T(Sigma_f - Sigma_G)u to their predicted limits, and "
            "|m_q(Y^lin_Q) - m_q(Y^lin_f)|, each against ell with a fitted slope; a code "
            "sanity check (it holds by algebra): the Frobenius-to-moment bound on every draw."),
    failure=(chain_values.FAILURE +
             "a Frobenius slope away from -1/2, a gap to a predicted limit or a moment "
             "difference decaying slower than ell^-1/2, or a bound violated."),
)
