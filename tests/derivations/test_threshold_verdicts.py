"""The three verdicts of a threshold row, what decides an inconclusive one, and the
one-entry readings: a check that fails when the wrong reading is the prediction."""

import pytest

from attnge import judging
from attnge.cli import main
from attnge.judging import INCONCLUSIVE, NO_DRAWS
from attnge.numerics.stats import Rate
from attnge.output import report
from attnge.step import Table
from attnge.threshold import audit, fit, modes

GRID = (0.2, 0.4, 0.6, 0.8)


def quantity(slopes, se, target):
    rates = [Rate(v, se) for v in slopes]
    x, unc, where = fit.crossing(GRID, rates, upward=True)
    return fit.Quantity("sd(D)", GRID, rates, [None] * 4, target, x, unc, where,
                        crossing_required=True, draws=4)


LINE = (-0.6, -0.2, 0.2, 0.6)   # crosses at 0.5


def test_pass_needs_a_decisive_uncertainty_and_fail_needs_only_a_disagreement():
    assert quantity(LINE, 0.01, 0.5).verdict is True
    # slopes within 2 se of 0 at 0.4 and 0.6: the uncertainty reaches the grid's ends (0.3)
    wide = quantity(LINE, 0.2, 0.55)
    assert wide.uncertainty == pytest.approx(0.3) and wide.verdict == INCONCLUSIVE
    assert quantity(LINE, 0.2, 0.9).verdict is False   # 0.4 off: wider than 0.3 still fails
    assert quantity(LINE, 0.01, 0.55).verdict is False
    # the draws it names decide it: the slopes' errors shrink as 1/sqrt(draws)
    needed = int(wide.decide.split("~")[1].split()[0])
    assert needed > wide.draws and wide.needs == needed / wide.draws   # the flag --decide reads
    assert quantity(LINE, 0.01, 0.5).needs is None                     # a decided row: none
    scaled = [Rate(r.slope, r.se * (wide.draws / needed) ** 0.5) for r in wide.slopes]
    assert fit.crossing(GRID, scaled, upward=True)[1] <= fit.DECISIVE


def test_a_bent_slope_curve_asks_for_a_finer_grid():
    # the parabola through the bracket and its neighbour moves the root by more than 0.1
    bent = quantity((-0.6, -0.1, 1.0, 10.0), 0.0001, 0.5)
    assert bent.verdict == INCONCLUSIVE and "finer grid" in bent.decide
    assert bent.needs == NO_DRAWS                     # draws do not decide it


def test_no_crossing_on_the_grid_is_inconclusive_only_beyond_it():
    rising = (0.1, 0.3, 0.5, 0.7)            # positive everywhere: c* before 0.2
    assert quantity(rising, 0.01, 0.1).verdict == INCONCLUSIVE
    assert "past 0.1" in quantity(rising, 0.01, 0.1).decide
    assert quantity(rising, 0.01, 0.5).verdict is False
    falling = (-0.9, -0.7, -0.5, -0.3)       # negative everywhere: c* beyond 0.8
    assert quantity(falling, 0.01, 0.9).verdict == INCONCLUSIVE
    assert quantity(falling, 0.01, 0.5).verdict is False


def test_no_crossing_with_slopes_of_unknown_sign_past_the_target_is_inconclusive():
    """Issue 39: two draws per point at small sizes leave every slope negative but none past
    the target known negative (t-width at SIGN_Z); that is no evidence against a crossing
    at the target, so INCONCLUSIVE with the draws that would tell, and those draws decide."""
    falling = (-0.9, -0.7, -0.5, -0.3)
    noisy = quantity(falling, 0.3, 0.5)       # past 0.5: -0.5 and -0.3, within 2 se of 0
    assert noisy.verdict == INCONCLUSIVE
    needed = int(noisy.decide.split("~")[1].split()[0])
    assert needed > noisy.draws and "past 0.5" in noisy.decide
    assert noisy.needs == needed / noisy.draws
    sharper = [Rate(r.slope, r.se * (noisy.draws / needed) ** 0.5) for r in noisy.slopes]
    decided = fit.Quantity("sd(D)", GRID, sharper, [None] * 4, 0.5,
                           *fit.crossing(GRID, sharper, upward=True), crossing_required=True,
                           draws=needed)
    assert decided.verdict is False              # now the grid shows no crossing at 0.5
    # few degrees of freedom widen the slopes' t-widths: the same slopes from 2 draws tell
    # nothing even where the normal se would
    two = [Rate(v, 0.1, 1.0) for v in falling]
    few = fit.Quantity("sd(D)", GRID, two, [None] * 4, 0.5, *fit.crossing(GRID, two, True),
                       crossing_required=True, draws=2)
    assert quantity(falling, 0.1, 0.5).verdict is False and few.verdict == INCONCLUSIVE


def test_small_sizes_and_two_draws_are_inconclusive_not_failed(capsys):
    """The false FAIL of issue 39: sd(D) said "no crossing on the grid (beyond 1.2)"."""
    assert main(["--quiet", "threshold", "--mode", "temperature", "--sizes", "200,400,800",
                 "--draws", "2"]) == 0
    assert "needs ~" in capsys.readouterr().out


def bounded(slopes, se, target):
    rates = [Rate(v, se) for v in slopes]
    return fit.Quantity("m4/m1^4", GRID, rates, [None] * 4, target,
                        *fit.crossing(GRID, rates, upward=True), crossing_required=True,
                        draws=4, lower_bound=True)


def test_a_lower_bound_fails_only_a_crossing_below_it():
    """The shapes, kolmogorov and s1^2/E: the distance's other terms shrink, so it crosses
    at or above its term's threshold (issue 27: m4/m1^4 crossed at 0.439 +- 0.030 against
    0.399 +- 0.011 and FAILed two-sided)."""
    assert bounded(LINE, 0.01, 0.3).verdict is True           # crossing 0.5 above 0.3
    assert quantity(LINE, 0.01, 0.3).verdict is False          # two-sided: 0.2 apart
    assert bounded(LINE, 0.01, 0.7).verdict is False           # crossing 0.2 below the bound
    assert bounded(LINE, 0.2, 0.3).verdict == INCONCLUSIVE     # above, but 0.3 wide
    falling = (-0.9, -0.7, -0.5, -0.3)                         # crossing beyond 0.8
    assert bounded(falling, 0.01, 0.5).verdict == INCONCLUSIVE
    assert "past 0.8" in bounded(falling, 0.01, 0.5).decide
    assert bounded((0.1, 0.3, 0.5, 0.7), 0.01, 0.5).verdict is False   # below 0.2


def test_a_grid_short_of_an_exact_crossing_is_inconclusive_not_failed():
    """m1 on a grid that stops below its threshold (c = 0.4 ... 0.6 against 0.8165): neither
    its exact mean nor the samples cross there. That FAILed; it names the grid now."""
    falling = [Rate(v, 0.01) for v in (-0.9, -0.7, -0.5, -0.3)]
    exact = [-0.9, -0.7, -0.5, -0.3]
    where = "no crossing on the grid (beyond 0.8)"
    row = fit.Quantity("m1", GRID, falling, exact, (2 / 3) ** 0.5, None, None, where,
                       finite=(None, where), crossing_required=True, draws=4)
    assert row.verdict == INCONCLUSIVE and row.decide == "needs grid values past 0.816"
    assert row.needs == NO_DRAWS
    wrong = fit.Quantity("m1", GRID, falling, [-0.2] * 4, (2 / 3) ** 0.5, None, None, where,
                         finite=(None, where), crossing_required=True, draws=4)
    assert wrong.verdict is False                    # its exact slopes still judge it


@pytest.mark.slow
def test_the_temperature_mode_bounds_the_sums_and_not_the_exact_means():
    """The temperature rows built from a sweep: the sums one-sided (shown '>='), m1 and sd(D)
    two-sided."""
    sweep = audit.Sweep("temperature", grid=(0.6, 0.9, 1.1, 1.4), sizes=(100, 200, 400),
                        draws=2)
    done = audit.run(sweep, None)
    found = audit.quantities(sweep, done)
    assert {q.name for q in found if q.lower_bound} == {"m2/m1^2", "m3/m1^3", "m4/m1^4",
                                                       "kolmogorov", "s1^2/E"}
    by_name = {q.name: q for q in found}   # the shapes by their typical value, m1 by its mean
    def slopes(name, typical):
        return [r.slope for _, _, r in modes._rates(sweep, done, name, sweep.grid, typical)]

    for name in ("m4/m1^4", "s1^2/E"):
        assert [r.slope for r in by_name[name].slopes] == slopes(name, True)
        assert slopes(name, True) != slopes(name, False)
    assert [r.slope for r in by_name["m1"].slopes] == slopes("m1", False)   # signed
    shown = {row[0]: row[1] for row in audit.threshold_table(sweep, found).rows}
    assert shown["kolmogorov"] == ">= 0.7071" and shown["m1"] == "0.8165"


def test_inconclusive_rows_do_not_fail_a_table_and_are_counted():
    table = Table("t", ["x"])
    table.add(["a"], True)
    table.add(["b"], INCONCLUSIVE)
    assert table.passed and table.inconclusive == 1
    assert "| b | INCONCLUSIVE |" in report.markdown_table(table)
    table.add(["c"], False)
    assert not table.passed
    assert audit.counts([table]) == "1 PASS, 1 FAIL, 1 INCONCLUSIVE"


@pytest.fixture(scope="module")
def one_entry():
    sweep = audit.Sweep("one-entry", grid=(0.45, 0.5), sizes=(250, 500, 1000), draws=24)
    return sweep, audit.run(sweep, None)


def _readings(sweep, done) -> list[tuple[list, object]]:
    table = modes.readings_table(sweep, audit.quantities(sweep, done))
    return list(zip(table.rows, table.verdicts))


@pytest.mark.slow
def test_the_typical_reading_governs_and_the_mean_reading_is_told_apart(one_entry):
    rows = _readings(*one_entry)
    assert all(v is not False for _, v in rows)
    # q = 4 at c = 0.5: the readings 2(qc - 1)^2 = 2 apart, many se
    decided = [row for row, v in rows if row[0] == 4 and row[1] == "all"]
    assert decided and decided[0][2] == "typical governs"
    # an undecided reading states the draws that would set its two z's past the threshold
    # (both grow as the root of the draws); a decided one states none
    table = modes.readings_table(one_entry[0], audit.quantities(*one_entry))
    for row, v, need in zip(table.rows, table.verdicts, table.needs):
        if v == INCONCLUSIVE and row[1] != "all":
            z = min(float(row[7]), abs(float(row[6])))
            # (the cells hold three digits)
            assert need >= 1 and z * need**0.5 >= judging.at(judging.READING_Z) * 0.99
        elif v is not INCONCLUSIVE:
            assert need is None


@pytest.mark.slow
def test_readings_fail_when_the_mean_reading_is_taken_for_the_typical_one(one_entry,
                                                                        monkeypatch):
    real = modes.th.one_entry_exponents

    def swapped(order, kappa=0):
        out = real(order, kappa)
        return {"mean": out["mean"], "typical": out["mean"]}
    monkeypatch.setattr(modes.th, "one_entry_exponents", swapped)
    rows = _readings(*one_entry)
    assert any(v is False for row, v in rows if row[0] == 4 and row[1] == "0.5")
    assert any(row[1] == "all" and v is False for row, v in rows)


def test_cli_one_entry_prints_the_counts_and_refuses_beta(capsys):
    code = main(["threshold", "--mode", "one-entry", "--grid", "0.3,0.5", "--sizes",
                 "60,90,120", "--draws", "3"])
    out = capsys.readouterr().out
    assert code in (0, 1) and "attnge threshold --mode one-entry: " in out
    assert "which reading of T_q governs" in out
    assert main(["threshold", "--mode", "one-entry", "--beta", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "beta" in err[0]
    assert main(["threshold", "--mode", "one-entry", "--grid", "0.3,0.7"]) == 2   # > 2-sqrt(2)
