"""Density, support, Stieltjes transform and right edge of nu_inf, checked against routes that
do not share their code: the Marchenko-Pastur closed form (theta2 = 0), the fixed-point
equation by quadrature (_JumpLaw), the exact moments of theory.limit_law (quadrature of the
density; the Laurent series of m(z)), the critical-point right edge, and the moment ratio
bound m_{n+1}/m_n <= edge."""

import mpmath
import pytest
import sympy as sp
from mpmath import mp, mpf

from attnge.numerics import limit_density as ld
from attnge.theory.limit_law import from_beta, limit_moments

DPS = 30
GRID_DPS = 12  # density moments on the grid: target 1e-12, checked to 10 digits
BETAS = [sp.Rational(1, 4), sp.Rational(1, 2), sp.Rational(3, 4), 1, sp.Rational(5, 4),
         sp.Rational(3, 2), 2, 3]
YS = [sp.Rational(1, 10), sp.Rational(1, 2), 1, 2, 4, 8, 32]
NARROW_GAP_Y = sp.Rational(2517, 500)  # beta = 1: a gap of width 8.6e-7 opens near y = 5.0338


def _mpf(expr):
    return mpf(sp.N(expr, DPS + 10)._mpf_)


def _check_moments(b, y, dps=GRID_DPS, digits=10):
    """Mass 1 and m_1..m_4 of the density against limit_moments, to ``digits`` digits."""
    theta1, theta2 = from_beta(b)
    exact = limit_moments(4, theta1, theta2, y)
    got = ld.density_moments([0, 1, 2, 3, 4], theta1, theta2, y, dps=dps)
    assert abs(got[0] - 1) < mpf(10) ** -digits
    for q in range(1, 5):
        assert abs(got[q] - _mpf(exact[q - 1])) < mpf(10) ** -digits * _mpf(exact[q - 1])
    return got


# --- the algebraic equation -----------------------------------------------------------


def test_quartic_is_the_fixed_point_equation_cleared_of_denominators():
    """z = -1/m + int t/(1+tm) d rho, with int t/(1+tm) d rho = 1/m - g(w)/(b m^2),
    w = -(1+am)/(bm), and g the MP_y Stieltjes transform: y w g^2 + (w+y-1) g + 1 = 0."""
    m, z, a, b, y = sp.symbols("m z a b y")
    g = -b * z * m**2  # from z = -g(w) / (b m^2)
    w = -(1 + a * m) / (b * m)
    cleared = sp.numer(sp.together(y * w * g**2 + (w + y - 1) * g + 1))
    assert sp.simplify(cleared / sp.Poly(ld._quartic(a, b, y, z), m).as_expr()) == 1
    # the edge cubic: constant term -16 a (t_max t_c)^2, t_max, t_c the ends of rho's bulk
    c0 = ld._edge_cubic()(a, b, y)[-1]
    t_max, t_c = a + b * (1 + sp.sqrt(y)) ** 2, a + b * (1 - sp.sqrt(y)) ** 2
    assert sp.expand(c0 + 16 * a * (t_max * t_c) ** 2) == 0


@pytest.mark.parametrize("b, y", [(1, 2), (sp.Rational(1, 2), sp.Rational(1, 2)), (1, 10)])
def test_stieltjes_solves_the_quadrature_fixed_point_equation(b, y):
    """The root picked from the quartic solves the original equation, whose rho-integral is
    a quadrature against the MP density (its atom for y > 1 included)."""
    theta1, theta2 = from_beta(b)
    with mp.workdps(DPS):
        law = ld._law(theta1, theta2, y)
        edge = ld.right_edge(theta1, theta2, y, dps=DPS)
        for z in [edge * mp.expjpi(mpf(k) / 5) for k in range(1, 5)] + [edge / 3 + 1e-3j]:
            m = ld.stieltjes(z, theta1, theta2, y, dps=DPS)
            assert m.imag > 0
            assert abs(law.z_of_m(m, z)[0]) < mpf(10) ** -18 * abs(z)


def test_edges_are_double_roots_of_the_quartic():
    theta1, theta2 = from_beta(1)
    with mp.workdps(DPS):
        law = ld._law(theta1, theta2, 10)
        for lo, hi in ld.support(theta1, theta2, 10, dps=DPS):
            for e in (lo, hi):
                if e > 0:
                    r = ld._roots(ld._quartic(law.a, law.theta2, law.y, e))
                    gap = min(abs(u - v) for i, u in enumerate(r) for v in r[i + 1:])
                    assert gap < mpf(10) ** -10 * max(abs(u) for u in r)


@pytest.mark.parametrize("n", [5, 6, 33])
def test_gauss_legendre_rule_is_exact_to_degree_2n_minus_1(n):
    with mp.workprec(120):
        rule = ld._gauss_legendre(n, 120)
        assert len(rule) == n
        for k in (0, 2 * n - 2):
            assert abs(mp.fsum(w * x**k for x, w in rule) - mpf(2) / (k + 1)) < mpf(2) ** -110


# --- theta2 = 0: nu_inf = theta1 * MP_1 -----------------------------------------------


@pytest.mark.parametrize("y", [1, sp.Rational(5, 2), sp.Rational(2, 5)])
def test_theta2_zero_is_scaled_mp(y):
    theta1 = sp.E - 1
    with mp.workdps(DPS):
        th = _mpf(theta1)
        xs = [th * c for c in (mpf("0.01"), mpf("0.5"), mpf(2), mpf("3.9"))]
        got = ld.density_grid(xs, theta1, 0, y, dps=DPS)
        for x, d in zip(xs, got):
            exact = mp.sqrt((4 * th - x) * x) / (2 * mp.pi * th * x)
            assert abs(d - exact) <= mpf(10) ** (-DPS + 5) * exact
        edge = ld.right_edge(theta1, 0, y, dps=DPS)
        assert abs(edge - 4 * th) <= mpf(10) ** (-DPS + 5) * edge  # >= 12 digits asked
        (lo, hi), = ld.support(theta1, 0, y, dps=DPS)
        assert lo == 0 and abs(hi - 4 * th) <= mpf(10) ** (-DPS + 2) * hi
        assert ld.density(5 * th, theta1, 0, y, dps=DPS) == 0  # outside


# --- every grid point: mass, moments, edge --------------------------------------------


# the whole grid in the full suite (0.3-0.9 s a point); the fast tier (-m "not slow") keeps
# one point per beta, a different y for each
GRID = [pytest.param(b, y, id=f"{b}-{y}",
                     marks=() if j == i % len(YS) else pytest.mark.slow)
        for i, b in enumerate(BETAS) for j, y in enumerate(YS)]


@pytest.mark.parametrize("b, y", GRID)
def test_grid_mass_moments_and_edge(b, y):
    """Mass 1 and m_1..m_4 to 10 digits; the support's right end is right_edge."""
    with mp.workdps(20):
        _check_moments(b, y)
        theta1, theta2 = from_beta(b)
        edge = ld.right_edge(theta1, theta2, y, dps=15)
        assert abs(ld.support(theta1, theta2, y, dps=15)[-1][1] - edge) < mpf(10) ** -13 * edge


# --- split supports -------------------------------------------------------------------


def test_support_with_a_gap_beta1_y10():
    """y > 1: rho has an atom at theta1 - theta2 far below its continuous part, and nu_inf
    splits in two intervals; the moments over both still match the exact ones."""
    theta1, theta2 = from_beta(1)
    exact = limit_moments(4, theta1, theta2, 10)
    with mp.workdps(20):
        parts = ld.support(theta1, theta2, 10, dps=20)
        (lo1, hi1), (lo2, hi2) = parts
        assert lo1 == 0 and 2 < hi1 < 3 and 4 < lo2 < 5 and 23 < hi2 < 24
        in_gap, in_bulk = ld.density_grid([(hi1 + lo2) / 2, (lo2 + hi2) / 2],
                                          theta1, theta2, 10, dps=20)
        assert in_gap == 0 and in_bulk > mpf(10) ** -3
        got = ld.density_moments([0, 1, 2, 3, 4], theta1, theta2, 10, n_nodes=20, dps=20,
                                 intervals=parts)
        assert abs(got[0] - 1) < mpf(10) ** -18
        for q in range(1, 5):
            assert abs(got[q] - _mpf(exact[q - 1])) < mpf(10) ** -18 * got[q]
    assert len(ld.support(theta1, theta2, 2, dps=20)) == 1  # beta = 1, y = 2: no gap


@pytest.mark.slow
def test_narrow_gap_is_found_and_integrated():
    """beta = 1, y = 5.034: a gap of width 8.6e-7 (a scan of z'(m) misses it); the density
    vanishes inside and not next to it, and the moments over both intervals are exact."""
    theta1, theta2 = from_beta(1)
    with mp.workdps(20):
        parts = ld.support(theta1, theta2, NARROW_GAP_Y, dps=20)
        assert len(parts) >= 2
        (_, g1), (g2, _) = parts[:2]
        width = g2 - g1
        assert 0 < width < mpf(10) ** -6 and 2 < g1 < 3
        left, mid, right = ld.density_grid([g1 - width, (g1 + g2) / 2, g2 + width],
                                           theta1, theta2, NARROW_GAP_Y, dps=20)
        assert mid == 0 and left > 0 and right > 0
    _check_moments(1, NARROW_GAP_Y, dps=16, digits=14)


@pytest.mark.slow
def test_near_cusp_without_a_gap():
    """beta = 1, y = 5.03, just before the gap opens: one interval, a density minimum near
    2.1442 (complex edge roots 2.1442 +- 2.6e-5 i), moments still exact."""
    theta1, theta2 = from_beta(1)
    y = sp.Rational(503, 100)
    with mp.workdps(20):
        assert len(ld.support(theta1, theta2, y, dps=20)) == 1
        law = ld._law(theta1, theta2, y)
        near = [r for r in ld._edge_roots(law.a, law.theta2, law.y) if r.imag > 0]
        assert len(near) == 1 and abs(near[0].imag) < mpf(10) ** -4
    _check_moments(1, y, dps=16, digits=14)


def test_a_wrong_law_fails_the_moment_check(monkeypatch):
    """y -> 1/y in the quartic (edges follow, as the cubic is derived from it): still a
    probability law, but its moments miss the exact ones by far."""
    theta1, theta2 = from_beta(1)
    exact = limit_moments(4, theta1, theta2, 2)
    true_quartic = ld._quartic
    ld._edge_cubic.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(ld, "_quartic", lambda a, b, y, z: true_quartic(a, b, 1 / y, z))
            with mp.workdps(20):
                got = ld.density_moments([0, 1, 2, 3, 4], theta1, theta2, 2, dps=12)
    finally:
        ld._edge_cubic.cache_clear()
    assert abs(got[0] - 1) < mpf(10) ** -10
    assert abs(got[1] - _mpf(exact[0])) < mpf(10) ** -10 * got[1]  # m1 = theta1 for any y
    for q in range(2, 5):
        assert abs(got[q] - _mpf(exact[q - 1])) > mpf(10) ** -2 * got[q]


# --- Stieltjes transform against the moment series ------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("b, y", [(1, 2), (sp.Rational(1, 2), sp.Rational(1, 2))])
@pytest.mark.parametrize("direction", [mpf(1) / 3, 0, 1])
def test_stieltjes_matches_moment_series(b, y, direction):
    """For |z| > edge, m(z) = -sum_n m_n / z^(n+1); z real (direction 0, 1) is off the
    support, where m is real; y = 2 exercises the MP atom."""
    theta1, theta2 = from_beta(b)
    exact = limit_moments(30, theta1, theta2, y)
    with mp.workdps(DPS):
        edge = ld.right_edge(theta1, theta2, y, dps=DPS)
        z = 4 * edge * mp.expjpi(direction)  # |m_n / z^n| <~ 4^-n
        if direction in (0, 1):
            z = mpf(z.real)
        m = ld.stieltjes(z, theta1, theta2, y, dps=DPS)
        series = -(1 + mp.fsum(_mpf(mn) / z ** (n + 1) for n, mn in enumerate(exact))) / z
        assert abs(m - series) < mpf(10) ** -17 * abs(m)


# --- right edge -----------------------------------------------------------------------


def test_edge_beta1_y1_is_above_the_mp_edge():
    theta1, theta2 = from_beta(1)
    ms = limit_moments(21, theta1, theta2, 1)
    with mp.workdps(DPS):
        edge = ld.right_edge(theta1, theta2, 1, dps=DPS)
        mp_edge = 4 * _mpf(theta1)
        assert abs(edge - mpf("9.0095425503753116148")) < mpf(10) ** -18  # recorded value
        assert abs(ld.support(theta1, theta2, 1, dps=DPS)[-1][1] - edge) < mpf(10) ** -25
        assert edge > mpf("1.3") * mp_edge  # 9.00954... vs 4(e - 1) = 6.87312...
        # an exact-moment certificate: supp nu in [0, edge] => m21/m20 <= edge, and
        # already m21/m20 > 4 theta1, so the edge cannot be the MP edge
        ratio = _mpf(ms[20]) / _mpf(ms[19])
        assert mp_edge < ratio <= edge
        assert ratio > mpf("0.9") * edge
        # precision: a second run at higher precision agrees to > 12 digits
        assert abs(ld.right_edge(theta1, theta2, 1, dps=DPS + 15) - edge) < mpf(10) ** -25


def test_edge_is_where_the_density_vanishes():
    theta1, theta2 = from_beta(1)
    with mp.workdps(DPS):
        edge = ld.right_edge(theta1, theta2, 1, dps=DPS)
        eps = mpf(10) ** -6
        inside, far_inside, outside = ld.density_grid(
            [edge * (1 - eps), edge * (1 - 100 * eps), edge * (1 + eps)],
            theta1, theta2, 1, dps=DPS)
        assert outside == 0
        assert inside > 0
        assert abs(far_inside / inside - 10) < mpf("0.01")  # square-root edge


# --- input checking -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, name",
    [
        ((0, 1, 1), "theta1"),
        ((-1, 0, 1), "theta1"),
        ((1, -1, 1), "theta2"),
        ((1, 1, 0), "y"),
        ((1, 1, -1), "y"),
        ((1, 1, mpmath.inf), "y"),
        ((1, "x", 1), "theta2"),
        ((1, 2, 1), "theta2"),  # jump law would reach t <= 0
    ],
)
def test_bad_parameters_raise_value_error_naming_them(args, name):
    for call in (ld.right_edge, ld.support, lambda *p: ld.density(1, *p),
                 lambda *p: ld.density_moments([1], *p)):
        with pytest.raises(ValueError, match=name):
            call(*args)


def test_bad_points_and_precision():
    with pytest.raises(ValueError, match="x must"):
        ld.density(0, 1, 0, 1)
    with pytest.raises(ValueError, match="xs"):
        ld.density_grid([1, -2], 1, 0, 1)
    with pytest.raises(ValueError, match="z"):
        ld.stieltjes(1 - 1j, 1, 0, 1)
    with pytest.raises(ValueError, match="z"):
        ld.stieltjes(0, 1, 0, 1)
    with pytest.raises(ValueError, match="dps"):
        ld.right_edge(1, 0, 1, dps=2)
    with pytest.raises(ValueError, match="qs"):
        ld.density_moments([-1], 1, 0, 1)
    with pytest.raises(ValueError, match="n_nodes"):
        ld.density_moments([1], 1, 0, 1, n_nodes=1)
