"""The measured training loop that `gpu-pilot run`, the scaling baseline and every torchrun rank share.

Warm-up steps are excluded from timing. On the CPU the live-tensor tracker runs over them only (it
costs time per operator, and the peak is reached once the optimizer state exists); on GPUs the
allocator's peak covers the whole loop.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import math
from typing import Callable

import torch

from .config import PilotConfig
from .errors import Diverged
from .memory import DeviceSampler, LiveTensorTracker
from .progress import Progress
from .trainer import Trainer


def release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def limit_bytes(cfg: PilotConfig) -> int:
    return int(cfg.memory_limit_gb * 1e9)


def tracker_for(cfg: PilotConfig, trainer: Trainer) -> LiveTensorTracker | None:
    """The CPU's memory meter, already counting weights and buffers; None on GPUs (the allocator counts)."""
    if trainer.device.type != "cpu":
        return None
    tracker = LiveTensorTracker(limit_bytes(cfg))
    tracker.ignore(trainer.tokens)  # the dataset is host data, not training memory
    # FSDP's parameters are DTensors: their storage is the local shard.
    tracker.track(
        [p.to_local() if hasattr(p, "to_local") else p for p in trainer.module.parameters()],
        list(trainer.module.buffers()),
    )
    return tracker


def peak_bytes(trainer: Trainer, tracker: LiveTensorTracker | None) -> int:
    if tracker is not None:
        return tracker.peak
    return torch.cuda.max_memory_allocated(trainer.device)


GRAD_NORM_CAP = 1e12  # the schema's bound


@dataclasses.dataclass
class Measured:
    """What the loop has measured so far; enough to write a partial result at any moment."""

    stage: str = "setup"
    steps_done: int = 0
    times: list[float] = dataclasses.field(default_factory=list)
    waits: list[float] = dataclasses.field(default_factory=list)
    losses: list[float] = dataclasses.field(default_factory=list)
    grad_norms: list[float] = dataclasses.field(default_factory=list)
    validation: tuple[float, float] | None = None  # (seconds, loss)


@dataclasses.dataclass
class Meters:
    tracker: LiveTensorTracker | None
    sampler: DeviceSampler


# Called after each step with (step number, meters); the runner records memory and checkpoints here.
StepHook = Callable[[int, Meters], None]


def measure(
    cfg: PilotConfig,
    trainer: Trainer,
    done: Measured,
    *,
    title: str = "pilot",
    show: bool = False,
    after_step: StepHook | None = None,
) -> Meters:
    """Warm-up then timed steps into `done`; a non-finite loss raises Diverged."""
    release(trainer.device)
    meters = Meters(tracker_for(cfg, trainer), DeviceSampler(trainer.device))
    bar = Progress(cfg.total_steps, title, show)
    done.stage = "warmup"
    try:
        for step in range(1, cfg.total_steps + 1):
            in_warmup = step <= cfg.warmup_steps
            done.stage = "warmup" if in_warmup else "training"
            with meters.tracker if (meters.tracker is not None and in_warmup) else contextlib.nullcontext():
                loss, waited, seconds = trainer.step()
            if not math.isfinite(loss):
                raise Diverged(
                    f"the loss became {loss} at step {step} (train.lr {cfg.train.lr:g}); lower the learning rate"
                )
            done.losses.append(loss)
            if trainer.last_grad_norm is not None:  # capped: JSON holds no infinity (the loss stays finite)
                norm = trainer.last_grad_norm
                done.grad_norms.append(min(norm, GRAD_NORM_CAP) if math.isfinite(norm) else GRAD_NORM_CAP)
            done.steps_done = step
            meters.sampler.sample()
            if not in_warmup:
                done.times.append(seconds)
                done.waits.append(waited)
            if step == cfg.warmup_steps:
                done.stage = "training"  # the warm-up is over: what the hook records says so
            if after_step is not None:
                after_step(step, meters)
            bar.update(loss=f"{loss:.4f}", s=f"{seconds:.3f}")
    finally:
        bar.close()
    return meters
