"""``attnge bench``: the cost of one chain draw against the naive path and the floor.

On the same draws (stream ``"chain"``, the run's seed), per ℓ = d_qk:

- pipeline: ``numerics.measure.measure_draw``, everything the chain, law, Perron and
  outlier steps read from one draw;
- naive: the models built the same way, then ``np.linalg.svd(M, compute_uv=False)`` of
  every matrix whose spectrum or norm is reported (the six models of the chain, the four
  differences whose norms a step reads and A), as a script written without care would;
- floor: what cannot be avoided, sampling Q and K and one Gram product and one
  eigenvalue solve (``syevd``, jobz N) per spectrum a step reads (the six models).

One small draw runs first, off the clock (one-time costs). The times are the median
over draws. ``peak_rss_gib`` is the process's peak resident
memory after that size (it never decreases, so read it for the largest size).
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass

import numpy as np

from attnge.numerics import spectra
from attnge.numerics.chain import MODELS_MATRICES, chain_models
from attnge.numerics.law_draws import TRACE_MOMENTS_MATRICES, trace_moments
from attnge.numerics.measure import DIFFERENCES, SPECTRA, measure_draw, require_memory
from attnge.numerics.sampling import attention, draw_rng, sample_scores
from attnge.theory.inputs import integer

BETA = 1.0


@dataclass(frozen=True)
class BenchRow:
    ell: int
    draws: int
    pipeline_s: float
    naive_s: float
    floor_s: float
    peak_rss_gib: float

    @property
    def speedup_vs_naive(self) -> float:
        return self.naive_s / self.pipeline_s

    @property
    def ratio_to_floor(self) -> float:
        return self.pipeline_s / self.floor_s

    def as_dict(self) -> dict:
        return {"ell": self.ell, "draws": self.draws, "pipeline_s": self.pipeline_s,
                "naive_s": self.naive_s, "floor_s": self.floor_s,
                "speedup_vs_naive": self.speedup_vs_naive,
                "ratio_to_floor": self.ratio_to_floor, "peak_rss_gib": self.peak_rss_gib}


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def naive(ell: int, seed: int, draw: int) -> None:
    """The models, then a full SVD of every reported matrix (11 at ℓ×ℓ)."""
    rng = draw_rng(seed, "chain", ell, draw)
    scores = sample_scores(ell, ell, rng)
    models = chain_models(scores, BETA, rng)
    for key in SPECTRA:
        np.linalg.svd(models[key], compute_uv=False)
    for name in DIFFERENCES:
        a, b = name.split("->")
        np.linalg.svd(models[a] - models[b], compute_uv=False)
    np.linalg.svd(attention(scores.S, BETA), compute_uv=False)


def floor(ell: int, seed: int, draw: int) -> float:
    """Sampling Q, K, S and one Gram product + ``syevd`` per spectrum read (timed
    alone: the models themselves are built outside the clock)."""
    rng = draw_rng(seed, "chain", ell, draw)
    start = time.perf_counter()
    scores = sample_scores(ell, ell, rng)
    sampled = time.perf_counter() - start
    models = chain_models(scores, BETA, rng)
    start = time.perf_counter()
    for key in SPECTRA:
        spectra.squared_singular_values(models[key])
    return sampled + time.perf_counter() - start


def validate(sizes: list[int], draws: int, moments: list[int] = ()) -> tuple[list[int], int]:
    """The checked sizes and draws (ValueError naming them), memory included."""
    sizes = [integer(ell, "ell", 10) for ell in sizes]
    for ell in sizes:
        require_memory(ell, MODELS_MATRICES, ell, name="ell")   # the naive path
    for ell in moments:
        require_memory(integer(ell, "moments", 10), TRACE_MOMENTS_MATRICES, ell,
                       name="moments")
    return sizes, integer(draws, "draws", 1)


def _peak_gib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak * (1 if sys.platform == "darwin" else 1024) / 2**30


def moments_floor(ell: int, seed: int, draw: int) -> float:
    """The moments path's floor: sampling Q, K, S and, for each of its two models, the Gram
    matrix W and its square W² (what m₁..m₄ need: tr W, ‖W‖_F², ⟨W, W²⟩, ‖W²‖_F²); the
    models themselves are built outside the clock."""
    rng = draw_rng(seed, "law", ell, draw)
    start = time.perf_counter()
    S = sample_scores(ell, ell, rng).S
    seconds = time.perf_counter() - start
    for M in (attention(S, BETA), S + rng.standard_normal((ell, ell))):
        start = time.perf_counter()
        W = spectra.row_gram(M)
        del M
        W @ W
        seconds += time.perf_counter() - start
        del W
    return seconds


def moments_only(sizes: list[int], seed: int = 0, progress=None) -> list[dict]:
    """One draw per ℓ = d_qk of ``law_draws.trace_moments`` (m₁..m₄ of √ℓA⊥ and Y^lin_f
    from Gram traces, no spectrum): its time, its floor (:func:`moments_floor`), the
    process's peak memory, the moments."""
    rows = []
    for n, ell in enumerate(sizes):
        if progress is not None:
            progress(n, len(sizes), f"moments at ell = {ell}")
        start = time.perf_counter()
        found = trace_moments(ell, ell, BETA, seed, 0)
        seconds = time.perf_counter() - start
        least = moments_floor(ell, seed, 0)
        rows.append({"ell": ell, "seconds": seconds, "floor_s": least,
                     "ratio_to_floor": seconds / least, "peak_rss_gib": _peak_gib(),
                     "m(M0)": found["M0"].tolist(), "m(Y_lin_f)": found["Y_lin_f"].tolist()})
    if progress is not None:
        progress(len(sizes), len(sizes), "")
    return rows


def bench(sizes: list[int], draws: int, seed: int = 0, progress=None) -> list[BenchRow]:
    """One ``BenchRow`` per ℓ (d_qk = ℓ, β = 1), each time the median over ``draws``."""
    sizes, draws = validate(sizes, draws)
    measure_draw(50, 50, BETA, seed, 0)      # one-time costs (lambdify, imports) off the clock
    rows = []
    for n, ell in enumerate(sizes):
        if progress is not None:
            progress(n, len(sizes), f"ell = {ell}")
        pipe = [_timed(lambda k=k: measure_draw(ell, ell, BETA, seed, k)) for k in range(draws)]
        slow = [_timed(lambda k=k: naive(ell, seed, k)) for k in range(draws)]
        least = [floor(ell, seed, k) for k in range(draws)]
        rows.append(BenchRow(ell, draws, float(np.median(pipe)), float(np.median(slow)),
                             float(np.median(least)), _peak_gib()))
    if progress is not None:
        progress(len(sizes), len(sizes), "")
    return rows


def markdown(rows: list[BenchRow]) -> str:
    head = ("| ell | draws | pipeline s | naive s | floor s | speed-up vs naive | "
            "ratio to floor | peak RSS GiB |\n|---|---|---|---|---|---|---|---|\n")
    return head + "".join(
        f"| {r.ell} | {r.draws} | {r.pipeline_s:.3g} | {r.naive_s:.3g} | {r.floor_s:.3g} | "
        f"{r.speedup_vs_naive:.2f} | {r.ratio_to_floor:.2f} | {r.peak_rss_gib:.2f} |\n"
        for r in rows)


def moments_markdown(rows: list[dict]) -> str:
    head = ("| ell | seconds | floor s | ratio to floor | peak RSS GiB "
            "| m_1..m_4 of sqrt(ell) A_perp | m_1..m_4 of Y^lin_f |\n"
            "|---|---|---|---|---|---|---|\n")
    return head + "".join(
        f"| {r['ell']} | {r['seconds']:.3g} | {r['floor_s']:.3g} | "
        f"{r['ratio_to_floor']:.2f} | {r['peak_rss_gib']:.2f} | "
        f"{', '.join(f'{v:.5g}' for v in r['m(M0)'])} | "
        f"{', '.join(f'{v:.5g}' for v in r['m(Y_lin_f)'])} |\n" for r in rows)
