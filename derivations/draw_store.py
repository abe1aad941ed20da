"""Draws kept across the looks of ``attnge verify --decide``, and across its runs.

A draw is a function of its arguments (the size, the seed, its index, ...; its generator is
seeded from them), so that a look which asks for 2n draws where n were measured needs only the
n new ones. :class:`DrawStore` keeps every draw that ``parallel.measured`` returns while it is
the run context's ``draws`` (``context.Context.draws``), in memory and, given a folder, one
file per draw, written atomically as the draw finishes: a run interrupted and started again on
the same folder measures only what is missing, and its numbers are those of an uninterrupted
run (a stored draw is the pickled result, the same bytes back).

A draw is stored under its function's name, its arguments and the package's version (the
draws of another version are measured again, not read). The files are pickles: read a folder
only if you (or this package) wrote it.

>>> store = DrawStore()
>>> store.get(divmod, (7, 2)) is MISSING
True
>>> store.put(divmod, (7, 2), divmod(7, 2)); store.get(divmod, (7, 2))
(3, 1)
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from pathlib import Path

from attnge import __version__
from attnge.output.files import atomic

__all__ = ["MISSING", "DrawStore"]

MISSING = object()
"""What :meth:`DrawStore.get` returns for a draw it does not hold."""


class DrawStore:
    """The draws measured so far, by function and arguments; ``folder``: where each is also
    written (None: memory only).

    ``measured`` and ``read`` count the draws measured in this process and read from the
    folder.
    """

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = None if folder is None else Path(folder)
        self._held: dict[str, object] = {}
        self.measured = 0
        self.read = 0

    @staticmethod
    def key(fn: Callable, args: tuple) -> str:
        """The draw's name: version, function and arguments (their ``repr``: a float's is
        exact), and for a bound method its object's ``repr`` (a threshold ``Sweep``'s
        ``measure`` reads the sweep's fields besides its arguments)."""
        bound = getattr(fn, "__self__", None)
        owner = "" if bound is None else f"{bound!r}."
        return f"{__version__}|{fn.__module__}.{owner}{fn.__qualname__}{tuple(args)!r}"

    def _path(self, key: str) -> Path:
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.pickle"

    def get(self, fn: Callable, args: tuple, default: object = MISSING) -> object:
        """The stored draw, or ``default``."""
        key = self.key(fn, args)
        if key in self._held:
            return self._held[key]
        if self.folder is not None:
            path = self._path(key)
            if path.is_file():
                try:
                    stored_key, value = pickle.loads(path.read_bytes())
                except Exception:          # a damaged file: the draw is measured again
                    return default
                if stored_key == key:
                    self._held[key] = value
                    self.read += 1
                    return value
        return default

    def put(self, fn: Callable, args: tuple, value: object) -> None:
        """Keep a draw just measured (and write its file)."""
        key = self.key(fn, args)
        self._held[key] = value
        self.measured += 1
        if self.folder is not None:
            with atomic(self._path(key)) as tmp:
                tmp.write_bytes(pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))
