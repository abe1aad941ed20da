"""Run proof steps and collect their results with provenance.

Each step's result is handed to ``finished`` the moment it is decided, and a run that is
interrupted (Ctrl-C, SIGTERM) carries the steps it finished on the exception
(``err.partial_run``, a :class:`Run` with ``complete`` False), so that a caller can print and
write them before it exits.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from attnge import ledger, parallel
from attnge.context import Context, running
from attnge.judging import INCONCLUSIVE
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

    @property
    def rival_ruled_out(self) -> bool | None:
        """Whether the value rows that name a rival (``judging.Rival``) all passed and ruled
        it out; None for a step without such rows."""
        rows = [v for t in self.tables for v in t.values if "rival" in v]
        if not rows:
            return None
        return all(v["passed"] is True and v["rules_out_rival"] for v in rows)

    @property
    def verdict(self) -> str:
        """FAIL (a check fails), INCONCLUSIVE (none fails, but the step's rival is not ruled
        out, or no check passed while some could not decide) or PASS."""
        if not self.passed:
            return "FAIL"
        verdicts = [v for t in self.tables for v in t.verdicts]
        if self.rival_ruled_out is False or (
                True not in verdicts and INCONCLUSIVE in verdicts):
            return INCONCLUSIVE
        return "PASS"


@dataclass
class Run:
    """The results of a run's steps, in ledger order; ``complete`` is False for a run that
    was interrupted before ``planned`` (the step ids it was asked for; None: the results
    are the run) were all decided."""

    params: Params
    results: list[StepResult] = field(default_factory=list)
    wall_s: float = 0.0
    planned: list[str] | None = None

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def complete(self) -> bool:
        return not self.not_run

    @property
    def not_run(self) -> list[str]:
        """The planned steps without a result (an interrupted run)."""
        return [] if self.planned is None else self.planned[len(self.results):]

    def provenance(self) -> dict:
        extra = {} if self.complete else {"interrupted_before": self.not_run}
        return provenance(self.params.as_dict(), self.wall_s,
                          steps=[r.step.id for r in self.results], **extra)


def validate(steps: list[Step], params: Params) -> None:
    """Refuse bad parameters for any selected step before anything runs."""
    for step in steps:
        step.validate(params)


def run(steps: list[Step], params: Params, progress=None, context: Context | None = None,
        finished: Callable[[StepResult], None] | None = None) -> Run:
    """Run the steps in order; ``progress(i, n, step_id)`` is called before each and
    ``finished(result)`` as each is decided. The draws are measured and shared in ``context``
    (default: the one in use, ``context.current()``), BLAS on one thread throughout (the
    speed comes from the draws' worker processes, ``attnge.parallel``), so that a number
    does not depend on the machine's load. An interruption (any exception that is not an
    ``Exception``: Ctrl-C, a termination) leaves the steps decided so far on it as
    ``partial_run``."""
    if context is not None:
        with running(context):
            return run(steps, params, progress, finished=finished)
    validate(steps, params)
    out = Run(params, planned=[step.id for step in steps])
    start = time.perf_counter()
    try:
        with parallel.one_thread():
            _run(steps, params, progress, finished, out)
    except BaseException as err:
        parallel.stop_all()             # no sweep's worker processes outlive the run
        if not isinstance(err, Exception):
            out.wall_s = time.perf_counter() - start
            err.partial_run = out
        raise
    out.wall_s = time.perf_counter() - start
    return out


def _run(steps: list[Step], params: Params, progress, finished, out: Run) -> None:
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
        if finished is not None:
            finished(out.results[-1])
    if progress is not None:
        progress(len(steps), len(steps), "")


def _progress(progress):
    """``progress`` as a callable: True, a bar on stderr (tqdm's auto bar, which draws in a
    notebook, where the progress extra is installed; else a line per finished step);
    False or None, nothing."""
    if progress is True:
        from attnge.output.progress import Progress
        return Progress("verify", auto=True, stream=sys.stderr)
    return progress or None


def verify(steps: str | list[str] | None = None, *, beta: object = 1.0, y: object = 1.0,
           sizes: object = None, draws: int = 8, seed: int = 0, remove_top: int = 3,
           heads: int = 2, progress: object = True, context: Context | None = None) -> Run:
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
    progress : bool or callable, default True
        True: a progress bar (tqdm's, in a notebook or a terminal, with the ``progress``
        extra; else a line on stderr per finished step); False: none; a callable:
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
    Draws run in worker processes, one per free core (``attnge.parallel``); inside
    ``attnge.parallel.cluster(workers, scheduler)`` they run on a Dask cluster (its client
    held by the run context), with the same numbers, bit for bit.
    """
    ids = ",".join(steps) if isinstance(steps, (list, tuple)) else steps
    chosen = ledger.select(ids)
    params = Params(beta=beta, y=y, sizes=DEFAULT_SIZES if sizes is None else tuple(sizes),
                    draws=draws, seed=seed, remove_top=remove_top, heads=heads)
    return run(chosen, params, _progress(progress), context)
