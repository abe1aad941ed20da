r"""Gaussian equivalence for an attention variant: sample it at increasing ℓ, judge it (issue 30).

A run is one variant (``theory.variants.Variant``) at one (β, y), sizes × draws. Each draw
(``measure``) samples the variant's centred attention and its Gaussian model on the same
scores (``numerics.variants``) and records the first two moments of both spectra, in full
and in bulk (all but the largest value), the relative Wasserstein-1 and the Kolmogorov
distance between the two bulks, and the softmax normalizer of the scores. Draws are kept
as JSON lines in ``DIR/variants.jsonl`` (the threshold audit's store, with its lock and its
handling of damaged lines), so a rerun measures only what is missing.

The verdict (:func:`judge`):

- **GE HOLDS**: the bulk's m₁ and m₂, fitted to ℓ → ∞, agree with the prediction (within
  ``judging.DECAY_Z`` standard errors, the smallest deviation that would have been caught
  stated as
  ``detectable``), and the distance to the Gaussian model shrinks: its fitted log–log slope
  over the sizes lies ``judging.DECAY_Z`` standard errors below −1/4 (``decay_z``);
- **GE BREAKS**: a value misses, or the distance stops shrinking (its slope
  ``judging.DECAY_Z`` standard
  errors above −1/4), with the plateau;
- **INCONCLUSIVE**: neither, with what would decide.

A variant without a prediction is judged by the distance alone; a variant that the theorem
does not cover is never called verified: its verdict names its status and its sizes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import sympy as sp

from attnge import judging, parallel
from attnge import regimes as rg
from attnge.judging import (
    BREAKS,
    DECAY_Z,
    HOLDS,
    INCONCLUSIVE,
    PLATEAU_SLOPE,
    Rival,
    decay_z,
)
from attnge.numerics import spectra, stats
from attnge.numerics.measure import require_memory
from attnge.numerics.sampling import draw_rng
from attnge.numerics.variants import sample_variant
from attnge.output.files import locked, write_atomic
from attnge.run_config import VARIANTS, configure
from attnge.step import Table, fmt, pm
from attnge.theory import inputs
from attnge.theory.symbols import x
from attnge.theory.variants import (
    Prediction,
    Variant,
    kernel_thetas,
    normalizer_prediction,
    predict,
)
from attnge.threshold import audit

POWERS = (1.0,)
"""The finite-size term of the fits to ℓ → ∞: m∞ + b/ℓ."""
CAUSAL_LOG_POWERS = (1.0,)
"""Under the causal mask row i holds i entries, and the moments' finite-size terms are
sums over rows of 1/i: the harmonic number H_ℓ = log ℓ + γ + O(1/ℓ) over ℓ (the exact
sums of ``theory.profiles``). Its fits are m∞ + b/ℓ + c log(ℓ)/ℓ: without the log term a
fit is biased low (the exact mean of m₁ at β = ½, ℓ = 400, 800, 1600 extrapolates 0.26%
below θ₁; with it, 6e-6), a bias that 32 draws made a false GE BREAKS (docs/math.md §13)."""
MATRICES = 6
"""ℓ×ℓ float64 arrays alive at the peak of one draw (scores, kernel, centred, model, two
Gram matrices)."""
RESULTS = ("a_m1", "a_m2", "a_b1", "a_b2", "g_m1", "g_m2", "g_b1", "g_b2", "w1",
           "kolmogorov", "d_mean", "d_var")
"""One draw's record: the attention's (a_) and the model's (g_) m₁, m₂ in full (m) and in
bulk (b), the relative W₁ and the Kolmogorov distance of the bulks, and the mean and the
sample variance over rows of D_ii."""


@dataclass(frozen=True)
class Schema:
    """The record schema of the variants' store (``threshold.audit.load`` reads it)."""

    name: str = "variants"
    schema: str = "v1"
    result_keys: tuple[str, ...] = RESULTS

    def bounds(self, name: str) -> tuple[float, float]:
        return (0.0, 1.0) if name == "kolmogorov" else (0.0, math.inf)


SCHEMA = Schema()


@dataclass(frozen=True)
class Run:
    """One variant at (β, y): ``sizes`` (≥ 3, increasing), ``draws`` (≥ 2) and ``seed``."""

    variant: Variant
    beta: float = 1.0
    y: float = 1.0
    sizes: tuple[int, ...] = (400, 800, 1600)
    # a draw does not read how many there are: left out of the repr, which names a draw in
    # ``draw_store``, so that ``verify --decide`` keeps a variant step's draws across looks
    draws: int = field(default=8, repr=False)
    seed: int = 0
    thetas: tuple[float, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        configure(self, VARIANTS)           # beta, y, sizes, draws, seed: run_config
        sizes = self.sizes
        repeats = self.variant.value if self.variant.inputs == "repeated" else None
        if repeats is not None and sizes[0] < 4 * repeats:
            raise ValueError(f"sizes must be at least 4 repeats = {4 * int(repeats)} with "
                             f"--inputs repeated (got {sizes[0]})")
        object.__setattr__(self, "thetas", kernel_thetas(self.variant, self.beta)[:2])
        self.validate_memory()

    def validate_memory(self) -> None:
        require_memory(max(self.sizes), MATRICES, copies=parallel.concurrent_draws())

    @property
    def name(self) -> str:
        return f"{self.variant.label} | beta={self.beta:g}, y={self.y:g}"

    def key(self, ell: int, draw: int) -> str:
        v = self.variant
        kernel = v.resolved.name + ("" if v.normaliser == "row" else "/ell")
        return (f"{SCHEMA.schema}|{SCHEMA.name}|{kernel}|{v.weights}|{v.inputs}|"
                f"{v.value!r}|{v.mask}|{self.beta!r}|{self.y!r}|{ell}|{draw}|seed={self.seed}")

    def tasks(self) -> list[tuple]:
        return [(self, ell, k) for ell in self.sizes for k in range(self.draws)]


def measure(run: Run, ell: int, draw: int) -> dict[str, float]:
    """One draw's record (``RESULTS``), from its own stream (seed, variant, ℓ, draw)."""
    rng = draw_rng(run.seed, run.key(0, 0), ell, draw)
    d_qk = inputs.d_qk(ell, run.y)
    sample = sample_variant(run.variant, ell, d_qk, run.beta, run.thetas, rng)
    a = spectra.squared_singular_values(sample.centred)
    g = spectra.squared_singular_values(sample.model)
    a_bulk, g_bulk = spectra.bulk(a, 1), spectra.bulk(g, 1)
    w1 = float(np.mean(np.abs(np.sort(a_bulk) - np.sort(g_bulk))) / np.mean(g_bulk))
    out = {"a_m1": float(np.mean(a)), "a_m2": float(np.mean(a**2)),
           "a_b1": float(np.mean(a_bulk)), "a_b2": float(np.mean(a_bulk**2)),
           "g_m1": float(np.mean(g)), "g_m2": float(np.mean(g**2)),
           "g_b1": float(np.mean(g_bulk)), "g_b2": float(np.mean(g_bulk**2)),
           "w1": w1, "kolmogorov": spectra.kolmogorov_distance(a_bulk, g_bulk),
           "d_mean": float(np.mean(sample.normalizer)),
           "d_var": float(np.var(sample.normalizer, ddof=1))}
    return out


def check(variant: Variant, beta: float = 1.0, y: float = 1.0,
          sizes: tuple[int, ...] = Run.sizes, draws: int = Run.draws, seed: int = 0
          ) -> Judgement:
    """Sample ``variant`` at ``sizes`` and judge Gaussian equivalence (the library's
    ``attnge variants``; the draws run in this process, or on the Dask cluster in use).

    Examples
    --------
    >>> from attnge.theory.variants import Variant
    >>> j = check(Variant(mask="causal"), beta=0.5, sizes=(50, 100, 200), draws=3)
    >>> j.prediction.status, j.verdict in (HOLDS, BREAKS, INCONCLUSIVE)
    ('derived', True)
    """
    run = Run(variant, beta, y, tuple(sizes), draws, seed)
    return judge(run, collect([run], None))


def store_path(folder: str | Path) -> Path:
    return Path(folder) / "variants.jsonl"


def collect(runs: list[Run], folder: str | Path | None,
            progress: Callable[[int, int], None] | None = None,
            warn: Callable[[str], None] | None = None,
            known: dict[str, dict[str, float]] | None = None) -> dict[str, dict[str, float]]:
    """Measure every missing draw of ``runs`` (appending each to the store in ``folder``)
    and return all of them, by key; ``known``: draws already measured (without a store)."""
    path = None if folder is None else store_path(folder)
    done: dict[str, dict[str, float]] = dict(known or {})
    if path is not None:
        with locked(path):
            store = audit.load(path, SCHEMA)
            if store.damaged or store.repeats:
                audit.set_aside(path, store)
        if warn is not None:
            for number, why, _ in store.damaged:
                warn(f"{path}: line {number}: {why}; moved to {audit.rejected_path(path)}")
        done.update(store.done)
    todo = [task for run in runs for task in run.tasks() if run.key(*task[1:]) not in done]
    if progress is not None:
        progress(0, len(todo))
    for n, (i, result) in enumerate(parallel.measured(measure, todo), start=1):
        run, ell, k = todo[i]
        key = run.key(ell, k)
        done[key] = result if path is None else audit.keep(path, SCHEMA, key, result, warn)
        if progress is not None:
            progress(n, len(todo))
    return done


# --------------------------------------------------------------------------- judging

def _per_size(run: Run, done: dict, name: str) -> list[dict]:
    """Per ℓ: mean, se (of the mean over draws) and dof of one recorded quantity."""
    out = []
    for ell in run.sizes:
        values = np.array([done[run.key(ell, k)][name] for k in range(run.draws)])
        mean, var, dof = stats.mean_variance(values)
        out.append({"ell": ell, "mean": mean, "se": math.sqrt(var), "dof": dof})
    return out


def _limit(rows: list[dict], run: Run) -> dict:
    """The ℓ → ∞ value of a per-size series (``numerics.stats.extrapolate``, ``POWERS``, and
    ``CAUSAL_LOG_POWERS`` under the causal mask: the finite-size form of its moments)."""
    sizes = [r["ell"] for r in rows]
    floor = 1e-300
    logs = CAUSAL_LOG_POWERS if run.variant.mask == "causal" else ()
    if len(sizes) < len(POWERS) + len(logs) + 1:
        return {"mean": math.nan, "se": math.inf, "dof": math.inf,
                "form": f"needs {len(POWERS) + len(logs) + 1} sizes for its form"}
    fit = stats.extrapolate(sizes, [r["mean"] for r in rows],
                            [max(r["se"], floor) ** 2 for r in rows], [r["dof"] for r in rows],
                            POWERS, logs)
    form = " + ".join(["m_inf", *[f"b ell^-{p:g}" for p in POWERS],
                       *[f"c ell^-{q:g} log ell" for q in logs]])
    return {"mean": fit.value, "se": fit.se, "dof": fit.dof, "form": form}


def _rate(rows: list[dict], z_miss: float = DECAY_Z) -> dict:
    """The log–log slope of a distance against ℓ: weighted by the sizes' errors, or by
    ordinary least squares where a size has none (its draws all equal)."""
    weighted = all(r["se"] > 0 for r in rows)
    rate = stats.fit_rate([r["ell"] for r in rows], [r["mean"] for r in rows],
                          [r["se"] for r in rows] if weighted else None,
                          [r["dof"] for r in rows] if weighted else None)
    return {"slope": rate.slope, "se": rate.se, "dof": rate.dof,
            "width": rate.width(z_miss)}


def value_regime(run: Run) -> rg.Regime:
    """The sizes whose bulk moments a fit to ℓ → ∞ may read (``derivations.regimes``): d_qk
    wide enough for the fit's b/ℓ form (every kernel), and for an exponential kernel the
    softmax rules too (the exact mass and the tails of the scores), which its approach
    shares."""
    width = rg.width(run.beta, run.y, run.sizes)
    if run.variant.resolved.g != sp.exp(x):
        return width
    return rg.both(rg.mass(run.beta, run.y, run.sizes), rg.tails(run.beta, run.y, run.sizes),
                   width)


def _value_check(limit: dict, predicted: float, z_miss: float = DECAY_Z) -> dict:
    """z of the fitted limit against the prediction, and the smallest relative deviation the
    check would catch (``z_miss`` standard errors, at the fit's dof)."""
    z = stats.normal_equivalent((limit["mean"] - predicted) / limit["se"], limit["dof"]) \
        if limit["se"] > 0 else math.inf
    width = stats.t_critical(z_miss, limit["dof"]) * limit["se"]
    return {"predicted": predicted, "measured": limit["mean"], "se": limit["se"], "z": z,
            "agrees": bool(abs(z) <= z_miss),
            "detectable": width / abs(predicted) if predicted else math.inf}


@dataclass
class Judgement:
    """A run's measurements, checks and verdict (the JSON of ``attnge variants``)."""

    run: Run
    prediction: Prediction | None
    measured: dict
    distance: dict
    normalizer: dict | None
    values: dict
    verdict: str
    reason: str
    surrogate: dict | None = None     # the bulk's m₂ against the i.i.d. surrogate's
    decide: dict | None = None        # --decide: budget, per-look z, the looks, time spent

    @property
    def failed(self) -> bool:
        """A prediction of the theory (theorem or derived) that the samples reject."""
        return self.verdict == BREAKS and self.prediction is not None and \
            self.prediction.status != "conjecture"

    def as_json(self) -> dict:
        v, p = self.run.variant, self.prediction
        return {
            "variant": {"label": v.label, "kernel": v.resolved.name, "weights": v.weights,
                        "inputs": v.inputs, "parameter": v.value, "mask": v.mask},
            "beta": self.run.beta, "y": self.run.y, "sizes": list(self.run.sizes),
            "draws": self.run.draws, "seed": self.run.seed,
            "predicted": None if p is None else {
                "theta1": p.theta1, "theta2": p.theta2, "m1": p.m1, "m2": p.m2,
                "surrogate_m2": p.surrogate_m2, "route": p.route, "status": p.status,
                "why": p.why},
            "measured": self.measured, "distance": self.distance,
            "normalizer": self.normalizer, "checks": self.values,
            "surrogate_m2": self.surrogate,
            "verdict": self.verdict, "reason": self.reason, "decide": self.decide}


def judge(run: Run, done: dict, z_miss: float = DECAY_Z) -> Judgement:
    """The verdict of one run from its stored draws against the theory's prediction
    (``theory.variants.predict``; module docstring); ``z_miss``: the z of every check
    (``judging.DECAY_Z``, or the per-look ``judging.sequential_z`` of ``decide``)."""
    prediction = predict(run.variant, run.beta, run.y)
    series = {name: _per_size(run, done, name) for name in RESULTS}
    measured = {}
    for who, prefix in (("attention", "a"), ("model", "g")):
        for part, letter in (("full", "m"), ("bulk", "b")):
            for q in (1, 2):
                rows = series[f"{prefix}_{letter}{q}"]
                measured.setdefault(who, {}).setdefault(part, {})[f"m{q}"] = {
                    "per_size": [{k: r[k] for k in ("ell", "mean", "se")} for r in rows],
                    "limit": _limit(rows, run)}
    distance = {name: {"per_size": [{k: r[k] for k in ("ell", "mean", "se")}
                                    for r in series[name]],
                       "rate": _rate(series[name], z_miss)}
                for name in ("w1", "kolmogorov")}
    values = {}
    regime = value_regime(run)
    first = regime.first()
    if prediction is not None:
        for q, value in ((1, prediction.m1), (2, prediction.m2)):
            if first is None:
                values[f"m{q}"] = {"predicted": value, "undecided": regime.why + "; " +
                                   regime.need_text}
                continue
            limit = _limit(series[f"a_b{q}"][first:], run)
            if not math.isfinite(limit["se"]):      # too few sizes in the regime for its form
                values[f"m{q}"] = {"predicted": value, "undecided": limit["form"]}
                continue
            values[f"m{q}"] = _value_check(limit, value, z_miss) | {
                "sizes": list(run.sizes[first:]), "form": limit["form"]}
    surrogate = None
    if prediction is not None and first is not None:
        limit = _limit(series["a_b2"][first:], run)
        if math.isfinite(limit["se"]):
            surrogate = _value_check(limit, prediction.surrogate_m2, z_miss)
            surrogate["rejected"] = not surrogate.pop("agrees")
    normalizer = _normalizer(run, series, z_miss)
    verdict, reason = _verdict(run, prediction, values, distance, normalizer, z_miss)
    return Judgement(run, prediction, measured, distance, normalizer, values, verdict, reason,
                     surrogate)


DRAW_SECONDS = 2 * rg.LAW_DRAW_SECONDS
"""One variant draw at ℓ = d_qk = 2000 on one core, at least: the spectra of the variant
and of its Gaussian model, each a law draw's (``regimes.LAW_DRAW_SECONDS``); it grows as
ℓ³. ``decide`` prices the looks it has not measured by it."""


def look_seconds(run: Run, have: int = 0, done: dict | None = None) -> float:
    """This machine's seconds, at least, for the draws ``have`` … ``run.draws`` of ``run`` at
    each of its sizes that ``done`` (draws by key) does not hold (``DRAW_SECONDS`` (ℓ/2000)³
    each, on ``parallel.cores()``)."""
    return sum(DRAW_SECONDS * (ell / 2000) ** 3 for ell in run.sizes
               for k in range(have, run.draws)
               if done is None or run.key(ell, k) not in done) / parallel.cores()


def larger_sizes(run: Run) -> tuple[int, ...]:
    """(ℓ, 2ℓ, 4ℓ) from the smallest ℓ from which three sizes lie in the values' regime
    (``value_regime``), where fewer than three of ``run.sizes`` do and one is known; ()
    otherwise."""
    regime = value_regime(run)
    return () if regime.first() is not None else rg.sizes_from(regime.need, max(run.sizes))


def decide(run: Run, folder: str | Path | None, budget: float,
           progress: Callable[[int, int], None] | None = None,
           warn: Callable[[str], None] | None = None) -> Judgement:
    """``attnge variants --decide``: judge ``run`` at the per-look z of ``judging.LOOKS_MAX``
    looks (``judging.sequential_z``) and, while it is INCONCLUSIVE for want of draws (its
    values inside their regime), double its draws, the draws already measured or stored kept,
    as long as the next look, estimated from the last one's time (and at least its draws'
    price, ``look_seconds``), fits in what ``budget`` (seconds) leaves (docs/math.md §14).

    Where its values are outside their regime at its sizes, the looks go on at the sizes that
    put three inside (``larger_sizes``), from its draws (or half, a quarter, … down to two,
    the most whose look fits in what the budget leaves) and doubling them the same way,
    within the ``judging.LOOKS_MAX`` looks; where that look does not fit, the reason says
    what it would take. A rerun with the same store resumes."""
    done, last = {}, []
    current = run

    def look(draws: int, z_miss: float) -> tuple[str, bool]:
        nonlocal done
        grown = replace(current, draws=draws)
        done = collect([grown], folder, progress, warn, done)
        last[:] = [judge(grown, done, z_miss)]
        undecided = any("undecided" in v for v in last[0].values.values())
        return last[0].verdict, not undecided

    def price(have: int, total: int) -> float:
        return look_seconds(replace(current, draws=total), have, done)

    record, stopped = judging.decide(look, run.draws, budget, price=price)
    larger = larger_sizes(run) if last[0].verdict == INCONCLUSIVE else ()
    if larger:
        left = budget - record["spent_s"]
        try:
            at = replace(run, sizes=larger)         # refused where its draws do not fit
        except ValueError as exc:
            stopped = f"larger sizes, ell = {', '.join(map(str, larger))}, refused: {exc}"
        else:
            draws, estimate = judging.draws_that_fit(       # ``done``: the store's draws
                run.draws, lambda n: look_seconds(replace(at, draws=n), 0, done), left,
                VARIANTS.fewest_draws)
            taken = len(record["looks"])
            if estimate > left or taken >= judging.LOOKS_MAX:
                stopped = (f"a look at ell = {', '.join(map(str, larger))}, where the values "
                           f"are in their regime, with {draws} draws per size would take "
                           f"about {judging.time_text(estimate)} here, "
                           + (f"{judging.LOOKS_MAX} looks taken" if estimate <= left else
                              judging.left_text(left)))
            else:
                current, began = at, record["spent_s"]
                more, stopped = judging.decide(look, draws, left, judging.LOOKS_MAX - taken,
                                               price)
                for entry in more["looks"]:
                    entry["sizes"] = list(larger)
                record["looks"] += more["looks"]
                record["spent_s"] = began + more["spent_s"]
    judgement = last[0]
    if stopped:
        judgement.reason += "; " + stopped
    judgement.decide = record
    return judgement


def _normalizer(run: Run, series: dict, z_miss: float = DECAY_Z) -> dict | None:
    """Per size, the mean and the sample variance over rows of D_ii against their exact
    means (``theory.variants.normalizer_prediction``): E D_ii and Var D_ii − Cov. A
    statistic of degree p in X_ij = e^{βS_ij − β²/2} is judged where its standard error is
    consistent, as in the ``normalizer`` step: d_qk above ``regimes.tail_bound(p, β)`` and
    the scores reaching the tail that carries E X² (``regimes.tails``; the Gaussian's rules,
    conservative for these lighter-tailed laws); elsewhere INCONCLUSIVE."""
    rows = []
    for mean_row, var_row in zip(series["d_mean"], series["d_var"]):
        ell = mean_row["ell"]
        d_qk = inputs.d_qk(ell, run.y)
        exact = normalizer_prediction(run.variant, run.beta, ell, d_qk)
        if exact is None:
            return None
        target = {"mean": float(exact["E D_ii"]),
                  "sample variance": float(exact["Var D_ii"] - exact["Cov"])}
        for degree, (name, row) in enumerate((("mean", mean_row),
                                              ("sample variance", var_row)), start=1):
            z = stats.normal_equivalent((row["mean"] - target[name]) / row["se"], row["dof"]) \
                if row["se"] > 0 else math.inf
            judged = d_qk > rg.tail_bound(degree, run.beta) and \
                rg.tails(run.beta, run.y, [ell]).inside[0]
            rows.append({"ell": ell, "quantity": name, "exact": target[name],
                         "mean": row["mean"], "se": row["se"], "z": z,
                         "agrees": bool(abs(z) <= z_miss) if judged else INCONCLUSIVE})
    return {"route": exact["route"], "rows": rows,
            "agrees": all(r["agrees"] is not False for r in rows)}


def rivals(run: Run, prediction: Prediction | None) -> list[tuple[str, float]]:
    """The bulk m₂ that a wrong theory gives for this variant: the i.i.d. surrogate's, where it
    differs from the prediction (θ₂ ≠ 0), and for inputs that are not orthonormal the
    orthonormal inputs' prediction (the theorem's, taken for theirs)."""
    if prediction is None:
        return []
    out = [] if prediction.m2 == prediction.surrogate_m2 else \
        [("the i.i.d. surrogate's m2", prediction.surrogate_m2)]
    if run.variant.inputs != "orthonormal":
        orthonormal = predict(replace(run.variant, inputs="orthonormal", value=None),
                              run.beta, run.y)
        if orthonormal is not None and orthonormal.m2 != prediction.m2:
            out.append(("the orthonormal inputs' m2", orthonormal.m2))
    return out


def _unrejected_rival(m2: dict, named: list[tuple[str, float]]) -> str:
    """Why values that agree cannot hold GE: the fitted bulk m₂ (``m2``, its check against
    the prediction) does not reject a rival, or lacks the power to (``judging.Rival.power``:
    its detectable error t·se above ``RIVAL_SHARE`` of the distance between prediction and
    rival). '' where every rival is ruled out."""
    width = m2["detectable"] * abs(m2["predicted"])    # t_Z(dof) se of the fitted m₂
    for name, value in named:
        power, lacks = Rival(value, name).power(width, m2["predicted"])
        if power and abs(m2["measured"] - value) > width:
            continue
        z = (m2["measured"] - value) / m2["se"] if m2["se"] > 0 else math.inf
        return (f"{name} = {value:.6g} is not ruled out (z = {z:.1f}; the check "
                f"{lacks or f'detects ±{width:.3g} and does not reject it'})")
    return ""


def _verdict(run: Run, prediction: Prediction | None, values: dict, distance: dict,
             normalizer: dict | None, z_miss: float = DECAY_Z) -> tuple[str, str]:
    where = f"at ell = {', '.join(map(str, run.sizes))} ({run.draws} draws each)"
    rate = distance["w1"]["rate"]
    slope = rate["slope"]
    rows = distance["w1"]["per_size"]
    first, last = rows[0], rows[-1]
    z = decay_z(rate)
    shrinks, plateau = z > z_miss, z < -z_miss
    missed = [f"{name} = {v['measured']:.6g} ± {v['se']:.2g} against {v['predicted']:.6g} "
              f"(z = {v['z']:.1f})" for name, v in values.items()
              if "undecided" not in v and not v["agrees"]]
    undecided = [v["undecided"] for v in values.values() if "undecided" in v]
    if normalizer is not None and not normalizer["agrees"]:
        worst = max((r for r in normalizer["rows"] if r["agrees"] is False),
                    key=lambda r: abs(r["z"]))
        missed.append(f"the normalizer's {worst['quantity']} at ell = {worst['ell']}: "
                      f"{worst['mean']:.6g} against {worst['exact']:.6g} (z = {worst['z']:.1f})")
    status = "no prediction" if prediction is None else prediction.status
    covered = f"verified {where}" if status == "theorem" else \
        f"measured {where} ({status}, not the theorem)"
    if missed:
        return BREAKS, f"a value misses {where}: " + "; ".join(missed)
    if undecided:
        state = (f"; at these sizes the distance to the Gaussian model is not shrinking (W1 "
                 f"{last['mean']:.3g} ± {last['se']:.2g} at ell = {last['ell']}, slope "
                 f"{slope:.2f} ± {rate['se']:.2f})" if plateau else "")
        return INCONCLUSIVE, (f"{where} the values cannot be decided: {undecided[0]}"
                              + state)
    if plateau:
        return BREAKS, (f"the distance to the Gaussian model stops shrinking {where}: "
                        f"W1 slope {slope:.2f} ± {rate['se']:.2f}, plateau "
                        f"{last['mean']:.3g} ± {last['se']:.2g} at ell = {last['ell']} "
                        f"(z = {z:.1f} against ell^-{PLATEAU_SLOPE:g})")
    detect = ", ".join(f"{name} to {v['detectable']:.1%}" for name, v in values.items())
    m2 = values.get("m2", {})
    rival = "" if "measured" not in m2 else _unrejected_rival(m2, rivals(run, prediction))
    if shrinks and rival:
        return INCONCLUSIVE, (f"{where} the values agree ({detect}) and W1 shrinks "
                              f"(slope {slope:.2f} ± {rate['se']:.2f}), but {rival}")
    if shrinks:
        return HOLDS, (f"{covered}: W1 from {first['mean']:.3g} to "
                       f"{last['mean']:.3g}, slope {slope:.2f} ± {rate['se']:.2f}"
                       + (f"; values agree ({detect})" if values else
                          "; no value is predicted for this variant"))
    larger = max(run.sizes) * 4
    return INCONCLUSIVE, (f"{where}: W1 from {first['mean']:.3g} to {last['mean']:.3g} "
                          f"(slope {slope:.2f} ± {rate['se']:.2f}) tells neither shrinking "
                          f"nor a plateau (z = {z:.1f} against ell^-{PLATEAU_SLOPE:g}); "
                          f"sizes up to ell = {larger} or {4 * run.draws} draws would "
                          "narrow it")


def text(judgement: Judgement, verbose: bool = False) -> str:
    """The terminal's account: the verdict and its reason; with ``verbose`` the prediction,
    and per size the bulk's moments and the distances."""
    j, p = judgement, judgement.prediction
    lines = [f"{j.verdict}  {j.run.name}", f"  {j.reason}"]
    if j.decide is not None:
        looks = j.decide["looks"]
        lines.append(f"  --decide: {len(looks)} look(s), draws per size "
                     f"{', '.join(str(k['draws']) for k in looks)}, each judged at z = "
                     f"{j.decide['z_per_look']:.3g}; {j.decide['spent_s']:.0f} s of a budget "
                     f"of {j.decide['budget_s']:.0f} s")
    if p is None:
        lines.append("  predicted: nothing (no derivation covers this variant)")
    else:
        lines.append(f"  predicted ({p.status}): theta1 = {p.theta1:.6g}, theta2 = "
                     f"{p.theta2:.6g}, m1 = {p.m1:.6g}, m2 = {p.m2:.6g} (i.i.d. surrogate "
                     f"m2 = {p.surrogate_m2:.6g}); {p.route}")
    if j.surrogate is not None:
        said = "rejected" if j.surrogate["rejected"] else "not rejected"
        lines.append(f"  the i.i.d. surrogate's m2 is {said} (z = {j.surrogate['z']:.1f})")
    if verbose:
        bulk = j.measured["attention"]["bulk"]
        lines.append("  ell    bulk m1             bulk m2             W1          "
                     "Kolmogorov")
        for k, ell in enumerate(j.run.sizes):
            cells = [bulk["m1"]["per_size"][k], bulk["m2"]["per_size"][k],
                     j.distance["w1"]["per_size"][k], j.distance["kolmogorov"]["per_size"][k]]
            lines.append(f"  {ell:<6} " + " ".join(f"{c['mean']:.5g} ± {c['se']:.2g}".ljust(19)
                                                   for c in cells).rstrip())
        for name in ("m1", "m2"):
            limit = bulk[name]["limit"]
            lines.append(f"  bulk {name} at ell -> inf: {limit['mean']:.6g} ± {limit['se']:.2g}")
        if j.normalizer is not None:
            for r in j.normalizer["rows"]:
                lines.append(f"  normalizer {r['quantity']} at ell = {r['ell']}: {r['mean']:.6g}"
                             f" ± {r['se']:.2g} (exact {r['exact']:.6g}, z = {r['z']:.1f})")
    return "\n".join(lines) + "\n"


def ledger_step(title: str, chosen: tuple[Variant, ...]
                ) -> tuple[Callable[[object], list[Table]], Callable[[object], None]]:
    """(check, validate) of a variant step of the ledger: :func:`step_tables` of ``chosen``
    at the run's parameters, and the same runs built without sampling (bad parameters
    refused up front)."""
    def check(params) -> list[Table]:
        return step_tables(title, list(chosen), params)

    def validate(params) -> None:
        for v in chosen:
            Run(v, params.beta, params.y, params.sizes, params.draws, params.seed)

    return check, validate


def step_tables(title: str, chosen: list[Variant], params) -> list[Table]:
    """A ledger step's tables: each variant at the run's β, y, sizes, draws and seed, judged
    by :func:`judge` against the theory's prediction; PASS where
    Gaussian equivalence holds with the predicted values, FAIL where the samples reject the
    prediction, INCONCLUSIVE otherwise (the row says what would decide)."""
    runs = [Run(v, params.beta, params.y, params.sizes, params.draws, params.seed)
            for v in chosen]
    done = collect(runs, None)
    table = Table(title, ["variant", "status", "predicted m1", "bulk m1 (ell -> inf)",
                          "predicted m2", "bulk m2 (ell -> inf)", "W1 at the largest ell",
                          "why"],
                  note=f"bulk: all but the largest squared singular value; a value agrees "
                       f"within {judging.at(DECAY_Z):.3g} standard errors; W1: the relative "
                       "Wasserstein-1 distance to the Gaussian model on the same scores")
    normalizer = Table(f"{title}: the normalizer's exact means", ["variant", "ell", "quantity",
                                                                   "exact", "sampled", "z"])
    for run in runs:
        j = judge(run, done, judging.at(DECAY_Z))       # per look under ``verify --decide``
        bulk = j.measured["attention"]["bulk"]
        limit = lambda q: pm(bulk[f"m{q}"]["limit"]["mean"], bulk[f"m{q}"]["limit"]["se"])  # noqa: E731
        p = j.prediction
        verdict = True if j.verdict == HOLDS else False if j.failed else INCONCLUSIVE
        beyond = any("undecided" in v for v in j.values.values())    # outside their regime
        regime = value_regime(run)
        table.add([run.variant.label, "none" if p is None else p.status,
                   None if p is None else fmt(p.m1), limit(1), None if p is None else fmt(p.m2),
                   limit(2), pm(j.distance["w1"]["per_size"][-1]["mean"],
                                j.distance["w1"]["per_size"][-1]["se"]),
                   j.reason], verdict, judging.NO_DRAWS if beyond else None,
                  regime.decides_from if beyond and regime.first() is None else None)
        for r in (j.normalizer or {}).get("rows", []):
            normalizer.add([run.variant.label, r["ell"], r["quantity"], fmt(r["exact"]),
                            pm(r["mean"], r["se"]), f"{r['z']:.2f}"], r["agrees"])
    return [table] + ([normalizer] if normalizer.rows else [])


def _finite(value):
    """JSON has no infinities: a non-finite number (a z of a zero error) becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def write_json(judgements: list[Judgement], path: str | Path, provenance: dict) -> None:
    """Every judgement's numbers (``Judgement.as_json``) and the provenance, atomically."""
    write_atomic(path, json.dumps(_finite({"variants": [j.as_json() for j in judgements],
                                           "provenance": provenance}), indent=2,
                                  ensure_ascii=False, allow_nan=False) + "\n")
