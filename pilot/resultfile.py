"""The result file of a run: reserved before any work, rewritten after every stage, finished last.

A run that is killed outright (SIGKILL, the OOM killer, a provider stopping the machine) runs no
handler, so what it finished must already be on disk: after each stage the whole result is
rewritten atomically, marked partial with the reason "unfinished" and the stage the run is in.

Room for those rewrites is reserved up front, beside the file: a hidden reserve file as large as two
results can be (one being replaced, one replacing it). Each rewrite first releases the reserve,
then takes it back less what the result grew, so a disk that other writers fill during the run
cannot stop the last write; a disk already full fails before any work. Standard library only:
`prepare()` runs before the CLI imports torch.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import shlex
import sys
import tempfile
from pathlib import Path

from .atomic import FileTooLargeError, atomic_write, check_writable, file_size_limit, free_bytes
from .errors import NoSpace

RESERVE_BASE = 256 * 1024  # a result's fixed part: environment, configuration, restore findings, flags
RESERVE_PER_STEP = 32  # one loss, as json.dumps(indent=2) writes it


DEFAULT_FILENAME = "pilot-result.json"


def target(output: Path, overwrite: bool) -> Path:
    """Where a result goes (a folder means the default file name in it); an existing file is refused
    unless the reader asked to replace it."""
    path = output / DEFAULT_FILENAME if output.is_dir() else output
    # A link or anything but a regular file is never replaced, --overwrite or not: renaming the result over
    # /dev/null (as root) or over a link's target would break what it names.
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise FileExistsError(f"{path} is not a regular file; write the result to a file path")
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} already exists; pass --overwrite to replace it")
    return path


def command_line(argv: list[str]) -> str:
    return shlex.join(["gpu-pilot", *argv])


class ResultFile:
    """`prepare()` before any work; `stage()` after each one; `finish()` once, with the final result."""

    def __init__(self, output: Path, overwrite: bool, steps: int, command: str = "", fallback: Path | None = None):
        self.path = target(Path(output), overwrite=True)  # refused in prepare(), before any work
        self.overwrite, self.command, self.fallback = overwrite, command, fallback
        self.reserve_path = self.path.with_name(f".{self.path.name}.reserve")
        # The reserve: room for the largest result twice over (old and new file side by side).
        self.capacity = 2 * (RESERVE_BASE + RESERVE_PER_STEP * steps)
        self.written = 0  # the size of the file on disk, 0 before the first write
        self.warned = False
        self.reported: set[str] = set()  # contract problems already printed

    # -- before any work -----------------------------------------------------------------------
    def prepare(self) -> None:
        """Refuse an existing file (without --overwrite), an output that cannot be written, and a disk
        or a file-size limit without room for the result."""
        target(self.path, self.overwrite)
        check_writable(self.path)
        try:
            self._reserve(self.capacity)
        except OSError as exc:
            self.reserve_path.unlink(missing_ok=True)
            if exc.errno == errno.EFBIG:
                raise FileTooLargeError(self.path, file_size_limit()) from exc
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                free = free_bytes(self.path.parent)
                raise NoSpace(
                    f"not enough free space for the result in {self.path.parent}: "
                    f"{self.capacity / 1e6:.1f} MB reserved for it, {free / 1e6:.1f} MB free"
                ) from exc
            raise

    def _reserve(self, size: int) -> None:
        # The reserve's name is the pilot's own: whatever was planted there (a link to a file it would
        # truncate) goes, and the new file is created, never opened through a link.
        if self.reserve_path.is_symlink() or (self.reserve_path.exists() and not self.reserve_path.is_file()):
            self.reserve_path.unlink()
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.reserve_path, flags, 0o600)
        try:
            if size > 0:
                if hasattr(os, "posix_fallocate"):
                    os.posix_fallocate(fd, 0, size)  # real blocks, not a sparse file
                else:
                    os.write(fd, b"\xff" * size)
            os.fsync(fd)
        finally:
            os.close(fd)

    # -- during the run ------------------------------------------------------------------------
    def _text(self, result, outcome=None) -> bytes:
        from . import flags

        result.flags = flags.evaluate(result)
        if self.command and not result.command:
            result.command = self.command
        data = result.to_dict()
        if outcome is not None:
            data["outcome"] = outcome
        text = result.to_json(data).encode("utf-8")
        self._check(text)
        return text

    def _check(self, text: bytes) -> None:
        """Every file is held to the result contract before it is written. A problem is the pilot's own
        bug: the file is still written (nothing measured is lost), and stderr says what the site will refuse."""
        from gpuguide.results import english  # wording only; the check is pilot.result's

        from .result import parse

        for problem in parse(text)[1]:
            line = english(problem)
            if line not in self.reported:
                self.reported.add(line)
                print(
                    f"gpu-pilot: warning: {self.path} breaks the result contract, so the site will refuse it: {line}",
                    file=sys.stderr,
                )

    def _write(self, text: bytes, final: bool) -> None:
        self.reserve_path.unlink(missing_ok=True)  # its room takes the new file
        try:
            atomic_write(self.path, lambda fh: fh.write(text))
        finally:
            if not final:
                # Take the room back, less what the file grew: what the reserve gave up is on disk now.
                try:
                    self._reserve(max(0, self.capacity - len(text)))
                except OSError:
                    self.reserve_path.unlink(missing_ok=True)
        self.written = len(text)

    def stage(self, result, stage: str, steps_done: int) -> None:
        """The result so far, marked unfinished in `stage`. The first write fails the run (the disk is
        full before any work); a later failure is reported once and the run goes on."""
        from .report import Outcome, Partial

        outcome = dataclasses.asdict(
            Outcome(
                "partial",
                f"unfinished: written while the run was in its {stage} stage; if no gpu-pilot is running, "
                "it was killed there (SIGKILL, the out-of-memory killer, or the machine stopped)",
                Partial("unfinished", stage, steps_done),
            )
        )
        text = self._text(result, outcome)
        try:
            self._write(text, final=False)
        except OSError as exc:
            if self.written == 0:
                raise
            if not self.warned:
                print(
                    f"gpu-pilot: warning: could not update {self.path} after the {stage} stage ({exc.strerror or exc}); "
                    "the run goes on",
                    file=sys.stderr,
                )
                self.warned = True

    # -- at the end ----------------------------------------------------------------------------
    def finish(self, result) -> Path:
        """The final result; on a failure, a copy elsewhere, named in the error. Returns the file written."""
        text = self._text(result)
        try:
            self._write(text, final=True)
            return self.path
        except OSError as exc:
            copy = self._copy(text)
            where = (
                f"a copy was written to {copy}"
                if copy
                else "no copy could be written anywhere: the summary above is what is left"
            )
            exc.strerror = f"{exc.strerror or exc}; {where}"
            raise

    def _copy(self, text: bytes) -> Path | None:
        """The result in the first folder that takes it: --workdir, else the system's temporary folder."""
        for folder in (self.fallback, Path(tempfile.gettempdir())):
            if folder is None or not folder.is_dir() or folder.resolve() == self.path.parent.resolve():
                continue
            target = folder / f"{self.path.stem}.{os.getpid()}{self.path.suffix}"
            try:
                atomic_write(target, lambda fh: fh.write(text))
                return target
            except OSError:
                continue
        return None

    def discard_reserve(self) -> None:
        self.reserve_path.unlink(missing_ok=True)
