"""``attnge verify``: run proof steps and print their evidence."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from attnge.commands.common import cluster, cluster_options, decide_budget, decide_options
from attnge.output import figures
from attnge.output.files import check_files, check_output, emit, is_stream
from attnge.output.progress import Progress
from attnge.params import DEFAULT_SIZES, Params, parse_sizes

if TYPE_CHECKING:                  # imported in run: the parser and its help stay light
    from attnge import runner

NAME = "verify"
HELP = "run proof steps and print their evidence"


def add_arguments(v: argparse.ArgumentParser) -> None:
    v.add_argument("--steps", default=None, help="comma-separated step ids (default: the "
                   "theorem's steps; the variants' steps need --steps or --all)")
    v.add_argument("--all", action="store_true", help="every step of the ledger, the attention "
                   "variants' too")
    v.add_argument("--beta", default=1.0, help="inverse temperature beta > 0 (default 1)")
    v.add_argument("--y", default=1.0, help="ratio y = ell/d_qk > 0 (default 1)")
    v.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)),
                   help="increasing token counts ell, comma-separated (default %(default)s)")
    v.add_argument("--draws", default=Params.draws, help="draws per size >= 1 "
                   "(default %(default)s)")
    v.add_argument("--seed", default=Params.seed, help="seed >= 0 (default %(default)s)")
    v.add_argument("--remove-top", default=Params.remove_top, metavar="R",
                   help="squared singular values removed from the bulk (default %(default)s)")
    v.add_argument("--heads", default=Params.heads, metavar="H", help="heads h of the "
                   "multi-head steps, which run at n = ell // h tokens (default %(default)s)")
    v.add_argument("-v", "--verbose", action="store_true", help="print every step's claim, "
                   "derivations and tables (the default: one line per step, the failing "
                   "checks in full, the summary)")
    v.add_argument("--json", default=None, metavar="FILE", help="write every number and "
                   "the provenance as JSON (- for standard output; the steps' lines then go "
                   "to stderr)")
    v.add_argument("--report", default=None, metavar="DIR", help="write report.md (with a "
                   "log-log figure per step) and report.json to DIR (needs the plot extra)")
    decide_options(v, "measured, or stored in --store", 17, " in all")
    v.add_argument("--store", default=None, metavar="DIR", help="with --decide: keep every "
                   "draw in DIR as it is measured, so that a rerun on DIR resumes")
    cluster_options(v)


def run(args: argparse.Namespace) -> int:
    from attnge import ledger, runner
    from attnge.output import terminal
    from attnge.regimes import out_of_reach

    params = Params(beta=args.beta, y=args.y, sizes=parse_sizes(args.sizes),
                    draws=args.draws, seed=args.seed, remove_top=args.remove_top,
                    heads=args.heads)
    if args.all and args.steps is not None:
        raise ValueError("all and steps exclude each other (--all runs every step)")
    steps = ledger.select(args.steps, every=args.all)
    budget = decide_budget(args)
    if args.store is not None:
        if budget is None:
            raise ValueError("store applies with --decide only")
        check_output(args.store, "store", folder=True)
    if args.json is not None:
        check_output(args.json, "json", stream=True)
    if args.report is not None:
        check_files(args.report, ["report.md", "report.json",
                                  *(f"{step.id}.png" for step in steps)], "report")
        figures.require("report")
    runner.validate(steps, params)
    reach = out_of_reach(params.beta, params.y, params.sizes,
                         chain=any("chain" in step.reads(params) for step in steps))
    if reach and not args.quiet:
        sys.stderr.write(f"attnge: {reach}\n")
    stream = sys.stderr if args.json is not None and is_stream(args.json) else None
    width = terminal.id_width(steps)
    try:
        with cluster(args, lambda: runner.validate(steps, params)):
            if budget is None:
                done = runner.run(steps, params, progress=Progress("verify", args.quiet),
                                  finished=lambda r: emit(terminal.step_line(r, width) + "\n",
                                                          stream))
            else:
                done = runner.decide(
                    steps, params, budget, progress=Progress("verify", args.quiet),
                    finished=lambda r, n: emit(f"{terminal.step_line(r, width)}  "
                                               f"({n} draws)\n", stream),
                    store=args.store)
            _write(done, args)
    except BaseException as err:
        partial = getattr(err, "partial_run", None)
        if partial is None or isinstance(err, Exception):
            raise
        _write(partial, args)          # the finished steps, marked incomplete
        emit(terminal.closing(partial, args.verbose), stream)
        raise
    emit(terminal.closing(done, args.verbose), stream)
    if done.decided is not None:
        emit(terminal.decided(done.decided), stream)
    sys.stderr.write(f"wall time {done.wall_s:.1f} s\n")
    return 0 if done.passed else 1


def _write(done: runner.Run, args: argparse.Namespace) -> None:
    """The result files (before anything else is printed: a broken stdout loses nothing)."""
    from attnge.output import report

    if args.json is not None:
        report.write_json(done, args.json)
    if args.report is not None:
        sys.stderr.write(f"report: {report.write_report(done, args.report)}\n")
