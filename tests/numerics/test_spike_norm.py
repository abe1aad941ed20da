"""lim ‖Y^lin_Q − Y^lin_f‖ by two routes (the Stieltjes-integral kernel and the Jacobi matrix
of MP_y), against closed forms where Σ is scalar and against a sampled spike."""

import math

import numpy as np
import pytest

from attnge.numerics import spike_norm as sn
from attnge.theory.linear_model import sigma_G

GRID = [(b, y) for b in (0.25, 0.5, 1.0, 2.0, 3.0) for y in (1 / 16, 0.25, 1.0, 4.0, 16.0, 32.0)]


def _args(beta, y):
    return math.expm1(beta**2), beta**2, y, y * beta**4 / 2


@pytest.mark.parametrize("beta, y", GRID)
def test_two_routes_agree(beta, y):
    a, b = (sn.operator_limit(*_args(beta, y), route) for route in sn.ROUTES)
    assert abs(a - b) <= 1e-9 * b


@pytest.mark.parametrize("route", sn.ROUTES)
def test_scalar_sigma_gives_the_rank_one_value(route):
    """θ₂ = 0: Σ = θ₁I, M is rank one with norm √(θ₁ + s) − √θ₁."""
    assert sn.operator_limit(2.0, 0.0, 3.0, 0.7, route) == pytest.approx(
        math.sqrt(2.7) - math.sqrt(2.0), rel=1e-10)


@pytest.mark.parametrize("beta, y", [(1.0, 1.0), (0.5, 4.0)])
def test_spread_spectrum_exceeds_the_scalar_formula(beta, y):
    """The step's old limit √(θ₁ + s) − √θ₁ (Σ scalar along u) is too small: 0.1938 against
    0.1786 at β = y = 1, 0.1812 against 0.1066 at β = 0.5, y = 4."""
    t1, _, _, s = _args(beta, y)
    assert sn.operator_limit(*_args(beta, y)) > 1.05 * (math.sqrt(t1 + s) - math.sqrt(t1))


def test_sampled_spike_alone_approaches_the_limit():
    """‖(Σ_G + s uuᵀ)^{1/2} − Σ_G^{1/2}‖ on sampled keys (ℓ = 600, 3 draws) is within 5% of
    the limit at β = 0.5, y = 4, and the scalar formula is 40% off."""
    beta, y, ell = 0.5, 4.0, 600
    t1, t2, _, s = _args(beta, y)
    rng = np.random.default_rng(3)
    u = np.full(ell, ell**-0.5)

    def root(S):
        w, V = np.linalg.eigh(S)
        return (V * np.sqrt(w)) @ V.T

    norms = []
    for _ in range(3):
        K = rng.standard_normal((ell, round(ell / y)))
        SG = sigma_G(K @ K.T / K.shape[1], beta)
        norms.append(np.linalg.eigvalsh(root(SG + s * np.outer(u, u)) - root(SG))[-1])
    assert np.mean(norms) == pytest.approx(sn.operator_limit(t1, t2, y, s), rel=0.05)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="route"):
        sn.operator_limit(1.0, 0.5, 1.0, 0.1, "svd")
    with pytest.raises(ValueError, match="theta2"):
        sn.operator_limit(1.0, 1.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="^s "):
        sn.operator_limit(1.0, 0.5, 1.0, -0.1)
    assert sn.operator_limit(1.0, 0.5, 1.0, 0.0) == 0.0
