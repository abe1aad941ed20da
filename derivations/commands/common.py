"""What the commands share: the exit-code exceptions, the guard around computing, the Dask
cluster options, progress counted in draws, ``--decide``'s default budget, and the rules of
the law options that ``tables`` and ``certify`` both take."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import contextmanager

from attnge import parallel
from attnge.errors import InternalError
from attnge.output.progress import Progress
from attnge.theory.inputs import duration

DEFAULT_BUDGET = "10m"
"""The time ``--decide`` may spend when no ``--budget`` is given."""


def decide_options(p: argparse.ArgumentParser, reused: str, section: int, per: str = ""
                   ) -> None:
    """``--decide`` and ``--budget``: ``reused`` names the draws a look keeps, ``section``
    the docs/math.md section of the rule, ``per`` what one budget covers."""
    p.add_argument("--decide", action="store_true", help="while INCONCLUSIVE for want of "
                   f"draws, double them (reusing those {reused}) within --budget, every look "
                   f"judged at the stricter per-look z of docs/math.md section {section}")
    p.add_argument("--budget", default=None, metavar="TIME", help="the time --decide may "
                   f"spend{per}, as 90s, 20m or 1.5h (default {DEFAULT_BUDGET})")


def decide_budget(args: argparse.Namespace, default: str = DEFAULT_BUDGET) -> float | None:
    """The seconds ``--decide`` may spend (``default`` without ``--budget``), None without
    it; ``--budget`` alone is bad input."""
    if args.budget is not None and not args.decide:
        raise ValueError("budget applies with --decide only")
    return duration(args.budget or default, "budget") if args.decide else None


@contextmanager
def computing():
    """Whatever goes wrong from here on is not the user's input: exit 3."""
    try:
        yield
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as err:
        raise InternalError(str(err)) from err


@contextmanager
def cluster(args: argparse.Namespace, validate: Callable[[], None]):
    """Compute inside the Dask cluster of --workers/--scheduler (neither: in process).
    ``validate`` runs again, before the workers start, when local workers put several draws
    in memory at once (its error is still bad input); what fails after that is ours."""
    workers, scheduler = parallel.validate(args.workers, args.scheduler)
    with parallel.cluster(workers, scheduler, check=validate), computing():
        yield


def cluster_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", default=None, metavar="N", help="measure the draws on a local "
                   "Dask cluster of N single-threaded workers (the dask extra)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="measure the draws on "
                   "the Dask cluster at ADDRESS, e.g. tcp://host:8786 (the dask extra)")


def draws(progress: Progress):
    """``progress`` for callers that count draws: (i, n) → a draw label."""
    return lambda i, n: progress(i, n, f"draw {min(i + 1, n)}" if i < n else "")


HEADS_ONLY = ("gamma-k", "gamma-v", "gamma-o", "sharing")
"""The law options that apply with --heads only."""


def law_options(args: argparse.Namespace, what: str, heads_only: tuple[str, ...] = HEADS_ONLY,
                single_only: tuple[str, ...] = ("y",)) -> dict:
    """The one-head options (``ys``) or the multi-head ones (``heads``, ``gammas``,
    ``sharing``) of ``tables`` and ``certify``, the options of the other kind refused
    (``what`` names the multi-head output in the message)."""
    from attnge.coefficient_tables import parse_list

    value = lambda name: getattr(args, name.replace("-", "_"))  # noqa: E731
    if args.heads is None:
        given = [name for name in heads_only if value(name) is not None]
        if given:
            raise ValueError(f"{given[0]} applies with --heads only ({what})")
        return {"ys": parse_list("1" if args.y is None else args.y, "y")}
    for name in single_only:
        if value(name) is not None:
            raise ValueError(f"{name} does not apply with --heads (the multi-head laws "
                             "take gamma-k, gamma-v, gamma-o)")
    if args.gamma_k is None:
        raise ValueError("gamma-k is needed with --heads (gamma_K = h d_K/n)")
    return {"heads": parse_list(args.heads, "heads"),
            "gammas": {name.replace("-", "_"): None if value(name) is None else
                       parse_list(value(name), name) for name in HEADS_ONLY[:3]},
            "sharing": args.sharing or "none"}
