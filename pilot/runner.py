"""The pilot scenario: config in, PilotResult out.

The measured loop itself is `steps.measure`, shared with the scaling step. Running out of memory
ends the scenario with the status "does_not_fit" rather than a crash. After each stage the result so
far goes to `record` (the CLI's `ResultFile.stage`), so a killed run leaves it on disk.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import math
import time
from pathlib import Path
from typing import Callable

import torch

from . import checkpoint, environment, estimate, flags, model_source, restore, workdirs
from .atomic import NoRoomError, file_size_limit, free_bytes
from .checks import check_model
from .config import PilotConfig
from .data import load_tokens, pipeline_rate, tokens_hash
from .errors import DeviceUnavailable, Diverged, Interrupted, NoSpace, PartialRun, describe, is_out_of_memory
from .memory import process_rss_bytes
from .model import parameter_count
from .progress import Progress
from .report import (
    BatchSearch,
    BatchTrial,
    Checkpoint,
    DataPipeline,
    Memory,
    ModelInfo,
    Outcome,
    Partial,
    PilotResult,
    Stats,
    Timing,
)
from .steps import Measured, Meters, limit_bytes, measure, peak_bytes, release, tracker_for
from .trainer import Trainer, resolve_device, resolved

STALL_FRACTION = 0.1  # a step "stalled" when it waited for data more than this share of its time
CHECKPOINT_SPACE_MARGIN = 1.1  # torch.save's archive adds headers and alignment to the raw tensor bytes

# Called with (result so far, the stage the run is now in, steps done) after each stage ends.
Recorder = Callable[[PilotResult, str, int], None]


def cap_device(cfg: PilotConfig, device: torch.device) -> None:
    if device.type == "cuda" and cfg.memory_limit_gb:
        total = torch.cuda.get_device_properties(device).total_memory
        torch.cuda.set_per_process_memory_fraction(min(1.0, limit_bytes(cfg) / total), device)


def fits(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor) -> tuple[bool, int | None]:
    """Two steps (the peak needs the optimizer state) at this configuration: (fits, peak bytes)."""
    trainer = tracker = None
    try:
        trainer = Trainer(cfg, device, tokens=tokens)
        tracker = tracker_for(cfg, trainer)
        with tracker or contextlib.nullcontext():
            trainer.step()
            trainer.step()
        return True, peak_bytes(trainer, tracker)
    except (RuntimeError, torch.OutOfMemoryError) as exc:
        if not is_out_of_memory(exc):
            raise
        return False, None
    finally:
        del trainer, tracker
        release(device)


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
    return BatchSearch(limit_bytes(cfg) or None, trials, good or None)


def _pipeline(cfg: PilotConfig, timing: Timing) -> DataPipeline | None:
    """The reader's data pipeline timed apart (`pipeline_rate`), against the tokens the steps consumed."""
    rate = pipeline_rate(cfg.data, cfg.model, cfg.train.seq_len, cfg.train.micro_batch)
    if rate is None:
        return None
    share = rate.tokens_per_s / timing.tokens_per_s if timing.tokens_per_s > 0 else 0.0
    return DataPipeline(rate.tokens, rate.seconds, rate.tokens_per_s, share)


def _timing(cfg: PilotConfig, done: Measured) -> Timing | None:
    if not done.times:
        return None
    total_step = sum(done.times)
    val_s, val_loss = done.validation or (None, None)
    return Timing(
        step=Stats.from_values(done.times),
        data_wait=Stats.from_values(done.waits),
        data_wait_fraction=sum(done.waits) / total_step if total_step else 0.0,
        stalled_steps=sum(w > STALL_FRACTION * t for w, t in zip(done.waits, done.times)),
        stall_threshold=STALL_FRACTION,
        tokens_per_step=cfg.train.tokens_per_step,
        tokens_per_s=cfg.train.tokens_per_step / (total_step / len(done.times)) if total_step else 0.0,
        validation_s=val_s,
        validation_loss=val_loss,
        warmup_steps=cfg.warmup_steps,
        validation_batches=cfg.val_batches if val_s is not None else None,
        validation_tokens=cfg.val_batches * cfg.train.micro_batch * cfg.train.seq_len if val_s is not None else None,
    )


def _memory(cfg: PilotConfig, trainer: Trainer, meters: Meters) -> Memory:
    rss, rss_peak = process_rss_bytes()
    on_gpu, sampler = trainer.device.type == "cuda", meters.sampler
    return Memory(
        method="cuda_allocator" if on_gpu else "live_tensor_tracker",
        peak_tensor_bytes=peak_bytes(trainer, meters.tracker),
        reserved_bytes=torch.cuda.max_memory_reserved(trainer.device) if on_gpu else None,
        device_used_peak_bytes=sampler.peak_used if on_gpu else None,
        device_total_bytes=sampler.total if on_gpu else None,
        rss_bytes=rss,
        rss_peak_bytes=rss_peak,
        limit_bytes=limit_bytes(cfg) or None,
    )


def _check_checkpoint_space(cfg: PilotConfig, trainer: Trainer, workdir: Path) -> None:
    """Before the first step: the checkpoint's size follows from the model, so a disk (or a file-size
    limit) that cannot hold it is known now, not after the training that precedes it."""
    if not cfg.restore_check:
        return
    needed = checkpoint.state_bytes(trainer) * CHECKPOINT_SPACE_MARGIN
    free = free_bytes(workdir)
    if free < needed:
        raise NoSpace(
            f"not enough free space for the checkpoint in {workdir}: about {needed / 1e9:.2f} GB needed, "
            f"{free / 1e9:.2f} GB free; pass --workdir on a larger disk or --no-restore-check"
        )
    limit = file_size_limit()
    if limit is not None and limit < needed:
        raise NoSpace(
            f"the checkpoint (about {needed / 1e9:.2f} GB) would pass this process's file-size limit of "
            f"{limit:,} bytes (ulimit -f); raise it (ulimit -f unlimited) or pass --no-restore-check"
        )


def _checkpoint(trainer: Trainer, workdir: Path, result: PilotResult):
    """A full disk or a file-size limit costs the restore check, not the run: it is recorded and training
    goes on."""
    t0 = time.perf_counter()
    try:
        reference, result.checkpoint = restore.write_checkpoint(trainer, workdir / "checkpoint.pt")
        return reference
    except NoRoomError as exc:
        result.checkpoint = Checkpoint(
            step=trainer.steps_done,
            write_s=time.perf_counter() - t0,
            size_bytes=0,
            error=str(exc.strerror),
            processes=1,
            sharded=False,
        )
        return None


def _measure(
    cfg: PilotConfig,
    trainer: Trainer,
    workdir: Path,
    show: bool,
    result: PilotResult,
    done: Measured,
    note: Callable[[], None],
):
    reference = None

    def after_step(step: int, meters: Meters) -> None:
        nonlocal reference
        if step == cfg.warmup_steps:
            result.memory = _memory(cfg, trainer, meters)  # the CPU peak is final after warm-up
            note()
        if cfg.restore_check and step == cfg.checkpoint_step:
            done.stage = "checkpoint"
            note()
            reference = _checkpoint(trainer, workdir, result)
            done.stage = "training"
            note()

    meters = measure(cfg, trainer, done, show=show, after_step=after_step)
    result.memory = _memory(cfg, trainer, meters)
    done.stage = "validation"
    note()
    with _Stopwatch() as val:
        val_loss = trainer.validate(cfg.val_batches)
    if not math.isfinite(val_loss):
        raise Diverged(
            f"the validation loss became {val_loss} after {done.steps_done} steps (train.lr {cfg.train.lr:g})"
        )
    done.validation = (val.seconds, val_loss)
    if reference is not None:
        restore.finish_reference(reference, trainer, done.losses[reference.step :])
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
    """The given folder (left as it is), or a temporary one (`workdirs.temporary`: removed at the end,
    on an error and on SIGINT/SIGTERM unless `keep`, and by a later run if this one is killed)."""
    if workdir is not None:
        workdirs.check_writable_folder(Path(workdir), "workdir")
        yield Path(workdir)
        return
    with workdirs.temporary(keep=keep) as tmp:
        yield tmp


def _partial(result: PilotResult, exc: BaseException, done: Measured) -> PilotResult:
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
    release(device)
    return result


def device_for(cfg: PilotConfig) -> torch.device:
    try:
        return resolve_device(cfg.device)
    except ValueError as exc:
        raise DeviceUnavailable(str(exc)) from exc


def new_result(
    kind: str, cfg: PilotConfig, device: torch.device, tokens: torch.Tensor, show: bool = False
) -> PilotResult:
    """The result envelope every scenario fills in: what ran, when, where, on which model (its family and
    the hashes of its configuration and local weights) and data."""
    ident = model_source.identity(cfg.model, show)
    return PilotResult(
        kind=kind,
        label=cfg.label,
        note=cfg.note,
        created=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        environment=environment.collect(device),
        config=cfg.to_dict(),
        model=ModelInfo(
            cfg.model.config_file or cfg.model.source,
            0,
            0,
            cfg.model_hash(ident.config_sha256),
            tokens_hash(tokens),
            ident.family,
            ident.config_sha256,
            ident.weights_sha256,
            ident.weights_bytes,
        ),
        outcome=Outcome("completed"),
    )


def _noter(cfg: PilotConfig, result: PilotResult, done: Measured, record: Recorder | None) -> Callable[[], None]:
    """Hands the result so far (losses and timing as of now) to `record`, marked with the current stage."""

    def note() -> None:
        if record is None:
            return
        result.losses, result.timing = list(done.losses), _timing(cfg, done)
        result.grad_norms = list(done.grad_norms)
        record(result, done.stage, done.steps_done)

    return note


def run(
    cfg: PilotConfig,
    workdir: Path | None = None,
    show_progress: bool = True,
    keep_workdir: bool = False,
    record: Recorder | None = None,
) -> PilotResult:
    """The pilot; a failure once measuring has begun raises PartialRun carrying what was measured."""
    cfg = resolved(cfg)
    device = device_for(cfg)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    done = Measured()
    result = new_result("run", cfg, device, tokens, show_progress)
    note = _noter(cfg, result, done, record)
    with workdir_for(workdir, keep_workdir) as workdir:
        cap_device(cfg, device)
        try:
            trainer = _trainer(cfg, device, tokens)  # bad options against the model fail here, before any work
        except (RuntimeError, torch.OutOfMemoryError) as exc:
            return _does_not_fit(result, exc, device)
        result.model.parameters, result.model.trainable_parameters = parameter_count(trainer.module)
        _check_checkpoint_space(cfg, trainer, workdir)
        try:
            if cfg.find_max_batch:
                del trainer
                release(device)
                done.stage = "batch_search"
                note()
                result.batch_search = search_micro_batch(cfg, device, tokens, show_progress)
                if result.batch_search.largest_fitting is None:
                    result.outcome = Outcome("does_not_fit", "no micro-batch fits, not even 1")
                    return result
                cfg = dataclasses.replace(
                    cfg, train=dataclasses.replace(cfg.train, micro_batch=result.batch_search.largest_fitting)
                )
                result.config = cfg.to_dict()
                trainer = Trainer(cfg, device, tokens=tokens)
            done.stage = "warmup"
            note()  # setup is done: the first result on disk, before any step
            try:
                reference = _measure(cfg, trainer, workdir, show_progress, result, done, note)
            except (RuntimeError, torch.OutOfMemoryError) as exc:
                return _does_not_fit(result, exc, device)
            finally:
                del trainer
                release(device)
            result.losses, result.grad_norms = done.losses, done.grad_norms
            result.timing = _timing(cfg, done)
            if result.timing is not None:  # after the steps, so that it takes none of their CPU
                result.timing.data_pipeline = _pipeline(cfg, result.timing)
            result.estimate = estimate.compare(cfg, result.memory.peak_tensor_bytes, device.type)
            if reference is not None:
                done.stage = "restore"
                note()
                result.restore = restore.verify(cfg, device, reference, workdir, show=show_progress)
        except (Exception, KeyboardInterrupt, Interrupted) as exc:
            result.losses, result.timing = done.losses, _timing(cfg, done)
            result.grad_norms = done.grad_norms
            raise PartialRun(_finished(_partial(result, exc, done)), exc) from exc
    if result.checkpoint is not None and result.checkpoint.error:
        result.outcome = Outcome(
            "partial",
            f"checkpoint not written: {result.checkpoint.error}; no restore check",
            Partial("checkpoint_failed", "training", done.steps_done),
        )
    return _finished(result)


def _finished(result: PilotResult) -> PilotResult:
    result.flags = flags.evaluate(result)
    return result
