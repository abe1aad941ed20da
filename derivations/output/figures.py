"""Figures need matplotlib (the ``plot`` extra): imported on use, saved atomically."""

from __future__ import annotations

from pathlib import Path

from attnge.output.files import atomic


def pyplot(option: str = "out"):
    """matplotlib.pyplot with the non-interactive Agg backend; ValueError naming the option
    that asked for a figure if matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError(f"{option}: figures need matplotlib, the plot extra; install it with "
                         "pip install 'attnge[plot]' (or pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def require(option: str = "out") -> None:
    """Fail early (before any sampling) when matplotlib is missing."""
    pyplot(option)


def save(fig, path: str | Path) -> None:
    """Save a PNG atomically, without timestamps in its metadata (reproducible bytes)."""
    try:
        with atomic(path) as tmp:
            fig.savefig(tmp, format="png", dpi=110, metadata={"Software": None})
    finally:
        pyplot().close(fig)
