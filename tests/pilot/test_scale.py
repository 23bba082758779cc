"""The scaling step through torchrun with gloo: DDP and FSDP2 on two processes at the same effective batch,
on one node and on two "nodes" of one host (c10d rendezvous on 127.0.0.1)."""

import argparse
import contextlib
import json
import os
import re
import socket
import subprocess
import sys

import pytest

from pilot import scale, scale_launch
from pilot.errors import PartialRun, TorchrunFailed
from pilot.scale import ScaleConfig, run_scale, split_batch

from .conftest import TINY_MODEL, tiny


def _scale(*strategies: str) -> ScaleConfig:
    return ScaleConfig(strategies=strategies, nproc_per_node=2, rdzv_id="t")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strategies": ("ddp", "zero")}, "--strategies must name some of ddp,zero1,zero2,fsdp,fsdp_ckpt (got 'zero')"),
        ({"strategies": ()}, "--strategies must name some of ddp,zero1,zero2,fsdp,fsdp_ckpt (got none)"),
        ({"nproc_per_node": 0}, "--nproc-per-node must be >= 1 (got 0)"),
        ({"nnodes": "two"}, "--nnodes must be a number of nodes such as 2, or a range such as 1:4 (got 'two')"),
        ({"nnodes": "1:4"}, "--nnodes must be a fixed number here"),
        (
            {"nnodes": "2", "rdzv_endpoint": "127.0.0.1:29400", "node_rank": 2},
            "--node-rank must be between 0 and 1 (got 2)",
        ),
        ({"nnodes": "2", "rdzv_endpoint": "127.0.0.1"}, "--rdzv-endpoint must be host:port with --nnodes 2"),
        ({"rdzv_timeout": 0}, "--rdzv-timeout must be >= 1 second (got 0)"),
    ],
)
def test_scale_config_checks_itself_naming_the_option(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ScaleConfig(**options)


def test_scale_config_from_the_command_line():
    args = argparse.Namespace(
        strategies="fsdp,",
        nproc_per_node=4,
        nnodes="2:2",
        node_rank=1,
        rdzv_endpoint="h:29400",
        rdzv_backend="c10d",
        rdzv_id="x",
        rdzv_timeout=90,
    )
    scale_config = ScaleConfig.from_args(args)
    assert scale_config.strategies == ("fsdp",) and (scale_config.nodes, scale_config.world) == (2, 8)
    assert scale_config.rdzv_timeout == 90


def test_a_failed_torchrun_leaves_its_log_tail_and_a_node_gives_up_waiting(tmp_path, monkeypatch, capsys):
    """torchrun's log goes with the temporary folder: its last lines stay on stderr. Each rendezvous
    carries --rdzv-timeout, so a node whose peer has already failed stops waiting for it."""
    seen = {}

    def child(cmd, log, timeout, env=None):
        seen["cmd"] = cmd
        log.write_text("\n".join(f"line {i}" for i in range(50)) + "\nSignal 6 (SIGABRT) received by PID 7\n")
        return 1

    monkeypatch.setattr(scale_launch, "run_child", child)
    multi = ScaleConfig(nproc_per_node=1, nnodes="2", rdzv_endpoint="127.0.0.1:29400", rdzv_timeout=45)
    with pytest.raises(TorchrunFailed, match=re.escape("torchrun with ddp failed (exit 1): Signal 6 (SIGABRT)")):
        scale_launch.run_torchrun(tmp_path / "config.json", "ddp", tmp_path / "ddp.json", multi)
    assert "--rdzv-conf=join_timeout=45" in seen["cmd"] and "--rdzv-id=gpu-pilot-ddp" in seen["cmd"]
    err = capsys.readouterr().err
    assert "torchrun's last 30 lines (ddp):" in err and "  line 21\n" in err and "line 20\n" not in err


@pytest.mark.parametrize(("train", "expected"), [({"grad_accum": 4}, (2, 2)), ({"micro_batch": 4}, (2, 1))])
def test_split_batch_keeps_the_effective_batch(train, expected):
    assert split_batch(tiny(train=train), 2) == expected


def test_split_batch_refuses_an_indivisible_batch():
    with pytest.raises(ValueError, match=r"train.grad_accum \(1\) or train.micro_batch \(3\)"):
        split_batch(tiny(train={"micro_batch": 3}), 2)


def _check_scaling(data, strategies, nnodes=1):
    scaling = data["scaling"]
    assert scaling["backend"] == "gloo" and scaling["effective_batch"] == 4 and scaling["nnodes"] == nnodes
    assert [r["strategy"] for r in scaling["runs"]] == strategies
    for run in scaling["runs"]:
        assert run["world_size"] == 2 and run["grad_accum"] == 1 and run["micro_batch"] == 2
        assert run["tokens_per_s"] > 0 and run["efficiency"] > 0 and run["peak_tensor_bytes"] > 0


@pytest.mark.slow
def test_fsdp_on_two_processes_of_one_node(validate):
    # DDP and FSDP across two nodes are below; benchmarks/pilot_scale_loop.py repeats both here 50 times.
    result = run_scale(tiny(train={"grad_accum": 2}), _scale("fsdp"), show_progress=False)
    _check_scaling(validate(result), ["fsdp"])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.slow
def test_two_nodes_on_one_host(tmp_path, validate):
    """Before: torchrun ignored --node-rank under c10d, only global rank 0 wrote, so the other node
    failed ("exit 0") after DDP and its peer hung in the FSDP rendezvous."""
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in TINY_MODEL.items()] + [
        "--seq-len=16",
        "--steps=2",
        "--warmup-steps=2",
        "--threads=1",
        "--grad-accum=2",
        "--quiet",
        "--nproc-per-node=1",
        "--nnodes=2",
        f"--rdzv-endpoint=127.0.0.1:{_free_port()}",
        "--rdzv-timeout=120",  # a node whose peer failed gives up in 2 minutes rather than torchrun's 10
        "--strategies=ddp,fsdp",
    ]
    env = dict(os.environ, TMPDIR=str(tmp_path))
    nodes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pilot",
                "scale",
                *flags,
                f"--node-rank={rank}",
                "-o",
                str(tmp_path / f"node{rank}.json"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for rank in (1, 0)
    ]
    try:
        outputs = [node.communicate(timeout=400) for node in nodes]
    finally:
        for node in nodes:  # SIGTERM first: `pilot scale` stops its torchrun, which SIGKILL would orphan
            node.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.wait(timeout=30)
            node.kill()
    (out1, err1), (out0, err0) = outputs
    assert [n.returncode for n in nodes] == [0, 0], (err0[-2000:], err1[-2000:])
    assert "node 1 of 2 finished ddp, fsdp; the node started with --node-rank 0 writes the result" in err1
    assert not (tmp_path / "node1.json").exists()
    assert f"result written to {tmp_path / 'node0.json'}" in out0
    data = validate(json.loads((tmp_path / "node0.json").read_text(encoding="utf-8")))
    _check_scaling(data, ["ddp", "fsdp"], nnodes=2)
    for run in data["scaling"]["runs"]:  # each node's temporary folder is its own: DCP needs a shared one
        assert run["checkpoint"]["error"] == (
            "not measured: across nodes, a distributed checkpoint needs a folder every node shares"
        )


@pytest.mark.slow  # real training (the single-process baseline)
def test_a_failed_strategy_keeps_the_finished_ones(monkeypatch, validate):
    def torchrun(cfg_file, strategy, out, scale_config, threads):
        if strategy == "fsdp":
            raise TorchrunFailed("torchrun with fsdp failed (exit 1): rank 1: RuntimeError: planted")
        return {"times": [0.01, 0.012], "peak": 1000, "world": 2}

    monkeypatch.setattr(scale, "run_torchrun", torchrun)
    with pytest.raises(PartialRun) as caught:
        run_scale(tiny(train={"grad_accum": 2}), _scale("ddp", "fsdp"), show_progress=False)
    data = validate(caught.value.result)
    assert [r["strategy"] for r in data["scaling"]["runs"]] == ["ddp"]
    assert data["outcome"]["partial"] == {"reason": "failed", "stage": "scaling", "steps_done": 6}
    assert data["outcome"]["error"] == "torchrun with fsdp failed (exit 1): rank 1: RuntimeError: planted"


def test_the_workers_own_error_is_shown(tmp_path, monkeypatch):
    """A failing rank writes its own one-line error beside the figures; the parent shows it, not
    torchrun's last lines (which cut it off)."""
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"steps": 1}), encoding="utf-8")
    for name, value in (("RANK", "1"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "1")):
        monkeypatch.setenv(name, value)
    out = tmp_path / "ddp.json"
    with pytest.raises(ValueError):
        scale_launch.worker_main(bad, "ddp", out)
    log = tmp_path / "ddp.log"
    log.write_text(
        "...\n" * 40 + "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n", encoding="utf-8"
    )
    assert scale_launch._worker_error(out, log) == (
        "rank 1: ValueError: run.steps must be an integer between 2 and 1000000 (got 1)"
    )


@pytest.mark.slow  # real training (the single-process baseline)
def test_the_baseline_measures_memory_as_the_pilot_run_does():
    """One measured loop: before, the baseline left out the model's buffers (the rotary inv_freq)."""
    from pathlib import Path

    from pilot.data import load_tokens
    from pilot.runner import run
    from pilot.trainer import Trainer, resolve_device, resolved

    config = Path(__file__).parents[1] / "fixtures" / "hf-configs" / "llama-tiny.json"
    cfg = resolved(tiny(model={"config_file": str(config)}, restore_check=False))
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    trainer = Trainer(cfg, resolve_device(cfg.device), tokens=tokens)
    assert any(True for _ in trainer.module.buffers())
    _, baseline_peak = scale.measure_times(trainer, cfg)
    assert baseline_peak == run(cfg, show_progress=False).memory.peak_tensor_bytes
