"""The result file: report dataclasses, and JSON written and read in one place."""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .atomic import atomic_write
from .result import SCHEMA_VERSION
from .resultfile import target


class JsonMixin:
    """to_dict / save_json / from_dict / from_json for nested report dataclasses."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self, data: dict[str, Any] | None = None) -> str:
        """The file's text; `data`: this object's dict as a caller amended it (`resultfile` marks a stage)."""
        return (
            json.dumps(self.to_dict() if data is None else data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        )

    def save_json(self, path: str | Path, overwrite: bool = False) -> Path:
        """Written atomically: a failure (a full disk) leaves any earlier file as it was."""
        path = target(Path(path), overwrite)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = self.to_json().encode("utf-8")  # serialised first: a value JSON refuses fails before any write
        atomic_write(path, lambda fh: fh.write(text))
        return path

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        return _decode(cls, data)

    @classmethod
    def from_json(cls, path: str | Path):
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def _decode(tp, value):
    """Rebuild a value of type `tp` (dataclass, X | None, list[X], dict[str, X], scalar) from JSON."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _decode(inner[0], value)
    if origin is list:
        return [_decode(typing.get_args(tp)[0], v) for v in value]
    if origin is dict:
        return {k: _decode(typing.get_args(tp)[1], v) for k, v in value.items()}
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: _decode(hints[f.name], value[f.name]) for f in dataclasses.fields(tp) if f.name in value})
    return value


def _finite(x: float) -> float:
    return float(x) if math.isfinite(x) else 0.0


@dataclass
class Stats:
    """Summary of repeated measurements, in seconds."""

    n: int
    mean: float
    p50: float
    p95: float
    std: float
    cv: float
    min: float
    max: float
    unit: str = "s"

    @classmethod
    def from_values(cls, values: list[float]) -> "Stats":
        a = np.asarray(values, dtype=np.float64)
        if a.size == 0:
            return cls(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        mean, std = float(a.mean()), float(a.std(ddof=1)) if a.size > 1 else 0.0
        return cls(
            int(a.size),
            mean,
            float(np.percentile(a, 50)),
            float(np.percentile(a, 95)),
            std,
            _finite(std / mean) if mean > 0 else 0.0,
            float(a.min()),
            float(a.max()),
        )


@dataclass
class DataPipeline:
    """The reader's data pipeline timed alone (`pilot.data.pipeline_rate`) beside what training consumes."""

    tokens: int
    seconds: float
    tokens_per_s: float
    share_of_training: float  # tokens_per_s over the training's tokens/s: below 1, a streaming loader stalls


@dataclass
class Timing:
    step: Stats
    data_wait: Stats
    data_wait_fraction: float
    stalled_steps: int
    stall_threshold: float
    tokens_per_step: int
    tokens_per_s: float
    validation_s: float | None  # None: the run stopped before validation
    validation_loss: float | None
    warmup_steps: int
    # The reader's file read and tokenized as a streaming loader would, timed apart; None for synthetic data.
    data_pipeline: DataPipeline | None = None
    # What validation_s covers: this many held-out micro-batches, this many tokens (None: older files).
    validation_batches: int | None = None
    validation_tokens: int | None = None


@dataclass
class Memory:
    method: str
    peak_tensor_bytes: int
    reserved_bytes: int | None
    device_used_peak_bytes: int | None
    device_total_bytes: int | None
    rss_bytes: int
    rss_peak_bytes: int
    limit_bytes: int | None
    unit: str = "bytes"


@dataclass
class Checkpoint:
    step: int
    write_s: float
    size_bytes: int
    atomic: bool = True
    error: str | None = None  # why it could not be written (a full disk); the run went on without it
    # What write_s covers: one process's torch.save of the whole state, never sharded (None: older files).
    processes: int | None = None
    sharded: bool | None = None


@dataclass
class RestoreCheck:
    performed: bool
    passed: bool | None
    mode: str
    rtol: float
    atol: float
    fresh_process: bool
    resumed_from_step: int
    resumed_steps: int
    verified: list[str]
    failures: list[str]
    max_loss_abs_diff: float | None
    max_param_abs_diff: float | None
    duration_s: float
    # The same findings as data (schema $defs/restore_item): the site words them in the reader's
    # language; `verified` and `failures` are the English sentences for the terminal.
    checks: list[dict] = field(default_factory=list)


@dataclass
class Estimate:
    available: bool
    reason: str | None
    calculator_inputs: dict[str, Any] | None
    components: dict[str, int] | None
    estimated_bytes: int | None
    measured_bytes: int | None
    relative_error: float | None


@dataclass
class BatchTrial:
    micro_batch: int
    fits: bool
    peak_tensor_bytes: int | None


@dataclass
class BatchSearch:
    limit_bytes: int | None
    trials: list[BatchTrial]
    largest_fitting: int | None


@dataclass
class ShardedCheckpoint:
    """A scaling configuration's checkpoint through torch.distributed.checkpoint: every process writes
    its shard (`sharded`: the weights and optimizer state are split, not replicated). Times are the
    slowest process's; `restored`: the weights loaded back are the ones saved."""

    write_s: float | None
    load_s: float | None
    size_bytes: int | None
    processes: int
    sharded: bool
    restored: bool | None
    error: str | None = None  # why it was not measured (None when it was)


@dataclass
class ScaleRun:
    strategy: str
    world_size: int
    micro_batch: int
    grad_accum: int
    step: Stats
    tokens_per_s: float
    efficiency: float
    peak_tensor_bytes: int
    threads: int | None = None  # torch threads per process
    checkpoint: ShardedCheckpoint | None = None  # None: not measured (--no-restore-check, the baseline)


@dataclass
class NotFit:
    """A strategy that ran out of memory on world_size processes; `message` is its rank's own line."""

    strategy: str
    world_size: int
    message: str


@dataclass
class Scaling:
    nnodes: int
    nproc_per_node: int
    backend: str
    effective_batch: int
    tokens_per_step: int
    baseline: ScaleRun
    runs: list[ScaleRun]
    threads_per_process: int | None = None  # the same for the baseline and every strategy
    # Why the baseline is not one process (None when it is): one process ran out of memory.
    baseline_reason: str | None = None
    did_not_fit: list[NotFit] | None = None  # strategies that ran out of memory at the full count


@dataclass
class Environment:
    python: str
    platform: str
    torch: str
    cuda: str | None
    hip: str | None
    driver: str | None
    device_type: str
    device_name: str
    device_count: int
    cpu_threads: int
    torch_threads: int
    pilot_version: str
    git_revision: str | None
    cpu_model: str | None = None
    packages: dict[str, str | None] | None = None  # optional packages' versions (a None inside: not installed)


@dataclass
class ModelInfo:
    source: str
    parameters: int
    trainable_parameters: int
    config_hash: str
    data_hash: str | None  # None in a trace, which reads no data
    family: str = "builtin"  # or the transformers model_type
    config_sha256: str | None = None  # the configuration's canonical contents
    weights_sha256: str | None = None  # local weight files; None: random weights
    weights_bytes: int | None = None


@dataclass
class TraceFigures:
    """A training step traced under fake tensors (`gpu-pilot trace`): live tensor bytes at the peak of two
    optimizer steps and what they were then (schema $defs/trace)."""

    peak_step: int
    peak_bytes: int
    parameters: int
    gradients: int
    optimizer_state: int
    activations_and_temporaries: int
    cuda_estimated_bytes: int | None  # the calculator's GPU figure for the same configuration
    steps: int = 2
    tracer: str = "FakeTensorMode"
    unit: str = "bytes"


# "unfinished": the file was written between two stages of a run still going (left so by a SIGKILL).
PARTIAL_REASONS = ("diverged", "failed", "interrupted", "checkpoint_failed", "unfinished")
STAGES = ("setup", "warmup", "training", "checkpoint", "validation", "restore", "batch_search", "scaling")


@dataclass
class Partial:
    """Why a run's result is incomplete, and how far it got; what it measured is kept."""

    reason: str  # one of PARTIAL_REASONS
    stage: str  # the phase it stopped in, one of STAGES
    steps_done: int


@dataclass
class Outcome:
    status: str  # completed, does_not_fit, partial
    error: str | None = None
    partial: Partial | None = None


@dataclass
class Flag:
    """A figure outside the range the guide asks for (`pilot.flags` decides); `trustworthy` False: the
    figure it concerns must not be used."""

    code: str
    subject: str  # "run", or the scaling configuration: "none" (the baseline), "ddp", "fsdp"
    value: float
    limit: float
    trustworthy: bool
    message: str
    budget_steps: int | None = None


@dataclass
class PilotResult(JsonMixin):
    kind: str
    label: str
    note: str
    created: str
    environment: Environment
    config: dict[str, Any]
    model: ModelInfo
    outcome: Outcome
    timing: Timing | None = None
    memory: Memory | None = None
    checkpoint: Checkpoint | None = None
    restore: RestoreCheck | None = None
    estimate: Estimate | None = None
    batch_search: BatchSearch | None = None
    scaling: Scaling | None = None
    trace: TraceFigures | None = None  # kind "trace" only
    losses: list[float] = field(default_factory=list)
    grad_norms: list[float] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    command: str = ""
    schema_version: str = SCHEMA_VERSION

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        if data["trace"] is None:  # a run or scale file has no trace (files before traces never had the key)
            del data["trace"]
        if not data["grad_norms"]:  # not measured (a trace, FSDP, a file from before): the key stays out
            del data["grad_norms"]
        return {"schema_version": data.pop("schema_version"), **data}  # the version reads first in the file
