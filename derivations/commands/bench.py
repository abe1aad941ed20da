"""``attnge bench``: one chain draw timed three ways (pipeline, naive, floor)."""

from __future__ import annotations

import argparse
import json
import time

from attnge.commands.common import computing
from attnge.output.files import check_output, emit, write_atomic
from attnge.output.progress import Progress
from attnge.params import parse_sizes
from attnge.theory.inputs import integer

NAME = "bench"
HELP = "time one chain draw against the naive path and the floor"


def add_arguments(b: argparse.ArgumentParser) -> None:
    b.add_argument("--ell", action="append", default=None, metavar="L", help="sizes ell = d_qk "
                   "(repeatable or a comma list; default 1000,2000)")
    b.add_argument("--draws", default=2, help="draws per size; times are medians (default "
                   "%(default)s)")
    b.add_argument("--seed", default=0, help="seed >= 0 (default %(default)s)")
    b.add_argument("--moments", action="append", default=None, metavar="L", help="also time "
                   "one draw of m_1..m_4 of sqrt(ell) A_perp and Y^lin_f from Gram traces at "
                   "ell = d_qk = L (repeatable or a comma list), e.g. 16384")
    b.add_argument("--json", default=None, metavar="FILE", help="write the rows and the "
                   "provenance as JSON")


def run(args: argparse.Namespace) -> int:
    from attnge import bench
    from attnge.provenance import provenance

    sizes = [ell for text in (args.ell or ["1000,2000"]) for ell in parse_sizes(text, "ell")]
    moments = [ell for text in (args.moments or []) for ell in parse_sizes(text, "moments")]
    seed = integer(args.seed, "seed", 0)
    if args.json is not None:
        check_output(args.json, "json")
    bench.validate(sizes, args.draws, moments)
    start = time.perf_counter()
    progress = Progress("bench", args.quiet)
    with computing():
        rows = bench.bench(sizes, args.draws, seed, progress)
        traced = bench.moments_only(moments, seed, progress)
    if args.json is not None:
        parameters = {"ell": sizes, "draws": rows[0].draws, "seed": seed, "beta": bench.BETA,
                      "moments": moments}
        write_atomic(args.json, json.dumps(
            {"rows": [r.as_dict() for r in rows], "moments": traced,
             "provenance": provenance(parameters, time.perf_counter() - start)},
            indent=2) + "\n")
    emit(bench.markdown(rows) + ("\n" + bench.moments_markdown(traced) if traced else ""))
    return 0
