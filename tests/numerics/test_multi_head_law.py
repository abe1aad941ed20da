"""Densities and edges of the multi-head and output laws: two routes, and the single head."""

import mpmath
import pytest
import sympy as sp

from attnge.numerics import limit_density
from attnge.numerics import multi_head_law as mhl
from attnge.theory import limit_law as ll
from attnge.theory import multi_head as mh
from attnge.theory import outliers

T1, T2 = ll.from_beta(1)


def laws(kind, sharing="none", heads=3, gk=None, go=None):
    gk = sp.Rational(3, 2) if gk is None else gk
    go = sp.Integer(1) if go is None else go
    gv = gk
    return [mh.law(kind, T1, T2, heads, gk, gv, go, sharing, route) for route in mh.ROUTES]


def test_one_head_gives_the_single_head_edge_density_and_stieltjes_transform():
    stated, matrix = laws("attention", heads=1, gk=sp.Rational(1, 2))     # y = 2
    with mpmath.workdps(30):
        edge = mhl.right_edge(stated, dps=25)
        assert abs(edge - limit_density.right_edge(T1, T2, 2, dps=25)) < mpmath.mpf(10) ** -22
        assert abs(edge - outliers.edge_point(1.0, 2.0, 25)[1]) < mpmath.mpf(10) ** -14
    xs = [0.5, 3, 7]
    for a, b in zip(mhl.density_grid(xs, matrix, dps=15),
                    limit_density.density_grid(xs, T1, T2, 2, dps=15)):
        assert abs(a - b) < 1e-12
    z = 2 + 1j
    assert abs(mhl.stieltjes(z, matrix, dps=15) - limit_density.stieltjes(z, T1, T2, 2, dps=15)) \
        < 1e-12


def test_without_theta2_and_one_head_the_edge_is_four_theta1():
    law = mh.law("attention", 1, 0, 1, 1)
    assert abs(mhl.right_edge(law, dps=20) - 4) < 1e-15


@pytest.mark.parametrize("kind, sharing", [("attention", "none"), ("output", "none"),
                                           ("values", "kv"), ("output", "kv")])
def test_the_two_edge_routes_agree_to_twenty_five_digits(kind, sharing):
    stated, matrix = laws(kind, sharing)
    with mpmath.workdps(30):
        a, b = mhl.right_edge(stated, dps=30), mhl.polynomial_edge(matrix, dps=30)
    assert abs(a - b) <= abs(a) * mpmath.mpf(10) ** -25


@pytest.mark.slow
@pytest.mark.parametrize("kind, sharing", [("attention", "none"), ("output", "kv")])
def test_the_density_carries_the_exact_moments(kind, sharing):
    stated, matrix = laws(kind, sharing)
    exact = [float(v) for v in mh.moments(stated, 2)]
    found = mhl.density_moments([1, 2], matrix, dps=10)
    assert all(abs(f - e) <= 1e-8 * e for f, e in zip(found, exact))


def test_a_wrong_law_has_another_edge():
    """A law with θ₂ halved has an edge 0.1 or more away: the edge rows are not blind to
    the law they are given."""
    right = mhl.right_edge(laws("attention")[0], dps=15)
    wrong = mh.law("attention", T1, T2 / 2, 3, sp.Rational(3, 2))
    assert abs(mhl.right_edge(wrong, dps=15) - right) > 0.1


def test_stieltjes_needs_the_upper_half_plane():
    with pytest.raises(ValueError, match="Im z > 0"):
        mhl.stieltjes(2, laws("attention")[1])


@pytest.mark.parametrize("route", mh.ROUTES)
def test_one_head_gives_the_single_head_outlier_threshold_and_location(route):
    law = mh.law("attention", T1, T2, 1, sp.Rational(1, 2), route=route)      # y = 2
    point = outliers.edge_point(1.0, 2.0, 25)
    edge, g = mhl.edge_stieltjes(law, dps=25)
    assert abs(edge - point[1]) < 1e-14 and abs(g + 1 / point[0]) < 1e-14   # s* = -1/g(E)
    assert abs(mhl.outlier_threshold(law, 1, dps=25) - point[2]) < 1e-14
    for a in (1.2 * float(point[2]), 2 * float(point[2])):
        single = outliers.outlier_location(a, 1.0, 2.0)
        assert abs(mhl.outlier_location(law, 1, a, dps=20) - single) < 1e-10 * single


def test_entry_for_location_inverts_the_outlier_location():
    """h = 2: the round trip a -> lambda(a) -> a; h = 1: the single head's inverse."""
    law = mh.law("attention", T1, T2, 2, 32)                   # y = 1/16
    for a in (1.7, 2.0, 3.0):
        lam = mhl.outlier_location(law, 2, a, 15)
        assert abs(mhl.entry_for_location(law, 2, lam, 15) - a) < 1e-10
    one = mh.law("attention", T1, T2, 1, sp.Rational(1, 2))    # y = 2
    for lam in (30.0, 40.0):
        assert abs(mhl.entry_for_location(one, 1, lam, 20)
                   - outliers.entry_for_location(lam, 1.0, 2.0)) < 1e-10
    with pytest.raises(ValueError, match="lam must exceed the right edge"):
        mhl.entry_for_location(law, 2, 0.99 * mhl.right_edge(law, 15), 15)


def test_more_heads_need_a_larger_entry_and_place_it_above_the_edge():
    thresholds = [mhl.outlier_threshold(mh.law("attention", T1, T2, h, sp.Integer(h)), h, 15)
                  for h in (1, 2, 4)]                         # y = 1: 1.83, 2.03, 2.29
    assert thresholds[0] < thresholds[1] < thresholds[2]
    law = mh.law("attention", T1, T2, 2, 2)
    edge = mhl.right_edge(law, 15)
    assert edge < mhl.outlier_location(law, 2, 1.01 * thresholds[1], 15) < 1.01 * edge
    with pytest.raises(ValueError, match="threshold"):
        mhl.outlier_location(law, 2, 0.99 * thresholds[1], 15)


@pytest.mark.slow
def test_a_planted_entry_in_the_gaussian_model_of_two_heads_sits_where_predicted():
    """Second route: the n x 2n Gaussian model [Y_1 Y_2]/sqrt(2), Y_r = (sqrt(theta2) S_r +
    sqrt(theta1 - theta2) G_r)/sqrt(n), with an entry a planted in Y_1 (measured at n = 1000,
    4 draws: within 0.6% at beta = 1, y = 1 and 1/16, for a = 1.2 ... 2.2 a_c)."""
    import numpy as np
    t1, t2 = float(T1), float(T2)
    law = mh.law("attention", T1, T2, 2, 2)                  # y = 1
    a = 1.6 * float(mhl.outlier_threshold(law, 2, 15))
    rng = np.random.default_rng(3)
    n, tops = 800, []
    for _ in range(3):
        ys = []
        for _ in range(2):
            S = rng.standard_normal((n, n)) @ rng.standard_normal((n, n)).T / np.sqrt(n)
            ys.append((np.sqrt(t2) * S + np.sqrt(t1 - t2) * rng.standard_normal((n, n)))
                      / np.sqrt(n))
        ys[0][n // 2, n // 3] += a
        X = np.hstack(ys) / np.sqrt(2)
        tops.append(np.linalg.eigvalsh(X @ X.T)[-1])
    predicted = float(mhl.outlier_location(law, 2, a, 15))
    assert abs(np.mean(tops) / predicted - 1) < 0.02
    assert predicted > 1.1 * float(mhl.right_edge(law, 15))  # an outlier, not the edge


@pytest.mark.slow
def test_issue_28_a_density_near_the_edge_is_read_from_every_root():
    """beta = 1, y = 53, one head's output law: just inside the edge the physical root is
    not among the double-precision candidates, and every root must decide (else the density
    reads 0 there and the curve's double root is refused)."""
    from attnge.fits import laws as step_laws

    stated, matrix = step_laws(1.0, 53.0, 1, "output", "none", sp.Rational(1, 53))
    edge = mhl.right_edge(stated, dps=30)
    assert abs(mhl.polynomial_edge(matrix, dps=30) / edge - 1) < 1e-20
    assert mhl.density(edge * (1 - mpmath.mpf(10) ** -6), matrix, dps=20) > 0


@pytest.mark.slow
def test_issue_28_an_end_of_the_support_is_where_the_physical_root_meets_another():
    """h = 12 output law: 2.4e-13 (relative) below its lower end two spurious roots of the
    curve meet (g ≈ 38.2), closer together than the physical pair (g ≈ 11.2); the end
    started from the closest pair was that double root, inside the gap."""
    law = mh.law("output", T1, T2, 12, sp.Rational(3, 2), sp.Rational(3, 2),
                 sp.Rational(3, 2))
    (lo, hi), = mhl.support(law, dps=30)
    assert abs(hi / mhl.right_edge(law, dps=30) - 1) < mpmath.mpf(10) ** -28
    offset = mpmath.mpf(10) ** -14
    assert mhl.density(lo * (1 - offset), law, dps=30) == 0
    assert mhl.density(lo * (1 + offset), law, dps=30) > 0


@pytest.mark.slow
def test_issue_28_a_zero_read_from_the_fast_candidates_is_checked(monkeypatch):
    """The support's scan reads zero densities from the double-precision candidates; a
    wrong zero there (injected just inside the lower end, as at beta = 235/44, y = 1/64,
    h = 5) is found by the checks and the scan is redone with every density read from every
    root: the same support as the fast scan's when nothing is wrong."""
    law = laws("attention", heads=4)[0]
    right = mhl.support(law, dps=20)
    density_at = mhl._density_at
    (lo, _), = right

    def wrong(numeric, x, sure=True):
        if not sure and lo < x < lo * 1.2:
            return mpmath.mpf(0)
        return density_at(numeric, x, sure)

    monkeypatch.setattr(mhl, "_density_at", wrong)
    with mpmath.workdps(30):
        numeric = mhl._Law(law)
        edge = mhl._edge_of(numeric)[1]
        assert mhl._scan(numeric, edge, sure=False)[0][0] > lo * 1.1    # the wrong scan
        got = mhl._support(numeric, edge)
    assert [(float(a), float(b)) for a, b in got] == [(float(a), float(b)) for a, b in right]
