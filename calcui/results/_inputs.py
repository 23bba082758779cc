"""The calculator inputs a pilot result implies, from its recorded configuration and measurements.

The mapping follows the pilot's own (`pilot/estimate.py`), which cannot be imported here: the
pilot's report module needs NumPy, and this runs in the browser. Only inputs the calculator
declares are returned, and only values it accepts, so any calculator can take a result.
"""

from __future__ import annotations

import calculators

GB = 1e9
OPTIMIZERS = {"adamw": "adamw", "sgd": "sgd_momentum"}
PARALLELISM = {"none": "single", "ddp": "ddp", "fsdp": "fsdp"}
# The pilot measures tensors only: the comparison zeroes the calculator's non-tensor allowances.
TENSORS_ONLY = {"framework_gb": 0.0, "fragmentation": 0.0, "extra_temp_gb": 0.0}


def chosen_scale_run(data: dict) -> dict | None:
    """The scaling run a calculator takes: the most processes, then the best efficiency."""
    scaling = data.get("scaling")
    if not scaling or not scaling.get("runs"):
        return None
    return max(scaling["runs"], key=lambda r: (r["world_size"], r["efficiency"]))


def memory_inputs(data: dict, strategy: str = "none", world: int = 1, micro_batch: int | None = None) -> dict:
    """The memory calculator's inputs for this run (on `world` processes with `strategy`)."""
    cfg, env = data["config"], data["environment"]
    m, t = cfg["model"], cfg["train"]
    inputs = {
        "model": "custom", "params": 0, "layers": m["layers"], "hidden": m["hidden"], "heads": m["heads"],
        "kv_heads": m["kv_heads"], "head_dim": m["hidden"] // m["heads"], "intermediate": m["intermediate"],
        "vocab": m["vocab"], "tied_embeddings": m["tie_embeddings"], "qkv_bias": False,
        "method": t["method"], "precision": t["precision"],
        # bf16 autocast keeps fp32 weights: an fp32 master copy
        "master_weights": t["precision"] != "fp32",
        "optimizer": OPTIMIZERS.get(t["optimizer"], t["optimizer"]),
        # torch's AdamW default: foreach on a GPU, one tensor at a time on the CPU
        "optimizer_impl": "foreach" if env["device_type"] == "cuda" else "single_tensor",
        "grad_accumulation": t["grad_accum"] > 1, "seq_len": t["seq_len"],
        "micro_batch": micro_batch or t["micro_batch"], "gradient_checkpointing": t["grad_checkpointing"],
        "attention": "fused", "parallelism": PARALLELISM.get(strategy, "single"), "gpus": world,
    }
    if t["method"] == "lora":
        inputs["lora_rank"] = t["lora_rank"]
        inputs["lora_targets"] = list(t["lora_targets"])
    return inputs


def catalog_gpu(device_name: str) -> str | None:
    """The catalog GPU a device name names ("NVIDIA H200" -> "h200-141gb"), by its model token."""
    name = device_name.lower()
    for gpu in calculators.catalog()["gpus"]:
        token = next((part for part in gpu["id"].split("-") if any(c.isdigit() for c in part)), None)
        if token and token in name:
            return gpu["id"]
    return None


def measured_inputs(data: dict) -> dict:
    """Throughput per GPU, scaling efficiency and memory per GPU that the run measured."""
    out: dict = {}
    run, env = chosen_scale_run(data), data["environment"]
    if run is not None:
        out["throughput_per_gpu"] = round(data["scaling"]["baseline"]["tokens_per_s"], 2)
        out["scaling_efficiency"] = round(min(max(run["efficiency"], 0.01), 1.0), 4)
        out["memory_per_gpu_gb"] = round(run["peak_tensor_bytes"] / GB, 4)
    else:
        timing, memory = data.get("timing"), data.get("memory")
        if timing and timing["tokens_per_s"] > 0:
            out["throughput_per_gpu"] = round(timing["tokens_per_s"], 2)
        if memory:
            # What the card must hold: the whole device's peak when known, else the allocator's.
            peak = next(v for v in (memory["device_used_peak_bytes"], memory["reserved_bytes"],
                                    memory["peak_tensor_bytes"]) if v is not None)
            out["memory_per_gpu_gb"] = round(peak / GB, 4)
    # Checkpoint write and restore times set the cost of an interruption (restore: a fresh process
    # loading the checkpoint and continuing a few steps, so an upper bound on the restore itself).
    if data.get("checkpoint"):
        out["checkpoint_write_s"] = round(data["checkpoint"]["write_s"], 3)
    if data.get("restore") and data["restore"]["performed"]:
        out["restore_s"] = round(data["restore"]["duration_s"], 3)
    if env["device_type"] == "cuda" and catalog_gpu(env["device_name"]):
        out["gpu"] = catalog_gpu(env["device_name"])
    return out


def declared(name: str) -> set[str]:
    return {i["name"] for i in calculators.describe(name).get("inputs", [])}


def candidates(data: dict) -> dict:
    run = chosen_scale_run(data)
    if run is None:
        config = memory_inputs(data)
    else:
        config = memory_inputs(data, run["strategy"], run["world_size"], run["micro_batch"])
    return {**config, **measured_inputs(data)}


def to_inputs(data: dict, name: str) -> dict:
    """Inputs for calculator `name` from a valid result; values it would refuse are left out."""
    names = declared(name)
    inputs = {k: v for k, v in candidates(data).items() if k in names}
    while inputs:
        response = calculators.compute(name, inputs)
        refused = {e.get("field") for e in response.get("errors", [])} & set(inputs)
        if response["ok"] or not refused:
            break
        for field in refused:
            del inputs[field]
    return inputs


# Every key `candidates()` can produce (a test holds the two together).
FILLED = frozenset({
    "model", "params", "layers", "hidden", "heads", "kv_heads", "head_dim", "intermediate", "vocab",
    "tied_embeddings", "qkv_bias", "method", "precision", "master_weights", "optimizer", "optimizer_impl",
    "grad_accumulation", "seq_len", "micro_batch", "gradient_checkpointing", "attention", "parallelism",
    "gpus", "lora_rank", "lora_targets", "throughput_per_gpu", "scaling_efficiency", "memory_per_gpu_gb", "gpu",
    "checkpoint_write_s", "restore_s",
})


def importable(name: str) -> bool:
    """Whether a result file has anything for calculator `name` (the page shows a picker if so)."""
    return bool(declared(name) & FILLED)
