"""``attnge threshold``: audit the linearization threshold (a sweep that resumes from DIR)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from attnge.commands.common import (
    cluster,
    cluster_options,
    decide_budget,
    decide_options,
    draws,
)
from attnge.output import figures
from attnge.output.files import check_files, emit, write_atomic
from attnge.output.progress import Progress
from attnge.params import parse_sizes

NAME = "threshold"
HELP = "audit the linearization threshold (a sweep that resumes from DIR)"

PRESETS = {
    "temperature": (
        {"grid": (0.2, 0.35, 0.5, 0.65, 0.8, 1.0, 1.2), "sizes": (250, 500, 1000, 2000),
         "draws": 2},
        {"grid": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.6,
                  1.8, 2.0), "sizes": (500, 1000, 2000, 4000), "draws": 8}),
    "one-entry": (
        {"grid": (0.3, 0.35, 0.4, 0.45, 0.5, 0.55), "sizes": (250, 500, 1000, 2000),
         "draws": 40},
        {"grid": (0.3, 0.35, 0.4, 0.45, 0.5, 0.55), "sizes": (500, 1000, 2000, 4000),
         "draws": 40}),
    "order": (
        {"grid": (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.75, 0.9),
         "sizes": (250, 500, 1000, 2000), "draws": 2},
        {"grid": (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8,
                  0.85, 0.9, 0.95, 1.0), "sizes": (500, 1000, 2000, 4000), "draws": 2}),
}
"""Each mode's (quick, full) grid presets, and the defaults of --beta and --y
(``audit.Sweep``): those of ``attnge.threshold``, repeated so that the parser imports no
SymPy or SciPy (a test keeps them equal)."""
BETA, Y = 0.35, 1.0


def add_arguments(h: argparse.ArgumentParser) -> None:
    h.add_argument("--mode", required=True, help="temperature (beta = c sqrt(log ell)), "
                   "one-entry (the same beta, the one-entry terms of the moments only) or "
                   "order (d_qk = ell^alpha)")
    h.add_argument("--full", action="store_true", help="the full grids (slow) instead of "
                   "the quick ones")

    def shown(value) -> str:
        return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)

    def defaults(name: str) -> str:
        return "; ".join(f"{mode}: {shown(quick[name])} (--full {shown(full[name])})"
                         for mode, (quick, full) in PRESETS.items())
    h.add_argument("--grid", default=None, help="comma-separated c (temperature, one-entry) "
                   f"or alpha (order) values, increasing (default {defaults('grid')})")
    h.add_argument("--sizes", default=None, help="comma-separated ell, increasing (default "
                   f"{defaults('sizes')})")
    h.add_argument("--draws", default=None, help="draws per (value, ell) (default "
                   f"{defaults('draws')})")
    h.add_argument("--seed", default=0, help="seed >= 0 (default %(default)s)")
    h.add_argument("--beta", default=None, help="beta, order mode only (default "
                   f"{BETA:g}; the temperature mode sets beta = c sqrt(log ell))")
    h.add_argument("--y", default=None, help="ell/d_qk, temperature and one-entry modes (default "
                   f"{Y:g}; the order mode sets d_qk = ell^alpha)")
    h.add_argument("--out", default=None, metavar="DIR", help="keep the sweep in "
                   "DIR/threshold-MODE.jsonl (a rerun resumes it) and write the table "
                   "(.md) and the figure (.png) there")
    decide_options(h, "measured or stored in --out", 6)
    cluster_options(h)


def run(args: argparse.Namespace) -> int:
    from attnge.coefficient_tables import parse_list
    from attnge.output.report import markdown_table
    from attnge.threshold import audit
    from attnge.threshold.modes import MODES, mode_named

    mode = mode_named(args.mode)
    budget = decide_budget(args)
    config = dict(mode.full if args.full else mode.quick)
    if args.grid is not None:
        config["grid"] = tuple(float(v) for v in parse_list(args.grid, "grid"))
    if args.sizes is not None:
        config["sizes"] = parse_sizes(args.sizes)
    if args.draws is not None:
        config["draws"] = args.draws
    for option in ("beta", "y"):
        if getattr(args, option) is not None:
            if mode.fixed != option:
                users = " and ".join(m.name for m in MODES.values() if m.fixed == option)
                raise ValueError(f"{option} applies to --mode {users} only (got --{option} "
                                 f"{getattr(args, option)} with --mode {mode.name})")
            config[option] = getattr(args, option)
    sweep = audit.Sweep(mode, seed=args.seed, **config)
    if args.out is not None:
        check_files(args.out, [audit.store_path(args.out, mode).name,
                               audit.rejected_path(audit.store_path(args.out, mode)).name,
                               audit.provenance_path(args.out, mode).name,
                               f"threshold-{mode.name}.md", f"threshold-{mode.name}.png"],
                    "out")
        figures.require("out")
    start = time.perf_counter()
    stored, run_id = 0, None
    if args.out is not None:
        stored = audit.stored(sweep, args.out)
        run_id = audit.begin_run(sweep, args.out, stored, workers=args.workers,
                                 scheduler=args.scheduler)
    with cluster(args, sweep.validate_memory):
        progress = draws(Progress("threshold", args.quiet))
        warn = lambda text: sys.stderr.write(f"attnge: warning: {text}\n")  # noqa: E731
        looks = ""
        if budget is None:
            done = audit.run(sweep, args.out, progress, warn=warn)
            found = audit.quantities(sweep, done)
            tabs = audit.tables(sweep, found)
        else:
            sweep, found, tabs, record, stopped = audit.decide(sweep, args.out, budget,
                                                               progress, warn)
            looks = ("\n--decide: " + "; ".join(
                f"{look['draws']} draws per point {look['verdict']} ({look['seconds']:.0f} s)"
                for look in record["looks"]) + ", each look at the per-look z "
                "(docs/math.md section 6)" + (f"; {stopped}" if stopped else "") + "\n")
        text = "\n\n".join(markdown_table(t) for t in tabs) + \
            f"\n\nattnge threshold --mode {mode.name}: {audit.counts(tabs)}\n" + looks
        if args.out is not None:
            out = Path(args.out)
            write_atomic(out / f"threshold-{mode.name}.md", text)
            audit.plot(sweep, found, out / f"threshold-{mode.name}.png")
            audit.write_provenance(sweep, out, time.perf_counter() - start, stored, tabs,
                                   run_id, workers=args.workers, scheduler=args.scheduler)
            sys.stderr.write(f"sweep: {audit.store_path(out, mode)}\n"
                             f"figure: {out / f'threshold-{mode.name}.png'}\n")
    emit(text)
    return 0 if all(t.passed for t in tabs) else 1
