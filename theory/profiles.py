r"""The linear Gaussian model with a variance profile: its exact mean moments (issue 30).

A mask, row normalisers or column weights turn the linear model into
:math:`Y_{ij} = a_{ij}X_{ij}`, :math:`X = \sqrt{\theta_2}\,S + \sqrt{\theta_1 - \theta_2}\,Z`
with :math:`S = QK^\top/\sqrt{d_{qk}}` (Q, K, Z with i.i.d. N(0, 1) entries) and a fixed
profile a. By Wick's theorem, the fourth moments of X on the four corners
:math:`(i, j), (i', j), (i', j'), (i, j')` of a rectangle are

.. math:: \frac{\theta_2^2}{d_{qk}}\ (i \ne i', j \ne j'),\qquad
          \theta_1^2 + \frac{2\theta_2^2}{d_{qk}}\ (\text{one side collapsed}),\qquad
          3\theta_1^2 + \frac{6\theta_2^2}{d_{qk}}\ (\text{a point}),

so with :math:`T = \sum_{i,i'} (aa^\top)_{ii'}^2`, :math:`T_r = \sum_i (\sum_j a_{ij}^2)^2`,
:math:`T_c = \sum_j (\sum_i a_{ij}^2)^2`, :math:`T_0 = \sum_{ij} a_{ij}^4`,

.. math:: E\operatorname{tr}(YY^\top)^2 = v_a(T - T_r - T_c + T_0) + v_b(T_r + T_c - 2T_0)
          + v_d T_0,\qquad E\operatorname{tr}YY^\top = \theta_1\sum_{ij} a_{ij}^2,

exactly at every size; m_q is 1/ℓ times the trace. The masks and input models reduce their
predictions to these four sums (``theory.masks``, ``theory.input_models``).

Examples
--------
>>> import sympy as sp
>>> t1, t2, p = sp.symbols("theta1 theta2 p", positive=True)
>>> sp.factor(second_moment_trace(1, 1, 1, 1, t1, t2, p))   # one entry, a = 1
3*(p*theta1**2 + 2*theta2**2)/p
"""

from __future__ import annotations

import numpy as np
import sympy as sp


def second_moment_trace(T: object, T_rows: object, T_cols: object, T_0: object,
                        theta1: object, theta2: object, d_qk: object) -> sp.Expr:
    r""":math:`E\operatorname{tr}(YY^\top)^2` from the profile's four sums (module docstring).

    The sums may be SymPy expressions (closed forms in ℓ) or numbers.
    """
    v_a = theta2**2 / d_qk
    v_b = theta1**2 + 2 * theta2**2 / d_qk
    v_d = 3 * theta1**2 + 6 * theta2**2 / d_qk
    return v_a * (T - T_rows - T_cols + T_0) + v_b * (T_rows + T_cols - 2 * T_0) + v_d * T_0


def profile_sums(a: np.ndarray) -> tuple[float, float, float, float]:
    """(T, T_r, T_c, T_0) of a numeric profile a (ℓ×ℓ)."""
    a = np.asarray(a, dtype=float)
    gram = a @ a.T
    squares = a * a
    return (float(np.sum(gram * gram)), float(np.sum(squares.sum(axis=1) ** 2)),
            float(np.sum(squares.sum(axis=0) ** 2)), float(np.sum(squares * squares)))


def mean_moments(a: np.ndarray, theta1: float, theta2: float, d_qk: int) -> tuple[float, float]:
    """(E m₁, E m₂) of the model :math:`Y = a \\circ X` with a numeric profile, exactly."""
    ell = a.shape[0]
    m1 = theta1 * float(np.sum(np.asarray(a, dtype=float) ** 2)) / ell
    m2 = float(second_moment_trace(*profile_sums(a), theta1, theta2, d_qk)) / ell
    return m1, m2
