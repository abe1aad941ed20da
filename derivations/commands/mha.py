"""``attnge mha``: a softmax attention layer against its Gaussian model on the same weights,
at a real architecture's shape."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from attnge import judging, run_config
from attnge.commands.common import (
    cluster,
    cluster_options,
    decide_budget,
    decide_options,
    draws,
)
from attnge.commands.spectrum import figure_path
from attnge.output import figures
from attnge.output.files import check_files, check_output, emit, write_atomic
from attnge.output.progress import Progress

NAME = "mha"
HELP = "a softmax attention layer against its Gaussian model on the same weights, at a real " \
    "architecture's shape"

PRESETS = ("bert-base", "modernbert-large", "dinov3-l16", "llada-8b", "gpt3-175b", "falcon-7b",
           "kv-tied-2048", "gpt2", "llama2-7b", "llama2-13b", "llama2-70b", "vit-b16", "t5-base")
"""The names of ``attnge.mha.PRESETS``, repeated so that the parser imports no SciPy (a test
keeps them equal)."""


def add_arguments(m: argparse.ArgumentParser) -> None:
    m.add_argument("--preset", default=None, help="a public configuration: "
                   f"{', '.join(PRESETS)}, or all (with --report) (explicit options below "
                   "override it)")
    m.add_argument("--n", default=None, help="tokens (context length)")
    m.add_argument("--d", default=None, help="model width d")
    m.add_argument("--heads", default=None, help="heads h")
    m.add_argument("--kv-heads", default=None, help="key-value heads (default: heads; 1 with "
                   "--sharing mqa)")
    m.add_argument("--dk", default=None, help="key width d_K per head")
    m.add_argument("--dv", default=None, help="value width d_V per head (default d_K)")
    m.add_argument("--dout", default=None, help="output width d_O (default d)")
    m.add_argument("--sharing", default=None, help="none, mqa (keys and values shared by "
                   "groups of heads) or kv (V = K) (default none, mqa when kv heads < heads)")
    m.add_argument("--beta", default="init", help="inverse temperature beta, or init: the "
                   "preset's beta at initialisation from its published init (docs/math.md "
                   "section 15; 1 without a preset) (default init)")
    m.add_argument("--inputs", default=None, choices=("orthonormal", "gaussian"),
                   help="the layer's inputs: rows orthonormal (the theorem's; n <= d) or "
                   "N(0, I_d/d) (any n) (default: orthonormal where n <= d, else gaussian)")
    m.add_argument("--draws", default=10, help="draws >= 2 per size (default 10; the verdict "
                   "measures the layer at n/4 and n/2 too)")
    m.add_argument("--seed", default=0, help="seed >= 0 (default 0)")
    decide_options(m, "measured", 16, " per layer")
    m.add_argument("--json", default=None, metavar="FILE", help="write the summary and the "
                   "provenance as JSON")
    m.add_argument("--out", default=None, metavar="FIG.png", help="histograms of both spectra "
                   "with the output law's density; the numbers go to FIG.csv beside it")
    m.add_argument("--report", default=None, metavar="DIR", help="write NAME.json, NAME.png "
                   "and NAME.csv per preset and README.md (the table) to DIR; a rerun reuses "
                   "the presets already done with the same parameters")
    cluster_options(m)


def run(args: argparse.Namespace) -> int:
    from attnge import mha
    from attnge.provenance import provenance

    presets = mha.names(args.preset)
    if args.preset == mha.ALL and args.report is None:
        raise ValueError("preset all needs --report DIR (the folder of every preset)")
    if args.report is not None and (args.out is not None or args.json is not None):
        raise ValueError("report writes the figure and the JSON of each preset: give --report "
                         "or --out/--json, not both")
    if args.report is not None and presets == [None]:
        raise ValueError("report needs --preset (a name, or all): the files are named by it")
    shapes = [mha.layer_shape(name, args.n, args.d, args.heads, args.kv_heads, args.dk,
                              args.dv, args.dout, args.sharing) for name in presets]
    betas = [mha.initial_beta(name, args.beta) for name in presets]
    seed = run_config.seed(args.seed)
    n_draws = run_config.VARIANTS.draws(args.draws)
    budget = decide_budget(args)
    out = None
    if args.json is not None:
        check_output(args.json, "json")
    if args.out is not None:
        out = figure_path(args.out)
    if args.report is not None:
        check_files(args.report, ["README.md", *(f"{name}.{ext}" for name in presets
                                                 for ext in ("json", "png", "csv"))],
                    "report")
    if out is not None or args.report is not None:
        figures.require("out" if out is not None else "report")
    inputs = [mha.layer_inputs(shape, d, args.inputs) for shape, d in shapes]
    for shape, d in shapes:
        mha.ladder(shape, d)
        mha.validate(shape, n_draws)
    found, broke = {}, False
    with cluster(args, lambda: [mha.validate(shape, n_draws) for shape, _ in shapes]):
        for name, (shape, d), beta, kind in zip(presets, shapes, betas, inputs):
            parameters = {"preset": name, "shape": [shape.n, d, shape.heads, shape.kv_heads,
                                                    shape.d_k, shape.d_v, shape.d_o,
                                                    shape.sharing],
                          "inputs": kind, "beta": float(beta), "draws": n_draws, "seed": seed,
                          **({} if budget is None else {"budget_s": budget})}
            if args.report is not None:
                folder = Path(args.report)
                kept = mha.stored(folder / f"{name}.json", parameters)
                if kept is not None:
                    sys.stderr.write(f"attnge: mha {name}: reused {folder / name}.json\n")
                    found[name] = kept
                    broke = broke or kept["verdict"] == judging.BREAKS
                    continue
                out = folder / f"{name}.png"
            start = time.perf_counter()
            result = mha.run(shape, d, beta, n_draws, seed,
                             draws(Progress(f"mha {name or ''}".strip(), args.quiet)), kind,
                             budget)
            broke = broke or result.verdict == judging.BREAKS
            summary = {**result.summary(), "parameters": parameters}
            if out is not None:
                write_atomic(out.with_suffix(".csv"), mha.plot(result, out, name))
                sys.stderr.write(f"figure: {out}\nnumbers: {out.with_suffix('.csv')}\n")
            target = args.json if args.report is None else Path(args.report) / f"{name}.json"
            if target is not None:
                summary["provenance"] = provenance(
                    {**parameters, "workers": args.workers, "scheduler": args.scheduler},
                    time.perf_counter() - start)
                write_atomic(target, json.dumps(summary, indent=2) + "\n")
            emit(mha.markdown(result, name))          # after its files
            found[name] = summary
        if args.report is not None:
            command = "attnge " + shlex.join(args.argv)    # exactly this run
            write_atomic(Path(args.report) / "README.md", mha.folder_markdown(found, command))
    return 1 if broke else 0
