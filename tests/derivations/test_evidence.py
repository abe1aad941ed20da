"""What ``detectable`` means: a prediction off by exactly that much sits on the threshold."""

import math

import numpy as np
import pytest

from attnge import evidence as ev
from attnge import judging
from attnge.judging import INCONCLUSIVE
from attnge.numerics import stats
from attnge.params import Params
from attnge.step import Table


def test_an_error_of_detectable_reaches_the_threshold_at_one_size():
    table = Table("t", ["x", "z", "detectable"])
    expected, se = 2.0, 0.01
    ev.z_value(table, ["a"], "a", ev.Estimate(expected, se, math.inf), expected)
    det = table.values[0]["detectable"]
    z = ev.z_value(table, ["b"], "b", ev.Estimate(expected * (1 + det), se, math.inf), expected)
    assert z == pytest.approx(judging.Z_MAX) and table.verdicts[-1] is True
    assert ev.z_value(table, ["c"], "c", ev.Estimate(expected * (1 + 1.01 * det), se, math.inf),
                      expected) > judging.Z_MAX and table.verdicts[-1] is False


def test_a_shared_error_of_detectable_reaches_the_threshold_combined():
    table = Table("t", ["x", "z", "detectable"])
    expected, ses = [1.0, 2.0, 4.0], [0.01, 0.03, 0.02]
    rse = [s / e for s, e in zip(ses, expected)]
    ev.z_combined(table, ["all"], "m", [0.0] * 3, rse)
    det = table.values[0]["detectable"]
    zs = [e * det / s for e, s in zip(expected, ses)]     # every size off by det
    ev.z_combined(table, ["all"], "m", zs, rse)
    assert table.values[1]["z"] == pytest.approx(judging.Z_MAX)


def test_few_draws_need_a_larger_error():
    assert judging.detectable(0.01, 3, 1.0) > judging.detectable(0.01, math.inf, 1.0) == \
        pytest.approx(judging.Z_MAX * 0.01)


def test_a_slope_from_few_draws_gets_the_t_quantile_of_its_dof():
    params = Params(sizes=(100, 200, 400), draws=3)
    rng = np.random.default_rng(0)
    values = [s**-0.5 * (1 + 0.05 * rng.standard_normal(3)) for s in params.sizes]
    table = ev.rate_table("t", params)
    rate = ev.rate_row(table, "x", params, values, ev.Slope(-0.5, "agree", tol=0.0))
    assert 2 <= rate.dof <= 6                          # three sizes of 2 dof each
    width = stats.t_critical(judging.RATE_Z, rate.dof) * rate.se
    assert width > 2 * judging.RATE_Z * rate.se             # 4 se would be far too strict here
    assert table.rows[-1][-1] == f"|slope - (-0.5)| <= {width:.2g}"


def test_sample_means_are_judged_only_where_the_sample_reaches_their_tail():
    from attnge.steps import exponential

    assert ev.tail_untested(2, 1.0, 250 * 250 * 8) is None          # the defaults: tested
    assert "not tested" in ev.tail_untested(2, 3.0, 250 * 250 * 8)
    table = exponential.sampled_table(Params(beta=3.0, y=0.25, sizes=(100, 200, 400), draws=1))
    assert table.values == [] and all(v is None for v in table.verdicts)   # e^{36} is unseen
    assert any("not tested" in str(c) for row in table.rows for c in row)


def test_a_slope_is_fitted_on_the_sizes_inside_its_regime():
    from attnge import regimes as rg
    params = Params(sizes=(100, 200, 400, 800), draws=4)
    rng = np.random.default_rng(0)
    values = [np.full(4, 10.0)] + [ell ** -0.5 * (1 + 0.01 * rng.standard_normal(4))
                                   for ell in params.sizes[1:]]
    table = ev.rate_table("t", params)
    inside = rg.Regime((False, True, True, True), "too small", 200, 1.0)
    rate = ev.rate_row(table, "x", params, values, ev.Slope(-0.5), regime=inside)
    assert table.verdicts == [True] and abs(rate.slope + 0.5) < 0.05
    assert "(not fitted)" in table.rows[0][1] and "fitted on ell >= 200" in table.rows[0][-1]
    few = rg.Regime((False, False, True, True), "too small", 400, 1.0)
    ev.rate_row(table, "x", params, values, ev.Slope(-0.5), regime=few)
    assert table.verdicts[1] == INCONCLUSIVE and "too small" in table.rows[1][-1]


def test_a_fit_whose_draws_overflow_is_not_judged():
    table = ev.value_table("t")
    values = [np.array([1.0, 2.0]), np.array([1.0, np.inf]), np.array([1.0, 1.1])]
    assert ev.limit_row(table, "x", (100, 200, 400), values, ev.Extrapolation(1.0, (1.0,))) is None
    assert table.verdicts == [INCONCLUSIVE] and "overflows" in table.rows[0][4]


def test_a_pass_must_have_the_power_to_reject_its_rival():
    """Issue 39: a value row with a rival passes only when what it detects (t se) is at most
    RIVAL_SHARE of the distance to the rival; else INCONCLUSIVE, naming the draws that give
    the power, and those draws do."""
    gap = judging.Rival(0.0, "the surrogate's gap")
    table = ev.value_table("gap")
    row = ev.value_row(table, "weak", ev.Estimate(0.1, 0.05, math.inf), 0.1, "fit", rival=gap)
    assert table.verdicts[-1] == INCONCLUSIVE and row["rules_out_rival"] is False
    assert "cannot rule out the surrogate's gap" in table.rows[-1][4]
    factor = int(table.rows[-1][4].split("about ")[1].split("x")[0])
    se = 0.05 / factor ** 0.5                                # se shrinks as 1/sqrt(draws)
    row = ev.value_row(table, "strong", ev.Estimate(0.1, se, math.inf), 0.1, "fit", rival=gap)
    assert table.verdicts[-1] is True and row["rules_out_rival"] is True
    # a value far from its prediction still FAILs, power or not
    ev.value_row(table, "off", ev.Estimate(0.5, 0.05, math.inf), 0.1, "fit", rival=gap)
    assert table.verdicts[-1] is False
    # Rival.power alone: the draws it names bring the width to the allowed share
    power, why = judging.Rival(1.0, "r").power(0.3, 1.4)
    assert not power and "about 3x the draws" in why               # (0.3 / 0.2)^2 = 2.25
    assert judging.Rival(1.0, "r").power(0.19, 1.4) == (True, "")
