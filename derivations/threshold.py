"""The threshold sweeps: measure on a grid, resume from disk, fit, compare with theory.

A sweep is a grid of values v (c for ``temperature``, α for ``order``) × sizes ℓ × draws.
Each finished draw is appended as one JSON line to ``DIR/threshold-<mode>.jsonl`` (flushed
and fsynced); a rerun reads the file and measures only the missing draws, so an interrupted
sweep resumes where it stopped. For each quantity and v, the mean over draws is fitted
against ℓ (log–log slope ± se); the measured threshold is where the slope crosses zero
(linear interpolation between grid points), with uncertainty = half the grid spacing plus
the slope errors carried through the interpolation.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sympy as sp

from derivations import parallel
from derivations.report import atomic
from derivations.step import Table
from numerics import stats
from numerics.measure import require_memory
from numerics.softmax_mass import expected_mass_difference
from numerics.threshold import (measure_order, measure_temperature, order_d_qk, temperature_beta)
from theory import threshold as th
from theory import inputs
from theory.inputs import d_qk as rounded_d_qk
from theory.inputs import integer, number

MODES = ("temperature", "order")
QUICK = {"temperature": {"grid": (0.2, 0.35, 0.5, 0.65, 0.8, 1.0, 1.2),
                         "sizes": (250, 500, 1000, 2000), "draws": 2},
         "order": {"grid": (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.75, 0.9),
                   "sizes": (250, 500, 1000, 2000), "draws": 2}}
FULL = {"temperature": {"grid": (*(round(0.1 * i, 2) for i in range(1, 15)), 1.6, 1.8, 2.0),
                        "sizes": (500, 1000, 2000, 4000), "draws": 3},
        "order": {"grid": tuple(round(0.05 * i, 2) for i in range(3, 21)),
                  "sizes": (500, 1000, 2000, 4000), "draws": 2}}
LEDGER = {"temperature": QUICK["temperature"],     # the ``threshold`` step of ``verify``
          "order": {**QUICK["order"], "sizes": (250, 500, 1000)}}
REPRODUCIBLE_RTOL = 1e-9
"""Across NumPy/BLAS builds a stored draw is reproduced to this relative tolerance (the
Kolmogorov distances, on the 1/ℓ lattice, to one step); on one build, bit for bit."""
MATRICES = {"temperature": 10, "order": 11}   # ℓ×ℓ float64 arrays alive in one draw
SCHEMA = {"temperature": "v3", "order": "v2"}   # bump a mode's when its measurement changes:
                                                # its old records are then not reused


@dataclass(frozen=True)
class Sweep:
    mode: str
    grid: tuple[float, ...]
    sizes: tuple[int, ...]
    draws: int
    seed: int = 0
    beta: float = 0.35       # order mode (small β: δ's tails allow a smaller d_qk)
    y: float = 1.0           # temperature mode

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)} (got {self.mode!r})")
        grid = tuple(number(v, "grid") for v in self.grid)
        low, high = (0.0, math.inf) if self.mode == "temperature" else (0.0, 1.0)
        if len(grid) < 2 or any(not low < v <= high for v in grid) \
                or any(b <= a for a, b in zip(grid, grid[1:])):
            what = "c > 0" if self.mode == "temperature" else "alpha in (0, 1]"
            raise ValueError(f"grid must hold at least 2 increasing values of {what} "
                             f"(got {list(self.grid)})")
        sizes = tuple(integer(s, "sizes (each ell)", 4) for s in self.sizes)
        if len(sizes) < 3 or any(b <= a for a, b in zip(sizes, sizes[1:])):
            raise ValueError(f"sizes must hold at least 3 increasing values (got {list(sizes)})")
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "draws", integer(self.draws, "draws", 1))
        object.__setattr__(self, "seed", integer(self.seed, "seed", 0))
        object.__setattr__(self, "beta", inputs.beta(self.beta))
        object.__setattr__(self, "y", inputs.ratio(self.y))
        c_max = inputs.BETA_MAX / math.sqrt(math.log(max(sizes)))
        if self.mode == "temperature" and grid[-1] > c_max:
            raise ValueError(f"grid must hold c <= {c_max:.3g} at these sizes, so that beta = "
                             f"c sqrt(log ell) <= {inputs.BETA_MAX:g} (got c = {grid[-1]:g})")
        self.validate_memory()
        if self.mode == "order":
            for model in th.ORDER_MODELS:
                if len(order_grid(self, model)) < 2:
                    raise ValueError(f"grid must hold at least 2 alpha with d_qk = "
                                     f"{min(sizes)}^alpha > {se_bound(self, model):g} for "
                                     f"{model} at beta = {self.beta:g} (raise alpha or the "
                                     f"sizes, or lower beta)")

    def validate_memory(self) -> None:
        """Refuse sizes whose draws, as many at once as run on this machine, would not fit."""
        require_memory(max(self.sizes), MATRICES[self.mode], copies=parallel.concurrent_draws())

    def key(self, value: float, ell: int, draw: int) -> str:
        fixed = f"y={self.y!r}" if self.mode == "temperature" else f"beta={self.beta!r}"
        return f"{SCHEMA[self.mode]}|{self.mode}|{value!r}|{ell}|{draw}|seed={self.seed}|{fixed}"

    def measure(self, value: float, ell: int, draw: int) -> dict[str, float]:
        if self.mode == "temperature":
            return measure_temperature(value, ell, self.y, self.seed, draw)
        return measure_order(value, ell, self.beta, self.seed, draw)


RESULT_KEYS = {
    "temperature": ("m1", "m1 var", "m2/m1^2", "m3/m1^3", "m4/m1^4", "kolmogorov", "sd(D)",
                    "s1^2/E"),
    "order": tuple(f"{kind} {m}{suffix}" for m in th.ORDER_MODELS for kind, suffix in
                   (("frobenius", ""), ("frobenius", " var"), ("wasserstein", ""),
                    ("kolmogorov", ""))),
}
"""The schema of a stored draw: {"key": str, "result": {these names: numbers}}."""


def store_path(folder: str | Path, mode: str) -> Path:
    return Path(folder) / f"threshold-{mode}.jsonl"


def rejected_path(path: Path) -> Path:
    return path.with_name(path.name + ".rejected")


def _record(line: bytes, mode: str) -> tuple[str, dict[str, float]]:
    """The (key, result) of one stored line; ValueError saying what is wrong with it."""
    try:
        record = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    except json.JSONDecodeError:
        raise ValueError("not a JSON record (truncated or garbage)") from None
    if not isinstance(record, dict) or set(record) != {"key", "result"}:
        raise ValueError('not a record {"key": ..., "result": ...}')
    key, result = record["key"], record["result"]
    if not isinstance(key, str) or not isinstance(result, dict):
        raise ValueError("key must be a string and result an object")
    if not key.startswith(f"{SCHEMA[mode]}|{mode}|"):
        return key, result                        # another schema or mode: kept, not used
    if set(result) != set(RESULT_KEYS[mode]):
        raise ValueError(f"result must hold exactly {', '.join(RESULT_KEYS[mode])}")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in result.values()):
        raise ValueError("every result must be a number")
    return key, result


@dataclass
class Store:
    """What a store holds: the finished draws, its valid lines (bytes as written) and its
    damaged ones as (line number, what is wrong, the bytes)."""

    done: dict[str, dict[str, float]]
    valid: list[bytes]
    damaged: list[tuple[int, str, bytes]]


def load(path: Path, mode: str) -> Store:
    """Read a store line by line; nothing is skipped silently (see ``Store``)."""
    store = Store({}, [], [])
    if not path.exists():
        return store
    for number_, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            key, result = _record(line, mode)
        except ValueError as err:
            store.damaged.append((number_, str(err), line))
            continue
        store.valid.append(line)
        store.done[key] = result
    return store


def set_aside(path: Path, store: Store) -> None:
    """Append the damaged lines to ``<store>.rejected`` and rewrite the store with the valid
    ones, atomically: no valid record is lost, and the damaged draws are measured again."""
    with open(rejected_path(path), "ab") as fh:
        for _, _, line in store.damaged:
            fh.write(line + b"\n")
        fh.flush()
        os.fsync(fh.fileno())
    with atomic(path) as tmp:
        tmp.write_bytes(b"".join(line + b"\n" for line in store.valid))


def run(sweep: Sweep, folder: str | Path | None,
        progress: Callable[[int, int], None] | None = None,
        warn: Callable[[str], None] | None = None) -> dict[str, dict[str, float]]:
    """Measure every missing draw of the sweep (appending each to the store) and return all.

    Damaged lines of the store (``load``) are set aside in ``<store>.rejected``, each named
    to ``warn`` with its file and line number, and their draws are measured again.
    """
    path = None if folder is None else store_path(folder, sweep.mode)
    done: dict[str, dict[str, float]] = {}
    if path is not None:
        store = load(path, sweep.mode)
        if store.damaged:
            set_aside(path, store)
        for number_, why, _ in store.damaged:
            if warn is not None:
                warn(f"{path}: line {number_}: {why}; moved to {rejected_path(path)}")
        done = store.done
    todo = [(v, ell, k) for v in sweep.grid for ell in sweep.sizes for k in range(sweep.draws)
            if sweep.key(v, ell, k) not in done]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    if progress is not None:
        progress(0, len(todo))
    for n, (i, result) in enumerate(parallel.measured(sweep.measure, todo), start=1):
        v, ell, k = todo[i]
        done[sweep.key(v, ell, k)] = result
        if path is not None:
            with open(path, "a") as fh:
                fh.write(json.dumps({"key": sweep.key(v, ell, k), "result": result}) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        if progress is not None:
            progress(n, len(todo))
    return done


SLOPE_TOLERANCE = 0.1   # order, δ: |measured − exact slope| ≤ max(4 se, this)
SIZE_Z = 4.0            # temperature, m₁: |mean − exact mean| ≤ 4 se at every (c, ℓ)


@dataclass
class Quantity:
    """One distance: fitted slopes on its grid, predicted and measured thresholds.

    ``predicted_slopes``: the slopes of the distance's exact mean at these sizes, where one
    is derived (order: δ; temperature: m₁, and sd(D) where its square concentrates),
    judged within max(4 se, ``slope_floor``). ``limit_slopes`` (temperature): the ℓ → ∞
    exponents s(c), shown. ``size_z`` (temperature, m₁): per grid value the largest
    |mean − exact mean|/se over the sizes, judged ≤ ``SIZE_Z``. ``finite``: the threshold
    predicted on these sizes and this grid (value or None, where) — for δ and m₁ from
    their exact means; for the order's Kolmogorov distances from the rank count
    N_k(d_qk)/ℓ. ``predicted`` (the ℓ → ∞ limit) is reported beside it. See ``verdict``.
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

    @property
    def verdict(self) -> bool | None:
        """Every exact slope met within max(4 se, ``slope_floor``), every exact mean within
        ``SIZE_Z`` se, and the measured threshold within its uncertainty of the predicted
        one: the one for these sizes where there is one, else the limit. Where only one of
        the measured and the finite-size thresholds exists, the slopes decide unless
        ``crossing_required`` (then it fails); None where nothing is compared."""
        exact = [(r, p) for r, p in zip(self.slopes, self.predicted_slopes) if p is not None]
        slopes = all(abs(r.slope - p) <= max(4 * r.se, self.slope_floor) for r, p in exact)
        slopes = slopes and all(z <= SIZE_Z for z in self.size_z or () if z is not None)
        if self.finite is None:
            return slopes and self.measured is not None \
                and abs(self.measured - self.predicted) <= self.uncertainty
        value = self.finite[0]
        if value is not None and self.measured is not None:
            return slopes and abs(self.measured - value) <= self.uncertainty
        if self.crossing_required:
            return False
        if exact:   # only one crosses: the slopes, within their errors, decide
            return slopes
        return None if value is None and self.measured is None else False


def _means(sweep: Sweep, done: dict, name: str, value: float) -> tuple[list[float], list[float]]:
    """Mean over draws per size (signed for a signed difference, m1), and its se: pooled
    within-draw variances where the draws carry them (``name var``), else the spread of
    the draws. Kolmogorov distances lie on the lattice 1/ℓ: its rounding, (1/ℓ)²/12 per
    draw, is added to their variance."""
    means, ses = [], []
    for ell in sweep.sizes:
        records = [done[sweep.key(value, ell, k)] for k in range(sweep.draws)]
        v = np.array([r[name] for r in records])
        if f"{name} var" in records[0]:
            mean, se = stats.pool(list(v), [r[f"{name} var"] for r in records])
        else:
            mean = float(v.mean())
            se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else 0.0
        if name.startswith("kolmogorov"):
            se = math.hypot(se, 1 / (ell * math.sqrt(12 * v.size)))
        means.append(mean)
        ses.append(se)
    return means, ses


def _fit(sizes, means: list[float], ses: list[float]) -> stats.Rate:
    """The log–log slope of the size |mean| of a distance (or of a signed difference)."""
    sizes_of = [max(abs(m), 1e-300) for m in means]
    return stats.fit_rate(sizes, sizes_of, ses if min(ses) > 0 else None)


def _fit_exact(sizes, exact: list[float], means: list[float], ses: list[float]) -> stats.Rate:
    """The slope of an exact mean, fitted with the measurement's relative weights."""
    return _fit(sizes, exact, [abs(e) * s / max(abs(m), 1e-300)
                               for e, s, m in zip(exact, ses, means)])


SIGN_Z = 2.0   # a slope's sign counts as known when |slope| >= SIGN_Z se


def crossing(grid: tuple[float, ...], rates: list[stats.Rate], upward: bool
             ) -> tuple[float | None, float | None, str]:
    """Where the slope first reaches 0, scanning from the side where it is negative.

    upward: scan increasing values (temperature: distances shrink below c*); else scan
    decreasing values (order: distances shrink above α*). The crossing is interpolated
    between the bracketing grid values a, b. Its uncertainty is half the spacing plus the
    slope errors carried through the interpolation when both slopes' signs are known
    (|slope| ≥ ``SIGN_Z`` se); otherwise the bracket widens to the nearest grid values on
    each side whose signs are known (or the grid's end), and the uncertainty reaches both.
    """
    idx = list(range(len(grid))) if upward else list(range(len(grid)))[::-1]
    known = [abs(r.slope) >= SIGN_Z * r.se for r in rates]
    seen_negative = False
    for pos, (a, b) in enumerate(zip(idx, idx[1:])):
        sa, sb = rates[a].slope, rates[b].slope
        seen_negative = seen_negative or sa < 0
        if seen_negative and sa < 0 <= sb:
            x = grid[a] + (0 - sa) * (grid[b] - grid[a]) / (sb - sa)
            per_slope = abs(grid[b] - grid[a]) / max(sb - sa, 1e-12)
            unc = abs(grid[b] - grid[a]) / 2 + per_slope * max(rates[a].se, rates[b].se)
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


ORDER_STATISTICS = ("frobenius", "wasserstein", "kolmogorov")


def order_grid(sweep: Sweep, model: str) -> tuple[float, ...]:
    """The α of the grid where δ's (and W₂²'s) standard error has finite variance.

    E δ is finite for d_qk > b (``order_distance_bound``), Var δ for d_qk > 2b, and the
    variance of its jackknife estimate for d_qk > 4b: the grid keeps those α.
    """
    bound = se_bound(sweep, model)
    return tuple(a for a in sweep.grid if order_d_qk(a, min(sweep.sizes)) > bound)


def se_bound(sweep: Sweep, model: str) -> float:
    """4 × the bound of E δ at the sweep's β: below it δ's se has infinite variance."""
    return 4 * th.order_distance_bound_at(model, sweep.beta)


# The steepest slope each distance can show, whatever its derived term does: a Kolmogorov
# distance between ℓ-point spectra lives on the lattice 1/ℓ, and a moment of ℓ eigenvalues
# (a linear spectral statistic) fluctuates by O(1/ℓ) relative to its mean.
RESOLVED = {"kolmogorov": -1.0, "m2/m1^2": -1.0, "m3/m1^3": -1.0, "m4/m1^4": -1.0}


def exact_temperature(name: str, c: float, sizes: tuple[int, ...], y: float
                      ) -> list[float] | None:
    """A distance's exact mean at β = c√(log ℓ) and these sizes, where one is derived.

    m₁: E m₁(√ℓA⊥)/θ₁ − 1, signed (``numerics.softmax_mass``), at every c: m₁ is a sum of
    ℓ bounded row masses, so it concentrates. sd(D): the root of the exact mean of its
    square (``theory.normalizer``) where that square concentrates at the smallest size
    (``spread_concentrates_at``); None otherwise. Both at the measurement's
    d_qk = round(ℓ/y).
    """
    d = {ell: rounded_d_qk(ell, y) for ell in sizes}
    if name == "m1":
        return [expected_mass_difference(temperature_beta(c, ell), ell, d[ell])
                for ell in sizes]
    if name == "sd(D)" and th.spread_concentrates_at(c, min(sizes)):
        return [th.normalizer_spread(temperature_beta(c, ell), d[ell], ell) for ell in sizes]
    return None


def _temperature(sweep: Sweep, done: dict) -> list[Quantity]:
    exps, thresholds = th.temperature_exponents(), th.temperature_thresholds()
    out = []
    for name in th.TEMPERATURE_QUANTITIES:
        rates, exact_rates, size_z = [], [], []
        for v in sweep.grid:
            means, ses = _means(sweep, done, name, v)
            rates.append(_fit(sweep.sizes, means, ses))
            exact = exact_temperature(name, v, sweep.sizes, sweep.y)
            exact_rates.append(None if exact is None else
                               _fit_exact(sweep.sizes, exact, means, ses))
            if name == "m1":   # a mean that concentrates, with a within-draw se
                size_z.append(max(abs(m - e) / s for m, e, s in zip(means, exact, ses)))
        valid = float(th.valid_up_to(name))
        limit = [float(exps[name].subs(th.c, v)) if v <= valid else None for v in sweep.grid]
        if name in RESOLVED:
            limit = [None if p is None else max(p, RESOLVED[name]) for p in limit]
        finite = None
        if name == "m1":   # its exact mean is the distance at every c: it crosses too
            value, _, where = crossing(sweep.grid, [stats.Rate(r.slope, 0.0)
                                                    for r in exact_rates], upward=True)
            finite = (value, where)
        out.append(Quantity(name, sweep.grid, rates,
                            [None if r is None else r.slope for r in exact_rates],
                            float(thresholds[name]), *crossing(sweep.grid, rates, upward=True),
                            finite=finite, limit_slopes=limit,
                            size_z=size_z or None, slope_floor=0.0,
                            crossing_required=True))
    return out


def _order(sweep: Sweep, done: dict) -> list[Quantity]:
    out = []
    for stat in ORDER_STATISTICS:
        for model in th.ORDER_MODELS:
            name, first = f"{stat} {model}", th.first_omitted(model)
            grid = sweep.grid if stat == "kolmogorov" else order_grid(sweep, model)
            rates, exact_rates = [], []
            for a in grid:
                means, ses = _means(sweep, done, name, a)
                rates.append(_fit(sweep.sizes, means, ses))
                if stat == "frobenius":   # the exact E δ, fitted with the same weights
                    exact = [th.expected_order_distance(model, sweep.beta, order_d_qk(a, ell),
                                                        ell) for ell in sweep.sizes]
                    exact_rates.append(_fit_exact(sweep.sizes, exact, means, ses))
                elif stat == "kolmogorov":   # the sign of −d log(N_k/ℓ)/d log ℓ
                    ds = tuple(order_d_qk(a, ell) for ell in sweep.sizes)
                    exact_rates.append(stats.Rate(-th.rank_exponent(first, sweep.sizes, ds),
                                                  0.0))
            finite = None
            if exact_rates:
                value, _, where = crossing(grid, [stats.Rate(r.slope, 0.0) for r in exact_rates],
                                           upward=False)
                finite = (value, where)
            pred = [r.slope for r in exact_rates] if stat == "frobenius" else [None] * len(grid)
            out.append(Quantity(name, grid, rates, pred, float(th.order_threshold(first)),
                                *crossing(grid, rates, upward=False), finite=finite))
    return out


def quantities(sweep: Sweep, done: dict) -> list[Quantity]:
    """Fitted slopes per grid value and measured against predicted threshold per quantity."""
    return _temperature(sweep, done) if sweep.mode == "temperature" else _order(sweep, done)


JUDGED = {"temperature": th.TEMPERATURE_QUANTITIES,
          "order": tuple(f"{s} {m}" for s in ("frobenius", "kolmogorov")
                         for m in th.ORDER_MODELS)}
NOTE = {
    "temperature": "sd(D) = the spread of the normalizer over rows; m1 = the mass, "
                   "|mean over draws of m1/m1(lin) - 1| (signed per draw, with a two-way "
                   "jackknife variance); mq/m1^q = the shape |(mq/m1^q)/(same for lin) - 1|. "
                   "Slopes in brackets: '= x' the exact mean's at these sizes (judged: m1 at "
                   "all c, from one softmax row's Laplace integral, with z the largest "
                   "|mean - exact mean|/se over the sizes; sd(D) where its square "
                   "concentrates, ell^(4c^2-2) < 0.1), else the ell -> inf exponent (shapes: "
                   "derived for c <= 2 - sqrt(2), where the largest entry X_max < ell). m1 "
                   "loses the share of E X^2 in entries X ~ ell, where A_ij <= 1 saturates; "
                   "kolmogorov (bulks, top 3 removed) the share of Var X in entries as large "
                   "as the bulk's scale (Lindeberg), ell^(-t^2/2), t = (1-2c^2)/(2c). Printed "
                   "limit slopes of kolmogorov and the shapes are capped at -1: a distance on "
                   "the lattice 1/ell, and the O(1/ell) fluctuation of a moment of ell "
                   "eigenvalues. Beyond c = 1 the spread follows the largest of ell^2 entries, "
                   "a heavy-tailed term: its slopes there carry large errors.",
    "order": "frobenius = ||Sigma_f - Sigma'||_F^2/(ell theta1^2), the mean-square size of "
             "what Sigma' leaves out of Sigma_f (the Hadamard terms from the first omitted k "
             "on; for lin_f also the key-norm factors s_j s_k and the diagonal of Sigma_G). "
             "Its exact mean at the same d_qk gives each predicted slope; its finite-d "
             "factors hold the crossing below 1/k, and the drift table shows it reach 1/k. "
             "kolmogorov (spectra of G Sigma G^T): the k-th term acts on the bulk through "
             "the share N_k(d_qk)/ell of directions it spans, N_k(d) = C(d+k-1, k), which "
             "stops growing with ell where alpha dlogN_k/dlogd = 1: above 1/k at finite "
             "d_qk, tending to 1/k. wasserstein (W2^2/theta1^2 <= ||G||^4 frobenius) is "
             "reported, not judged. d_qk = round(ell^alpha) in measurements and "
             "predictions alike; frobenius and wasserstein leave out grid values with "
             "d_qk <= 4 x the bound of E frobenius (their se has infinite variance there).",
}
PASS_RULE = {
    "temperature": "pass: exact slopes within 4 se, m1 within 4 se of its exact mean at "
                   "every size, and measured within the uncertainty of the predicted "
                   "threshold (m1: for these sizes)",
    "order": "pass: frobenius slopes within max(4 se, 0.1) of the exact ones, and measured "
             "within the uncertainty of the predicted threshold for these sizes where both "
             "cross 0",
}


def threshold_table(sweep: Sweep, found: list[Quantity], judge: bool = True):
    var = "c" if sweep.mode == "temperature" else "alpha"
    columns = ["quantity", f"predicted {var}* (ell -> inf)", f"predicted {var}* (these sizes)"]
    table = Table(f"{sweep.mode}: predicted and measured threshold {var}* (measured: the "
                  f"slope against ell crosses 0; {PASS_RULE[sweep.mode]})",
                  [*columns, f"measured {var}*", "uncertainty", "where"],
                  note=NOTE[sweep.mode])
    for qt in found:
        cells = [qt.name, f"{qt.predicted:.4g}",
                 "" if qt.finite is None else
                 qt.finite[1] if qt.finite[0] is None else f"{qt.finite[0]:.4g}"]
        table.add([*cells, "" if qt.measured is None else f"{qt.measured:.4g}",
                   "" if qt.uncertainty is None else f"{qt.uncertainty:.2g}", qt.bracket],
                  qt.verdict if judge and qt.name in JUDGED[sweep.mode] else None)
    return table


def slope_table(sweep: Sweep, found: list[Quantity]):
    var, fixed = ("c", f"y = {sweep.y:g}") if sweep.mode == "temperature" \
        else ("alpha", f"beta = {sweep.beta:g}")
    table = Table(f"{sweep.mode}: fitted log-log slope against ell (sizes "
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


DRIFT_DECADES = (3, 6, 9, 12)


def drift_table(beta: float) -> Table:
    """The exact finite-size threshold of δ between ℓ and 8ℓ, for ℓ = 10^3 … 10^12."""
    table = Table(f"order: the threshold of the exact E frobenius between ell and 8 ell "
                  f"(d_qk = ell^alpha, beta = {beta:g}) approaches 1/k",
                  ["ell", *[f"alpha* {m}" for m in th.ORDER_MODELS]])
    for e in DRIFT_DECADES:
        row = [th.finite_size_threshold(m, beta, 10.0**e, 8 * 10.0**e) for m in th.ORDER_MODELS]
        table.add([f"1e{e}", *["none" if a is None else f"{a:.4f}" for a in row]])
    table.add(["limit", *[str(th.order_threshold(th.first_omitted(m)))
                          for m in th.ORDER_MODELS]])
    return table


def tables(sweep: Sweep, found: list[Quantity], judge: bool = True) -> list[Table]:
    """The threshold table, the slope table and (order) the drift table."""
    out = [threshold_table(sweep, found, judge), slope_table(sweep, found)]
    return out + [drift_table(sweep.beta)] if sweep.mode == "order" else out


def plot(sweep: Sweep, found: list[Quantity], path: str | Path) -> None:
    """Measured slopes ± se against the grid, the predicted slope, the thresholds."""
    from derivations.figures import pyplot, save

    plt = pyplot()
    cols = 3 if sweep.mode == "order" else 4
    rows = -(-len(found) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), squeeze=False)
    for ax, qt in zip(axes.flat, found):
        grid = np.array(qt.grid)
        ax.errorbar(grid, [r.slope for r in qt.slopes], yerr=[r.se for r in qt.slopes],
                    fmt="o", ms=4, capsize=2, label="measured slope")
        exact = [(v, p) for v, p in zip(qt.grid, qt.predicted_slopes) if p is not None]
        if exact:
            ax.plot(*zip(*exact), "-", lw=1, label="exact mean's slope")
        if qt.limit_slopes is not None and any(p is not None for p in qt.limit_slopes):
            fine = np.linspace(qt.grid[0], max(v for v, p in zip(qt.grid, qt.limit_slopes)
                                               if p is not None), 200)
            exps = sp.lambdify(th.c, th.temperature_exponents()[qt.name], "numpy")
            curve = np.broadcast_to(exps(fine), fine.shape)
            ax.plot(fine, np.maximum(curve, RESOLVED.get(qt.name, -np.inf)), "--", color="gray",
                    lw=1, label="slope as ell -> inf")
        ax.axhline(0, color="k", lw=0.5)
        ax.axvline(qt.predicted, color="r", ls="--", lw=0.8,
                   label="predicted threshold (ell -> inf)")
        if qt.finite is not None and qt.finite[0] is not None:
            ax.axvline(qt.finite[0], color="m", ls=":", lw=1.0,
                       label="predicted threshold (these sizes)")
        if qt.measured is not None:
            ax.axvspan(qt.measured - qt.uncertainty, qt.measured + qt.uncertainty,
                       color="g", alpha=0.2, label="measured threshold")
        ax.set_title(qt.name, fontsize=9)
        ax.set_xlabel("c" if sweep.mode == "temperature" else "alpha")
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(found):]:
        ax.axis("off")
    fig.suptitle(f"threshold, {sweep.mode}: slope of each distance against ell")
    fig.tight_layout()
    save(fig, path)
