"""Estimate vs measured: what the calculators' memory model predicts for this very run.

Kept apart from the rest so the pilot still runs, recording the estimate as absent with the
reason, wherever the calculators package is missing or refuses the inputs.
"""
from __future__ import annotations

from typing import Any

from .config import PilotConfig
from .report import Estimate


def optimizer_impl(cfg: PilotConfig) -> str:
    """The AdamW code path torch.optim.AdamW picks by default: foreach when the parameters are on a
    GPU, one tensor at a time on the CPU (the two hold different temporaries during the step)."""
    if cfg.device == "auto":
        import torch

        return "foreach" if torch.cuda.is_available() else "single_tensor"
    return "foreach" if cfg.device == "cuda" else "single_tensor"


def calculator_inputs(cfg: PilotConfig, world: int = 1, strategy: str = "none") -> dict[str, Any]:
    """The memory calculator's inputs describing this run; overhead allowances are zero because the
    pilot measures tensors only. bf16 autocast keeps fp32 weights, i.e. an fp32 master copy."""
    m, t = cfg.model, cfg.train
    inputs: dict[str, Any] = {
        "model": "custom", "layers": m.layers, "hidden": m.hidden, "heads": m.heads, "kv_heads": m.kv_heads,
        "head_dim": m.hidden // m.heads, "intermediate": m.intermediate, "vocab": m.vocab,
        "tied_embeddings": m.tie_embeddings,
        "method": t.method, "precision": t.precision, "master_weights": t.precision != "fp32",
        "optimizer": {"adamw": "adamw", "sgd": "sgd_momentum"}[t.optimizer], "optimizer_impl": optimizer_impl(cfg),
        "grad_accumulation": t.grad_accum > 1,
        "seq_len": t.seq_len, "micro_batch": t.micro_batch, "gradient_checkpointing": t.grad_checkpointing,
        "attention": "fused", "parallelism": {"none": "single", "ddp": "ddp", "fsdp": "fsdp"}[strategy],
        "gpus": world, "framework_gb": 0.0, "fragmentation": 0.0, "extra_temp_gb": 0.0,
    }
    if t.method == "lora":
        inputs["lora_rank"] = t.lora_rank
        inputs["lora_targets"] = list(t.lora_targets)
    return inputs


def _tensor_components(result: dict[str, Any]) -> dict[str, int]:
    """Per-component bytes per GPU, without the framework term (context, fragmentation: not tensors).
    They are not all allocated at once: the estimate to compare is the calculator's peak."""
    return {k: int(v) for k, v in result["bytes"].items() if k != "framework"}


def compare(cfg: PilotConfig, measured_bytes: int | None, world: int = 1, strategy: str = "none") -> Estimate:
    inputs = calculator_inputs(cfg, world, strategy)
    absent = Estimate(False, None, inputs, None, None, measured_bytes, None)
    if cfg.model.source != "builtin":
        absent.reason = "estimate made only for the built-in model, whose layout the calculator models"
        return absent
    try:
        import calculators

        answer = calculators.compute("memory", inputs)
    except Exception as exc:  # noqa: BLE001 - an estimate failure must never cost the measurement
        absent.reason = f"calculators unavailable: {type(exc).__name__}: {exc}"
        return absent
    if not answer.get("ok"):
        absent.reason = "calculators refused the inputs: " + ", ".join(
            f"{e.get('field')}={e.get('code')}" for e in answer.get("errors", []))
        return absent
    components = _tensor_components(answer["result"])
    total = int(answer["result"]["per_gpu_bytes"] - answer["result"]["bytes"]["framework"])
    error = (total - measured_bytes) / measured_bytes if measured_bytes else None
    return Estimate(True, None, answer["inputs"], components, total, measured_bytes, error)
