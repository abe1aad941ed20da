"""``attnge spectrum``: the paper's Figure 1, the spectra of the chain of models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from attnge.commands.common import computing, draws
from attnge.output import figures
from attnge.output.files import check_output, write_atomic
from attnge.output.progress import Progress
from attnge.theory.inputs import integer

NAME = "spectrum"
HELP = "the paper's Figure 1: spectra of the chain of models"


def add_arguments(f: argparse.ArgumentParser) -> None:
    f.add_argument("--beta", default=1.0, help="beta > 0 (default 1)")
    f.add_argument("--ell", default=1000, help="tokens ell >= 2 (default 1000)")
    f.add_argument("--dqk", default=1000, help="d_qk >= 1 (default 1000)")
    f.add_argument("--draws", default=10, help="draws >= 1 (default 10)")
    f.add_argument("--seed", default=0, help="seed >= 0 (default 0)")
    f.add_argument("--remove-top", default=3, metavar="R", help="top values removed per draw "
                   "from the histograms (default 3)")
    f.add_argument("--out", default="spectrum.png", metavar="FIG.png", help="the figure; the "
                   "numbers go to FIG.csv beside it (default %(default)s)")


def figure_path(text: str, name: str = "out") -> Path:
    """A .png path and its .csv beside it, both writable (ValueError naming ``name``)."""
    out = Path(text)
    if out.is_dir() or out.suffix.lower() != ".png":
        raise ValueError(f"{name} must be a .png file path (got {text!r})")
    check_output(out, name)
    check_output(out.with_suffix(".csv"), f"{name} (its .csv)")
    return out


def run(args: argparse.Namespace) -> int:
    from attnge import spectrum
    from attnge.theory.symbols import positive_beta

    beta = positive_beta(args.beta)
    n_draws, seed = integer(args.draws, "draws", 1), integer(args.seed, "seed", 0)
    ell = integer(args.ell, "ell", 2)
    dqk = integer(args.dqk, "dqk", 1)
    remove_top = integer(args.remove_top, "remove_top", 0)
    out = figure_path(args.out)
    figures.require("out")
    spectrum.validate(ell, dqk, n_draws, remove_top)
    with computing():
        data = spectrum.sample(float(beta), ell, dqk, n_draws, seed, remove_top,
                               progress=draws(Progress("spectrum", args.quiet)))
        spectrum.plot(data, out)
        write_atomic(out.with_suffix(".csv"), spectrum.to_csv(data))
    sys.stderr.write(f"figure: {out}\nnumbers: {out.with_suffix('.csv')}\n")
    return 0
