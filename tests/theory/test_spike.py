"""The spike of Σ_f − Σ_G and the pieces of its square-root difference, exactly."""

import pytest
import sympy as sp

from attnge.theory import exponential as ex
from attnge.theory import limit_law as ll
from attnge.theory import spike
from attnge.theory.symbols import beta, y


def test_strength_is_y_beta4_over_2():
    assert spike.strength() == y * beta**4 / 2
    assert spike.strength() == sp.factorial(2) * ex.hermite_coefficient(2, "f") ** 2 * y


def test_scalar_identity_integrates_to_the_root_difference():
    lam, s = spike.LAMBDA, spike.S
    assert sp.simplify(spike.scalar_identity() - (sp.sqrt(lam + s) - sp.sqrt(lam))) == 0


@pytest.mark.slow
def test_mp_jacobi_gives_the_narayana_moments():
    """e₀ᵀJᵏe₀ of the truncated Jacobi matrix (N = 6 holds orders < 2N) = E xᵏ of MP_y."""
    n = 6
    first, rest, off = spike.mp_jacobi(y)
    J = sp.zeros(n, n)
    for i in range(n):
        J[i, i] = first if i == 0 else rest
        if i:
            J[i, i - 1] = J[i - 1, i] = sp.sqrt(off)
    power, moments = sp.eye(n), []
    for _ in range(2 * n - 1):
        power = power * J
        moments.append(sp.expand(power[0, 0]))
    assert moments == [sp.expand(m) for m in ll.narayana_moments(2 * n - 1, y)]
