"""The threshold predictions as exact expressions."""

import sympy as sp

from theory import threshold as th


def test_temperature_thresholds_exact():
    t = th.temperature_thresholds()
    assert t["sd(D)"] == 1 and t["m1"] == 1 and t["kolmogorov"] == 1
    assert t["m2"] == sp.Rational(1, 2)
    assert sp.simplify(t["m3"] - (1 - sp.sqrt(3) / 3)) == 0
    assert sp.simplify(t["m4"] - (1 - sp.sqrt(6) / 4)) == 0
    assert sp.simplify(t["s1^2/E"] - (1 - 1 / sp.sqrt(2))) == 0


def test_moment_thresholds_are_roots_of_the_exponent_and_tend_to_the_outlier_one():
    exps = th.temperature_exponents()
    for q in (2, 3, 4):
        root = th.moment_threshold().subs(th.q, q)
        assert sp.simplify(exps[f"m{q}"].subs(th.c, root)) == 0
    assert sp.limit(th.moment_threshold(), th.q, sp.oo) == 1 - 1 / sp.sqrt(2)


def test_exponents_at_known_points():
    exps = th.temperature_exponents()
    assert exps["sd(D)"].subs(th.c, 0) == sp.Rational(-1, 2)   # Var D ~ θ₁/ℓ at fixed β
    assert exps["m1"].subs(th.c, 1) == 0


def test_order_thresholds():
    assert [th.order_threshold(k) for k in (2, 3, 4)] == [sp.Rational(1, 2), sp.Rational(1, 3),
                                                         sp.Rational(1, 4)]
    assert th.order_exponent().subs({th.k: 2, th.alpha: 1}) == -1
