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
