r"""The scores of a layer at initialisation, sampled from its init scheme (issue 30).

The second route to ``theory.initialisation.effective_beta``: draw inputs of the scheme's
norm (rows of a Gaussian matrix centred and scaled to squared norm d, as LayerNorm leaves
them, or to norm 1) and weights of its law and standard deviations, form the scores with the
scheme's scale (or QK-norm), and measure their root mean square, which is β.
"""

from __future__ import annotations

import numpy as np

from attnge.theory import weight_laws
from attnge.theory.initialisation import Init, score_scale


def sampled_beta(init: Init, d: int, d_k: int, tokens: int, draws: int,
                 rng: np.random.Generator) -> tuple[float, float]:
    """(β, its standard error): the root of the mean square of the off-diagonal scores of
    ``tokens`` tokens (whose expectation is β²), over ``draws`` independent layers (each its
    own inputs and weights: the scores of one layer share its weights, so the error comes
    from the draws)."""
    law = weight_laws.law_named(init.law)
    off = ~np.eye(tokens, dtype=bool)
    found = []
    for _ in range(draws):
        X = rng.standard_normal((tokens, d))
        X -= X.mean(axis=1, keepdims=True)
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        if init.input_norm == "layernorm":
            X *= np.sqrt(d)
        Q = X @ (float(init.std_q) * law.sample((d, d_k), rng))
        K = X @ (float(init.std_k) * law.sample((d, d_k), rng))
        if init.qk_norm_gain is not None:
            gain = float(init.qk_norm_gain)
            Q *= gain * np.sqrt(d_k) / np.linalg.norm(Q, axis=1, keepdims=True)
            K *= gain * np.sqrt(d_k) / np.linalg.norm(K, axis=1, keepdims=True)
        s = (Q @ K.T)[off] * float(score_scale(init, d_k))
        found.append(np.mean(s * s))                 # its mean is β² exactly
    beta = float(np.sqrt(np.mean(found)))
    return beta, float(np.std(found, ddof=1) / np.sqrt(draws)) / (2 * beta)
