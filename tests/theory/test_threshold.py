"""The threshold predictions as exact expressions."""

import math

import numpy as np
import pytest
import sympy as sp

from attnge.theory import threshold as th


def test_temperature_thresholds_exact():
    t = th.temperature_thresholds()
    assert t["sd(D)"] == 1 and t["kolmogorov"] == 1 / sp.sqrt(2)
    assert sp.simplify(t["m1"] - sp.sqrt(sp.Rational(2, 3))) == 0
    assert t["m2/m1^2"] == sp.Rational(1, 2)
    assert sp.simplify(t["m3/m1^3"] - (1 - sp.sqrt(3) / 3)) == 0
    assert sp.simplify(t["m4/m1^4"] - (1 - sp.sqrt(6) / 4)) == 0
    assert sp.simplify(t["s1^2/E"] - (1 - 1 / sp.sqrt(2))) == 0
    assert set(t) == set(th.TEMPERATURE_QUANTITIES)


def test_moment_thresholds_are_roots_of_the_exponent_and_tend_to_the_outlier_one():
    exps = th.temperature_exponents()
    for q in (2, 3, 4):
        root = th.moment_threshold().subs(th.q, q)
        assert sp.simplify(exps[f"m{q}/m1^{q}"].subs(th.c, root)) == 0
        assert root < th.SATURATION == th.valid_up_to(f"m{q}/m1^{q}")   # derived there
    assert sp.limit(th.moment_threshold(), th.q, sp.oo) == 1 - 1 / sp.sqrt(2)


def test_levels_give_the_largest_entry_and_the_saturation_point():
    assert sp.simplify(th.largest_entry() - (2 * th.c - th.c**2 / 2)) == 0
    # the largest of ell^2 entries reaches X = ell (A_ij ~ 1) at c = 2 - sqrt(2)
    assert sp.simplify(th.largest_entry().subs(th.c, th.SATURATION) - 1) == 0
    assert sp.simplify(th.saturation_rate() - (2 - 3 * th.c**2) / (2 * th.c)) == 0
    assert sp.simplify(th.lindeberg_rate() - (1 - 2 * th.c**2) / (2 * th.c)) == 0


def test_mass_exponent_joins_its_first_order_loss_to_the_saturated_share():
    # beyond sqrt(2/5), where the X^3-tilt passes X = ell, the first-order loss
    # (2/ell) E[X^3; X < ell]/E X^2 decays exactly like the share beyond X = ell
    knee = sp.solve(th.tail_rate(1, 3), th.c)[0]
    assert sp.simplify(knee - sp.sqrt(sp.Rational(2, 5))) == 0
    r3 = th.tail_rate(1, 3)
    beyond = 2 * th.c**2 - 1 - r3**2 / 2
    assert sp.simplify(beyond + th.saturation_rate()**2 / 2) == 0
    s = th.mass_exponent()
    assert s.subs(th.c, sp.Rational(1, 2)) == 2 * sp.Rational(1, 4) - 1
    assert s.subs(th.c, 1) == 0


def test_spread_exponent_follows_the_largest_entry_beyond_one():
    # sd(D)^2 ~ ell^-3 sum_ij X_ij^2: its typical value is ell^2 E[X^2; S < s_N] with s_N the
    # largest of N = ell^2 scores (Phi-bar(s_N) = 1/N); its log-slope tends to 2 s(c)
    import mpmath as mp
    s = th.temperature_exponents()["sd(D)"]
    for cv in (0.6, 1.5):
        def log_typical(log_ell):
            b = cv * mp.sqrt(log_ell)
            s_n = mp.findroot(lambda u: mp.log(mp.ncdf(-u)) + 2 * log_ell,
                              2 * mp.sqrt(log_ell))   # Phi-bar(s_N) = ell^-2
            return b**2 - log_ell + mp.log(mp.ncdf(s_n - 2 * b))
        with mp.workdps(60):
            slope = (log_typical(mp.mpf(2000)) - log_typical(mp.mpf(1000))) / 1000
        assert float(slope) / 2 == pytest.approx(float(s.subs(th.c, cv)), abs=0.02)
    assert th.spread_concentrates() == 1 / sp.sqrt(2)
    # at finite ell, with a margin: ell^(4c^2 - 2) < 0.1
    assert th.spread_concentrates_at(0.6, 500) and not th.spread_concentrates_at(0.65, 500)
    assert not th.spread_concentrates_at(0.6, 50)   # 50^(-0.56) = 0.11


def test_normalizer_spread_is_the_root_of_the_exact_mean_square():
    from attnge.theory import normalizer
    from attnge.theory.symbols import beta, d_qk, ell
    exact = ((ell - 1) / ell * normalizer.sample_variance_mean()).subs(
        {beta: sp.Rational(1, 2), d_qk: 40, ell: 50})
    assert th.normalizer_spread(0.5, 40, 50) == pytest.approx(float(sp.sqrt(exact)), rel=1e-12)
    assert th.normalizer_spread(4.0, 40, 50) == math.inf   # d_qk <= 4 beta^2: E X^2 = inf


def test_normalizer_spread_against_sampled_normalizers():
    # an independent route: np.std(D) over rows of sampled score matrices
    from attnge.numerics.sampling import draw_rng, normalizer, sample_scores
    b, ell, d = 0.8, 200, 100
    squares = []
    for draw in range(40):
        scores = sample_scores(ell, d, draw_rng(3, "spread", ell, draw))
        squares.append(np.var(normalizer(scores.S, b)))
    mean, se = np.mean(squares), np.std(squares, ddof=1) / math.sqrt(len(squares))
    assert abs(mean - th.normalizer_spread(b, d, ell)**2) < 4 * se


def test_bulk_exponent_is_the_decay_of_the_lindeberg_share():
    # exact share of E X^2 in entries X > sqrt(ell theta1), X = e^{beta chi - beta^2/2}:
    # X^2 tilts chi to N(2 beta, 1); its log against log ell tends to -t^2/2
    import mpmath as mp
    s = th.temperature_exponents()["kolmogorov"]
    for cv in (0.4, 0.6):
        rates = []
        for log_ell in (mp.mpf(10)**4, mp.mpf(10)**6):
            b = cv * mp.sqrt(log_ell)
            cut = (log_ell / 2 + mp.log(mp.expm1(b**2)) / 2 + b**2 / 2) / b   # X = sqrt(l th1)
            share = mp.ncdf(-(cut - 2 * b))
            rates.append(mp.log(share) / log_ell)
        assert float(rates[1]) == pytest.approx(float(s.subs(th.c, cv)), rel=2e-2)
        assert abs(rates[1] - s.subs(th.c, cv)) < abs(rates[0] - s.subs(th.c, cv))


def test_exponents_at_known_points():
    exps = th.temperature_exponents()
    assert exps["sd(D)"].subs(th.c, 0) == sp.Rational(-1, 2)   # Var D ~ θ₁/ℓ at fixed β
    assert exps["sd(D)"].subs(th.c, 2) == sp.Rational(1, 2)    # the largest entry's row
    assert exps["m1"].subs(th.c, 1) == 0
    assert exps["s1^2/E"].subs(th.c, sp.Rational(1, 2)) == sp.Rational(1, 2)
    assert exps["s1^2/E"].subs(th.c, sp.Rational(4, 5)) == sp.Rational(9, 25)   # saturated
    assert exps["s1^2/E"].subs(th.c, 2) == 0


def test_order_thresholds():
    assert [th.order_threshold(k) for k in (2, 3, 4)] == [sp.Rational(1, 2), sp.Rational(1, 3),
                                                         sp.Rational(1, 4)]
    assert th.order_exponent().subs({th.k: 2, th.alpha: 1}) == -1


def _per_entry(model, b, d):
    """E R_jk^2 / theta1^2: E delta is linear in ell with this slope."""
    return (th.expected_order_distance(model, b, d, 2.0)
            - th.expected_order_distance(model, b, d, 1.0))


def test_order_distance_decays_as_the_first_omitted_term():
    # the off-diagonal mean square ~ d^-(k+1), k + 1 = the first omitted Hadamard power
    for model in th.ORDER_MODELS:
        big = [_per_entry(model, 0.5, d) for d in (10**6, 2 * 10**6)]
        assert math.log2(big[0] / big[1]) == pytest.approx(th.first_omitted(model), abs=1e-3)


def test_order_distance_against_sampled_pairs_of_keys():
    # an independent route: E R_jk^2 from 4e5 pairs of keys drawn directly (no matrices)
    rng = np.random.default_rng(7)
    b, d, n = 0.5, 12, 400_000
    x, y = rng.standard_normal((2, n, d))
    rjj, rkk, r = (x * x).sum(1) / d, (y * y).sum(1) / d, (x * y).sum(1) / d
    scale = np.exp(b**2 * ((rjj + rkk) / 2 - 1))
    sf = scale * np.expm1(b**2 * r)
    kept = {"lin_f": b**2 * r,
            "k=2": scale * (b**2 * r + (b**2 * r) ** 2 / 2),
            "k=3": scale * (b**2 * r + (b**2 * r) ** 2 / 2 + (b**2 * r) ** 3 / 6)}
    for model, other in kept.items():
        R2 = (sf - other) ** 2
        exact = _per_entry(model, b, d) * math.expm1(b**2) ** 2
        z = (R2.mean() - exact) / (R2.std() / math.sqrt(n))
        assert abs(z) < 4, (model, R2.mean(), exact)


def test_order_distance_bounds_and_infinite_mean():
    assert th.order_distance_bound("lin_f") == 8 * th.beta**2
    assert th.order_distance_bound("k=2") == 4 * th.beta**2
    assert th.expected_order_distance("k=2", 1.0, 4, 100) == math.inf
    assert 0 < th.expected_order_distance("k=2", 1.0, 5, 100) < math.inf
    with pytest.raises(ValueError, match="model"):
        th.first_omitted("k=9")


@pytest.mark.slow
def test_finite_size_threshold_drifts_up_to_one_over_k():
    for model in th.ORDER_MODELS:
        limit = float(th.order_threshold(th.first_omitted(model)))
        alphas = [th.finite_size_threshold(model, 0.35, 10.0**e, 8 * 10.0**e) for e in (3, 6, 12)]
        assert alphas[0] < alphas[1] < alphas[2] <= limit + 1e-9
        assert alphas[2] == pytest.approx(limit, abs=2e-3)


def test_lin_f_diagonal_against_sampled_key_norms():
    # E delta at ell = 1 is the diagonal term alone: E (Sigma_f[j,j] - Sigma_G[j,j])^2 / theta1^2
    rng = np.random.default_rng(11)
    b, d, n = 0.5, 12, 1_000_000
    v = rng.chisquare(d, n) / d
    diag_f = np.exp(b**2 * (v - 1)) * np.expm1(b**2 * v)
    diag_g = b**2 * v + math.expm1(b**2) - b**2
    R2 = (diag_f - diag_g) ** 2 / math.expm1(b**2) ** 2
    exact = th.expected_order_distance("lin_f", b, d, 1.0)
    assert abs(R2.mean() - exact) < 4 * R2.std() / math.sqrt(n)
    assert th.expected_order_distance("k=2", b, d, 1.0) == 0   # exact diagonal


def test_expected_order_distance_keeps_its_digits_at_small_beta():
    import mpmath as mp
    for model, b in (("k=3", 0.003), ("k=2", 0.01), ("lin_f", 0.003)):
        with mp.workdps(300):
            reference = th._order_distance_numeric(model)(mp.mpf(b), mp.mpf(100), mp.mpf(1000))
        assert th.expected_order_distance(model, b, 100, 1000) == pytest.approx(
            float(reference), rel=1e-12)


def test_one_entry_readings_are_derived_and_differ_by_the_tilt_beyond_the_largest_score():
    for order in th.ONE_ENTRY_ORDERS:
        readings = th.one_entry_exponents(order)
        mean = readings["mean"]
        assert sp.expand(mean - (order - 1) * (2 * order * th.c**2 - 1)) == 0
        largest = readings["typical"].args[1][0]          # the branch qc > 1
        assert sp.expand(largest - (4 * order * th.c - 2 * order * th.c**2 - order - 1)) == 0
        assert sp.expand(mean - largest - 2 * (order * th.c - 1) ** 2) == 0
        # below qc = 1 the two readings are one
        assert readings["typical"].subs(th.c, sp.Rational(1, 2 * order)) == \
            mean.subs(th.c, sp.Rational(1, 2 * order))
        t = th.one_entry_thresholds(order)
        assert sp.simplify(t["typical"] - th.moment_threshold().subs(th.q, order)) == 0
        assert sp.simplify(t["mean"] - 1 / sp.sqrt(2 * order)) == 0
        assert t["mean"] < t["typical"]


def test_the_first_correction_is_the_largest_scores_gumbel_centring():
    import mpmath as mp
    kappa = sp.Symbol("kappa")
    slope = th.largest_entry_slope(kappa)
    assert sp.expand(slope - (th.largest_entry() - th.c * kappa / 4)) == 0
    # against the exact largest of N = ell^2 normals (Phi-bar(b) = 1/N), at c = 0.5
    with mp.workdps(40):
        def log_x_max(log_ell):
            b = mp.findroot(lambda u: mp.log(mp.ncdf(-u)) + 2 * log_ell, 2 * mp.sqrt(log_ell))
            return 0.5 * mp.sqrt(log_ell) * b - 0.25 * log_ell / 2
        lo, hi = mp.log(1000), mp.log(4000)
        measured = float((log_x_max(hi) - log_x_max(lo)) / (hi - lo))
    kappa_value = float((mp.log(hi) - mp.log(lo)) / (hi - lo))
    corrected = float(slope.subs({th.c: 0.5, kappa: kappa_value}))
    limit = float(th.largest_entry().subs(th.c, 0.5))
    assert abs(measured - corrected) < 0.2 * abs(measured - limit)
    # finite-size thresholds lie above the limits and tend to them
    sizes = (500, 1000, 2000, 4000)
    for name in ("m3/m1^3", "m4/m1^4", "s1^2/E"):
        limit = float(th.temperature_thresholds()[name])
        at = th.finite_size_temperature_threshold(
            th.temperature_exponents(th.log_log_slope(sizes))[name])
        far = th.finite_size_temperature_threshold(
            th.temperature_exponents(th.log_log_slope((10**30, 10**31, 10**32)))[name])
        assert limit < far < at < limit + 0.03 and far - limit < 0.003
