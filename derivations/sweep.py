"""The shared sweep of chain draws: every size and draw measured once per run.

The chain, limit-law, Perron and outlier steps all read the same draws (stream
``"chain"`` of the run's seed), so a run samples each (ℓ, draw) once.
"""

from __future__ import annotations

from functools import lru_cache

from derivations.params import Params
from numerics.measure import DrawMeasurement, measure_draw, require_memory


def validate(params: Params) -> None:
    """Refuse sizes whose draws would not fit in memory, before anything is allocated."""
    for ell in params.sizes:
        require_memory(ell)


@lru_cache(maxsize=2)
def _sweep(beta: float, y: float, sizes: tuple[int, ...], draws: int, seed: int,
           d_qk: tuple[int, ...]) -> dict[int, list[DrawMeasurement]]:
    return {ell: [measure_draw(ell, d, beta, seed, k) for k in range(draws)]
            for ell, d in zip(sizes, d_qk)}


def chain_sweep(params: Params) -> dict[int, list[DrawMeasurement]]:
    """ℓ → the measurements of its draws (cached for the parameters of a run)."""
    validate(params)
    return _sweep(params.beta, params.y, tuple(params.sizes), params.draws, params.seed,
                  tuple(params.d_qk(ell) for ell in params.sizes))
