"""The scaling step: the pilot's workload under each strategy on N processes, at the same effective batch.

The baseline is one process, run here; when one process cannot hold the job (it runs out of memory, or
past --memory-limit-gb), it is the smallest sharded configuration that fits on one node (FSDP, then FSDP
with gradient checkpointing, on 2, 4 ... processes), and the summary says so. Each strategy then runs
through torchrun (`scale_launch`); one that runs out of memory is recorded as not fitting and the others
go on. Useful throughput is tokens per optimizer step over the slowest rank's step time; scaling
efficiency is that throughput over what the baseline's processes would give, N / B times the baseline's.
Every process compared, the baseline's included, runs the same number of torch threads (on the CPU one,
unless --threads says otherwise): a baseline with more threads, or fewer, than each worker makes the
efficiency meaningless.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path

import torch

from . import flags, workdirs
from .checks import check_model
from .config import PilotConfig
from .data import load_tokens
from .errors import DoesNotFit, Interrupted, PartialRun, describe, is_out_of_memory
from .model import parameter_count
from .report import NotFit, Outcome, Partial, PilotResult, ScaleRun, Scaling, ShardedCheckpoint, Stats
from .scale_config import SHARDED_BASELINES, ScaleConfig, baseline_sizes, split_batch
from .scale_launch import backend_label, measure_times, run_torchrun, threads_per_process
from .steps import release
from .trainer import Trainer, resolved


class _Launch:
    """Runs one strategy on some processes through torchrun, each count with its own split of the batch."""

    def __init__(self, cfg: PilotConfig, folder: Path, threads: int, show: bool):
        self.cfg, self.folder, self.threads, self.show = cfg, folder, threads, show

    def __call__(self, strategy: str, scale: ScaleConfig) -> tuple[ScaleRun, dict]:
        world = scale.world
        micro, accum = split_batch(self.cfg, world)
        # restore_check (--no-restore-check) also decides whether each rank saves and loads a checkpoint.
        shard_cfg = dataclasses.replace(
            self.cfg, train=dataclasses.replace(self.cfg.train, micro_batch=micro, grad_accum=accum)
        )
        name = f"{strategy}-x{world}"
        cfg_file = self.folder / f"{name}.config.json"
        cfg_file.write_text(json.dumps(shard_cfg.to_dict()), encoding="utf-8")
        if self.show:
            each = f"{self.threads} thread{'s' * (self.threads > 1)} each"
            print(f"torchrun: {strategy} on {world} processes ({each}) ...", file=sys.stderr)
        try:
            got = run_torchrun(cfg_file, strategy, self.folder / f"{name}.json", scale, self.threads)
        finally:  # each strategy's checkpoint goes once measured: the disk holds one at a time
            shutil.rmtree(self.folder / f"{name}.checkpoint", ignore_errors=True)
        stats = Stats.from_values(got["times"])
        tps = self.cfg.train.tokens_per_step / stats.mean
        saved = ShardedCheckpoint(**got["checkpoint"]) if got.get("checkpoint") else None
        run = ScaleRun(strategy, got["world"], micro, accum, stats, tps, 1.0, got["peak"], got.get("threads"), saved)
        return run, got


def _one_process(cfg: PilotConfig, device: torch.device, tokens: torch.Tensor, result: PilotResult, show: bool):
    """The one-process baseline, or None with the out-of-memory line that stopped it."""
    trainer = None
    try:
        trainer = Trainer(cfg, device, tokens=tokens)
        check_model(cfg, trainer.module)
        result.model.parameters, result.model.trainable_parameters = parameter_count(trainer.module)
        times, peak = measure_times(trainer, cfg, show)
        tps = cfg.train.tokens_per_step / (sum(times) / len(times))
        t = cfg.train
        return ScaleRun(
            "none", 1, t.micro_batch, t.grad_accum, Stats.from_values(times), tps, 1.0, peak, torch.get_num_threads()
        ), None
    except (RuntimeError, torch.OutOfMemoryError) as exc:
        if not is_out_of_memory(exc):
            raise
        return None, str(exc).strip().splitlines()[0][:300]
    finally:
        del trainer
        release(device)


def _sharded(cfg: PilotConfig, scale: ScaleConfig, launch: _Launch, result: PilotResult, alone: str):
    """The smallest sharded configuration that fits on one node, and why it is the baseline."""
    tried = []
    for n in baseline_sizes(cfg, scale.nproc_per_node):
        local = dataclasses.replace(scale, nproc_per_node=n, nnodes="1", node_rank=0, rdzv_endpoint="")
        for strategy in SHARDED_BASELINES:
            try:
                run, got = launch(strategy, local)
            except DoesNotFit:
                tried.append(f"{strategy} on {n}")
                continue
            if not result.model.parameters and got.get("parameters"):
                result.model.parameters, result.model.trainable_parameters = got["parameters"]
            before = f", and so did {' and '.join(tried)} processes" if tried else ""
            why = (
                f"one process ran out of memory ({alone}){before}; {strategy} on {n} processes is the "
                "smallest sharded configuration that fits"
            )
            return run, why
    if not tried:
        raise DoesNotFit(
            f"one process ran out of memory ({alone}), and --nproc-per-node {scale.nproc_per_node} leaves no "
            "sharded baseline on one node that splits the effective batch"
        )
    raise DoesNotFit(
        f"no baseline fits: one process ran out of memory ({alone}), and so did {', '.join(tried)} processes"
    )


def run_scale(
    cfg: PilotConfig, scale: ScaleConfig, show_progress: bool = True, record=None, workdir: Path | None = None
) -> PilotResult | None:
    """The baseline, then each strategy. Returns None on a node other than --node-rank 0, which takes
    part but leaves the result to node 0; a failure raises PartialRun keeping what finished. `record`
    (runner.Recorder) gets the result after each stage; each strategy's checkpoint is written in a
    temporary folder inside `workdir` (--workdir; default: the system's temporary directory)."""
    from .runner import cap_device, device_for, new_result

    cfg = resolved(cfg)
    nnodes, nproc, world = scale.nodes, scale.nproc_per_node, scale.world
    split_batch(cfg, world)
    device = device_for(cfg)
    threads = threads_per_process(cfg, device, nproc)
    cfg = dataclasses.replace(cfg, threads=threads)  # the baseline's Trainer sets it, as each worker's does
    cap_device(cfg, device)
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    backend = backend_label(device)
    result = new_result("scale", cfg, device, tokens, show_progress)
    stage, steps = "training", 0

    def note() -> None:
        if record is not None and scale.node_rank == 0:
            record(result, stage, steps)

    note()
    try:
        with workdirs.temporary("gpu-pilot-scale-", parent=workdir) as tmp:
            launch = _Launch(cfg, Path(tmp), threads, show_progress)
            baseline, alone = _one_process(cfg, device, tokens, result, show_progress)
            why = None
            if baseline is None:
                baseline, why = _sharded(cfg, scale, launch, result, alone)
                if show_progress:
                    print(f"baseline: {why}", file=sys.stderr)
            steps = cfg.total_steps
            per_process = baseline.tokens_per_s / baseline.world_size
            result.scaling = Scaling(
                nnodes,
                nproc,
                backend,
                cfg.train.micro_batch * cfg.train.grad_accum,
                cfg.train.tokens_per_step,
                baseline,
                [],
                threads,
                why,
                [],
            )
            stage = "scaling"
            note()
            for strategy in scale.strategies:
                try:
                    run, _ = launch(strategy, scale)
                except DoesNotFit as exc:
                    result.scaling.did_not_fit.append(NotFit(strategy, world, exc.detail[:1000]))
                    note()
                    continue
                run.efficiency = run.tokens_per_s / (run.world_size * per_process)
                result.scaling.runs.append(run)
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
