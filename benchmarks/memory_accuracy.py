"""The memory calculator against the real stack: transformers + peft on the CPU, live-tensor peak.

Each configuration runs two optimizer steps through the pilot (a randomly initialised model built
from a config.json of its family, LoRA through peft, checkpointing through transformers, the
model's own loss) while the pilot's tracker records the peak of live tensor storage, and compares
it with the calculator's estimate for the same inputs (tensors only; dropout masks as the CPU
stores them, in the input's dtype, where CUDA keeps one byte).

    python -m benchmarks.memory_accuracy [--json FILE] [--quick | --scan]

The table and its JSON (default: benchmarks/results/memory_accuracy.json) are what the memory
page shows, generated at build time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from calculators.architecture import ATTENTION_LINEARS

GOAL = 0.05
DEFAULT_JSON = Path(__file__).parent / "results" / "memory_accuracy.json"

# Small members of each family, in the proportions that matter: vocabulary large against hidden,
# grouped-query attention, Qwen2's q/k/v biases and tied embeddings.
FAMILIES = {
    "llama": {
        "model_type": "llama",
        "num_hidden_layers": 2,
        "hidden_size": 256,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "intermediate_size": 688,
        "vocab_size": 4096,
        "tie_word_embeddings": False,
        "max_position_embeddings": 1024,
    },
    "qwen2": {
        "model_type": "qwen2",
        "num_hidden_layers": 2,
        "hidden_size": 192,
        "num_attention_heads": 6,
        "num_key_value_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 5000,
        "tie_word_embeddings": True,
        "max_position_embeddings": 1024,
    },
    "mistral": {
        "model_type": "mistral",
        "num_hidden_layers": 3,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 32,
        "intermediate_size": 448,
        "vocab_size": 3000,
        "tie_word_embeddings": False,
        "max_position_embeddings": 1024,
        "sliding_window": None,
    },
    # Phi-3: fused qkv and gate_up projections, one LoRA adapter each; full multi-head attention as
    # in Phi-3-mini. Its config's token ids and sliding window are set for this small vocabulary.
    "phi3": {
        "model_type": "phi3",
        "num_hidden_layers": 2,
        "hidden_size": 192,
        "num_attention_heads": 6,
        "num_key_value_heads": 6,
        "intermediate_size": 512,
        "vocab_size": 4000,
        "tie_word_embeddings": False,
        "max_position_embeddings": 1024,
        "sliding_window": None,
        "pad_token_id": 0,
        "bos_token_id": 1,
        "eos_token_id": 2,
    },
    # A small vocabulary and long sequences: activations outweigh the logits, so a recomputed
    # block's backward pass sets the peak.
    "llama-act": {
        "model_type": "llama",
        "num_hidden_layers": 4,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "intermediate_size": 512,
        "vocab_size": 256,
        "tie_word_embeddings": False,
        "max_position_embeddings": 2048,
    },
    # Issue 52 item 9's shape: few layers, a wide MLP, a small vocabulary and thousands of tokens per
    # micro-batch. With SGD's bufferless step the peak is at the first block's backward pass, where the
    # gradients of the later blocks sit beside that block's recomputed activations.
    "llama-wide": {
        "model_type": "llama",
        "num_hidden_layers": 3,
        "hidden_size": 512,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "head_dim": 64,
        "intermediate_size": 4096,
        "vocab_size": 512,
        "tie_word_embeddings": False,
        "max_position_embeddings": 2048,
    },
    "phi3-act": {
        "model_type": "phi3",
        "num_hidden_layers": 4,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 512,
        "vocab_size": 256,
        "tie_word_embeddings": False,
        "max_position_embeddings": 2048,
        "sliding_window": None,
        "pad_token_id": 0,
        "bos_token_id": 1,
        "eos_token_id": 2,
    },
}
# The families transformers 5 builds differently (calculators.architecture.FAMILIES): Qwen3's q/k norms,
# Gemma's four norms (Gemma 2 soft-capped and eager, Gemma 3 with per-head q/k norms; its sliding window
# wider than the sequences here), and the mixtures of experts, with Qwen2-MoE's shared expert.
NEW_FAMILIES = {
    "qwen3": {
        "model_type": "qwen3",
        "num_hidden_layers": 2,
        "hidden_size": 192,
        "num_attention_heads": 6,
        "num_key_value_heads": 2,
        "head_dim": 48,
        "intermediate_size": 512,
        "vocab_size": 5000,
        "tie_word_embeddings": True,
        "max_position_embeddings": 1024,
    },
    "gemma2": {
        "model_type": "gemma2",
        "num_hidden_layers": 2,
        "hidden_size": 192,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "intermediate_size": 512,
        "vocab_size": 4000,
        "max_position_embeddings": 1024,
    },
    "gemma3": {
        "model_type": "gemma3_text",
        "num_hidden_layers": 2,
        "hidden_size": 192,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 64,
        "intermediate_size": 512,
        "vocab_size": 4000,
        "max_position_embeddings": 1024,
        "sliding_window": 1024,
    },
    "mixtral": {
        "model_type": "mixtral",
        "num_hidden_layers": 2,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 256,
        "vocab_size": 3000,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "max_position_embeddings": 1024,
    },
    "qwen2_moe": {
        "model_type": "qwen2_moe",
        "num_hidden_layers": 2,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "intermediate_size": 384,
        "moe_intermediate_size": 128,
        "shared_expert_intermediate_size": 256,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "vocab_size": 3000,
        "max_position_embeddings": 1024,
    },
    "qwen3_moe": {
        "model_type": "qwen3_moe",
        "num_hidden_layers": 2,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 32,
        "moe_intermediate_size": 128,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "norm_topk_prob": True,
        "vocab_size": 3000,
        "max_position_embeddings": 1024,
    },
    "olmoe": {
        "model_type": "olmoe",
        "num_hidden_layers": 2,
        "hidden_size": 128,
        "num_attention_heads": 4,
        "num_key_value_heads": 4,
        "intermediate_size": 128,
        "num_experts": 8,
        "num_experts_per_tok": 2,
        "vocab_size": 3000,
        "max_position_embeddings": 1024,
        "pad_token_id": 1,
        "eos_token_id": 2,
    },
}
FAMILIES.update(NEW_FAMILIES)
# Each again with a small vocabulary and three layers, for long sequences: the blocks set the peak.
FAMILIES.update(
    {
        name + "-act": {**spec, "vocab_size": 256, "num_hidden_layers": 3, "max_position_embeddings": 2048}
        for name, spec in NEW_FAMILIES.items()
    }
)
# A mixture of experts with its router's auxiliary loss on (every layer's router logits kept).
FAMILIES["mixtral-aux"] = {
    **NEW_FAMILIES["mixtral"],
    "num_local_experts": 16,
    "vocab_size": 1000,
    "output_router_logits": True,
}
# Experts as wide as Mixtral's against the tokens (8 x 1,024 x 256 per tensor, 64 tokens, small vocabulary): LoRA
# on the experts sets the peak with the merged weights' gradients, as at full size (issue 30; `tests/pilot/test_trace`).
FAMILIES["mixtral-wide"] = {
    **NEW_FAMILIES["mixtral"],
    "num_local_experts": 8,
    "intermediate_size": 1024,
    "hidden_size": 256,
    "vocab_size": 256,
}
LONG = {"seq_len": 512, "micro_batch": 4}
WIDE = {"seq_len": 1024, "micro_batch": 2}
ATTENTION_ONLY = ATTENTION_LINEARS  # LoRA targets


@dataclass(frozen=True)
class Case:
    family: str
    method: str  # full | lora
    dtype: str  # weights as loaded: fp32 | bf16
    autocast: bool  # bf16 autocast (train.precision = "bf16")
    dropout: bool = False
    ckpt: bool = False
    attention: str = "sdpa"
    optimizer: str = "adamw"
    impl: str = "single_tensor"
    adapters: str = "fp32"
    seq_len: int = 128
    micro_batch: int = 2
    targets: tuple = ()  # LoRA targets; () is the pilot's default, all seven projections

    @property
    def name(self) -> str:
        parts = [
            self.family,
            self.method,
            f"{self.dtype}{'+autocast' if self.autocast else ''}",
            self.attention,
            self.optimizer if self.optimizer == "sgd" else f"adamw-{self.impl}",
        ]
        parts += ["dropout"] * self.dropout + ["ckpt"] * self.ckpt
        parts += ["bf16-adapters"] * (self.adapters == "weights")
        parts += ["lora=" + ",".join(self.targets)] * bool(self.targets)
        return " ".join(parts)


MATRIX = (
    Case("llama", "full", "fp32", False),
    Case("llama", "full", "bf16", False, ckpt=True, impl="foreach"),
    Case("llama", "full", "fp32", True, impl="fused"),
    Case("llama", "full", "bf16", True, ckpt=True, attention="eager", optimizer="sgd"),
    Case("llama", "lora", "fp32", False, dropout=True),
    Case("llama", "lora", "bf16", False, adapters="weights", impl="foreach"),
    Case("llama", "lora", "bf16", True, dropout=True, ckpt=True, impl="fused"),
    Case("llama", "lora", "fp32", True, ckpt=True, attention="eager"),
    Case("llama", "lora", "fp32", True, dropout=True, optimizer="sgd"),
    Case("llama", "lora", "bf16", True, attention="eager", impl="foreach", seq_len=256, micro_batch=4),
    Case("qwen2", "full", "fp32", False, attention="eager"),
    Case("qwen2", "full", "bf16", True, ckpt=True, impl="fused"),
    Case("qwen2", "full", "fp32", True, ckpt=True, impl="foreach", seq_len=256, micro_batch=4),
    Case("qwen2", "lora", "bf16", False, dropout=True),
    Case("qwen2", "lora", "bf16", True, dropout=True, ckpt=True, attention="eager", optimizer="sgd"),
    Case("qwen2", "lora", "fp32", True, impl="fused"),
    Case("qwen2", "lora", "fp32", False, ckpt=True, impl="foreach", seq_len=256, micro_batch=4),
    Case("qwen2", "full", "bf16", False, optimizer="sgd"),
    Case("mistral", "full", "fp32", False, ckpt=True, optimizer="sgd"),
    Case("mistral", "full", "fp32", True, attention="eager"),
    Case("mistral", "full", "bf16", False, attention="eager", impl="fused"),
    Case("mistral", "lora", "bf16", True, dropout=True, impl="foreach"),
    Case("mistral", "lora", "fp32", False, dropout=True, ckpt=True, attention="eager", impl="fused"),
    Case("mistral", "lora", "bf16", False, ckpt=True, adapters="weights", seq_len=256, micro_batch=4),
    Case("mistral", "lora", "fp32", True, dropout=True, ckpt=True, attention="eager", impl="foreach"),
    Case("mistral", "full", "bf16", True, ckpt=True),
    Case("llama-act", "full", "fp32", False, ckpt=True, **LONG),
    Case("llama-act", "full", "fp32", True, ckpt=True, attention="eager", **LONG),
    Case("llama-act", "lora", "bf16", True, dropout=True, ckpt=True, **LONG),
    Case("llama-act", "lora", "fp32", True, ckpt=True, attention="eager", impl="fused", **LONG),
    Case("llama-act", "lora", "fp32", False, optimizer="sgd", **LONG),
    Case("llama-act", "full", "bf16", False, attention="eager", impl="foreach", **LONG),
    Case("phi3", "full", "fp32", False),
    Case("phi3", "lora", "bf16", True, dropout=True, impl="fused"),
    Case("phi3", "lora", "fp32", True, ckpt=True, attention="eager", optimizer="sgd"),
    Case("phi3", "full", "bf16", True, ckpt=True, impl="foreach"),
    Case("phi3-act", "lora", "bf16", False, dropout=True, **LONG),
    Case("phi3-act", "full", "fp32", False, ckpt=True, **LONG),
    # The families added with transformers 5 (NEW_FAMILIES). LoRA on a mixture of experts adapts the
    # routed experts too (peft's target_parameters) unless the targets say otherwise.
    Case("qwen3", "full", "fp32", False),
    Case("qwen3", "lora", "bf16", True, dropout=True, ckpt=True, impl="fused"),
    Case("qwen3-act", "full", "bf16", False, **LONG),
    Case("qwen3-act", "lora", "fp32", False, attention="eager", **LONG),
    Case("gemma2", "full", "fp32", False, attention="eager"),
    Case("gemma2", "lora", "bf16", True, attention="eager", ckpt=True),
    Case("gemma2-act", "full", "fp32", False, attention="eager", ckpt=True, **LONG),
    Case("gemma2-act", "lora", "fp32", True, attention="eager", impl="foreach", **LONG),
    Case("gemma3", "full", "bf16", False, ckpt=True),
    Case("gemma3", "lora", "fp32", False, attention="eager", dropout=True),
    Case("gemma3-act", "full", "bf16", False, optimizer="sgd", **LONG),
    Case("gemma3-act", "lora", "fp32", False, attention="eager", **LONG),
    Case("mixtral", "full", "fp32", False),
    Case("mixtral", "lora", "bf16", True, ckpt=True),
    Case("mixtral-act", "lora", "fp32", True, **LONG),
    Case("mixtral-act", "full", "bf16", False, impl="foreach", **LONG),
    Case("mixtral-aux", "lora", "bf16", True, seq_len=256, micro_batch=4, targets=ATTENTION_ONLY),
    Case("qwen2_moe", "full", "bf16", False, ckpt=True),
    Case("qwen2_moe", "lora", "fp32", False, optimizer="sgd", dropout=True, targets=ATTENTION_ONLY),
    Case("qwen2_moe-act", "lora", "bf16", True, ckpt=True, **LONG),
    Case("qwen2_moe-act", "full", "bf16", False, **LONG),
    Case("qwen3_moe", "full", "fp32", True, impl="foreach"),
    Case("qwen3_moe", "lora", "bf16", False, adapters="weights"),
    Case("qwen3_moe-act", "lora", "fp32", False, attention="eager", **LONG),
    Case("qwen3_moe-act", "full", "bf16", False, **LONG),
    Case("olmoe", "full", "bf16", False),
    Case("olmoe", "lora", "fp32", True, impl="fused", targets=("q", "v", "down")),
    Case("olmoe-act", "lora", "bf16", True, ckpt=True, **LONG),
    Case("olmoe-act", "full", "bf16", False, attention="eager", **LONG),
    # Appended, so the indices above (QUICK, tests/pilot/test_trace.py) keep their cases.
    Case("llama-wide", "full", "fp32", False, ckpt=True, optimizer="sgd", **WIDE),
    Case("llama-wide", "full", "fp32", True, ckpt=True, optimizer="sgd", **WIDE),
    Case("llama-wide", "lora", "fp32", True, ckpt=True, **WIDE),
)
# One per family and per method, both precisions, dropout, checkpointing and both kernels: the
# reduced matrix `make test` runs (tests/pilot/test_memory_accuracy.py).
QUICK = (MATRIX[2], MATRIX[6], MATRIX[7], MATRIX[11], MATRIX[13], MATRIX[22], MATRIX[28], MATRIX[33])
# One small configuration per family added with transformers 5, two mixtures of experts with LoRA
# (on the routed experts, and on the attention only): tests/pilot/test_memory_accuracy.py.
FAMILY_QUICK = tuple(
    next(c for c in MATRIX if c.family == name and c.method == method and bool(c.targets) == attention)
    for name, method, attention in (
        ("qwen3", "full", False),
        ("gemma2", "lora", False),
        ("gemma3", "full", False),
        ("mixtral", "lora", False),
        ("qwen2_moe", "lora", True),
        ("qwen3_moe", "full", False),
        ("olmoe", "full", False),
    )
)


# The activation-heavy regime (issue 30 item 4): small vocabulary, long sequences, where the
# activations dominate. LoRA on all projections or on the attention only, dropout on and off, each
# precision, checkpointing on and off; and full fine-tunes with SGD (no optimizer-step temporaries).
# Part of the matrix (appended, without the one case it already has); `--scan` runs it alone.
SCAN = tuple(
    Case("llama-act", "lora", dtype, autocast, dropout=dropout, ckpt=ckpt, targets=targets, **LONG)
    for ckpt in (True, False)
    for dropout in (False, True)
    for dtype, autocast in (("fp32", False), ("bf16", True), ("bf16", False))
    for targets in ((), ATTENTION_ONLY)
) + tuple(
    Case("llama-act", "full", dtype, autocast, ckpt=ckpt, optimizer="sgd", **LONG)
    for ckpt in (True, False)
    for dtype, autocast in (("fp32", False), ("bf16", True))
)
MATRIX += tuple(c for c in SCAN if c.name not in {m.name for m in MATRIX})


def pilot_config(case: Case, config_file: Path):
    from pilot.config import PilotConfig

    return PilotConfig(
        model={"config_file": str(config_file), "dtype": case.dtype, "attention": case.attention},
        train={
            "method": case.method,
            "precision": "bf16" if case.autocast else "fp32",
            "lora_dropout": 0.1 if case.dropout else 0.0,
            "adapter_dtype": case.adapters,
            "grad_checkpointing": case.ckpt,
            "optimizer": case.optimizer,
            "optimizer_impl": case.impl,
            "seq_len": case.seq_len,
            "micro_batch": case.micro_batch,
            "lora_rank": 8,
            **({"lora_targets": list(case.targets)} if case.targets else {}),
        },
        data={"synthetic_sequences": 16},
        device="cpu",
        restore_check=False,
    )


def _resolved_config(case: Case, workdir: Path):
    from pilot.trainer import resolved

    config_file = workdir / f"{case.family}.json"
    config_file.write_text(json.dumps(FAMILIES[case.family]), encoding="utf-8")
    return resolved(pilot_config(case, config_file))


def measure(case: Case, workdir: Path) -> dict:
    """Measured tensor peak of two steps and the calculator's estimate for the same run."""
    import torch

    from pilot.data import load_tokens
    from pilot.runner import fits

    cfg = _resolved_config(case, workdir)
    tokens = load_tokens(cfg.data, cfg.model, cfg.train.seq_len, cfg.seed)
    _, measured = fits(cfg, torch.device("cpu"), tokens)
    return _row(case, cfg, measured)


def reestimate(rows: list[dict], workdir: Path) -> list[dict]:
    """The rows with the calculator's current estimates beside the peaks measured before: the memory model
    changes more often than the libraries measured."""
    fields = set(Case.__dataclass_fields__)
    cases = [Case(**{k: tuple(v) if k == "targets" else v for k, v in row.items() if k in fields}) for row in rows]
    return [_row(case, _resolved_config(case, workdir), row["measured_bytes"]) for case, row in zip(cases, rows)]


def _row(case: Case, cfg, measured: int | None) -> dict:
    from pilot.estimate import compare

    est = compare(cfg, measured, "cpu")
    aux = bool(FAMILIES[case.family].get("output_router_logits"))
    return {
        "name": case.name,
        **case.__dict__,
        "router_aux_loss": aux,
        "measured_bytes": measured,
        "estimated_bytes": est.estimated_bytes,
        "relative_error": est.relative_error,
        "components": est.components,
        "reason": est.reason,
    }


def versions() -> dict:
    import peft
    import torch
    import transformers

    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
        "python": platform.python_version(),
        "device": "cpu",
        "date": dt.date.today().isoformat(),
    }


def run(cases) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="memory-accuracy-") as tmp:
        return [measure(case, Path(tmp)) for case in cases]


def table(rows: list[dict]) -> str:
    lines = [f"{'configuration':<72} {'measured MB':>12} {'estimate MB':>12} {'error':>8}"]
    for r in rows:
        err = r["relative_error"]
        est = f"{r['estimated_bytes'] / 1e6:12.3f}" if r["estimated_bytes"] else f"{'absent':>12}"
        lines.append(
            f"{r['name']:<72} {r['measured_bytes'] / 1e6:12.3f} {est} "
            + (f"{err:+8.1%}" if err is not None else f"  {r['reason']}")
        )
    worst = max((abs(r["relative_error"]) for r in rows if r["relative_error"] is not None), default=None)
    lines.append(
        f"worst absolute error: {worst:.1%} over {len(rows)} configurations (goal: within {GOAL:.0%})"
        if worst is not None
        else "no estimate"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help="where to write the rows (default: %(default)s)"
    )
    parser.add_argument("--quick", action="store_true", help="only the reduced matrix (not written)")
    parser.add_argument("--scan", action="store_true", help="only the activation-heavy scan (not written)")
    parser.add_argument(
        "--traced",
        action="store_true",
        help="trace presets at their real width under fake tensors instead (benchmarks.memory_traced; "
        "default JSON: benchmarks/results/memory_traced.json)",
    )
    parser.add_argument("--presets", default="", help="with --traced: comma-separated preset ids (default: all)")
    parser.add_argument(
        "--reestimate",
        action="store_true",
        help="recompute the estimates of the rows in the JSON file, measuring or tracing nothing",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --traced: keep the rows already in the JSON file (same library versions)",
    )
    args = parser.parse_args(argv)
    if args.traced:
        from . import memory_traced

        args.default_json = DEFAULT_JSON
        return memory_traced.main(args)
    measured_with = versions()
    if args.reestimate:
        earlier = json.loads(args.json.read_text(encoding="utf-8"))
        measured_with = earlier["measured_with"]
        with tempfile.TemporaryDirectory(prefix="memory-accuracy-") as tmp:
            rows = reestimate(earlier["rows"], Path(tmp))
    else:
        rows = run(SCAN if args.scan else QUICK if args.quick else MATRIX)
    print(table(rows))
    if not (args.quick or args.scan):
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"goal": GOAL, "measured_with": measured_with, "rows": rows}, indent=1) + "\n", encoding="utf-8"
        )
        print(f"written to {args.json}")
    ok = all(r["relative_error"] is not None and abs(r["relative_error"]) <= GOAL for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
