"""The scaling step: the pilot's workload through torchrun with DDP and FSDP2 at the same effective batch.

The single-process baseline runs here; each strategy runs as `torchrun ... -m pilot _scale_worker`
(gloo on the CPU, NCCL/RCCL on GPUs; multi-node through torchrun's own rendezvous flags).
Useful throughput is tokens per optimizer step over the slowest rank's step time; scaling
efficiency is that throughput over N times the baseline's. Every process compared, the baseline's
included, runs the same number of torch threads (on the CPU one, unless --threads says otherwise):
a baseline with more threads, or fewer, than each worker makes the efficiency meaningless.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import torch

from . import flags, workdirs
from .checks import check_model
from .config import PilotConfig
from .data import load_tokens
from .errors import Interrupted, PartialRun, TorchrunFailed, describe
from .memory import cpu_threads
from .model import parameter_count
from .processes import run_child
from .report import Outcome, Partial, PilotResult, ScaleRun, Scaling, Stats
from .scale_config import ScaleConfig, split_batch
from .steps import Measured, measure, peak_bytes
from .trainer import Trainer, resolve_device, resolved

WORKER_TIMEOUT_S = 3600


def measure_times(trainer: Trainer, cfg: PilotConfig, show: bool = False) -> tuple[list[float], int]:
    """The pilot's measured loop: (timed step seconds, peak tensor bytes)."""
    done = Measured()
    meters = measure(cfg, trainer, done, title="baseline", show=show)
    return done.times, peak_bytes(trainer, meters.tracker)


def worker_main(config_json: Path, strategy: str, out: Path) -> int:
    """One rank. Local rank 0 of every node writes the (all-reduced, hence identical) figures, so each
    node's `gpu-pilot scale` learns the outcome; a failing rank writes its own error beside them."""
    import torch.distributed as dist

    rank, world, local = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), int(os.environ["LOCAL_RANK"])
    try:
        cfg = PilotConfig.from_file(config_json)
        device = resolve_device(cfg.device)
        if device.type == "cuda":
            device = torch.device("cuda", local)
            torch.cuda.set_device(device)
        dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
        try:
            trainer = Trainer(cfg, device, rank=rank, world=world, strategy=strategy)
            times, peak = measure_times(trainer, cfg)
            # The step ends when the slowest rank ends; memory is reported for the fullest rank.
            t = torch.tensor(times, dtype=torch.float64)
            p = torch.tensor([peak], dtype=torch.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            dist.all_reduce(p, op=dist.ReduceOp.MAX)
            if local == 0:
                Path(out).write_text(
                    json.dumps(
                        {"times": t.tolist(), "peak": int(p.item()), "world": world, "threads": torch.get_num_threads()}
                    ),
                    encoding="utf-8",
                )
            del trainer
            # Teardown order: no rank may close its gloo connections while a peer is still inside a
            # collective (the peer's transport thread then throws, and the uncaught exception aborts
            # it with SIGABRT). The barrier holds every rank until all are done communicating.
            dist.barrier()
        finally:
            dist.destroy_process_group()
    except Exception as exc:
        Path(out).with_name(f"{Path(out).name}.rank{rank}.error").write_text(
            f"rank {rank}: {type(exc).__name__}: {exc}".splitlines()[0][:1000], encoding="utf-8"
        )
        raise
    return 0


def threads_per_process(cfg: PilotConfig, device: torch.device, nproc_per_node: int) -> int:
    """--threads, else one per process on the CPU (N processes on N cores, as the baseline gets one),
    else the node's cores shared among its processes (GPUs: threads only feed the device)."""
    if cfg.threads:
        return cfg.threads
    return 1 if device.type == "cpu" else max(1, cpu_threads() // nproc_per_node)


def run_torchrun(cfg_file: Path, strategy: str, out: Path, scale: ScaleConfig, threads: int = 1) -> dict:
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        f"--nproc-per-node={scale.nproc_per_node}",
        f"--nnodes={scale.nnodes}",
    ]
    if scale.rdzv_endpoint:
        # One rendezvous id per strategy: the second launch never meets state left by the first.
        cmd += [
            f"--rdzv-backend={scale.rdzv_backend}",
            f"--rdzv-endpoint={scale.rdzv_endpoint}",
            f"--rdzv-id={scale.rdzv_id}-{strategy}",
            f"--rdzv-conf=join_timeout={scale.rdzv_timeout}",
        ]
    else:
        cmd += ["--standalone"]
    cmd += ["-m", "pilot", "_scale_worker", str(cfg_file), strategy, str(out)]
    # TMPDIR: torchrun's own torchelastic_* folders go into ours, removed with it.
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), TMPDIR=str(out.parent))
    log = out.with_suffix(".log")
    code = run_child(cmd, log, WORKER_TIMEOUT_S, env=env)
    if code != 0 or not out.exists():
        _show_log_tail(log, strategy)
        raise TorchrunFailed(f"torchrun with {strategy} failed (exit {code}): {_worker_error(out, log)}")
    return json.loads(out.read_text(encoding="utf-8"))


LOG_TAIL_LINES = 30


def _show_log_tail(log: Path, strategy: str) -> None:
    """torchrun's log goes with the temporary folder; its last lines stay on stderr for the reader."""
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
    if lines:
        print(f"torchrun's last {min(len(lines), LOG_TAIL_LINES)} lines ({strategy}):", file=sys.stderr)
        print("\n".join(f"  {ln}" for ln in lines[-LOG_TAIL_LINES:]), file=sys.stderr)


def _worker_error(out: Path, log: Path) -> str:
    """The failing worker's own message; else torchrun's last line that names an error."""
    for path in sorted(out.parent.glob(f"{out.name}.rank*.error")):
        return path.read_text(encoding="utf-8")
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines() if log.exists() else []
    named = [ln.strip() for ln in lines if "Error" in ln or "error" in ln or "Signal" in ln]
    return (named or [ln.strip() for ln in lines if ln.strip()] or ["no output"])[-1][:1000]


def run_scale(cfg: PilotConfig, scale: ScaleConfig, show_progress: bool = True, record=None) -> PilotResult | None:
    """The baseline, then each strategy. Returns None on a node other than --node-rank 0, which takes
    part but leaves the result to node 0; a failure raises PartialRun keeping what finished. `record`
    (runner.Recorder) gets the result after each stage."""
    from .runner import device_for, new_result

    cfg = resolved(cfg)
    nnodes, nproc, world = scale.nodes, scale.nproc_per_node, scale.world
    micro, accum = split_batch(cfg, world)
    device = device_for(cfg)
    threads = threads_per_process(cfg, device, nproc)
    cfg = dataclasses.replace(cfg, threads=threads)  # the baseline's Trainer sets it, as each worker's does
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    trainer = Trainer(cfg, device, tokens=tokens)
    check_model(cfg, trainer.module)
    backend = "gloo" if device.type == "cpu" else ("rccl" if torch.version.hip else "nccl")
    result = new_result("scale", cfg, device, tokens, show_progress)
    result.model.parameters, result.model.trainable_parameters = parameter_count(trainer.module)
    stage, steps = "training", 0

    def note() -> None:
        if record is not None and scale.node_rank == 0:
            record(result, stage, steps)

    note()
    try:
        times, peak = measure_times(trainer, cfg, show_progress)
        del trainer
        steps = cfg.total_steps
        per_step = cfg.train.tokens_per_step
        base_tps = per_step / (sum(times) / len(times))
        baseline = ScaleRun(
            "none",
            1,
            cfg.train.micro_batch,
            cfg.train.grad_accum,
            Stats.from_values(times),
            base_tps,
            1.0,
            peak,
            torch.get_num_threads(),
        )
        result.scaling = Scaling(
            nnodes, nproc, backend, cfg.train.micro_batch * cfg.train.grad_accum, per_step, baseline, [], threads
        )
        shard_cfg = dataclasses.replace(
            cfg, restore_check=False, train=dataclasses.replace(cfg.train, micro_batch=micro, grad_accum=accum)
        )
        stage = "scaling"
        note()
        with workdirs.temporary("gpu-pilot-scale-") as tmp:
            cfg_file = Path(tmp) / "config.json"
            cfg_file.write_text(json.dumps(shard_cfg.to_dict()), encoding="utf-8")
            for strategy in scale.strategies:
                if show_progress:
                    print(
                        f"torchrun: {strategy} on {world} processes ({threads} thread{'s' * (threads > 1)} each) ...",
                        file=sys.stderr,
                    )
                got = run_torchrun(cfg_file, strategy, Path(tmp) / f"{strategy}.json", scale, threads)
                stats = Stats.from_values(got["times"])
                tps = per_step / stats.mean
                result.scaling.runs.append(
                    ScaleRun(
                        strategy,
                        got["world"],
                        micro,
                        accum,
                        stats,
                        tps,
                        tps / (got["world"] * base_tps),
                        got["peak"],
                        got.get("threads"),
                    )
                )
                note()
    except (Exception, KeyboardInterrupt, Interrupted) as exc:
        reason = "interrupted" if isinstance(exc, (KeyboardInterrupt, Interrupted)) else "failed"
        result.outcome = Outcome("partial", describe(exc)[0][:2000], Partial(reason, stage, steps))
        result.flags = flags.evaluate(result)
        raise PartialRun(result, exc) from exc
    if scale.node_rank != 0:
        print(
            f"gpu-pilot: node {scale.node_rank} of {nnodes} finished {', '.join(scale.strategies)}; "
            "the node started with --node-rank 0 writes the result",
            file=sys.stderr,
        )
        return None
    result.flags = flags.evaluate(result)
    return result
