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
import math
import shutil
import sys
import tempfile
import time
from pathlib import Path

import torch

from . import checkpoint, environment, estimate, restore
from .atomic import DiskFullError, free_bytes
from .checks import check_model
from .config import PilotConfig
from .data import load_tokens, tokens_hash
from .errors import DeviceUnavailable, Diverged, Interrupted, NoSpace, PartialRun, describe, is_out_of_memory
from .memory import DeviceSampler, LiveTensorTracker, process_rss_bytes
from .model import parameter_count
from .progress import Progress
from .report import (BatchSearch, BatchTrial, Checkpoint, Memory, ModelInfo, Outcome, Partial, PilotResult, Stats,
                     Timing)
from .trainer import Trainer, resolve_device, resolved

STALL_FRACTION = 0.1  # a step "stalled" when it waited for data more than this share of its time
CHECKPOINT_SPACE_MARGIN = 1.1  # torch.save's archive adds headers and alignment to the raw tensor bytes


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


def search_micro_batch(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor, show: bool = False) -> BatchSearch:
    """Double the micro-batch until it no longer fits, then bisect between the last fit and the first miss."""
    trials: list[BatchTrial] = []
    bar = Progress(None, "batch search", show, unit="trial")

    def attempt(mb: int) -> bool:
        ok, peak = fits(dataclasses.replace(cfg, train=dataclasses.replace(cfg.train, micro_batch=mb)), device, tokens)
        trials.append(BatchTrial(mb, ok, peak))
        bar.update(micro_batch=mb, fits="yes" if ok else "no")
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
    bar.close()
    return BatchSearch(_limit_bytes(cfg) or None, trials, good or None)


@dataclasses.dataclass
class _Progress:
    """What the run has measured so far; enough to write a partial result at any moment."""

    stage: str = "setup"
    steps_done: int = 0
    times: list[float] = dataclasses.field(default_factory=list)
    waits: list[float] = dataclasses.field(default_factory=list)
    losses: list[float] = dataclasses.field(default_factory=list)
    validation: tuple[float, float] | None = None  # (seconds, loss)


def _timing(cfg: PilotConfig, done: _Progress) -> Timing | None:
    if not done.times:
        return None
    total_step = sum(done.times)
    val_s, val_loss = done.validation or (None, None)
    return Timing(
        step=Stats.from_values(done.times), data_wait=Stats.from_values(done.waits),
        data_wait_fraction=sum(done.waits) / total_step if total_step else 0.0,
        stalled_steps=sum(w > STALL_FRACTION * t for w, t in zip(done.waits, done.times)), stall_threshold=STALL_FRACTION,
        tokens_per_step=cfg.train.tokens_per_step,
        tokens_per_s=cfg.train.tokens_per_step / (total_step / len(done.times)) if total_step else 0.0,
        validation_s=val_s, validation_loss=val_loss, warmup_steps=cfg.warmup_steps)


def _memory(cfg: PilotConfig, trainer: Trainer, tracker, sampler: DeviceSampler) -> Memory:
    rss, rss_peak = process_rss_bytes()
    on_gpu = trainer.device.type == "cuda"
    return Memory(
        method="cuda_allocator" if on_gpu else "live_tensor_tracker", peak_tensor_bytes=_peak(trainer, tracker),
        reserved_bytes=torch.cuda.max_memory_reserved(trainer.device) if on_gpu else None,
        device_used_peak_bytes=sampler.peak_used if on_gpu else None,
        device_total_bytes=sampler.total if on_gpu else None,
        rss_bytes=rss, rss_peak_bytes=rss_peak, limit_bytes=_limit_bytes(cfg) or None)


def _check_checkpoint_space(cfg: PilotConfig, trainer: Trainer, workdir: Path) -> None:
    """Before the first step: the checkpoint's size follows from the model, so a disk that cannot hold
    it is known now, not after the training that precedes it."""
    if not cfg.restore_check:
        return
    needed = checkpoint.state_bytes(trainer)
    free = free_bytes(workdir)
    if free < needed * CHECKPOINT_SPACE_MARGIN:
        raise NoSpace(f"not enough free space for the checkpoint in {workdir}: about {needed / 1e9:.2f} GB needed, "
                      f"{free / 1e9:.2f} GB free; pass --workdir on a larger disk or --no-restore-check")


def _checkpoint(trainer: Trainer, workdir: Path, result: PilotResult):
    """A full disk costs the restore check, not the run: it is recorded and training goes on."""
    t0 = time.perf_counter()
    try:
        reference, result.checkpoint = restore.write_checkpoint(trainer, workdir / "checkpoint.pt")
        return reference
    except DiskFullError as exc:
        result.checkpoint = Checkpoint(step=trainer.steps_done, write_s=time.perf_counter() - t0, size_bytes=0,
                                       error=str(exc.strerror))
        return None


def _measure(cfg: PilotConfig, trainer: Trainer, workdir: Path, show: bool, result: PilotResult, done: _Progress):
    _release(trainer.device)
    tracker = _tracker(cfg, trainer)
    sampler = DeviceSampler(trainer.device)
    bar = Progress(cfg.total_steps, "pilot", show)
    reference = None
    done.stage = "training"
    for step in range(1, cfg.total_steps + 1):
        in_warmup = step <= cfg.warmup_steps
        with tracker if (tracker is not None and in_warmup) else contextlib.nullcontext():
            loss, waited, seconds = trainer.step()
        if not math.isfinite(loss):
            bar.close()
            raise Diverged(f"the loss became {loss} at step {step} (train.lr {cfg.train.lr:g}); "
                           "lower the learning rate")
        done.losses.append(loss)
        done.steps_done = step
        sampler.sample()
        if not in_warmup:
            done.times.append(seconds)
            done.waits.append(waited)
        if step == cfg.warmup_steps:
            result.memory = _memory(cfg, trainer, tracker, sampler)  # the CPU peak is final after warm-up
        if cfg.restore_check and step == cfg.checkpoint_step:
            reference = _checkpoint(trainer, workdir, result)
        bar.update(loss=f"{loss:.4f}", s=f"{seconds:.3f}")
    bar.close()
    result.memory = _memory(cfg, trainer, tracker, sampler)
    done.stage = "validation"
    with _Stopwatch() as val:
        val_loss = trainer.validate(cfg.val_batches)
    if not math.isfinite(val_loss):
        raise Diverged(f"the validation loss became {val_loss} after {done.steps_done} steps (train.lr {cfg.train.lr:g})")
    done.validation = (val.seconds, val_loss)
    if reference is not None:
        restore.finish_reference(reference, trainer, done.losses[reference.step:])
    return reference


class _Stopwatch:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0


def _trainer(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor) -> Trainer:
    trainer = Trainer(cfg, device, tokens=tokens)
    check_model(cfg, trainer.module)
    return trainer


@contextlib.contextmanager
def workdir_for(workdir: Path | None, keep: bool = False):
    """The given folder (left as it is), or a temporary one removed at the end, on an error and on
    SIGINT/SIGTERM (which the CLI turns into exceptions), unless `keep`."""
    if workdir is not None:
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        yield workdir
        return
    tmp = Path(tempfile.mkdtemp(prefix="gpu-pilot-"))
    try:
        yield tmp
    finally:
        if keep:
            print(f"gpu-pilot: workdir kept at {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _partial(result: PilotResult, exc: BaseException, done: _Progress) -> PilotResult:
    if isinstance(exc, Diverged):
        reason = "diverged"
    elif isinstance(exc, (Interrupted, KeyboardInterrupt)):
        reason = "interrupted"
    else:
        reason = "failed"
    message, _ = describe(exc)
    result.outcome = Outcome("partial", message[:2000], Partial(reason, done.stage, done.steps_done))
    return result


def _does_not_fit(result: PilotResult, exc: BaseException, device: torch.device) -> PilotResult:
    """Running out of memory is this configuration's result; any other error goes on up."""
    if not is_out_of_memory(exc):
        raise exc
    result.outcome = Outcome("does_not_fit", str(exc).splitlines()[0][:500])
    result.timing = result.memory = result.checkpoint = None
    _release(device)
    return result


def device_for(cfg: PilotConfig) -> torch.device:
    try:
        return resolve_device(cfg.device)
    except ValueError as exc:
        raise DeviceUnavailable(str(exc)) from exc


def new_result(kind: str, cfg: PilotConfig, device: torch.device, tokens: torch.Tensor) -> PilotResult:
    """The result envelope every scenario fills in: what ran, when, where, on which model and data."""
    return PilotResult(
        kind=kind, label=cfg.label, note=cfg.note,
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        environment=environment.collect(device), config=cfg.to_dict(),
        model=ModelInfo(cfg.model.config_file or cfg.model.source, 0, 0, cfg.model_hash(), tokens_hash(tokens)),
        outcome=Outcome("completed"))


def run(cfg: PilotConfig, workdir: Path | None = None, show_progress: bool = True, keep_workdir: bool = False) -> PilotResult:
    """The pilot; a failure once measuring has begun raises PartialRun carrying what was measured."""
    cfg = resolved(cfg)
    device = device_for(cfg)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    done = _Progress()
    result = new_result("run", cfg, device, tokens)
    with workdir_for(workdir, keep_workdir) as workdir:
        _cap_device(cfg, device)
        try:
            trainer = _trainer(cfg, device, tokens)  # bad options against the model fail here, before any work
        except (RuntimeError, torch.OutOfMemoryError) as exc:
            return _does_not_fit(result, exc, device)
        result.model.parameters, result.model.trainable_parameters = parameter_count(trainer.module)
        _check_checkpoint_space(cfg, trainer, workdir)
        try:
            if cfg.find_max_batch:
                del trainer
                _release(device)
                done.stage = "batch_search"
                result.batch_search = search_micro_batch(cfg, device, tokens, show_progress)
                if result.batch_search.largest_fitting is None:
                    result.outcome = Outcome("does_not_fit", "no micro-batch fits, not even 1")
                    return result
                cfg = dataclasses.replace(cfg, train=dataclasses.replace(
                    cfg.train, micro_batch=result.batch_search.largest_fitting))
                result.config = cfg.to_dict()
                trainer = Trainer(cfg, device, tokens=tokens)
            try:
                reference = _measure(cfg, trainer, workdir, show_progress, result, done)
            except (RuntimeError, torch.OutOfMemoryError) as exc:
                return _does_not_fit(result, exc, device)
            finally:
                del trainer
                _release(device)
            result.losses = done.losses
            result.timing = _timing(cfg, done)
            result.estimate = estimate.compare(cfg, result.memory.peak_tensor_bytes, device.type)
            if reference is not None:
                done.stage = "restore"
                result.restore = restore.verify(cfg, device, reference, workdir, show=show_progress)
        except (Exception, KeyboardInterrupt, Interrupted) as exc:
            result.losses, result.timing = done.losses, _timing(cfg, done)
            raise PartialRun(_partial(result, exc, done), exc) from exc
    if result.checkpoint is not None and result.checkpoint.error:
        result.outcome = Outcome("partial", f"checkpoint not written: {result.checkpoint.error}; no restore check",
                                 Partial("checkpoint_failed", "training", done.steps_done))
    return result
