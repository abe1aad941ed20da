"""The ``attnge`` command: parses, dispatches to ``attnge.commands``, maps exit codes.

Exit codes: 0 every check passed, 1 a check failed (``certify``: a claim not certified, a
certificate rejected), 2 bad input (one line naming the parameter, nothing computed,
nothing written), 3 an internal error once the input was accepted (one line naming the log
file that holds the traceback; ``--debug`` prints it). Every input is checked before any
computing, so an error that comes later is ours.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import traceback
from pathlib import Path

from attnge import __version__
from attnge.commands import COMMANDS
from attnge.commands.common import InternalError, UsageError

LOG = Path(tempfile.gettempdir()) / "attnge-error.log"


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
    for name, command in COMMANDS.items():
        command.add_arguments(sub.add_parser(name, help=command.HELP))
    return p


def main(argv: list[str] | None = None) -> int:
    args = None
    try:
        args = _parser().parse_args(argv)
        return COMMANDS[args.command].run(args)
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
