"""The truth grid at small sizes, in the suite: on correct mathematics no step FAILs or
raises. A cell takes 12-40 s at these sizes, most of it fixed: derivations, quadratures, the
law's routes and the regimes' search for the sizes that would decide (none of it shrinks with
the sizes, which are already the smallest the law's steps accept, ℓ ≥ 100, with the fewest
draws, 2). The 30 cells of the grid β ∈ {0.25, 0.5, 1, 1.5, 2, 3} × y ∈ {1/16, 1/4, 1, 4,
16} would take 10 minutes, beyond the suite's budget, so the suite runs three cells off the
defaults, each at the edge of a regime: β = 0.5, y = 16 (the scores' width), β = 1,
y = 1/16 (two heads' outliers), β = 3, y = 16 (refusals, the keys' norms, the tails).
docs/truth/ holds the whole grid at the default sizes; at these sizes (0.25, 1/4), (1.5, 4)
and (2, 1) were measured too (15-22 s each, no FAIL).

So that no test runs for more than about 20 s, the dearer cells run as several tests at
the same sizes, draws and heads, each a group of the cell's steps: β = 3, y = 16 (its exact
masses and its regimes at β = 3, d_qk = 2 to 25, are the slowest quadratures of the ledger)
as its chain steps, its law steps and its multi-head steps; β = 1, y = 1/16 (d_qk = 1600 to
6400: the dearest draws) as its single-head and its multi-head steps. Each group still runs
in the whole regime of its cell (at β = 3, y = 16: exponential and normalizer refused,
d_qk = ℓ/16 = 6 to 25, per head 2 to 12, every fit outside its regime and naming the sizes
that would decide, no FAIL), and together they run every step of the cell once
(``test_each_cell_runs_every_step_once``).

The threshold step reads only the seed, so its verdict is the same in every cell; its own
tests run it."""

import dataclasses

import pytest

from attnge import truth
from attnge.context import Context, running
from attnge.params import Params
from attnge.truth import STEPS  # the theorem's steps, which the truth grid runs

SIZES, DRAWS, HEADS = (100, 200, 400), 2, 2
GRID_STEPS = [s for s in STEPS if s.id not in truth.SEED_ONLY]
GROUPS = {
    "chain": ("M0-Y", "Y-Yf", "Yf-YQ", "YQ-YlinQ", "YlinQ-Ylinf"),
    "heads": ("multi-head-law", "mha-output"),
}
GROUPS["law"] = tuple(s.id for s in GRID_STEPS
                      if not any(s.id in ids for ids in GROUPS.values()))
EVERY = ("chain", "law", "heads")
CASES = [(0.5, 16.0, EVERY), (1.0, 1 / 16, ("chain", "law")), (1.0, 1 / 16, ("heads",)),
         (3.0, 16.0, ("chain",)), (3.0, 16.0, ("law",)), (3.0, 16.0, ("heads",))]


def _steps(groups):
    return [s for s in GRID_STEPS if any(s.id in GROUPS[g] for g in groups)]


@pytest.mark.slow
@pytest.mark.parametrize("beta, y, groups", CASES,
                         ids=[f"beta={b:g},y={v:g}" + ("" if g == EVERY else "," + "+".join(g))
                              for b, v, g in CASES])
def test_no_step_fails_or_raises_on_correct_mathematics(beta, y, groups, monkeypatch):
    """… and every step asks for the shared draws it declares it reads (``Step.sweeps``,
    which prices ``verify --decide``'s looks at larger sizes), and no other."""
    asked: dict[str, set] = {}
    running: list[str] = []
    sweep = Context.sweep

    def recorded(self, key, compute):
        asked.setdefault(running[-1], set()).add(key[0])
        return sweep(self, key, compute)

    def watched(step):
        def check(params):
            running.append(step.id)
            return step.check(params)
        return dataclasses.replace(step, check=check)

    monkeypatch.setattr(Context, "sweep", recorded)
    steps = _steps(groups)
    cell = truth.cell(beta, y, SIZES, DRAWS, HEADS, steps=[watched(s) for s in steps])
    wrong = {name: step.get("failed") or step.get("reason")
             for name, step in cell["steps"].items() if step["verdict"] in ("FAIL", "ERROR")}
    assert not wrong
    assert set(cell["steps"]) == {s.id for s in steps}
    read = {s.id: asked.get(s.id, set()) & {"chain", "law"} for s in steps}
    params = Params(beta=beta, y=y, sizes=SIZES, draws=DRAWS, heads=HEADS)
    assert read == {s.id: set(s.reads(params)) for s in steps}


def test_one_head_s_multi_head_law_reads_the_law_draws_it_declares(monkeypatch):
    """With one head ``multi-head-law`` reads the single head's law draws, and says so."""
    asked = []
    sweep = Context.sweep
    monkeypatch.setattr(Context, "sweep", lambda self, key, compute: asked.append(key[0])
                        or sweep(self, key, compute))
    step = next(s for s in STEPS if s.id == "multi-head-law")
    params = Params(beta=0.5, y=1.0, sizes=SIZES, draws=DRAWS, heads=1)
    with running(Context()):
        step.check(params)
    assert set(asked) & {"chain", "law"} == set(step.reads(params)) == {"law"}


def test_each_cell_runs_every_step_once():
    for cell in {(b, y) for b, y, _ in CASES}:
        ids = [s.id for b, y, groups in CASES if (b, y) == cell for s in _steps(groups)]
        assert sorted(ids) == sorted(s.id for s in GRID_STEPS), cell
