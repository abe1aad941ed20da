"""The exact mean of m₁ = ‖M‖_F²/ℓ for each model M of the chain, at finite ℓ and d_qk.

With X_ij = e^{βS_ij − β²/2}, f = X − 1 and the normalizer moments μ, m_2, m_11 of
``theory.normalizer`` (m_11 = E X_ij X_ij′ = E X_ij X_i′j, since q and k play the same
role in S = QKᵀ/√d_qk):

    E m₁(Y^f)      = E f²                      = m_2 − 2μ + 1
    E m₁(Y)        = E f² − E(D_ii − 1)²       = m_2 − 2μ + 1 − Var D_ii − (μ − 1)²
    E m₁(Y^Q)      = E Var(X_ij | K)           = m_2 − m_11
    E m₁(Y^lin_Q)  = E tr Σ_f / ℓ              = m_2 − m_11
    E m₁(Y^lin_f)  = E tr Σ_G / ℓ              = θ₂ E ρ_jj + θ₁ − θ₂ = θ₁

(Y = Y^f P⊥ removes the row means D_ii − 1; Y^Q removes c_j = E[f(S_ij) | K]; the linear
models have, given K, the conditional covariances Σ_f and Σ_G.)
"""

from __future__ import annotations

import sympy as sp

from attnge.theory import exponential as ex
from attnge.theory import normalizer as nz

MODELS = ("Y", "Y_f", "Y_Q", "Y_lin_Q", "Y_lin_f")


def m1(model: str) -> sp.Expr:
    """E m₁(model) in β, ℓ and d_qk (``MODELS``); ValueError naming ``model`` otherwise."""
    second = nz.second_moment_X() - 2 * nz.mean_X() + 1         # E f(S_ij)²
    if model == "Y_f":
        return second
    if model == "Y":
        return second - nz.variance() - (nz.mean() - 1) ** 2
    if model in ("Y_Q", "Y_lin_Q"):
        return nz.second_moment_X() - nz.cross_moment_X()
    if model == "Y_lin_f":
        return ex.theta1()
    raise ValueError(f"model must be one of {', '.join(MODELS)} (got {model!r})")
