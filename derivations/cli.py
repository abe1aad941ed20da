"""The ``attnge`` command: ``attnge steps`` and ``attnge verify``.

Exit codes: 0 every check passed, 1 a check failed, 2 bad input (one line, no traceback).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from derivations import __version__, ledger, report, runner
from derivations.params import DEFAULT_SIZES, Params, parse_sizes


class UsageError(Exception):
    """Bad command-line input: one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line instead of usage + message
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="attnge", description="Verify the Gaussian equivalence of softmax "
                "self-attention at random initialisation, one proof step at a time.")
    p.add_argument("--version", action="version", version=f"attnge {__version__}")
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
    v.add_argument("--json", default=None, metavar="FILE", help="write every number and "
                   "the provenance as JSON")
    return p


def _progress_bar():
    if not sys.stderr.isatty():
        return None

    def show(i: int, n: int, step_id: str) -> None:
        bar = "#" * (20 * i // max(n, 1))
        text = f"running {step_id}" if step_id else "done"
        sys.stderr.write(f"\r[{bar:<20}] {i}/{n} {text:<40}")
        if i == n:
            sys.stderr.write("\n")
        sys.stderr.flush()
    return show


def _steps() -> int:
    for step in ledger.STEPS:
        print(f"{step.id:<16} {step.title}")
    return 0


def _verify(args: argparse.Namespace) -> int:
    params = Params(beta=args.beta, y=args.y, sizes=parse_sizes(args.sizes),
                    draws=args.draws, seed=args.seed, remove_top=args.remove_top)
    steps = ledger.select(args.steps)
    if args.json is not None and Path(args.json).is_dir():
        raise ValueError(f"json must be a file path, not a folder (got {args.json!r})")
    run = runner.run(steps, params, progress=_progress_bar())
    sys.stdout.write(report.markdown(run))
    if args.json is not None:
        report.write_json(run, args.json)
    sys.stderr.write(f"wall time {run.wall_s:.1f} s\n")
    return 0 if run.passed else 1


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
        if args.command == "steps":
            return _steps()
        return _verify(args)
    except (UsageError, ValueError) as err:
        print(f"attnge: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("attnge: interrupted", file=sys.stderr)
        return 130
