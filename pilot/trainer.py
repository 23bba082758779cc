"""One training loop shared by the pilot run, the resumed process and the scaling workers."""

from __future__ import annotations

import contextlib
import dataclasses
import math
import random
import time

import numpy as np
import torch
from torch import nn

from .config import PilotConfig
from .data import BatchSource, DataPosition, load_tokens
from .model import build_model, check_builtin, decoder_layers
from .scale_config import FULLY_SHARDED


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("run.device is 'cuda' but this PyTorch build sees no CUDA/ROCm device")
    return torch.device(name)


def resolved(cfg: PilotConfig) -> PilotConfig:
    """The configuration with the real model's shape, vocabulary and dtype filled in."""
    from .hf_model import check_device, resolve

    if not cfg.model.is_transformers:
        check_builtin(cfg.train)
    else:
        # A missing CUDA device is reported later, with its own exit code (runner.device_for).
        cuda = cfg.device == "cuda" or (cfg.device == "auto" and torch.cuda.is_available())
        check_device(cfg.train, torch.device("cuda" if cuda else "cpu"))
    return dataclasses.replace(cfg, model=resolve(cfg.model))


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _schedule(cfg: PilotConfig):
    warm, total, kind = cfg.train.lr_warmup_steps, cfg.total_steps, cfg.train.lr_schedule

    def factor(step: int) -> float:
        if step < warm:
            return (step + 1) / (warm + 1)
        progress = min(1.0, (step - warm) / max(1, total - warm))
        if kind == "linear":
            return 1.0 - 0.9 * progress
        if kind == "cosine":
            return 0.1 + 0.45 * (1.0 + math.cos(math.pi * progress))
        return 1.0

    return factor


class StepTimer:
    """Device time on GPUs (CUDA events after a synchronize), perf_counter on the CPU."""

    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"

    def __enter__(self):
        if self.cuda:
            self.start, self.end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self.start.record()
        else:
            self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            self.end.record()
            torch.cuda.synchronize()
            self.seconds = self.start.elapsed_time(self.end) / 1000.0
        else:
            self.seconds = time.perf_counter() - self.t0


class Trainer:
    """Model, optimizer, scheduler and data for one process; `step()` runs one optimizer step."""

    def __init__(
        self,
        cfg: PilotConfig,
        device: torch.device,
        *,
        rank: int = 0,
        world: int = 1,
        strategy: str = "none",
        grad_accum: int | None = None,
        tokens: torch.Tensor | None = None,
    ):
        self.cfg, self.device, self.rank, self.world, self.strategy = cfg, device, rank, world, strategy
        self.grad_accum = grad_accum or cfg.train.grad_accum
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        seed_everything(cfg.seed)
        self.model = build_model(cfg.model, cfg.train, cfg.seed, device)
        self.module = self.model  # unwrapped, for state dicts
        self.model = self._wrap(self.model)
        self.trainable = [(n, p) for n, p in self.module.named_parameters() if p.requires_grad]
        params = [p for _, p in self.trainable]
        self.optimizer = self._optimizer(params)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, _schedule(cfg))
        self.tokens = tokens if tokens is not None else load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
        self.steps_done = 0
        self.last_grad_norm: float | None = None  # of the latest step (see _grad_norm)
        self.set_position(DataPosition())

    def _optimizer(self, params: list[nn.Parameter]) -> torch.optim.Optimizer:
        t = self.cfg.train
        if t.optimizer == "adamw":
            impl = {"foreach": {"foreach": True}, "fused": {"fused": True}, "single_tensor": {"foreach": False}}.get(
                t.optimizer_impl, {}
            )
            kind, options = torch.optim.AdamW, {"lr": t.lr, "weight_decay": t.weight_decay, **impl}
        else:
            kind, options = torch.optim.SGD, {"lr": t.lr, "momentum": 0.9, "weight_decay": t.weight_decay}
        if self.strategy == "zero1":  # each rank keeps and steps its share of the state, then broadcasts
            from torch.distributed.optim import ZeroRedundancyOptimizer

            return ZeroRedundancyOptimizer(params, optimizer_class=kind, **options)
        return kind(params, **options)

    def _wrap(self, model: nn.Module) -> nn.Module:
        if self.strategy in ("ddp", "zero1"):
            from torch.nn.parallel import DistributedDataParallel

            ids = [self.device.index] if self.device.type == "cuda" else None
            return DistributedDataParallel(model, device_ids=ids)
        if self.strategy in FULLY_SHARDED:
            from torch.distributed.device_mesh import init_device_mesh
            from torch.distributed.fsdp import fully_shard

            mesh = init_device_mesh(self.device.type, (self.world,))
            # zero2 keeps each layer's weights whole from its forward to its backward (no second gather).
            reshard = self.strategy != "zero2"
            for layer in decoder_layers(model):
                fully_shard(layer, mesh=mesh, reshard_after_forward=reshard)
            fully_shard(model, mesh=mesh, reshard_after_forward=reshard)
        return model

    def set_position(self, position: DataPosition) -> None:
        self.source = BatchSource(
            self.tokens,
            self.cfg.train.micro_batch,
            self.cfg.seed,
            position,
            rank=self.rank,
            world=self.world,
            num_workers=self.cfg.data.num_workers,
            pin_memory=self.device.type == "cuda",
        )

    def autocast(self):
        if self.cfg.train.precision == "bf16":
            return torch.autocast(self.device.type, dtype=torch.bfloat16)
        return contextlib.nullcontext()

    def _sync_context(self, last: bool):
        """Skip the gradient all-reduce on all but the last micro-batch of an accumulation."""
        if last or self.strategy == "none":
            return contextlib.nullcontext()
        if self.strategy in ("ddp", "zero1"):
            return self.model.no_sync()
        self.model.set_requires_gradient_sync(False)
        return contextlib.nullcontext()

    def step(self) -> tuple[float, float, float]:
        """One optimizer step: (mean loss, seconds waiting for data, seconds for the whole step)."""
        self.model.train()
        waited = 0.0
        total = torch.zeros((), device=self.device)
        with StepTimer(self.device) as timer:
            for i in range(self.grad_accum):
                last = i == self.grad_accum - 1
                t0 = time.perf_counter()
                batch = self.source.next().to(self.device, non_blocking=True)
                waited += time.perf_counter() - t0
                if self.strategy in FULLY_SHARDED and last:
                    self.model.set_requires_gradient_sync(True)
                with self._sync_context(last):
                    with self.autocast():
                        loss = self.model(batch)
                    (loss / self.grad_accum).backward()
                total += loss.detach().float()
            norm = self._grad_norm()
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad(set_to_none=True)
        self.steps_done += 1
        if norm is None:
            return (total / self.grad_accum).item(), waited, timer.seconds
        # One transfer for both: the loss's .item() synchronises anyway.
        mean, self.last_grad_norm = torch.stack([total / self.grad_accum, norm.float()]).tolist()
        return mean, waited, timer.seconds

    def _grad_norm(self) -> torch.Tensor | None:
        """The gradients' total L2 norm before the optimizer step (pilot.flags looks for its explosion); None
        under FSDP, whose gradients are each rank's shards, and without gradients."""
        grads = [p.grad for _, p in self.trainable if p.grad is not None]
        if self.strategy in FULLY_SHARDED or not grads:
            self.last_grad_norm = None
            return None
        return torch.nn.utils.get_total_norm(grads, error_if_nonfinite=False)

    @torch.no_grad()
    def validate(self, batches: int) -> float:
        """Mean loss over held-out batches (the last sequences of the data); does not touch the RNGs."""
        self.model.eval()
        mb = self.cfg.train.micro_batch
        losses = []
        for i in range(batches):
            rows = (torch.arange(mb) + len(self.tokens) - (i + 1) * mb) % len(self.tokens)
            batch = self.tokens[rows].to(self.device)
            with self.autocast():
                losses.append(self.model(batch).float())
        return torch.stack(losses).mean().item() if losses else 0.0
