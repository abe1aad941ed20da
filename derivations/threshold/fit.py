"""From stored draws to a measured threshold: means, log–log slopes, crossings, verdicts.

Per grid value v the mean of a distance over draws is fitted against ℓ (log–log slope ±
se); the measured threshold is where the slope crosses zero, interpolated between the
bracketing grid values. Its uncertainty (about 95%, ``CROSSING_Z``) is the slope errors
carried through the interpolation plus its model error (how far the root moves when a
third grid value bends the interpolant into a parabola), widened over neighbours whose
slope has no known sign. A row is decided when that uncertainty is at most ``DECISIVE``:

    PASS  |measured − predicted| ≤ uncertainty ≤ DECISIVE (and every value check holds)
    FAIL  |measured − predicted| > uncertainty, or a value check fails
    INCONCLUSIVE  they agree, but the uncertainty exceeds DECISIVE: the row names the draws
          per point (from the measured variance) or the grid that would decide it.

A prediction from a first-order asymptotic adds its own error (``Quantity.approximate``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attnge.judging import (
    CROSSING_Z,
    INCONCLUSIVE,
    NO_DRAWS,
    RATE_Z,
    SIGN_Z,
    SIZE_Z,
    SLOPE_TOLERANCE,
    at,
)
from attnge.numerics import stats

DECISIVE = 0.1          # a threshold is decided when its uncertainty is at most this
DRAWS_PER_POINT = "draws per point"
"""How a row that more draws per grid point would decide says so; the factor it states is
its table's ``needs`` (``audit.decide`` grows those within the looks' reach)."""
DRAW_FACTORS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)   # more draws tried by ``to_decide``
BEYOND_FACTORS = 2 * DRAW_FACTORS[-1]
"""The factor a row states where none of ``DRAW_FACTORS`` decides it: more than the last."""


def means(records: list[list[dict]], sizes, name: str, typical: bool = False
          ) -> tuple[list[float], list[float], list[float]]:
    """Per size, the mean over its draws' records, its se and the se's degrees of freedom.

    Pooled within-draw variances where the draws carry them (``name var``), else the spread
    of the draws. Kolmogorov distances lie on the lattice 1/ℓ: its rounding, (1/ℓ)²/12 per
    draw, is added to their variance. ``typical``: the geometric mean (the mean of the logs,
    for a heavy-tailed positive quantity: its typical value), with se = mean × se(log).
    """
    out_means, out_ses, dofs = [], [], []
    for ell, draws in zip(sizes, records):
        v = np.array([r[name] for r in draws], dtype=float)
        dof = max(v.size - 1, 1)
        if typical:
            logs = np.log(v)
            mean = float(np.exp(logs.mean()))
            se = mean * float(logs.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
        elif f"{name} var" in draws[0]:   # within-draw variances of many entries
            mean, se = stats.pool(list(v), [r[f"{name} var"] for r in draws])
            dof = math.inf
        else:
            mean = float(v.mean())
            se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
        if name.startswith("kolmogorov"):
            se = math.hypot(se, 1 / (ell * math.sqrt(12 * v.size)))
        out_means.append(mean)
        out_ses.append(se)
        dofs.append(dof)
    return out_means, out_ses, dofs


def fit(sizes, values: list[float], ses: list[float], dofs: list[float] | None = None
        ) -> stats.Rate:
    """The log–log slope of the size |value| of a distance (or of a signed difference),
    with the degrees of freedom of its error where the ses carry theirs."""
    sizes_of = [max(abs(m), 1e-300) for m in values]
    weighted = min(ses) > 0
    return stats.fit_rate(sizes, sizes_of, ses if weighted else None,
                          dofs if weighted and dofs is not None else None)


def fit_exact(sizes, exact: list[float], values: list[float], ses: list[float]) -> stats.Rate:
    """The slope of an exact mean, fitted with the measurement's relative weights."""
    return fit(sizes, exact, [abs(e) * s / max(abs(m), 1e-300)
                              for e, s, m in zip(exact, ses, values)])


def _bent(grid, rates, third: int, a: int, b: int, x: float) -> float:
    """How far the root moves when the interpolant through a, b also meets ``third``."""
    xs = [grid[i] for i in (a, b, third)]
    ys = [rates[i].slope for i in (a, b, third)]
    lo, hi = sorted((grid[a], grid[b]))
    roots = [r.real for r in np.roots(np.polyfit(xs, ys, 2))
             if abs(r.imag) < 1e-12 and lo <= r.real <= hi]
    return float(min((abs(r - x) for r in roots), default=(hi - lo) / 2))


def crossing(grid: tuple[float, ...], rates: list[stats.Rate], upward: bool
             ) -> tuple[float | None, float | None, str]:
    """Where the slope first reaches 0, scanning from the side where it is negative.

    upward: scan increasing values (temperature: distances shrink below c*); else scan
    decreasing values (order: distances shrink above α*). The crossing x is interpolated
    between the bracketing grid values a, b. Its uncertainty: the slopes' widths at
    ``CROSSING_Z`` (Student-t with their degrees of freedom) carried through the
    interpolation (first order) plus the model error ``_bent`` (with the next
    grid value on the far side, else the one before; half the spacing when there is none);
    where a bracketing slope's sign is unknown (|slope| < ``SIGN_Z`` se), widened to the
    nearest grid values on each side whose signs are known (or the grid's end).
    """
    idx = list(range(len(grid))) if upward else list(range(len(grid)))[::-1]
    known = [abs(r.slope) >= at(SIGN_Z) * r.se for r in rates]
    seen_negative = False
    for pos, (a, b) in enumerate(zip(idx, idx[1:])):
        sa, sb = rates[a].slope, rates[b].slope
        seen_negative = seen_negative or sa < 0
        if seen_negative and sa < 0 <= sb:
            h = abs(grid[b] - grid[a])
            x = grid[a] + (0 - sa) * (grid[b] - grid[a]) / (sb - sa)
            wa, wb = rates[a].width(at(CROSSING_Z)), rates[b].width(at(CROSSING_Z))
            statistical = h / (sb - sa) ** 2 * math.hypot(sb * wa, sa * wb)
            third = idx[pos + 2] if pos + 2 < len(idx) else idx[pos - 1] if pos else None
            model = h / 2 if third is None else _bent(grid, rates, third, a, b, x)
            unc = statistical + model
            if not (known[a] and known[b]):
                before = next((i for i in reversed(idx[:pos + 1])
                               if known[i] and rates[i].slope < 0), idx[0])
                after = next((i for i in idx[pos + 1:] if known[i] and rates[i].slope >= 0),
                             idx[-1])
                unc = max(unc, abs(x - grid[before]), abs(grid[after] - x))
            return x, unc, f"between {grid[a]:g} and {grid[b]:g}"
    side = "above" if all(r.slope < 0 for r in rates) else "below"
    edge = grid[-1] if (side == "above") == upward else grid[0]
    return None, None, f"no crossing on the grid ({'beyond' if side == 'above' else 'before'} " \
                        f"{edge:g})"


def to_decide(grid, rates: list[stats.Rate], upward: bool, draws: int
              ) -> tuple[str, float]:
    """What would bring a crossing's uncertainty to ``DECISIVE``, from the measured variance,
    and the factor of the draws it states (``NO_DRAWS`` where draws do not): the draws per
    point (each slope's se shrinks as 1/√draws and its degrees of freedom grow as draws,
    the slopes kept), else a finer grid where the model error alone exceeds it."""
    for factor in DRAW_FACTORS:
        scaled = [stats.Rate(r.slope, r.se / math.sqrt(factor), r.dof * factor)
                  for r in rates]
        x, unc, _ = crossing(grid, scaled, upward)
        if x is not None and unc <= DECISIVE:
            return f"needs ~{factor * draws} {DRAWS_PER_POINT}", float(factor)
    x, unc, where = crossing(grid, [stats.Rate(r.slope, 0.0) for r in rates], upward)
    if x is not None and unc > DECISIVE:
        return f"needs a finer grid {where} (model error {unc:.2g})", NO_DRAWS
    return f"needs over {DRAW_FACTORS[-1] * draws} {DRAWS_PER_POINT}", float(BEYOND_FACTORS)


@dataclass
class Quantity:
    """One distance: fitted slopes on its grid, predicted and measured thresholds.

    ``predicted_slopes``: the slopes of the distance's exact mean at these sizes, where one
    is derived, judged within max(4 se, ``slope_floor``). ``limit_slopes``: the ℓ → ∞
    exponents s(c), shown. ``size_z``: per grid value the largest |mean − exact mean|/se
    over the sizes, judged ≤ ``SIZE_Z``. ``finite``: the threshold predicted on these
    sizes (value or None, where), from exact means or the first correction of the
    asymptotics; ``predicted`` (the ℓ → ∞ limit) is judged where there is none.
    ``competing``: a rival prediction, shown. ``approximate``: the threshold for these sizes
    comes from the first correction of an asymptotic (or a heuristic count), not an exact
    mean; the next term is taken to be at most as large, so the prediction carries the
    error |finite − limit| (``prediction_error``). ``lower_bound``: the prediction is the
    threshold of one term T of a distance d = T + R whose other terms R shrink with ℓ at
    every c up to it; below it both slopes are negative, so d's slope, their weighted mean,
    is too, and d crosses at or above the prediction (a crossing above it does not decide
    T's). See ``verdict``.
    """

    name: str
    grid: tuple[float, ...]
    slopes: list[stats.Rate]
    predicted_slopes: list[float | None]
    predicted: float
    measured: float | None
    uncertainty: float | None
    bracket: str
    finite: tuple[float | None, str] | None = None
    limit_slopes: list[float | None] | None = None
    size_z: list[float | None] | None = None
    slope_floor: float = SLOPE_TOLERANCE
    crossing_required: bool = False
    upward: bool = True
    draws: int = 1
    competing: float | None = None
    approximate: bool = False
    lower_bound: bool = False

    @property
    def prediction_error(self) -> float:
        """The error of the target: |finite − limit| where ``approximate``, else 0."""
        if not self.approximate or self.finite is None or self.finite[0] is None:
            return 0.0
        return abs(self.finite[0] - self.predicted)

    @property
    def values_agree(self) -> bool:
        """Every exact slope within max(t₄ se, ``slope_floor``) (t₄: Student's quantile at
        the normal two-sided tail of 4, with the slope's degrees of freedom), every exact
        mean within ``SIZE_Z`` se."""
        exact = [(r, p) for r, p in zip(self.slopes, self.predicted_slopes) if p is not None]
        slopes = all(r.agrees(p, at(RATE_Z), self.slope_floor) for r, p in exact)
        return slopes and all(z <= at(SIZE_Z) for z in self.size_z or () if z is not None)

    @property
    def target(self) -> float | None:
        """The threshold the measurement is judged against: for these sizes where there is
        one, else the limit."""
        return self.predicted if self.finite is None else self.finite[0]

    @property
    def verdict(self):
        """True (PASS), False (FAIL), ``INCONCLUSIVE`` or None (nothing compared).

        FAIL when a value check fails, or the measured threshold lies farther than its
        uncertainty (with the target's ``prediction_error`` in quadrature) from the target;
        PASS when it lies within and the measured uncertainty is at most ``DECISIVE``;
        INCONCLUSIVE when it lies within a wider one. Where no crossing is measured: with
        ``crossing_required``, INCONCLUSIVE if the target lies off the grid where the
        slopes put the crossing or no slope past it has a sign known at its t-width
        (``SIGN_Z``), else FAIL; otherwise, where only one of the measured and
        predicted thresholds exists, the slopes decide; where neither the exact mean nor
        the samples cross on the grid, INCONCLUSIVE where the exact slopes agree. With
        ``lower_bound`` only a crossing farther than that below the target FAILs, and no
        crossing with every slope negative (beyond the grid's end) is INCONCLUSIVE.
        """
        agree = self.values_agree
        target, exact = self.target, any(p is not None for p in self.predicted_slopes)
        if target is not None and self.measured is not None:
            allowed = math.hypot(self.uncertainty, self.prediction_error)
            below = target - self.measured
            if not agree or (below if self.lower_bound else abs(below)) > allowed:
                return False
            return True if self.uncertainty <= DECISIVE else INCONCLUSIVE
        if target is not None and self.crossing_required:   # no crossing measured
            if not agree:
                return False
            return INCONCLUSIVE if self._off_grid(target) or not self._contradicted(target) \
                else False
        if target is None and self.finite is not None and self.measured is None and exact:
            return INCONCLUSIVE if agree else False   # neither the exact mean nor the
            #                                           samples cross on this grid
        if self.crossing_required or self.finite is None:
            return False
        if exact:   # only one crosses: the slopes, within their errors, decide
            return agree
        return None if target is None and self.measured is None else False

    def _off_grid(self, target: float) -> bool:
        """No crossing on the grid, and the target lies off it on the side where the
        measured slopes put the crossing (beyond the scan's end when every slope is
        negative, before its start otherwise)."""
        first, last = (self.grid[0], self.grid[-1]) if self.upward else \
            (self.grid[-1], self.grid[0])
        after = (lambda a, b: a > b) if self.upward else (lambda a, b: a < b)
        if all(r.slope < 0 for r in self.slopes):
            return self.lower_bound or after(target, last)
        return after(first, target)

    def _signs_past(self, target: float) -> list[tuple[float, stats.Rate]]:
        """The grid values on the side of ``target`` where no crossing was measured, with
        their slopes: past it (by more than the prediction's own error) when every slope is
        negative, where a crossing at the target makes them non-negative; before it
        otherwise, where they must be negative."""
        err = self.prediction_error
        negative = all(r.slope < 0 for r in self.slopes)
        sign = 1 if self.upward == negative else -1
        return [(v, r) for v, r in zip(self.grid, self.slopes) if sign * (v - target) > err]

    def _contradicted(self, target: float) -> bool:
        """No crossing measured, and a slope on the side of ``target`` where one should have
        turned has the wrong sign, known at its t-width (``SIGN_Z``): the grid then shows
        the crossing is not at the target. Slopes whose sign the draws cannot tell show
        nothing (INCONCLUSIVE, with the draws that would tell)."""
        negative = all(r.slope < 0 for r in self.slopes)
        return any((r.slope + r.width(at(SIGN_Z)) < 0) if negative else
                   (r.slope - r.width(at(SIGN_Z)) >= 0) for _, r in self._signs_past(target))

    def _draws_for_a_sign(self, target: float) -> tuple[str, float]:
        """About how many draws per point make known the sign of the clearest slope past
        the target (its se shrinks as 1/√draws), and that factor of the draws."""
        past = [r for _, r in self._signs_past(target) if r.se > 0]
        if not past:
            return "needs a grid that reaches past the prediction", NO_DRAWS
        best = max(past, key=lambda r: abs(r.slope) / r.se)
        if best.slope == 0:
            return (f"needs over {DRAW_FACTORS[-1] * self.draws} {DRAWS_PER_POINT}",
                    float(BEYOND_FACTORS))
        factor = (at(SIGN_Z) * best.se / abs(best.slope)) ** 2
        draws = math.ceil(1.5 * factor * self.draws)
        return (f"needs ~{draws} {DRAWS_PER_POINT} (no slope past {target:.3g} has a sign "
                f"known at {at(SIGN_Z):.3g} se)", draws / self.draws)

    def _to_decide(self) -> tuple[str, float | None]:
        """(what would decide an INCONCLUSIVE row, the factor of its draws that would:
        ``NO_DRAWS`` where another grid would); ('', None) for a decided row."""
        if self.verdict is not INCONCLUSIVE:
            return "", None
        if self.measured is None and self.target is not None and self.crossing_required \
                and not self._off_grid(self.target):
            return self._draws_for_a_sign(self.target)
        if self.measured is None:
            past = self.predicted if self.target is None else self.target
            if self.lower_bound and all(r.slope < 0 for r in self.slopes):
                # the crossing lies past the grid's end, and at or above the bound
                past = max(past, self.grid[-1]) if self.upward else min(past, self.grid[0])
            return f"needs grid values past {past:.3g}", NO_DRAWS
        return to_decide(self.grid, self.slopes, self.upward, self.draws)

    @property
    def decide(self) -> str:
        """For an INCONCLUSIVE row: what would decide it."""
        return self._to_decide()[0]

    @property
    def needs(self) -> float | None:
        """For an INCONCLUSIVE row: the factor of its draws per point that would decide it
        (``NO_DRAWS`` where only another grid or larger sizes would; ``step.Table.needs``)."""
        return self._to_decide()[1]
