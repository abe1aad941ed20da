"""Run proof steps and collect their results with provenance."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from attnge import ledger
from attnge.context import Context, running
from attnge.params import DEFAULT_SIZES, Params
from attnge.provenance import provenance
from attnge.step import Step, Table, tex


@dataclass
class StepResult:
    step: Step
    derived: dict[str, str]          # name → LaTeX
    tables: list[Table]
    wall_s: float

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tables)


@dataclass
class Run:
    params: Params
    results: list[StepResult] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def provenance(self) -> dict:
        return provenance(self.params.as_dict(), self.wall_s,
                          steps=[r.step.id for r in self.results])


def validate(steps: list[Step], params: Params) -> None:
    """Refuse bad parameters for any selected step before anything runs."""
    for step in steps:
        step.validate(params)


def run(steps: list[Step], params: Params, progress=None, context: Context | None = None
        ) -> Run:
    """Run the steps in order; ``progress(i, n, step_id)`` is called before each. The draws
    are measured and shared in ``context`` (default: the one in use, ``context.current()``)."""
    if context is not None:
        with running(context):
            return run(steps, params, progress)
    validate(steps, params)
    out = Run(params)
    start = time.perf_counter()
    derived, derive_s = [], []
    for step in steps:      # the theory first: a failure there never follows the sampling
        t0 = time.perf_counter()
        derived.append({name: tex(expr) for name, expr in step.derive(params).items()})
        derive_s.append(time.perf_counter() - t0)
    for i, step in enumerate(steps):
        if progress is not None:
            progress(i, len(steps), step.id)
        t0 = time.perf_counter()
        tables = step.check(params)
        out.results.append(StepResult(step, derived[i], tables,
                                      derive_s[i] + time.perf_counter() - t0))
    if progress is not None:
        progress(len(steps), len(steps), "")
    out.wall_s = time.perf_counter() - start
    return out


def verify(steps: str | list[str] | None = None, *, beta: object = 1.0, y: object = 1.0,
           sizes: object = None, draws: int = 8, seed: int = 0, remove_top: int = 3,
           heads: int = 2, progress=None, context: Context | None = None) -> Run:
    """Run proof steps of the ledger at the given parameters and return their evidence.

    Parameters
    ----------
    steps : str or list of str, optional
        Step ids (``attnge.ledger.STEPS``; a comma-separated string or a list); all by
        default, in ledger order.
    beta, y : number
        Inverse temperature 0 < β ≤ 6 and ratio y = ℓ/d_qk.
    sizes : sequence of int, optional
        Increasing token counts ℓ, at least three (default ``params.DEFAULT_SIZES``).
    draws, seed, remove_top, heads : int
        Draws per size, the seed, the top values left out of the bulk, the heads of the
        multi-head steps.
    progress : callable, optional
        ``progress(i, n, step_id)`` before each step.
    context : attnge.context.Context, optional
        Where the draws run and are kept (default: the one in use, whose sweeps earlier
        runs at the same parameters share); ``Context()`` for a run that shares nothing.

    Returns
    -------
    Run
        ``run.passed``; ``run.results``, one ``StepResult`` per step with its tables.

    Notes
    -----
    Draws run in this process; inside ``attnge.parallel.cluster(workers, scheduler)`` they
    run on a Dask cluster (its client held by the run context), with the same numbers.
    """
    ids = ",".join(steps) if isinstance(steps, (list, tuple)) else steps
    chosen = ledger.select(ids)
    params = Params(beta=beta, y=y, sizes=DEFAULT_SIZES if sizes is None else tuple(sizes),
                    draws=draws, seed=seed, remove_top=remove_top, heads=heads)
    return run(chosen, params, progress, context)
