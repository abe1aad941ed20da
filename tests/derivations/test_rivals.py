"""Issue 39: a step that cannot tell its prediction from its rival does not PASS."""

import pytest

from attnge import runner
from attnge.judging import INCONCLUSIVE
from attnge.params import Params
from attnge.steps import outliers


@pytest.mark.slow
def test_outliers_without_an_outlier_to_locate_are_inconclusive():
    """β = 1/2 at small sizes: no entry makes an outlier above the level, so nothing tells
    the predicted locations from the bulk edge (at β = 0.7, y = 2.5 the default run said
    PASS, its count detecting 1531%)."""
    run = runner.run([outliers.STEP], Params(beta=0.5, sizes=(100, 200, 400), draws=2))
    result = run.results[0]
    assert result.verdict == INCONCLUSIVE and result.rival_ruled_out is False
    rows = [row for t in result.tables for row, v in zip(t.rows, t.verdicts)
            if v == INCONCLUSIVE and row[0] == "all"]
    assert len(rows) == 1 and "draws per size would give 8" in rows[0][-1]


def _plateau_row(means, ses, draws=4, rule="agree"):
    """A chain distance's rate row on three sizes with the given per-size means and ses
    (``draws`` draws each, spread to give them about)."""
    import numpy as np

    from attnge import evidence as ev

    sizes = (250, 500, 1000)
    shape = np.resize([-1.0, 1.0], draws) * np.sqrt(draws)
    values = [m + s * shape for m, s in zip(means, ses)]
    table = ev.rate_table("t", Params(sizes=sizes, draws=draws))
    ev.rate_row(table, "||A - B||_F / sqrt(ell)", Params(sizes=sizes, draws=draws), values,
                ev.Slope(-0.5, rule, rival=ev.PLATEAU, claim=True))
    return table


def test_a_bound_met_with_room_is_told_from_a_plateau_by_its_slope():
    """A bound 'slope at most -1/2' met at -0.93 within about 0.3 rules out a plateau (0 is
    0.93 away, three widths), though 0.3 is more than half the bound's 0.5; the same width
    about a slope of -1/2 does not."""
    steep = [0.1 * 2.0 ** (-0.93 * k) for k in range(3)]
    flat = [0.1 * 2.0 ** (-0.5 * k) for k in range(3)]
    ses = [0.007 * m / steep[0] for m in steep]
    room = _plateau_row(steep, ses, draws=16, rule="at most")
    width = room.values[0]["width"]
    assert 0.25 < width < 0.465                  # > half the bound's, < half the slope's
    assert room.verdicts == [True] and room.values[0]["rules_out_rival"] is True
    edge = _plateau_row(flat, [0.007 * m / flat[0] for m in flat], draws=16, rule="at most")
    assert edge.values[0]["width"] > 0.25
    assert edge.verdicts == [INCONCLUSIVE] and edge.values[0]["rules_out_rival"] is False


def test_a_chain_distance_that_cannot_tell_its_rate_from_a_plateau_is_inconclusive():
    """The distance's slope agrees with -1/2 within a width that also holds 0 (the rival: a
    difference that does not vanish): INCONCLUSIVE, naming the draws that would narrow it;
    a narrow one PASSes having ruled the plateau out; a plateau FAILs."""
    wide = _plateau_row([0.10, 0.071, 0.05], [0.01, 0.01, 0.01])
    assert wide.verdicts == [INCONCLUSIVE] and "cannot rule out a plateau" in wide.rows[0][-1]
    assert wide.needs[0] > 1 and wide.values[0]["rules_out_rival"] is False
    narrow = _plateau_row([0.10, 0.0707, 0.05], [1e-4, 1e-4, 1e-4])
    assert narrow.verdicts == [True] and narrow.values[0]["rules_out_rival"] is True
    flat = _plateau_row([0.10, 0.10, 0.10], [1e-4, 1e-4, 1e-4])
    assert flat.verdicts == [False]


def test_a_chain_step_whose_distance_cannot_tell_a_plateau_is_inconclusive():
    """M0-Y at 250, 500, 1000 with 4 draws: its distance's slope is judged within 0.85 (t
    with one degree of freedom), which holds 0; the step said PASS. Its moment differences'
    bounds (slope at most -1/2) are INCONCLUSIVE where as wide; at the defaults the
    distance rules the plateau out (within 0.10)."""
    from attnge.steps import chain_m0_y

    run = runner.run([chain_m0_y.STEP], Params(sizes=(250, 500, 1000), draws=4))
    result = run.results[0]
    assert result.verdict == INCONCLUSIVE and result.rival_ruled_out is False
    assert result.passed                                   # nothing failed
    undecided = [row[0] for t in result.tables for row, v in zip(t.rows, t.verdicts)
                 if v == INCONCLUSIVE]
    assert "||M0 - Y||_F / sqrt(ell)" in undecided
    assert any(label.startswith("|m_4(M0) - m_4(Y)|") for label in undecided)


def test_the_draws_a_rival_needs_and_a_floor_that_draws_do_not_narrow():
    """Ruling out a rival 1 away allows ±0.5: a check detecting ±1 needs 4x the draws; one
    whose tolerance floor is 0.6 can be ruled out by no number of draws."""
    from attnge import judging

    rival = judging.Rival(0.0, "r")
    assert judging.RIVAL_SHARE == 0.5
    assert rival.draws_factor(1.0, 1.0) == pytest.approx(4.0)
    assert rival.draws_factor(0.4, 1.0) == 1.0
    assert rival.draws_factor(0.4, 1.0, floor=0.6) == judging.NO_DRAWS
    assert rival.draws_factor(0.1, 0.0) == judging.NO_DRAWS          # the rival is the prediction


def test_a_chain_step_whose_distance_is_outside_its_regime_does_not_pass():
    """At sizes outside the distance's regime nothing rules the plateau out: the step is
    INCONCLUSIVE, not a PASS on its other rows (YQ-YlinQ at beta = 1.5 said PASS)."""
    import numpy as np

    from attnge import evidence as ev
    from attnge import regimes as rg
    from attnge.runner import StepResult
    from attnge.step import Step

    table = ev.rate_table("t", Params(sizes=(250, 500, 1000), draws=2))
    ev.rate_row(table, "d", Params(sizes=(250, 500, 1000), draws=2), [np.ones(2)] * 3,
                ev.Slope(-0.5, "at most", rival=ev.PLATEAU, claim=True),
                regime=rg.Regime((False, False, False), "too small", 2000))
    other = ev.rate_table("u", Params(sizes=(250, 500, 1000), draws=2))
    other.add(["identity", "", "", "", "", "", ""], True)
    step = Step(id="s", title="", claim="", latex=lambda: "", derive=lambda p: {},
                check=lambda p: [], method="", failure="")
    result = StepResult(step, {}, [table, other], 0.0)
    assert result.rival_ruled_out is False and result.verdict == INCONCLUSIVE


def test_a_law_claim_outside_its_regime_does_not_pass():
    """A value row that exists to reject a rival and cannot be fitted (its sizes outside its
    regime) records the rival as not ruled out: its step is INCONCLUSIVE, not a PASS on its
    other rows (limit-law at beta = 1, y = 16 from ell <= 500 said PASS on its routes and on
    m_1, which the i.i.d. surrogate shares)."""
    import numpy as np

    from attnge import evidence as ev
    from attnge import judging
    from attnge import regimes as rg
    from attnge.runner import StepResult
    from attnge.step import Step

    table = ev.value_table("t")
    ev.limit_row(table, "m_2", (250, 500, 1000), [np.ones(2)] * 3,
                 ev.Extrapolation(2.0, (1.0,), rival=judging.Rival(1.0, "r")),
                 regime=rg.Regime((False, False, False), "too small", 2000))
    other = ev.value_table("u")
    ev.value_row(other, "m_1", ev.Estimate(1.0, 0.01, 8), 1.0, "exact")
    step = Step(id="s", title="", claim="", latex=lambda: "", derive=lambda p: {},
                check=lambda p: [], method="", failure="")
    result = StepResult(step, {}, [table, other], 0.0)
    assert table.values[0]["rules_out_rival"] is False
    assert result.rival_ruled_out is False and result.verdict == INCONCLUSIVE


def test_the_law_steps_rivals_by_their_stated_closed_forms():
    """The values each law step must reject, from the laws with theta2 = 0, equal the closed
    forms the theory states for them (docs/math.md sections 5 and 7): 2 theta1^2 for theta1
    MP_1; (1 + 1/h) theta1^2 for h surrogate heads; 1/h + 1/gamma_V + 1/gamma_O for the
    layer's m_2/m_1^2 - 1 on surrogate heads (gamma = h/y)."""
    from attnge.steps import limit_law, mha_output, multi_head_law
    from attnge.theory import exponential as ex

    b, y, h = 0.7, 3.0, 3
    theta1 = float(ex.thetas(b)[0])
    assert limit_law.surrogate_m2(b).value == pytest.approx(2 * theta1**2, rel=1e-14)
    p = Params(beta=b, y=y, heads=h)
    assert multi_head_law.surrogate_m2(p).value == pytest.approx((1 + 1 / h) * theta1**2,
                                                                 rel=1e-14)
    g = h / y
    for sharing in ("none", "mqa", "kv"):
        assert mha_output.surrogate_ratio(b, y, h, sharing).value == pytest.approx(
            1 / h + 2 / g, rel=1e-14)


@pytest.mark.slow
def test_the_limit_law_without_a_fitted_second_moment_is_inconclusive():
    """beta = 1, y = 16 at ell = 125, 250, 500: the bulk's m_2, the claim that would tell nu_inf
    from the i.i.d. surrogate, is outside its regime; the step said PASS on its routes and on
    m_1 (about 6 s)."""
    from attnge.steps import limit_law

    run = runner.run([limit_law.STEP], Params(beta=1.0, y=16.0, sizes=(125, 250, 500),
                                              draws=2))
    result = run.results[0]
    assert result.passed and result.verdict == INCONCLUSIVE
    assert result.rival_ruled_out is False
