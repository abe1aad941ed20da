"""Figures need matplotlib (the ``plot`` extra): imported on use, saved atomically."""

from __future__ import annotations

from pathlib import Path

from derivations.report import atomic


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
    try:
        with atomic(path) as tmp:
            fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    finally:
        pyplot().close(fig)
