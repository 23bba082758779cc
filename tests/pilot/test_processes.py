"""A signal that lands while a child process is being started still stops that child: the window in
which CI once saw a restore process outlive the pilot."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from pilot.errors import Interrupted
from pilot.interrupts import signals_raise
from pilot.processes import run_child


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_popen_still_stops_the_child(tmp_path, monkeypatch, signum):
    started: list[int] = []
    real = subprocess.Popen._execute_child

    def start_then_signal(self, *args, **kwargs):
        real(self, *args, **kwargs)
        started.append(self.pid)
        os.kill(os.getpid(), signum)  # as a signal from outside can: the child runs, Popen has not returned
        for _ in range(1000):  # the handler runs here, inside Popen, unless it is held
            pass

    monkeypatch.setattr(subprocess.Popen, "_execute_child", start_then_signal)
    try:
        with pytest.raises(Interrupted) as raised, signals_raise():
            run_child([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / "child.log", timeout=60)
        assert raised.value.signum == signum
        assert started and not _alive(started[0]), "the child outlived the signal"
    finally:
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


def test_without_a_signal_the_child_runs_to_its_exit_code(tmp_path):
    with signals_raise():
        code = run_child(
            [sys.executable, "-c", "import sys; print('x', file=sys.stderr); sys.exit(3)"],
            tmp_path / "child.log",
            timeout=60,
        )
    assert code == 3 and (tmp_path / "child.log").read_text(encoding="utf-8") == "x\n"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_pilot_killed_with_sigkill_takes_its_child_with_it(tmp_path):
    """Issue 52 item 5: kill -9 of the pilot during the restore stage left the restore child running ~25 s
    (on a GPU, holding memory while the user retried). No cleanup of the pilot runs on SIGKILL; the kernel
    sends the child SIGTERM."""
    import time

    pid_file = tmp_path / "child.pid"
    child_script = tmp_path / "child.py"
    child_script.write_text(f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    pilot_like = "import sys\nfrom pathlib import Path\nfrom pilot.processes import run_child\n"
    pilot_like += "run_child([sys.executable, sys.argv[1]], Path(sys.argv[2]), 60)\n"
    parent = subprocess.Popen([sys.executable, "-c", pilot_like, str(child_script), str(tmp_path / "child.log")])
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    child = int(pid_file.read_text())
    parent.kill()
    parent.wait()
    for _ in range(100):  # the kernel's signal, and the child's exit, take a moment
        if not _alive(child) or _zombie(child):
            break
        time.sleep(0.05)
    try:
        assert not _alive(child) or _zombie(child), "the child outlived its killed parent"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def _zombie(pid: int) -> bool:
    """An exited child not yet reaped by its new parent (init, or the test's reaper) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
