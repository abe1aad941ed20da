r"""Inputs whose rows are not orthonormal: what the limit law becomes (issue 30).

Q = XW^Q and K = XW^K; the theorem takes X with orthonormal rows. Each input model here says
how the scores change and predicts the first two moments of the bulk of √ℓA⊥ by two routes.
θ₁, θ₂ are the kernel's (``theory.kernels``) and y = ℓ/d_qk.

**orthonormal** (optionally Haar-random of width d = ℓ/γ): the theorem,
:math:`m_1 = \theta_1,\ m_2 = 2\theta_1^2 + y\theta_2^2`.

**gaussian** (rows N(0, I_d/d), d = ℓ/γ, so G = XXᵀ is a Wishart matrix with φ(G) = 1,
φ(G²) = 1 + γ): then :math:`S = G^{1/2}TG^{1/2}` with T the theorem's scores. Each entry
still has variance → 1 and the Hermite terms of order ≥ 2 stay white (their correlations
across tokens are O(1/d)), so θ₁ and θ₂ do not move; only the linear term's spectrum does.
By freeness of G and :math:`b = S S^\top/\ell`'s inner part,
:math:`\varphi((SS^\top/\ell)^2) = 2 + y + 2\gamma`, and

.. math:: m_1 = \theta_1,\qquad m_2 = 2\theta_1^2 + (y + 2\gamma)\theta_2^2.

**shared-mean** (row i is √α·m + √(1−α)·z_i): the scores split into a constant, a row term, a
column term :math:`\sqrt{\alpha(1-\alpha)}\,b_j` (b_j ≈ N(0, 1)) and :math:`(1-\alpha)S^0`
with S⁰ the theorem's scores. Softmax drops the constant and the row term; the column term
weighs column j by :math:`u_j = e^{\beta\sqrt{\alpha(1-\alpha)}b_j - \sigma^2/2}`,
:math:`\sigma^2 = \beta^2\alpha(1-\alpha)`. So the bulk is that of :math:`F U` with F the
linear model at :math:`\beta' = \beta(1 - \alpha)` (θ′₁ = e^{β′²} − 1, θ′₂ = β′²) and
U = diag(u), and one outlier (the mean of u) stands apart:

.. math:: m_1 = \theta_1' e^{\sigma^2},\qquad
          m_2 = m_2' e^{2\sigma^2} + \theta_1'^2(e^{6\sigma^2} - e^{2\sigma^2}),\quad
          m_2' = 2\theta_1'^2 + y\theta_2'^2.

This holds for kernels that are exponentials normalised by their row (softmax, softmax₁);
another kernel keeps the row term and has no prediction here.

**repeated** (a vocabulary of V = ℓ/r distinct orthonormal rows, each used r times): A is
the V×V attention blown up, so :math:`\nu = (1 - 1/r)\delta_0 + \tfrac1r (r\cdot)_\#
\nu_\infty(\theta_1, \theta_2, y/r)` and :math:`m_k = r^{k-1}m_k(\nu_\infty(y/r))`:

.. math:: m_1 = \theta_1,\qquad m_2 = 2r\theta_1^2 + y\theta_2^2.

The routes: :func:`moments` (free probability, as above) and :func:`moments_second_route`
(a conditional Wick computation for gaussian and shared-mean through
``theory.profiles``, and ``theory.limit_law``'s moments at y/r for repeated). Every model but
orthonormal is derived by the theorem's argument, not proved.

Examples
--------
>>> import sympy as sp
>>> t1, t2, y, g = sp.symbols("theta1 theta2 y gamma", positive=True)
>>> moments(MODELS["gaussian"], g, t1, t2, y)
(theta1, 2*gamma*theta2**2 + 2*theta1**2 + theta2**2*y)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from attnge.theory import limit_law
from attnge.theory.profiles import second_moment_trace
from attnge.theory.symbols import beta as beta_symbol

_n = sp.Symbol("ell", positive=True)


@dataclass(frozen=True)
class InputModel:
    """An input model: its ``parameter`` (None, "gamma", "alpha" or "repeats"), what covers
    its prediction (``status``, ``why``) and whether the prediction needs a row-normalised
    exponential kernel (``exp_only``)."""

    name: str
    parameter: str | None
    status: str
    why: str
    exp_only: bool = False


MODELS = {
    "orthonormal": InputModel("orthonormal", None, "theorem", "the theorem's inputs"),
    "gaussian": InputModel("gaussian", "gamma", "derived",
                           "the theorem's chain with the scores G^{1/2} T G^{1/2}: the linear "
                           "term's spectrum moves, θ₁ and θ₂ do not"),
    "shared-mean": InputModel("shared-mean", "alpha", "derived",
                              "softmax removes the shared row term; the column term weighs the "
                              "columns", exp_only=True),
    "repeated": InputModel("repeated", "repeats", "derived",
                           "the attention of the V distinct tokens, blown up: exact given the "
                           "theorem at y/r"),
}
"""The input models (``--inputs``)."""


def model_named(name: object) -> InputModel:
    """The model called ``name``; ValueError naming ``inputs``."""
    if isinstance(name, InputModel):
        return name
    if name not in MODELS:
        raise ValueError(f"inputs must be one of {', '.join(MODELS)} (got {name!r})")
    return MODELS[name]


def shared_mean_thetas(beta: object, alpha: object) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""(θ′₁, θ′₂, σ²) of shared-mean inputs: the theorem's θ's at β′ = β(1 − α), and the
    log-variance :math:`\sigma^2 = \beta^2\alpha(1-\alpha)` of the column weights."""
    beta, alpha = sp.sympify(beta), sp.sympify(alpha)
    t1, t2 = limit_law.from_beta(beta * (1 - alpha))
    return t1, t2, beta**2 * alpha * (1 - alpha)


@lru_cache(maxsize=256)
def moments(model: object, value: object, theta1: object, theta2: object, y: object,
            beta: object = beta_symbol) -> tuple[sp.Expr, sp.Expr]:
    r"""(m₁, m₂) of the bulk's limit (module docstring), by free probability.

    For shared-mean inputs θ₁, θ₂ are ignored (the kernel is softmax's, at β′).

    Notes
    -----
    For two free elements a, b: :math:`\varphi((ab)^2) = \varphi(a^2)\varphi(b)^2 +
    \varphi(a)^2\varphi(b^2) - \varphi(a)^2\varphi(b)^2`.
    """
    chosen = model_named(model)
    theta1, theta2, y, value = (sp.sympify(v) for v in (theta1, theta2, y, value))

    def free_square(a1, a2, b1, b2):
        return a2 * b1**2 + a1**2 * b2 - a1**2 * b1**2

    if chosen.name == "orthonormal":
        m1, m2 = limit_law.limit_moments(2, theta1, theta2, y)
        return m1, m2
    if chosen.name == "gaussian":
        g1, g2 = limit_law.narayana_moments(2, value)[:2]        # φ(G), φ(G²)
        c2 = g2 / y + g1**2                                      # φ_p(C²), C = KᵀK/ℓ
        b2 = y * c2 + 1                                          # φ(b²), b = Q₀CQ₀ᵀ/d_qk
        linear = free_square(g1, g2, 1, b2)                      # φ((SSᵀ/ℓ)²)
        noise = theta1 - theta2
        return theta1, sp.expand(theta2**2 * linear + 4 * theta2 * noise + 2 * noise**2)
    if chosen.name == "shared-mean":
        t1, t2, s2 = shared_mean_thetas(beta, value)
        inner = limit_law.limit_moments(2, t1, t2, y)            # F's m₁, m₂
        return t1 * sp.exp(s2), free_square(sp.exp(s2), sp.exp(6 * s2), inner[0], inner[1])
    r = value
    return theta1, sp.expand(2 * r * theta1**2 + y * theta2**2)


@lru_cache(maxsize=256)
def moments_second_route(model: object, value: object, theta1: object, theta2: object,
                         y: object, beta: object = beta_symbol) -> tuple[sp.Expr, sp.Expr]:
    r"""(m₁, m₂) of the bulk's limit by a route that does not use freeness.

    gaussian: Wick's theorem given G, :math:`E\operatorname{tr}(SS^\top)^2 d_{qk}^2 =
    (\operatorname{tr}G)^2[(\operatorname{tr}G)^2 d + \operatorname{tr}G^2(d^2 + d)] +
    \operatorname{tr}G^2[(\operatorname{tr}G)^2(d^2 + d) + \operatorname{tr}G^2(d^2 + 3d)]`
    (d = d_qk), with tr G = ℓ and E tr G² = ℓ(ℓ + ℓ/γ + 1)γ/ℓ, then ℓ → ∞; shared-mean: the
    profile :math:`a_{ij} = u_j/\sqrt\ell` of ``theory.profiles`` averaged over u;
    repeated: r·m₂ of ``limit_law.limit_moments_functional`` at y/r.
    """
    chosen = model_named(model)
    theta1, theta2, y, value = (sp.sympify(v) for v in (theta1, theta2, y, value))
    ell, d = _n, _n / y
    if chosen.name == "orthonormal":
        m1, m2 = limit_law.limit_moments_functional(2, theta1, theta2, y)
        return m1, m2
    if chosen.name == "gaussian":
        tr1, tr2 = ell, ell * (ell + ell / value + 1) * value / ell   # tr G, E tr G²
        quartic = (tr1**2 * (tr1**2 * d + tr2 * (d**2 + d))
                   + tr2 * (tr1**2 * (d**2 + d) + tr2 * (d**2 + 3 * d))) / d**2
        frob = tr1**2                                            # E tr SSᵀ
        noise = theta1 - theta2
        trace = (theta2**2 * quartic / ell**2 + 4 * noise * theta2 * frob / ell
                 + 2 * noise * theta2 * frob / ell**2 + noise**2 * (2 * ell + 1))
        return sp.limit(theta2 * frob / ell**2 + noise, _n, sp.oo), \
            sp.limit(sp.expand(trace / ell), _n, sp.oo)
    if chosen.name == "shared-mean":
        t1, t2, s2 = shared_mean_thetas(beta, value)
        e1, e2 = sp.exp(s2), sp.exp(6 * s2)
        T = ell * e2 + ell * (ell - 1) * e1**2
        sums = (T, T / ell, ell * e2, e2)
        m2 = second_moment_trace(*sums, t1, t2, d) / ell
        return t1 * e1, sp.limit(sp.expand(m2), _n, sp.oo)
    r = value
    inner = limit_law.limit_moments_functional(2, theta1, theta2, y / r)
    return inner[0], sp.expand(r * inner[1])


OUTPUT_MODELS = ("orthonormal", "gaussian")
"""The input models whose layer output has a stated mean eigenvalue (``output_m1``): those
``attnge mha`` runs (``numerics.multi_head.INPUTS``)."""


def output_m1(model: object, gamma: object, theta1: object, theta2: object,
              gamma_o: object) -> sp.Expr:
    r"""The mean eigenvalue m₁ of MHA⊥MHA⊥ᵀ in the limit (the layer's output, docs/math.md
    §7; values independent of the keys, which may be shared by the heads), for inputs of
    ``model`` (``OUTPUT_MODELS``; ``gamma`` = n/d for gaussian, ignored for orthonormal), by
    freeness of G = XXᵀ and the weights:

    .. math:: m_1 = \gamma_O\big((\theta_1 - \theta_2)\varphi(G)
              + \theta_2\varphi(G)\varphi(G^2)\big),

    with E[VVᵀ | X] ∝ G and √n A_r⊥ ≈ (√θ₂ S_r + √(θ₁ − θ₂) W_r)/√n, S_r = X W_r^Q
    W_r^{K⊤}Xᵀ/√d_K. Orthonormal rows (G = I): γ_Oθ₁; gaussian rows (φ(G) = 1,
    φ(G²) = 1 + γ): γ_O(θ₁ + γθ₂). Derived by the theorem's argument, not proved; the
    second route is :func:`output_m1_exact`'s n → ∞.
    """
    chosen = model_named(model)
    if chosen.name not in OUTPUT_MODELS:
        raise ValueError(f"inputs must be one of {', '.join(OUTPUT_MODELS)} for the layer's "
                         f"output (got {chosen.name!r})")
    theta1, theta2, gamma_o = (sp.sympify(v) for v in (theta1, theta2, gamma_o))
    g1, g2 = (1, 1) if chosen.name == "orthonormal" else \
        limit_law.narayana_moments(2, sp.sympify(gamma))[:2]
    return sp.expand(gamma_o * ((theta1 - theta2) * g1 + theta2 * g1 * g2))


def output_m1_exact(n: object, d: object, d_o: object, theta1: object,
                    theta2: object) -> sp.Expr:
    r"""E m₁ of n^{-1/2}MHA^G (the layer's Gaussian model, ``numerics.multi_head``) with
    gaussian inputs X (n × d, rows N(0, I_d/d)), exactly at every n, d and d_O, by Wick's
    theorem, without freeness. Given X, over the weights (W^O's entries of variance
    1/(h d_V), E[V_rV_rᵀ | X] = d_V G, and E tr(S_r G S_rᵀ | X) = tr G · tr G²):

    .. math:: E\,m_1 = \frac{d_O}{n^3}\big(\theta_2\,E[\operatorname{tr}G\,
              \operatorname{tr}G^2] + (\theta_1 - \theta_2)\,n\,E\operatorname{tr}G\big),

    E tr G = n and, with Z = √d X and ZᵀZ = Σ_k z_k z_kᵀ a Wishart matrix of n
    vectors in ℝ^d, d³E[tr G tr G²] = n d(d + 2)(d + 4) + n(n − 1)d²(d + 2)
    + n(n − 1)(2d(d + 2) + (n − 2)d²) (the pairs of rows k, l and the row m of tr G,
    counted by which coincide). Its limit n, d, d_O → ∞ (n/d = γ, d_O/n = γ_O) is
    :func:`output_m1`'s.
    """
    n, d, d_o, theta1, theta2 = (sp.sympify(v) for v in (n, d, d_o, theta1, theta2))
    trace_product = (n * d * (d + 2) * (d + 4) + n * (n - 1) * d**2 * (d + 2)
                     + n * (n - 1) * (2 * d * (d + 2) + (n - 2) * d**2)) / d**3
    return d_o / n**3 * (theta2 * trace_product + (theta1 - theta2) * n * n)
