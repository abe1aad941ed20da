"""Progress on stderr: a tqdm bar on a terminal, one line per finished unit otherwise.

A command calls ``progress(i, n, label)`` before unit i of n (0-based) and once more with
i == n when all are done. On a terminal with tqdm installed (the ``progress`` extra) that
drives a bar; elsewhere (a log, CI, no tqdm) each finished unit is one line,
``attnge: verify 3/12 done: M0-Y (56.2 s)``. ``quiet`` silences both. From Python
(``auto``), a notebook also gets tqdm's bar (``tqdm.auto``, drawn as a widget).
"""

from __future__ import annotations

import sys
import time


class Progress:
    """The progress of ``what`` (a command name) on ``stream``."""

    def __init__(self, what: str, quiet: bool = False, stream=None, auto: bool = False) -> None:
        self.what, self.quiet = what, quiet
        self.stream = sys.stderr if stream is None else stream
        self.bar = None
        self.last: str | None = None
        self.started = time.perf_counter()
        notebook = auto and "ipykernel" in sys.modules
        if not quiet and (notebook or self.stream.isatty()):
            try:
                if notebook:
                    from tqdm.auto import tqdm
                else:
                    from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=0, desc=f"attnge {what}", file=self.stream, leave=True)

    def __call__(self, i: int, n: int, label: str = "") -> None:
        if self.quiet:
            return
        now = time.perf_counter()
        if self.bar is not None:
            self.bar.total = n
            self.bar.n = i
            self.bar.set_postfix_str(label)
            self.bar.refresh()
            if i == n:
                self.bar.close()
        elif i > 0 and self.last is not None:
            self.stream.write(f"attnge: {self.what} {i}/{n} done: {self.last} "
                              f"({now - self.started:.1f} s)\n")
            self.stream.flush()
        self.last, self.started = label, now
