"""Enclosures of right edges: arb's interval Newton against the floating edges of
numerics.limit_density and numerics.multi_head_law, and against the checker's mpmath
intervals (numerics.edge_bracket)."""

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from attnge.numerics import edge_bracket as eb
from attnge.numerics import multi_head_law as mhl
from attnge.numerics.limit_density import right_edge
from attnge.theory import certificates as ce
from attnge.theory import multi_head as mh

flint = pytest.importorskip("flint")
from attnge.numerics import edge_enclosure as ee  # noqa: E402

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


def _mp_law(r):
    """MP_r: its density on [λ₋, λ₊] and its atom 1 − 1/r at 0 (r > 1)."""
    lam = ((1 - mpmath.sqrt(r)) ** 2, (1 + mpmath.sqrt(r)) ** 2)
    density = lambda v: mpmath.sqrt((lam[1] - v) * (v - lam[0])) / (2 * mpmath.pi * r * v)  # noqa: E731
    return lam, density, max(0, 1 - 1 / mpmath.mpf(r))


def _cauchy(f, r):
    """∫ f(v) dMP_r(v) by quadrature (the atom at 0 added)."""
    lam, density, atom = _mp_law(r)
    return mpmath.quad(lambda v: f(v) * density(v), [lam[0], lam[1]]) + atom * f(0)


@pytest.mark.parametrize("r", [sp.Rational(1, 2), 1, 4])
def test_base_transforms_against_quadrature(r):
    """The closed forms both routes use: g beyond the support and left of it, g', and the
    partial fractions of a quadratic base, against ∫ dMP_r/(x − p(v)) by quadrature."""
    with mpmath.workdps(30):
        rr = mpmath.mpf(sp.Rational(r).p) / sp.Rational(r).q
        lam = _mp_law(rr)[0]
        poly = [sp.Rational(1, 3), sp.Rational(2, 5), sp.Rational(3, 7)]
        p = [mpmath.mpf(c.p) / c.q for c in poly]
        x = p[0] + p[1] * lam[1] + p[2] * lam[1] ** 2 + mpmath.mpf("0.7")
        for u, left in ((lam[1] + mpmath.mpf("0.7"), False), (mpmath.mpf("-0.9"), True)):
            g, dg = eb._g(eb.number(int(u * 10**20), 10**20), eb.number(sp.Rational(r).p,
                          sp.Rational(r).q), tuple(eb.number(int(v * 10**25), 10**25)
                                                   for v in lam), left)
            assert abs(mpmath.mpf(g.mid) - _cauchy(lambda v: 1 / (u - v), rr)) < 1e-13
            assert abs(mpmath.mpf(dg.mid) + _cauchy(lambda v: 1 / (u - v) ** 2, rr)) < 1e-13
        G, dG = eb._base([eb.number(c.p, c.q) for c in poly], eb.number(sp.Rational(r).p,
                         sp.Rational(r).q), eb.number(int(x * 10**25), 10**25))
        pv = lambda v: p[0] + p[1] * v + p[2] * v * v  # noqa: E731
        assert abs(mpmath.mpf(G.mid) - _cauchy(lambda v: 1 / (x - pv(v)), rr)) < 1e-13
        assert abs(mpmath.mpf(dG.mid) + _cauchy(lambda v: 1 / (x - pv(v)) ** 2, rr)) < 1e-13
        law = mh.Law(tuple(poly), sp.Rational(r), (mh.Layer("free", sp.Integer(1)),))
        with flint.ctx.workdps(30):
            arb_G = ee._Chain(law, flint.arb(1)).base(flint.arb(str(x)))
        assert abs(mpmath.mpf(arb_G.mid().str(25, radius=False)) - mpmath.mpf(G.mid)) < 1e-13
