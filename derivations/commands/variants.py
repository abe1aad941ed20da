"""``attnge variants``: is the linear Gaussian model still right for this attention layer?

One variant (``--kernel``, ``--weights``, ``--inputs``, ``--mask`` and their parameters) is
sampled at increasing ℓ and judged (``derivations.variants``); ``--map`` runs the grid of
``derivations.variant_map`` and writes its report. Exit code 1 when a prediction of the
theory (a theorem or a derivation) is rejected by the samples; a variant without one, or a
conjecture, breaking Gaussian equivalence is a finding, not a failure.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from attnge.commands.common import (
    cluster,
    cluster_options,
    decide_budget,
    decide_options,
    draws,
)
from attnge.output.files import check_files, check_output, emit, is_stream
from attnge.output.progress import Progress
from attnge.params import parse_sizes
from attnge.theory.inputs import integer

if TYPE_CHECKING:                  # imported where used: the parser and its help stay light
    from attnge.theory.variants import Variant

NAME = "variants"
HELP = "judge Gaussian equivalence for an attention variant (kernel, weights, inputs, mask)"

NAMES = {
    "kernel": ("softmax", "relu", "sigmoid", "square", "softmax1", "qk-norm", "sigmoid-log"),
    "weights": ("gaussian", "uniform", "rademacher", "truncated-normal"),
    "inputs": ("orthonormal", "gaussian", "shared-mean", "repeated"),
    "mask": ("none", "causal"),
}
"""The names the help lists (``theory.kernels.KERNELS``, ``theory.weight_laws.LAWS``,
``theory.input_models.MODELS``, ``theory.masks.MASKS``) and the defaults of ``variants.Run``,
repeated so that the parser imports no SymPy (a test keeps them equal)."""
SIZES, DRAWS = (400, 800, 1600), 8


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel", default="softmax", help=f"{'|'.join(NAMES['kernel'])} or an "
                   "expression in x, row-normalised (default %(default)s)")
    p.add_argument("--bias", default=None, help="the sigmoid's fixed bias b: sigmoid(beta S + "
                   "b)/ell (--kernel sigmoid; default 0)")
    p.add_argument("--normaliser", default="row", help="an expression kernel's normaliser: "
                   "row (its row sums, as softmax) or ell (a fixed 1/ell, as ReLU) (default "
                   "%(default)s)")
    p.add_argument("--weights", default="gaussian", help=f"{'|'.join(NAMES['weights'])}, each "
                   "of unit variance (default %(default)s)")
    p.add_argument("--inputs", default="orthonormal", help=f"{'|'.join(NAMES['inputs'])} "
                   "(default %(default)s)")
    p.add_argument("--gamma", default=None, help="ell/d of the inputs: gaussian (needed), or "
                   "orthonormal Haar rows of width ell/gamma (default: Q, K sampled directly)")
    p.add_argument("--d", default=None, help="the inputs' width d at the largest ell, the "
                   "smaller sizes keeping ell/d (gaussian or orthonormal inputs): the same as "
                   "--gamma ell_max/d, since the limit holds ell/d fixed")
    p.add_argument("--alpha", default=None, help="shared-mean inputs: the share of each "
                   "token's squared norm along the common direction, in (0, 1)")
    p.add_argument("--repeats", default=None, help="repeated inputs: each of ell/r distinct "
                   "tokens used r times (an integer)")
    p.add_argument("--mask", default="none", help=f"{'|'.join(NAMES['mask'])} "
                   "(default %(default)s)")
    p.add_argument("--beta", default="1", help="inverse temperature (default %(default)s)")
    p.add_argument("--y", default="1", help="ell/d_qk (default %(default)s)")
    p.add_argument("--sizes", default=None, help="comma-separated ell, increasing, at least 3 "
                   f"(default {','.join(map(str, SIZES))})")
    p.add_argument("--draws", default=None, help=f"draws per size (default {DRAWS})")
    p.add_argument("--seed", default=0, help="seed >= 0 (default %(default)s)")
    decide_options(p, "measured or stored", 14)
    p.add_argument("--json", default=None, metavar="FILE", help="write every number (- for "
                   "standard output)")
    p.add_argument("--out", default=None, metavar="DIR", help="keep the draws in "
                   "DIR/variants.jsonl (a rerun resumes)")
    p.add_argument("--map", action="store_true", help="run the grid of variants x (beta, y) "
                   "instead of one variant (its store and report: --report)")
    p.add_argument("-v", "--verbose", action="store_true", help="print the predicted and "
                   "measured values per size")
    p.add_argument("--report", default=None, metavar="DIR", help="with --map: the README table, "
                   "variants.json, one figure per variant and the store, in DIR")
    cluster_options(p)


def _gamma(args: argparse.Namespace) -> object:
    """--gamma, or --d's width at the largest size as γ = ℓ_max/d."""
    from attnge import variants as va

    if args.d is None:
        return args.gamma
    if args.gamma is not None:
        raise ValueError("d and gamma are two ways to give ell/d: give one")
    width = integer(args.d, "d", 1)
    largest = max(va.Run.sizes if args.sizes is None else parse_sizes(args.sizes))
    if width < largest:
        raise ValueError(f"d must be at least the largest size {largest} (ell/d in (0, 1]; "
                         f"got --d {args.d})")
    return largest / width


def _variant(args: argparse.Namespace) -> Variant:
    from attnge.theory import input_models
    from attnge.theory.variants import Variant

    values = {"gamma": _gamma(args), "alpha": args.alpha, "repeats": args.repeats}
    wanted = input_models.model_named(args.inputs).parameter
    for name, value in values.items():
        if value is not None and name != wanted and not (name == "gamma" and
                                                         args.inputs == "orthonormal"):
            users = [m.name for m in input_models.MODELS.values() if m.parameter == name]
            given = "d" if name == "gamma" and args.d is not None else name
            raise ValueError(f"{given} applies to --inputs {' and '.join(users)} only (got "
                             f"--{given} {getattr(args, given)} with --inputs {args.inputs})")
    value = values.get(wanted or "gamma")
    return Variant(args.kernel, args.weights, args.inputs, value, args.mask, args.bias,
                   args.normaliser)


def run(args: argparse.Namespace) -> int:
    from attnge import variants as va
    from attnge.provenance import provenance

    budget = decide_budget(args)
    if args.map:
        return _run_map(args, budget)
    if args.report is not None:
        raise ValueError("report applies with --map only (one variant: --json, --out)")
    variant = _variant(args)
    config = {"beta": args.beta, "y": args.y, "seed": args.seed}
    if args.sizes is not None:
        config["sizes"] = parse_sizes(args.sizes)
    if args.draws is not None:
        config["draws"] = args.draws
    job = va.Run(variant, **config)
    if args.json is not None:
        check_output(args.json, "json", stream=True)
    if args.out is not None:
        check_files(args.out, [va.store_path(args.out).name], "out")
    start = time.perf_counter()
    with cluster(args, job.validate_memory):
        progress = draws(Progress("variants", args.quiet))
        warn = lambda text: sys.stderr.write(f"attnge: warning: {text}\n")  # noqa: E731
        if args.decide:
            judgement = va.decide(job, args.out, budget, progress, warn)
        else:
            judgement = va.judge(job, va.collect([job], args.out, progress, warn))
        if args.json is not None:
            va.write_json([judgement], args.json, provenance(
                {"argv": "attnge " + shlex.join(args.argv)}, time.perf_counter() - start))
    emit(va.text(judgement, verbose=args.verbose),
         sys.stderr if args.json is not None and is_stream(args.json) else None)
    return 1 if judgement.failed else 0


def _run_map(args: argparse.Namespace, budget: float | None) -> int:
    from attnge import variant_map
    from attnge import variants as va

    fixed = [name for name in ("bias", "gamma", "d", "alpha", "repeats", "json", "out")
             if getattr(args, name) is not None]
    if fixed:
        raise ValueError(f"{fixed[0]} does not apply with --map (the grid fixes every variant; "
                         "its files go to --report)")
    if args.report is None:
        raise ValueError("report is needed with --map (the folder of its files)")
    grid = variant_map.grid(sizes=None if args.sizes is None else parse_sizes(args.sizes),
                            draws=args.draws, seed=args.seed)
    check_files(args.report, variant_map.file_names(grid), "report")
    variant_map.require_figures()
    start = time.perf_counter()
    out = Path(args.report)
    with cluster(args, lambda: grid[0].validate_memory()):
        progress = draws(Progress("variants --map", args.quiet))
        warn = lambda text: sys.stderr.write(f"attnge: warning: {text}\n")  # noqa: E731
        done = va.collect(grid, out, progress, warn=warn)
        judgements = variant_map.judge(grid, done, out, budget, progress, warn)
        variant_map.write(judgements, out, "attnge " + shlex.join(args.argv),
                          time.perf_counter() - start, budget)
    emit(variant_map.summary(judgements))
    return 1 if any(j.failed for j in judgements) else 0
