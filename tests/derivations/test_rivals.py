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
