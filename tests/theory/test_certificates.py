"""Exact bounds and moments of the certificates: against mpmath at high precision and the
non-crossing recursion of theory.limit_law."""

from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from attnge.theory import certificates as ce
from attnge.theory import limit_law as ll

rationals = st.fractions(min_value=0, max_value=40, max_denominator=50)


@settings(max_examples=40, deadline=None)
@given(rationals, st.integers(5, 40))
def test_exp_bounds_hold_e_to_x(x, digits):
    lo, hi = ce.exp_bounds(x, digits)
    with mpmath.workdps(digits + 40):
        e = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= e
        assert e <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo <= 3 * hi * Fraction(1, 10**digits)


@settings(max_examples=60, deadline=None)
@given(st.fractions(min_value=-10**6, max_value=10**6, max_denominator=10**9),
       st.integers(1, 30))
def test_decimal_rounding_is_outward_and_tight(x, digits):
    down, up = Fraction(ce.decimal_down(x, digits)), Fraction(ce.decimal_up(x, digits))
    assert down <= x <= up
    assert up - down <= abs(x) * Fraction(10) ** (1 - digits) * 2 or x == 0


def test_decimal_strings_read_as_written():
    assert ce.decimal_down(Fraction(1, 3), 5) == "0.33333"
    assert ce.decimal_up(Fraction(1, 3), 5) == "0.33334"
    assert ce.decimal_up(Fraction(-1, 3), 5) == "-0.33333"
    assert ce.decimal_down(Fraction(12345678), 3) == "12300000"


@settings(max_examples=25, deadline=None)
@given(st.fractions(min_value=Fraction(1, 20), max_value=5, max_denominator=30),
       st.fractions(min_value=0, max_value=3, max_denominator=30),
       st.fractions(min_value=Fraction(1, 10), max_value=10, max_denominator=30))
def test_quartic_moments_equal_the_non_crossing_recursion(a, b, y):
    R = lambda f: sp.Rational(f.numerator, f.denominator)  # noqa: E731
    nc = ll.limit_moments(7, R(a + b), R(b), R(y))
    assert ce.quartic_moments(7, a, b, y) == [Fraction(int(m.p), int(m.q)) for m in nc]


def test_law_moments_by_three_routes_agree_at_one_head():
    cell = {"kind": "attention", "theta2": "1/4", "heads": "1", "gamma_k": "2"}
    t1 = Fraction(7, 10)
    q = ce.law_moments_at(t1, 6, cell, "quartic")
    assert q == ce.law_moments_at(t1, 6, cell, "matrix") == ce.law_moments_at(t1, 6, cell,
                                                                               "stated")


@pytest.mark.parametrize("cell, gap", [
    ({"kind": "output", "theta2": "1", "heads": "4", "gamma_k": "1/2", "gamma_v": "1/2",
      "gamma_o": "1", "sharing": "kv"}, 72 * ce.THETA1 + 322),                     # K = V
    ({"kind": "attention", "theta2": "1", "heads": "1", "gamma_k": "1/2"}, 2),     # y θ₂²
    ({"kind": "attention", "theta2": "1/4", "heads": "8", "gamma_k": "2"}, sp.Rational(1, 32)),
    ({"kind": "output", "theta2": "1/4", "heads": "8", "gamma_k": "2", "gamma_v": "2",
      "gamma_o": "3"}, sp.Rational(9, 32)),                                        # γ_O²θ₂²/γ_K
])
def test_m2_gap_on_both_routes(cell, gap):
    assert ce.m2_gap(cell, "matrix") == ce.m2_gap(cell, "stated") == gap
    assert ce.positive(gap)


def test_positive_needs_every_coefficient():
    t = ce.THETA1
    assert not ce.positive(t - 1) and not ce.positive(sp.Integer(0)) and ce.positive(t**2)


@pytest.mark.slow
def test_ratio_bound_is_below_the_ratio_and_grows_to_the_edge():
    from attnge.numerics.limit_density import right_edge

    t1 = ce.theta1_bounds(1, 40)
    cell = {"kind": "attention", "theta2": "1", "heads": "1", "gamma_k": "1"}
    lower, upper = (ce.law_moments_at(t, 31, cell, "quartic") for t in t1)
    ratios = [ce.ratio_bound(k, lower, upper) for k in range(1, 31)]
    with mpmath.workdps(60):
        true = [sp.N(m, 60) for m in ll.limit_moments(31, sp.E - 1, 1, 1)]
        for k, bound in enumerate(ratios, start=1):
            exact = mpmath.mpf(true[k]) / mpmath.mpf(true[k - 1])
            assert bound <= Fraction(str(exact)) * (1 + Fraction(1, 10**35))
            slack = 1 + mpmath.mpf(10) ** -30
            assert exact <= mpmath.mpf(bound.numerator) / bound.denominator * slack
    edge = right_edge(sp.E - 1, 1, 1, dps=30)
    assert all(r1 < r2 for r1, r2 in zip(ratios, ratios[1:]))
    assert float(ratios[-1]) < edge < float(ratios[-1]) * (1 + 3 / 60 + 0.01)
