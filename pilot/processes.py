"""Child processes that never outlive the pilot: stopped on return, on an error, and on SIGINT/SIGTERM
(which `interrupts` turns into exceptions, so the stopping callback runs)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Callable

from .interrupts import deferred

STOP_GRACE_S = 10
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _dies_with(parent: int) -> Callable[[], None] | None:
    """For Linux: the child gets SIGTERM when the pilot dies, even by SIGKILL, where no cleanup of the pilot
    runs (a restore child held its memory for ~25 s; on a GPU the user's retry would find the card busy).
    SIGTERM, not SIGKILL: torchrun stops its workers on it, and the pilot's children stop their own."""
    if not sys.platform.startswith("linux"):
        return None

    def set_up() -> None:  # in the child, between fork and exec
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the pilot died before the line above: nobody would send it
            os.kill(os.getpid(), signal.SIGTERM)

    return set_up


def stop_process(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after a grace period (torchrun forwards SIGTERM to its workers)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def run_child(
    cmd: list[str],
    log: Path,
    timeout: float,
    on_line: Callable[[str], None] | None = None,
    env: dict[str, str] | None = None,
) -> int:
    """Run `cmd` with its stderr in `log`, and its stdout too unless `on_line` takes each line of it
    (a progress channel); returns the exit code. TimeoutExpired after `timeout` seconds."""
    with open(log, "w", encoding="utf-8") as out, contextlib.ExitStack() as stopping:
        with deferred():  # a signal inside Popen would otherwise leave the child with nobody to stop it
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE if on_line else out,
                stderr=out,
                text=True,
                env=env,
                preexec_fn=_dies_with(os.getpid()),
            )
            stopping.callback(stop_process, proc)
        if on_line is not None:
            for line in proc.stdout:
                on_line(line)
        return proc.wait(timeout=timeout)
