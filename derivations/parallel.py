"""Where the draws of a sweep are measured: in this process, or as tasks on Dask.

A draw is a function of its arguments alone: its generator comes from (seed, stream, ℓ,
draw) (``numerics.sampling.draw_rng``), never from which other draws run, where, or in
what order. So the numbers of a sweep do not depend on how its draws are spread. With
BLAS on one thread everywhere (the workers started here run so) they are the same bit for
bit; a multi-threaded BLAS (this process, by default) moves the last bits only, about
1e-14 relative, because its threads split the sums of a matrix product differently.

Outside :func:`cluster` everything runs in this process and Dask is not imported: it is
the optional extra ``attnge[dask]``. There each draw runs with as many BLAS threads as
there are cores that other processes leave free (:func:`blas_threads`): OpenBLAS threads
spin while they wait, and a process that runs as many of them as there are cores beside
another busy process is slowed several times (a chain draw at ℓ = 500 beside two others took
6.7 s with two threads, 1.1 s with one). A user who sets ``OPENBLAS_NUM_THREADS``,
``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` keeps that setting.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from attnge.context import current
from attnge.theory.inputs import integer

EXTRA = "pip install 'attnge[dask]'"
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                     "MKL_NUM_THREADS")}
"""The environment of every local worker: BLAS on one thread (one task per core)."""

def validate(workers: int | None, scheduler: str | None) -> tuple[int | None, str | None]:
    """The checked ``workers`` (1 to the cores of this machine) and ``scheduler`` (an
    address); ValueError naming them."""
    if workers is not None and scheduler is not None:
        raise ValueError("workers: give --workers (a local cluster) or --scheduler (an existing "
                         "one), not both")
    if workers is not None:     # one single-threaded worker per core at most
        workers = integer(workers, "workers", 1, os.cpu_count() or 1)
    if scheduler is not None and not str(scheduler).strip():
        raise ValueError("scheduler must be an address such as tcp://host:8786 (got '')")
    return workers, scheduler


def concurrent_draws() -> int:
    """How many draws run at once on this machine: the local workers (1 in process or
    when the workers are another cluster's), as the run context records them."""
    return current().local_workers


@contextmanager
def cluster(workers: int | None = None, scheduler: str | None = None,
            check: Callable[[], None] | None = None) -> Iterator[None]:
    """Measure the draws of the sweeps run inside as Dask tasks.

    ``workers``: a local cluster of that many single-threaded worker processes;
    ``scheduler``: an existing cluster at that address (how a sweep runs on many
    machines; start its workers with ``--nthreads 1`` and ``OPENBLAS_NUM_THREADS=1`` for
    numbers identical to a local run); neither: everything in this process. ``check``
    (e.g. the memory guard) runs before any local worker starts, with
    :func:`concurrent_draws` already counting them, where there is more than one. The
    client lives in the run context (``attnge.context.current()``) for the block.
    """
    workers, scheduler = validate(workers, scheduler)
    if workers is None and scheduler is None:
        yield
        return
    try:
        import distributed
    except ImportError:
        name = "scheduler" if scheduler is not None else "workers"
        raise ValueError(f"{name}: needs Dask distributed ({EXTRA})") from None
    ctx = current()
    saved = ctx.client, ctx.local_workers
    ctx.local_workers = workers or 1
    try:
        if check is not None and ctx.local_workers > 1:
            check()
        local = None
        if scheduler is not None:
            try:
                ctx.client = distributed.Client(scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as err:
                raise ValueError(f"scheduler: cannot connect to {scheduler} ({err})") from None
        else:
            local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                             processes=True, dashboard_address=None,
                                             env=ONE_THREAD)
            ctx.client = distributed.Client(local)
        try:
            yield
        finally:
            ctx.client.close()
            if local is not None:
                local.close()
    finally:
        ctx.client, ctx.local_workers = saved


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def other_runnable() -> int | None:
    """Threads of other processes running or waiting for a core now (Linux ``/proc``, a few
    milliseconds); None where ``/proc`` cannot tell."""
    me, count = str(os.getpid()), 0
    try:
        pids = os.listdir("/proc")
    except OSError:
        return None
    for pid in pids:
        if not pid.isdigit() or pid == me:
            continue
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                    stat = f.read()
                count += stat[stat.rindex(b")") + 2:][:1] == b"R"
        except (OSError, ValueError):
            continue        # the process or thread ended meanwhile
    return count


def blas_threads() -> int | None:
    """BLAS threads for the next draw in this process: the cores other processes leave free
    (at least 1); None (leave BLAS as it is) when the user set its threads or /proc is not
    there."""
    if any(os.environ.get(name) for name in ONE_THREAD):
        return None
    others = other_runnable()
    return None if others is None else max(1, cores() - others)


RECHECK_S = 1.0
"""A decision of :func:`blas_threads` serves the draws of the next second (small draws come
by the thousand; a look at /proc takes about 1.5 ms)."""
_decided: list = [-math.inf, None]      # [time.monotonic() of the decision, threads]
_controller: list = []                  # threadpoolctl's controller, made once (it scans libs)


def reset() -> None:
    """Forget the last BLAS decision (tests; the next draw looks again)."""
    _decided[:] = [-math.inf, None]


@contextmanager
def blas_limited() -> Iterator[int | None]:
    """Run the block with :func:`blas_threads` BLAS threads (threadpoolctl); yields them."""
    now = time.monotonic()
    if now - _decided[0] > RECHECK_S:
        _decided[:] = [now, blas_threads()]
    threads = _decided[1]
    if threads is None:
        yield None
        return
    if not _controller:
        from threadpoolctl import ThreadpoolController
        _controller.append(ThreadpoolController())
    with _controller[0].limit(limits=threads, user_api="blas"):
        yield threads


def measured(fn: Callable, tasks: Sequence[tuple]) -> Iterator[tuple[int, object]]:
    """(i, fn(*tasks[i])) for every task: in order in this process, as they finish on Dask
    (one task a draw; ``fn`` and its results travel by pickle). In this process each draw
    runs under :func:`blas_limited`."""
    client = current().client
    if client is None:
        for i, args in enumerate(tasks):
            with blas_limited():
                result = fn(*args)
            yield i, result
        return
    import distributed

    futures = [client.submit(fn, *args, pure=False) for args in tasks]
    index = {future.key: i for i, future in enumerate(futures)}
    for future in distributed.as_completed(futures):
        yield index[future.key], future.result()
        future.release()
