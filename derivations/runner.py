"""Run proof steps and collect their results with provenance.

Each step's result is handed to ``finished`` the moment it is decided, and a run that is
interrupted (Ctrl-C, SIGTERM) carries the steps it finished on the exception
(``err.partial_run``, a :class:`Run` with ``complete`` False), so that a caller can print and
write them before it exits.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace

from attnge import judging, ledger, ledger_draws, parallel, regimes
from attnge.context import Context, current, running
from attnge.draw_store import DrawStore
from attnge.judging import INCONCLUSIVE
from attnge.params import DEFAULT_SIZES, Params
from attnge.provenance import provenance
from attnge.step import Step, Table, tex
from attnge.theory.inputs import duration


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

    def draws_could_decide(self, reach: float = math.inf) -> bool:
        """An INCONCLUSIVE step with a row that at most ``reach`` times its draws could
        decide (``Table.draws_could_decide``)."""
        return self.verdict == INCONCLUSIVE and any(t.draws_could_decide(reach)
                                                    for t in self.tables)

    def outside_regime(self) -> bool:
        """An INCONCLUSIVE step with a row that no number of draws decides at its sizes
        (``judging.NO_DRAWS``: mostly outside its fit's regime; also a draw beyond double
        range or an unsettled quadrature): it cannot PASS at these sizes."""
        return self.verdict == INCONCLUSIVE and any(
            v == INCONCLUSIVE and n == judging.NO_DRAWS
            for t in self.tables for v, n in zip(t.verdicts, t.needs))

    @property
    def ell_needed(self) -> float | None:
        """The smallest ℓ from which three sizes (ℓ, 2ℓ, 4ℓ) would put every row it has
        outside its fit's regime inside (``Table.ell_needed``; math.inf where one row is out
        of reach; None where no row states one)."""
        return max((n for t in self.tables if (n := t.ell_needed) is not None), default=None)

    @property
    def draws_needed(self) -> float | None:
        """The least factor of its draws that one of its undecided rows states would decide
        it (``Table.draws_needed``; None where none states one)."""
        return min((n for t in self.tables if (n := t.draws_needed) is not None), default=None)

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
    decided: dict | None = None      # the record of ``decide``: its looks, each step's draws

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    @property
    def complete(self) -> bool:
        return not self.not_run

    @property
    def not_run(self) -> list[str]:
        """The planned steps without a result (an interrupted run), or, for an interrupted
        ``decide`` run, those a look was still measuring."""
        if self.decided is not None and "interrupted_while" in self.decided:
            return self.decided["interrupted_while"]
        return [] if self.planned is None else self.planned[len(self.results):]

    def provenance(self) -> dict:
        extra = {} if self.complete else {"interrupted_before": self.not_run}
        if self.decided is not None:
            extra["decide"] = self.decided
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


DRAWS_FEWEST = 2
"""The fewest draws per size a look at larger sizes starts from, where the run's own do not
fit in what the budget leaves (two: the fewest that give a standard error)."""


def look_workers(params: Params) -> int:
    """The draws that run side by side in a look at ``params``' sizes on this machine: its
    cores, as many as memory holds of a chain draw at the largest size (``parallel.at_once``;
    the law draws' sweep takes the same bound)."""
    ell = max(params.sizes)
    return parallel.at_once(ledger_draws.draw_bytes(ell, params.d_qk(ell),
                                                    ledger_draws.MATRICES_PER_DRAW))


def look_core_seconds(steps: list[Step], params: Params) -> float:
    """One core's seconds for the shared draws ``steps`` read (``Step.reads``) at
    ``params``' sizes and draws (``regimes.look_seconds``, at least): the chain draws, and the
    law draws less those that a chain sweep of the same look gives them."""
    reads = {name for step in steps for name in step.reads(params)}
    chain = params.draws if "chain" in reads else 0
    law = [(ell, ledger_draws.law_draws(params, ell) - (chain if ell in params.sizes else 0))
           for ell in ledger_draws.law_sizes(params)] if "law" in reads else []
    return regimes.look_seconds(params.sizes, chain, law)


NARROWING = 0.85
"""``decide`` grows a step's draws only while each doubling narrows its widest undecided value
row to at most this share of the look before (1/√2 ≈ 0.71 where the draws are its error)."""


def _open_width(result: StepResult) -> float:
    """The widest ``detectable`` among the step's undecided (INCONCLUSIVE) value rows (inf
    where none states one: nothing to compare, the draws keep growing)."""
    found = [v["detectable"] for t in result.tables for v in t.values
             if v.get("passed") == INCONCLUSIVE and isinstance(v.get("detectable"), float)
             and math.isfinite(v["detectable"])]
    return max(found, default=math.inf)


def decide(steps: list[Step], params: Params, budget: float, progress=None,
           finished: Callable[[StepResult, int], None] | None = None,
           store: str | None = None) -> Run:
    """``attnge verify --decide``: run the steps at ``params``, then, while some step is
    INCONCLUSIVE with a row that more draws could decide (``StepResult.draws_could_decide``),
    run those steps again with twice the draws per size, every draw already measured kept
    (a ``draw_store.DrawStore`` in the run context; ``store``: a folder that also keeps them
    across runs, so that a rerun resumes), within ``budget`` seconds and at most
    ``judging.LOOKS_MAX`` looks (``judging.decide``), and only while each doubling narrows the
    step's undecided rows (to at most ``NARROWING`` of their width; a row whose error is a
    fit's form, not its draws, is left to larger sizes) and while the draws its rows state
    they need (``StepResult.draws_needed``) are within what the looks left reach. Every
    look, the first included, is judged at the per-look thresholds (``judging.looking``), so
    that all looks together reject a true prediction no more often than one run at the fixed
    size does.

    Then, where steps remain INCONCLUSIVE with rows outside their fits' regime, the looks go
    on for them at the sizes that put three inside every such row (``sizes_for``: what the
    rows state, ``StepResult.ell_needed``, and the exact mass's and width's regime,
    ``regimes.sizes_that_decide``), from the run's draws and doubling them the same way,
    where the first of those looks fits in the budget, the memory and the
    ``judging.LOOKS_MAX`` looks (``grow_sizes``), at the same per-look thresholds. Where the
    steps need different sizes and a look at the largest does not fit, the steps that need
    less go first.

    A step keeps the result of the look that decided it (PASS, FAIL, or INCONCLUSIVE where
    only larger sizes could decide), or its last look at larger sizes; ``finished(result,
    draws)`` is called as each is decided, and for the undecided once the looks end. The
    returned run's ``decided`` records the looks (with their sizes where larger), each
    step's draws per size, verdict and sizes where larger, the time spent, what stopped the
    looks short of a decision and, for the steps whose rows state larger sizes than any look
    took (``sizes_needed``, one entry per sizes), those sizes, one core's seconds for a look
    there (``regimes.look_seconds``, at least) and why it was not taken (or, with no sizes,
    that no ℓ up to ``regimes.SEARCH_MAX`` would put their rows inside their regime).
    """
    context, drawn = current(), DrawStore(store)
    kept, context.draws = context.draws, drawn
    results: dict[str, tuple[StepResult, int]] = {}
    todo = list(steps)
    looks: list[list[str]] = []
    widths: dict[str, float] = {}          # a step's widest undecided value row, last look
    stalled: dict[str, str] = {}           # steps that more draws did not narrow, and why
    seen: dict[str, list] = {}             # a step's table rows at the last look
    sized: dict[str, tuple[int, ...]] = {}     # steps whose last look was at larger sizes
    start = time.perf_counter()

    first_look_s = 0.0                     # the first look's seconds (``priced``)
    sizes = params.sizes                   # the looks' sizes (larger after ``grow_sizes``)
    floor = regimes.sizes_that_decide(params.beta, params.y, params.sizes)   # () if none
    waiting: dict[tuple[int, ...], str] = {}   # larger sizes not looked at, and why

    def sizes_for(r: StepResult) -> tuple[int, ...]:
        """(ℓ, 2ℓ, 4ℓ) from the largest of the ℓ its rows state (``StepResult.ell_needed``)
        and the exact mass's and width's (``floor``), where 4ℓ is beyond the sizes its
        result was measured at; () where one of its rows is out of reach, or nothing states
        larger sizes."""
        stated = r.ell_needed
        need = stated if stated == math.inf else max(floor[0] if floor else 0, stated or 0)
        return regimes.sizes_from(need, max(sized.get(r.step.id, params.sizes)))

    def look(draws: int, _z: float) -> tuple[str, bool]:
        nonlocal todo
        looks.append([s.id for s in todo])
        with judging.looking():
            part = run(todo, replace(params, draws=draws, sizes=sizes), progress)
        reach = judging.reach(len(looks))
        for r in part.results:
            results[r.step.id] = (r, draws)
            if sizes != params.sizes:
                sized[r.step.id] = sizes
            width, rows = _open_width(r), [t.rows for t in r.tables]
            if seen.get(r.step.id) == rows:
                stalled[r.step.id] = ("twice the draws per size changed none of its numbers: "
                                      "its draws are its own, not the run's draws per size")
            elif math.isfinite(width) and width > NARROWING * widths.get(r.step.id, math.inf):
                stalled[r.step.id] = (f"twice the draws narrowed its undecided rows from "
                                      f"{widths[r.step.id]:.3g} to {width:.3g} (relative): "
                                      "their error is not the draws'; larger sizes would decide")
            seen[r.step.id], widths[r.step.id] = rows, width
            if (sizes == params.sizes and sizes_for(r) and r.step.id not in stalled
                    and r.outside_regime()):
                stalled[r.step.id] = ("rows outside the fits' regime at these sizes, which no "
                                      "number of draws decides: larger sizes first")
            if (len(looks) < judging.LOOKS_MAX and r.step.id not in stalled
                    and r.draws_could_decide() and not r.draws_could_decide(reach)):
                need = r.draws_needed       # every row more draws could decide states one
                stalled[r.step.id] = (f"its rows state that they need at least {need:.3g}x "
                                      f"the draws per size ({math.ceil(need * draws)}), beyond "
                                      f"the {reach}x ({reach * draws}) the looks left reach")
        todo = [s for s in todo if results[s.id][0].draws_could_decide()
                and s.id not in stalled]
        if finished is not None:        # the undecided once the looks end
            for r in part.results:
                if r.step not in todo and r.verdict != INCONCLUSIVE:
                    finished(r, draws)
        return (INCONCLUSIVE if todo else "decided"), bool(todo)

    def priced(group: list[Step], at: tuple[int, ...], left: float) -> tuple[int, float]:
        """The draws per size a first look at ``at`` for ``group`` starts from (the run's, or
        half, a quarter, … down to ``DRAWS_FEWEST``, the most that fit in ``left``) and its
        estimated seconds: the draws its steps read (``look_core_seconds``) on the draws
        this machine runs side by side there (``look_workers``), and the first look's time
        for the steps' own work."""
        workers = look_workers(replace(params, sizes=at))
        return judging.draws_that_fit(
            params.draws, lambda n: first_look_s + look_core_seconds(
                group, replace(params, sizes=at, draws=n)) / workers, left, DRAWS_FEWEST)

    def grow_sizes(record: dict, stopped: str) -> str:
        """The steps still INCONCLUSIVE with rows outside their regime, looked at again at the
        sizes that put three inside (``sizes_for``), from the run's draws (or fewer,
        ``priced``) and growing them as before (``judging.decide``, the looks left of
        ``LOOKS_MAX``), where the first such look fits in what the budget leaves, in memory and
        in the looks: the largest sizes the steps need where that fits, else the steps that
        need less (each of the others waits, ``waiting``, with why). Returns what stopped
        the looks (``stopped``, the draws' looks', where none was taken)."""
        nonlocal todo, sizes, first_look_s
        first_look_s = record["looks"][0]["seconds"]
        want = {s.id: sizes_for(results[s.id][0]) for s in steps if s.id in results
                and results[s.id][0].verdict == INCONCLUSIVE}
        candidates = sorted({at for at in want.values() if at}, reverse=True)
        if not candidates:
            return stopped
        left = budget - (time.perf_counter() - start)
        taken = len(record["looks"])
        for at in candidates:
            group = [s for s in steps if want.get(s.id) and want[s.id] <= at]
            if taken >= judging.LOOKS_MAX:
                waiting[at] = f"{judging.LOOKS_MAX} looks taken"
                continue
            draws, estimate = priced(group, at, left)
            if estimate > left:
                waiting[at] = (f"it would take about {judging.time_text(estimate)} here with "
                               f"{draws} draws per size, {judging.left_text(left)}")
                continue
            grown = replace(params, sizes=at, draws=draws)
            try:
                validate(group, grown)
            except ValueError as exc:
                waiting[at] = str(exc)
                continue
            break
        else:
            return stopped
        todo, sizes = group, at
        for s in group:                 # larger sizes are a new start for each of them
            for kept_by in (stalled, widths, seen):
                kept_by.pop(s.id, None)
        more, stopped = judging.decide(look, draws, left, judging.LOOKS_MAX - taken)
        for entry in more["looks"]:
            entry["sizes"] = list(at)
        record["looks"] += more["looks"]
        record["spent_s"] = time.perf_counter() - start
        return stopped

    def merged(record: dict, stopped: str) -> Run:
        out = Run(params, [results[s.id][0] for s in steps if s.id in results],
                  time.perf_counter() - start, [s.id for s in steps])
        for entry, ids in zip(record["looks"], looks):
            entry["steps"] = ids
        record["steps"] = {s.id: {"draws": results[s.id][1], "verdict": results[s.id][0].verdict,
                                  **({"sizes": list(sized[s.id])} if s.id in sized else {}),
                                  **({"stalled": stalled[s.id]} if s.id in stalled else {})}
                           for s in steps if s.id in results}
        record["stopped"] = stopped
        record["z_per_look"] = {name: judging.at_looks(getattr(judging, name))
                                for name in ("VALUE_Z", "RATE_Z", "Z_MAX")}
        record["draws_measured"], record["draws_read"] = drawn.measured, drawn.read
        needed: dict[tuple[int, ...], list[Step]] = {}
        for s in steps:
            r = results[s.id][0] if s.id in results else None
            if r is None or r.verdict != INCONCLUSIVE:
                continue
            at = sizes_for(r)
            if at or r.ell_needed == math.inf:
                needed.setdefault(at, []).append(s)
        if needed:
            record["sizes_needed"] = [
                {"steps": [s.id for s in group], "sizes": list(at), "draws": params.draws,
                 "core_seconds": look_core_seconds(group, replace(params, sizes=at)),
                 "workers": look_workers(replace(params, sizes=at)),
                 **({"not_taken": waiting[at]} if at in waiting else {})} if at else
                {"steps": [s.id for s in group], "sizes": [], "not_taken":
                 f"no ell up to {regimes.SEARCH_MAX:.0e} puts their rows inside their regime"}
                for at, group in sorted(needed.items())]
        out.decided = record
        return out

    try:
        record, stopped = judging.decide(look, params.draws, budget)
        stopped = grow_sizes(record, stopped)
    except BaseException as err:
        partial = getattr(err, "partial_run", None)
        if partial is not None:
            for r in partial.results:
                results[r.step.id] = (r, partial.params.draws)
            err.partial_run = merged({"budget_s": budget, "looks": [],
                                      "spent_s": time.perf_counter() - start,
                                      "interrupted_while": [s.id for s in todo]},
                                     "interrupted")
        raise
    finally:
        context.draws = kept
    if finished is not None:
        for s in steps:
            if s.id in results and results[s.id][0].verdict == INCONCLUSIVE:
                finished(*results[s.id])
    return merged(record, stopped)


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
           heads: int = 2, progress: object = True, context: Context | None = None,
           budget: object = None, store: str | None = None) -> Run:
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
    budget : str or float, optional
        Decide (``attnge verify --decide``, :func:`decide`): the time it may spend, as
        ``"20m"`` or seconds; None (default): one run at ``draws``.
    store : str, optional
        With ``budget``: a folder that keeps every draw, so that a rerun resumes.

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
    if budget is None:
        if store is not None:
            raise ValueError("store applies with a budget only")
        return run(chosen, params, _progress(progress), context)
    seconds = duration(budget, "budget")
    with running(context) if context is not None else nullcontext():
        return decide(chosen, params, seconds, _progress(progress), store=store)
