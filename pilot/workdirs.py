"""Where checkpoints and child processes' files go, and nothing left behind by a killed run.

A temporary workdir holds a lock file naming its owner (host, process id and the process's start
time, so a reused id is not taken for the owner). SIGINT and SIGTERM remove the folder on the way
out; SIGKILL cannot, so every run first removes the folders of owners that are gone. A folder kept
with --keep-workdir loses its lock and is never removed. Standard library only: the CLI checks a
--workdir before it imports torch.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

PREFIX = "gpu-pilot-"  # every temporary folder of the pilot's; the scaling step's is "gpu-pilot-scale-"
LOCK = ".gpu-pilot-owner.json"


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux); None where /proc does not say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]  # field 22; the name before ")" may hold spaces


def _owner() -> dict:
    return {"host": socket.gethostname(), "pid": os.getpid(), "start": _start_time(os.getpid())}


def _gone(owner: dict) -> bool:
    """Whether the process that wrote `owner` has ended; a lock from another host is never judged."""
    if owner.get("host") != socket.gethostname() or not isinstance(owner.get("pid"), int):
        return False
    try:
        os.kill(owner["pid"], 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    start = _start_time(owner["pid"])
    return owner.get("start") is not None and start is not None and start != owner["start"]


def clean_stale(root: Path | None = None) -> list[Path]:
    """Remove the temporary folders of earlier runs whose owner is gone; returns what was removed."""
    root = Path(root or tempfile.gettempdir())
    removed = []
    for folder in root.glob(f"{PREFIX}*"):
        lock = folder / LOCK
        try:
            owner = json.loads(lock.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # no lock: not ours, or kept on purpose
            continue
        if isinstance(owner, dict) and _gone(owner):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


@contextlib.contextmanager
def temporary(prefix: str = PREFIX, keep: bool = False, parent: Path | None = None) -> Iterator[Path]:
    """A new locked folder in `parent` (default: the system's temporary directory), removed at the end
    (on an error and on SIGINT/SIGTERM too, which the CLI turns into exceptions) unless `keep`."""
    assert prefix.startswith(PREFIX)
    for folder in clean_stale():
        print(f"gpu-pilot: removed {folder}, left by a run that was killed", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        (tmp / LOCK).write_text(json.dumps(_owner()), encoding="utf-8")
        yield tmp
    finally:
        if keep:
            (tmp / LOCK).unlink(missing_ok=True)
            print(f"gpu-pilot: workdir kept at {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def check_writable_folder(folder: Path, what: str) -> None:
    """Refuse, before any work, a folder the run could not write: create it, then a probe file in it."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".gpu-pilot-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise PermissionError(exc.errno, f"cannot write to the {what} {folder}: {exc.strerror}") from exc
