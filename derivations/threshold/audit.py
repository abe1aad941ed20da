"""The threshold audit: sweep a grid, keep every draw on disk, fit, judge, tabulate.

A sweep is a grid of values v (c or α, by its ``Mode``: ``derivations.threshold_modes``) ×
sizes ℓ × draws. Each finished draw is appended as one JSON line to
``DIR/threshold-<mode>.jsonl`` (flushed and fsynced); a rerun reads the file and measures
only the missing draws, so an interrupted sweep resumes where it stopped. The fits, the
crossings and the three verdicts are ``derivations.threshold_fit``'s.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from attnge import judging, parallel
from attnge.judging import INCONCLUSIVE
from attnge.numerics.measure import require_memory
from attnge.output.files import append_line, atomic, locked, write_atomic
from attnge.provenance import provenance
from attnge.run_config import THRESHOLD, configure
from attnge.step import Table
from attnge.theory.inputs import number
from attnge.threshold.fit import DECISIVE, Quantity
from attnge.threshold.modes import Mode, mode_named

REPRODUCIBLE_RTOL = 1e-9
"""Across NumPy/BLAS builds a stored draw is reproduced to this relative tolerance (the
Kolmogorov distances, on the 1/ℓ lattice, to one step); on one build, bit for bit."""


@dataclass(frozen=True)
class Sweep:
    mode: Mode               # or its name
    grid: tuple[float, ...]
    sizes: tuple[int, ...]
    draws: int
    seed: int = 0
    beta: float = 0.35       # order mode (small β: δ's tails allow a smaller d_qk)
    y: float = 1.0           # temperature and one-entry modes

    def __post_init__(self) -> None:
        mode = mode_named(self.mode)
        object.__setattr__(self, "mode", mode)
        grid = tuple(number(v, "grid") for v in self.grid)
        low, high = mode.domain
        if len(grid) < 2 or any(not low < v <= high for v in grid) \
                or any(b <= a for a, b in zip(grid, grid[1:])):
            what = f"{mode.variable} > {low:g}" if high == math.inf else \
                f"{mode.variable} in ({low:g}, {high:.4g}]"
            raise ValueError(f"grid must hold at least 2 increasing values of {what} "
                             f"(got {list(self.grid)})")
        object.__setattr__(self, "grid", grid)
        configure(self, THRESHOLD)          # beta, y, sizes, draws, seed: run_config
        mode.check(self)
        self.validate_memory()

    def validate_memory(self) -> None:
        """Refuse sizes whose draws, as many at once as run on this machine, would not fit."""
        require_memory(max(self.sizes), self.mode.matrices, copies=parallel.concurrent_draws())

    def key(self, value: float, ell: int, draw: int) -> str:
        fixed = f"{self.mode.fixed}={getattr(self, self.mode.fixed)!r}"
        return f"{self.mode.schema}|{self.mode.name}|{value!r}|{ell}|{draw}|seed={self.seed}|" \
               f"{fixed}"

    def measure(self, value: float, ell: int, draw: int) -> dict[str, float]:
        return self.mode.measure(self, value, ell, draw)

    def keys(self) -> list[str]:
        return [self.key(v, ell, k) for v in self.grid for ell in self.sizes
                for k in range(self.draws)]

    def records(self, done: dict, value: float) -> list[list[dict[str, float]]]:
        """Per size, the stored results of the draws at ``value``."""
        return [[done[self.key(value, ell, k)] for k in range(self.draws)]
                for ell in self.sizes]


def store_path(folder: str | Path, mode) -> Path:
    return Path(folder) / f"threshold-{mode_named(mode).name}.jsonl"


def rejected_path(path: Path) -> Path:
    return path.with_name(path.name + ".rejected")


def _record(line: bytes, mode: Mode) -> tuple[str, dict[str, float]]:
    """The (key, result) of one stored line; ValueError saying what is wrong with it."""
    try:
        record = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError:
        raise ValueError("not a JSON record (truncated, glued to another, or garbage)") from None
    except RecursionError:
        raise ValueError("nested too deeply to be a record") from None
    if not isinstance(record, dict) or set(record) != {"key", "result"}:
        raise ValueError('not a record {"key": ..., "result": ...}')
    key, result = record["key"], record["result"]
    if not isinstance(key, str) or not isinstance(result, dict):
        raise ValueError("key must be a string and result an object")
    if not key.startswith(f"{mode.schema}|{mode.name}|"):
        return key, result                        # another schema or mode: kept, not used
    if set(result) != set(mode.result_keys):
        raise ValueError(f"result must hold exactly {', '.join(mode.result_keys)}")
    for name, value in result.items():
        low, high = mode.bounds(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or not low <= value <= high:
            raise ValueError(f"result {name!r} must be a finite number in [{low:g}, {high:g}] "
                             f"(got {value!r})")
    return key, result


def _no_constant(name: str):
    """NaN and ±Infinity are not JSON: a result is a finite number."""
    raise ValueError(f"{name} is not a number a result can hold")


@dataclass
class Store:
    """What a store holds: the finished draws, its valid lines (bytes as written, each key
    once), its damaged ones as (line number, what is wrong, the bytes) and how many exact
    repeats of a valid line it held (dropped when it is rewritten)."""

    done: dict[str, dict[str, float]]
    valid: list[bytes]
    damaged: list[tuple[int, str, bytes]]
    repeats: int = 0


def load(path: Path, mode) -> Store:
    """Read a store line by line; nothing is skipped silently (see ``Store``). A key stored
    twice with the same result is a repeat; with another result the later line is damaged
    (named, with the line that holds the first). ``mode`` is a ``Mode``, its name, or any
    record schema with ``name``, ``schema``, ``result_keys`` and ``bounds`` (the variants'
    store, ``derivations.variants``)."""
    mode = mode if hasattr(mode, "result_keys") else mode_named(mode)
    store = Store({}, [], [])
    if not path.exists():
        return store
    first: dict[str, int] = {}
    for number_, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            key, result = _record(line, mode)
        except ValueError as err:
            store.damaged.append((number_, str(err), line))
            continue
        if key in store.done:
            if store.done[key] == result:
                store.repeats += 1
            else:
                store.damaged.append((number_, f"key {key!r} is stored at line {first[key]} "
                                               "with another result (the first is kept)",
                                      line))
            continue
        first[key] = number_
        store.valid.append(line)
        store.done[key] = result
    return store


def set_aside(path: Path, store: Store) -> None:
    """Append the damaged lines to ``<store>.rejected`` and rewrite the store with the valid
    ones, each once, atomically (under the store's lock, so that no run's append is lost):
    no valid record is lost, and the damaged draws are measured again."""
    if store.damaged:
        with open(rejected_path(path), "ab") as fh:
            for _, _, line in store.damaged:
                fh.write(line + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    with atomic(path) as tmp:
        tmp.write_bytes(b"".join(line + b"\n" for line in store.valid))


def stored(sweep: Sweep, folder: str | Path) -> int:
    """How many of the sweep's draws its store in ``folder`` already holds."""
    done = load(store_path(folder, sweep.mode), sweep.mode).done
    return sum(key in done for key in sweep.keys())


def provenance_path(folder: str | Path, mode) -> Path:
    return Path(folder) / f"threshold-{mode_named(mode).name}.provenance.json"


def begin_run(sweep: Sweep, folder: str | Path, stored_before: int, **where) -> str:
    """Enter this run in the provenance's list of runs before it measures a draw, as not
    finished (a run that is killed stays listed so); its id."""
    path = provenance_path(folder, sweep.mode)
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    with locked(path):
        record = _read_record(path)
        record["runs"] = earlier_runs(path) + [{
            "run": run_id, "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **where,
            "draws_reused": stored_before, "finished": False}]
        write_atomic(path, json.dumps(record, indent=2) + "\n")
    return run_id


def write_provenance(sweep: Sweep, folder: str | Path, wall_s: float, stored_before: int,
                     tabs: list[Table], run_id: str | None = None, **where) -> Path:
    """``DIR/threshold-<mode>.provenance.json``: parameters, environment, this run (wall
    time, ``where`` it ran, draws measured and reused), the verdict counts, and the list of
    every run that wrote the folder (``earlier_runs``, this one, entered by
    :func:`begin_run` as ``run_id``, now finished; a run entered and never finished was
    killed)."""
    mode = sweep.mode
    parameters = {"mode": mode.name, "grid": list(sweep.grid), "sizes": list(sweep.sizes),
                  "draws": sweep.draws, "seed": sweep.seed,
                  mode.fixed: getattr(sweep, mode.fixed)}
    record = provenance(parameters, wall_s, **where,
                        draws_measured=len(sweep.keys()) - stored_before,
                        draws_reused=stored_before, verdicts=counts(tabs))
    path = provenance_path(folder, mode)
    this = ("date", "wall_s", *where, "draws_measured", "draws_reused")
    entry = {**({} if run_id is None else {"run": run_id}), **{k: record[k] for k in this},
             "finished": True}
    with locked(path):
        runs = [r for r in earlier_runs(path) if run_id is None or r.get("run") != run_id]
        record["runs"] = runs + [entry]
        write_atomic(path, json.dumps(record, indent=2) + "\n")
    return path


def _read_record(path: Path) -> dict:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return record if isinstance(record, dict) else {}


def earlier_runs(path: Path) -> list[dict]:
    """The runs a provenance file lists (none if it is missing or unreadable): a rerun that
    reuses the store keeps the record of the runs that measured it."""
    runs = _read_record(path).get("runs", [])
    return [r for r in runs if isinstance(r, dict)] if isinstance(runs, list) else []


def run(sweep: Sweep, folder: str | Path | None,
        progress: Callable[[int, int], None] | None = None,
        warn: Callable[[str], None] | None = None,
        known: dict[str, dict[str, float]] | None = None) -> dict[str, dict[str, float]]:
    """Measure every missing draw of the sweep (appending each to the store; without one,
    those in ``known`` are not measured again) and return all.

    Damaged lines of the store (``load``) are set aside in ``<store>.rejected``, each named
    to ``warn`` with its file and line number, and their draws are measured again.
    """
    path = None if folder is None else store_path(folder, sweep.mode)
    done: dict[str, dict[str, float]] = dict(known or {})
    if path is not None:
        with locked(path):
            store = load(path, sweep.mode)
            if store.damaged or store.repeats:
                set_aside(path, store)
        if warn is not None:
            for number_, why, _ in store.damaged:
                warn(f"{path}: line {number_}: {why}; moved to {rejected_path(path)}")
            if store.repeats:
                warn(f"{path}: {store.repeats} repeated records removed (each key is kept once)")
        done = store.done
    todo = [(v, ell, k) for v in sweep.grid for ell in sweep.sizes for k in range(sweep.draws)
            if sweep.key(v, ell, k) not in done]   # the order of ``Sweep.keys``
    if progress is not None:
        progress(0, len(todo))
    for n, (i, result) in enumerate(parallel.measured(sweep.measure, todo), start=1):
        v, ell, k = todo[i]
        key = sweep.key(v, ell, k)
        done[key] = result
        if path is not None:
            done[key] = keep(path, sweep.mode, key, result, warn)
        if progress is not None:
            progress(n, len(todo))
    return done


def keep(path: Path, mode: Mode, key: str, result: dict[str, float],
          warn: Callable[[str], None] | None) -> dict[str, float]:
    """Append one draw to the store unless another run on the store has (read under the
    lock); the stored result is the one used. Another run's result for the key that differs
    by more than ``REPRODUCIBLE_RTOL`` is reported."""
    with locked(path):
        stored_result = load(path, mode).done.get(key)
        if stored_result is None:
            append_line(path, json.dumps({"key": key, "result": result}).encode("utf-8"))
            return result
    if warn is not None and any(
            abs(stored_result[name] - value) > REPRODUCIBLE_RTOL * max(abs(value), 1e-300)
            for name, value in result.items()):
        warn(f"{path}: another run stored {key!r} with another result; the stored one is "
             "used")
    return stored_result


def decide(sweep: Sweep, folder: str | Path | None, budget: float,
           progress: Callable[[int, int], None] | None = None,
           warn: Callable[[str], None] | None = None
           ) -> tuple[Sweep, list[Quantity], list[Table], dict, str]:
    """``attnge threshold --decide``: judge the sweep at the per-look thresholds
    (``judging.looking``: a crossing's and a sign's z 2 → 2.67, a reading's 3 → 3.51, a
    mean's and a slope's 4 → 4.41) and, while a judged row is INCONCLUSIVE for want of
    draws (its table's ``needs``: the factor of the draws per point that it states would
    decide it, within what the looks left reach, ``judging.reach``; a row that needs
    another grid or larger sizes is not grown), double the draws per point, those measured
    or stored kept, within ``budget`` seconds (``judging.decide``). Returns the last look's
    sweep, quantities and tables, the record of the looks and what stopped them."""
    done: dict[str, dict[str, float]] = {}
    last: list = []
    taken = 0

    def look(draws: int, _z: float) -> tuple[str, bool]:
        nonlocal done, taken
        grown = replace(sweep, draws=draws)
        with judging.looking():
            done = run(grown, folder, progress, warn, done)
            found = quantities(grown, done)
            tabs = tables(grown, found)
        last[:] = [grown, found, tabs]
        taken += 1
        verdicts = [v for t in tabs for v in t.verdicts if v is not None]
        if False in verdicts:
            return "FAIL", False
        more = any(t.draws_could_decide(judging.reach(taken)) for t in tabs)
        return (INCONCLUSIVE if INCONCLUSIVE in verdicts else "PASS"), more

    record, stopped = judging.decide(look, sweep.draws, budget)
    return (*last, record, stopped)


def quantities(sweep: Sweep, done: dict) -> list[Quantity]:
    """Fitted slopes per grid value and measured against predicted threshold per quantity."""
    return sweep.mode.quantities(sweep, done)


def threshold_table(sweep: Sweep, found: list[Quantity], judge: bool = True) -> Table:
    var, mode = sweep.mode.variable, sweep.mode
    table = Table(f"{mode.name}: predicted and measured threshold {var}* (measured: the "
                  f"slope against ell crosses 0; PASS: {mode.pass_rule}, with an uncertainty "
                  f"<= {DECISIVE:g}; INCONCLUSIVE: agreeing within a wider one; a "
                  f"prediction for these sizes from a first-order asymptotic or a count "
                  f"carries ± the size of its correction)",
                  ["quantity", f"predicted {var}* (ell -> inf)",
                   f"predicted {var}* (these sizes)", "competing", f"measured {var}*",
                   "uncertainty", "where", "to decide"], note=mode.note)
    for qt in found:
        error = f" ± {qt.prediction_error:.2g}" if qt.prediction_error else ""
        bound = ">= " if qt.lower_bound else ""
        cells = [qt.name, f"{bound}{qt.predicted:.4g}",
                 "" if qt.finite is None else
                 qt.finite[1] if qt.finite[0] is None else f"{bound}{qt.finite[0]:.4g}{error}",
                 "" if qt.competing is None else f"{qt.competing:.4g}"]
        judged = judge and qt.name in mode.judged
        table.add([*cells, "" if qt.measured is None else f"{qt.measured:.4g}",
                   "" if qt.uncertainty is None else f"{qt.uncertainty:.2g}", qt.bracket,
                   qt.decide if judged else ""], qt.verdict if judged else None,
                  qt.needs if judged else None)
    return table


def slope_table(sweep: Sweep, found: list[Quantity]) -> Table:
    var = sweep.mode.variable
    fixed = f"{sweep.mode.fixed} = {getattr(sweep, sweep.mode.fixed):g}"
    table = Table(f"{sweep.mode.name}: fitted log-log slope against ell (sizes "
                  f"{', '.join(map(str, sweep.sizes))}; {sweep.draws} draws; {fixed}); "
                  f"in brackets the predicted slope: '= x' that of the exact mean at these "
                  f"sizes, else the ell -> inf exponent", [var, *[qt.name for qt in found]])
    for v in sweep.grid:
        cells = []
        for qt in found:
            if v not in qt.grid:
                cells.append("d_qk too small")
                continue
            i = qt.grid.index(v)
            r, p = qt.slopes[i], qt.predicted_slopes[i]
            limit = None if qt.limit_slopes is None else qt.limit_slopes[i]
            z = "" if qt.size_z is None or qt.size_z[i] is None else f", z <= {qt.size_z[i]:.2g}"
            cells.append(f"{r.slope:.3g} ± {r.se:.2g}" + (f" (= {p:.3g}{z})" if p is not None else
                                                          "" if limit is None else
                                                          f" ({limit:.3g})"))
        table.add([f"{v:g}", *cells])
    return table


def tables(sweep: Sweep, found: list[Quantity], judge: bool = True) -> list[Table]:
    """The threshold table, the slope table and the mode's own (order: drift; one-entry:
    the two readings)."""
    return [threshold_table(sweep, found, judge), slope_table(sweep, found),
            *sweep.mode.extra_tables(sweep, found)]


def counts(tabs: list[Table]) -> str:
    """'n PASS, n FAIL, n INCONCLUSIVE' over the judged rows of the tables."""
    verdicts = [v for t in tabs for v in t.verdicts if v is not None]
    n_open = sum(v == INCONCLUSIVE for v in verdicts)
    n_pass = sum(v is True for v in verdicts)
    return f"{n_pass} PASS, {len(verdicts) - n_pass - n_open} FAIL, {n_open} INCONCLUSIVE"


def plot(sweep: Sweep, found: list[Quantity], path: str | Path) -> None:
    """Measured slopes ± se against the grid, the predicted slope, the thresholds."""
    from attnge.output.figures import pyplot, save

    plt = pyplot()
    cols = 3 if len(found) % 3 == 0 else 4
    rows = -(-len(found) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, qt in zip(axes.flat, found):
        grid = np.array(qt.grid)
        ax.errorbar(grid, [r.slope for r in qt.slopes], yerr=[r.se for r in qt.slopes],
                    fmt="o", ms=4, capsize=2, label="measured slope")
        exact = [(v, p) for v, p in zip(qt.grid, qt.predicted_slopes) if p is not None]
        if exact:
            ax.plot(*zip(*exact), "-", lw=1, label="exact mean's slope")
        limit = [(v, p) for v, p in zip(qt.grid, qt.limit_slopes or ()) if p is not None]
        if limit:
            ax.plot(*zip(*limit), "--", color="gray", lw=1, label=r"slope as $\ell\to\infty$")
        ax.axhline(0, color="k", lw=0.5)
        ax.axvline(qt.predicted, color="r", ls="--", lw=0.8,
                   label=r"predicted threshold ($\ell\to\infty$)")
        if qt.finite is not None and qt.finite[0] is not None:
            ax.axvline(qt.finite[0], color="m", ls=":", lw=1.0,
                       label="predicted threshold (these sizes)")
        if qt.measured is not None:
            ax.axvspan(qt.measured - qt.uncertainty, qt.measured + qt.uncertainty,
                       color="g", alpha=0.2, label="measured threshold")
        ax.set_title(qt.name, fontsize=9)
        ax.set_xlabel({"c": r"$c$", "alpha": r"$\alpha$"}.get(sweep.mode.variable,
                                                              sweep.mode.variable))
        ax.set_ylabel(r"slope in $\ell$")
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(found):]:
        ax.axis("off")
    fig.suptitle(rf"threshold, {sweep.mode.name}: slope of each distance against $\ell$")
    fig.tight_layout()
    save(fig, path)
