r"""Sampled attention matrices and their linear Gaussian model, for users (docs/math.md §1, §4).

:func:`sample_attention` draws one softmax attention matrix at random initialisation and,
on the same scores, the linear Gaussian model whose squared singular values follow ν∞:

.. math:: S = QK^\top/\sqrt{d_{qk}},\quad A = \mathrm{softmax}(\beta S),\quad
          \sqrt\ell A^\perp = \sqrt\ell\,(A - \mathbb 1\mathbb 1^\top/\ell),\quad
          Y^{lin} = (\beta S + \sqrt{\theta_1 - \theta_2}\,Z)/\sqrt\ell,

Q, K and Z with i.i.d. N(0, 1) entries (the law of XW^Q, XW^K for inputs X with
orthonormal rows), θ₁ = e^{β²} − 1, θ₂ = β².

Examples
--------
>>> s = sample_attention(200, beta=1, y=2, random_state=0)
>>> s.attention.shape, s.d_qk, bool(abs(s.attention.sum(axis=1) - 1).max() < 1e-12)
((200, 200), 100, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from attnge.numerics.sampling import attention, sample_scores
from attnge.theory import kernels
from attnge.theory.exponential import thetas
from attnge.theory.inputs import beta as check_beta
from attnge.theory.inputs import d_qk as d_qk_of
from attnge.theory.inputs import integer, ratio
from attnge.theory.symbols import x

__all__ = ["AttentionSample", "sample_attention"]


@dataclass(frozen=True)
class AttentionSample:
    """One draw: ``scores`` S, ``attention`` A, ``centred`` √ℓ(A − 𝟙𝟙ᵀ/ℓ) (its squared
    singular values follow ν∞ in the limit) and ``linear`` (the linear Gaussian model on the
    same scores), with ``beta`` and ``d_qk``."""

    scores: np.ndarray
    attention: np.ndarray
    centred: np.ndarray
    linear: np.ndarray
    beta: float
    d_qk: int


def sample_attention(ell: int, d_qk: int | None = None, *, beta: float = 1.0,
                     y: float | None = None, random_state=None,
                     kernel: str | kernels.Kernel = "softmax") -> AttentionSample:
    r"""One attention matrix of ℓ tokens and its linear Gaussian model.

    Parameters
    ----------
    ell : int
        Tokens ℓ ≥ 2.
    d_qk : int, optional
        Query/key width; or give ``y`` (d_qk = round(ℓ/y)). Default: ℓ.
    beta : float
        Inverse temperature, 0 < β ≤ 6.
    random_state : int, numpy.random.Generator or None
        The draw's source: Q, K, then Z.
    kernel : str or theory.kernels.Kernel
        The entrywise kernel g of :math:`A = g(\beta S)/N`: a name of
        ``theory.kernels.KERNELS`` (default softmax), an expression in x (row-normalised),
        or a ``Kernel``.

    Returns
    -------
    AttentionSample
        ``centred`` is :math:`\sqrt\ell A P_\perp`.

    Notes
    -----
    .. math:: Y^{lin} = (\sqrt{\theta_2}\,S + \sqrt{\theta_1 - \theta_2}\,Z)/\sqrt\ell,

    :math:`\theta_1 = E f(\chi)^2`, :math:`\theta_2 = (E\,\chi f(\chi))^2` of the
    kernel's centred f (``theory.kernels``): :math:`e^{\beta^2} - 1` and :math:`\beta^2`
    for softmax.
    """
    ell = integer(ell, "ell", 2)
    b = check_beta(beta)
    if d_qk is not None and y is not None:
        raise ValueError("d_qk: give either d_qk or y, not both")
    width = d_qk_of(ell, ratio(y)) if y is not None else \
        ell if d_qk is None else integer(d_qk, "d_qk", 1)
    chosen = kernels.parse(kernel) if isinstance(kernel, str) else kernel
    rng = np.random.default_rng(random_state)
    draw = sample_scores(ell, width, rng)
    S = draw.S
    if chosen.cosine:                   # √d_qk cos(q_i, k_j): S over √(‖q_i‖²‖k_j‖²)/d_qk
        S = S / np.sqrt(np.outer(np.einsum("ij,ij->i", draw.Q, draw.Q),
                                 np.einsum("ij,ij->i", draw.K, draw.K)) / width**2)
    root = np.sqrt(ell)
    if chosen.g == sp.exp(x) and chosen.normalised and not chosen.plus_one \
            and chosen.finite is None:  # softmax of these scores, overflow-free
        A, (t1, t2) = attention(S, b), thetas(b)
        centred = root * (A - 1.0 / ell)
    else:
        form = chosen.g if chosen.finite is None else chosen.finite
        G = np.broadcast_to(sp.lambdify((x, kernels.ELL), form, "numpy")(b * S, ell), S.shape)
        A = G / (G.sum(axis=1, keepdims=True) + chosen.plus_one if chosen.normalised else ell)
        centred = root * (A - A.mean(axis=1, keepdims=True))          # √ℓ A P⊥
        exact = kernels.thetas(chosen, sp.nsimplify(b))
        t1, t2 = (float(v) for v in (exact or kernels.thetas_numeric(chosen, b, 20)))
    linear = (np.sqrt(t2) * S + np.sqrt(t1 - t2) * rng.standard_normal((ell, ell))) / root
    return AttentionSample(S, A, centred, linear, b, width)
