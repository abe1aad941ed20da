"""The draws of the multi-head steps: h heads of n = ℓ // h tokens, so that [A_1, …, A_h] has
as many columns as the single head's A at ℓ.

``multi-head-law`` reads the attention draws (stream ``"law-hH"``: √(n/h)A⊥ only, taken by the
hundred at small n; with one head they are the single head's law draws themselves, so h = 1
gives the limit-law step's numbers) and the multi-query draws (one key for all heads);
``mha-output`` reads the layer's draws for each way of sharing (stream ``"mha"``: the softmax
layer and its Gaussian model on the same weights), with d_K = d_V = round(n/y) and
d_O = h d_V (the model width of a transformer whose heads split it).
"""

from __future__ import annotations

from attnge import ledger_draws, parallel
from attnge.context import current
from attnge.numerics.measure import require_memory
from attnge.numerics.multi_head import (
    Shape,
    measure_heads_draw,
    measure_output_draw,
    require_output_memory,
)
from attnge.params import Params

HEADS_SMALLEST = 50         # the smallest n (its fits hold from n/2 = 25)
LAW_DRAWS_MAX = 512
LAW_FACTOR, LAW_POWER = 1, 1.25
HEADS_MATRICES = 4          # n×n arrays alive in one attention draw (S, A, the Gram, eigh's)
OUTPUT_SHARING = ("none", "mqa", "kv")


def head_sizes(params: Params) -> tuple[int, ...]:
    """n = ℓ // h for the run's sizes ℓ."""
    return tuple(ell // params.heads for ell in params.sizes)


def law_sizes(params: Params) -> tuple[int, ...]:
    """The sizes of the attention draws: half the smallest n and every n."""
    sizes = head_sizes(params)
    return (sizes[0] // 2, *sizes)


def law_draws(params: Params, n: int) -> int:
    """min(512, draws·(n_max/n)^{5/4}) attention draws at n (a third of the single head's
    rule: a draw of h heads costs h score products)."""
    scale = (head_sizes(params)[-1] / n) ** LAW_POWER
    return min(LAW_DRAWS_MAX, round(LAW_FACTOR * params.draws * scale))


LAW_TEXT = (f"n = ell // h for the run's sizes and half the smallest, min({LAW_DRAWS_MAX}, "
            f"{LAW_FACTOR} draws (n_max/n)^{LAW_POWER:g}) draws each (one head: the law "
            "draws of limit-law)")


def small_sizes(params: Params) -> tuple[int, ...]:
    """The three smallest n: the sizes of the layer's draws (a layer's draw, two models of h
    heads each and their n × d_O products, costs several attention draws)."""
    return head_sizes(params)[:3]


OUTPUT_TEXT = ("the three smallest n = ell // h, draws per n; d_K = d_V = round(n/y), d_O = "
               "h d_V")


def output_shape(params: Params, n: int, sharing: str) -> Shape:
    """The layer of the ledger at n: d_K = d_V = round(n/y), d_O = h d_V, one key-value group
    for multi-query."""
    d = params.d_qk(n)
    return Shape(n=n, heads=params.heads, d_k=d, d_v=d, d_o=params.heads * d,
                 kv_heads=1 if sharing == "mqa" else None, sharing=sharing)


def sharings(params: Params) -> tuple[str, ...]:
    """The ways of sharing the ledger measures (multi-query needs two heads or more)."""
    return tuple(s for s in OUTPUT_SHARING if s != "mqa" or params.heads > 1)


def validate(params: Params) -> None:
    """Refuse sizes too small for the fits, and draws that would not fit in memory."""
    sizes = head_sizes(params)
    if any(b <= a for a, b in zip(sizes, sizes[1:])):
        raise ValueError(f"sizes must stay strictly increasing after n = ell // {params.heads} "
                         f"(got n = {list(sizes)})")
    if sizes[0] < HEADS_SMALLEST:
        raise ValueError(f"sizes must start at ell >= {HEADS_SMALLEST * params.heads} for "
                         f"{params.heads} heads of n = ell // h >= {HEADS_SMALLEST} tokens "
                         f"(got {params.sizes[0]})")
    copies = parallel.concurrent_draws()
    for n in sizes:
        require_memory(n, HEADS_MATRICES, params.d_qk(n), name="sizes", copies=copies)
    for n in small_sizes(params):
        for sharing in sharings(params):
            require_output_memory(output_shape(params, n, sharing), copies,
                                  values=sharing == "kv", name="sizes")


def validate_law(params: Params) -> None:
    validate(params)
    if params.heads == 1:
        ledger_draws.validate_law(params)


def _attention(beta: float, sizes: tuple[int, ...], counts: tuple[int, ...], seed: int,
               d_k: tuple[int, ...], heads: int, shared_key: bool) -> dict[int, list]:
    """The draws of h heads, measured once per run context."""
    stream = f"law-h{heads}" + ("-mqa" if shared_key else "")   # none shared with limit-law
    tasks = [(n, d, beta, seed, k, heads, shared_key, stream)
             for n, c, d in zip(sizes, counts, d_k) for k in range(c)]
    return current().sweep(("heads", beta, sizes, counts, seed, d_k, heads, shared_key),
                           lambda: ledger_draws._by_size(measure_heads_draw, tasks, HEADS_MATRICES))


def law_sweep(params: Params) -> dict[int, list]:
    """n → the attention draws of h independent heads (``law_sizes``, ``law_draws``); with one
    head, the single head's law draws (``ledger_draws.law_sweep``)."""
    validate_law(params)
    if params.heads == 1:
        return ledger_draws.law_sweep(params)
    sizes = law_sizes(params)
    return _attention(params.beta, sizes, tuple(law_draws(params, n) for n in sizes),
                      params.seed, tuple(params.d_qk(n) for n in sizes), params.heads, False)


def mqa_sweep(params: Params) -> dict[int, list]:
    """n → ``draws`` attention draws of h heads sharing one key (stream ``"law-hH-mqa"``), at
    half the smallest n and the three smallest n (four sizes: two finite-size terms)."""
    validate(params)
    sizes = law_sizes(params)[:4]
    return _attention(params.beta, sizes, (params.draws,) * len(sizes), params.seed,
                      tuple(params.d_qk(n) for n in sizes), params.heads, True)


def _outputs(params: Params) -> dict[str, dict[int, list]]:
    """The layer's draws, measured once per run context."""
    return current().sweep(("outputs", params), lambda: _measure_outputs(params))


def _measure_outputs(params: Params) -> dict[str, dict[int, list]]:
    sizes = small_sizes(params)
    tasks = [(output_shape(params, n, sharing), params.beta, params.seed, k, sharing,
              sharing == "kv")
             for sharing in sharings(params) for n in sizes for k in range(params.draws)]
    done = dict(parallel.measured(_measure_output, tasks))
    out: dict[str, dict[int, list]] = {s: {n: [] for n in sizes} for s in sharings(params)}
    for i, (shape, *_rest) in enumerate(tasks):
        out[shape.sharing][shape.n].append(done.pop(i))
    return out


def _measure_output(shape: Shape, beta: float, seed: int, draw: int, stream: str,
                    values: bool):
    return measure_output_draw(shape, beta, seed, draw, f"mha-{stream}", values)


def output_sweep(params: Params) -> dict[str, dict[int, list]]:
    """sharing → n → the layer's draws (``draws`` at each of the three smallest n), cached
    for a run."""
    validate(params)
    return _outputs(params)
