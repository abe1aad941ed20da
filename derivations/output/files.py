"""Files written so that nothing half-written is ever seen and nothing else is touched.

A result file is written to a temporary file beside its target and renamed onto it; the
target of a symbolic link is written, not the link. An output path that cannot take a file
is refused before any computing (:func:`check_output`): a folder, a device, a FIFO, a socket,
a symlink loop. ``-`` (and ``/dev/stdout``, ``/dev/fd/N``, what a shell's ``>(…)`` passes)
streams instead. Appended stores are guarded by an advisory lock (:func:`locked`) so that any
number of runs can share one.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

STDOUT = "-"
"""The output path that means standard output."""

_STREAMS = re.compile(r"^/(dev/(stdout|stderr|fd/\d+)|proc/(self|\d+)/fd/\d+)$")
"""Paths that name an open stream of this process: written through, not replaced."""


def default_mode() -> int:
    """rw for whoever the umask allows (mkstemp alone would leave 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def is_stream(path: str | Path) -> bool:
    """Whether ``path`` is ``-`` or names one of this process's open streams."""
    return str(path) == STDOUT or bool(_STREAMS.match(str(path)))


def target(path: str | Path) -> Path:
    """The file that writing ``path`` changes: the end of its chain of symbolic links."""
    return Path(os.path.realpath(path))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(path: Path) -> None:
    """Remove the temporary files that runs no longer alive left beside ``path``
    (``.NAME.PID.*.tmp``, killed before they could)."""
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.(\d+)\.[^/]*\.tmp$")
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        found = pattern.match(name)
        if found and int(found.group(1)) != os.getpid() and not _alive(int(found.group(1))):
            (path.parent / name).unlink(missing_ok=True)


@contextmanager
def atomic(path: str | Path) -> Iterator[Path]:
    """A temporary file beside ``path`` (the target of its links); on success it gets the
    umask's mode and is renamed onto the target, on failure or a signal it is removed
    (nothing half-written is ever at ``path``). Stale temporary files of dead runs beside
    it are removed first."""
    path = target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.",
                               suffix=".tmp")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def check_output(path: str | Path, name: str, folder: bool = False,
                 stream: bool = False) -> Path:
    """Refuse, before any computing, an output path that cannot be written.

    A file path may be new or a regular file (through any symbolic links); with ``stream``
    it may also be ``-`` (standard output) or a stream of this process (``/dev/stdout``,
    ``/dev/fd/N``). A folder (``folder``) may be new or a folder. The first existing
    ancestor of what is new must be a writable folder. ValueError naming ``name``
    otherwise (a device, FIFO, socket or folder where a file goes, a file where a folder
    goes, a symlink loop).
    """
    if stream and is_stream(path):
        return Path(path)
    if str(path) == STDOUT:
        raise ValueError(f"{name} must be a file path here (standard output holds the "
                         "command's table)")
    kind = "a folder" if folder else "a regular file"
    hint = " or - for standard output" if stream else ""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):   # new (or under a file: said below)
        mode = None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ValueError(f"{name} must be {kind}{hint} (got {str(path)!r}: a loop of "
                             "symbolic links)") from None
        raise ValueError(f"{name} cannot be written (got {str(path)!r}: "
                         f"{err.strerror})") from None
    if mode is not None and (stat.S_ISDIR(mode) if folder else stat.S_ISREG(mode)):
        parent = target(path) if folder else target(path).parent
    elif mode is not None:
        raise ValueError(f"{name} must be {kind}{hint} (got {str(path)!r}, which is "
                         f"{'a file' if stat.S_ISREG(mode) else _kind(mode)})")
    else:                                # new; a dangling link's target is created
        parent = target(path).parent if os.path.islink(path) else Path(path).parent
        while not parent.exists():
            parent = parent.parent
        if not parent.is_dir():
            raise ValueError(f"{name} must be {kind} (got {str(path)!r}: {str(parent)!r} is "
                             "a file)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{name} must be writable (got {str(path)!r}: cannot write in "
                         f"{str(parent)!r})")
    return Path(path)


def write_atomic(path: str | Path, text: str) -> None:
    """Write a text file atomically (see :func:`atomic`); ``-`` or a stream of this process
    is written through."""
    if is_stream(path):
        if str(path) == STDOUT:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        return
    with atomic(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """An exclusive advisory lock (``flock``) for the store at ``path``, held on
    ``.NAME.lock`` beside it (the store itself is replaced by renames, the lock file is
    not): every run that reads-then-writes a store does so under it."""
    path = target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent / f".{path.name}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)                       # closing releases the lock


def append_line(path: str | Path, line: bytes) -> None:
    """Append one line to a store and fsync it, first ending the last line when a run that
    was killed left it without its newline (held under :func:`locked`)."""
    with open(target(path), "ab+") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                fh.write(b"\n")
        fh.write(line + b"\n")
        fh.flush()
        os.fsync(fh.fileno())


def check_files(folder: str | Path, names: list[str], name: str) -> None:
    """Refuse, before any computing, a folder's files that cannot be written (each as
    :func:`check_output`): a name that is a folder or a device there is found up front."""
    check_output(folder, name, folder=True)
    for file in names:
        check_output(Path(folder) / file, name)


def quiet_stdout() -> None:
    """Standard output is gone (a closed pipe): what is still to print goes nowhere, and
    the interpreter's last flush finds nothing to complain about."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")


def emit(text: str, stream=None) -> None:
    """Print ``text`` (on standard output, or ``stream``); a closed pipe (``| head``) takes
    the rest quietly, so that a command still ends with its verdict."""
    stream = sys.stdout if stream is None else stream
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        if stream is sys.stdout:
            quiet_stdout()
