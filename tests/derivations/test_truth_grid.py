"""The truth grid at small sizes, in the suite: on correct mathematics no step FAILs or
raises. A cell takes 12-32 s at these sizes (most of it fixed: derivations, quadratures, the
law's routes; the 30 cells of the grid β ∈ {0.25, 0.5, 1, 1.5, 2, 3} × y ∈ {1/16, 1/4, 1, 4,
16} would take 10 minutes, beyond the suite's budget), so the suite runs three cells off the
defaults, each at the edge of a regime: β = 0.5, y = 16 (the scores' width), β = 1,
y = 1/16 (two heads' outliers), β = 3, y = 16 (refusals, the keys' norms, the tails).
docs/truth/ holds the whole grid at the default sizes; at these sizes (0.25, 1/4), (1.5, 4)
and (2, 1) were measured too (15-22 s each, no FAIL).

The threshold step reads only the seed, so its verdict is the same in every cell; its own
tests run it."""

import pytest

from attnge import truth
from attnge.truth import STEPS  # the theorem's steps, which the truth grid runs

CELLS = [(0.5, 16.0), (1.0, 1 / 16), (3.0, 16.0)]
SIZES, DRAWS, HEADS = (100, 200, 400), 2, 2
GRID_STEPS = [s for s in STEPS if s.id not in truth.SEED_ONLY]


@pytest.mark.parametrize("beta, y", CELLS, ids=[f"beta={b:g},y={v:g}" for b, v in CELLS])
def test_no_step_fails_or_raises_on_correct_mathematics(beta, y):
    cell = truth.cell(beta, y, SIZES, DRAWS, HEADS, steps=GRID_STEPS)
    wrong = {name: step.get("failed") or step.get("reason")
             for name, step in cell["steps"].items() if step["verdict"] in ("FAIL", "ERROR")}
    assert not wrong
    assert set(cell["steps"]) == {s.id for s in GRID_STEPS}
