"""``attnge mha``: a softmax attention layer against its Gaussian model on the same weights, at
the shape of a real transformer (docs/math.md §7, §16).

Per draw: the n eigenvalues of MHA⊥MHA⊥ᵀ and of n⁻¹MHA^G MHA^Gᵀ on the same Q, K, V and W^O
(``numerics.multi_head``), and of two more models on those weights: the Gaussian model with
fresh noise (its own draw-to-draw spread) and the i.i.d. surrogate (θ₂ = 0, the rival).
Reported, mean ± se over draws: the relative W₁ distance (mean |difference of the sorted
eigenvalues| over the output law's m₁: γ_O θ₁, larger for tied K = V, and γ_O(θ₁ + γθ₂),
γ = n/d, for Gaussian inputs, ``theory.input_models.output_m1``; γ_O θ₁ for tied K = V on
Gaussian inputs, which have no stated m₁), in percent, the Kolmogorov distance of the two
spectra, and m₁, m₂ of both against the output law (``theory.multi_head``; inputs with
orthonormal rows; for Gaussian inputs m₁ alone); the time of one draw. d_O = d unless
given.

The verdict (:func:`judge`) reads the layer at n/4, n/2 and n (``LADDER``): GE HOLDS when
its distance to the Gaussian model at n is within the model's own spread or shrinks along
the ladder, with the power to tell the surrogate apart; GE BREAKS when it is beyond that
spread and stops shrinking at sizes where the softmax is in its linear regime
(``regimes.mass``); INCONCLUSIVE otherwise, with what would decide.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
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
    Rival,
    decay_z,
)
from attnge.numerics import multi_head_law as mhl
from attnge.numerics import spectra, stats
from attnge.numerics.multi_head import (
    INPUTS,
    Shape,
    measure_output_draw,
    relative_w1,
    require_output_memory,
)
from attnge.run_config import VARIANTS
from attnge.theory import multi_head as mh
from attnge.theory import weight_laws as wl
from attnge.theory.exponential import thetas
from attnge.theory.initialisation import Init, effective_beta
from attnge.theory.input_models import output_m1
from attnge.theory.inputs import integer
from attnge.theory.laws import describe
from attnge.theory.symbols import positive_beta

STREAM = "mha"
BINS = 80
DENSITY_POINTS = 160
ALL = "all"


@dataclass(frozen=True)
class Preset:
    """A public configuration: context length n, model width d, heads and key-value heads,
    the head width d_K = d_V, how heads share keys and values, and its init scheme
    (``theory.initialisation.Init``; None for a shape that has none)."""

    n: int
    d: int
    heads: int
    kv_heads: int
    d_head: int
    sharing: str
    init: Init | None = None


_STD = sp.Rational(1, 50)          # initializer_range 0.02, the usual N(0, 0.02²)
_HF = "initializer_range 0.02 of its Hugging Face configuration: N(0, 0.02^2)"
PRESETS = {
    "bert-base": Preset(512, 768, 12, 12, 64, "none", Init(_STD, _STD, source=f"BERT: {_HF}")),
    "modernbert-large": Preset(1024, 1024, 16, 16, 64, "none", Init(
        _STD * wl.truncated_sd(), _STD * wl.truncated_sd(), "truncated-normal",
        source="ModernBERT: trunc_normal(std 0.02, cut at 2 std) on Wqkv, whose std is "
               "0.02 times 0.880")),
    "dinov3-l16": Preset(261, 1024, 16, 16, 64, "none", Init(
        _STD, _STD, source="DINOv3 ViT-L/16: timm's trunc_normal_(std=0.02) with bounds -2, 2 "
                           "(absolute, so no truncation at this std); assumed, not read from "
                           "its code")),
    "llada-8b": Preset(4096, 4096, 32, 32, 128, "none", Init(
        _STD, _STD, source=f"LLaDA 8B: {_HF} (the Llama convention; assumed)")),
    "gpt3-175b": Preset(2048, 12288, 96, 96, 128, "none", Init(
        _STD, _STD, source="GPT-3: the GPT-2 initialisation (the paper says so), N(0, 0.02^2) "
                           "on the query and key weights")),
    "falcon-7b": Preset(2048, 4544, 71, 1, 64, "mqa", Init(_STD, _STD,
                                                          source=f"Falcon-7B: {_HF}")),
    "kv-tied-2048": Preset(2048, 2048, 32, 32, 64, "kv"),
    "gpt2": Preset(1024, 768, 12, 12, 64, "none", Init(_STD, _STD, source=f"GPT-2: {_HF}")),
    "llama2-7b": Preset(4096, 4096, 32, 32, 128, "none", Init(
        _STD, _STD, source=f"Llama 2 7B: {_HF}; RMSNorm inputs")),
    "llama2-13b": Preset(4096, 5120, 40, 40, 128, "none", Init(
        _STD, _STD, source=f"Llama 2 13B: {_HF}; RMSNorm inputs")),
    "llama2-70b": Preset(4096, 8192, 64, 8, 128, "mqa", Init(
        _STD, _STD, source=f"Llama 2 70B (8 key-value groups): {_HF}; RMSNorm inputs")),
    "vit-b16": Preset(197, 768, 12, 12, 64, "none", Init(
        1 / sp.sqrt(768), 1 / sp.sqrt(768), "uniform",
        source="ViT-B/16: Xavier-uniform query and key kernels (768 x 768), variance "
               "2/(768 + 768)")),
    "t5-base": Preset(512, 768, 12, 12, 64, "none", Init(
        1 / sp.sqrt(768 * 64), 1 / sp.sqrt(768), scale="none",
        source="T5: q ~ N(0, 1/(d_model d_kv)), k ~ N(0, 1/d_model), no 1/sqrt(d_kv) in the "
               "scores (its _init_weights, factor 1)")),
}


def beta_at_init(preset: str) -> sp.Expr | None:
    """The preset's β at initialisation (``theory.initialisation.effective_beta``), None for a
    preset without an init scheme."""
    p = PRESETS[preset]
    return None if p.init is None else effective_beta(p.init, p.d, p.d_head)


def initial_beta(preset: str | None, given: object) -> sp.Expr:
    """β of an ``attnge mha`` run: ``given`` is a number or "init" (the preset's β at
    initialisation to 6 significant digits, as an exact rational; 1 without a preset or for
    a preset without an init)."""
    if given != "init":
        return positive_beta(given)
    found = None if preset is None else beta_at_init(preset)
    if found is None:
        return sp.Integer(1)
    return positive_beta(sp.Rational(f"{float(found):.6g}"))


def layer_shape(preset: str | None = None, n=None, d=None, heads=None, kv_heads=None, dk=None,
                dv=None, dout=None, sharing=None) -> tuple[Shape, int]:
    """The layer's Shape and d from a preset and/or explicit values (explicit ones win).

    Without a preset, n, d, heads and dk are needed; dv defaults to dk, kv_heads to heads
    (to 1 with sharing mqa), dout to d, sharing to none (mqa when kv_heads < heads). Over a
    preset the defaults follow the explicit values too: an explicit dk sets dv unless dv is
    given, an explicit heads or sharing sets kv_heads unless it is given, an explicit
    kv_heads sets sharing unless it is given. ValueError naming the parameter otherwise.
    Any n against d: the inputs (``layer_inputs``) follow.
    """
    base = {}
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"preset must be one of {', '.join(PRESETS)} (got {preset!r})")
        p = PRESETS[preset]
        base = {"n": p.n, "d": p.d, "heads": p.heads, "kv_heads": p.kv_heads, "dk": p.d_head,
                "dv": p.d_head, "sharing": p.sharing}
    given = {"n": n, "d": d, "heads": heads, "kv_heads": kv_heads, "dk": dk, "dv": dv,
             "dout": dout, "sharing": sharing}
    for given_name, follows in (("dk", "dv"), ("heads", "kv_heads"), ("sharing", "kv_heads"),
                                ("kv_heads", "sharing")):
        if given[given_name] is not None and given[follows] is None:
            base.pop(follows, None)
    values = {**base, **{k: v for k, v in given.items() if v is not None}}
    for name in ("n", "d", "heads", "dk"):
        if name not in values:
            raise ValueError(f"{name} is needed without a preset (or give --preset, one of "
                             f"{', '.join(PRESETS)})")
    n_, d_ = integer(values["n"], "n", 2), integer(values["d"], "d", 1)
    h = integer(values["heads"], "heads", 1)
    dk_ = integer(values["dk"], "dk", 1)
    dv_ = integer(values.get("dv", dk_), "dv", 1)
    share = values.get("sharing")
    kv = values.get("kv_heads")
    if share is None:
        share = "mqa" if kv is not None and integer(kv, "kv_heads", 1) < h else "none"
    if kv is None:
        kv = 1 if share == "mqa" else h
    dout_ = integer(values.get("dout", d_), "dout", 1)
    return Shape(n=n_, heads=h, d_k=dk_, d_v=dv_, d_o=dout_, kv_heads=kv, sharing=share), d_


def layer_inputs(shape: Shape, d: int, given: str | None = None) -> str:
    """The inputs of a run (``numerics.multi_head.INPUTS``): ``given``, or orthonormal rows
    where n ≤ d and Gaussian rows N(0, I_d/d) where n > d (orthonormal rows need n ≤ d)."""
    if given is None:
        return "orthonormal" if shape.n <= d else "gaussian"
    if given not in INPUTS:
        raise ValueError(f"inputs must be one of {', '.join(INPUTS)} (got {given!r})")
    if given == "orthonormal" and shape.n > d:
        raise ValueError(f"inputs orthonormal needs n <= d, rows that can be orthonormal (got "
                         f"n={shape.n}, d={d}); gaussian inputs run at any n")
    return given


LADDER = (4, 2, 1)
"""The verdict measures the layer at n/4, n/2 and n: every width (n, d, d_K, d_V, d_O) divided
alike, the heads kept, so that the ratios γ stay and the distance to the Gaussian model can be
seen to shrink."""


def ladder(shape: Shape, d: int) -> list[tuple[Shape, int]]:
    """The layer's shapes and widths d at n/f for f in ``LADDER``; ValueError naming n where a
    width would fall below 1 (or n/4 below 2)."""
    f = max(LADDER)
    if shape.n // f < 2 or min(d, shape.d_k, shape.d_v, shape.d_o) // f < 1:
        raise ValueError(f"n must be at least {2 * f} and d, d_K, d_V, d_O at least {f}: the "
                         f"verdict measures the layer at n/{f} and n/2 too (got n={shape.n}, "
                         f"d={d}, d_K={shape.d_k}, d_V={shape.d_v}, d_O={shape.d_o})")
    return [(replace(shape, n=shape.n // f, d_k=shape.d_k // f, d_v=shape.d_v // f,
                     d_o=shape.d_o // f), d // f) for f in LADDER]


def mean_eigenvalue(shape: Shape, beta: float, unit: float = 1.0) -> float:
    """The scale of the relative W₁ distances: γ_O θ₁ = d_O θ₁/n, the mean eigenvalue of
    n⁻¹MHA^G MHA^Gᵀ for values independent of the keys (exactly, at any n), times ``unit``:
    the output law's m₁ over γ_O θ₁ (``law_unit``; 1 but for tied K = V and for Gaussian
    inputs, whose m₁ a θ₂ term raises)."""
    return unit * shape.d_o * float(thetas(beta)[0]) / shape.n


def law_unit(shape: Shape, beta, m1: sp.Expr) -> float:
    """The output law's m₁ over γ_O θ₁ = γ_O(e^{β²} − 1), exactly (1 for independent or
    multi-query values, larger for tied K = V)."""
    b = positive_beta(beta)
    return float(sp.simplify(m1 / (sp.Rational(shape.d_o, shape.n) * (sp.exp(b**2) - 1))))


def gaussian_inputs_m1(shape: Shape, d: int, beta) -> sp.Expr | None:
    """The output law's m₁ for Gaussian inputs of width d (``theory.input_models
    .output_m1``: γ_O(θ₁ + (n/d)θ₂)); None for tied K = V, which has no stated m₁ there."""
    if shape.sharing == "kv":
        return None
    t1, t2 = thetas(positive_beta(beta))
    return output_m1("gaussian", sp.Rational(shape.n, d), t1, t2,
                     sp.Rational(shape.d_o, shape.n))


def output_law(shape: Shape, beta) -> tuple[mh.Law, mh.Law]:
    """(stated, matrix) output laws at the layer's ratios (exact rationals)."""
    law = describe(beta=beta, heads=shape.heads, kind="output",
                   gamma_k=sp.Rational(shape.heads * shape.d_k, shape.n),
                   gamma_v=sp.Rational(shape.heads * shape.d_v, shape.n),
                   gamma_o=sp.Rational(shape.d_o, shape.n),
                   sharing="kv" if shape.sharing == "kv" else "none")
    return tuple(law.layered(route) for route in mh.ROUTES)


@dataclass
class Result:
    """The draws' numbers and their summary (``summary``)."""

    shape: Shape
    d: int
    beta: float
    draws: int
    seed: int
    law_moments: list[float | None] | None    # (m₁, m₂) of the law; None where not stated
    edge: float | None
    rel_w1: np.ndarray
    ks: np.ndarray
    moments: dict[str, np.ndarray]          # "softmax"/"gaussian" → draws × 2 (m₁, m₂)
    seconds: np.ndarray                      # per draw
    spectra: dict[str, np.ndarray] = field(default_factory=dict)   # all draws, concatenated
    inputs: str = "orthonormal"
    ladder: list[dict] = field(default_factory=list)   # ``distances`` per size of LADDER
    verdict: str = INCONCLUSIVE
    reason: str = ""
    decide: dict | None = None       # --decide: budget, per-look z, the looks and time spent

    def summary(self) -> dict:
        def ms(v):
            v = np.asarray(v, dtype=float)
            se = float(v.std(ddof=1) / np.sqrt(v.size)) if v.size > 1 else None
            return {"mean": float(v.mean()), "se": se}

        s = self.shape
        gk, gv, go = s.gammas
        law = self.law_moments or [None, None]
        return {
            "shape": {"n": s.n, "d": self.d, "heads": s.heads, "kv_heads": s.kv_heads,
                      "d_k": s.d_k, "d_v": s.d_v, "d_o": s.d_o, "sharing": s.sharing,
                      "gamma_k": gk, "gamma_v": gv, "gamma_o": go},
            "inputs": self.inputs,
            "beta": self.beta, "draws": self.draws, "seed": self.seed,
            "verdict": self.verdict, "reason": self.reason, "ladder": self.ladder,
            "decide": self.decide,
            "rel_w1_percent": ms(100 * self.rel_w1), "ks": ms(self.ks),
            "m1": {"law": law[0], **{k: ms(v[:, 0]) for k, v in self.moments.items()}},
            "m2": {"law": law[1], **{k: ms(v[:, 1]) for k, v in self.moments.items()}},
            "right_edge": self.edge,
            "seconds_per_draw": ms(self.seconds),
        }


def validate(shape: Shape, draws: int) -> int:
    """The checked draws (≥ 2, for a standard error); the memory of the draws that run at
    once, before any is sampled."""
    draws = VARIANTS.draws(draws)
    require_output_memory(shape, parallel.concurrent_draws(), name="n", rivals=True)
    return draws


def _timed(shape: Shape, beta: float, seed: int, draw: int, inputs: str, d: int) -> tuple:
    start = time.perf_counter()
    out = measure_output_draw(shape, beta, seed, draw, STREAM, rivals=True, inputs=inputs, d=d)
    return out, time.perf_counter() - start


def _mean_se(values) -> dict:
    v = np.asarray(values, dtype=float)
    return {"mean": float(v.mean()), "se": float(v.std(ddof=1) / math.sqrt(v.size)),
            "dof": float(v.size - 1)}


def distances(shape: Shape, beta: float, outs, unit: float = 1.0) -> dict:
    """The relative W₁ distances of one size's draws (over ``mean_eigenvalue``), mean, se and
    dof over draws: ``model`` = W₁(layer, its Gaussian model), ``own`` = W₁(the model with
    fresh noise, the model), ``excess`` = model − own (paired) and ``rival_excess`` =
    W₁(layer, the i.i.d. surrogate) − own.

    .. math:: D = W_1(\\nu_{\\mathrm{MHA}^\\perp}, \\nu_{n^{-1/2}\\mathrm{MHA}^G})
              / (\\gamma_O\\theta_1),\\qquad E = W_1(\\nu_{G'}, \\nu_{G})/(\\gamma_O\\theta_1)
    """
    scale = mean_eigenvalue(shape, beta, unit)
    D = np.array([relative_w1(o.softmax, o.gaussian, scale) for o in outs])
    E = np.array([relative_w1(o.fresh, o.gaussian, scale) for o in outs])
    R = np.array([relative_w1(o.softmax, o.surrogate, scale) for o in outs])
    return {"n": shape.n, "model": _mean_se(D), "own": _mean_se(E), "excess": _mean_se(D - E),
            "rival_excess": _mean_se(R - E)}


def judge(rows: list[dict], beta: float, d_k: int, z_miss: float = DECAY_Z
          ) -> tuple[str, str, bool]:
    """GE HOLDS, GE BREAKS or INCONCLUSIVE from the ladder's ``distances`` (docs/math.md §16),
    its reason, and whether more draws could decide it.

    At n (the last row): the excess D − E of the layer's distance over the model's own spread
    is within it when its normal-equivalent z ≤ ``z_miss`` (``judging.DECAY_Z``, or the
    per-look ``judging.sequential_z`` of a run that looks again); the rival, the i.i.d.
    surrogate, is ruled out when the detectable excess t·se is at most ``RIVAL_SHARE`` of the
    surrogate's excess (``judging.Rival``). Along the ladder the distance D shrinks when
    its log–log slope lies ``z_miss`` errors below −1/4 and has stopped when that many above
    (``judging.decay_z``, as for the variants).

    - HOLDS: (within, or shrinking) and the rival ruled out;
    - BREAKS: beyond the spread (z > z_miss) and stopped, at sizes inside the softmax's
      linear regime (``regimes.mass`` at y = n/d_K): there the theory says it shrinks;
    - INCONCLUSIVE: otherwise, with what would decide: the draws that give the power to rule
      out the rival or to tell shrinking from a plateau, or, where the sizes are outside the
      linear regime (a plateau there is no evidence against the theorem), the layer that is
      inside it (no number of draws decides that).
    """
    top = rows[-1]
    ex, rival = top["excess"], top["rival_excess"]
    z = stats.normal_equivalent(ex["mean"] / ex["se"], ex["dof"]) if ex["se"] > 0 else \
        math.copysign(math.inf, ex["mean"])
    width = stats.t_critical(z_miss, ex["dof"]) * ex["se"]
    ns = [r["n"] for r in rows]
    fit = stats.fit_rate(ns, [r["model"]["mean"] for r in rows],
                         [max(r["model"]["se"], 1e-300) for r in rows],
                         [r["model"]["dof"] for r in rows])
    shrink = decay_z({"slope": fit.slope, "se": fit.se, "dof": fit.dof})
    where = f"at n = {', '.join(map(str, ns))} ({int(top['model']['dof']) + 1} draws each)"
    seen = (f"W1 to the model {100 * top['model']['mean']:.3g}% (its own spread "
            f"{100 * top['own']['mean']:.3g}%, excess z = {z:.1f}), slope {fit.slope:.2f} ± "
            f"{fit.se:.2f}")
    within, shrinks, stopped = z <= z_miss, shrink > z_miss, shrink < -z_miss
    # in percent, as the tables print them
    power, lacks = Rival(100 * rival["mean"], "the i.i.d. surrogate").power(100 * width, 0.0)
    power = power and rival["mean"] > 0
    if (within or shrinks) and power:
        how = "within the model's own spread" if within else "shrinking along the sizes"
        return HOLDS, (f"{where}: {seen}; {how}, and {100 * rival['mean']:.3g}% farther from "
                       "the i.i.d. surrogate than its own spread (ruled out)"), False
    if within or shrinks:
        return INCONCLUSIVE, (f"{where}: {seen}; cannot rule out the i.i.d. surrogate "
                              f"({100 * rival['mean']:.3g}% excess): "
                              f"{lacks or 'it is not farther'}"), rival["mean"] > 0
    regime = rg.mass(beta, ns[-1] / d_k, ns)
    if all(regime.inside):
        if stopped:
            return BREAKS, (f"{where}: {seen}; beyond the model's spread and not shrinking, "
                            "inside the softmax's linear regime"), False
        return INCONCLUSIVE, (f"{where}: {seen} tells neither shrinking nor a plateau; "
                              f"about {4 * (int(top['model']['dof']) + 1)} draws would "
                              "narrow it"), True
    # outside the regime a plateau is no evidence against the theorem, which speaks of larger n
    need = (f"a layer from n = {max(LADDER) * regime.need} (its n/{max(LADDER)} at "
            f"{regime.need})" if regime.need is not None else
            f"no n up to {rg.SEARCH_MAX:.0e}")
    how = "not shrinking" if stopped else "neither shrinking nor a plateau"
    return INCONCLUSIVE, (f"{where}: {seen}; {how}, and the sizes are outside the "
                          f"softmax's linear regime at y = n/d_K = {ns[-1] / d_k:g} "
                          f"({regime.why}); {need} would decide at beta = {beta:g}"), False


def run(shape: Shape, d: int, beta: float, draws: int, seed: int = 0, progress=None,
        inputs: str | None = None, budget: float | None = None) -> Result:
    """Measure ``draws`` draws of the layer and its models at each size of ``LADDER``
    (``progress(i, n)`` over each look's new draws) and judge them (:func:`judge`).

    ``budget`` (seconds; None: one look, as asked): ``--decide``. While the verdict is
    INCONCLUSIVE and more draws could decide it, the draws double, those already measured
    kept (a draw is a function of its seed and index), as long as the next look, estimated
    from the last one's time, fits in what the budget leaves, at most ``judging.LOOKS_MAX``
    looks. Every look is then judged at ``judging.sequential_z`` in place of ``DECAY_Z``.
    """
    inputs = layer_inputs(shape, d, inputs)
    beta_value = float(positive_beta(beta))
    law = edge = None
    unit = 1.0
    if inputs == "orthonormal":
        stated, _ = output_law(shape, beta)
        exact = mh.moments(stated, 2, "stated")
        law, unit = [float(m) for m in exact], law_unit(shape, beta, exact[0])
        edge = float(mhl.right_edge(stated, dps=15))
    elif (m1 := gaussian_inputs_m1(shape, d, beta)) is not None:
        law, unit = [float(m1), None], law_unit(shape, beta, m1)
    sizes = ladder(shape, d)
    found: list[list[tuple]] = [[] for _ in sizes]          # per size: (draw, seconds)
    judged: list = []

    def look(total: int, z_miss: float) -> tuple[str, bool]:
        have = len(found[0])
        tasks = [(j, (sh, beta_value, seed, k, inputs, dd)) for j, (sh, dd) in enumerate(sizes)
                 for k in range(have, total)]
        done = [None] * len(tasks)
        for i, (k, value) in enumerate(parallel.measured(_timed, [t for _, t in tasks])):
            if progress is not None:
                progress(i, len(tasks))
            done[k] = value
        if progress is not None:
            progress(len(tasks), len(tasks))
        for (j, _), value in zip(tasks, done):
            found[j].append(value)
        rows = [distances(sh, beta_value, [o for o, _ in found[j]], unit)
                for j, (sh, _) in enumerate(sizes)]
        judged[:] = [rows, *judge(rows, beta_value, shape.d_k, z_miss)]
        return judged[1], judged[3]

    record = None
    if budget is None:
        look(draws, DECAY_Z)
    else:
        record, stopped = judging.decide(look, draws, budget)
        if stopped:
            judged[2] += "; " + stopped
    rows, verdict, reason, _ = judged
    total = len(found[0])
    outs, seconds = zip(*found[-1])
    moments = {key: np.array([spectra.spectral_moments(getattr(o, key), 2) for o in outs])
               for key in ("softmax", "gaussian")}
    scale = mean_eigenvalue(shape, beta_value, unit)
    return Result(shape, d, beta_value, total, seed, law, edge,
                  np.array([relative_w1(o.softmax, o.gaussian, scale) for o in outs]),
                  np.array([spectra.kolmogorov_distance(o.softmax, o.gaussian) for o in outs]),
                  moments, np.array(seconds),
                  {key: np.concatenate([getattr(o, key) for o in outs])
                   for key in ("softmax", "gaussian")},
                  inputs, rows, verdict, reason, record)


def markdown(result: Result, name: str | None = None) -> str:
    """The verdict, the ladder's distances and the summary as Markdown tables."""
    s = result.summary()
    sh = s["shape"]
    pm = lambda v: f"{v['mean']:.4g} ± {v['se']:.2g}"  # noqa: E731
    law = lambda v: "" if v is None else f"{v:.6g}"  # noqa: E731
    title = (f"{name or 'layer'}: n = {sh['n']}, d = {sh['d']}, heads = {sh['heads']} "
             f"(kv heads {sh['kv_heads']}, sharing {sh['sharing']}), d_K = {sh['d_k']}, "
             f"d_V = {sh['d_v']}, d_O = {sh['d_o']}, {s['inputs']} inputs, beta = "
             f"{s['beta']:g}, {s['draws']} draws")
    rows = [("relative W1 (%)", pm(s["rel_w1_percent"]), ""),
            ("Kolmogorov distance", pm(s["ks"]), ""),
            ("m_1 of MHA_perp", pm(s["m1"]["softmax"]), law(s["m1"]["law"])),
            ("m_1 of n^-1/2 MHA^G", pm(s["m1"]["gaussian"]), law(s["m1"]["law"])),
            ("m_2 of MHA_perp", pm(s["m2"]["softmax"]), law(s["m2"]["law"])),
            ("m_2 of n^-1/2 MHA^G", pm(s["m2"]["gaussian"]), law(s["m2"]["law"])),
            ("right edge of the output law", "", law(s["right_edge"])),
            ("seconds per draw", pm(s["seconds_per_draw"]), "")]
    pct = lambda v: f"{100 * v['mean']:.3g} ± {100 * v['se']:.2g}"  # noqa: E731
    lines = [f"**{title}**", "", f"**{result.verdict}**: {result.reason}", ""]
    if result.decide is not None:
        looks = result.decide["looks"]
        lines += [f"--decide: {len(looks)} look(s), draws per size "
                  f"{', '.join(str(k['draws']) for k in looks)}, each judged at z = "
                  f"{result.decide['z_per_look']:.3g} (docs/math.md §16); "
                  f"{result.decide['spent_s']:.0f} s of a budget of "
                  f"{result.decide['budget_s']:.0f} s", ""]
    lines += ["| n | W1 to the Gaussian model (%) | the model's own spread (%) | excess (%) | "
              "excess of the i.i.d. surrogate (%) |", "|---|---|---|---|---|"]
    lines += [f"| {r['n']} | {pct(r['model'])} | {pct(r['own'])} | {pct(r['excess'])} | "
              f"{pct(r['rival_excess'])} |" for r in result.ladder]
    lines += ["", "| quantity | measured (mean ± se) | output law |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    if result.edge is None:
        lines += ["", f"The output law (docs/math.md §7) is derived for inputs with orthonormal "
                  f"rows; with {result.inputs} inputs the verdict compares the layer with its "
                  "Gaussian model on the same inputs and weights, and "
                  + ("no law is stated." if s["m1"]["law"] is None else
                     "of the law only its mean eigenvalue m_1 = gamma_O (theta1 + gamma "
                     "theta2), gamma = n/d, is stated (derived by the theorem's argument, "
                     "not proved).")]
    return "\n".join(lines) + "\n"


def histogram(result: Result, key: str, top: float) -> tuple[np.ndarray, np.ndarray]:
    edges = np.linspace(0.0, top, BINS + 1)
    dens, _ = np.histogram(np.clip(result.spectra[key], 0, top), bins=edges, density=True)
    return edges, dens


def density_curve(result: Result, top: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The output law's density on a grid of (0, top] (its continuous part), 0 beyond the
    right edge E (the support's supremum, ``result.edge``), where reading a zero from the
    curve takes every root of its polynomial; None without a law (inputs that are not
    orthonormal)."""
    if result.edge is None:
        return None
    _, matrix = output_law(result.shape, result.beta)
    grid = np.linspace(top / DENSITY_POINTS / 4, top, DENSITY_POINTS)
    inside = grid[grid <= result.edge]
    values = [float(v) for v in mhl.density_grid(inside, matrix, dps=15)] if inside.size else []
    return grid, np.array(values + [0.0] * (grid.size - inside.size))


def to_csv(result: Result, top: float, curve: tuple[np.ndarray, np.ndarray] | None) -> str:
    """section, model, x, x_right, value: both histograms, the density, the summary."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["section", "model", "x", "x_right", "value"])
    for key in ("softmax", "gaussian"):
        edges, dens = histogram(result, key, top)
        for lo, hi, v in zip(edges[:-1], edges[1:], dens):
            w.writerow(["histogram", key, repr(float(lo)), repr(float(hi)), repr(float(v))])
    for x, v in zip(*(curve or ((), ()))):
        w.writerow(["density", "output law", repr(float(x)), "", repr(float(v))])
    s = result.summary()
    for name in ("rel_w1_percent", "ks"):
        w.writerow(["summary", name, "mean", "", repr(s[name]["mean"])])
        w.writerow(["summary", name, "se", "", repr(s[name]["se"])])
    if result.edge is not None:
        w.writerow(["edge", "output law", repr(result.edge), "", ""])
    return buf.getvalue()


def plot(result: Result, path, name: str | None = None) -> str:
    """Histograms of both spectra with the output law's density (as in Figure 1); the CSV of
    the figure's numbers is returned."""
    from attnge.output.figures import pyplot, save

    top = max(float(np.max(result.spectra["softmax"])), float(np.max(result.spectra["gaussian"])),
              result.edge or 0.0) * 1.05
    curve = density_curve(result, top)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for key, label in (("softmax", "MHA_perp (softmax)"), ("gaussian", "n^-1/2 MHA^G")):
        edges, dens = histogram(result, key, top)
        ax.stairs(dens, edges, fill=key == "softmax", alpha=0.45 if key == "softmax" else 1.0,
                  label=label)
    if curve is not None:
        ax.plot(*curve, "k-", lw=1.2, label="output law (density)")
        ax.axvline(result.edge, color="k", lw=0.6, ls=":")
    ax.set_yscale("log")
    ax.set_ylim(1e-4, 10)
    s = result.summary()
    ax.set_xlabel(r"eigenvalue of $MM^\top$")
    ax.set_ylabel("density (log scale)")
    ax.set_title(f"{name or 'layer'}: {result.verdict}, rel. W1 "
                 f"{s['rel_w1_percent']['mean']:.2f}%, KS {s['ks']['mean']:.3f} "
                 f"({result.draws} draws, {result.inputs} inputs)"
                 + ("; dotted: right edge" if curve is not None else ""), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, path)
    return to_csv(result, top, curve)


# ---------------------------------------------------------------------------
# a folder of presets: attnge mha --preset all --report DIR
# ---------------------------------------------------------------------------


def names(preset: str | None) -> list[str | None]:
    """The presets a run covers: every one for ``all``, else the one given (or None)."""
    return list(PRESETS) if preset == ALL else [preset]


def stored(path, parameters: dict) -> dict | None:
    """The summary in ``path`` when it was made with the same ``parameters`` (a rerun then
    reuses it), else None; a damaged or foreign file is not reused."""
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(found, dict) or found.get("parameters") != parameters:
        return None
    return found


def folder_markdown(found: dict[str, dict], command: str) -> str:
    """README of a folder of presets: the table (relative W1, KS, m1, m2, time) and the
    command that regenerates it."""
    lines = ["# One attention layer against its Gaussian model, at real shapes", "",
             "Generated by (rerun to regenerate; a finished preset is reused when its "
             "parameters match):", "", "```sh", command, "```", "",
             "Per preset: the softmax layer MHA⊥ and its Gaussian model n^-1/2 MHA^G on the same "
             "Q, K, V and W^O (docs/math.md §7), the n eigenvalues of each, mean ± se over "
             "draws. Verdict: docs/math.md §16 (the layer at n/4, n/2 and n against its "
             "Gaussian model's own spread, the i.i.d. surrogate ruled out). Relative W1: mean "
             "|difference of the sorted eigenvalues| over the output law's mean eigenvalue m1 "
             "(γ_O θ₁, the Gaussian model's, but for tied K = V; γ_O(θ₁ + γθ₂), γ = n/d, for "
             "Gaussian inputs, γ_O θ₁ for tied K = V on them). "
             "KS: the Kolmogorov distance of the two "
             "spectra. m1, m2: of MHA⊥, with the output law's value after the slash (for "
             "Gaussian inputs, which a preset with n > d takes, m1 alone). Time: one draw "
             "(all four models) on this machine, in one process.", "",
             "| preset | n | d | heads / kv | d_K | sharing | inputs | verdict | rel. W1 (%) | "
             "KS | m1 / law | m2 / law | s per draw | figure |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    pm = lambda v: f"{v['mean']:.3g} ± {v['se']:.2g}"  # noqa: E731
    law = lambda v: "—" if v is None else f"{v:.4g}"  # noqa: E731
    for name, s in found.items():
        sh = s["shape"]
        lines.append(
            f"| {name} | {sh['n']} | {sh['d']} | {sh['heads']} / {sh['kv_heads']} | "
            f"{sh['d_k']} | {sh['sharing']} | {s['inputs']} | {s['verdict']} | "
            f"{pm(s['rel_w1_percent'])} | {pm(s['ks'])} | "
            f"{s['m1']['softmax']['mean']:.4g} / {law(s['m1']['law'])} | "
            f"{s['m2']['softmax']['mean']:.4g} / {law(s['m2']['law'])} | "
            f"{s['seconds_per_draw']['mean']:.3g} | [{name}.png]({name}.png) |")
    first = next(iter(found.values()))
    lines += ["", f"beta = {first['beta']:g}, {first['draws']} draws per preset, seed "
              f"{first['seed']}. The numbers of each figure are in the .csv beside it; each "
              "preset's summary, its verdict's reason, its ladder and its provenance in its "
              ".json.", ""]
    return "\n".join(lines)
