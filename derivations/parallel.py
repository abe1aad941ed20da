"""Where the draws of a sweep are measured: in worker processes of this machine, in this
process, or as tasks on Dask.

A draw is a function of its arguments alone: its generator comes from (seed, stream, ℓ,
draw) (``numerics.sampling.draw_rng``), never from which other draws run, where, or in
what order; and every draw runs with BLAS on one thread, wherever it runs (a worker process
started here, this process, a Dask worker started by :func:`cluster`), so that the
summation order of its matrix products, and with it every bit of its numbers, does not
depend on the machine's load, on ``OPENBLAS_NUM_THREADS`` or on where it ran. Speed comes
from running draws side by side in processes, one per free core, not from BLAS threads:
OpenBLAS threads spin while they wait, and a process that runs as many of them as there are
cores beside another busy process is slowed several times (a chain draw at ℓ = 500 beside
two others took 6.7 s with two threads, 1.1 s with one).

Outside :func:`cluster` the draws of a sweep run in worker processes forked for it, as many
as there are cores that other processes leave free (:func:`free_cores`), at most one per
draw and as many as the memory holds; with one free core, or where ``fork`` is not
available, in this process. Dask is imported only inside :func:`cluster` (the optional
extra ``attnge[dask]``).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager

from attnge.context import current
from attnge.theory.inputs import integer

EXTRA = "pip install 'attnge[dask]'"
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                     "MKL_NUM_THREADS")}
"""The environment of every Dask worker started here: BLAS on one thread (one task per core)."""


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
    """How many draws a memory check must hold at once: the workers of a local Dask cluster
    (1 in process or when the workers are another cluster's). The worker processes of a
    sweep outside a cluster are as many as the memory holds (:func:`measured`'s ``memory``),
    so a size is refused only where one draw does not fit."""
    return current().local_workers


@contextmanager
def cluster(workers: int | None = None, scheduler: str | None = None,
            check: Callable[[], None] | None = None) -> Iterator[None]:
    """Measure the draws of the sweeps run inside as Dask tasks.

    ``workers``: a local cluster of that many single-threaded worker processes;
    ``scheduler``: an existing cluster at that address (how a sweep runs on many
    machines; start its workers with ``--nthreads 1``); neither: the worker processes of
    :func:`measured`. ``check`` (e.g. the memory guard) runs before any local worker starts,
    with :func:`concurrent_draws` already counting them, where there is more than one. The
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


def at_once(memory: int) -> int:
    """How many draws of ``memory`` bytes this machine runs side by side when nothing else
    runs: its cores, as many as the available memory holds (what :func:`processes` gives an
    idle machine). It prices a look that has not run; it never sets what a draw gives."""
    from attnge.numerics.measure import available_bytes
    return max(1, min(cores(), available_bytes() // memory if memory > 0 else cores()))


def free_cores() -> int:
    """The cores other processes leave free now, at least 1 (all of them where ``/proc``
    cannot tell). It sets how many draws run side by side, never what they give."""
    others = other_runnable()
    return cores() if others is None else max(1, cores() - others)


_controller: list = []                  # threadpoolctl's controller, made once (it scans libs)


def _blas():
    """threadpoolctl's view of the BLAS libraries, NumPy's and SciPy's (SciPy bundles its own
    OpenBLAS, loaded here first so that the controller, made once, holds both)."""
    if not _controller:
        import scipy.linalg  # noqa: F401
        from threadpoolctl import ThreadpoolController
        _controller.append(ThreadpoolController())
    return _controller[0]


@contextmanager
def one_thread() -> Iterator[None]:
    """Run the block with BLAS on one thread (threadpoolctl), whatever the environment says:
    the numbers of a draw then do not depend on the machine's load or settings."""
    with _blas().limit(limits=1, user_api="blas"):
        yield


_IN_WORKER: list = []        # [fn] in a worker process of :func:`measured`


def _start_worker(fn: Callable) -> None:
    """A worker process: Ctrl-C is its parent's to handle (the parent ends it), SIGTERM ends
    it as usual (not the handler it inherited), BLAS on one thread for good."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _blas().limit(limits=1, user_api="blas")
    _IN_WORKER[:] = [fn]


def _call(args: tuple) -> object:
    return _IN_WORKER[0](*args)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End a pool at once, its running draws included (on an interrupt, an error, or a
    consumer that stops reading). ``ProcessPoolExecutor`` has no public way to end running
    tasks before Python 3.14 (``terminate_workers``), hence its process table."""
    table = dict(getattr(pool, "_processes", None) or {})
    for process in table.values():
        if process.is_alive():
            process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for process in table.values():
        process.join(5)


_LIVE: set = set()          # the pools of the sweeps running now, in any thread


def stop_all() -> None:
    """End every sweep's worker processes now (an interrupted run: the sweeps measured in
    the background end with an error instead of running on)."""
    for pool in list(_LIVE):
        _stop(pool)


def processes(tasks: int, memory: int = 0) -> int:
    """How many worker processes a sweep of ``tasks`` draws of ``memory`` bytes each gets:
    the free cores, at most one per draw and as many as the available memory holds; 1 (this
    process) inside a worker or where ``fork`` is not available."""
    if _IN_WORKER or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    n = min(tasks, free_cores())
    if memory > 0 and n > 1:
        from attnge.numerics.measure import available_bytes
        n = min(n, max(1, available_bytes() // memory))
    return max(1, n)


def measured(fn: Callable, tasks: Sequence[tuple], memory: int = 0
             ) -> Iterator[tuple[int, object]]:
    """(i, fn(*tasks[i])) for every task, as they finish: on the Dask client of
    :func:`cluster` (``fn`` and its results travel by pickle), else in :func:`processes`
    worker processes forked for the sweep (``fn`` is inherited, its arguments and results
    travel by pickle), else in order in this process. Every draw runs with BLAS on one
    thread. ``memory``: the bytes one draw needs at its peak (0: not known), so that the
    processes that run at once fit in memory. Where the run context holds a draw store
    (``Context.draws``), the draws it holds are taken from it and only the others measured
    (and kept there).
    """
    store = current().draws
    if store is None:
        yield from _measured(fn, tasks, memory)
        return
    todo, missing = [], object()
    for i, args in enumerate(tasks):
        value = store.get(fn, args, missing)
        if value is missing:
            todo.append(i)
        else:
            yield i, value
    for j, value in _measured(fn, [tasks[i] for i in todo], memory):
        store.put(fn, tasks[todo[j]], value)
        yield todo[j], value


def _measured(fn: Callable, tasks: Sequence[tuple], memory: int = 0
              ) -> Iterator[tuple[int, object]]:
    """:func:`measured` without the run context's draw store."""
    client = current().client
    if client is not None:
        yield from _on_dask(client, fn, tasks)
        return
    n = processes(len(tasks), memory)
    if n <= 1:
        for i, args in enumerate(tasks):
            with one_thread():
                result = fn(*args)
            yield i, result
        return
    pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                               initializer=_start_worker, initargs=(fn,))
    _LIVE.add(pool)
    try:
        pending = {pool.submit(_call, tuple(args)): i for i, args in enumerate(tasks)}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=pending.get):
                yield pending.pop(future), future.result()
    except BaseException:
        _stop(pool)
        raise
    finally:
        _LIVE.discard(pool)
    pool.shutdown(wait=True)


def _one_threaded(fn: Callable, *args) -> object:
    """``fn(*args)`` with BLAS on one thread (a Dask worker, whatever its environment)."""
    with one_thread():
        return fn(*args)


def _on_dask(client, fn: Callable, tasks: Sequence[tuple]) -> Iterator[tuple[int, object]]:
    import distributed

    futures = [client.submit(_one_threaded, fn, *args, pure=False) for args in tasks]
    index = {future.key: i for i, future in enumerate(futures)}
    for future in distributed.as_completed(futures):
        yield index[future.key], future.result()
        future.release()
