"""Run configuration: dataclasses that check themselves when built.

Every check raises ValueError naming the dotted option and the value received, so a bad
flag or config-file entry is reported as e.g. "train.micro_batch must be >= 1 (got 0)".
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calculators.architecture import LINEARS

LORA_TARGETS = LINEARS  # the pilot adapts the linears the memory model counts, by the same names
PRECISIONS = ("fp32", "bf16")
OPTIMIZERS = ("adamw", "sgd")
OPTIMIZER_IMPLS = ("default", "foreach", "fused", "single_tensor")
METHODS = ("full", "lora", "qlora")
MODEL_DTYPES = ("auto", "fp32", "bf16")
ATTENTIONS = ("sdpa", "eager")
ADAPTER_DTYPES = ("fp32", "weights")
LOSSES = ("standard", "fused")
SCHEDULES = ("constant", "linear", "cosine")
DEVICES = ("auto", "cpu", "cuda")
MAX_PATH = 1000  # the result schema's maxLength for a path; longer is no path a file system takes


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}… ({len(value)} characters)"


def _at_least(section: str, name: str, value, low, high: float = math.inf) -> None:
    # Written as `not low <= value <= high` so NaN (every comparison false) is refused too; `high` is
    # the result schema's bound, so every accepted value can be written to the result.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high or math.isinf(value):
        bound = f">= {low}" if high == math.inf else f"between {low} and {high:g}"
        raise ValueError(f"{section}.{name} must be a finite number {bound} (got {value!r})")


def _integer(section: str, name: str, value, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        bound = f"an integer between {low} and {high}" if high is not None else f"an integer >= {low}"
        raise ValueError(f"{section}.{name} must be {bound} (got {value!r})")


def _one_of(section: str, name: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"{section}.{name} must be one of {', '.join(map(repr, choices))} (got {value!r})")


def _all_presets() -> list[dict]:
    try:
        import calculators
    except ImportError:  # the pilot installed without the site's packages still runs the built-in model
        return []
    return list(calculators.models()["models"])


def runnable_presets() -> list[dict]:
    """The calculators' model presets of a model type the pilot runs (the calculators' config.json reader
    knows it); the others are not offered."""
    presets = _all_presets()
    if not presets:
        return []
    from calculators.hf_config import MODEL_TYPES

    return [m for m in presets if m.get("model_type") in MODEL_TYPES]


def _presets() -> tuple[str, ...]:
    return tuple(m["id"] for m in runnable_presets())


@dataclass
class ModelConfig:
    """The model: the built-in Llama-style decoder (a dependency-free smoke test), a transformers
    model built from a preset or a config.json with random weights, or a local checkpoint. For a
    transformers model the shape below is filled in from its configuration."""

    source: str = field(
        default="builtin",
        metadata={"help": "'builtin', a preset (e.g. llama-3.1-8b) or a local Hugging Face model directory"},
    )
    config_file: str = field(default="", metadata={"help": "a Hugging Face config.json to build with random weights"})
    dtype: str = field(
        default="auto",
        metadata={"help": "weights as loaded: auto (the checkpoint's dtype; fp32 for builtin), fp32 or bf16"},
    )
    attention: str = field(default="sdpa", metadata={"help": "transformers attention: sdpa or eager"})
    layers: int = 2
    hidden: int = 64
    heads: int = 4
    kv_heads: int = 2
    intermediate: int = 176
    vocab: int = 512
    tie_embeddings: bool = False
    head_dim: int = field(default=0, metadata={"help": "0: hidden / heads"})
    qkv_bias: bool = False
    fused_projections: bool = field(default=False, metadata={"help": "qkv and gate_up projections (Phi-3)"})
    dropout: float = field(
        default=0.0, metadata={"help": "built-in model's dropout probability (consumes the torch RNG)"}
    )
    # The memory model's family and a mixture of experts' shape, filled in from a transformers model's
    # configuration (calculators.hf_config); the built-in model is a dense Llama-style one.
    family: str = field(
        default="llama", metadata={"help": "memory-model family (llama also covers Mistral, Qwen2, Phi-3)"}
    )
    experts: int = field(default=0, metadata={"help": "routed experts per layer (0: a dense MLP)"})
    experts_per_token: int = 0
    shared_expert_intermediate: int = field(default=0, metadata={"help": "Qwen2-MoE's shared expert width (0: none)"})
    router_aux_loss: bool = field(default=False, metadata={"help": "output_router_logits: the load-balancing loss"})

    @property
    def is_transformers(self) -> bool:
        return self.source != "builtin" or bool(self.config_file)

    def __post_init__(self) -> None:
        s = "model"
        presets = _presets()
        if not isinstance(self.source, str) or not 0 < len(self.source) <= MAX_PATH:
            raise ValueError(f"{s}.source must be 'builtin', a preset or a directory (got {_short(self.source)})")
        if not isinstance(self.config_file, str) or len(self.config_file) > MAX_PATH:
            raise ValueError(f"{s}.config_file must be the path of a config.json (got {_short(self.config_file)})")
        if self.source != "builtin" and self.source not in presets and not Path(self.source).is_dir():
            other = next((m for m in _all_presets() if m["id"] == self.source), None)
            if other is not None:
                raise ValueError(
                    f"{s}.source {self.source!r} is a {other.get('model_type')} model, a family the pilot "
                    f"does not run yet; it runs: {', '.join(presets)}"
                )
            raise ValueError(
                f"{s}.source must be 'builtin', a preset ({', '.join(presets)}) or an existing "
                f"directory (got {self.source!r})"
            )
        if self.config_file and (self.source != "builtin" or not Path(self.config_file).is_file()):
            raise ValueError(
                f"{s}.config_file must be an existing config.json, given without model.source "
                f"(got {self.config_file!r} with source {self.source!r})"
            )
        _one_of(s, "dtype", self.dtype, MODEL_DTYPES)
        _one_of(s, "attention", self.attention, ATTENTIONS)
        _integer(s, "head_dim", self.head_dim, 0, 4096)
        if not isinstance(self.family, str) or not 0 < len(self.family) <= 40:
            raise ValueError(f"{s}.family must be a family name (got {self.family!r})")
        for name in ("experts", "experts_per_token", "shared_expert_intermediate"):
            _integer(s, name, getattr(self, name), 0, 1 << 20)
        if not isinstance(self.router_aux_loss, bool):
            raise ValueError(f"{s}.router_aux_loss must be true or false (got {self.router_aux_loss!r})")
        for name, high in (
            ("layers", 1024),
            ("hidden", 65536),
            ("heads", 1024),
            ("kv_heads", 1024),
            ("intermediate", 262144),
            ("vocab", 1 << 20),
        ):
            _integer(s, name, getattr(self, name), 1, high)
        if self.is_transformers:
            return  # the shape comes from the model's configuration (pilot.hf_model.resolve)
        if (
            self.qkv_bias
            or self.fused_projections
            or self.head_dim not in (0, self.hidden // self.heads)
            or self.family != "llama"
            or self.experts
            or self.router_aux_loss
        ):
            raise ValueError(
                f"{s}.head_dim, model.qkv_bias, model.fused_projections, model.family and the experts "
                f"are for transformers models; the built-in model is a dense Llama-style one with "
                f"head_dim = hidden / heads, no biases and separate projections"
            )
        if self.hidden % self.heads:
            raise ValueError(
                f"{s}.hidden must be divisible by model.heads (got hidden={self.hidden}, heads={self.heads})"
            )
        if self.heads % self.kv_heads:
            raise ValueError(f"{s}.kv_heads must divide model.heads (got kv_heads={self.kv_heads}, heads={self.heads})")
        if (self.hidden // self.heads) % 2:
            raise ValueError(
                f"{s}.hidden / model.heads must be even for rotary embeddings (got {self.hidden // self.heads})"
            )
        if not isinstance(self.dropout, (int, float)) or not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"{s}.dropout must be in [0, 1) (got {self.dropout!r})")


@dataclass
class TrainConfig:
    """What one optimizer step does."""

    method: str = "full"
    lora_rank: int = 8
    lora_alpha: float = 16.0
    lora_targets: tuple[str, ...] = LORA_TARGETS
    lora_dropout: float = field(default=0.0, metadata={"help": "peft's lora_dropout"})
    adapter_dtype: str = field(
        default="fp32", metadata={"help": "LoRA adapters: fp32 (peft's default on a 16-bit base) or the weights' dtype"}
    )
    precision: str = field(default="fp32", metadata={"help": "fp32 (no autocast) or bf16 (bf16 autocast)"})
    optimizer: str = "adamw"
    optimizer_impl: str = field(
        default="default",
        metadata={
            "help": "AdamW code path: default (torch's: foreach on GPUs, single_tensor on CPUs), foreach, fused, single_tensor"
        },
    )
    loss: str = field(
        default="standard", metadata={"help": "standard, or fused linear cross-entropy (Liger Kernel, CUDA)"}
    )
    lr: float = 1e-4
    weight_decay: float = 0.0
    lr_schedule: str = "cosine"
    lr_warmup_steps: int = 2
    grad_checkpointing: bool = False
    micro_batch: int = 2
    grad_accum: int = 1
    seq_len: int = 64

    def __post_init__(self) -> None:
        s = "train"
        _one_of(s, "method", self.method, METHODS)
        _one_of(s, "precision", self.precision, PRECISIONS)
        _one_of(s, "optimizer", self.optimizer, OPTIMIZERS)
        _one_of(s, "optimizer_impl", self.optimizer_impl, OPTIMIZER_IMPLS)
        _one_of(s, "adapter_dtype", self.adapter_dtype, ADAPTER_DTYPES)
        _one_of(s, "loss", self.loss, LOSSES)
        if (
            isinstance(self.lora_dropout, bool)
            or not isinstance(self.lora_dropout, (int, float))
            or not 0.0 <= self.lora_dropout < 1.0
        ):
            raise ValueError(f"{s}.lora_dropout must be in [0, 1) (got {self.lora_dropout!r})")
        _one_of(s, "lr_schedule", self.lr_schedule, SCHEDULES)
        _integer(s, "lora_rank", self.lora_rank, 1, 4096)
        _at_least(s, "lora_alpha", self.lora_alpha, 0, 1e6)
        if isinstance(self.lora_targets, str):
            self.lora_targets = tuple(t for t in self.lora_targets.split(",") if t)
        self.lora_targets = tuple(self.lora_targets)
        if not self.lora_targets:
            raise ValueError(f"{s}.lora_targets must name at least one of {', '.join(LORA_TARGETS)} (got none)")
        for target in self.lora_targets:
            _one_of(s, "lora_targets", target, LORA_TARGETS)
        _at_least(s, "lr", self.lr, 0, 1000)
        _at_least(s, "weight_decay", self.weight_decay, 0, 1000)
        _integer(s, "lr_warmup_steps", self.lr_warmup_steps, 0, 10**9)
        _integer(s, "micro_batch", self.micro_batch, 1, 65536)
        _integer(s, "grad_accum", self.grad_accum, 1, 65536)
        _integer(s, "seq_len", self.seq_len, 2, 1 << 20)

    @property
    def tokens_per_step(self) -> int:
        return self.micro_batch * self.grad_accum * self.seq_len


@dataclass
class DataConfig:
    """Synthetic tokens, or a local text / JSONL file packed into full-length sequences."""

    source: str = field(default="synthetic", metadata={"help": "'synthetic' or a .txt / .jsonl file"})
    text_field: str = "text"
    tokenizer: str = field(
        default="auto",
        metadata={
            "help": "how a data file is tokenized: 'bytes' (UTF-8 bytes, offline), a local directory holding a "
            "tokenizer, or 'auto': a local model directory's own tokenizer, else bytes (a preset, a config.json "
            "or the built-in model has none offline; the pilot downloads nothing)"
        },
    )
    num_workers: int = 0
    synthetic_sequences: int = 4096

    def __post_init__(self) -> None:
        s = "data"
        if not isinstance(self.source, str) or not 0 < len(self.source) <= MAX_PATH:
            raise ValueError(
                f"{s}.source must be 'synthetic' or the path of a .txt/.jsonl file (got {_short(self.source)})"
            )
        if self.source != "synthetic" and not Path(self.source).is_file():
            raise ValueError(f"{s}.source must be 'synthetic' or an existing .txt/.jsonl file (got {self.source!r})")
        if not isinstance(self.tokenizer, str) or not (
            self.tokenizer in ("auto", "bytes")
            or (0 < len(self.tokenizer) <= MAX_PATH and Path(self.tokenizer).is_dir())
        ):
            raise ValueError(
                f"{s}.tokenizer must be 'auto', 'bytes' or a local directory holding a tokenizer "
                f"(got {_short(self.tokenizer)}); the pilot downloads nothing"
            )
        _integer(s, "num_workers", self.num_workers, 0, 256)
        _integer(s, "synthetic_sequences", self.synthetic_sequences, 1)

    def tokenizer_for(self, model_source: str) -> str:
        return tokenizer_for(self.tokenizer, model_source)


def tokenizer_for(tokenizer: str, model_source: str) -> str:
    """'bytes', or the directory whose tokenizer tokenizes a data file (`DataConfig.tokenizer`)."""
    if tokenizer != "auto":
        return tokenizer
    return model_source if model_source != "builtin" and Path(model_source).is_dir() else "bytes"


@dataclass
class PilotConfig:
    """A whole pilot run."""

    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    data: DataConfig = field(default_factory=DataConfig)
    device: str = "auto"
    seed: int = 1234
    threads: int = field(
        default=0,
        metadata={
            "help": "torch threads per process (0: torch's default for run; "
            "scale runs 1 per process on the CPU, the baseline included)"
        },
    )
    warmup_steps: int = field(
        default=3, metadata={"help": "steps excluded from timing; the CPU memory peak is taken over them"}
    )
    steps: int = field(default=10, metadata={"help": "timed steps"})
    val_batches: int = 2
    restore_check: bool = True
    memory_limit_gb: float = field(
        default=0.0,
        metadata={"help": "treat more than this much tensor memory as out of memory (0: the device's own limit)"},
    )
    find_max_batch: bool = False
    max_batch_limit: int = 256
    label: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        for name, cls in (("model", ModelConfig), ("train", TrainConfig), ("data", DataConfig)):
            value = getattr(self, name)
            if isinstance(value, dict):
                setattr(self, name, _build(cls, value, name))
        _one_of("run", "device", self.device, DEVICES)
        _integer("run", "seed", self.seed, 0, 2**63 - 1)
        _integer("run", "threads", self.threads, 0, 4096)
        # Two steps are needed before the peak includes the optimizer state.
        _integer("run", "warmup_steps", self.warmup_steps, 2, 100000)
        _integer("run", "steps", self.steps, 2, 1000000)
        _integer("run", "val_batches", self.val_batches, 0, 100000)
        _at_least("run", "memory_limit_gb", self.memory_limit_gb, 0, 1e6)
        _integer("run", "max_batch_limit", self.max_batch_limit, 1, 1 << 20)
        _fits_the_contract(self.to_dict())

    @property
    def checkpoint_step(self) -> int:
        """The step after which the mid-run checkpoint is written (half-way through the timed steps)."""
        return self.warmup_steps + self.steps // 2

    @property
    def total_steps(self) -> int:
        return self.warmup_steps + self.steps

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["train"]["lora_targets"] = list(self.train.lora_targets)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PilotConfig":
        data = dict(data)
        for key in ("model", "train", "data"):
            if key in data and not isinstance(data[key], dict):
                raise ValueError(f"{key} must be a table of options (got {data[key]!r})")
        return _build(cls, data, "run")

    @classmethod
    def from_file(cls, path: str | Path) -> "PilotConfig":
        path = Path(path)
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        return cls.from_dict(data)

    def model_hash(self, config_sha256: str | None = None) -> str:
        """Hash of what defines the model's shape and initialisation: the options and, given its hash
        (`model_source.identity`), the contents of the configuration they name."""
        payload = {
            "model": dataclasses.asdict(self.model),
            "seed": self.seed,
            "method": self.train.method,
            "lora": [self.train.lora_rank, list(self.train.lora_targets)],
        }
        if config_sha256 is not None:
            payload["config_sha256"] = config_sha256
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _fits_the_contract(data: dict[str, Any]) -> None:
    """The configuration is copied into the result file, so it is held to the contract's `$defs/config`
    as well as to the checks above (which word the common mistakes better, and keep the cross-field
    rules): the two can no longer drift into a run whose file the site refuses."""
    from .result import problem, validator

    v = validator()
    found = v.problems(v.root["$defs"]["config"], data, "")
    if found:
        from gpuguide.results import english

        pointer, code, params = found[0]
        raise ValueError(
            f"the configuration breaks the result file's schema: {english(problem(pointer, code, **params))}"
        )


def _build(cls, data: dict[str, Any], section: str):
    known = {f.name for f in dataclasses.fields(cls)}
    for key in data:
        if key not in known:
            raise ValueError(f"unknown option {section}.{key} (known: {', '.join(sorted(known))})")
    return cls(**data)
