r"""Attention masks: the causal Gaussian model and its moments (issue 30).

Under a mask, row i of the attention is normalised over its own support of n_i entries
(causal: the first i). The centred object is each row minus its mean over its support,
scaled by :math:`\sqrt{n_i}` (for no mask this is :math:`\sqrt\ell AP_\perp`):

.. math:: C_{ij} = \sqrt{n_i}\,\Big(A_{ij} - \frac{1}{n_i}\sum_{j' \in S_i} A_{ij'}\Big),
          \quad j \in S_i,

and its causal Gaussian model on the same scores is the linear model with the mask and
each row's own normaliser, :math:`a_{ij} = \mathbb 1[j \in S_i]/\sqrt{n_i}` in
``theory.profiles``: :math:`Y_{ij} = a_{ij}(\sqrt{\theta_2}S_{ij} +
\sqrt{\theta_1 - \theta_2}Z_{ij})`. Both have m₁ → θ₁. For the causal mask the profile's sums
are :math:`T = \ell(\ell + 1)/2`, :math:`T_r = \ell`, :math:`T_c = 2\ell - H_\ell`,
:math:`T_0 = H_\ell` (H the harmonic numbers), so

.. math:: m_2 \to 3\theta_1^2 + \frac{y}{2}\theta_2^2,

against :math:`2\theta_1^2 + y\theta_2^2` without a mask; the i.i.d. surrogate (θ₂ = 0, the
masked random-Markov model) has :math:`3\theta_1^2`. Two routes: the exact sums at finite ℓ
(:func:`sums`, checked against the numeric profile) and the continuum profile
:math:`\sigma(s, t) = \mathbb 1[t \le s]/s` on [0, 1]² (:func:`limit_moments_continuum`:
:math:`\int(\int\sigma\,dt)^2ds + \int(\int\sigma\,ds)^2dt + y\iint(\int\sqrt{\sigma(s,t)
\sigma(s',t)}\,dt)^2`). The theorem says nothing about masks: derived by its argument.

Examples
--------
>>> import sympy as sp
>>> t1, t2, y = sp.symbols("theta1 theta2 y", positive=True)
>>> limit_moments(MASKS["causal"], t1, t2, y)
(theta1, 3*theta1**2 + theta2**2*y/2)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

from attnge.theory.profiles import second_moment_trace

_s, _t, _u = sp.symbols("s t u", positive=True)
_n = sp.Symbol("ell", positive=True, integer=True)


@dataclass(frozen=True)
class Mask:
    """A mask: row i attends to the tokens of its support (``support(ell)``: a boolean
    ℓ×ℓ array), of n_i entries. ``profile``, the continuum σ(s, t) (a SymPy expression in
    s, t on [0, 1]²) and ``sums``, the profile's four sums in closed form in ℓ."""

    name: str
    status: str
    why: str
    profile: sp.Expr
    sums: tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]

    def support(self, ell: int) -> np.ndarray | None:
        """The boolean support (None: every entry)."""
        if self.name == "none":
            return None
        return np.tril(np.ones((ell, ell), dtype=bool))

    def weights(self, ell: int) -> np.ndarray:
        """The numeric profile a = 1[j ∈ S_i]/√n_i (ℓ×ℓ)."""
        support = self.support(ell)
        if support is None:
            return np.full((ell, ell), 1 / np.sqrt(ell))
        return support / np.sqrt(support.sum(axis=1, keepdims=True))


MASKS = {
    "none": Mask("none", "theorem", "the theorem's attention", sp.Integer(1),
                 (_n**2, _n, _n, sp.Integer(1))),
    "causal": Mask("causal", "derived",
                   "the chain of the theorem row by row, each row with its own normaliser; "
                   "the rows of few entries, where D does not concentrate, are o(ℓ)",
                   sp.Piecewise((1 / _s, _t <= _s), (0, True)),
                   (_n * (_n + 1) / 2, _n, 2 * _n - sp.harmonic(_n), sp.harmonic(_n))),
}
"""The masks: none (today) and causal (row i attends to tokens 1…i, as in GPT)."""


def mask_named(name: object) -> Mask:
    """The mask called ``name``; ValueError naming ``mask``."""
    if isinstance(name, Mask):
        return name
    if name not in MASKS:
        raise ValueError(f"mask must be one of {', '.join(MASKS)} (got {name!r})")
    return MASKS[name]


def mean_moments(mask: object, ell: object, theta1: object, theta2: object,
                 d_qk: object) -> tuple[sp.Expr, sp.Expr]:
    r"""(E m₁, E m₂) of the masked linear model at ℓ tokens, exactly (from ``sums``).

    Notes
    -----
    .. math:: E m_1 = \theta_1,\qquad E m_2 = E\operatorname{tr}(YY^\top)^2/\ell
    """
    chosen = mask_named(mask)
    sums = [sp.sympify(v).subs(_n, ell) for v in chosen.sums]
    return sp.sympify(theta1), second_moment_trace(*sums, theta1, theta2, d_qk) / ell


@lru_cache(maxsize=256)
def limit_moments(mask: object, theta1: object, theta2: object, y: object
                  ) -> tuple[sp.Expr, sp.Expr]:
    """(m₁, m₂) of the limit from the exact sums, with d_qk = ℓ/y and ℓ → ∞."""
    m1, m2 = mean_moments(mask, _n, theta1, theta2, _n / sp.sympify(y))
    return m1, sp.limit(sp.expand(m2), _n, sp.oo)


@lru_cache(maxsize=256)
def limit_moments_continuum(mask: object, theta1: object, theta2: object, y: object
                            ) -> tuple[sp.Expr, sp.Expr]:
    r"""(m₁, m₂) of the limit from the continuum profile σ(s, t) (the second route).

    Notes
    -----
    .. math:: m_1 = \theta_1\iint\sigma,\quad m_2 = \theta_1^2\Big[\int\Big(\int\sigma\,dt
              \Big)^2ds + \int\Big(\int\sigma\,ds\Big)^2dt\Big] + y\theta_2^2\iint\Big(
              \int\sqrt{\sigma(s,t)\sigma(u,t)}\,dt\Big)^2ds\,du
    """
    sigma = mask_named(mask).profile
    theta1, theta2, y = (sp.sympify(v) for v in (theta1, theta2, y))
    integral = lambda f, v: sp.integrate(f, (v, 0, 1))  # noqa: E731
    mass = integral(integral(sigma, _t), _s)
    rows = integral(integral(sigma, _t) ** 2, _s)
    cols = integral(integral(sigma, _s) ** 2, _t)
    overlap = integral(sp.sqrt(sigma) * sp.sqrt(sigma.subs(_s, _u)), _t)
    rectangles = integral(integral(sp.piecewise_fold(overlap**2), _s), _u)
    return (sp.simplify(theta1 * mass),
            sp.simplify(theta1**2 * (rows + cols) + y * theta2**2 * rectangles))
