"""Density, Stieltjes transform and right edge of nu_inf, checked against routes that do not
share their code: the Marchenko-Pastur closed form (theta2 = 0), the exact moments of
theory.limit_law (quadrature of the density; the Laurent series of m(z)), and the moment
ratio bound m_{n+1}/m_n <= edge."""

import mpmath
import pytest
import sympy as sp
from mpmath import mp, mpf

from numerics import limit_density as ld
from theory.limit_law import from_beta, limit_moments

DPS = 30


def _mpf(expr):
    return mpf(sp.N(expr, DPS + 10)._mpf_)


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
        assert ld.density(5 * th, theta1, 0, y, dps=DPS) < mpf(10) ** -20  # outside


# --- quadrature of the density reproduces the exact moments ---------------------------


@pytest.mark.parametrize("b, y", [(1, 1), (sp.Rational(1, 2), sp.Rational(1, 2))])
def test_density_mass_and_moments_match_limit_moments(b, y):
    theta1, theta2 = from_beta(b)
    exact = limit_moments(4, theta1, theta2, y)
    with mp.workdps(DPS):
        got = ld.density_moments([0, 1, 2, 3, 4], theta1, theta2, y, n_nodes=32, dps=20)
        assert abs(got[0] - 1) < mpf(10) ** -12
        for q in range(1, 5):
            assert abs(got[q] - _mpf(exact[q - 1])) < mpf(10) ** -11 * got[q]
        # the check can fail: 1% more theta2 moves m2 by y theta2^2 * 2% -- far outside
        wrong = limit_moments(2, theta1, theta2 * sp.Rational(101, 100), y)[1]
        assert abs(got[2] - _mpf(wrong)) > mpf(10) ** -5 * got[2]


@pytest.mark.parametrize("b, y", [(1, 2), (sp.Rational(1, 2), sp.Rational(1, 2))])
def test_stieltjes_matches_moment_series(b, y):
    """For |z| > edge, m(z) = -sum_n m_n / z^(n+1); y = 2 exercises the MP atom."""
    theta1, theta2 = from_beta(b)
    exact = limit_moments(30, theta1, theta2, y)
    with mp.workdps(DPS):
        edge = ld.right_edge(theta1, theta2, y, dps=DPS)
        z = 4 * edge * mp.expjpi(mpf(1) / 3)  # |m_n / z^n| <~ 4^-n
        m = ld.stieltjes(z, theta1, theta2, y, dps=DPS)
        series = -(1 + mp.fsum(_mpf(mn) / z ** (n + 1) for n, mn in enumerate(exact))) / z
        assert abs(m - series) < mpf(10) ** -17 * abs(m)


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
        assert in_gap < mpf(10) ** -15 < mpf(10) ** -3 < in_bulk
        got = ld.density_moments([0, 1, 2, 3, 4], theta1, theta2, 10, n_nodes=20, dps=20,
                                 intervals=parts)
        assert abs(got[0] - 1) < mpf(10) ** -11
        for q in range(1, 5):
            assert abs(got[q] - _mpf(exact[q - 1])) < mpf(10) ** -11 * got[q]
    assert len(ld.support(theta1, theta2, 2, dps=20)) == 1  # beta = 1, y = 2: no gap


# --- right edge -----------------------------------------------------------------------


def test_edge_beta1_y1_is_above_the_mp_edge():
    theta1, theta2 = from_beta(1)
    ms = limit_moments(21, theta1, theta2, 1)
    with mp.workdps(DPS):
        edge = ld.right_edge(theta1, theta2, 1, dps=DPS)
        mp_edge = 4 * _mpf(theta1)
        assert abs(edge - mpf("9.0095425503753116148")) < mpf(10) ** -18  # recorded value
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
        assert outside < mpf(10) ** -25
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
    with pytest.raises(ValueError, match=name):
        ld.right_edge(*args)
    with pytest.raises(ValueError, match=name):
        ld.density(1, *args)


def test_bad_points_and_precision():
    with pytest.raises(ValueError, match="x must"):
        ld.density(0, 1, 0, 1)
    with pytest.raises(ValueError, match="xs"):
        ld.density_grid([1, -2], 1, 0, 1)
    with pytest.raises(ValueError, match="z"):
        ld.stieltjes(1 - 1j, 1, 0, 1)
    with pytest.raises(ValueError, match="dps"):
        ld.right_edge(1, 0, 1, dps=2)
    with pytest.raises(ValueError, match="qs"):
        ld.density_moments([-1], 1, 0, 1)
    with pytest.raises(ValueError, match="n_nodes"):
        ld.density_moments([1], 1, 0, 1, n_nodes=1)
