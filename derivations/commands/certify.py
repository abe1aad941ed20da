"""``attnge certify``: certified right edges (interval arithmetic) and the claims they prove;
``--check`` re-verifies a certificate file."""

from __future__ import annotations

import argparse
import os
import stat
import sys

from attnge.commands.common import HEADS_ONLY, computing, law_options
from attnge.output.files import check_output, emit, write_atomic

NAME = "certify"
HELP = "certified right edges (interval arithmetic) and the claims they prove; --check " \
    "re-verifies a certificate file"

DIGITS = 30
"""The default of --digits: ``edge_certificates.DIGITS``, repeated so that the parser imports
no SymPy (a test keeps them equal)."""


def add_arguments(c: argparse.ArgumentParser) -> None:
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
    c.add_argument("--digits", default=DIGITS, help="working digits of the "
                   "interval arithmetic, 20 to 200 (default %(default)s)")
    c.add_argument("--json", default=None, metavar="FILE", help="write the certificate (JSON, "
                   "atomically)")
    c.add_argument("--format", default="md", help="md, latex, csv or json, on stdout "
                   "(default md)")
    c.add_argument("--out", default=None, metavar="FILE", help="write the table to FILE "
                   "instead of stdout")
    c.add_argument("--check", default=None, metavar="FILE", help="re-verify a certificate "
                   "with exact rationals and mpmath intervals only (exit 1 on any "
                   "inconsistency); takes no other option")


def run(args: argparse.Namespace) -> int:
    from attnge import edge_certificates
    from attnge.coefficient_tables import parse_list

    options = {"beta": args.beta != "1", "y": args.y, "heads": args.heads,
               "gamma-k": args.gamma_k, "gamma-v": args.gamma_v, "gamma-o": args.gamma_o,
               "sharing": args.sharing, "law": args.law,
               "claim": args.claim != "edge > mp-edge",
               "digits": args.digits != edge_certificates.DIGITS,
               "json": args.json, "format": args.format != "md", "out": args.out}
    if args.check is not None:
        given = [name for name, value in options.items() if value]
        if given:
            raise ValueError(f"{given[0]} does not apply with --check (it checks the file as "
                             "it is)")
        return _check(args.check)
    if args.format not in edge_certificates.FORMATS:
        raise ValueError(f"format must be one of {', '.join(edge_certificates.FORMATS)} "
                         f"(got {args.format!r})")
    for name, path in (("json", args.json), ("out", args.out)):
        if path is not None:
            check_output(path, name)
    edge_certificates.parse_claim(args.claim)
    edge_certificates.validate_digits(args.digits)
    law = law_options(args, "the multi-head laws", (*HEADS_ONLY, "law"))
    given = {"y": law["ys"]} if "ys" in law else \
        {"heads": law["heads"], **law["gammas"], "sharing": law["sharing"],
         "law": args.law or "attention"}
    if given.get("law") == "attention" and (args.gamma_v or args.gamma_o):
        raise ValueError("gamma-v and gamma-o apply with --law output only")
    betas = parse_list(args.beta, "beta")
    edge_certificates.grid(betas, **given)          # every input checked before computing
    edge_certificates.require()
    with computing():
        done = edge_certificates.certify(
            betas, claim=args.claim, digits=args.digits,
            progress=lambda cell: sys.stderr.write(edge_certificates.summary(cell) + "\n"),
            **given)
        if args.json is not None:
            write_atomic(args.json, done.render("json"))
        text = done.render(args.format)
        if args.out is not None:
            write_atomic(args.out, text)
    if args.out is None:
        emit(text)
    return 0 if done.certified else 1


def _check(path: str) -> int:
    from attnge import edge_certificates

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):     # a FIFO would block, a device
            raise ValueError(f"check must be a certificate file (got {path!r}, which is "
                             "not a regular file)")     # never end
        with open(path, "rb") as fh:
            text = fh.read(edge_certificates.MAX_BYTES + 1)
    except OSError as err:
        raise ValueError(f"check must be a readable certificate file ({err})") from None
    try:
        document = edge_certificates.parse(text)
    except ValueError as err:
        print(f"attnge: {path}: {err}", file=sys.stderr)
        emit(f"rejected: {path} is not a certificate this checker reads\n")
        return 1
    with computing():
        problems = edge_certificates.check(document)
    for line in problems:
        print(f"attnge: {path}: {line}", file=sys.stderr)
    cells = len(document.get("cells") or []) if isinstance(document, dict) else 0
    if problems:
        emit(f"rejected: {len(problems)} inconsistencies in {path}\n")
        return 1
    emit(f"accepted: {cells} cells of {path} re-verified with exact rationals and mpmath "
         "intervals\n")
    return 0
