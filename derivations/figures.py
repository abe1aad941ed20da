"""Figures need matplotlib (the ``plot`` extra): imported on use, saved atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend; ValueError if missing."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError("out: figures need matplotlib; install it with "
                         "pip install 'attnge[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def require() -> None:
    """Fail early (before any sampling) when matplotlib is missing."""
    pyplot()


def save(fig, path: str | Path) -> None:
    """Save a PNG atomically, without timestamps in its metadata (reproducible bytes)."""
    plt = pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".png")
    os.close(fd)
    try:
        fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
        from derivations.report import default_mode

        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        plt.close(fig)
