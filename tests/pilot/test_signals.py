"""SIGINT and SIGTERM during training and during the restore check: the child process is gone, the
temporary workdir (with its checkpoint) is removed, and what was measured is written as partial."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from .conftest import TINY_MODEL

# Child processes and real training: the full suite's (`make test`), not the fast tier's.
pytestmark = pytest.mark.slow

FLAGS = [f"--{k.replace('_', '-')}={v}" for k, v in TINY_MODEL.items()] + ["--seq-len=16", "--threads=1"]
WAIT_S = 120


def _processes_mentioning(*texts: str) -> list[int]:
    """Processes other than this one whose command line holds every one of `texts`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:  # it ended while we looked
                continue
            if all(t.encode() in cmdline for t in texts):
                found.append(int(entry.name))
    return found


def _wait_for(condition, what: str, proc: subprocess.Popen, stderr: list[str]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if proc.poll() is not None:
            pytest.fail(f"the run ended before {what}: {''.join(stderr)[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"no {what} within {WAIT_S} s")
        time.sleep(0.05)


# Both signals share one handler, so each phase is tried with one of them (all four: twice the time).
@pytest.mark.parametrize(("phase", "signum"), [("training", signal.SIGINT), ("restore", signal.SIGTERM)])
def test_signal_stops_children_and_removes_the_workdir(tmp_path, phase, signum):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    out = tmp_path / "r.json"
    steps = ["--steps=4000", "--warmup-steps=2"] if phase == "training" else ["--steps=8", "--warmup-steps=2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "pilot", "run", *FLAGS, *steps, "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TMPDIR=str(tmp)),
    )
    stderr: list[str] = []
    reader = threading.Thread(target=lambda: stderr.extend(iter(lambda: proc.stderr.read(1), "")), daemon=True)
    reader.start()
    if phase == "training":
        # Past the 2 warm-up steps: the stage is "training" (a signal in the warm-up says "warmup").
        _wait_for(
            lambda: re.search(r"pilot:.*\| *(?:[3-9]|[1-9]\d+)/4002", "".join(stderr)), "a training step", proc, stderr
        )
    else:
        _wait_for(lambda: _processes_mentioning(str(tmp), "_resume"), "the restore process", proc, stderr)
    proc.send_signal(signum)
    assert proc.wait(timeout=WAIT_S) == 128 + signum
    reader.join(timeout=10)
    err = "".join(stderr)
    name = signal.Signals(signum).name
    assert f"gpu-pilot: error: interrupted by {name}" in err and "Traceback" not in err, err[-2000:]
    assert _processes_mentioning(str(tmp)) == [], "a child process outlived the pilot"
    assert list(tmp.glob("gpu-pilot-*")) == [], "the temporary workdir (and its checkpoint) was left behind"
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["outcome"]["status"] == "partial"
    assert data["outcome"]["partial"]["reason"] == "interrupted" and data["outcome"]["partial"]["stage"] == phase
    assert data["losses"], "the steps done before the signal are kept"
    if phase == "restore":
        assert data["timing"]["step"]["n"] == 8 and data["checkpoint"]["size_bytes"] > 0
