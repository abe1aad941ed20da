"""Moments of the limit law nu_inf = rho [x] MP_1: exact SymPy results, two independent routes."""

import pytest
import sympy as sp

from attnge.theory import limit_law as ll

beta, y = sp.symbols("beta y", positive=True)
t1, t2 = sp.symbols("theta1 theta2", positive=True)
THETA1, THETA2 = sp.exp(beta**2) - 1, beta**2


def _same(a, b):
    return len(a) == len(b) and all(sp.expand(u - v) == 0 for u, v in zip(a, b))


# --- sanity values (docs/math.md §5) -------------------------------------------------------


def test_m1_m2_sanity_values_in_beta_and_y():
    expected = [THETA1, 2 * THETA1**2 + y * THETA2**2]
    assert _same(ll.limit_moments(2, THETA1, THETA2, y), expected)
    assert _same(ll.limit_moments_functional(2, THETA1, THETA2, y), expected)
    assert ll.from_beta(beta) == (THETA1, THETA2)


def test_m3_generic_symbols():
    # m3 = k3 + 3 k1 k2 + k1^3 (non-crossing partitions of 3), k = moments of rho
    k1, k2 = t1, t1**2 + y * t2**2
    k3 = t1**3 + 3 * t1 * y * t2**2 + y**2 * t2**3
    assert _same(ll.jump_moments(3, t1, t2, y), [k1, k2, k3])
    assert ll.limit_moments(3, t1, t2, y)[2] == sp.expand(k3 + 3 * k1 * k2 + k1**3)


# --- the two routes agree exactly -----------------------------------------------------


@pytest.mark.parametrize(
    "theta1, theta2, ratio",
    [
        (THETA1, THETA2, y),                                   # symbolic in beta, y
        (t1, t2, y),                                           # generic symbols
        (sp.Rational(3, 2), sp.Rational(1, 3), sp.Integer(2)),  # rationals, y > 1
        (*ll.from_beta(sp.Rational(1, 2)), sp.Rational(1, 2)),  # exp(1/4) - 1, 1/4
    ],
)
def test_routes_agree_exactly_to_order_10(theta1, theta2, ratio):
    a = ll.limit_moments(10, theta1, theta2, ratio)
    b = ll.limit_moments_functional(10, theta1, theta2, ratio)
    assert _same(a, b)


def test_routes_on_classical_examples():
    catalan = [sp.catalan(n) for n in range(1, 9)]
    semicircle = [0, 1, 0, 2, 0, 5, 0, 14]
    for route in (ll.moments_from_free_cumulants, ll.moments_from_free_cumulants_series):
        assert route([1] * 8) == catalan                  # free Poisson = MP_1
        assert route([0, 1, 0, 0, 0, 0, 0, 0]) == semicircle


def test_theta2_zero_gives_the_mp_surrogate():
    assert _same(ll.limit_moments(10, t1, 0, y), ll.mp_surrogate_moments(10, t1))
    assert _same(ll.limit_moments_functional(10, THETA1, 0, y),
                 ll.mp_surrogate_moments(10, THETA1))
    assert ll.mp_surrogate_moments(5, 1) == [1, 2, 5, 14, 42]
    assert ll.mp_edge(THETA1) == 4 * THETA1
    # the limit law is not the surrogate once theta2 > 0: m2 exceeds 2 theta1^2 by y theta2^2
    m2 = ll.limit_moments(2, THETA1, THETA2, y)[1]
    assert sp.expand(m2 - ll.mp_surrogate_moments(2, THETA1)[1] - y * beta**4) == 0


# --- the ingredients ------------------------------------------------------------------


def test_narayana_moments_closed_forms():
    assert _same(ll.narayana_moments(4, y),
                 [1, 1 + y, 1 + 3 * y + y**2, 1 + 6 * y + 6 * y**2 + y**3])
    assert ll.narayana_moments(6, 1) == [sp.catalan(n) for n in range(1, 7)]


def test_jump_moments_central_moments_of_mp():
    # MP_y: variance y, third central moment y^2  =>  rho: theta2^2 y and theta2^3 y^2
    k1, k2, k3 = ll.jump_moments(3, t1, t2, y)
    assert sp.expand(k2 - k1**2) == t2**2 * y
    assert sp.expand(k3 - 3 * k1 * k2 + 2 * k1**3) == t2**3 * y**2


# --- every check can fail -------------------------------------------------------------


def test_wrong_free_cumulant_is_detected_by_the_other_route():
    kappas = ll.jump_moments(6, THETA1, THETA2, y)
    good = ll.moments_from_free_cumulants_series(kappas)
    assert _same(ll.moments_from_free_cumulants(kappas), good)
    wrong = list(kappas)
    wrong[1] += sp.Rational(1, 10**6)  # kappa_2 (hence m_2) perturbed
    bad = ll.moments_from_free_cumulants(wrong)
    assert sp.expand(bad[0] - good[0]) == 0
    assert all(sp.expand(u - v) != 0 for u, v in zip(bad[1:], good[1:]))


def test_classical_cumulant_formula_is_rejected_at_order_four():
    """Route 2 sees the non-crossing structure: a classical-cumulant recursion (which
    counts the crossing partition {13}{24} too) agrees to order 3 and fails at 4."""
    k = sp.symbols("k1:7")
    m = [sp.Integer(1)]
    for n in range(1, 7):  # m_n = sum_s C(n-1, s-1) k_s m_{n-s}
        m.append(sp.expand(sum(sp.binomial(n - 1, s - 1) * k[s - 1] * m[n - s]
                               for s in range(1, n + 1))))
    free = ll.moments_from_free_cumulants_series(list(k))
    assert _same(m[1:4], free[:3])
    assert sp.expand(m[4] - free[3]) == k[1] ** 2  # the one crossing pair partition
    assert _same(ll.moments_from_free_cumulants(list(k)), free)


# --- input checking -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, name",
    [
        ((0, t1, t2, y), "K"),
        ((-3, t1, t2, y), "K"),
        ((2.5, t1, t2, y), "K"),
        ((True, t1, t2, y), "K"),
        ((4, 0, t2, y), "theta1"),
        ((4, -1, t2, y), "theta1"),
        ((4, t1, -sp.Rational(1, 2), y), "theta2"),
        ((4, t1, t2, 0), "y"),
        ((4, t1, t2, -2), "y"),
        ((4, t1, t2, sp.oo), "y"),
        ((4, t1, t2, 1 + sp.I), "y"),
        ((4, t1, t2, sp.Symbol("q", negative=True)), "y"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(args, name):
    for fn in (ll.limit_moments, ll.limit_moments_functional, ll.jump_moments):
        with pytest.raises(ValueError, match=name if name != "K" else "(K|n) must"):
            fn(*args)


def test_bad_input_other_functions():
    with pytest.raises(ValueError, match="n must"):
        ll.narayana_moments(0, y)
    with pytest.raises(ValueError, match="theta1"):
        ll.mp_surrogate_moments(3, -1)
    with pytest.raises(ValueError, match="theta1"):
        ll.mp_edge(0)
    with pytest.raises(ValueError, match="beta"):
        ll.from_beta(0)
    with pytest.raises(ValueError, match="kappas"):
        ll.moments_from_free_cumulants([])
    with pytest.raises(ValueError, match="kappas"):
        ll.moments_from_free_cumulants_series("123")
