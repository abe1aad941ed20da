r"""One draw of an attention variant and its Gaussian model on the same scores (issue 30).

The queries and keys come from the variant's input model and weight law (``sample_qk``);
the attention is its kernel with its mask, centred row by row over each row's support and
scaled by √n_i (``theory.masks``); the Gaussian model is the linear model the theory
predicts for it, built on the same scores:

.. math:: Y_{ij} = a_{ij}\big(\sqrt{\theta_2}\,S_{ij} + \sqrt{\theta_1 - \theta_2}\,Z_{ij}\big),

a the mask's profile (1/√ℓ without a mask), Z i.i.d. N(0, 1) (for repeated tokens Z is
repeated with them); for shared-mean inputs and a row-normalised exponential the model is
:math:`(\sqrt{\theta_2'}S^0 + \sqrt{\theta_1' - \theta_2'}Z)U/\sqrt\ell` on the draw's own
S⁰ and column weights (``theory.input_models``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from attnge.numerics.sampling import orthonormal_input
from attnge.theory import input_models, kernels, masks, weight_laws
from attnge.theory.symbols import x
from attnge.theory.variants import Variant


@dataclass(frozen=True)
class VariantDraw:
    """``centred`` (the attention, centred and scaled), ``model`` (its Gaussian model) and
    ``normalizer`` (D_ii = Σ_j e^{βS_ij − β²/2}/ℓ of the draw's plain scores)."""

    centred: np.ndarray
    model: np.ndarray
    normalizer: np.ndarray


@dataclass(frozen=True)
class QK:
    """Queries and keys of one draw; for shared-mean inputs also their parts (the common
    q̄, k̄ and the token parts Q⁰, K⁰); for repeated tokens the token of each row."""

    Q: np.ndarray
    K: np.ndarray
    parts: tuple[np.ndarray, ...] | None = None
    tokens: np.ndarray | None = None


def sample_qk(variant: Variant, ell: int, d_qk: int, rng: np.random.Generator) -> QK:
    """Q = XW^Q and K = XW^K for the variant's inputs X and weight law (module docstring).

    Orthonormal inputs without γ are coordinate rows, so Q and K are the weights' rows; with
    γ, X is Haar with width ℓ/γ. Gaussian inputs have rows N(0, I_d/d), d = ℓ/γ. Shared-mean
    rows are √α e₀ + √(1−α) e_i; repeated ones are V = ⌊ℓ/r⌋ coordinate rows, each used r or
    r + 1 times, in random order.
    """
    law = weight_laws.law_named(variant.weights)
    draw = lambda rows: law.sample((rows, d_qk), rng)  # noqa: E731
    name, value = variant.inputs, variant.value
    if name == "orthonormal" and value is None:
        return QK(draw(ell), draw(ell))
    if name in ("orthonormal", "gaussian"):
        d = max(1, round(ell / value))
        X = orthonormal_input(ell, d, rng) if name == "orthonormal" else \
            rng.standard_normal((ell, d)) / np.sqrt(d)
        return QK(X @ draw(d), X @ draw(d))
    if name == "shared-mean":
        (q_bar, k_bar), Q0, K0 = draw(2), draw(ell), draw(ell)
        a = np.sqrt(value), np.sqrt(1 - value)
        return QK(a[0] * q_bar + a[1] * Q0, a[0] * k_bar + a[1] * K0, (q_bar, k_bar, Q0, K0))
    vocabulary = max(1, ell // int(value))
    tokens = rng.permutation(np.arange(ell) % vocabulary)
    Qv, Kv = draw(vocabulary), draw(vocabulary)
    return QK(Qv[tokens], Kv[tokens], tokens=tokens)


def _kernel_matrix(kernel: kernels.Kernel, S: np.ndarray, beta: float, ell: int,
                   support: np.ndarray | None) -> np.ndarray:
    """The attention g(βS)/N with the mask: a row-normalised exponential by the stable
    softmax, the others from their expression (the finite form at ℓ where there is one)."""
    n = np.full((ell, 1), float(ell)) if support is None else support.sum(axis=1,
                                                                            keepdims=True)
    if kernel.g == sp.exp(x) and kernel.normalised and kernel.finite is None:
        e = beta * S
        if support is not None:
            e = np.where(support, e, -np.inf)
        shift = e.max(axis=1, keepdims=True)
        np.exp(e - shift, out=e)
        total = e.sum(axis=1, keepdims=True) + (np.exp(-shift) if kernel.plus_one else 0)
        return e / total
    form = kernel.g if kernel.finite is None else kernel.finite
    G = np.broadcast_to(sp.lambdify((x, kernels.ELL), form, "numpy")(beta * S, ell),
                        S.shape).copy()
    if support is not None:
        G[~support] = 0
    if kernel.normalised:
        return G / (G.sum(axis=1, keepdims=True) + kernel.plus_one)
    return G / n


def centre(A: np.ndarray, support: np.ndarray | None) -> np.ndarray:
    r""":math:`\sqrt{n_i}(A_{ij} - \bar A_i)` on each row's support, 0 off it (``theory.masks``)."""
    if support is None:
        ell = A.shape[1]
        return np.sqrt(ell) * (A - A.mean(axis=1, keepdims=True))
    n = support.sum(axis=1, keepdims=True)
    mean = A.sum(axis=1, keepdims=True) / n
    return np.where(support, np.sqrt(n) * (A - mean), 0.0)


def sample_variant(variant: Variant, ell: int, d_qk: int, beta: float, thetas: tuple[float, float],
                   rng: np.random.Generator) -> VariantDraw:
    """One draw of the variant at ℓ tokens: its centred attention, its Gaussian model on the
    same scores (with ``thetas`` = (θ₁[g], θ₂[g])) and the softmax normalizer of its scores."""
    qk = sample_qk(variant, ell, d_qk, rng)
    S = qk.Q @ qk.K.T / np.sqrt(d_qk)
    e = beta * S - beta**2 / 2
    normalizer = np.exp(e, out=e).mean(axis=1)
    del e
    kernel = variant.resolved
    if kernel.cosine:                     # √d_qk cos(q_i, k_j)
        S = S / np.sqrt(np.outer(np.einsum("ij,ij->i", qk.Q, qk.Q),
                                 np.einsum("ij,ij->i", qk.K, qk.K)) / d_qk**2)
    mask = masks.mask_named(variant.mask)
    support = mask.support(ell)
    centred = centre(_kernel_matrix(kernel, S, beta, ell, support), support)
    model = _gaussian_model(variant, qk, S, beta, thetas, d_qk, mask, rng)
    return VariantDraw(centred, model, normalizer)


def _gaussian_model(variant: Variant, qk: QK, S: np.ndarray, beta: float,
                    thetas: tuple[float, float], d_qk: int, mask: masks.Mask,
                    rng: np.random.Generator) -> np.ndarray:
    ell = S.shape[0]
    t1, t2 = thetas
    columns = np.ones(ell)
    if variant.inputs == "shared-mean" and variant.exp_normalised and mask.name == "none":
        q_bar, k_bar, Q0, K0 = qk.parts
        alpha = variant.value
        t1, t2, s2 = (float(v) for v in input_models.shared_mean_thetas(
            sp.nsimplify(beta), sp.nsimplify(alpha)))
        b = K0 @ q_bar / np.sqrt(d_qk)                   # the column term, ≈ N(0, 1)
        columns = np.exp(beta * np.sqrt(alpha * (1 - alpha)) * b - s2 / 2)
        S = Q0 @ K0.T / np.sqrt(d_qk)
    if qk.tokens is not None:
        vocabulary = int(qk.tokens.max()) + 1
        Z = rng.standard_normal((vocabulary, vocabulary))[np.ix_(qk.tokens, qk.tokens)]
    else:
        Z = rng.standard_normal((ell, ell))
    Z *= np.sqrt(max(t1 - t2, 0.0))
    Z += np.sqrt(t2) * S
    Z *= mask.weights(ell) * columns
    return Z
