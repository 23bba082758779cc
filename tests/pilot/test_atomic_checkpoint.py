"""A writer killed (SIGKILL) in the middle of a checkpoint write never destroys the previous checkpoint."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import torch

from pilot.checkpoint import atomic_save

WRITER = textwrap.dedent("""
    import sys, torch
    from pathlib import Path
    from pilot.checkpoint import atomic_save
    path = Path(sys.argv[1])
    version = int(sys.argv[2])
    while True:
        version += 1
        atomic_save({"version": version, "payload": torch.full((4_000_000,), float(version))}, path)
        print(version, flush=True)
""")


@pytest.mark.slow  # a child process killed mid-write, many times
def test_sigkill_during_writes_keeps_a_loadable_checkpoint(tmp_path):
    path = tmp_path / "checkpoint.pt"
    atomic_save({"version": 0, "payload": torch.zeros(4_000_000)}, path)
    last = 0
    for attempt in range(6):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(last)], stdout=subprocess.PIPE, text=True)
        proc.stdout.readline()  # at least one complete write, then kill at a varying point of the next ones
        time.sleep(0.01 + 0.013 * attempt)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        state = torch.load(path, weights_only=True)
        assert state["version"] > last, "the checkpoint went backwards"
        assert torch.equal(state["payload"], torch.full((4_000_000,), float(state["version"])))
        last = state["version"]
    leftovers = list(tmp_path.glob(".checkpoint.pt.tmp-*"))
    atomic_save({"version": -1, "payload": torch.zeros(1)}, path)
    assert not list(tmp_path.glob(".checkpoint.pt.tmp-*")), "the next save cleans up a killed writer's temporary file"
    assert torch.load(path, weights_only=True)["version"] == -1
    assert len(leftovers) <= 1
