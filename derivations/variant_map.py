"""The map of Gaussian equivalence across attention variants (``attnge variants --map``).

The grid changes one thing at a time from the theorem's attention (softmax, Gaussian weights,
orthonormal inputs, no mask): every kernel, every weight law (with Q, K sampled directly,
and the uniform law through Haar inputs), every input model and the causal mask, each at
β ∈ ``BETAS`` and y ∈ ``YS``; then the theorem's attention at each ``attnge mha`` preset's β
at initialisation. Its report is a README table, ``variants.json`` and one figure
per variant, with the command that made them; the draws are kept in ``variants.jsonl`` so a
rerun resumes.
"""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import numpy as np
import sympy as sp

from attnge import judging, mha
from attnge import variants as va
from attnge.judging import DECAY_Z, RIVAL_SHARE
from attnge.numerics.initialisation import sampled_beta
from attnge.output import figures
from attnge.output.files import write_atomic
from attnge.provenance import provenance
from attnge.theory.initialisation import sides
from attnge.theory.variants import Variant

BETAS = (0.5, 1.0)
YS = (0.5, 1.0, 2.0)
SIZES = (400, 800, 1600)
DRAWS = 8
VARIANTS = (
    Variant(),
    Variant("relu"), Variant("sigmoid"), Variant("sigmoid", bias=-2.0), Variant("square"),
    Variant("softmax1"), Variant("qk-norm"), Variant("sigmoid-log"),
    Variant(weights="uniform"), Variant(weights="rademacher"),
    Variant(weights="truncated-normal"), Variant(weights="uniform", value=0.5),
    Variant(inputs="gaussian", value=0.5), Variant(inputs="shared-mean", value=0.3),
    Variant(inputs="repeated", value=2),
    Variant(mask="causal"),
)
"""One change at a time from the theorem's attention (its value: ``Variant``)."""


def preset_points() -> list[tuple[str, float, float]]:
    """(preset, β at initialisation to 6 digits, y = n/d_K) of every ``attnge mha`` preset
    with an init scheme."""
    return [(name, float(mha.initial_beta(name, "init")), p.n / p.d_head)
            for name, p in mha.PRESETS.items() if p.init is not None]


def grid(sizes: tuple[int, ...] | None = None, draws: object = None, seed: object = 0
         ) -> list[va.Run]:
    """The runs of the map: ``VARIANTS`` × ``BETAS`` × ``YS``, then the theorem's attention at
    each preset's β at initialisation and y = n/d_K (``preset_points``; points shared by
    presets run once)."""
    draws = DRAWS if draws is None else draws
    runs = [va.Run(v, b, y, sizes or SIZES, draws, seed)
            for v in VARIANTS for b in BETAS for y in YS]
    points = sorted({(b, y) for _, b, y in preset_points()})
    return runs + [va.Run(Variant(), b, y, sizes or SIZES, draws, seed) for b, y in points]


def judged_z(budget: float | None) -> float:
    """The z the map's values are judged at: ``judging.DECAY_Z``, or with a ``--decide``
    budget its per-look ``judging.sequential_z``."""
    return DECAY_Z if budget is None else judging.sequential_z(DECAY_Z)


def judge(runs: list[va.Run], done: dict, folder: Path, budget: float | None = None,
          progress=None, warn=None) -> list[va.Judgement]:
    """Every run's verdict from the draws in ``done``; with ``budget`` (seconds,
    ``attnge variants --map --decide``) every run is judged at the per-look z of
    ``judging.LOOKS_MAX`` looks, and those INCONCLUSIVE for want of draws are grown in grid
    order (``variants.decide``, each on the store in ``folder``) while the budget lasts: each
    run's looks, its first included, are then at most ``LOOKS_MAX`` at that z, as for one
    variant (docs/math.md §14)."""
    out = [va.judge(run, done, judged_z(budget)) for run in runs]
    if budget is None:
        return out
    start = time.perf_counter()
    for i, (run, judged) in enumerate(zip(runs, out)):
        left = budget - (time.perf_counter() - start)
        if judged.verdict == judging.INCONCLUSIVE and left > 0:
            out[i] = va.decide(run, folder, left, progress, warn)
    return out


def initialisation_table(draws: int = 8, seed: int = 0) -> str:
    """Each preset's β at initialisation: the closed form, the scores sampled from its init
    scheme (``numerics.initialisation``, 64 tokens), c = β/√log n and the temperature
    thresholds of ``attnge threshold`` it starts above."""
    lines = ["| preset | n | d | d_K | init | β (closed form) | β (sampled) | c = β/√log n "
             "| starts above |", "|" + "---|" * 9]
    rng = np.random.default_rng(seed)
    for name, p in mha.PRESETS.items():
        if p.init is None:
            continue
        exact = mha.beta_at_init(name)
        found, se = sampled_beta(p.init, p.d, p.d_head, 64, draws, rng)
        c = float(exact) / math.sqrt(math.log(p.n))
        above = [f"{q} (c* = {float(star):.3f})" for q, star, side in sides(exact, p.n)
                 if side == "above"]
        lines.append(f"| {name} | {p.n} | {p.d} | {p.d_head} | {p.init.source} | "
                     f"{sp.sstr(exact)} = {float(exact):.4g} | {found:.4g} ± {se:.2g} | "
                     f"{c:.3f} | {', '.join(above) or 'none'} |")
    return "\n".join(lines)


def slug(variant: Variant) -> str:
    """A file name for a variant's figure."""
    return re.sub(r"[^a-z0-9]+", "-", variant.label.lower()).strip("-")


def file_names(runs: list[va.Run]) -> list[str]:
    names = ["README.md", "variants.json", va.store_path(".").name]
    return names + sorted({f"{slug(r.variant)}.png" for r in runs})


def require_figures() -> None:
    figures.require("report")


def _limit(j: va.Judgement, q: int) -> str:
    limit = j.measured["attention"]["bulk"][f"m{q}"]["limit"]
    return f"{limit['mean']:.4g} ± {limit['se']:.2g}"


def table(judgements: list[va.Judgement]) -> str:
    """The README's table, one row per (variant, β, y)."""
    head = ("| variant | β | y | status | predicted m₁, m₂ | bulk m₁ (ℓ→∞) | bulk m₂ (ℓ→∞) "
            "| W₁ at largest ℓ | W₁ slope | verdict |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for j in judgements:
        p = j.prediction
        w1 = j.distance["w1"]
        last = w1["per_size"][-1]
        lines.append(
            f"| {j.run.variant.label} | {j.run.beta:g} | {j.run.y:g} | "
            f"{'none' if p is None else p.status} | "
            f"{'—' if p is None else f'{p.m1:.4g}, {p.m2:.4g}'} | {_limit(j, 1)} | "
            f"{_limit(j, 2)} | {last['mean']:.3g} | {w1['rate']['slope']:.2f} ± "
            f"{w1['rate']['se']:.2f} | {j.verdict}{_sizes_note(j, judgements[0])} |")
    return "\n".join(lines)


def _sizes_note(j: va.Judgement, first: va.Judgement) -> str:
    """' at ℓ = …' for a run judged at other sizes than the map's (``--decide``'s look at the
    sizes its values' regime needs)."""
    return "" if j.run.sizes == first.run.sizes else \
        f" (ℓ = {', '.join(map(str, j.run.sizes))})"


def undecided(judgements: list[va.Judgement]) -> str:
    """Each INCONCLUSIVE run and what would decide it, with its price on this machine (its
    reason, ``variants.judge`` and ``variants.decide``)."""
    lines = [f"- {j.run.variant.label}, β = {j.run.beta:g}, y = {j.run.y:g}: {j.reason}"
             for j in judgements if j.verdict == judging.INCONCLUSIVE]
    return "" if not lines else ("\n## What would decide the INCONCLUSIVE runs\n\n"
                                 + "\n".join(lines) + "\n")


def summary(judgements: list[va.Judgement]) -> str:
    counts = {}
    for j in judgements:
        counts[j.verdict] = counts.get(j.verdict, 0) + 1
    failed = sum(j.failed for j in judgements)
    text = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
    return f"attnge variants --map: {len(judgements)} runs: {text}; {failed} predictions " \
           "rejected\n"


def plot(judgements: list[va.Judgement], path: Path) -> None:
    """One variant: W₁ to its Gaussian model against ℓ (log–log), and the bulk's m₂ relative
    to the prediction, per (β, y)."""
    plt = figures.pyplot("report")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for j in judgements:
        label = f"β={j.run.beta:g}, y={j.run.y:g}"
        rows = j.distance["w1"]["per_size"]
        left.errorbar([r["ell"] for r in rows], [r["mean"] for r in rows],
                      [r["se"] for r in rows], marker="o", label=label)
        if j.prediction is not None:
            m2 = j.measured["attention"]["bulk"]["m2"]["per_size"]
            right.errorbar([r["ell"] for r in m2], [r["mean"] / j.prediction.m2 - 1 for r in m2],
                           [r["se"] / j.prediction.m2 for r in m2], marker="o", label=label)
    left.set(xscale="log", yscale="log", xlabel="ℓ", ylabel="relative W₁ to the Gaussian model",
             title=judgements[0].run.variant.label)
    right.axhline(0, color="k", lw=0.8)
    right.set(xscale="log", xlabel="ℓ", ylabel="bulk m₂ / predicted − 1",
              title="no prediction" if judgements[0].prediction is None else "against the "
              "prediction")
    left.legend(fontsize=7)
    if judgements[0].prediction is not None:
        right.legend(fontsize=7)
    fig.tight_layout()
    figures.save(fig, path)


def write(judgements: list[va.Judgement], folder: Path, command: str, wall_s: float,
          budget: float | None = None) -> None:
    """README.md, variants.json and the figures, each written atomically; ``budget``: that
    of ``--decide``, which sets the z the map's values were judged at (``judged_z``)."""
    by_variant: dict[str, list[va.Judgement]] = {}
    for j in judgements:
        by_variant.setdefault(slug(j.run.variant), []).append(j)
    for name, group in by_variant.items():
        plot(group, folder / f"{name}.png")
    va.write_json(judgements, folder / "variants.json",
                  provenance({"command": command}, wall_s))
    figures_list = "\n".join(f"- [{group[0].run.variant.label}]({name}.png)"
                             for name, group in by_variant.items())
    sizes = ", ".join(map(str, judgements[0].run.sizes))
    most = max(j.run.draws for j in judgements)
    grown = "" if most == judgements[0].run.draws else \
        f"; `--decide` doubled them for the undecided runs, up to {most} (`variants.json` " \
        "gives each run's)"
    z_text = f"{judged_z(budget):.3g}" + ("" if budget is None else
                                          " (the per-look z of `--decide`)")
    text = (
        "# Gaussian equivalence across attention variants\n\n"
        f"Generated by `{command}` (the draws are in `variants.jsonl`; the same command "
        "resumes or reproduces them).\n\n"
        f"Each row samples the variant at ℓ = {sizes} ({judgements[0].run.draws} draws "
        f"each{grown}, d_qk = ℓ/y) with its Gaussian model on the same scores. *bulk* is the "
        "spectrum without its largest value; its moments are fitted to ℓ → ∞ as m∞ + b/ℓ "
        "(under the causal mask m∞ + b/ℓ + c log(ℓ)/ℓ, the form of its exact finite-size means). "
        "GE HOLDS: the values agree with the prediction within "
        f"{z_text} standard errors, the relative W₁ to the Gaussian model shrinks, and the "
        "fitted m₂ rules out each rival (the i.i.d. surrogate's m₂ where θ₂ ≠ 0, the "
        "orthonormal inputs' m₂ for other inputs) with what it detects at most "
        f"{RIVAL_SHARE:g} of the distance to it; "
        "GE BREAKS: a value misses, or W₁ stops shrinking; INCONCLUSIVE: neither, and "
        "`variants.json` says what would decide. *status* is what covers the prediction: "
        "the theorem, a derivation by its argument (docs/math.md §10–§13), or none.\n\n"
        + table(judgements) + "\n\n" + summary(judgements) + undecided(judgements)
        + "\n## The temperature at initialisation\n\n"
        "Each `attnge mha` preset's β from its published init (docs/math.md §15), by the "
        "closed form and sampled from the scheme (8 layers of 64 tokens), and the temperature "
        "thresholds c* of `attnge threshold` that c = β/√log n starts above (the quantity is "
        "no longer linear there). The rows of the table above at these (β, y = n/d_K) are the "
        "theorem's attention at each preset's start.\n\n"
        + initialisation_table() + "\n\nFigures:\n\n" + figures_list + "\n")
    write_atomic(folder / "README.md", text)
