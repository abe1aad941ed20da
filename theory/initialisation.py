r"""The temperature at initialisation: the β an init scheme gives a layer (issue 30).

A layer's scores at initialisation are :math:`s_{ij} = c\,x_i^\top W^Q W^{K\top} x_j` with
inputs x_i of squared norm r² (r² = d after LayerNorm or RMSNorm with unit gain), weights
with i.i.d. entries of standard deviations σ_Q, σ_K, and a score scale c: 1/√d_k (the
usual), 1/d_k (μP) or 1 (T5, whose init folds the scale into σ_Q). Each query entry then has
variance r²σ_Q², each key entry r²σ_K², and :math:`s_{ij}` has variance
:math:`d_k r^4\sigma_Q^2\sigma_K^2 c^2`. The theorem's scores βS, S = QKᵀ/√d_k with unit
entries, have variance β², so

.. math:: \beta = r^2\sigma_Q\sigma_K\,c\sqrt{d_k},\qquad
          \beta_{\text{QK-norm}} = g_Q g_K\,c\sqrt{d_k},

the second for QK-norm, whose normalised q̂, k̂ have squared norm d_k (RMSNorm) and gains g
(1 at init). The threshold audit's variable is :math:`c_\ell = \beta/\sqrt{\log n}` at
context length n (``theory.threshold``): :func:`sides` says on which side of each temperature
threshold a layer starts. Two routes: this closed form, and the scores' standard deviation
sampled from the scheme itself (``numerics.initialisation``).

Examples
--------
>>> import sympy as sp
>>> effective_beta(Init(std_q=sp.Rational(1, 50), std_k=sp.Rational(1, 50)), 768, 64)
192/625
>>> effective_beta(Init(std_q=1 / sp.sqrt(768 * 64), std_k=1 / sp.sqrt(768), scale="none"),
...                768, 64)
1
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from attnge.theory import threshold as th
from attnge.theory.inputs import integer

SCALES = ("sqrt", "mup", "none")
"""The score scale c: 1/√d_k, 1/d_k (μP) or 1."""


@dataclass(frozen=True)
class Init:
    """An init scheme: the weight law (``theory.weight_laws``) and its standard deviations
    σ_Q, σ_K (exact SymPy numbers: the std after any truncation), the inputs' squared norm
    (``input_norm``: "layernorm", r² = d, or "unit", r² = 1), the score scale (``SCALES``)
    and QK-norm's gain (None: no QK-norm), with the source of the numbers."""

    std_q: sp.Expr = sp.Integer(1)
    std_k: sp.Expr = sp.Integer(1)
    law: str = "gaussian"
    input_norm: str = "layernorm"
    scale: str = "sqrt"
    qk_norm_gain: sp.Expr | None = None
    source: str = ""

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"scale must be one of {', '.join(SCALES)} (got {self.scale!r})")
        if self.input_norm not in ("layernorm", "unit"):
            raise ValueError(f"input_norm must be layernorm or unit (got {self.input_norm!r})")


def score_scale(init: Init, d_k: object) -> sp.Expr:
    """c of the scheme at head width d_k."""
    d_k = sp.Integer(integer(d_k, "d_k", 1))
    return {"sqrt": 1 / sp.sqrt(d_k), "mup": 1 / d_k, "none": sp.Integer(1)}[init.scale]


def effective_beta(init: Init, d: object, d_k: object) -> sp.Expr:
    r"""β of a layer of width d and head width d_k at initialisation (module docstring).

    Notes
    -----
    .. math:: \beta = r^2\sigma_Q\sigma_K\,c\sqrt{d_k}
    """
    d, d_k = sp.Integer(integer(d, "d", 1)), sp.Integer(integer(d_k, "d_k", 1))
    c = score_scale(init, d_k)
    if init.qk_norm_gain is not None:
        return sp.simplify(sp.sympify(init.qk_norm_gain) ** 2 * c * sp.sqrt(d_k))
    r2 = d if init.input_norm == "layernorm" else sp.Integer(1)
    return sp.simplify(r2 * sp.sympify(init.std_q) * sp.sympify(init.std_k) * c * sp.sqrt(d_k))


def sides(beta: object, n: object) -> list[tuple[str, sp.Expr, str]]:
    r"""On which side of each temperature threshold of ``attnge threshold`` a layer starts:
    (quantity, c*, "below" or "above") for :math:`c = \beta/\sqrt{\log n}`; below c* the
    quantity is still linear (``theory.threshold.temperature_thresholds``)."""
    c = sp.sympify(beta) / sp.sqrt(sp.log(integer(n, "n", 2)))
    return [(name, star, "below" if float(c) < float(star) else "above")
            for name, star in th.temperature_thresholds().items()]
