"""``attnge tables``: coefficient tables for papers (closed forms and decimals)."""

from __future__ import annotations

import argparse

from attnge.commands.common import computing, law_options
from attnge.output.files import check_output, emit, write_atomic

NAME = "tables"
HELP = "coefficient tables for papers: closed forms, decimals"


def add_arguments(t: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace) -> int:
    from attnge import coefficient_tables

    if args.format not in coefficient_tables.FORMATS:
        raise ValueError(f"format must be one of {', '.join(coefficient_tables.FORMATS)} "
                         f"(got {args.format!r})")
    if args.out is not None:
        check_output(args.out, "out")
    betas = coefficient_tables.parse_list(args.beta, "beta")
    law = law_options(args, "the multi-head tables", single_only=("y", "ell", "dqk"))
    if "ys" in law:
        coefficient_tables.validate(betas, law["ys"], args.order, args.digits, args.ell,
                                    args.dqk, args.moments)
        given = {"y": law["ys"], "ell": args.ell, "dqk": args.dqk}
    else:
        coefficient_tables.validate_heads(betas, law["heads"], law["gammas"], args.order,
                                          args.digits, args.moments, law["sharing"])
        given = {"heads": law["heads"], **law["gammas"], "sharing": law["sharing"]}
    with computing():
        found = coefficient_tables.tables(betas, order=args.order, digits=args.digits,
                                          moments=args.moments, **given)
        text = found.render(args.format)
        if args.out is not None:
            write_atomic(args.out, text)
    if args.out is None:
        emit(text)
    return 0
