"""The scaling step: the pilot's workload through torchrun with DDP and FSDP2 at the same effective batch.

The single-process baseline runs here; each strategy runs as `torchrun ... -m pilot _scale_worker`
(gloo on the CPU, NCCL/RCCL on GPUs; multi-node through torchrun's own rendezvous flags).
Useful throughput is tokens per optimizer step over the slowest rank's step time; scaling
efficiency is that throughput over N times the baseline's.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from . import environment
from .config import PilotConfig
from .data import load_tokens, tokens_hash
from .memory import LiveTensorTracker
from .model import parameter_count
from .progress import Progress
from .report import ModelInfo, Outcome, PilotResult, Scaling, ScaleRun, Stats
from .trainer import Trainer, resolve_device, resolved

STRATEGIES = ("ddp", "fsdp")
WORKER_TIMEOUT_S = 3600


def split_batch(cfg: PilotConfig, world: int) -> tuple[int, int]:
    """(micro-batch, accumulation) per rank that keeps micro_batch * grad_accum of the baseline."""
    t = cfg.train
    if t.grad_accum % world == 0:
        return t.micro_batch, t.grad_accum // world
    if t.micro_batch % world == 0:
        return t.micro_batch // world, t.grad_accum
    raise ValueError(f"train.grad_accum ({t.grad_accum}) or train.micro_batch ({t.micro_batch}) must be divisible "
                     f"by the {world} processes to keep the effective batch size")


def measure(trainer: Trainer, cfg: PilotConfig, show: bool = False) -> tuple[list[float], int]:
    """Warm-up (memory tracked on the CPU), then timed steps: (step seconds, peak tensor bytes)."""
    tracker = None
    if trainer.device.type == "cpu":
        tracker = LiveTensorTracker()
        tracker.ignore(trainer.tokens)
        tracker.track([p.to_local() if hasattr(p, "to_local") else p for p in trainer.module.parameters()])
    else:
        torch.cuda.reset_peak_memory_stats(trainer.device)
    times = []
    bar = Progress(cfg.total_steps, "baseline", show)
    for step in range(cfg.total_steps):
        with tracker if tracker is not None and step < cfg.warmup_steps else contextlib.nullcontext():
            _, _, seconds = trainer.step()
        if step >= cfg.warmup_steps:
            times.append(seconds)
        bar.update()
    bar.close()
    peak = tracker.peak if tracker is not None else torch.cuda.max_memory_allocated(trainer.device)
    return times, peak


def worker_main(config_json: Path, strategy: str, out: Path) -> int:
    import torch.distributed as dist

    cfg = PilotConfig.from_file(config_json)
    rank, world, local = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
    device = resolve_device(cfg.device)
    if device.type == "cuda":
        device = torch.device("cuda", local)
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    try:
        trainer = Trainer(cfg, device, rank=rank, world=world, strategy=strategy)
        times, peak = measure(trainer, cfg)
        # The step ends when the slowest rank ends; memory is reported for the fullest rank.
        t = torch.tensor(times, dtype=torch.float64)
        p = torch.tensor([peak], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        dist.all_reduce(p, op=dist.ReduceOp.MAX)
        if rank == 0:
            Path(out).write_text(json.dumps({"times": t.tolist(), "peak": int(p.item()), "world": world}), encoding="utf-8")
    finally:
        dist.destroy_process_group()
    return 0


def _torchrun(cfg_file: Path, strategy: str, out: Path, nproc: int, opts) -> dict:
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc-per-node={nproc}", f"--nnodes={opts.nnodes}"]
    if opts.rdzv_endpoint:
        cmd += [f"--node-rank={opts.node_rank}", f"--rdzv-backend={opts.rdzv_backend}",
                f"--rdzv-endpoint={opts.rdzv_endpoint}", f"--rdzv-id={opts.rdzv_id}"]
    else:
        cmd += ["--standalone"]
    cmd += ["-m", "pilot", "_scale_worker", str(cfg_file), strategy, str(out)]
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=WORKER_TIMEOUT_S, env=env)
    if proc.returncode != 0 or not out.exists():
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise RuntimeError(f"torchrun with {strategy} failed (exit {proc.returncode}):\n{tail}")
    return json.loads(out.read_text(encoding="utf-8"))


def run_scale(cfg: PilotConfig, strategies: list[str], nproc: int, opts, show_progress: bool = True) -> PilotResult:
    for s in strategies:
        if s not in STRATEGIES:
            raise ValueError(f"--strategies must name ddp and/or fsdp (got {s!r})")
    if nproc < 1:
        raise ValueError(f"--nproc-per-node must be >= 1 (got {nproc})")
    cfg = resolved(cfg)
    nnodes = int(str(opts.nnodes).split(":")[-1])
    world = nproc * nnodes
    micro, accum = split_batch(cfg, world)
    device = resolve_device(cfg.device)
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    trainer = Trainer(cfg, device, tokens=tokens)
    params, trainable = parameter_count(trainer.module)
    times, peak = measure(trainer, cfg, show_progress)
    del trainer
    per_step = cfg.train.tokens_per_step
    base_tps = per_step / (sum(times) / len(times))
    baseline = ScaleRun("none", 1, cfg.train.micro_batch, cfg.train.grad_accum, Stats.from_values(times), base_tps, 1.0, peak)
    shard_cfg = dataclasses.replace(cfg, restore_check=False, train=dataclasses.replace(cfg.train, micro_batch=micro, grad_accum=accum))
    runs = []
    with tempfile.TemporaryDirectory(prefix="gpu-pilot-scale-") as tmp:
        cfg_file = Path(tmp) / "config.json"
        cfg_file.write_text(json.dumps(shard_cfg.to_dict()), encoding="utf-8")
        for strategy in strategies:
            if show_progress:
                print(f"torchrun: {strategy} on {world} processes ...", file=sys.stderr)
            got = _torchrun(cfg_file, strategy, Path(tmp) / f"{strategy}.json", nproc, opts)
            stats = Stats.from_values(got["times"])
            tps = per_step / stats.mean
            runs.append(ScaleRun(strategy, got["world"], micro, accum, stats, tps, tps / (got["world"] * base_tps), got["peak"]))
    backend = "gloo" if device.type == "cpu" else ("rccl" if torch.version.hip else "nccl")
    return PilotResult(
        kind="scale", label=cfg.label, note=cfg.note,
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        environment=environment.collect(device), config=cfg.to_dict(),
        model=ModelInfo(cfg.model.source, params, trainable, cfg.model_hash(), tokens_hash(tokens)),
        outcome=Outcome("completed"),
        scaling=Scaling(nnodes, nproc, backend, cfg.train.micro_batch * cfg.train.grad_accum, per_step, baseline, runs))
