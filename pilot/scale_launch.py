"""One strategy on N processes: the torchrun launch (`run_torchrun`) and each rank (`worker_main`).

Every rank runs `python -m pilot _scale_worker` (gloo on the CPU, NCCL/RCCL on GPUs; multi-node through
torchrun's own rendezvous flags) and trains the pilot's measured loop under the strategy; local rank 0
of each node writes the all-reduced figures, and a failing rank writes its own one-line error beside
them, which the launcher raises: `DoesNotFit` when the rank ran out of memory, else `TorchrunFailed`.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

import torch

from . import sharded_checkpoint
from .config import PilotConfig
from .errors import DoesNotFit, TorchrunFailed, is_out_of_memory
from .memory import cpu_threads
from .model import parameter_count
from .processes import run_child
from .scale_config import ScaleConfig, strategy_config
from .steps import Measured, measure, peak_bytes
from .trainer import Trainer, resolve_device

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
        from .runner import cap_device

        cfg = strategy_config(PilotConfig.from_file(config_json), strategy)
        device = resolve_device(cfg.device)
        if device.type == "cuda":
            device = torch.device("cuda", local)
            torch.cuda.set_device(device)
            cap_device(cfg, device)
        dist.init_process_group(process_group_backend(device))
        try:
            trainer = Trainer(cfg, device, rank=rank, world=world, strategy=strategy)
            times, peak = measure_times(trainer, cfg)
            parameters = parameter_count(trainer.module)
            saved = None
            if cfg.restore_check:
                saved = sharded_checkpoint.save_and_load(trainer, Path(out).with_suffix(".checkpoint"))
            # The step ends when the slowest rank ends; memory is reported for the fullest rank.
            t = torch.tensor(times, dtype=torch.float64)
            p = torch.tensor([peak], dtype=torch.float64)
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            dist.all_reduce(p, op=dist.ReduceOp.MAX)
            if local == 0:
                Path(out).write_text(
                    json.dumps(
                        {
                            "times": t.tolist(),
                            "peak": int(p.item()),
                            "world": world,
                            "threads": torch.get_num_threads(),
                            # whole tensors' sizes (a DTensor counts its global shape), for a result whose
                            # one-process baseline never built the model
                            "parameters": parameters,
                            "checkpoint": dataclasses.asdict(saved) if saved is not None else None,
                        }
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
        # An out-of-memory rank says so in words the launcher knows, whatever the exception's type.
        kind = "OutOfMemoryError" if is_out_of_memory(exc) else type(exc).__name__
        Path(out).with_name(f"{Path(out).name}.rank{rank}.error").write_text(
            f"rank {rank}: {kind}: {exc}".splitlines()[0][:1000], encoding="utf-8"
        )
        raise
    return 0


def process_group_backend(device: torch.device) -> str:
    """torch.distributed's backend: NCCL on GPUs (RCCL on a ROCm build answers to the same name), gloo
    on the CPU."""
    return "nccl" if device.type == "cuda" else "gloo"


def backend_label(device: torch.device) -> str:
    """The collective library the result names: rccl on a ROCm build."""
    backend = process_group_backend(device)
    return "rccl" if backend == "nccl" and torch.version.hip else backend


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
        error = _worker_error(out, log)
        if ": OutOfMemoryError: " in error:
            raise DoesNotFit(f"{strategy} on {scale.world} processes: {error}", error)
        _show_log_tail(log, strategy)
        raise TorchrunFailed(f"torchrun with {strategy} failed (exit {code}): {error}")
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
