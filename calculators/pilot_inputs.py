"""The memory calculator's inputs that describe a pilot run: the one home of this mapping.

The pilot (estimate vs measured on the machine) and the site (a result file imported in the
build or the browser) both call ``memory_inputs`` with the configuration the pilot records.
The pilot measures tensors only: a comparison adds ``TENSORS_ONLY``, which zeroes the
non-tensor allowances. Result files written
before ``model.dtype`` existed meant: bf16 LoRA casts the frozen base to bf16, everything
else keeps fp32 weights (bf16 then meaning autocast).
"""

from __future__ import annotations

OPTIMIZERS = {"adamw": "adamw", "sgd": "sgd_momentum"}
PARALLELISM = {"none": "single", "ddp": "ddp", "fsdp": "fsdp"}
ATTENTION = {"sdpa": "fused", "eager": "eager"}
TENSORS_ONLY = {"framework_gb": 0.0, "fragmentation": 0.0, "extra_temp_gb": 0.0}


def default_adamw_impl(device_type: str) -> str:
    """The code path torch.optim.AdamW takes by default: foreach on a GPU, one tensor at a time
    on the CPU (the pilot's ``train.optimizer_impl = "default"``)."""
    return "foreach" if device_type == "cuda" else "single_tensor"


def weights_dtype(model: dict, train: dict) -> str:
    dtype = model.get("dtype")
    if dtype in ("fp32", "bf16", "fp16"):
        return dtype
    return "bf16" if (train["method"] == "lora" and train["precision"] == "bf16") else "fp32"


def memory_inputs(config: dict, device_type: str, strategy: str = "none", world: int = 1,
                  micro_batch: int | None = None) -> dict:
    """Inputs for ``calculators.compute("memory", ...)`` from a pilot ``config`` dict."""
    m, t = config["model"], config["train"]
    impl = t.get("optimizer_impl", "default")
    inputs = {
        "model": "custom", "params": 0, "layers": m["layers"], "hidden": m["hidden"], "heads": m["heads"],
        "kv_heads": m["kv_heads"], "head_dim": m.get("head_dim") or m["hidden"] // m["heads"],
        "intermediate": m["intermediate"], "vocab": m["vocab"], "tied_embeddings": m["tie_embeddings"],
        "qkv_bias": bool(m.get("qkv_bias", False)),
        "method": t["method"], "weights_dtype": weights_dtype(m, t),
        "autocast": "bf16" if t["precision"] == "bf16" else "off",
        # The pilot keeps no separate master copy: its trainable weights are the optimizer's.
        "master_weights": False, "adapter_dtype": t.get("adapter_dtype", "fp32"),
        "optimizer": OPTIMIZERS.get(t["optimizer"], t["optimizer"]),
        "optimizer_impl": default_adamw_impl(device_type) if impl == "default" else impl,
        "grad_accumulation": t["grad_accum"] > 1, "seq_len": t["seq_len"],
        "micro_batch": micro_batch or t["micro_batch"], "gradient_checkpointing": t["grad_checkpointing"],
        "attention": ATTENTION.get(m.get("attention", "sdpa"), "fused"), "loss": t.get("loss", "standard"),
        "parallelism": PARALLELISM.get(strategy, "single"), "gpus": world,
    }
    if t["method"] != "full":
        inputs.update(lora_rank=t["lora_rank"], lora_targets=list(t["lora_targets"]),
                      lora_dropout=t.get("lora_dropout", 0.0))
    return inputs


def tensor_peak(config: dict, device_type: str, strategy: str = "none", world: int = 1,
                micro_batch: int | None = None) -> dict:
    """The estimate a pilot run is compared with: the memory model's peak of live tensors (no
    context or fragmentation allowance), with dropout masks stored as the device stores them.

    Returns ``{"ok": True, "inputs", "components", "estimated_bytes"}`` or the boundary's errors.
    """
    import dataclasses

    from . import memory
    from ._memory_model import unsharded
    from ._registry import compute

    inputs = {**memory_inputs(config, device_type, strategy, world, micro_batch), **TENSORS_ONLY}
    answer = compute("memory", inputs)
    if not answer["ok"]:
        return {"ok": False, "inputs": inputs, "errors": answer["errors"]}
    run = dataclasses.replace(memory.build_run(answer["inputs"]), cpu_masks=device_type != "cuda")
    here = unsharded(run).per_gpu(world)
    return {"ok": True, "inputs": answer["inputs"], "estimated_bytes": int(here["total"]),
            "components": {k: int(v) for k, v in here["parts"].items() if k != "framework"}}
