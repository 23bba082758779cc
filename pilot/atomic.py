"""Atomic file writes: temporary file, fsync, rename, fsync of the folder. One home for checkpoints and results.

A writer killed or failing at any moment leaves the previous file intact and no temporary file
behind (a killed writer's leftover is removed by the next write to the same path). A full disk
raises `DiskFullError`, a file past the process's file-size limit (`ulimit -f`, EFBIG) raises
`FileTooLargeError`, whatever the library that did the writing called them.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path
from typing import BinaryIO, Callable


def _create(path: Path) -> BinaryIO:
    """A new file at `path`, never an existing one nor a link's target (O_EXCL refuses both)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o666), "wb")


# Tests swap this for a writer that fails after some bytes, as a full disk does.
open_for_write: Callable[[Path], BinaryIO] = _create


class NoRoomError(OSError):
    """A file could not be written whole: a full disk or a file-size limit."""


class DiskFullError(NoRoomError):
    """No space left where a file was being written."""

    def __init__(self, path: Path, needed: int | None = None):
        free = free_bytes(path.parent)
        need = f", about {needed / 1e9:.2f} GB needed" if needed else ""
        super().__init__(errno.ENOSPC, f"no space left on the device writing {path} ({free / 1e9:.2f} GB free{need})")
        self.path = path


class FileTooLargeError(NoRoomError):
    """The process's file-size limit (RLIMIT_FSIZE, `ulimit -f`) stopped a write."""

    def __init__(self, path: Path, limit: int | None):
        bound = f"{limit:,} bytes" if limit is not None else "a limit"
        super().__init__(
            errno.EFBIG,
            f"file too large: writing {path} reached this process's file-size limit of "
            f"{bound} (ulimit -f); raise it (ulimit -f unlimited) or write elsewhere",
        )
        self.path = path


def file_size_limit() -> int | None:
    """RLIMIT_FSIZE's soft limit in bytes; None when unlimited (or not a POSIX system)."""
    try:
        import resource
    except ImportError:
        return None
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return None if soft == resource.RLIM_INFINITY else soft


def free_bytes(folder: Path) -> int:
    folder = Path(folder)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def _disk_full(exc: BaseException, folder: Path) -> bool:
    """ENOSPC/EDQUOT directly, or a library error (torch's "unexpected pos", "file write failed")
    raised while the disk has no room left."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc and _disk_full(cause, folder):
        return True
    return isinstance(exc, RuntimeError) and free_bytes(folder) < 1 << 20


def _too_large(exc: BaseException, written: int) -> bool:
    """EFBIG directly (Python ignores SIGXFSZ, so the write fails instead of killing the process), or a
    library error (torch's "file write failed") raised once the file reached the limit."""
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        return True
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc and _too_large(cause, written):
        return True
    limit = file_size_limit()
    return isinstance(exc, RuntimeError) and limit is not None and written >= limit


def atomic_write(path: Path, write: Callable[[BinaryIO], None]) -> tuple[float, int]:
    """Write `path` through `write(file)` atomically; returns (seconds, bytes)."""
    path = Path(path)
    for stale in path.parent.glob(f".{path.name}.tmp-*"):
        stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    t0 = time.perf_counter()
    try:
        with open_for_write(tmp) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        written = tmp.stat().st_size if tmp.exists() else 0
        tmp.unlink(missing_ok=True)
        if isinstance(exc, Exception) and _too_large(exc, written):
            raise FileTooLargeError(path, file_size_limit()) from exc
        if isinstance(exc, Exception) and _disk_full(exc, path.parent):
            raise DiskFullError(path) from exc
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return time.perf_counter() - t0, path.stat().st_size


def check_writable(path: Path) -> None:
    """Refuse, before any work, an output the run could not write at the end: create and remove a
    temporary file beside it (permissions, read-only mounts, missing parents that cannot be made)."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        probe = path.with_name(f".{path.name}.probe-{os.getpid()}")
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise PermissionError(exc.errno, f"cannot write the result to {path}: {exc.strerror}") from exc
