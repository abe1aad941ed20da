"""Enclosures of right edges: arb's interval Newton against the floating edges of
numerics.limit_density and numerics.multi_head_law, and against the checker's mpmath
intervals (numerics.edge_bracket)."""

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from numerics import edge_bracket as eb
from numerics import multi_head_law as mhl
from numerics.limit_density import right_edge
from theory import certificates as ce
from theory import multi_head as mh

flint = pytest.importorskip("flint")
from numerics import edge_enclosure as ee  # noqa: E402

T = ce.THETA1
LAWS = [  # kind, theta2 = beta^2, heads, gamma_k, gamma_v, gamma_o, sharing
    ("attention", sp.Integer(1), 1, 1, None, None, "none"),
    ("attention", sp.Rational(1, 100), 1, 10, None, None, "none"),
    ("attention", sp.Integer(9), 1, sp.Rational(1, 10), None, None, "none"),
    ("attention", sp.Rational(1, 4), 8, 2, None, None, "none"),
    ("output", sp.Integer(1), 8, 2, 2, 3, "none"),
    ("output", sp.Integer(1), 4, sp.Rational(1, 2), sp.Rational(1, 2), 1, "kv"),
    ("attention", sp.Integer(0), 8, 2, None, None, "none"),          # the surrogate
]


def enclosure(kind, t2, h, gk, gv, go, sharing, digits=30):
    law = mh.law(kind, T, t2, h, gk, gv, go, sharing, route="matrix")
    beta2 = sp.Integer(1) if t2 == 0 else t2
    with flint.ctx.workdps(digits):
        t1 = flint.arb(flint.fmpq(int(beta2.p), int(beta2.q))).exp() - 1
    return law, beta2, ee.enclose(law, sp.exp(beta2) - 1, t1, digits)


@pytest.mark.parametrize("case", LAWS)
def test_enclosure_holds_the_floating_edge_and_is_narrow(case):
    kind, t2, h, gk, gv, go, sharing = case
    law, beta2, found = enclosure(*case)
    stated = mh.law(kind, sp.exp(beta2) - 1, t2, h, gk, gv, go, sharing)
    with mpmath.workdps(40):
        edge = mhl.right_edge(stated, dps=35)
        lo, hi = (mpmath.mpf(v.numerator) / v.denominator for v in (found.lo, found.hi))
        assert lo - edge < 1e-25 * edge and edge - hi < 1e-25 * edge
    assert (found.hi - found.lo) / found.lo < Fraction(1, 10**20)


def test_one_head_against_limit_density():
    _, _, found = enclosure("attention", sp.Integer(1), 1, 2, None, None, "none")
    with mpmath.workdps(40):
        edge = right_edge(sp.E - 1, 1, sp.Rational(1, 2), dps=35)
        assert abs(mpmath.mpf(found.lo.numerator) / found.lo.denominator - edge) < 1e-25 * edge


@pytest.mark.parametrize("case", LAWS)
def test_the_checker_route_proves_a_subinterval(case):
    law, beta2, found = enclosure(*case)
    beta = sp.sqrt(beta2)
    t1 = ce.theta1_bounds(Fraction(str(beta)), 40)
    lo, hi = eb.bounds(law, T, t1, *map(Fraction, found.bracket), dps=60)
    assert found.lo <= lo <= hi <= found.hi


def test_the_checker_refuses_points_on_one_side():
    law, beta2, found = enclosure("attention", sp.Integer(1), 1, 1, None, None, "none")
    t1 = ce.theta1_bounds(1, 40)
    x_lo, x_hi = map(Fraction, found.bracket)
    with pytest.raises(ValueError, match="signs of phi'"):
        eb.bounds(law, T, t1, x_hi, x_hi * 2, dps=60)
    with pytest.raises(ValueError, match="beyond the base's edge"):
        eb.bounds(law, T, t1, Fraction(1), x_hi, dps=60)


def test_the_output_laws_lower_levels_must_be_on_their_real_branch():
    law, _, found = enclosure("output", sp.Integer(1), 8, 2, 2, 3, "none")
    t1 = ce.theta1_bounds(1, 40)
    base_edge = sp.E - 2 + 9  # θ₁ − θ₂ + θ₂(1 + √(h/γ_K))², h/γ_K = 4
    near = Fraction(str(sp.N(base_edge, 30))) * Fraction(1000001, 1000000)
    with pytest.raises(ValueError, match="lower level's edge"):
        eb.bounds(law, T, t1, near, Fraction(found.bracket[1]), dps=60)
