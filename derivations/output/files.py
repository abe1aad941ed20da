"""Files written so that nothing half-written is ever seen: a temporary file beside the
target, renamed onto it; and output paths refused before any computing."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def default_mode() -> int:
    """rw for whoever the umask allows (mkstemp alone would leave 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


@contextmanager
def atomic(path: str | Path) -> Iterator[Path]:
    """A temporary file beside ``path``; on success it gets the umask's mode and is renamed
    onto ``path``, on failure it is removed (nothing half-written is ever at ``path``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_output(path: str | Path, name: str, folder: bool = False) -> Path:
    """Refuse, before any computing, an output path that cannot be written.

    The path (a file, or a folder with ``folder``) may exist with the right kind; its
    first existing ancestor must be a writable folder (the rest is created on writing).
    ValueError naming ``name`` otherwise.
    """
    path = Path(path)
    kind = "a folder" if folder else "a file path"
    if path.exists() and path.is_dir() != folder:
        raise ValueError(f"{name} must be {kind} (got {str(path)!r}, which is "
                         f"{'a folder' if path.is_dir() else 'a file'})")
    parent = path if folder and path.exists() else path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{name} must be {kind} (got {str(path)!r}: {str(parent)!r} is a file)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{name} must be writable (got {str(path)!r}: cannot write in "
                         f"{str(parent)!r})")
    return path


def write_atomic(path: str | Path, text: str) -> None:
    """Write a text file atomically (see ``atomic``)."""
    with atomic(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
