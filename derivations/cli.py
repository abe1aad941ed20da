"""The ``attnge`` command: ``steps``, ``verify``, ``tables``, ``spectrum``, ``threshold``,
``bench``, ``mha``, ``certify``.

Exit codes: 0 every check passed, 1 a check failed (``certify``: a claim not certified, a
certificate rejected), 2 bad input (one line naming the
parameter, nothing computed, nothing written), 3 an internal error once the input was
accepted (one line naming the log file that holds the traceback; ``--debug`` prints it).
Every input is checked before any computing, so an error that comes later is ours.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from attnge import (__version__, bench, certify, figures, ledger, mha, parallel, report,
                         runner, spectrum, tables)
from attnge import threshold_audit as thresholds
from attnge.threshold_modes import MODES, mode_named
from attnge.params import DEFAULT_SIZES, Params, parse_sizes
from attnge.progress import Progress
from attnge.theory.inputs import integer
from attnge.theory.symbols import positive_beta


class UsageError(Exception):
    """Bad command-line input: one line, exit code 2."""


class InternalError(Exception):
    """An error raised after the input was accepted: exit code 3 (the cause is chained)."""


LOG = Path(tempfile.gettempdir()) / "attnge-error.log"


@contextmanager
def _computing():
    """Whatever goes wrong from here on is not the user's input: exit 3."""
    try:
        yield
    except KeyboardInterrupt:
        raise
    except Exception as err:
        raise InternalError(str(err)) from err


@contextmanager
def _cluster(args: argparse.Namespace, validate: Callable[[], None]):
    """Compute inside the Dask cluster of --workers/--scheduler (neither: in process).
    ``validate`` runs again, before the workers start, when local workers put several draws
    in memory at once (its error is still bad input); what fails after that is ours."""
    workers, scheduler = parallel.validate(args.workers, args.scheduler)
    with parallel.cluster(workers, scheduler, check=validate), _computing():
        yield


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of usage + message
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="attnge", description="Verify the Gaussian equivalence of softmax "
                "self-attention at random initialisation, one proof step at a time.")
    p.add_argument("--version", action="version", version=f"attnge {__version__}")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (a bar on a "
                   "terminal with tqdm, the progress extra; else a line per finished step or "
                   "draw)")
    p.add_argument("--debug", action="store_true", help="print the traceback of an internal "
                   "error (exit 3) instead of writing it to " + str(LOG))
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("steps", help="list the proof steps of the ledger")
    v = sub.add_parser("verify", help="run proof steps and print their evidence")
    v.add_argument("--steps", default=None, help="comma-separated step ids (default: all)")
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
    v.add_argument("--json", default=None, metavar="FILE", help="write every number and "
                   "the provenance as JSON")
    v.add_argument("--report", default=None, metavar="DIR", help="write report.md (with a "
                   "log-log figure per step) and report.json to DIR (needs the plot extra)")
    _cluster_options(v)
    t = sub.add_parser("tables", help="coefficient tables for papers: closed forms, decimals")
    t.add_argument("--beta", default="0.5,1,2", help="comma-separated beta values "
                   "(default %(default)s)")
    t.add_argument("--y", default=None, help="comma-separated y = ell/d_qk (default 1)")
    t.add_argument("--order", default=8, help="Hermite coefficients a_0..a_K and moments "
                   "m_1..m_K, K >= 1 (default %(default)s)")
    t.add_argument("--moments", default=None, help="number of moments if not K")
    t.add_argument("--digits", default=20, help="significant digits (default %(default)s)")
    t.add_argument("--ell", default=None, help="ell for exact E D_ii, Var D_ii (with --dqk)")
    t.add_argument("--dqk", default=None, help="d_qk for exact E D_ii, Var D_ii (with --ell)")
    t.add_argument("--heads", default=None, help="comma-separated h: the tables of the "
                   "multi-head law nu_(inf,h) and the output law instead (with --gamma-k)")
    t.add_argument("--gamma-k", default=None, help="comma-separated gamma_K = h d_K/n (with "
                   "--heads)")
    t.add_argument("--gamma-v", default=None, help="comma-separated gamma_V = h d_V/n (with "
                   "--heads; default gamma_K)")
    t.add_argument("--gamma-o", default=None, help="comma-separated gamma_O = d_O/n (with "
                   "--heads; default gamma_V)")
    t.add_argument("--sharing", default=None, help="none or kv (K = V), with --heads "
                   "(default none)")
    t.add_argument("--format", default="md", help="md, latex, csv or json (default md)")
    t.add_argument("--out", default=None, metavar="FILE", help="write to FILE (atomically)")
    f = sub.add_parser("spectrum", help="the paper's Figure 1: spectra of the chain of models")
    f.add_argument("--beta", default=1.0, help="beta > 0 (default 1)")
    f.add_argument("--ell", default=1000, help="tokens ell >= 2 (default 1000)")
    f.add_argument("--dqk", default=1000, help="d_qk >= 1 (default 1000)")
    f.add_argument("--draws", default=10, help="draws >= 1 (default 10)")
    f.add_argument("--seed", default=0, help="seed >= 0 (default 0)")
    f.add_argument("--remove-top", default=3, metavar="R", help="top values removed per draw "
                   "from the histograms (default 3)")
    f.add_argument("--out", default="spectrum.png", metavar="FIG.png", help="the figure; the "
                   "numbers go to FIG.csv beside it (default %(default)s)")
    h = sub.add_parser("threshold", help="audit the linearization threshold (a sweep that "
                       "resumes from DIR)")
    h.add_argument("--mode", required=True, help="temperature (beta = c sqrt(log ell)), "
                   "one-entry (the same beta, the one-entry terms of the moments only) or "
                   "order (d_qk = ell^alpha)")
    h.add_argument("--full", action="store_true", help="the full grids (slow) instead of "
                   "the quick ones")

    def shown(value) -> str:
        return ",".join(map(str, value)) if isinstance(value, tuple) else str(value)

    def defaults(name: str) -> str:
        return "; ".join(f"{m.name}: {shown(m.quick[name])} (--full {shown(m.full[name])})"
                         for m in MODES.values())
    h.add_argument("--grid", default=None, help="comma-separated c (temperature, one-entry) "
                   f"or alpha (order) values, increasing (default {defaults('grid')})")
    h.add_argument("--sizes", default=None, help="comma-separated ell, increasing (default "
                   f"{defaults('sizes')})")
    h.add_argument("--draws", default=None, help="draws per (value, ell) (default "
                   f"{defaults('draws')})")
    h.add_argument("--seed", default=0, help="seed >= 0 (default %(default)s)")
    h.add_argument("--beta", default=None, help="beta, order mode only (default "
                   f"{thresholds.Sweep.beta:g}; the temperature mode sets beta = c sqrt(log ell))")
    h.add_argument("--y", default=None, help="ell/d_qk, temperature and one-entry modes (default "
                   f"{thresholds.Sweep.y:g}; the order mode sets d_qk = ell^alpha)")
    h.add_argument("--out", default=None, metavar="DIR", help="keep the sweep in "
                   "DIR/threshold-MODE.jsonl (a rerun resumes it) and write the table "
                   "(.md) and the figure (.png) there")
    _cluster_options(h)
    b = sub.add_parser("bench", help="time one chain draw against the naive path and the floor")
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
    c = sub.add_parser("certify", help="certified right edges (interval arithmetic) and the "
                       "claims they prove; --check re-verifies a certificate file")
    c.add_argument("--beta", default="1", help="comma-separated beta, rationals such as 1/2 "
                   "allowed (default 1)")
    c.add_argument("--y", default=None, help="comma-separated y = ell/d_qk of one head "
                   "(default 1)")
    c.add_argument("--heads", default=None, help="comma-separated h: the multi-head laws "
                   "instead (with --gamma-k)")
    c.add_argument("--gamma-k", default=None, help="comma-separated gamma_K = h d_K/n")
    c.add_argument("--gamma-v", default=None, help="comma-separated gamma_V = h d_V/n (output "
                   "law; default gamma_K)")
    c.add_argument("--gamma-o", default=None, help="comma-separated gamma_O = d_O/n (output "
                   "law; default gamma_V)")
    c.add_argument("--sharing", default=None, help="none or kv (K = V), with --heads")
    c.add_argument("--law", default=None, help="attention or output, with --heads (default "
                   "attention)")
    c.add_argument("--claim", default="edge > mp-edge", help="'edge > mp-edge' (default) or "
                   "'edge > R*mp-edge' for a factor R > 0, e.g. 'edge > 1.2*mp-edge'")
    c.add_argument("--digits", default=certify.DIGITS, help="working digits of the interval "
                   "arithmetic, 20 to 200 (default %(default)s)")
    c.add_argument("--json", default=None, metavar="FILE", help="write the certificate (JSON, "
                   "atomically)")
    c.add_argument("--format", default="md", help="md, latex, csv or json, on stdout "
                   "(default md)")
    c.add_argument("--out", default=None, metavar="FILE", help="write the table to FILE "
                   "instead of stdout")
    c.add_argument("--check", default=None, metavar="FILE", help="re-verify a certificate "
                   "with exact rationals and mpmath intervals only (exit 1 on any "
                   "inconsistency); takes no other option")
    m = sub.add_parser("mha", help="a softmax attention layer against its Gaussian model on "
                       "the same weights, at a real architecture's shape")
    m.add_argument("--preset", default=None, help="a public configuration: "
                   f"{', '.join(mha.PRESETS)}, or all (with --report) (explicit options below "
                   "override it)")
    m.add_argument("--n", default=None, help="tokens (context length)")
    m.add_argument("--d", default=None, help="model width d (n <= d)")
    m.add_argument("--heads", default=None, help="heads h")
    m.add_argument("--kv-heads", default=None, help="key-value heads (default: heads; 1 with "
                   "--sharing mqa)")
    m.add_argument("--dk", default=None, help="key width d_K per head")
    m.add_argument("--dv", default=None, help="value width d_V per head (default d_K)")
    m.add_argument("--dout", default=None, help="output width d_O (default d)")
    m.add_argument("--sharing", default=None, help="none, mqa (keys and values shared by "
                   "groups of heads) or kv (V = K) (default none, mqa when kv heads < heads)")
    m.add_argument("--beta", default=1.0, help="inverse temperature beta (default 1)")
    m.add_argument("--draws", default=10, help="draws >= 2 (default 10)")
    m.add_argument("--seed", default=0, help="seed >= 0 (default 0)")
    m.add_argument("--json", default=None, metavar="FILE", help="write the summary and the "
                   "provenance as JSON")
    m.add_argument("--out", default=None, metavar="FIG.png", help="histograms of both spectra "
                   "with the output law's density; the numbers go to FIG.csv beside it")
    m.add_argument("--report", default=None, metavar="DIR", help="write NAME.json, NAME.png "
                   "and NAME.csv per preset and README.md (the table) to DIR; a rerun reuses "
                   "the presets already done with the same parameters")
    _cluster_options(m)
    return p


def _cluster_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", default=None, metavar="N", help="measure the draws on a local "
                   "Dask cluster of N single-threaded workers (the dask extra)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="measure the draws on "
                   "the Dask cluster at ADDRESS, e.g. tcp://host:8786 (the dask extra)")


def _bench(args: argparse.Namespace) -> int:
    sizes = [ell for text in (args.ell or ["1000,2000"]) for ell in parse_sizes(text, "ell")]
    moments = [ell for text in (args.moments or []) for ell in parse_sizes(text, "moments")]
    seed = integer(args.seed, "seed", 0)
    if args.json is not None:
        report.check_output(args.json, "json")
    bench.validate(sizes, args.draws, moments)
    start = time.perf_counter()
    progress = Progress("bench", args.quiet)
    with _computing():
        rows = bench.bench(sizes, args.draws, seed, progress)
        traced = bench.moments_only(moments, seed, progress)
    sys.stdout.write(bench.markdown(rows))
    if traced:
        sys.stdout.write("\n" + bench.moments_markdown(traced))
    if args.json is not None:
        parameters = {"ell": sizes, "draws": rows[0].draws, "seed": seed, "beta": bench.BETA,
                      "moments": moments}
        report.write_atomic(args.json, json.dumps(
            {"rows": [r.as_dict() for r in rows], "moments": traced,
             "provenance": runner.provenance(parameters, time.perf_counter() - start)},
            indent=2) + "\n")
    return 0


def _threshold(args: argparse.Namespace) -> int:
    mode = mode_named(args.mode)
    config = dict(mode.full if args.full else mode.quick)
    if args.grid is not None:
        config["grid"] = tuple(float(v) for v in tables.parse_list(args.grid, "grid"))
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
    sweep = thresholds.Sweep(mode, seed=args.seed, **config)
    if args.out is not None:
        report.check_output(args.out, "out", folder=True)
        figures.require("out")
    start = time.perf_counter()
    stored = 0 if args.out is None else thresholds.stored(sweep, args.out)
    with _cluster(args, sweep.validate_memory):
        done = thresholds.run(sweep, args.out, _draws(Progress("threshold", args.quiet)),
                              warn=lambda text: sys.stderr.write(f"attnge: warning: {text}\n"))
        found = thresholds.quantities(sweep, done)
        tabs = thresholds.tables(sweep, found)
        text = "\n\n".join(report.markdown_table(t) for t in tabs) + \
            f"\n\nattnge threshold --mode {mode.name}: {thresholds.counts(tabs)}\n"
        sys.stdout.write(text)
        if args.out is not None:
            out = Path(args.out)
            report.write_atomic(out / f"threshold-{mode.name}.md", text)
            thresholds.plot(sweep, found, out / f"threshold-{mode.name}.png")
            thresholds.write_provenance(sweep, out, time.perf_counter() - start, stored, tabs,
                                        workers=args.workers, scheduler=args.scheduler)
            sys.stderr.write(f"sweep: {thresholds.store_path(out, mode)}\n"
                             f"figure: {out / f'threshold-{mode.name}.png'}\n")
    return 0 if all(t.passed for t in tabs) else 1


def _mha(args: argparse.Namespace) -> int:
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
    beta = positive_beta(args.beta)
    seed = integer(args.seed, "seed", 0)
    draws = integer(args.draws, "draws", 2)
    out = None
    if args.json is not None:
        report.check_output(args.json, "json")
    if args.out is not None:
        out = Path(args.out)
        if out.is_dir() or out.suffix.lower() != ".png":
            raise ValueError(f"out must be a .png file path (got {args.out!r})")
        report.check_output(out, "out")
        report.check_output(out.with_suffix(".csv"), "out (its .csv)")
    if args.report is not None:
        report.check_output(args.report, "report", folder=True)
    if out is not None or args.report is not None:
        figures.require("out" if out is not None else "report")
    for shape, _ in shapes:
        mha.validate(shape, draws)
    found = {}
    with _cluster(args, lambda: [mha.validate(shape, draws) for shape, _ in shapes]):
        for name, (shape, d) in zip(presets, shapes):
            parameters = {"preset": name, "shape": [shape.n, d, shape.heads, shape.kv_heads,
                                                    shape.d_k, shape.d_v, shape.d_o,
                                                    shape.sharing],
                          "beta": float(beta), "draws": draws, "seed": seed}
            if args.report is not None:
                folder = Path(args.report)
                kept = mha.stored(folder / f"{name}.json", parameters)
                if kept is not None:
                    sys.stderr.write(f"attnge: mha {name}: reused {folder / name}.json\n")
                    found[name] = kept
                    continue
                out = folder / f"{name}.png"
            start = time.perf_counter()
            result = mha.run(shape, d, beta, draws, seed,
                             _draws(Progress(f"mha {name or ''}".strip(), args.quiet)))
            sys.stdout.write(mha.markdown(result, name))
            summary = {**result.summary(), "parameters": parameters}
            if out is not None:
                report.write_atomic(out.with_suffix(".csv"), mha.plot(result, out, name))
                sys.stderr.write(f"figure: {out}\nnumbers: {out.with_suffix('.csv')}\n")
            target = args.json if args.report is None else Path(args.report) / f"{name}.json"
            if target is not None:
                summary["provenance"] = runner.provenance(
                    {**parameters, "workers": args.workers, "scheduler": args.scheduler},
                    time.perf_counter() - start)
                report.write_atomic(target, json.dumps(summary, indent=2) + "\n")
            found[name] = summary
        if args.report is not None:
            command = "attnge mha " + " ".join(
                f"--{k} {v}" for k, v in (("preset", args.preset), ("beta", args.beta),
                                          ("draws", draws), ("seed", seed),
                                          ("report", args.report)))
            report.write_atomic(Path(args.report) / "README.md",
                                mha.folder_markdown(found, command))
    return 0


def _draws(progress: Progress):
    """``progress`` for callers that count draws: (i, n) → a draw label."""
    return lambda i, n: progress(i, n, f"draw {min(i + 1, n)}" if i < n else "")


def _steps() -> int:
    for step in ledger.STEPS:
        print(f"{step.id:<16} {step.title}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    params = Params(beta=args.beta, y=args.y, sizes=parse_sizes(args.sizes),
                    draws=args.draws, seed=args.seed, remove_top=args.remove_top,
                    heads=args.heads)
    steps = ledger.select(args.steps)
    if args.json is not None:
        report.check_output(args.json, "json")
    if args.report is not None:
        report.check_output(args.report, "report", folder=True)
        figures.require("report")
    runner.validate(steps, params)
    with _cluster(args, lambda: runner.validate(steps, params)):
        run = runner.run(steps, params, progress=Progress("verify", args.quiet))
        sys.stdout.write(report.markdown(run))
        if args.json is not None:
            report.write_json(run, args.json)
        if args.report is not None:
            sys.stderr.write(f"report: {report.write_report(run, args.report)}\n")
    sys.stderr.write(f"wall time {run.wall_s:.1f} s\n")
    return 0 if run.passed else 1


def _tables(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.format not in tables.FORMATS:
        raise ValueError(f"format must be one of {', '.join(tables.FORMATS)} "
                         f"(got {args.format!r})")
    if args.out is not None:
        report.check_output(args.out, "out")
    betas = tables.parse_list(args.beta, "beta")
    heads_only = {"gamma-k": args.gamma_k, "gamma-v": args.gamma_v, "gamma-o": args.gamma_o,
                  "sharing": args.sharing}
    if args.heads is None:
        given = [name for name, v in heads_only.items() if v is not None]
        if given:
            raise ValueError(f"{given[0]} applies with --heads only (the multi-head tables)")
        ys = tables.parse_list("1" if args.y is None else args.y, "y")
        tables.validate(betas, ys, args.order, args.digits, args.ell, args.dqk, args.moments)
        parameters = {"beta": [str(b) for b in betas], "y": [str(v) for v in ys],
                      "order": int(args.order), "moments": int(args.moments or args.order),
                      "digits": int(args.digits), "ell": args.ell, "dqk": args.dqk}
    else:
        for name, value in (("y", args.y), ("ell", args.ell), ("dqk", args.dqk)):
            if value is not None:
                raise ValueError(f"{name} does not apply with --heads (the multi-head laws "
                                 "take gamma-k, gamma-v, gamma-o)")
        if args.gamma_k is None:
            raise ValueError("gamma-k is needed with --heads (gamma_K = h d_K/n)")
        heads = tables.parse_list(args.heads, "heads")
        gammas = {name.replace("-", "_"): None if value is None else
                  tables.parse_list(value, name)
                  for name, value in heads_only.items() if name != "sharing"}
        sharing = args.sharing or "none"
        tables.validate_heads(betas, heads, gammas, args.order, args.digits, args.moments,
                              sharing)
        parameters = {"beta": [str(b) for b in betas], "heads": [str(h) for h in heads],
                      **{k: None if v is None else [str(g) for g in v]
                         for k, v in gammas.items()}, "sharing": sharing,
                      "moments": int(args.moments or args.order), "digits": int(args.digits)}
    with _computing():
        if args.heads is None:
            rows = tables.build(betas, ys, args.order, args.digits, args.ell, args.dqk,
                                args.moments)
        else:
            rows = tables.build_heads(betas, heads, gammas, args.order, args.digits,
                                      args.moments, sharing)
        text = tables.render(rows, args.format,
                             runner.provenance(parameters, time.perf_counter() - start))
        if args.out is None:
            sys.stdout.write(text)
        else:
            report.write_atomic(args.out, text)
    return 0


def _certify(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    options = {"beta": args.beta != "1", "y": args.y, "heads": args.heads,
               "gamma-k": args.gamma_k, "gamma-v": args.gamma_v, "gamma-o": args.gamma_o,
               "sharing": args.sharing, "law": args.law,
               "claim": args.claim != "edge > mp-edge", "digits": args.digits != certify.DIGITS,
               "json": args.json, "format": args.format != "md", "out": args.out}
    if args.check is not None:
        given = [name for name, value in options.items() if value]
        if given:
            raise ValueError(f"{given[0]} does not apply with --check (it checks the file as "
                             "it is)")
        return _check_certificate(args.check)
    if args.format not in certify.FORMATS:
        raise ValueError(f"format must be one of {', '.join(certify.FORMATS)} "
                         f"(got {args.format!r})")
    for name, path in (("json", args.json), ("out", args.out)):
        if path is not None:
            report.check_output(path, name)
    factor = certify.parse_claim(args.claim)
    digits = certify.validate_digits(args.digits)
    betas = [positive_beta(b) for b in tables.parse_list(args.beta, "beta")]
    if args.heads is None:
        given = [n for n in ("gamma-k", "gamma-v", "gamma-o", "sharing", "law") if options[n]]
        if given:
            raise ValueError(f"{given[0]} applies with --heads only (the multi-head laws)")
        ys = tables.parse_list("1" if args.y is None else args.y, "y")
        cells = certify.cells(betas, ys=ys)
    else:
        if args.y is not None:
            raise ValueError("y does not apply with --heads (the multi-head laws take "
                             "gamma-k, gamma-v, gamma-o)")
        if args.gamma_k is None:
            raise ValueError("gamma-k is needed with --heads (gamma_K = h d_K/n)")
        kind = args.law or "attention"
        if kind not in certify.KINDS:
            raise ValueError(f"law must be one of {', '.join(certify.KINDS)} (got {kind!r})")
        if kind == "attention" and (args.gamma_v or args.gamma_o):
            raise ValueError("gamma-v and gamma-o apply with --law output only")
        heads = tables.parse_list(args.heads, "heads")
        gammas = {name.replace("-", "_"): None if options[name] is None else
                  tables.parse_list(options[name], name)
                  for name in ("gamma-k", "gamma-v", "gamma-o")}
        sharing = args.sharing or "none"
        cells = certify.cells(betas, kind, heads=heads, gammas=gammas, sharing=sharing)
    certify.require()
    parameters = {"cells": len(cells), "claim": args.claim, "digits": digits,
                  "beta": args.beta, "y": args.y, "heads": args.heads, "gamma_k": args.gamma_k,
                  "gamma_v": args.gamma_v, "gamma_o": args.gamma_o, "sharing": args.sharing,
                  "law": args.law}
    with _computing():
        done = []
        for cell in cells:
            done.append(certify.produce(cell, factor, digits))
            sys.stderr.write(certify.summary(done[-1]) + "\n")
        provenance = runner.provenance(parameters, time.perf_counter() - start)
        if args.json is not None:
            report.write_atomic(args.json, certify.render(done, "json", provenance))
        text = certify.render(done, args.format, provenance)
        if args.out is None:
            sys.stdout.write(text)
        else:
            report.write_atomic(args.out, text)
    return 0 if all(c["certified"] for c in done) else 1


def _check_certificate(path: str) -> int:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"check must be a readable certificate file ({err})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        print(f"attnge: {path}: not JSON ({err})", file=sys.stderr)
        return 1
    with _computing():
        problems = certify.check(document)
    for line in problems:
        print(f"attnge: {path}: {line}", file=sys.stderr)
    cells = len(document.get("cells") or []) if isinstance(document, dict) else 0
    if problems:
        print(f"rejected: {len(problems)} inconsistencies in {path}")
        return 1
    print(f"accepted: {cells} cells of {path} re-verified with exact rationals and mpmath "
          "intervals")
    return 0


def _spectrum(args: argparse.Namespace) -> int:
    beta = positive_beta(args.beta)
    draws, seed = integer(args.draws, "draws", 1), integer(args.seed, "seed", 0)
    ell = integer(args.ell, "ell", 2)
    dqk = integer(args.dqk, "dqk", 1)
    remove_top = integer(args.remove_top, "remove_top", 0)
    out = Path(args.out)
    if out.is_dir() or out.suffix.lower() != ".png":
        raise ValueError(f"out must be a .png file path (got {args.out!r})")
    report.check_output(out, "out")
    report.check_output(out.with_suffix(".csv"), "out (its .csv)")
    figures.require("out")
    spectrum.validate(ell, dqk, draws, remove_top)
    with _computing():
        data = spectrum.sample(float(beta), ell, dqk, draws, seed, remove_top,
                               progress=_draws(Progress("spectrum", args.quiet)))
        spectrum.plot(data, out)
        report.write_atomic(out.with_suffix(".csv"), spectrum.to_csv(data))
    sys.stderr.write(f"figure: {out}\nnumbers: {out.with_suffix('.csv')}\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = None
    try:
        args = _parser().parse_args(argv)
        if args.command == "steps":
            return _steps()
        if args.command == "tables":
            return _tables(args)
        if args.command == "spectrum":
            return _spectrum(args)
        if args.command == "threshold":
            return _threshold(args)
        if args.command == "bench":
            return _bench(args)
        if args.command == "mha":
            return _mha(args)
        if args.command == "certify":
            return _certify(args)
        return _verify(args)
    except (UsageError, ValueError) as err:
        print(f"attnge: error: {err}", file=sys.stderr)
        return 2
    except InternalError as err:
        cause = err.__cause__
        what = f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"
        if args is not None and args.debug:
            traceback.print_exception(cause, file=sys.stderr)
            print(f"attnge: internal error: {what}", file=sys.stderr)
        else:
            LOG.write_text("".join(traceback.format_exception(cause)), encoding="utf-8")
            print(f"attnge: internal error: {what} (traceback in {LOG}; please report it)",
                  file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("attnge: interrupted", file=sys.stderr)
        return 130
