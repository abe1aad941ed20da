"""``attnge verify --decide`` on the law steps at a β outside the default sizes' regime, on
correct sampling and on sampling made wrong by a scale (issue 39).

    python benchmarks/decide_law.py --beta 1.5 --budget 20m --json docs/decide/beta-1.5.json
    python benchmarks/decide_law.py --beta 1.5 --budget 20m --scale 1.004 \\
        --json docs/decide/beta-1.5-scaled.json

It runs ``attnge verify --beta B --steps limit-law,not-marchenko-pastur --decide --budget T
--json F`` in this process. With ``--scale s`` every Gaussian sample of the scores is first
multiplied by s (Q and K, so S by s²): wrong mathematics that every symbolic route still
reads right, which the sampled rows must FAIL. The draws run in worker processes forked
from this one, so they sample with the scale too. Run it with nothing else running: the
budget decides how many looks are taken.
"""

from __future__ import annotations

import argparse
import sys

from attnge import cli
from attnge.numerics import law_draws, measure

STEPS = "limit-law,not-marchenko-pastur"


def _scaled(scale: float):
    right = law_draws.sample_scores

    def sample(ell, d_qk, rng, X=None):
        draw = right(ell, d_qk, rng, X)
        return type(draw)(Q=scale * draw.Q, K=scale * draw.K, S=scale**2 * draw.S,
                          width=draw.width)
    return sample


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    p.add_argument("--beta", default="1.5")
    p.add_argument("--budget", default="20m")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply every Gaussian sample of Q and K by this (default 1: none)")
    p.add_argument("--json", required=True)
    args = p.parse_args()
    if args.scale != 1.0:
        sample = _scaled(args.scale)
        law_draws.sample_scores = sample
        measure.sample_scores = sample
    return cli.main(["verify", "--beta", args.beta, "--steps", STEPS, "--decide",
                     "--budget", args.budget, "--json", args.json])


if __name__ == "__main__":
    sys.exit(main())
