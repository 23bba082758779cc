"""The scaling step through torchrun with gloo: DDP and FSDP2 on two processes at the same effective batch."""
import argparse
import subprocess
import sys

import pytest

from pilot.scale import run_scale, split_batch

from .conftest import tiny


def _opts(**kw):
    return argparse.Namespace(**{"nnodes": "1", "node_rank": 0, "rdzv_endpoint": "", "rdzv_backend": "c10d",
                                 "rdzv_id": "t", **kw})


@pytest.mark.parametrize(("train", "expected"), [({"grad_accum": 4}, (2, 2)), ({"micro_batch": 4}, (2, 1))])
def test_split_batch_keeps_the_effective_batch(train, expected):
    assert split_batch(tiny(train=train), 2) == expected


def test_split_batch_refuses_an_indivisible_batch():
    with pytest.raises(ValueError, match=r"train.grad_accum \(1\) or train.micro_batch \(3\)"):
        split_batch(tiny(train={"micro_batch": 3}), 2)


@pytest.mark.slow
def test_ddp_and_fsdp_on_two_processes(validate):
    result = run_scale(tiny(train={"grad_accum": 2}), ["ddp", "fsdp"], 2, _opts(), show_progress=False)
    data = validate(result)
    scaling = data["scaling"]
    assert scaling["backend"] == "gloo" and scaling["effective_batch"] == 4
    assert [r["strategy"] for r in scaling["runs"]] == ["ddp", "fsdp"]
    for run in scaling["runs"]:
        assert run["world_size"] == 2 and run["grad_accum"] == 1 and run["micro_batch"] == 2
        assert run["tokens_per_s"] > 0 and run["efficiency"] > 0 and run["peak_tensor_bytes"] > 0


def test_scale_cli_reports_a_failed_worker(tmp_path):
    cmd = [sys.executable, "-m", "pilot", "scale", "--strategies", "zero", "--output", str(tmp_path / "s.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode != 0 and "--strategies must name ddp and/or fsdp (got 'zero')" in proc.stderr
