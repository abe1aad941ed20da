"""The run context: where a run's draws are measured (in this process, or on the Dask client
of ``parallel.cluster``) and the sweeps it has measured, which its steps share.

A context is an object, not module state: :func:`current` is the one in use (a process-wide
default, or the one :func:`running` sets for a block), so a caller that wants a run with
nothing remembered from another passes a fresh :class:`Context`, and a test that wants to
forget calls :meth:`Context.clear`. Sweeps are kept by key, the ``keep`` most recent.

>>> with running(Context()) as ctx:
...     ctx.sweep(("demo", 1), lambda: [1, 2]), current() is ctx
([1, 2], True)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["Context", "current", "running"]


class Context:
    """Where draws run (``client``: a Dask client or None; ``local_workers``: the draws that
    run at once on this machine), the sweeps measured so far (the ``keep`` last) and
    ``draws``: None, or a ``draw_store.DrawStore`` that keeps every single draw measured in
    the context, so that a sweep with more draws measures only the new ones (``--decide``).

    A sweep is computed once even when two threads ask for it: the second waits for the
    first's result."""

    def __init__(self, keep: int = 16) -> None:
        self.client: Any = None
        self.local_workers = 1
        self.draws: Any = None
        self.keep = keep
        self._sweeps: OrderedDict[Hashable, Any] = OrderedDict()
        self._computing: dict[Hashable, Future] = {}
        self._lock = threading.Lock()

    def sweep(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The sweep stored under ``key``, computed by ``compute()`` the first time (a call
        while another thread computes it waits for that result, or its error)."""
        with self._lock:
            if key in self._sweeps:
                self._sweeps.move_to_end(key)
                return self._sweeps[key]
            running = self._computing.get(key)
            if running is None:
                mine = self._computing[key] = Future()
        if running is not None:
            return running.result()
        try:
            value = compute()
        except BaseException as err:
            with self._lock:
                del self._computing[key]
            mine.set_exception(err)
            raise
        with self._lock:
            del self._computing[key]
            self._sweeps[key] = value
            while len(self._sweeps) > self.keep:
                self._sweeps.popitem(last=False)
        mine.set_result(value)
        return value

    def cached(self, key: Hashable) -> Any:
        """The sweep stored under ``key`` if it has been computed, else None (nothing is
        computed or waited for)."""
        with self._lock:
            return self._sweeps.get(key)

    def clear(self) -> None:
        """Forget every sweep."""
        with self._lock:
            self._sweeps.clear()

    def forget(self, kind: str) -> None:
        """Forget the sweeps of one ``kind`` (the first element of their keys)."""
        with self._lock:
            for key in [k for k in self._sweeps if isinstance(k, tuple) and k[:1] == (kind,)]:
                del self._sweeps[key]


_DEFAULT = Context()
_CURRENT: ContextVar[Context] = ContextVar("attnge_run_context")


def current() -> Context:
    """The context in use: the innermost :func:`running` block's, else the process's."""
    return _CURRENT.get(_DEFAULT)


@contextmanager
def running(context: Context) -> Iterator[Context]:
    """Use ``context`` inside the block."""
    token = _CURRENT.set(context)
    try:
        yield context
    finally:
        _CURRENT.reset(token)
