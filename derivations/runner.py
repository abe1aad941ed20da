"""Run proof steps and collect their results with provenance."""

from __future__ import annotations

import platform
import sys
import time
from dataclasses import dataclass, field

import mpmath
import numpy
import sympy

from attnge import __version__
from attnge.params import Params
from attnge.step import Step, Table, tex


def provenance(parameters: dict, wall_s: float, **extra) -> dict:
    """Version, environment, parameters, wall time and date of a run."""
    return {
        "attnge": __version__,
        "python": sys.version.split()[0],
        "numpy": numpy.__version__, "sympy": sympy.__version__,
        "mpmath": mpmath.__version__,
        "platform": platform.platform(),
        "parameters": parameters,
        **extra,
        "wall_s": round(wall_s, 3),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


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


def run(steps: list[Step], params: Params, progress=None) -> Run:
    """Run the steps in order; ``progress(i, n, step_id)`` is called before each."""
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
