"""Known failures, each as one line and an exit code; the CLI's top-level handler is the only user.

Exit codes: 1 bad input (flags, config, data), 2 bad command line (argparse), 3 restore check
failed, 4 device unavailable, 5 disk full, a file-size limit (EFBIG), an output or workdir that cannot be
written, or a partial result, 6 out of memory (the run does not fit; its result file is still written),
7 torchrun, a worker or another child process failed, 8 diverged (NaN/inf loss), 130 SIGINT, 143 SIGTERM,
70 anything unexpected.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
import sys
import tomllib

EXIT_CONFIG, EXIT_USAGE, EXIT_RESTORE_FAILED, EXIT_DEVICE = 1, 2, 3, 4
EXIT_DISK, EXIT_MEMORY, EXIT_TORCHRUN, EXIT_DIVERGED, EXIT_INTERNAL = 5, 6, 7, 8, 70


class PilotError(Exception):
    """A failure with a precise message and its own exit code."""

    exit_code = EXIT_CONFIG


class DeviceUnavailable(PilotError):
    exit_code = EXIT_DEVICE


class NoSpace(PilotError):
    """Found before writing: the disk cannot hold what the run would write."""

    exit_code = EXIT_DISK


class TorchrunFailed(PilotError):
    exit_code = EXIT_TORCHRUN


class DoesNotFit(PilotError):
    """A configuration ran out of memory (in a torchrun rank, or every baseline tried); `detail`: the
    rank's own line."""

    exit_code = EXIT_MEMORY

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail or message


class Diverged(PilotError):
    exit_code = EXIT_DIVERGED


class Interrupted(BaseException):
    """SIGINT or SIGTERM: a BaseException like KeyboardInterrupt, so no `except Exception` swallows it."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class PartialRun(Exception):
    """Carries what a run measured before `cause` stopped it, so the caller can still write it."""

    def __init__(self, result, cause: BaseException):
        super().__init__(str(cause))
        self.result, self.cause = result, cause


def is_out_of_memory(exc: BaseException) -> bool:
    # Without torch imported no torch error exists: a failure before the import stays fast.
    torch = sys.modules.get("torch")
    text = str(exc)
    return (torch is not None and isinstance(exc, torch.OutOfMemoryError)) or (
        isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)
    )


def describe(exc: BaseException) -> tuple[str, int]:
    """(one-line message, exit code) for a failure; unknown ones name their type."""
    from .atomic import DiskFullError, FileTooLargeError

    if isinstance(exc, (PilotError, Interrupted)):
        return str(exc), exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted by SIGINT", 128 + signal.SIGINT
    if isinstance(exc, FileTooLargeError):
        return exc.strerror, EXIT_DISK
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        where = f" writing {exc.filename}" if exc.filename else ""
        return f"file too large{where}: this process's file-size limit (ulimit -f) was reached", EXIT_DISK
    if isinstance(exc, DiskFullError) or (isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)):
        return f"disk full: {exc.strerror or exc}", EXIT_DISK
    if isinstance(exc, tomllib.TOMLDecodeError):
        return f"invalid TOML: {exc}", EXIT_CONFIG
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}", EXIT_CONFIG
    if isinstance(exc, subprocess.TimeoutExpired):
        return (
            f"a child process did not finish within {exc.timeout:g} s: {' '.join(map(str, exc.cmd))[:300]}",
            EXIT_TORCHRUN,
        )
    if isinstance(exc, FileExistsError):
        return str(exc), EXIT_CONFIG
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}", EXIT_DISK if exc.errno in (
            errno.EACCES,
            errno.EROFS,
            errno.EPERM,
        ) else EXIT_CONFIG
    if is_out_of_memory(exc):
        return f"out of memory: {str(exc).splitlines()[0][:300]}", EXIT_MEMORY
    if isinstance(exc, ValueError):
        return str(exc), EXIT_CONFIG
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"unexpected {type(exc).__name__}: {first} (run again with --debug for the traceback)", EXIT_INTERNAL
