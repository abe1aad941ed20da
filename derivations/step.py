"""What a proof step is, and what it reports.

A step module defines ``STEP = Step(...)``: its id, title, claim (words, and LaTeX
rendered from SymPy), what it derives, how it is checked (sizes, draws, predicted
rate, failure criterion), and ``check(params) -> list[Table]``. A table row carries a
verdict when it is a check; the step passes when no verdict is a FAIL (INCONCLUSIVE rows,
counted in the summaries, do not fail it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import mpmath as mp
import sympy as sp

from attnge.judging import INCONCLUSIVE, Verdict
from attnge.params import Params
from attnge.theory import printing

Cell = str | int | float | bool | None
@dataclass
class Table:
    """An evidence table: columns, rows and, per row, a verdict (``Verdict``)."""

    title: str
    columns: list[str]
    rows: list[list[Cell]] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    note: str = ""
    series: list[dict] = field(default_factory=list)   # fitted rates, for log–log figures
    values: list[dict] = field(default_factory=list)   # value checks, with ``detectable``
    needs: list[float | None] = field(default_factory=list)
    """Per row, what an INCONCLUSIVE row states would decide it, as a factor of the run's
    draws per size (``math.inf``: no number of draws, its sizes, the precision or the
    quadrature; None: not stated, or the row is decided)."""
    larger: list[float | None] = field(default_factory=list)
    """Per row, for an INCONCLUSIVE row outside its fit's regime, the smallest ℓ from which
    three sizes (ℓ, 2ℓ, 4ℓ) would decide it (``regimes.Regime.need``; ``math.inf``: no ℓ
    up to ``regimes.SEARCH_MAX``; None: not stated, or the row is decided)."""

    def add_series(self, label: str, x_name: str, xs, values, errors, slope: float,
                   slope_se: float, predicted: float) -> None:
        """Record the points and fit behind a rate row (drawn by ``attnge verify --report``)."""
        self.series.append({"label": label, "x": x_name, "xs": [float(v) for v in xs],
                            "values": [float(v) for v in values],
                            "errors": None if errors is None else [float(v) for v in errors],
                            "slope": float(slope), "slope_se": float(slope_se),
                            "predicted": float(predicted)})

    def add(self, row: list[Cell], verdict: Verdict = None, needs: float | None = None,
            larger: float | None = None) -> None:
        """Add a row and its verdict; ``needs``, for an INCONCLUSIVE row, the factor of the
        run's draws per size that would decide it (``math.inf``: none would); ``larger``, for
        one outside its fit's regime, the smallest ℓ from which three sizes would."""
        if len(row) != len(self.columns):
            raise ValueError(f"row has {len(row)} cells for {len(self.columns)} columns")
        self.rows.append(row)
        self.verdicts.append(None if verdict is None else INCONCLUSIVE
                             if verdict == INCONCLUSIVE else bool(verdict))
        self.needs.append(needs if verdict == INCONCLUSIVE else None)
        self.larger.append(larger if verdict == INCONCLUSIVE else None)

    @property
    def passed(self) -> bool:
        """No row fails (an INCONCLUSIVE row does not)."""
        return all(v is not False for v in self.verdicts)

    @property
    def inconclusive(self) -> int:
        return sum(v == INCONCLUSIVE for v in self.verdicts)

    def draws_could_decide(self, reach: float = math.inf) -> bool:
        """Whether an INCONCLUSIVE row is one that at most ``reach`` times the draws could
        decide: it states no need (more draws may), or a factor within ``reach``."""
        return any(v == INCONCLUSIVE and (n is None or math.isfinite(n) and n <= reach)
                   for v, n in zip(self.verdicts, self.needs))

    @property
    def draws_needed(self) -> float | None:
        """The least factor of the draws that an INCONCLUSIVE row states would decide it
        (None where no such row states one)."""
        return min((n for v, n in zip(self.verdicts, self.needs)
                    if v == INCONCLUSIVE and n is not None), default=None)

    @property
    def ell_needed(self) -> float | None:
        """The smallest ℓ from which three sizes would decide every INCONCLUSIVE row that
        states one (``larger``: the largest of theirs; math.inf where one is out of reach;
        None where none states one)."""
        return max((n for v, n in zip(self.verdicts, self.larger)
                    if v == INCONCLUSIVE and n is not None), default=None)


@dataclass(frozen=True)
class Step:
    """A proof step of the ledger."""

    id: str
    title: str
    claim: str
    latex: Callable[[], str]
    derive: Callable[[Params], dict[str, sp.Expr | str]]
    check: Callable[[Params], list[Table]]
    method: str
    failure: str
    validate: Callable[[Params], None] = lambda params: None
    default: bool = True          # run by ``attnge verify`` without --steps or --all
    sweeps: tuple[str, ...] | Callable[[Params], tuple[str, ...]] = ()
    """The ledger's shared draws it reads ("chain", "law"; or a function of the run's
    parameters giving them): what a look at larger sizes costs for it (``runner``)."""

    def reads(self, params: Params) -> tuple[str, ...]:
        """The shared draws it reads at ``params`` (``sweeps``)."""
        return self.sweeps(params) if callable(self.sweeps) else self.sweeps


def tex(expr: sp.Expr | str) -> str:
    """LaTeX of a SymPy object, powers of e in descending order (``theory.printing``);
    strings pass through."""
    return expr if isinstance(expr, str) else printing.latex(expr)


def digits_agree(measured: mp.mpf, exact: mp.mpf) -> float:
    """Digits of agreement: −log₁₀ of the relative error (absolute when exact = 0)."""
    measured, exact = mp.mpf(measured), mp.mpf(exact)
    err = abs(measured - exact) / (abs(exact) if exact != 0 else 1)
    return float("inf") if err == 0 else float(-mp.log10(err))


def stouffer(z_scores: list[float]) -> float:
    """Combined z of independent z-scores: Σz/√n (detects a bias shared by all sizes)."""
    return float(sum(z_scores) / len(z_scores) ** 0.5)


def digits_text(digits: float) -> str:
    """Digits of agreement as text ('exact' when the two routes give the same number)."""
    return "exact" if digits == float("inf") else f"{digits:.4g}"


def fmt(value: float, digits: int = 6) -> str:
    """A float with ``digits`` significant digits."""
    return f"{value:.{digits}g}"


def pm(value: float, se: float) -> str:
    """'value ± se'."""
    return f"{value:.6g} ± {se:.2g}"
