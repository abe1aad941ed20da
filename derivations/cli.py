"""The ``attnge`` command: parses, dispatches to ``attnge.commands``, maps exit codes.

Exit codes: 0 every check passed, 1 a check failed (``certify``: a claim not certified, a
certificate rejected), 2 bad input (one line naming the parameter, nothing computed,
nothing written), 3 an error once the input was accepted (one line: a full disk or another
error of the system, named; else an internal error, with the log file that holds its
traceback; ``--debug`` prints it), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM). Every
input is checked before any computing, so an error that comes later is not the input's.
Result files are written before the results are printed (``verify``'s step lines, printed
as each step is decided, aside); a closed or broken standard output (``| head``) loses
nothing and ends quietly.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Mapping

from attnge import __version__
from attnge.errors import InternalError, UsageError
from attnge.output.files import quiet_stdout


class _Terminated(BaseException):
    """SIGTERM, raised where the program is, so that every temporary file is removed on the
    way out (as for Ctrl-C)."""


def _terminate(signum, frame) -> None:
    raise _Terminated


class _Parser(argparse.ArgumentParser):
    """One-line errors, and no abbreviated options: a prefix would be taken silently for
    another option (``--d 512`` as ``--draws 512``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, allow_abbrev=False, **kwargs)

    def error(self, message: str) -> None:  # one line instead of usage + message
        raise UsageError(message)


def _chosen(commands: Mapping, argv: list[str]) -> str | None:
    """The command that ``argv`` runs: its first word that names one (the global options
    take no value), or None."""
    return next((word for word in argv if word in commands), None)


def _parser(commands: Mapping, argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Every command is listed (name and help); with ``argv``, only the command it runs gets
    its options, so that no other command module is imported (without: every command)."""
    p = _Parser(prog="attnge", description="Verify the Gaussian equivalence of softmax "
                "self-attention at random initialisation, one proof step at a time.")
    p.add_argument("--version", action="version", version=f"attnge {__version__}")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr (a bar on a "
                   "terminal with tqdm, the progress extra; else a line per finished step or "
                   "draw)")
    p.add_argument("--debug", action="store_true", help="print the traceback of an internal "
                   "error (exit 3) instead of writing it to a log file in the temporary folder")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    chosen = None if argv is None else _chosen(commands, argv)
    for name in commands:
        text = commands.help(name) if hasattr(commands, "help") else commands[name].HELP
        parser = sub.add_parser(name, help=text)
        if argv is None or name == chosen:
            commands[name].add_arguments(parser)
    return p


def _streams() -> None:
    """Standard streams that cannot fail the run: a closed one (``>&-``) writes to nothing,
    and text the encoding cannot hold (``PYTHONIOENCODING=ascii``) is escaped."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
        try:
            getattr(sys, name).reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


def _say(text: str) -> None:
    try:
        print(text, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _system_error(err: BaseException) -> str | None:
    """A one-line account of an error of the system (a full disk, a closed stream, no
    permission), or None for an error of attnge."""
    if isinstance(err, OSError) and err.errno is not None:
        where = f" ({err.filename})" if err.filename else ""
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            return f"no space left on device{where}"
        if err.errno in (errno.EPIPE, errno.EIO, errno.EROFS, errno.EACCES, errno.EPERM):
            return f"{(err.strerror or str(err)).lower()}{where}"
    return None


def _internal(cause: BaseException, debug: bool) -> None:
    """The exit-3 report: one line; the traceback in a log file of this run, else (no
    writable temporary folder, or ``--debug``) on stderr."""
    what = f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"
    system = _system_error(cause)
    if system is not None:
        _say(f"attnge: error: {system}")
        return
    text = "".join(traceback.format_exception(cause))
    if not debug:
        try:
            fd, log = tempfile.mkstemp(prefix="attnge-error-", suffix=".log")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            _say(f"attnge: internal error: {what} (traceback in {log}; please report it)")
            return
        except (OSError, FileNotFoundError):
            pass
    _say(text.rstrip("\n"))
    _say(f"attnge: internal error: {what}")


def _one_thread():
    """BLAS on one thread for the command (``attnge.parallel.one_thread``), so that its
    numbers do not depend on the machine's load."""
    from attnge import parallel
    return parallel.one_thread()


def main(argv: list[str] | None = None) -> int:
    _streams()
    previous = signal.signal(signal.SIGTERM, _terminate)
    argv = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in argv
    try:
        # imported here, so that Ctrl-C while importing is an interrupt like any other
        from attnge.commands import COMMANDS
        args = _parser(COMMANDS, argv).parse_args(argv)
        args.argv = argv                   # what a "Generated by" line repeats
        with _one_thread():
            code = COMMANDS[args.command].run(args)
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            quiet_stdout()
        return code
    except (UsageError, ValueError) as err:
        _say(f"attnge: error: {err}")
        return 2
    except InternalError as err:
        _internal(err.__cause__ or err, debug)
        return 3
    except BrokenPipeError:
        quiet_stdout()                            # `attnge steps | head`: done, quietly
        return 0
    except OSError as err:                         # writing stdout: `> /dev/full`
        _say(f"attnge: error: {_system_error(err) or err}")
        return 3
    except KeyboardInterrupt:
        _say("attnge: interrupted")
        return 130
    except _Terminated:
        _say("attnge: terminated")
        return 143
    finally:
        signal.signal(signal.SIGTERM, previous)
