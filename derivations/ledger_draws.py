"""The shared sweeps: every size and draw measured once per run.

The chain, Perron and outlier steps read the chain draws (stream ``"chain"``); the
limit-law, not-Marchenko-Pastur and Perron value checks read the law draws (the spectrum of
√ℓA⊥ only, cheap, so taken by the hundred at small ℓ: the chain draws' scores, then stream
``"law"``), which never wait for the chain's models.
"""

from __future__ import annotations

from attnge import parallel
from attnge.context import current
from attnge.numerics.law_draws import LawDraw, measure_law_draw
from attnge.numerics.measure import MATRICES_PER_DRAW, DrawMeasurement, measure_draw, require_memory
from attnge.params import Params

LAW_DRAWS_MAX = 1024
LAW_FACTOR, LAW_POWER = 3, 1.25
LAW_SMALLEST = 100      # the smallest ell of the law steps (their fits hold from ell/2 = 50)


SAMPLE_MATRICES = 6      # ℓ×ℓ float64 arrays alive while the scores of one draw are reduced


def validate(params: Params, matrices: int = MATRICES_PER_DRAW) -> None:
    """Refuse sizes whose draws (``matrices`` ℓ×ℓ arrays and Q, K, for each draw that runs at
    once on this machine) would not fit in memory, before anything is allocated."""
    for ell in params.sizes:
        require_memory(ell, matrices, params.d_qk(ell), copies=parallel.concurrent_draws())


def draw_bytes(ell: int, d_qk: int, matrices: int) -> int:
    """The bytes of one draw at its peak: ``matrices`` ℓ×ℓ float64 arrays and Q, K."""
    return 8 * (matrices * ell * ell + 2 * ell * d_qk)


def _by_size(fn, tasks: list[tuple], matrices: int = MATRICES_PER_DRAW) -> dict[int, list]:
    """ℓ → [fn(ℓ, d_qk, β, seed, k) for its draws k], each draw a task (``parallel``; as
    many at once as memory holds for ``matrices`` ℓ×ℓ arrays a draw)."""
    out = {ell: [] for ell, *_ in tasks}
    memory = max((draw_bytes(ell, d, matrices) for ell, d, *_ in tasks), default=0)
    results = dict(parallel.measured(fn, tasks, memory))
    for i, (ell, *_) in enumerate(tasks):
        out[ell].append(results.pop(i))
    return out


def _chain_key(params: Params) -> tuple:
    """The run context's key of the chain sweep of ``params``."""
    return ("chain", params.beta, params.y, tuple(params.sizes), params.draws, params.seed,
            tuple(params.d_qk(ell) for ell in params.sizes))


def chain_sweep(params: Params) -> dict[int, list[DrawMeasurement]]:
    """ℓ → the measurements of its draws (cached for the parameters of a run)."""
    validate(params)
    tasks = [(ell, params.d_qk(ell), params.beta, params.seed, k) for ell in params.sizes
             for k in range(params.draws)]
    return current().sweep(_chain_key(params), lambda: _by_size(measure_draw, tasks))


def law_sizes(params: Params) -> tuple[int, ...]:
    """The sizes of the law draws: half the smallest (a cheap lever arm) and the run's sizes."""
    return (params.sizes[0] // 2, *params.sizes)


def law_draws(params: Params, ell: int) -> int:
    """n(ℓ) = min(1024, 3·draws·(ℓ_max/ℓ)^{5/4}) draws at ℓ.

    A draw costs ℓ³ and the spread of its moments is 1/ℓ, so small sizes are cheap
    precision; an extrapolation to ℓ → ∞ leans on both ends, hence more than the
    equal-time rule (ℓ_max/ℓ)² would give the largest size.
    """
    scale = (params.sizes[-1] / ell) ** LAW_POWER
    return min(LAW_DRAWS_MAX, round(LAW_FACTOR * params.draws * scale))


LAW_TEXT = (f"ell/2 of the smallest size and the run's sizes, min({LAW_DRAWS_MAX}, {LAW_FACTOR} "
            f"draws (ell_max/ell)^{LAW_POWER:g}) draws each, the chain draws' scores among them")


def validate_law(params: Params) -> None:
    """Refuse sizes too small for the law's fits (one line naming the smallest accepted)."""
    if params.sizes[0] < LAW_SMALLEST:
        raise ValueError(f"sizes must start at ell >= {LAW_SMALLEST} for the limit law's value "
                         f"checks (got {params.sizes[0]})")
    validate(params)


def _as_law_draw(m: DrawMeasurement) -> LawDraw:
    return LawDraw(m.ell, m.spectra["M0"], m.perron.s1, m.perron.frob2)


def law_sweep(params: Params) -> dict[int, list[LawDraw]]:
    """ℓ → the law draws at that size (``law_sizes``, ``law_draws``), cached for a run.

    At the run's sizes the first ``draws`` are the chain draws' scores (stream ``"chain"``,
    so that the law steps and the chain steps read the same matrices), the rest come from
    stream ``"law"``; at ℓ/2 all do. A law draw on the chain's stream is, bit for bit, what
    the chain draw measures of M0 and A (``measure_law_draw``), so where the run's chain
    sweep is already measured its draws are read, and otherwise only their M0 is measured:
    the law steps never pay for the chain's models, and their numbers do not depend on
    which other steps ran.
    """
    validate_law(params)
    sizes = law_sizes(params)
    d_qk = tuple(params.d_qk(ell) for ell in sizes)
    chained = tuple(params.draws if ell in params.sizes else 0 for ell in sizes)
    counts = tuple(max(0, law_draws(params, ell) - c) for ell, c in zip(sizes, chained))
    chain = current().cached(_chain_key(params))

    def measure() -> dict[int, list[LawDraw]]:
        tasks = [(ell, d, params.beta, params.seed, k, stream)
                 for ell, c, n, d in zip(sizes, chained, counts, d_qk)
                 for stream, count in (("chain", 0 if chain else c), ("law", n))
                 for k in range(count)]
        out = _by_size(measure_law_draw, tasks) if tasks else {}
        return {ell: [_as_law_draw(m) for m in (chain or {}).get(ell, [])] + out.get(ell, [])
                for ell in sizes}

    return current().sweep(("law", params.beta, sizes, chained, counts, params.seed, d_qk),
                           measure)
