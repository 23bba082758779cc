"""The pilot scenario: config in, PilotResult out.

Warm-up steps are excluded from timing; on the CPU the live-tensor tracker runs over them (it
costs time per operator), on GPUs the allocator's peak covers the whole run. Running out of
memory ends the scenario with the status "does_not_fit" rather than a crash.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import gc
import tempfile
import time
from pathlib import Path

import torch

from . import environment, estimate, restore
from .config import PilotConfig
from .data import load_tokens, tokens_hash
from .memory import DeviceSampler, LiveTensorTracker, process_rss_bytes
from .model import parameter_count
from .progress import Progress
from .report import BatchSearch, BatchTrial, Memory, ModelInfo, Outcome, PilotResult, Stats, Timing
from .trainer import Trainer, resolve_device, resolved

STALL_FRACTION = 0.1  # a step "stalled" when it waited for data more than this share of its time


def is_out_of_memory(exc: BaseException) -> bool:
    if isinstance(exc, torch.OutOfMemoryError):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def _limit_bytes(cfg: PilotConfig) -> int:
    return int(cfg.memory_limit_gb * 1e9)


def _release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(device)


def _cap_device(cfg: PilotConfig, device: torch.device) -> None:
    if device.type == "cuda" and cfg.memory_limit_gb:
        total = torch.cuda.get_device_properties(device).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, _limit_bytes(cfg) / total), device)


def _tracker(cfg: PilotConfig, trainer: Trainer) -> LiveTensorTracker | None:
    if trainer.device.type != "cpu":
        return None
    tracker = LiveTensorTracker(_limit_bytes(cfg))
    tracker.ignore(trainer.tokens)  # the dataset is host data, not training memory
    tracker.track(list(trainer.module.parameters()), list(trainer.module.buffers()))
    return tracker


def _peak(trainer: Trainer, tracker: LiveTensorTracker | None) -> int:
    if tracker is not None:
        return tracker.peak
    return torch.cuda.max_memory_allocated(trainer.device)


def fits(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor) -> tuple[bool, int | None]:
    """Two steps (the peak needs the optimizer state) at this configuration: (fits, peak bytes)."""
    trainer = tracker = None
    try:
        trainer = Trainer(cfg, device, tokens=tokens)
        tracker = _tracker(cfg, trainer)
        with tracker or contextlib.nullcontext():
            trainer.step()
            trainer.step()
        return True, _peak(trainer, tracker)
    except (RuntimeError, torch.OutOfMemoryError) as exc:
        if not is_out_of_memory(exc):
            raise
        return False, None
    finally:
        del trainer, tracker
        _release(device)


def search_micro_batch(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor) -> BatchSearch:
    """Double the micro-batch until it no longer fits, then bisect between the last fit and the first miss."""
    trials: list[BatchTrial] = []

    def attempt(mb: int) -> bool:
        ok, peak = fits(dataclasses.replace(cfg, train=dataclasses.replace(cfg.train, micro_batch=mb)), device, tokens)
        trials.append(BatchTrial(mb, ok, peak))
        return ok

    good, bad, mb = 0, None, 1
    while mb <= min(cfg.max_batch_limit, len(tokens)):
        if not attempt(mb):
            bad = mb
            break
        good, mb = mb, mb * 2
    hi = bad if bad is not None else min(cfg.max_batch_limit, len(tokens)) + 1
    while good and hi - good > 1:
        mid = (good + hi) // 2
        if attempt(mid):
            good = mid
        else:
            hi = mid
    return BatchSearch(_limit_bytes(cfg) or None, trials, good or None)


def _measure(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor, workdir: Path, show: bool, result: PilotResult):
    trainer = Trainer(cfg, device, tokens=tokens)
    _release(device)
    tracker = _tracker(cfg, trainer)
    sampler = DeviceSampler(device)
    times, waits, losses = [], [], []
    bar = Progress(cfg.total_steps, "pilot", show)
    reference = None
    for step in range(1, cfg.total_steps + 1):
        in_warmup = step <= cfg.warmup_steps
        with tracker if (tracker is not None and in_warmup) else contextlib.nullcontext():
            loss, waited, seconds = trainer.step()
        losses.append(loss)
        sampler.sample()
        if not in_warmup:
            times.append(seconds)
            waits.append(waited)
        if cfg.restore_check and step == cfg.checkpoint_step:
            reference, result.checkpoint = restore.write_checkpoint(trainer, workdir / "checkpoint.pt")
        bar.update(loss=f"{loss:.4f}", s=f"{seconds:.3f}")
    bar.close()
    result.losses = losses
    peak = _peak(trainer, tracker)
    with _Stopwatch() as val:
        val_loss = trainer.validate(cfg.val_batches)
    total_step = sum(times)
    result.timing = Timing(
        step=Stats.from_values(times), data_wait=Stats.from_values(waits),
        data_wait_fraction=sum(waits) / total_step if total_step else 0.0,
        stalled_steps=sum(w > STALL_FRACTION * t for w, t in zip(waits, times)), stall_threshold=STALL_FRACTION,
        tokens_per_step=cfg.train.tokens_per_step,
        tokens_per_s=cfg.train.tokens_per_step / (total_step / len(times)) if total_step else 0.0,
        validation_s=val.seconds, validation_loss=val_loss, warmup_steps=cfg.warmup_steps)
    rss, rss_peak = process_rss_bytes()
    on_gpu = device.type == "cuda"
    result.memory = Memory(
        method="cuda_allocator" if on_gpu else "live_tensor_tracker", peak_tensor_bytes=peak,
        reserved_bytes=torch.cuda.max_memory_reserved(device) if on_gpu else None,
        device_used_peak_bytes=sampler.peak_used if on_gpu else None,
        device_total_bytes=sampler.total if on_gpu else None,
        rss_bytes=rss, rss_peak_bytes=rss_peak, limit_bytes=_limit_bytes(cfg) or None)
    if reference is not None:
        restore.finish_reference(reference, trainer, losses[reference.step:])
    return trainer, reference


class _Stopwatch:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0


def run(cfg: PilotConfig, workdir: Path | None = None, show_progress: bool = True) -> PilotResult:
    cfg = resolved(cfg)
    device = resolve_device(cfg.device)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    with tempfile.TemporaryDirectory(prefix="gpu-pilot-") as tmp:
        workdir = Path(workdir or tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        _cap_device(cfg, device)
        result = PilotResult(
            kind="run", label=cfg.label, note=cfg.note,
            created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            environment=environment.collect(device), config=cfg.to_dict(),
            model=ModelInfo(cfg.model.source, 0, 0, cfg.model_hash(), tokens_hash(tokens)),
            outcome=Outcome("completed"))
        if cfg.find_max_batch:
            result.batch_search = search_micro_batch(cfg, device, tokens)
            if result.batch_search.largest_fitting is None:
                result.outcome = Outcome("does_not_fit", "no micro-batch fits, not even 1")
                return result
            cfg = dataclasses.replace(cfg, train=dataclasses.replace(
                cfg.train, micro_batch=result.batch_search.largest_fitting))
            result.config = cfg.to_dict()
        try:
            trainer, reference = _measure(cfg, device, tokens, workdir, show_progress, result)
        except (RuntimeError, torch.OutOfMemoryError) as exc:
            if not is_out_of_memory(exc):
                raise
            result.outcome = Outcome("does_not_fit", str(exc).splitlines()[0][:500])
            result.timing = result.memory = result.checkpoint = None
            _release(device)
            return result
        result.model.parameters, result.model.trainable_parameters = parameter_count(trainer.module)
        result.estimate = estimate.compare(cfg, result.memory.peak_tensor_bytes, device.type)
        del trainer
        _release(device)
        if reference is not None:
            result.restore = restore.verify(cfg, device, reference, workdir)
    return result
