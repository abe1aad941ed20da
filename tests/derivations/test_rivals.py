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


def _plateau_row(means, ses, draws=4):
    """A chain distance's rate row on three sizes with the given per-size means and ses
    (four draws each, spread to give them)."""
    import numpy as np

    from attnge import evidence as ev

    sizes = (250, 500, 1000)
    shape = np.array([-1.0, 1.0, -1.0, 1.0][:draws]) * np.sqrt(draws)
    values = [m + s * shape for m, s in zip(means, ses)]
    table = ev.rate_table("t", Params(sizes=sizes, draws=draws))
    ev.rate_row(table, "||A - B||_F / sqrt(ell)", Params(sizes=sizes, draws=draws), values,
                ev.Slope(-0.5, "agree", rival=ev.PLATEAU, claim=True))
    return table


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
